"""``tf.compat.v1`` for TF1-era input code: ``import tfnano.compat.v1 as tf``.

TF1 names that differ from TF2's are here (``python_io``, ``gfile`` with
``Exists``/``Glob``/``GFile``..., ``logging``, ``data.make_one_shot_iterator``,
``parse_single_example`` / ``FixedLenFeature`` at the top, ``enable_eager_execution``);
every other name is tfnano's TF2 one. Graph-mode TF1 (Session, placeholder) is not
part of tfnano: everything runs eagerly."""
import importlib

_HERE = {
    "python_io": ("tfnano.compat.v1.python_io", None),
    "gfile": ("tfnano.compat.v1.gfile", None),
    "logging": ("tfnano.compat.v1.logging", None),
    "data": ("tfnano.compat.v1.data", None),
    "image": ("tfnano.compat.v1.image", None),
    "parse_single_example": ("tfnano.io", "parse_single_example"),
    "parse_example": ("tfnano.io", "parse_example"),
    "FixedLenFeature": ("tfnano.io", "FixedLenFeature"),
    "FixedLenSequenceFeature": ("tfnano.io", "FixedLenSequenceFeature"),
    "VarLenFeature": ("tfnano.io", "VarLenFeature"),
    "SparseFeature": ("tfnano.io", "SparseFeature"),
    "read_file": ("tfnano.ops.io_ops", "read_file"),
    "write_file": ("tfnano.ops.io_ops", "write_file"),
    "matching_files": ("tfnano.ops.io_ops", "matching_files"),
    "py_func": ("tfnano.ops.script_ops", "numpy_function"),
    "to_float": ("tfnano.compat.v1._casts", "to_float"),
    "to_int32": ("tfnano.compat.v1._casts", "to_int32"),
    "to_int64": ("tfnano.compat.v1._casts", "to_int64"),
    "string_split": ("tfnano.compat.v1._casts", "string_split"),
    # TF1 top-level spellings of TF2 names (the census counts each in 3+ public files)
    "random_uniform": ("tfnano.ops.random_ops", "uniform"),
    "random_normal": ("tfnano.ops.random_ops", "normal"),
    "random_crop": ("tfnano.image", "random_crop"),
    "log": ("tfnano.ops.math_ops", "log"),
    "Print": ("tfnano.ops.debugging", "Print"),
    "string_to_number": ("tfnano.ops.string_ops", "to_number"),
    "decode_csv": ("tfnano.io", "decode_csv"),
    "decode_raw": ("tfnano.io", "decode_raw"),
    "sparse_tensor_to_dense": ("tfnano.sparse", "to_dense"),
}

_GRAPH_MODE = {"Session", "InteractiveSession", "placeholder", "placeholder_with_default",
               "get_default_graph", "Graph", "global_variables_initializer",
               "local_variables_initializer", "tables_initializer", "variable_scope",
               "get_variable", "train.Saver", "ConfigProto", "GPUOptions", "RunOptions"}


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """tfnano always runs eagerly: nothing to do."""


def enable_v2_behavior():
    """tfnano always has TF2 behaviour: nothing to do."""


def executing_eagerly():
    return True


def disable_eager_execution():
    """Accepted so scripts start; tfnano still runs eagerly (no graphs or Sessions)."""
    import logging
    logging.getLogger("tensorflow").warning(
        "tfnano runs eagerly: disable_eager_execution() has no effect (no graph mode)")


disable_v2_behavior = disable_eager_execution


def __getattr__(name):
    entry = _HERE.get(name)
    if entry is not None:
        mod = importlib.import_module(entry[0])
        value = mod if entry[1] is None else getattr(mod, entry[1])
    elif name in _GRAPH_MODE:
        raise AttributeError("module 'tfnano.compat.v1' has no attribute %r: TF1 graph mode "
                             "(Session, placeholder, variables) is not part of tfnano, which "
                             "runs eagerly; iterate datasets directly (or use "
                             "tf.compat.v1.data.make_one_shot_iterator(ds).get_next())" % name)
    else:
        import tfnano
        try:
            value = getattr(tfnano, name)
        except AttributeError as e:
            raise AttributeError(str(e).replace("module 'tfnano'", "module "
                                                "'tfnano.compat.v1'", 1)) from None
    globals()[name] = value
    return value


def __dir__():
    import tfnano
    return sorted(set(globals()) | set(_HERE) | set(dir(tfnano)))

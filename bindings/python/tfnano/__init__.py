"""tfnano: TensorFlow's data preparation without TensorFlow.

Notebook code runs with ``import tfnano as tf``: ``tf.train.Example`` and friends,
``tf.io.parse_example`` / ``parse_single_example`` with ``FixedLenFeature`` /
``FixedLenSequenceFeature``, ``tf.io.TFRecordWriter``, ``tf.data.TFRecordDataset``
with map / batch / padded_batch / shuffle / repeat / cache / prefetch, and
``tf.keras.utils.pad_sequences`` - giving numpy arrays, with no TensorFlow and no
protobuf installed.

The fast path (recommended for speed): ``tfnano.Parser`` / ``tfnano.parse_batch``
(a batch per C call, int32 output, fused maxlen padding with masks, threads),
``tfnano.serialize_columns`` / ``TFRecordWriter.write_columns`` (numpy columns to
records without a Python object per example) and ``tfnano.pad``.
"""
from . import errors, dtypes  # noqa: F401
from .dtypes import (DType, as_dtype, bool, complex64, complex128, double,  # noqa: F401,A004
                     float16, float32, float64, half, int8, int16, int32, int64, string,
                     uint8, uint16, uint32, uint64)
from ._tensor import Tensor, cast, constant, convert_to_tensor  # noqa: F401

__version__ = "0.1.0"

# The rest loads on first use (PEP 562), so `import tfnano` stays fast.
_LAZY = {
    "train": ("tfnano.train", None),
    "io": ("tfnano.io", None),
    "image": ("tfnano.image", None),
    "data": ("tfnano.data", None),
    "keras": ("tfnano.keras", None),
    "Parser": ("tfnano._parsing", "Parser"),
    "parse_batch": ("tfnano._parsing", "parse_batch"),
    "serialize_columns": ("tfnano._c.columns", "serialize_columns"),
    "serialize_sequence_columns": ("tfnano._c.sequence_columns", "serialize_sequence_columns"),
    "pad": ("tfnano.ops.array_ops", "pad_either"),  # tf.pad(t, paddings) or the fast pad
    "bucket_plan": ("tfnano._pad", "bucket_plan"),
    "sparse": ("tfnano.sparse", None),
    "SparseTensor": ("tfnano.sparse", "SparseTensor"),
    "ragged": ("tfnano.ragged", None),
    "RaggedTensor": ("tfnano.ragged", "RaggedTensor"),
    "audio": ("tfnano.audio", None),
    "signal": ("tfnano.signal", None),
    "torch": ("tfnano.torch", None),  # PyTorch datasets (torch imported on first use)
}
# TensorFlow's tensor ops and namespaces (tfnano/ops, tfnano/compat): name -> module.
_OPS = {
    "tfnano.ops.array_ops": "reshape shape rank size expand_dims squeeze stack concat "
    "unstack split fill zeros ones zeros_like ones_like range identity gather gather_nd where "
    "one_hot clip_by_value transpose tile boolean_mask reverse slice broadcast_to sort "
    "argsort unique sequence_mask newaxis repeat roll linspace meshgrid searchsorted "
    "ensure_shape is_tensor get_static_value identity_n map_fn",
    "tfnano.ops.math_ops": "add subtract multiply divide truediv floordiv pow maximum minimum "
    "abs negative sign square sqrt exp equal not_equal less less_equal greater greater_equal "
    "logical_and logical_or logical_not reduce_sum reduce_mean reduce_max reduce_min "
    "reduce_prod reduce_any reduce_all reduce_logsumexp argmax argmin cumsum add_n round "
    "floor sin cos tanh sigmoid realdiv:truediv asin acos atan atan2 sinh cosh asinh acosh "
    "atanh scalar_mul",
    "tfnano.ops.linalg": "matmul eye norm",
    "tfnano.ops.more_array_ops": "tensordot reverse_sequence",
    "tfnano.ops.debugging": "Assert assert_equal assert_none_equal assert_less "
    "assert_less_equal assert_greater assert_greater_equal",
    "tfnano.ops.specs": "TensorSpec TensorShape SparseTensorSpec RaggedTensorSpec",
    "tfnano.ops.control_flow": "cond case switch_case while_loop",
    "tfnano.ops.script_ops": "py_function numpy_function",
    "tfnano.ops.stand_ins": "function executing_eagerly get_logger autograph config "
    "distribute print name_scope device no_op control_dependencies",
    "tfnano.run": "as_tensorflow",
    "tfnano.compat.v1": "python_io",  # TF1's tf.python_io, for TF1-era scripts
}
for _module, _names in _OPS.items():
    for _spec in _names.split():
        _name, _, _attr = _spec.partition(":")
        _LAZY[_name] = (_module, _attr or _name)
_LAZY.update({
    "math": ("tfnano.ops.math_ops", None),
    "linalg": ("tfnano.ops.linalg", None),
    "debugging": ("tfnano.ops.debugging", None),
    "bitwise": ("tfnano.ops.math_ops", None),
    "strings": ("tfnano.ops.string_ops", None),
    "random": ("tfnano.ops.random_ops", None),
    "nest": ("tfnano.ops.nest", None),
    "compat": ("tfnano.compat", None),
    "lookup": ("tfnano.ops.lookup_ops", None),
})
del _module, _names, _spec, _name, _attr


def __getattr__(name):
    entry = _LAZY.get(name)
    if entry is None:
        raise AttributeError(_missing(name))
    import importlib
    mod = importlib.import_module(entry[0])
    value = mod if entry[1] is None else getattr(mod, entry[1])
    globals()[name] = value
    return value


# TensorFlow names outside tfnano's surface, by where users should look instead.
_ELSEWHERE = {
    "models and training (Keras, TensorFlow or PyTorch; feed them tfnano's numpy batches)":
    "Variable GradientTape Module optimizers losses metrics nn saved_model summary "
    "estimator feature_column lite train.Checkpoint Session placeholder initializers "
    "experimental tpu xla mixed_precision keras.layers keras.models".split(),
}


def _missing(name):
    where = next((why for why, names in _ELSEWHERE.items() if name in names), None)
    text = ("module 'tfnano' has no attribute %r: tfnano implements TensorFlow's input "
            "surface (tf.data, tf.io, tf.train.Example, and the tensor ops map functions "
            "use: tf.math, tf.strings, tf.random, tf.nest, array ops); tf.%s is not part of "
            "it" % (name, name))
    if where:
        text += " - it belongs to %s" % where
    return text + ". See docs/compat.md for the list of covered names."


def __dir__():
    return sorted(list(globals()) + list(_LAZY))

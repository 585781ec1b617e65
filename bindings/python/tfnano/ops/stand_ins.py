"""Stand-ins for the parts of TensorFlow's runtime that input-pipeline code touches on
its way to the data, documented as such: they let a CPU-only pipeline start
unchanged, they do not do what TensorFlow's do.

- ``tf.function``: returns the function (tfnano runs eagerly; tf.data traces map
  functions itself).
- ``tf.get_logger()``: Python's ``logging.getLogger("tensorflow")``.
- ``tf.autograph.experimental.do_not_convert``: returns the function.
- ``tf.config``: one CPU device; memory growth, visible devices, threading and JIT
  settings are accepted and ignored.
- ``tf.distribute``: a default strategy with one replica
  (``get_strategy().num_replicas_in_sync == 1``, ``scope()`` a no-op context,
  ``experimental_distribute_dataset(ds)`` gives ds back); TPU cluster resolvers raise
  ValueError("Please provide a TPU Name to connect to."), which the usual
  ``try: TPUClusterResolver() except ValueError: strategy = default`` expects.
- ``tf.print``: prints tensors as TensorFlow formats them (to stderr by default).
"""
import contextlib
import logging as _logging
import sys
import types


def function(func=None, input_signature=None, autograph=True, jit_compile=None,
             reduce_retracing=False, experimental_implements=None,
             experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None,
             experimental_follow_type_hints=None):
    """``tf.function`` stand-in: the function itself (eager)."""
    if func is None:
        return lambda f: f
    return func


def executing_eagerly():
    return True


def get_logger():
    """``tf.get_logger``: the "tensorflow" logger of Python's logging."""
    return _logging.getLogger("tensorflow")


def _do_not_convert(func=None):
    if func is None:
        return lambda f: f
    return func


autograph = types.SimpleNamespace(
    experimental=types.SimpleNamespace(do_not_convert=_do_not_convert,
                                       Feature=types.SimpleNamespace(ALL="ALL")),
    set_verbosity=lambda level, alsologtostdout=False: None,
    to_graph=lambda f, **kw: f,
    do_not_convert=_do_not_convert,
)


class PhysicalDevice(tuple):
    """``tf.config.PhysicalDevice(name, device_type)``."""

    def __new__(cls, name, device_type):
        return tuple.__new__(cls, (name, device_type))

    name = property(lambda self: self[0])
    device_type = property(lambda self: self[1])

    def __repr__(self):
        return "PhysicalDevice(name=%r, device_type=%r)" % self


class LogicalDevice(PhysicalDevice):
    def __repr__(self):
        return "LogicalDevice(name=%r, device_type=%r)" % self


_CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")


def _list_physical(device_type=None):
    return [_CPU] if device_type in (None, "CPU") else []


def _list_logical(device_type=None):
    return [LogicalDevice("/device:CPU:0", "CPU")] if device_type in (None, "CPU") else []


def _ignore(*args, **kwargs):
    return None


config = types.SimpleNamespace(
    list_physical_devices=_list_physical,
    list_logical_devices=_list_logical,
    get_visible_devices=_list_physical,
    set_visible_devices=_ignore,
    set_soft_device_placement=_ignore,
    run_functions_eagerly=_ignore,
    functions_run_eagerly=lambda: True,
    experimental_connect_to_cluster=_ignore,
    experimental=types.SimpleNamespace(
        set_memory_growth=_ignore, get_memory_growth=lambda device: False,
        list_physical_devices=_list_physical, enable_op_determinism=_ignore,
        set_virtual_device_configuration=_ignore, get_device_details=lambda d: {}),
    threading=types.SimpleNamespace(
        set_inter_op_parallelism_threads=_ignore, set_intra_op_parallelism_threads=_ignore,
        get_inter_op_parallelism_threads=lambda: 0,
        get_intra_op_parallelism_threads=lambda: 0),
    optimizer=types.SimpleNamespace(set_jit=_ignore, get_jit=lambda: "",
                                    set_experimental_options=_ignore,
                                    get_experimental_options=lambda: {}),
    PhysicalDevice=PhysicalDevice,
    LogicalDevice=LogicalDevice,
)


class InputContext:
    """``tf.distribute.InputContext`` of the single input pipeline."""

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self.num_input_pipelines = num_input_pipelines
        self.input_pipeline_id = input_pipeline_id
        self.num_replicas_in_sync = num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size):
        if global_batch_size % self.num_replicas_in_sync:
            raise ValueError("The `global_batch_size` %r is not divisible by "
                             "`num_replicas_in_sync` %r " % (global_batch_size,
                                                             self.num_replicas_in_sync))
        return global_batch_size // self.num_replicas_in_sync


class Strategy:
    """The default (one replica, this CPU) strategy."""
    num_replicas_in_sync = 1

    def __init__(self, *args, **kwargs):
        self.extended = types.SimpleNamespace(parameter_devices=("/device:CPU:0",),
                                              worker_devices=("/device:CPU:0",))

    def scope(self):
        return contextlib.nullcontext()

    def experimental_distribute_dataset(self, dataset, options=None):
        return dataset

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        return dataset_fn(InputContext())

    experimental_distribute_datasets_from_function = distribute_datasets_from_function

    def run(self, fn, args=(), kwargs=None, options=None):
        return fn(*args, **(kwargs or {}))

    def reduce(self, reduce_op, value, axis):
        return value

    def experimental_local_results(self, value):
        return (value,)


def _no_tpu(*args, **kwargs):
    raise ValueError("Please provide a TPU Name to connect to.")


class _TPUClusterResolver:
    def __init__(self, *args, **kwargs):
        _no_tpu()

    connect = staticmethod(_no_tpu)


distribute = types.SimpleNamespace(
    get_strategy=lambda: Strategy(),
    has_strategy=lambda: False,
    in_cross_replica_context=lambda: True,
    Strategy=Strategy,
    MirroredStrategy=Strategy,
    OneDeviceStrategy=Strategy,
    MultiWorkerMirroredStrategy=Strategy,
    InputContext=InputContext,
    ReduceOp=types.SimpleNamespace(SUM="SUM", MEAN="MEAN"),
    cluster_resolver=types.SimpleNamespace(TPUClusterResolver=_TPUClusterResolver),
    experimental=types.SimpleNamespace(TPUStrategy=Strategy,
                                       MultiWorkerMirroredStrategy=Strategy),
    TPUStrategy=Strategy,
)


def print(*inputs, output_stream=None, summarize=3, sep=" ", end="\n",  # noqa: A001
          name=None):
    """``tf.print``: tensors formatted as TensorFlow prints them ([1 2 3]); strings as
    they are; to stderr unless `output_stream` (sys.stdout, a file, or a
    "file://path" string)."""
    import numpy as np
    from .string_ops import _format_value
    from ._common import plain
    parts = []
    for v in inputs:
        if isinstance(v, str):
            parts.append(v)
        elif isinstance(v, np.ndarray) or isinstance(v, (int, float, bool, list, tuple)) \
                and not isinstance(v, dict):
            a = np.asarray(plain(v) if isinstance(v, np.ndarray) else v)
            if a.dtype.kind in "SU":
                a = a.astype(object)
            if a.ndim == 0 and a.dtype == object:
                x = a[()]
                parts.append(x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x))
            else:
                parts.append(_format_value(a, summarize))
        else:
            parts.append(str(v))
    text = sep.join(parts) + end
    if output_stream is None:
        output_stream = sys.stderr
    if isinstance(output_stream, str):
        path = output_stream[len("file://"):] if output_stream.startswith("file://") \
            else output_stream
        with open(path, "a") as f:
            f.write(text)
    else:
        output_stream.write(text)


__all__ = ["function", "executing_eagerly", "get_logger", "autograph", "config",
           "distribute", "print"]


class name_scope:  # noqa: N801 - TensorFlow's name
    """``tf.name_scope(name)``: a context manager that names nothing (no graphs)."""

    def __init__(self, name, *args, **kwargs):
        self.name = name

    def __enter__(self):
        return self.name

    def __exit__(self, *exc):
        return False


def device(device_name):
    """``tf.device``: accepted; everything runs on the CPU."""
    return contextlib.nullcontext()


def no_op(name=None):
    return None


def control_dependencies(control_inputs):
    return contextlib.nullcontext()

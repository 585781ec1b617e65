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
    "data": ("tfnano.data", None),
    "keras": ("tfnano.keras", None),
    "Parser": ("tfnano._parsing", "Parser"),
    "parse_batch": ("tfnano._parsing", "parse_batch"),
    "serialize_columns": ("tfnano._columns", "serialize_columns"),
    "pad": ("tfnano._pad", "pad"),
    "bucket_plan": ("tfnano._pad", "bucket_plan"),
}


def __getattr__(name):
    entry = _LAZY.get(name)
    if entry is None:
        raise AttributeError("module 'tfnano' has no attribute %r" % name)
    import importlib
    mod = importlib.import_module(entry[0])
    value = mod if entry[1] is None else getattr(mod, entry[1])
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + list(_LAZY))

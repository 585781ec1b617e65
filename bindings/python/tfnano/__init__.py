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
from . import train, io  # noqa: F401
from ._parsing import Parser, parse_batch  # noqa: F401
from ._columns import serialize_columns  # noqa: F401
from . import data, keras  # noqa: F401
from ._pad import pad  # noqa: F401

__version__ = "0.1.0"

"""``tf.io``: feature configs, Example parsing, TFRecord writing, gfile."""
from .._parsing import (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature,  # noqa: F401
                        parse_example, parse_single_example)
from .tf_record import (TFRecordCompressionType, TFRecordOptions,  # noqa: F401
                       TFRecordWriter, tf_record_iterator)
from .gfile import gfile  # noqa: F401
from ..ops.io_ops import matching_files, read_file, write_file  # noqa: F401
from ..ops.csv_ops import decode_csv  # noqa: F401
from ._kinds import RaggedFeature, SparseFeature  # noqa: F401
from ._raw import decode_raw, parse_tensor, serialize_tensor  # noqa: F401
from ._sparse_serial import serialize_many_sparse, serialize_sparse  # noqa: F401
from ._sequence import parse_sequence_example, parse_single_sequence_example  # noqa: F401
from ._verify import (DamagedRange, DamagedRecordsWarning, VerifyReport,  # noqa: F401
                      verify_records)
from ._shards import write_shards  # noqa: F401

# tf.io's image codecs are tf.image's functions; loaded on first use, so that
# `tfnano.io` does not load the image module (and libjpeg/libpng setup) until asked.
_IMAGE_CODECS = ("decode_and_crop_jpeg", "decode_bmp", "decode_gif", "decode_image",
                 "decode_jpeg", "decode_png", "encode_jpeg", "encode_png", "extract_jpeg_shape",
                 "is_jpeg")


def __getattr__(name):
    if name in _IMAGE_CODECS:
        from .. import image
        value = getattr(image, name)
        globals()[name] = value
        return value
    raise AttributeError("module 'tfnano.io' has no attribute %r" % name)


__all__ = ["FixedLenFeature", "FixedLenSequenceFeature", "VarLenFeature", "parse_example",
           "parse_single_example", "TFRecordOptions", "TFRecordCompressionType",
           "TFRecordWriter", "tf_record_iterator", "gfile", "SparseFeature", "RaggedFeature",
           "decode_raw", "serialize_tensor", "parse_tensor", "serialize_sparse",
           "serialize_many_sparse", "parse_sequence_example",
           "parse_single_sequence_example",
           "verify_records", "VerifyReport", "DamagedRange", "DamagedRecordsWarning",
           "write_shards"] + list(_IMAGE_CODECS)

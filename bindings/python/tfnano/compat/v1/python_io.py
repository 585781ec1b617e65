"""``tf.compat.v1.python_io`` (TF1's ``tf.python_io``): TFRecord writing and reading."""
from ...io.tf_record import (TFRecordCompressionType, TFRecordOptions,  # noqa: F401
                        TFRecordWriter, tf_record_iterator)

__all__ = ["TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter",
           "tf_record_iterator"]

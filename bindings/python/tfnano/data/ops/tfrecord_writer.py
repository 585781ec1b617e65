"""``tf.data.experimental.TFRecordWriter(filename, compression_type)``: ``write(ds)``
writes a dataset of scalar strings as TFRecords."""
import numpy as np

from ... import errors


class TFRecordWriter:
    """Writes each element of a dataset of scalar strings as one record."""

    def __init__(self, filename, compression_type=None, name=None):
        self._filename = filename
        self._compression = compression_type or ""

    def write(self, dataset):
        from ...io.tf_record import TFRecordWriter as _Writer
        spec = dataset.element_spec
        dtype = getattr(spec, "dtype", None)
        if spec is not None and (not hasattr(spec, "dtype") or
                                 (dtype is not None and np.dtype(dtype) != object) or
                                 (getattr(spec, "shape", None) not in (None, ()))):
            raise TypeError("Invalid `dataset.` Expected a `dataset` that produces scalar "
                            "`tf.string` elements, but got a dataset which produces elements"
                            " with shapes %s and types %s." % (getattr(spec, "shape", None),
                                                               dtype))
        with _Writer(self._filename, options=self._compression) as w:
            for el in dataset:
                a = np.asarray(el)
                if a.ndim != 0 or a.dtype != object:
                    raise errors.InvalidArgumentError(
                        None, None, "TFRecordWriter expects scalar string elements")
                w.write(a.item())

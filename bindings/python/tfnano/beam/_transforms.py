"""The Beam coder and the writing PTransform of tfnano.beam (see the package
docstring); ReadExamples is in _read.py."""
import io

import numpy as np

try:
    import apache_beam as beam
    from apache_beam.io import filebasedsink
    from apache_beam.io.filesystem import CompressionTypes
except ImportError:  # pragma: no cover - the message names the extra
    raise ImportError("tfnano.beam needs Apache Beam: pip install 'tfnano[beam]'") from None

from .._c.columns import encode_columns


def _column(values):
    """One row's value as a column of one row for serialize_columns."""
    if isinstance(values, (bytes, str)):
        return [values]
    if isinstance(values, np.ndarray):
        if values.dtype.kind in "OSU":
            return [values.reshape(-1).tolist()]
        return values.reshape(1, -1)
    if isinstance(values, (list, tuple)):
        return [list(values)]
    return np.asarray([values])


def _rows_to_buffer(rows):
    """(data, offsets) of dict rows, one serialize call per key layout in the batch."""
    keys = None
    for r in rows:
        if keys is None:
            keys = list(r)
        elif list(r) != keys:
            keys = False
            break
    if keys:
        cols = {}
        for k in keys:
            vals = [r[k] for r in rows]
            first = vals[0]
            if isinstance(first, (bytes, str)):
                cols[k] = vals
            elif np.isscalar(first):
                cols[k] = np.asarray(vals)
            else:
                cols[k] = [v.reshape(-1) if isinstance(v, np.ndarray) else list(v)
                           for v in vals]
        return encode_columns(cols, len(rows))
    # rows with different keys: one at a time
    items = [encode_columns({k: _column(v) for k, v in r.items()}, 1) for r in rows]
    return _join([(d, o) for d, o in items])


def _join(parts):
    if not parts:
        return b"", np.zeros(1, np.uint64)
    datas, offs, base = [], [np.zeros(1, np.uint64)], 0
    for d, o in parts:
        datas.append(bytes(d))
        offs.append(np.asarray(o, np.uint64)[1:] + np.uint64(base))
        base += len(d)
    return b"".join(datas), np.concatenate(offs)


def _encode_batch(elements):
    """A batch of elements (dict rows, serialized Examples, tf.train.Example objects,
    or pyarrow RecordBatch / Table elements) -> (data, offsets)."""
    if not elements:
        return b"", np.zeros(1, np.uint64)
    first = elements[0]
    if isinstance(first, dict):
        return _rows_to_buffer(elements)
    if isinstance(first, (bytes, bytearray, memoryview)) or hasattr(first,
                                                                    "SerializeToString"):
        recs = [bytes(x) if not hasattr(x, "SerializeToString") else x.SerializeToString()
                for x in elements]
        lengths = np.fromiter(map(len, recs), dtype=np.uint64, count=len(recs))
        offs = np.zeros(len(recs) + 1, np.uint64)
        np.cumsum(lengths, out=offs[1:])
        return b"".join(recs), offs
    if type(first).__module__.startswith("pyarrow"):
        from ..arrow._from_arrow import encode_arrow
        return _join([p for e in elements for p in encode_arrow(e)])
    raise TypeError("WriteExamples: elements must be dicts, serialized Examples or "
                    "pyarrow RecordBatches, got %s" % type(first).__name__)


def _frame(data, offsets):
    """TFRecord framing (length, masked CRC32C of it, payload, CRC32C) of a batch, by
    tfnano's C writer into memory."""
    from ..io.tf_record import TFRecordWriter
    buf = io.BytesIO()
    w = TFRecordWriter(buf)
    w._check_open()
    w._w.write_joined(data, offsets)
    w.close()
    return buf.getvalue()


class ExampleCoder(beam.coders.Coder):
    """A Beam coder between {key: values} dicts and serialized tf.train.Examples.

    encode: values may be scalars, bytes / str, lists or numpy arrays (int -> Int64List,
    float -> FloatList, bytes / str -> BytesList). decode: {key: numpy array} (int64,
    float32, or object arrays of bytes)."""

    def encode(self, value):
        data, offsets = encode_columns({k: _column(v) for k, v in value.items()}, 1)
        return bytes(data)

    def decode(self, encoded):
        from .. import train
        ex = train.Example.FromString(encoded)
        out = {}
        for k, f in ex.features.feature.items():
            kind = f.WhichOneof("kind")
            if kind == "int64_list":
                out[k] = np.asarray(f.int64_list.value, dtype=np.int64)
            elif kind == "float_list":
                out[k] = np.asarray(f.float_list.value, dtype=np.float32)
            elif kind == "bytes_list":
                out[k] = np.asarray(list(f.bytes_list.value), dtype=object)
            else:
                out[k] = np.asarray([], dtype=np.float32)
        return out

    def is_deterministic(self):
        return True  # keys are written sorted: equal dicts give equal bytes

    def to_type_hint(self):
        return dict


class _FramedSink(filebasedsink.FileBasedSink):
    """Beam's file sink (naming, sharding, compression, temp files + finalize) with
    elements that are already-framed TFRecord bytes of a whole batch."""

    def __init__(self, file_path_prefix, file_name_suffix, num_shards,
                 shard_name_template, compression_type):
        super().__init__(file_path_prefix, coder=beam.coders.BytesCoder(),
                         file_name_suffix=file_name_suffix, num_shards=num_shards,
                         shard_name_template=shard_name_template,
                         mime_type="application/octet-stream",
                         compression_type=compression_type)

    def write_encoded_record(self, file_handle, encoded_value):
        file_handle.write(encoded_value)


class WriteExamples(beam.PTransform):
    """Writes a PCollection as TFRecord files of tf.train.Examples, the same files
    ``beam.io.WriteToTFRecord(file_path_prefix, ...)`` writes (same naming, sharding
    and compression arguments).

    Elements: dicts {key: values} (as ExampleCoder), serialized Examples (bytes),
    tf.train.Example objects or pyarrow RecordBatch / Table elements (each row one
    Example, as tfnano.arrow.from_arrow). They are grouped by beam.BatchElements and
    each batch is encoded and framed in one C call."""

    def __init__(self, file_path_prefix, *, file_name_suffix="", num_shards=0,
                 shard_name_template=None, compression_type=CompressionTypes.AUTO,
                 min_batch_size=64, max_batch_size=4096):
        super().__init__()
        self._sink = _FramedSink(file_path_prefix, file_name_suffix, num_shards,
                                 shard_name_template, compression_type)
        self._batching = dict(min_batch_size=min_batch_size, max_batch_size=max_batch_size)

    def expand(self, pcoll):
        return (pcoll
                | "BatchElements" >> beam.BatchElements(**self._batching)
                | "EncodeAndFrame" >> beam.Map(lambda b: _frame(*_encode_batch(b)))
                | "Write" >> beam.io.Write(self._sink))

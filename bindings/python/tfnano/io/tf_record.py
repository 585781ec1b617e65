"""TFRecord files (where TensorFlow keeps them, python/lib/io/tf_record.py):
TFRecordOptions, TFRecordWriter, tf_record_iterator and the record readers behind
TFRecordDataset, on tfnano._c.record (paths through the C file back end with the GIL
released; any Python file object through a callback table, one call per buffer)."""
import os
import threading

import numpy as np

from .. import errors
from .._tensor import as_tensor


class TFRecordCompressionType:
    """``tf.io.TFRecordCompressionType``."""
    NONE = 0
    ZLIB = 1
    GZIP = 2


class TFRecordOptions:
    """``tf.io.TFRecordOptions``: compression type and zlib parameters (None keeps the
    library default: level 6, window bits 15, memLevel 9, 256 KiB buffers)."""

    compression_type_map = {
        TFRecordCompressionType.ZLIB: "ZLIB",
        TFRecordCompressionType.GZIP: "GZIP",
        TFRecordCompressionType.NONE: "",
    }

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        self.get_compression_type_string(compression_type)  # validates
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """"" / "ZLIB" / "GZIP" for a TFRecordOptions, a name, an int or None."""
        if not options:
            return ""
        if isinstance(options, TFRecordOptions):
            return cls.get_compression_type_string(options.compression_type)
        try:
            if options in cls.compression_type_map:
                return cls.compression_type_map[options]
            if options in cls.compression_type_map.values():
                return options
        except TypeError:
            pass
        raise ValueError('Not a valid compression_type: "{}"'.format(options))

    def __repr__(self):
        return "TFRecordOptions(compression_type=%r)" % (self.compression_type,)


def _options(options):
    if options is None:
        return TFRecordOptions()
    if isinstance(options, TFRecordOptions):
        return options
    return TFRecordOptions(compression_type=options)




def _backend():
    from .._c import record as _crecord
    return _crecord


def filename_error(value):
    """TensorFlow's error for a file name that is not a string (None, a number)."""
    if value is None:
        return ValueError("Attempt to convert a value (None) with an unsupported type "
                          "(<class 'NoneType'>) to a Tensor.")
    from .. import dtypes
    from .._tensor import _infer
    try:
        name = dtypes.as_dtype(np.asarray(_infer(value)).dtype).name
    except (TypeError, ValueError):
        name = type(value).__name__
    return TypeError("The `filenames` argument must contain `tf.string` elements. Got "
                     "`tf.%s` elements." % name)


def fspath(p):
    if isinstance(p, bytes):
        return os.fsdecode(p)
    if isinstance(p, np.ndarray) and p.ndim == 0:
        if p.dtype.kind in "biufc":
            raise filename_error(p)
        p = p.reshape(-1).tolist()[0]
        return os.fsdecode(p) if isinstance(p, bytes) else str(p)
    if p is None or isinstance(p, (bool, int, float, complex, np.number, np.bool_)):
        raise filename_error(p)
    return os.fspath(p)


def record_bytes(record):
    """One record as bytes: bytes-like objects, str (UTF-8), or a scalar string tensor.
    Anything else (an int, a numeric array) is a TypeError, as in TensorFlow, instead
    of being written as whatever bytes it happens to hold."""
    if record.__class__ is bytes:
        return record
    if isinstance(record, str):
        return record.encode("utf-8")
    if hasattr(record, "numpy") and not isinstance(record, (np.ndarray, np.generic)):
        record = record.numpy()
    if isinstance(record, np.ndarray) and record.ndim == 0 and record.dtype == object:
        record = record.item()
    if isinstance(record, (bytes, bytearray, memoryview)):
        return bytes(record)
    raise TypeError("TFRecordWriter.write() takes bytes or str records, got %s"
                    % type(record).__name__)


class TFRecordWriter:
    """``tf.io.TFRecordWriter(path, options=None)``: writes records to a path or to any
    Python file object opened for binary writing (io.BytesIO, fsspec files).

    Beyond TensorFlow: ``write_columns(columns)`` serializes numpy columns into
    Examples and writes them in one go (see tfnano.serialize_columns), and
    ``write_many(records)``. Records wait in a buffer until it fills, ``flush()`` or
    ``close()``; ``flush_every_records=n`` / ``flush_every_seconds=s`` flush on their
    own (at the write that reaches n waiting records, or comes s seconds after the last
    flush), so that a killed process loses at most those (docs/hardening.md).
    ``durable()`` gives the (records, bytes) the file holds for sure.

    The first I/O failure (ENOSPC, EIO, ...) is sticky: it is raised by that call and
    again by every later write, flush and close, and the file is cut back to its last
    whole record. It is TensorFlow's class for the errno (ResourceExhaustedError for
    ENOSPC) and an OSError with ``errno`` and ``filename``."""

    def __init__(self, path, options=None, *, flush_every_records=None,
                 flush_every_seconds=None):
        opts = _options(options)
        self._compression = TFRecordOptions.get_compression_type_string(opts)
        level = opts.compression_level
        target = path if hasattr(path, "write") else fspath(path)
        self._owned = None
        if is_url(target):
            target = self._owned = fsspec_open(target, "wb")
        elif target.startswith("file://") if isinstance(target, str) else False:
            target = target[len("file://"):]
        self._w = _backend().Writer(target, self._compression,
                                    -1 if level is None else int(level), opts.window_bits,
                                    opts.mem_level, opts.compression_strategy,
                                    flush_every_records, flush_every_seconds)
        self._closed = False
        self._lock = threading.Lock()  # the C writer is one-thread-at-a-time

    def _check_open(self):
        if self._w.failure is not None:
            raise self._w.failure
        if self._closed:
            raise errors.make(errors.FailedPreconditionError, "Writer is closed.")

    def durable(self):
        """(records, bytes) handed to the operating system in whole: what survives if
        this process dies now (records still buffered do not)."""
        return self._w.durable()

    def write(self, record):
        """Writes one record (bytes, or str as UTF-8)."""
        record = record_bytes(record)
        with self._lock:
            self._check_open()
            self._w.write(record)

    def write_many(self, records):
        """Writes a sequence of records (one C call)."""
        items = [record_bytes(r) for r in records]
        lengths = np.fromiter(map(len, items), dtype=np.int64, count=len(items))
        offsets = np.zeros(len(items) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        with self._lock:
            self._check_open()
            self._w.write_joined(b"".join(items), offsets)

    def write_columns(self, columns, n=None):
        """Serializes Examples from numpy columns (tfnano.serialize_columns) and writes
        them, with no Python object per example. Returns the number of records."""
        from .._c.columns import encode_into_pool
        self._check_open()
        block, size, offsets = encode_into_pool(columns, n)
        with self._lock:
            self._check_open()
            self._w.write_joined(block[:size], offsets)
        return len(offsets) - 1

    def flush(self):
        with self._lock:
            self._check_open()
            self._w.flush()

    def close(self):
        with self._lock:
            if self._closed:
                if self._w.failure is not None:
                    raise self._w.failure
                return
            self._closed = True
            try:
                self._w.close()
            finally:
                if self._owned is not None:
                    self._owned.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class RecordBatch:
    """A batch of records read in one go: one buffer and n+1 offsets. It behaves like
    the 1-D string tensor TensorFlow gives (len, indexing, iteration, ``.numpy()``),
    and tf.io.parse_example / tfnano.Parser read it with no Python object per record."""

    __slots__ = ("data", "offsets", "_arr")

    def __init__(self, data, offsets):
        self.data = data
        self.offsets = offsets
        self._arr = None

    def _tfn_joined(self):
        return self.data, self.offsets

    def numpy(self):
        if self._arr is None:
            o = self.offsets.tolist()
            d = self.data
            arr = np.empty(len(o) - 1, dtype=object)
            arr[:] = [bytes(d[o[i]:o[i + 1]]) for i in range(len(o) - 1)]
            self._arr = arr
        return self._arr

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def __len__(self):
        return len(self.offsets) - 1

    def __getitem__(self, i):
        return as_tensor(self.numpy())[i]

    def __iter__(self):
        return iter(as_tensor(self.numpy()))

    @property
    def shape(self):
        return (len(self),)

    @property
    def dtype(self):
        return np.dtype(object)

    def __repr__(self):
        return "RecordBatch(%d records, %d bytes)" % (len(self), len(self.data))


def is_url(p):
    return isinstance(p, str) and "://" in p and not p.startswith("file://")


def fsspec_open(url, mode):
    """gs://, s3://, memory://, http(s):// ... through fsspec, when it is installed."""
    try:
        import fsspec
    except ImportError:
        raise errors.UnimplementedError(
            None, None, "File system scheme '%s' not implemented (file: '%s'); "
            "pip install fsspec (and gcsfs / s3fs) to read and write URLs"
            % (url.split("://", 1)[0], url)) from None
    try:
        return fsspec.open(url, mode).open()
    except FileNotFoundError:
        raise errors.make(errors.NotFoundError, "%s; No such file or directory" % url) from None


def open_reader(source, compression, buffer_size, on_damage="raise", max_record_size=None):
    if isinstance(compression, str) and compression.upper() == "SNAPPY":
        raise errors.UnimplementedError(
            None, None, "compression_type 'SNAPPY' is not supported by tfnano (TensorFlow "
            "reads it; tfnano reads uncompressed, ZLIB and GZIP TFRecord files): rewrite "
            "them once with TensorFlow as GZIP (tf.io.TFRecordWriter(path, 'GZIP'))")
    if is_url(source):
        return _backend().Reader(fsspec_open(source, "rb"), compression, buffer_size,
                                 on_damage, owns=True, max_record_size=max_record_size)
    if isinstance(source, str) and source.startswith("file://"):
        source = source[len("file://"):]
    if isinstance(source, str) and os.path.isdir(source):
        from .._fserrors import is_a_directory
        raise is_a_directory(source)  # TensorFlow's FailedPreconditionError, an OSError too
    return _backend().Reader(source, compression, buffer_size, on_damage,
                             max_record_size=max_record_size)


def tf_compression(compression_type):
    if compression_type is None:
        return ""
    if isinstance(compression_type, bytes):
        compression_type = compression_type.decode()
    return str(compression_type)


def tf_record_iterator(path, options=None, *, on_damage="raise"):
    """``tf.compat.v1.io.tf_record_iterator``: yields each record as bytes.
    Beyond TensorFlow: ``on_damage="skip"`` or ``"warn"`` skips damaged records and
    goes on with the next good one (see tfnano.io.verify_records for a report)."""
    comp = TFRecordOptions.get_compression_type_string(_options(options))
    # 1 MiB: a read buffer that stays in the CPU's cache (with 16 MiB, 100 KiB records
    # read 40 % slower: every byte went through memory twice)
    r = open_reader(path if hasattr(path, "read") else fspath(path), comp, 1 << 20,
                     on_damage)
    try:
        while True:
            rec = r.next_record()
            if rec is None:
                return
            yield rec
    finally:
        r.close()

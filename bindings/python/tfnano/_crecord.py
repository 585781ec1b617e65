"""TFRecord readers and writers on the C library: paths go through its file back end
(the GIL is released during every call), Python file objects through a tfn_io
callback table (one callback per buffer, not per record)."""
import errno as _errno

import numpy as np

from . import _ffi, errors

ffi = _ffi.ffi
lib = _ffi.lib

_COMPRESSION = {"": lib.TFN_COMPRESSION_NONE, "ZLIB": lib.TFN_COMPRESSION_ZLIB,
                "GZIP": lib.TFN_COMPRESSION_GZIP, "AUTO": lib.TFN_COMPRESSION_AUTO}
_DATA_LOSS = (lib.TFN_E_DATA_LOSS, lib.TFN_E_DATA_LOSS_LENGTH, lib.TFN_E_TRUNCATED,
              lib.TFN_E_CORRUPT)


class _FileIO:
    """What the callbacks see: the file object and the first Python error met."""

    def __init__(self, f):
        self.f = f
        self.error = None
        self.readinto = getattr(f, "readinto", None)


@ffi.def_extern()
def tfn_py_read(ctx, buf, size):
    fio = ffi.from_handle(ctx)
    try:
        if fio.readinto is not None:
            n = fio.readinto(ffi.buffer(buf, size))
            return 0 if n is None else int(n)
        data = fio.f.read(size)
        n = len(data)
        ffi.memmove(buf, data, n)
        return n
    except Exception as e:  # handed back to the caller after the C call fails
        fio.error = e
        return -_errno.EIO


@ffi.def_extern()
def tfn_py_write(ctx, buf, size):
    fio = ffi.from_handle(ctx)
    try:
        n = fio.f.write(ffi.buffer(buf, size))
        return size if n is None else int(n)
    except Exception as e:
        fio.error = e
        return -_errno.EIO


@ffi.def_extern()
def tfn_py_flush(ctx):
    fio = ffi.from_handle(ctx)
    try:
        if hasattr(fio.f, "flush"):
            fio.f.flush()
        return 0
    except Exception as e:
        fio.error = e
        return -_errno.EIO


def _raise(rc, err, fio=None):
    if fio is not None and fio.error is not None:
        e, fio.error = fio.error, None
        raise e
    exc = _ffi.exception(rc, err)
    if rc in _DATA_LOSS and isinstance(exc, errors.OpError):
        # TensorFlow's text is what comes before the first "; " (tfnano's context after)
        full = exc.message
        exc = errors.DataLossError(None, None, full.split("; ", 1)[0], status=rc,
                                   offset=exc.offset, record_index=exc.record_index)
        exc.detail = full
    raise exc


def _io_table(fio, reading):
    io = ffi.new("tfn_io *")
    handle = ffi.new_handle(fio)
    io.ctx = handle
    if reading:
        io.read = lib.tfn_py_read
    else:
        io.write = lib.tfn_py_write
        io.flush = lib.tfn_py_flush
    return io, handle


class Writer:
    def __init__(self, target, compression, level, window_bits=None, mem_level=None,
                 strategy=None):
        opts = ffi.new("tfn_record_writer_options *")
        lib.tfn_record_writer_options_init(opts)
        opts.compression = _COMPRESSION.get(compression, lib.TFN_COMPRESSION_NONE)
        opts.compression_level = level
        if window_bits is not None:
            opts.window_bits = int(window_bits)
        if mem_level is not None:
            opts.mem_level = int(mem_level)
        if strategy is not None:
            opts.strategy = int(strategy)
        out = ffi.new("tfn_record_writer **")
        err = _ffi.new_error()
        self._fio = self._keep = None
        if hasattr(target, "write"):
            self._fio = _FileIO(target)
            io, self._keep = _io_table(self._fio, reading=False)
            rc = lib.tfn_record_writer_open_io(io, opts, ffi.NULL, out, err)
        else:
            rc = lib.tfn_record_writer_open(target.encode("utf-8", "surrogateescape"), opts,
                                            ffi.NULL, out, err)
        if rc < 0:
            _raise(rc, err, self._fio)
        self._w = ffi.gc(out[0], lib.tfn_record_writer_free)
        self._err = err

    def write(self, rec):
        rc = lib.tfn_record_writer_write(self._w, ffi.from_buffer(rec), len(rec), self._err)
        if rc < 0:
            _raise(rc, self._err, self._fio)

    def write_joined(self, data, offsets):
        n = len(offsets) - 1
        if n <= 0:
            return
        offs = np.ascontiguousarray(offsets, dtype=np.uint64)
        buf = ffi.from_buffer(data) if len(data) else ffi.new("char[]", 1)
        rc = lib.tfn_record_writer_write_batch(
            self._w, buf, ffi.cast("uint64_t *", ffi.from_buffer(offs)), n, self._err)
        if rc < 0:
            _raise(rc, self._err, self._fio)

    def flush(self):
        rc = lib.tfn_record_writer_flush(self._w, self._err)
        if rc < 0:
            _raise(rc, self._err, self._fio)

    def close(self):
        rc = lib.tfn_record_writer_close(self._w, self._err)
        if rc < 0:
            _raise(rc, self._err, self._fio)


class Reader:
    def __init__(self, source, compression, buffer_size):
        opts = ffi.new("tfn_record_reader_options *")
        lib.tfn_record_reader_options_init(opts)
        opts.compression = _COMPRESSION.get(compression, lib.TFN_COMPRESSION_NONE)
        opts.buffer_size = max(int(buffer_size or 0), 64 * 1024)
        out = ffi.new("tfn_record_reader **")
        err = _ffi.new_error()
        self._fio = self._keep = None
        if hasattr(source, "read"):
            self._fio = _FileIO(source)
            io, self._keep = _io_table(self._fio, reading=True)
            name = getattr(source, "name", None)
            if isinstance(name, str):
                self._name = ffi.new("char[]", name.encode("utf-8", "replace"))
                opts.name = self._name
            rc = lib.tfn_record_reader_open_io(io, opts, ffi.NULL, out, err)
        else:
            rc = lib.tfn_record_reader_open(source.encode("utf-8", "surrogateescape"), opts,
                                            ffi.NULL, out, err)
        if rc < 0:
            _raise(rc, err, self._fio)
        self._r = ffi.gc(out[0], lib.tfn_record_reader_free)
        self._err = err
        self._data = ffi.new("const uint8_t **")
        self._len = ffi.new("size_t *")
        self._cap = 0
        self._views = None
        self._n = ffi.new("size_t *")

    def next_record(self):
        rc = lib.tfn_record_reader_next(self._r, self._data, self._len, self._err)
        if rc == lib.TFN_OK:
            n = self._len[0]
            return ffi.buffer(self._data[0], n)[:] if n else b""
        if rc == lib.TFN_END:
            return None
        _raise(rc, self._err, self._fio)

    def read_batch(self, n):
        """Up to n records as (bytes, int64 offsets), or None at the end."""
        if self._cap < n:
            self._views = np.empty((n, 2), dtype=np.uint64)
            self._vptr = ffi.cast("tfn_bytes *", ffi.from_buffer(self._views))
            self._cap = n
        rc = lib.tfn_record_reader_next_batch(self._r, self._vptr, n, self._n, self._err)
        if rc == lib.TFN_END:
            return None
        if rc < 0:
            _raise(rc, self._err, self._fio)
        got = self._n[0]
        total = int(self._views[:got, 1].sum())
        buf = bytearray(total)
        offsets = np.empty(got + 1, dtype=np.uint64)
        needed = ffi.new("size_t *")
        rc = lib.tfn_bytes_copy_out(self._vptr, got,
                                    ffi.from_buffer(buf) if total else ffi.new("char[]", 1),
                                    total, ffi.cast("uint64_t *", ffi.from_buffer(offsets)),
                                    needed, self._err)
        if rc < 0:
            _raise(rc, self._err)
        return buf, offsets.astype(np.int64)

    def close(self):
        r, self._r = getattr(self, "_r", None), None
        if r is not None:
            ffi.release(r)  # runs tfn_record_reader_free now (closes the file)

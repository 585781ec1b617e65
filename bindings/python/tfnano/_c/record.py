"""TFRecord readers and writers on the C library: paths go through its file back end
(the GIL is released during every call), Python file objects through a tfn_io
callback table (one callback per buffer, not per record)."""
import collections
import errno as _errno
import os
import re
import warnings

import numpy as np

from .. import _c, errors

ffi = _c.ffi
lib = _c.lib

_COMPRESSION = {"": lib.TFN_COMPRESSION_NONE, "ZLIB": lib.TFN_COMPRESSION_ZLIB,
                "GZIP": lib.TFN_COMPRESSION_GZIP, "AUTO": lib.TFN_COMPRESSION_AUTO}
_COMPRESSION_NAMES = {lib.TFN_COMPRESSION_NONE: "NONE", lib.TFN_COMPRESSION_ZLIB: "ZLIB",
                      lib.TFN_COMPRESSION_GZIP: "GZIP", lib.TFN_COMPRESSION_AUTO: "AUTO"}
POOLED_MIN = 1 << 20  # read_batch(pooled=True): smallest block taken from the pool
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


_ON_DAMAGE = {"raise": lib.TFN_ON_DAMAGE_RAISE, "skip": lib.TFN_ON_DAMAGE_SKIP,
              "warn": lib.TFN_ON_DAMAGE_SKIP}
_REASON = {lib.TFN_E_DATA_LOSS_LENGTH: "bad length CRC",
           lib.TFN_E_DATA_LOSS: "bad data CRC",
           lib.TFN_E_TRUNCATED: "length runs past the end"}

DamagedRange = collections.namedtuple("DamagedRange", "offset length record_index reason")
DamagedRange.__doc__ = """Bytes a reader skipped: [offset, offset + length) of the
(decompressed) stream, before the record numbered record_index (the count of good
records before it); reason: what was found first there ("bad length CRC", "bad data
CRC", "length runs past the end")."""


class DamagedRecordsWarning(UserWarning):
    """Issued by readers with on_damage="warn" for every damaged range they skip."""


# bindings/python/pyapi_record.c: records read straight into bytes objects (see next_record)
_read_record = getattr(_c._native, "read_record", None) if _c.PY_API & 1 else None


def exception(rc, err, fio=None, name=None, where=False):
    """The exception for a failing call. where: name the file, record and offset in
    str() (reads); TensorFlow's text stays the message."""
    if fio is not None and fio.error is not None:
        e, fio.error = fio.error, None
        return e
    exc = _c.exception(rc, err)
    if not isinstance(exc, errors.OpError):
        return exc
    compressed_at = None
    if rc in _DATA_LOSS:
        found = re.search(r"; compressed offset (\d+)", exc.message)
        compressed_at = int(found.group(1)) if found else None
        # TensorFlow's text is what comes before the first "; " (tfnano's context after)
        exc = errors.make(errors.DataLossError, exc.message.split("; ", 1)[0], status=rc,
                          offset=exc.offset, record_index=exc.record_index)
    elif rc == lib.TFN_E_IO:
        # an OSError whatever TensorFlow's class (ENOSPC is ResourceExhaustedError)
        cls = errors._os_variant(type(exc))
        e = int(err.sys_errno)
        msg = exc.message
        if where and "; file " in msg:
            # the library's own "; file f, record i": _locate below says it once
            msg = msg.rsplit("; file ", 1)[0]
        exc = cls(None, None, msg, status=rc, offset=exc.offset,
                  record_index=exc.record_index)
        exc.errno = e or None
        exc.strerror = os.strerror(e) if e else None
        exc.filename = name
    if where:
        errors._locate(exc, name, exc.record_index, exc.offset)
        if compressed_at is not None:
            # offset: the record's in the inflated stream; this: where inflate() stopped
            exc.detail = "%s (inflated stream), compressed offset %d" % (
                getattr(exc, "detail", None) or exc.message, compressed_at)
    exc.compressed_offset = compressed_at
    if rc == lib.TFN_E_DATA_LOSS_LENGTH and not exc.offset and isinstance(name, str):
        hint = _compression_hint(name)
        if hint:
            # TensorFlow's contract stands (no detection), but the error says why
            exc.detail = "%s; %s header found: pass compression_type='%s'" % (
                getattr(exc, "detail", None) or exc.message, hint, hint)
    return exc


def _compression_hint(path):
    """"GZIP" / "ZLIB" when a local file starts with that header, else None."""
    try:
        with open(path, "rb") as f:
            head = f.read(2)
    except OSError:
        return None
    if head == b"\x1f\x8b":
        return "GZIP"
    if len(head) == 2 and head[0] & 0x0F == 8 and head[0] >> 4 <= 7 and \
            (head[0] * 256 + head[1]) % 31 == 0:
        return "ZLIB"
    return None


def raise_for(rc, err, fio=None, name=None, where=False):
    raise exception(rc, err, fio, name, where)


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
    """A C record writer on a path or a Python file object. The first failure of the
    file is sticky: every later write, flush and close raises it again, and the file
    ends at the last whole record (a path is cut back by the C library, a seekable
    file object here)."""

    def __init__(self, target, compression, level, window_bits=None, mem_level=None,
                 strategy=None, flush_every_records=None, flush_every_seconds=None):
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
        if flush_every_records is not None:
            if int(flush_every_records) < 0:
                raise ValueError("flush_every_records must be >= 0, got %r"
                                 % (flush_every_records,))
            opts.flush_every_records = int(flush_every_records)
        if flush_every_seconds is not None:
            if not flush_every_seconds >= 0:
                raise ValueError("flush_every_seconds must be >= 0, got %r"
                                 % (flush_every_seconds,))
            # 0 < seconds < 1 ms still asks for flushes: at least 1 ms
            opts.flush_every_ms = max(1, int(round(flush_every_seconds * 1000))) \
                if flush_every_seconds > 0 else 0
        out = ffi.new("tfn_record_writer **")
        err = _c.new_error()
        self._fio = self._keep = None
        self._start = None
        self.failure = None
        if hasattr(target, "write"):
            self._fio = _FileIO(target)
            self.name = getattr(target, "name", None)
            try:
                self._start = target.tell() if target.seekable() else None
            except Exception:
                self._start = None
            io, self._keep = _io_table(self._fio, reading=False)
            rc = lib.tfn_record_writer_open_io(io, opts, ffi.NULL, out, err)
        else:
            self.name = target
            rc = lib.tfn_record_writer_open(target.encode("utf-8", "surrogateescape"), opts,
                                            ffi.NULL, out, err)
        if rc < 0:
            raise_for(rc, err, self._fio, self.name)
        self._w = ffi.gc(out[0], lib.tfn_record_writer_free)
        self._err = err

    def _fail(self, rc):
        if self.failure is not None and rc == lib.TFN_E_IO:
            raise self.failure  # the first failure, again
        exc = exception(rc, self._err, self._fio, self.name)
        if rc in (lib.TFN_E_IO, lib.TFN_E_NOMEM) and self.failure is None:
            self.failure = exc
            self._cut_back()
        raise exc

    def _cut_back(self):
        """A file object ends at the last whole record, as a path does."""
        if self._fio is None or self._start is None:
            return
        bytes_ = ffi.new("uint64_t *")
        lib.tfn_record_writer_durable(self._w, ffi.NULL, bytes_)
        f = self._fio.f
        try:
            f.seek(self._start + int(bytes_[0]))
            f.truncate()
        except Exception:
            pass  # the original failure is what the caller needs to see

    def durable(self):
        """(records, bytes) the file holds for sure (see tfn_record_writer_durable)."""
        recs = ffi.new("uint64_t *")
        bytes_ = ffi.new("uint64_t *")
        lib.tfn_record_writer_durable(self._w, recs, bytes_)
        return int(recs[0]), int(bytes_[0])

    def write(self, rec):
        rc = lib.tfn_record_writer_write(self._w, ffi.from_buffer(rec), len(rec), self._err)
        if rc < 0:
            self._fail(rc)

    def write_joined(self, data, offsets):
        n = len(offsets) - 1
        if n <= 0:
            return
        offs = np.ascontiguousarray(offsets, dtype=np.uint64)
        buf = ffi.from_buffer(data) if len(data) else ffi.new("char[]", 1)
        rc = lib.tfn_record_writer_write_batch(
            self._w, buf, ffi.cast("uint64_t *", ffi.from_buffer(offs)), n, self._err)
        if rc < 0:
            self._fail(rc)

    def flush(self):
        rc = lib.tfn_record_writer_flush(self._w, self._err)
        if rc < 0:
            self._fail(rc)

    def close(self):
        """Closes (again: no-op, or the sticky failure again)."""
        rc = lib.tfn_record_writer_close(self._w, self._err)
        if rc < 0:
            self._fail(rc)


# No record may be longer: a protobuf message cannot exceed 2 GiB, and a header that
# claims more (a gzip bomb, a damaged length) would otherwise be read in full.
HARD_MAX_RECORD = 2 << 30
# A skip-mode scan over damaged bytes returns to Python this often, so that Ctrl-C
# and close() are seen during a long damaged region.
RESYNC_SLICE = 4 << 20


def max_record_size(value):
    """The reader option: None -> 2 GiB; at most 2 GiB; positive."""
    if value is None:
        return HARD_MAX_RECORD
    v = int(value)
    if v <= 0:
        raise ValueError("max_record_size must be positive, got %r" % (value,))
    return min(v, HARD_MAX_RECORD)


_AGAIN = object()


class Reader:
    """A C record reader on a path or a Python file object.

    max_record_size: a header claiming more bytes is DataLossError ("record at <o>
    claims <n> bytes, more than the maximum record size ..."), damage with
    on_damage="skip"; at most (and by default) 2 GiB.

    on_damage: "raise" (TensorFlow's behaviour: a damaged record is a DataLossError),
    "skip" (damaged ranges are skipped: the reader goes on with the next good record)
    or "warn" (skip, with a DamagedRecordsWarning for each range). The ranges skipped
    are in ``skipped`` (a list of DamagedRange, the first 10,000), their number and
    bytes in ``skipped_records`` and ``skipped_bytes``: a damaged range is usually one
    damaged record (a flipped, lost or added byte, a torn record), but damage that
    spans records (a zeroed block, garbage) makes one range of several, whose number
    no reader can know."""

    MAX_RANGES = 10000

    def __init__(self, source, compression, buffer_size, on_damage="raise", name=None,
                 locate=True, owns=False, max_record_size=None):
        """source: a path or a binary file object; name: what errors and opts.name
        call a file object (default: its .name); locate: name the file, record and
        offset in str() of read errors (False: TensorFlow's bare text, the CLI's);
        owns: close() closes the file object too."""
        if on_damage not in _ON_DAMAGE:
            raise ValueError('on_damage must be "raise", "skip" or "warn", got %r'
                             % (on_damage,))
        opts = ffi.new("tfn_record_reader_options *")
        lib.tfn_record_reader_options_init(opts)
        opts.compression = _COMPRESSION.get(compression, lib.TFN_COMPRESSION_NONE)
        opts.buffer_size = max(int(buffer_size or 0), 64 * 1024)
        opts.on_damage = _ON_DAMAGE[on_damage]
        opts.max_record_size = globals()["max_record_size"](max_record_size)
        opts.resync_slice = RESYNC_SLICE
        self.on_damage = on_damage
        self._skipping = on_damage != "raise"
        self.skipped = []
        self.skipped_records = 0
        self.skipped_bytes = 0
        self.last_damage = None
        self._locate = locate
        self._owned = source if owns else None
        out = ffi.new("tfn_record_reader **")
        err = _c.new_error()
        self._fio = self._keep = None
        if hasattr(source, "read"):
            self._fio = _FileIO(source)
            io, self._keep = _io_table(self._fio, reading=True)
            if name is None:
                name = getattr(source, "name", None)
            self.name = name if isinstance(name, str) else None
            if self.name is not None:
                self._name = ffi.new("char[]", name.encode("utf-8", "replace"))
                opts.name = self._name
            rc = lib.tfn_record_reader_open_io(io, opts, ffi.NULL, out, err)
        else:
            self.name = source
            rc = lib.tfn_record_reader_open(source.encode("utf-8", "surrogateescape"), opts,
                                            ffi.NULL, out, err)
        if rc < 0:
            raise_for(rc, err, self._fio, self.name)
        self._r = ffi.gc(out[0], lib.tfn_record_reader_free)
        self._err = err
        self._addr = int(ffi.cast("uintptr_t", out[0]))
        self._err_addr = int(ffi.cast("uintptr_t", err))
        self._data = ffi.new("const uint8_t **")
        self._len = ffi.new("size_t *")
        self._cap = 0
        self._views = None
        self._n = ffi.new("size_t *")
        self._count = ffi.new("uint64_t *")
        self._skip = ffi.new("tfn_record_skip *")

    def _fail(self, rc):
        if not self._locate:
            raise exception(rc, self._err, self._fio)
        raise exception(rc, self._err, self._fio, self.name, where=True)

    def _note_skips(self):
        """After a call in skip mode: records the range it skipped (one at most)."""
        lib.tfn_record_reader_skipped(self._r, self._count, ffi.NULL)
        if self._count[0] == self.skipped_records:
            return
        lib.tfn_record_reader_last_skip(self._r, self._skip)
        sk = self._skip
        rng = DamagedRange(int(sk.offset), int(sk.length), int(sk.record_index),
                           _REASON.get(sk.reason, "damaged"))
        self.skipped_records = int(self._count[0])
        self.skipped_bytes += rng.length
        self.last_damage = rng
        if len(self.skipped) < self.MAX_RANGES:
            self.skipped.append(rng)
        if self.on_damage == "warn":
            warnings.warn("%s: skipped %d damaged bytes at offset %d (%s) before record %d"
                          % (self.name or "<stream>", rng.length, rng.offset, rng.reason,
                             rng.record_index), DamagedRecordsWarning, stacklevel=3)

    def next_record(self):
        """The next record as bytes (None at the end)."""
        while True:
            got = self._next_record()
            # TFN_TIMEOUT: a slice of a long damaged region was skipped; going round
            # in Python lets signal handlers (KeyboardInterrupt) run
            if got is not _AGAIN:
                return got

    def _next_record(self):
        if _read_record is not None and self._r is not None:
            # one copy, from the reader's buffer into the bytes returned, with the CRC
            # computed during it (bindings/python/pyapi_record.c read_record)
            got = _read_record(self._addr, self._err_addr)
            if self._skipping:
                self._note_skips()
            if type(got) is bytes:
                return got
            if got == lib.TFN_END:
                return None
            if got == lib.TFN_TIMEOUT:
                return _AGAIN
            self._fail(got)
        rc = lib.tfn_record_reader_next(self._r, self._data, self._len, self._err)
        if rc == lib.TFN_TIMEOUT:
            return _AGAIN
        if self._skipping:
            self._note_skips()
        if rc == lib.TFN_OK:
            n = self._len[0]
            return ffi.buffer(self._data[0], n)[:] if n else b""
        if rc == lib.TFN_END:
            return None
        self._fail(rc)

    def read_batch(self, n, pooled=False):
        """Up to n records as (bytes, int64 offsets), or None at the end.

        pooled: when the records add up to at least POOLED_MIN / 4 bytes, the bytes
        are a uint8 array carved from a recycled block (_outbuf's pool, at least
        POOLED_MIN bytes so that successive reads share one size class) instead of a
        fresh zero-filled bytearray: for big records the zeroing and the page faults
        of fresh memory cost more than the copy itself."""
        if self._cap < n:
            self._views = np.empty((n, 2), dtype=np.uint64)
            self._vptr = ffi.cast("tfn_bytes *", ffi.from_buffer(self._views))
            self._cap = n
        rc = lib.tfn_record_reader_next_batch(self._r, self._vptr, n, self._n, self._err)
        while rc == lib.TFN_TIMEOUT:  # a long damaged region, in slices (see next_record)
            rc = lib.tfn_record_reader_next_batch(self._r, self._vptr, n, self._n, self._err)
        while rc == lib.TFN_TIMEOUT:  # a long damaged region, in slices (see next_record)
            rc = lib.tfn_record_reader_next_batch(self._r, self._vptr, n, self._n, self._err)
        if self._skipping:
            self._note_skips()
        if rc == lib.TFN_END:
            return None
        if rc < 0:
            self._fail(rc)
        got = self._n[0]
        total = int(self._views[:got, 1].sum())
        if pooled and total >= POOLED_MIN // 4:
            from .outbuf import POOL
            buf = POOL.take(max(total, POOLED_MIN))[:total]
        else:
            buf = bytearray(total)
        offsets = np.empty(got + 1, dtype=np.uint64)
        needed = ffi.new("size_t *")
        rc = lib.tfn_bytes_copy_out(self._vptr, got,
                                    ffi.from_buffer(buf) if total else ffi.new("char[]", 1),
                                    total, ffi.cast("uint64_t *", ffi.from_buffer(offsets)),
                                    needed, self._err)
        if rc < 0:
            raise_for(rc, self._err)
        return buf, offsets.astype(np.int64)

    def lengths_batch(self, n):
        """Steps over up to n records without copying them: their payload lengths (a
        uint64 array; None at the end)."""
        if self._cap < n:
            self._views = np.empty((n, 2), dtype=np.uint64)
            self._vptr = ffi.cast("tfn_bytes *", ffi.from_buffer(self._views))
            self._cap = n
        rc = lib.tfn_record_reader_next_batch(self._r, self._vptr, n, self._n, self._err)
        if self._skipping:
            self._note_skips()
        if rc == lib.TFN_END:
            return None
        if rc < 0:
            self._fail(rc)
        return self._views[:self._n[0], 1].copy()

    def tell(self):
        """The (decompressed) stream offset the next record starts at."""
        return int(lib.tfn_record_reader_offset(self._r))

    def index(self):
        """The number of records read so far."""
        return int(lib.tfn_record_reader_index(self._r))

    def seek(self, offset, index=0):
        """Goes to stream offset `offset`, the start of record number `index`."""
        err = self._err
        rc = lib.tfn_record_reader_seek(self._r, offset, index, err)
        if rc < 0:
            self._fail(rc)

    def compression(self):
        """The stream's compression: "NONE", "ZLIB" or "GZIP" (detected when the reader
        was opened with "AUTO")."""
        return _COMPRESSION_NAMES.get(lib.tfn_record_reader_compression(self._r), "?")

    def close(self):
        self._addr = 0
        r, self._r = getattr(self, "_r", None), None
        if r is not None:
            ffi.release(r)  # runs tfn_record_reader_free now (closes the file)
        f, self._owned = getattr(self, "_owned", None), None
        if f is not None:
            f.close()

"""Record indexes in C (lib/record: tfn_record_index_*, tfn_seekpoints_*,
tfn_record_unframe): parsing and building "offset length" indexes, checking one
framed record where it lies, and zran seek points into GZIP / ZLIB streams.
tfnano.io.index builds random access to TFRecord files on these."""
import numpy as np

from .. import _c, errors
from .record import raise_for

ffi = _c.ffi
lib = _c.lib


def _arrays(idx):
    """(offsets, lengths) int64 arrays of a tfn_record_index."""
    n = lib.tfn_record_index_count(idx)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    # One C call formats the index, numpy reads it back (no Python loop per record).
    need = ffi.new("size_t *")
    err = _c.new_error()
    lib.tfn_record_index_format(idx, ffi.NULL, 0, need, err)
    buf = bytearray(need[0])
    _c.check(lib.tfn_record_index_format(idx, ffi.from_buffer(buf), len(buf), need, err), err)
    flat = np.array(bytes(buf).split(), dtype=np.int64)
    return flat[0::2], flat[1::2]


def parse(text, name="<index>"):
    """(offsets, lengths) of index text ("offset length" per line; the C parser checks
    it); errors are prefixed with `name`."""
    out = ffi.new("tfn_record_index **")
    err = _c.new_error()
    buf = ffi.from_buffer(text) if len(text) else ffi.new("char[]", 1)
    rc = lib.tfn_record_index_parse(buf, len(text), ffi.NULL, out, err)
    if rc < 0:
        exc = _c.exception(rc, err)
        raise type(exc)(None, None, "%s: %s" % (name, exc.message)) if isinstance(
            exc, errors.OpError) else exc
    return _arrays(ffi.gc(out[0], lib.tfn_record_index_free))


def build(reader, compressed_ok=False):
    """(offsets, lengths) of the records of `reader` (a tfnano._c.record.Reader) in
    one C pass. compressed_ok: when the pass fails on a stream the reader detected as
    GZIP / ZLIB, return None (the caller indexes the decompressed stream instead)."""
    out = ffi.new("tfn_record_index **")
    rc = lib.tfn_record_index_build(reader._r, ffi.NULL, out, reader._err)
    if rc < 0:
        if compressed_ok and reader.compression() in ("GZIP", "ZLIB"):
            return None
        raise_for(rc, reader._err)
    return _arrays(ffi.gc(out[0], lib.tfn_record_index_free))


class Unframer:
    """Checks framed records where they lie in memory (tfn_record_unframe)."""

    def __init__(self, verify):
        self._err = _c.new_error()
        self._pp = ffi.new("const uint8_t **")
        self._pl = ffi.new("size_t *")
        self._consumed = ffi.new("size_t *")
        self._flags = lib.TFN_UNFRAME_DEFAULT if verify else lib.TFN_UNFRAME_NO_PAYLOAD_CRC

    def unframe(self, addr, length, offset, record_index):
        """(payload address, payload length) of the `length` framed bytes at address
        `addr`, CRCs checked; None when they are not exactly one record. A damaged
        record raises naming stream offset `offset` + the damage and `record_index`."""
        err = self._err
        rc = lib.tfn_record_unframe(ffi.cast("uint8_t *", addr), length, self._flags,
                                    self._pp, self._pl, self._consumed, err)
        if rc != lib.TFN_OK or self._consumed[0] != length:
            if rc == lib.TFN_OK or rc == lib.TFN_END:
                return None
            err.offset += offset
            err.record_index = record_index
            raise_for(rc, err)
        return int(ffi.cast("uintptr_t", self._pp[0])), int(self._pl[0])


def address(buffer):
    """(address, keep-alive) of a writable or read-only buffer (bytearray, mmap)."""
    keep = ffi.from_buffer(buffer)
    return int(ffi.cast("uintptr_t", keep)), keep


def bytes_at(addr, length):
    """A bytes copy of `length` bytes at address `addr`."""
    return ffi.buffer(ffi.cast("char *", addr), length)[:] if length else b""


def check_run(addr, span, n, name, verify, first, start):
    """Payload views (an (n', 2) uint64 array of address, length) of the records in
    the `span` framed bytes at `addr`, read by one in-memory C reader (CRCs checked);
    n' < n when the bytes end early. Errors name stream offset `start` + the damage
    and record `first` + its index in the run."""
    views = np.empty((max(n, 1), 2), dtype=np.uint64)
    err = _c.new_error()
    opts = ffi.new("tfn_record_reader_options *")
    lib.tfn_record_reader_options_init(opts)
    opts.skip_payload_crc = 0 if verify else 1
    cname = ffi.new("char[]", name.encode("utf-8", "replace"))
    opts.name = cname
    out = ffi.new("tfn_record_reader **")
    rc = lib.tfn_record_reader_open_mem(ffi.cast("char *", addr), span, opts, ffi.NULL,
                                        out, err)
    _c.check(rc, err)
    r = ffi.gc(out[0], lib.tfn_record_reader_free)
    got = ffi.new("size_t *")
    vptr = ffi.cast("tfn_bytes *", ffi.from_buffer(views))
    done = 0
    while done < n:
        rc = lib.tfn_record_reader_next_batch(r, vptr + done, n - done, got, err)
        if rc < 0:
            err.offset += start
            err.record_index += first
            raise_for(rc, err)
        if rc == lib.TFN_END:
            break
        done += got[0]
    return views[:done]


class SeekPoints:
    """zran seek points into a GZIP / ZLIB file (a point every `spacing` decompressed
    bytes, built by one pass over the file): reads of the decompressed stream inflate
    from the point before them."""

    def __init__(self, path, compression, spacing):
        out = ffi.new("tfn_seekpoints **")
        err = _c.new_error()
        c = lib.TFN_COMPRESSION_GZIP if compression == "GZIP" else lib.TFN_COMPRESSION_ZLIB
        self._path = path.encode("utf-8", "surrogateescape")
        rc = lib.tfn_seekpoints_build(self._path, c, spacing, ffi.NULL, out, err)
        if rc < 0:
            raise_for(rc, err)
        self._sp = ffi.gc(out[0], lib.tfn_seekpoints_free)
        self._err = _c.new_error()
        self._got = ffi.new("size_t *")
        self.total = int(lib.tfn_seekpoints_total(self._sp))

    def read(self, start, buf):
        """Fills `buf` with the decompressed stream from offset `start`; returns how
        many bytes there were (fewer at the end of the stream)."""
        rc = lib.tfn_seekpoints_read(self._sp, self._path, start, ffi.from_buffer(buf),
                                     len(buf), self._got, self._err)
        if rc < 0:
            raise_for(rc, self._err)
        return int(self._got[0])

"""Pure-Python TFRecord framing (masked CRC32C, ZLIB/GZIP through Python's zlib):
the stand-in back end of _record until the C library's TFRecord API is built in.
Same behaviour and messages as TensorFlow's record reader/writer (spec §3)."""
import struct
import zlib

import numpy as np

from . import errors

_POLY = 0x82F63B78
_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ _POLY if _c & 1 else _c >> 1
    _TABLE.append(_c)


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    t = _TABLE
    for b in data:
        crc = t[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc(data):
    c = crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def _frame(rec):
    head = struct.pack("<Q", len(rec))
    return b"".join((head, struct.pack("<I", masked_crc(head)), rec,
                     struct.pack("<I", masked_crc(rec))))


class Writer:
    def __init__(self, target, compression, level):
        if hasattr(target, "write"):
            self._f, self._own = target, False
        else:
            try:
                self._f = open(target, "wb")
            except FileNotFoundError as e:
                raise errors.NotFoundError(None, None, "%s; No such file or directory"
                                           % target) from e
            self._own = True
        self._z = None
        if compression in ("ZLIB", "GZIP"):
            self._z = zlib.compressobj(level, zlib.DEFLATED, 15 if compression == "ZLIB"
                                       else 31, 9)

    def _put(self, data):
        if self._z is not None:
            data = self._z.compress(data)
        if data:
            self._f.write(data)

    def write(self, rec):
        self._put(_frame(bytes(rec)))

    def write_joined(self, data, offsets):
        o = offsets.tolist()
        mv = memoryview(data)
        self._put(b"".join(_frame(bytes(mv[o[i]:o[i + 1]])) for i in range(len(o) - 1)))

    def flush(self):
        if self._z is not None:
            self._f.write(self._z.flush(zlib.Z_SYNC_FLUSH))
        self._f.flush()

    def close(self):
        if self._z is not None:
            self._f.write(self._z.flush(zlib.Z_FINISH))
            self._z = None
        if self._own:
            self._f.close()
        else:
            self._f.flush()


class Reader:
    def __init__(self, source, compression, buffer_size):
        if hasattr(source, "read"):
            self._f, self._own = source, False
            self._name = getattr(source, "name", "<file object>")
        else:
            try:
                self._f = open(source, "rb")
            except FileNotFoundError as e:
                raise errors.NotFoundError(None, None, "%s; No such file or directory"
                                           % source) from e
            self._own = True
            self._name = source
        self._comp = compression if compression in ("ZLIB", "GZIP") else ""
        self._wbits = 15 if self._comp == "ZLIB" else 31
        self._z = zlib.decompressobj(self._wbits) if self._comp else None
        self._buf = bytearray()
        self._pos = 0        # read position in _buf
        self._off = 0        # stream offset of _buf[_pos]
        self._eof = False
        self._chunk = max(int(buffer_size or 0), 65536)

    def _fill(self, need):
        while len(self._buf) - self._pos < need and not self._eof:
            raw = self._f.read(self._chunk)
            if not raw:
                if self._z is not None:
                    self._buf += self._z.flush()
                self._eof = True
                break
            if self._z is None:
                self._buf += raw
                continue
            try:
                out = self._z.decompress(raw)
                while self._z.eof and self._z.unused_data and self._comp == "GZIP":
                    rest = self._z.unused_data
                    self._z = zlib.decompressobj(self._wbits)
                    out += self._z.decompress(rest)
            except zlib.error as e:
                msg = str(e)
                code = msg.split("Error ")[1].split(" ")[0] if "Error " in msg else "-3"
                text = msg.split(": ", 1)[1] if ": " in msg else msg
                raise errors.DataLossError(None, None, "inflate() failed with error %s: %s"
                                           % (code, text)) from None
            self._buf += out
        if self._pos > (1 << 20):
            del self._buf[:self._pos]
            self._pos = 0
        return len(self._buf) - self._pos

    def next_record(self):
        off = self._off
        have = self._fill(12)
        if have < 12:
            return None  # clean end, or a partial header TensorFlow ignores
        p = self._pos
        head = bytes(self._buf[p:p + 8])
        (n,), (crc,) = struct.unpack("<Q", head), struct.unpack("<I", self._buf[p + 8:p + 12])
        if masked_crc(head) != crc:
            raise errors.DataLossError(None, None, "corrupted record at %d%s"
                                       % (off, " (Is this even a TFRecord file?)"
                                          if off == 0 else ""), offset=off)
        if self._fill(12 + n + 4) < 12 + n + 4:
            why = "EOF reached" if self._comp else "Read less bytes than requested"
            raise errors.DataLossError(None, None, "truncated record at %d' failed with %s"
                                       % (off, why), offset=off)
        rec = bytes(self._buf[p + 12:p + 12 + n])
        (dcrc,) = struct.unpack("<I", self._buf[p + 12 + n:p + 16 + n])
        if masked_crc(rec) != dcrc:
            raise errors.DataLossError(None, None, "corrupted record at %d" % (off + 12),
                                       offset=off + 12)
        self._pos = p + 16 + n
        self._off = off + 16 + n
        return rec

    def read_batch(self, n):
        recs = []
        for _ in range(n):
            r = self.next_record()
            if r is None:
                break
            recs.append(r)
        if not recs:
            return None
        lengths = np.fromiter(map(len, recs), dtype=np.int64, count=len(recs))
        offsets = np.zeros(len(recs) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        return b"".join(recs), offsets

    def close(self):
        if self._own and self._f is not None:
            self._f.close()
        self._f = None

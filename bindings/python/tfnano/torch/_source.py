"""Reading runs of records (file, start, stop) as payload views for the batch parser:
uncompressed files through a memory map (no copy; CRCs checked in one C call per
run), compressed files through seek points (TFRecordFile.gather), or, with
seek_points=False, one sequential reader per file that moves forward (going back
reopens the file and skips)."""
import numpy as np

from .. import _c
from .._parsing import _Records
from ..io.index import TFRecordFile

ffi = _c.ffi


class _Stream:
    def __init__(self, path, compression):
        from .._c.record import Reader
        self.reader = Reader(path, compression, 1 << 20)
        self.next = 0

    def read(self, n):
        """The next n records as (joined bytes, int64 offsets)."""
        datas, offs, got = [], [], 0
        while got < n:
            r = self.reader.read_batch(n - got)
            if r is None:
                break
            datas.append(r[0])
            offs.append(r[1])
            got += len(r[1]) - 1
        self.next += got
        return datas, offs, got


class Sources:
    """Per-process readers of the dataset's files (never pickled)."""

    def __init__(self, files, indexes, verify=True, seek_points=True):
        self.seek_points = seek_points
        self.files = files
        self.indexes = indexes
        self.verify = verify
        self._random = {}
        self._streams = {}

    def random_access(self, f):
        r = self._random.get(f)
        if r is None:
            r = TFRecordFile(self.files[f], index=self.indexes[f], verify=self.verify)
            self._random[f] = r
        return r

    def read(self, f, start, stop):
        """(views (n, 2) uint64, keepalive) of records [start, stop) of file f."""
        idx = self.indexes[f]
        if not idx.compression:
            r = self.random_access(f)
            return r.check(start, stop), r
        if self.seek_points:
            return self.random_access(f).gather(np.arange(start, stop))
        s = self._streams.get(f)
        if s is None or s.next > start:
            if s is not None:
                s.reader.close()
            s = self._streams[f] = _Stream(self.files[f], idx.compression)
        while s.next < start:  # skip forward without keeping the records
            _, _, got = s.read(min(start - s.next, 4096))
            if not got:
                break
        datas, offs, got = s.read(stop - start)
        if got != stop - start:
            from .. import errors
            raise errors.make(errors.DataLossError, "%s: %d records expected from record %d, "
                              "%d found (the file changed after it was indexed?)"
                              % (self.files[f], stop - start, start, got))
        views = np.empty((got, 2), dtype=np.uint64)
        row = 0
        keep = []
        for d, o in zip(datas, offs):
            buf = ffi.from_buffer(d) if len(d) else ffi.new("char[]", 1)
            keep.append((d, buf))
            base = int(ffi.cast("uintptr_t", buf))
            k = len(o) - 1
            views[row:row + k, 0] = base + o[:-1].astype(np.uint64)
            views[row:row + k, 1] = np.diff(o).astype(np.uint64)
            row += k
        return views, keep

    def gather(self, segments):
        """Views of several runs, concatenated, and what keeps them valid."""
        parts, keep = [], []
        for f, s, e in segments:
            v, k = self.read(f, s, e)
            parts.append(v)
            keep.append(k)
        if len(parts) == 1:
            return parts[0], keep
        return (np.concatenate(parts) if parts else np.zeros((0, 2), np.uint64)), keep

    def close(self):
        for r in self._random.values():
            r.close()
        for s in self._streams.values():
            s.reader.close()
        self._random.clear()
        self._streams.clear()


def records_of(views, keep):
    """A parser input (_Records) over payload views that stay valid through `keep`."""
    views = np.ascontiguousarray(views, dtype=np.uint64)
    recs = _Records.__new__(_Records)
    recs.n = len(views)
    if recs.n == 0:
        views = np.zeros((1, 2), np.uint64)
    recs.views = ffi.cast("tfn_bytes *", ffi.from_buffer(views))
    recs.keep = (views, keep)
    return recs

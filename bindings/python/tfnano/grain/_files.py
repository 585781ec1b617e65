"""The record files behind a source: a path, a glob pattern or a list -> sorted paths,
their indexes, and a global record number -> (file, record in file)."""
import bisect
import threading

import numpy as np

from ..io.index import TFRecordFile, file_list


class RecordFiles:
    """Random access by global record number over several TFRecord files (each read
    through tfnano.io.index.TFRecordFile: a memory map, or seek points when
    compressed). Grain reads a source from several threads at once and a TFRecordFile
    serves one thread, so each thread opens its own (sharing the indexes). Pickles
    without them: each worker process opens its own."""

    def __init__(self, files, cache_dir=None, compression=None, verify=True):
        self.paths = file_list(files)
        first = [TFRecordFile(p, cache_dir=cache_dir, compression=compression,
                              verify=verify) for p in self.paths]
        self._indexes = [f.index for f in first]
        self._compression, self._verify = compression, verify
        self._local = threading.local()
        self._local.files = first
        self.starts = np.zeros(len(first) + 1, dtype=np.int64)
        np.cumsum([len(f) for f in first], out=self.starts[1:])
        self._starts = self.starts.tolist()  # for one record: bisect, no numpy
        self.n = int(self.starts[-1])

    def __getstate__(self):
        state = dict(self.__dict__)
        del state["_local"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._local = threading.local()

    @property
    def files(self):
        """This thread's TFRecordFile objects, one per path."""
        files = getattr(self._local, "files", None)
        if files is None:
            files = self._local.files = [
                TFRecordFile(p, index=i, compression=self._compression, verify=self._verify)
                for p, i in zip(self.paths, self._indexes)]
        return files

    def __len__(self):
        return self.n

    def locate(self, indices):
        """(file numbers, record numbers in file) of global indices (negative count
        from the end); IndexError names the dataset's size."""
        idx = np.asarray(indices, dtype=np.int64).reshape(-1)
        if idx.size and (idx.min() < -self.n or idx.max() >= self.n):
            raise IndexError("record index out of range (the source has %d records)"
                             % self.n)
        idx = np.where(idx < 0, idx + self.n, idx)
        f = np.searchsorted(self.starts, idx, side="right") - 1
        return f, idx - self.starts[f]

    def one(self, i):
        """Record i's serialized bytes."""
        i = int(i)
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError("record index out of range (the source has %d records)"
                             % self.n)
        f = bisect.bisect_right(self._starts, i) - 1
        return self.files[f][i - self._starts[f]]

    def views(self, indices):
        """A batch of records as payload views the parser reads in place:
        an object with ``_tfn_views()`` -> ((n, 2) uint64 (address, length), keep)."""
        f, r = self.locate(indices)
        views = np.empty((len(r), 2), dtype=np.uint64)
        keep = []
        files = self.files
        for k in np.unique(f).tolist():
            sel = f == k
            v, kp = files[k].gather(r[sel])
            views[sel] = v
            keep.append(kp)
        return _Views(views, keep)

    def close(self):
        """Closes this thread's files."""
        for f in getattr(self._local, "files", None) or ():
            f.close()
        self._local.files = None


class _Views:
    """Record payloads in place (tfnano.Parser reads them without a copy)."""

    __slots__ = ("views", "keep")

    def __init__(self, views, keep):
        self.views, self.keep = views, keep

    def __len__(self):
        return len(self.views)

    def _tfn_views(self):
        return self.views, self.keep

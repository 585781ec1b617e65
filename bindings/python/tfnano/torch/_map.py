"""TFRecordMapDataset: map-style access to parsed records over the files' indexes, so
that DistributedSampler, RandomSampler and BatchSampler work unchanged."""
import bisect

import numpy as np
from torch.utils.data import Dataset, get_worker_info

from ._common import file_list, load_indexes, make_parser
from ._convert import to_torch
from ._source import Sources, records_of


class ParsedBatch:
    """What ``__getitems__`` returns: the records parsed together (``.stacked``, a
    dict of batch arrays). It is also a sequence of per-record dicts, so torch's
    default_collate still works; tfnano.torch.collate takes ``.stacked`` as is."""

    __slots__ = ("stacked", "n", "_output")

    def __init__(self, stacked, n, output):
        self.stacked, self.n, self._output = stacked, n, output

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self.n))]
        if not -self.n <= i < self.n:
            raise IndexError("batch index out of range")
        row = {k: _row(v, i) for k, v in self.stacked.items()}
        return to_torch(row) if self._output == "torch" else row

    def __iter__(self):
        for i in range(self.n):
            yield self[i]


def _row(a, i):
    if not isinstance(a, np.ndarray):  # a tensor of a batch parsed into shared memory
        return a[i]
    r = a[i]
    if a.dtype == object and a.ndim == 1:
        return r  # a bytes feature of shape (): bytes, as torch's collate expects
    return r if isinstance(r, np.ndarray) else np.asarray(r)


class TFRecordMapDataset(Dataset):
    """Parsed records of TFRecord files by number (files in order), over their indexes
    (GZIP / ZLIB files through seek points, see tfnano.io.index.TFRecordFile):
    ``len(ds)``, ``ds[i]`` (one record: {key: tensor}), and
    ``ds.__getitems__(indices)``, which torch >= 2.2's DataLoader calls with a whole
    batch of indices (one C parse call; pair it with ``collate_fn=tfnano.torch.collate``
    to skip the re-stacking). Arguments as TFRecordIterableDataset."""

    def __init__(self, files, features, *, int32=False, maxlen=None, masks=False,
                 transform=None, output="torch", index=None, cache_dir=None, verify=True,
                 compression=None):
        if output not in ("torch", "numpy"):
            raise ValueError("output must be 'torch' or 'numpy', got %r" % (output,))
        self.files = file_list(files)
        self.indexes = load_indexes(self.files, index, cache_dir, compression)
        self.features = dict(features)
        self.parser_args = (int32, maxlen, masks)
        self.transform, self.output, self.verify = transform, output, bool(verify)
        self.starts = np.zeros(len(self.files) + 1, dtype=np.int64)
        np.cumsum([len(i) for i in self.indexes], out=self.starts[1:])
        self._starts = self.starts.tolist()
        self._len = self._starts[-1]
        self._local = None

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_local"] = None  # readers and parser are made again in each process
        return state

    def _state(self):
        if self._local is None:
            parser = make_parser(self.features, *self.parser_args)
            shared = None
            # In a DataLoader worker, batches are parsed into one shared-memory block
            # (see _shared: a segment per tensor would cost milliseconds each).
            if (get_worker_info() is not None and self.output == "torch"
                    and self.transform is None):
                from ._shared import layout
                shared = layout(parser, self.features)
            self._local = (Sources(self.files, self.indexes, self.verify), parser, shared)
        return self._local

    def __len__(self):
        return int(self.starts[-1])

    def _locate(self, indices):
        idx = np.asarray(indices, dtype=np.int64).reshape(-1)
        n = len(self)
        if idx.size and (idx.min() < -n or idx.max() >= n):
            raise IndexError("record index out of range (the dataset has %d records)" % n)
        idx = np.where(idx < 0, idx + n, idx)
        files = np.searchsorted(self.starts, idx, side="right") - 1
        return files, idx - self.starts[files]

    def _parse(self, indices, batch=False):
        sources, parser, shared = self._state()
        files, recs = self._locate(indices)
        views = np.empty((len(recs), 2), dtype=np.uint64)
        keep = []
        for f in np.unique(files).tolist():
            sel = files == f
            v, k = sources.random_access(f).gather(recs[sel])
            views[sel] = v
            keep.append(k)
        if batch and shared is not None:
            from ._shared import parse_shared
            return parse_shared(shared, records_of(views, keep))
        out = parser.parse(records_of(views, keep))
        if self.transform is not None:
            out = self.transform(out)
        return out

    def __getitem__(self, i):
        if isinstance(i, (list, tuple, np.ndarray)):
            return self.__getitems__(i)
        i = int(i)
        n = self._len
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("record index out of range (the dataset has %d records)" % n)
        # One record: no numpy bookkeeping on the way to the parser.
        sources, parser, _ = self._state()
        f = bisect.bisect_right(self._starts, i) - 1
        r = sources.random_access(f)
        views = r.views_one(i - self._starts[f])
        out = parser.parse(records_of(views, r))
        if self.transform is not None:
            out = self.transform(out)
        out = {k: _row(v, 0) for k, v in out.items()}
        return to_torch(out) if self.output == "torch" else out

    def __getitems__(self, indices):
        indices = list(indices)
        return ParsedBatch(self._parse(indices, batch=True), len(indices), self.output)

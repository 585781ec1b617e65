"""TFRecordIterableDataset: parsed batches, each record once per epoch across
DataLoader workers x distributed ranks, reshuffled by set_epoch, resumable."""
import hashlib

import torch
from torch.utils.data import IterableDataset, get_worker_info

from ._common import distributed, file_list, load_indexes, make_parser
from ._convert import to_torch
from ._plan import OrderPlan
from ._source import Sources, records_of

_SAMPLE_CHUNK = 256
_STATE_VERSION = 1


class TFRecordIterableDataset(IterableDataset):
    """Parsed batches of TFRecord files, for ``DataLoader(ds, batch_size=None, ...)``.

    Args:
      files: paths, or a glob pattern (sorted).
      features: {key: tfnano.io.FixedLenFeature | FixedLenSequenceFeature}.
      batch_size: records per batch (parsed in one C call). None yields single
        records (then let DataLoader batch them; resuming by batch count then needs
        num_workers=0).
      shuffle, seed: reshuffle every epoch (``set_epoch``) from (seed, epoch): block
        order across all files, then records within windows of ``shuffle_window``.
      rank, world_size: this process's share; default: torch.distributed's when it is
        initialised, else the whole data.
      even_split: None (each record exactly once; ranks differ by at most one record),
        "pad" (every rank gets ceil(N / world) records, wrapping to the start, as
        DistributedSampler) or "drop" (floor(N / world), the tail dropped, as
        DistributedSampler(drop_last=True)). Use an even split when every rank must
        run the same number of steps.
      drop_last: drop each rank's last, short batch.
      int32, maxlen, masks, num_threads: as tfnano.Parser.
      transform: a function applied to each parsed batch (a dict of numpy arrays)
        in the worker, before the conversion to torch.
      output: "torch" (tensors sharing the parser's memory) or "numpy".
      block_size, shuffle_window: shuffle granularity (records).
      index, cache_dir: index files (see tfnano.io.index.load_index).
      compression: None (detected), "", "GZIP" or "ZLIB".
      verify: check payload CRCs (length CRCs are always checked).
      seek_points: GZIP / ZLIB files are split into blocks like the others, read through
        seek points (each worker inflates a file once to build them, then only its
        blocks); False reads each compressed file as one block, in order.
      prefetch: with num_workers=0, parse this many batches ahead on a thread (the C
        calls release the GIL, so parsing overlaps the training step without the
        copies between processes that DataLoader workers cost).
    """

    def __init__(self, files, features, batch_size=256, shuffle=False, seed=0, *, rank=None,
                 world_size=None, even_split=None, drop_last=False, int32=False,
                 maxlen=None, masks=False, num_threads=1, transform=None, output="torch",
                 block_size=512, shuffle_window=16384, index=None, cache_dir=None,
                 compression=None, verify=True, prefetch=0, seek_points=True):
        super().__init__()
        if output not in ("torch", "numpy"):
            raise ValueError("output must be 'torch' or 'numpy', got %r" % (output,))
        self.files = file_list(files)
        self.indexes = load_indexes(self.files, index, cache_dir, compression)
        self.counts = [len(i) for i in self.indexes]
        self.features = dict(features)
        self.batch_size = None if batch_size is None else int(batch_size)
        self.shuffle, self.seed = bool(shuffle), int(seed)
        self.rank, self.world_size = distributed(rank, world_size)
        self.even_split, self.drop_last = even_split, bool(drop_last)
        self.parser_args = (int32, maxlen, masks, num_threads)
        self.transform, self.output, self.verify = transform, output, bool(verify)
        self.prefetch = max(0, int(prefetch or 0))
        self.seek_points = bool(seek_points)
        self.block_size, self.shuffle_window = int(block_size), int(shuffle_window)
        # The epoch lives in shared memory so that set_epoch reaches DataLoader
        # workers that persist between epochs (persistent_workers=True).
        self._epoch_cell = torch.zeros(1, dtype=torch.int64).share_memory_()
        self._resume = None
        self.plan()  # validates the options now rather than in a worker

    # ----------------------------------------------------------------- plan
    def plan(self, epoch=None):
        """The OrderPlan of an epoch (this epoch by default) for this rank."""
        return OrderPlan(self.counts,
                         [self.seek_points or not i.compression for i in self.indexes],
                         self.batch_size or _SAMPLE_CHUNK, self.shuffle, self.seed,
                         self.epoch if epoch is None else epoch, self.world_size,
                         self.rank, self.even_split,
                         self.drop_last if self.batch_size else False,
                         self.block_size, self.shuffle_window)

    @property
    def epoch(self):
        return int(self._epoch_cell[0])

    def set_epoch(self, epoch):
        """Selects the epoch's order (as DistributedSampler.set_epoch): call it before
        iterating each epoch, with the same value on every rank. Workers that persist
        between epochs see it too."""
        self._epoch_cell[0] = int(epoch)

    def __len__(self):
        """Batches (records when batch_size is None) this rank yields per epoch."""
        p = self.plan()
        return p.num_batches if self.batch_size else p.size

    # ----------------------------------------------------------------- state
    def fingerprint(self):
        """What a saved state must match: files, their record counts and the order
        options (not the epoch or the position)."""
        key = repr((self.files, self.counts, self.batch_size, self.shuffle, self.seed,
                    self.rank, self.world_size, self.even_split, self.drop_last,
                    self.block_size, self.shuffle_window, self.seek_points))
        return hashlib.sha1(key.encode()).hexdigest()

    def state_after(self, batches, epoch=None):
        """The state of this rank's stream after `batches` batches of an epoch (what a
        DataLoader has handed out, whatever its num_workers): pass it to set_state
        to resume there."""
        epoch = self.epoch if epoch is None else int(epoch)
        if self.batch_size:
            return self._state(epoch, int(batches), 0)
        done = int(batches)  # records, when the dataset yields single records
        return self._state(epoch, done // _SAMPLE_CHUNK, done % _SAMPLE_CHUNK)

    def _state(self, epoch, batch, sample):
        plan = self.plan(epoch)
        unit = plan.batch_size
        at = plan.position_record(batch * unit + sample) if batch < plan.num_batches else None
        return {"version": _STATE_VERSION, "fingerprint": self.fingerprint(), "epoch": epoch,
                "seed": self.seed, "batch": int(batch), "sample": int(sample),
                "file": None if at is None else self.files[at[0]],
                "record": None if at is None else at[1],
                "offset": None if at is None else int(self.indexes[at[0]].offsets[at[1]])}

    def set_state(self, state):
        """Resume from a state (it.get_state() or state_after()): the next iteration
        starts there; later epochs (set_epoch) start from their beginning."""
        self._check_state(state)
        self.set_epoch(int(state["epoch"]))
        self._resume = dict(state)

    def get_state(self):
        """The state the next iteration starts from."""
        if self._resume is not None and self._resume["epoch"] == self.epoch:
            return dict(self._resume)
        return self._state(self.epoch, 0, 0)

    def _check_state(self, state):
        if state.get("version") != _STATE_VERSION or state.get("fingerprint") != self.fingerprint():
            raise ValueError("this state was saved by a dataset with other files, record "
                             "counts or order options (files, batch_size, shuffle, seed, "
                             "rank, world_size, even_split, drop_last, block_size, "
                             "shuffle_window must be the same)")

    # ----------------------------------------------------------------- iteration
    def __iter__(self):
        info = get_worker_info()
        worker, workers = (0, 1) if info is None else (info.id, info.num_workers)
        r = self._resume
        # a saved state applies to its own epoch only; later epochs start at 0
        start = ((r["batch"], r["sample"]) if r is not None and r["epoch"] == self.epoch
                 else (0, 0))
        it = _Iterator(self, worker, workers, start)
        if self.prefetch and info is None:
            return _Prefetcher(it, self.prefetch)
        return it

    def __getstate__(self):
        return dict(self.__dict__)


class _Iterator:
    def __init__(self, ds, worker, workers, start):
        self._ds = ds
        self._worker, self._workers = worker, workers
        self._plan = ds.plan()
        self._sources = Sources(ds.files, ds.indexes, ds.verify, ds.seek_points)
        self._parser = make_parser(ds.features, *ds.parser_args)
        self._window = (None, None, None)
        self._pending = None
        # In a worker, numeric batches are parsed straight into shared memory.
        self._shared = None
        if workers > 1 or get_worker_info() is not None:
            if ds.output == "torch" and ds.transform is None:
                from ._shared import layout
                self._shared = layout(self._parser, ds.features)
        self._seek(*start)

    def _finish(self):
        # The window's views point into the files' memory maps: drop them first.
        self._window = (None, None, None)
        self._sources.close()
        raise StopIteration

    def _seek(self, batch, sample):
        # Worker w takes batches start + w, start + w + K, ...: DataLoader asks worker
        # 0 first, so its first batch is the one to resume at.
        self._next = batch + self._worker
        self._skip = sample if self._worker == 0 else 0
        self._pending = None

    def __iter__(self):
        return self

    def _views(self, j):
        plan = self._plan
        first, stop = plan.window_of(j)
        if self._window[0] != first:
            self._window = (None, None, None)  # let the old window go first
            views, keep = self._sources.gather(plan.segments(first, stop))
            self._window = (first, views, keep)
        _, views, keep = self._window
        return views[plan.batch_rows(j)], keep

    def _parse(self, j):
        views, keep = self._views(j)
        if self._shared is not None:
            from ._shared import parse_shared
            return parse_shared(self._shared, records_of(views, keep))
        out = self._parser.parse(records_of(views, keep))
        ds = self._ds
        if ds.transform is not None:
            out = ds.transform(out)
        return to_torch(out) if ds.output == "torch" else out

    def __next__(self):
        ds = self._ds
        if ds.batch_size:
            if self._next >= self._plan.num_batches:
                self._finish()
            out = self._parse(self._next)
            self._next += self._workers
            return out
        # one record at a time, from chunks parsed together
        while True:
            if self._pending is not None:
                batch, n, i = self._pending
                if i < n:
                    self._pending = (batch, n, i + 1)
                    self._skip = i + 1
                    return {key: v[i] for key, v in batch.items()}
                self._pending = None
                self._next += self._workers
                self._skip = 0
            if self._next >= self._plan.num_batches:
                self._finish()
            batch = self._parse(self._next)
            n = len(next(iter(batch.values()))) if batch else 0
            self._pending = (batch, n, self._skip)

    def get_state(self):
        """Where this iterator stands (epoch, next batch, the next record's file, number
        and byte offset (in the decompressed stream for GZIP / ZLIB), seed; the shuffle
        order follows from seed and epoch); set_state() on a new iterator or on the
        dataset resumes there."""
        pos = self._next
        sample = self._skip if not self._ds.batch_size else 0
        return self._ds._state(self._plan.epoch, pos, sample)

    def set_state(self, state):
        self._ds._check_state(state)
        if int(state["epoch"]) != self._plan.epoch:
            self._plan = self._ds.plan(int(state["epoch"]))
        self._window = (None, None, None)
        self._seek(int(state["batch"]), int(state["sample"]))


class _Prefetcher:
    """Runs an _Iterator on a thread, `depth` items ahead; get_state is the state
    after the last item handed out (not the producer's position)."""

    _END = object()

    def __init__(self, it, depth):
        import queue
        import threading
        self._it = it
        self._state = it.get_state()
        self._q = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name="tfnano-torch-prefetch")
        self._thread.start()

    def _run(self):
        try:
            for item in self._it:
                state = self._it.get_state()
                while not self._stop.is_set():
                    try:
                        self._q.put((item, state, None), timeout=0.1)
                        break
                    except Exception:  # queue.Full: check for a stop, then retry
                        continue
                if self._stop.is_set():
                    return
            self._q.put((self._END, None, None))
        except BaseException as e:  # handed to the consumer
            self._q.put((self._END, None, e))

    def __iter__(self):
        return self

    def __next__(self):
        if self._thread is None:
            raise StopIteration
        item, state, exc = self._q.get()
        if item is self._END:
            self._thread.join()
            self._thread = None
            if exc is not None:
                raise exc
            raise StopIteration
        self._state = state
        return item

    def get_state(self):
        return dict(self._state)

    def close(self):
        self._stop.set()

    def __del__(self):
        self._stop.set()

"""Elements carried as columns: a run of consecutive elements of one structure held
as one array per leaf, record axis first. A vectorized map produces them, and
cache / shuffle / repeat / take / skip / batch move them without building a Python
object per element (see ``Node.columnar``); a stage that asks for single elements
gets rows sliced from them, equal to what per-element execution gives.

A columnar stage offers ``next_columns(n)``: up to n elements (at least one) as a
:class:`Columns`, or None at the end. An error raised for one element is raised by
the call that would have returned it; the elements before it come first."""
import numpy as np

from . import plan, structure
from .._tensor import as_tensor

CHUNK = 256  # elements a vectorized map runs at once when nothing asks for more


class Columns:
    """`n` elements shaped like `template`: `leaves[c]` holds component c of each.
    `fresh`: the arrays were made for these elements alone (a batch may hand them
    out without a copy; a cache's or a source's arrays are not fresh)."""
    __slots__ = ("template", "leaves", "n", "fresh")
    _tfn_columns = True  # what stacking.py recognises (it does not import this module)

    def __init__(self, template, leaves, n, fresh=False):
        self.template, self.leaves, self.n = template, leaves, n
        self.fresh = fresh

    @classmethod
    def of(cls, batched, n):
        """A batched element (leaves with the record axis first) as columns."""
        return cls(batched, [np.asarray(x) for x in structure.flatten(batched)], n, True)

    def __len__(self):
        return self.n

    def slice(self, start, stop):
        return Columns(self.template, [x[start:stop] for x in self.leaves], stop - start)

    def take(self, idx):
        return Columns(self.template, [x[idx] for x in self.leaves], len(idx), True)

    def element(self, i):
        # x[i, ...] keeps a 0-d array (a string stays an object array, not bytes)
        return structure.pack(self.template, [as_tensor(x[i, ...]) for x in self.leaves])

    def batched(self):
        """The columns as one batched element (as batch() gives it)."""
        return structure.pack(self.template, [as_tensor(x) for x in self.leaves])


def concat(parts):
    """Columns one after the other as one Columns; None when the elements' shapes
    differ between the parts (batch must then raise TensorFlow's error)."""
    if len(parts) == 1:
        return parts[0]
    first = parts[0]
    leaves = []
    for c, x in enumerate(first.leaves):
        col = [p.leaves[c] for p in parts]
        if any(a.shape[1:] != x.shape[1:] for a in col):
            return None
        leaves.append(np.concatenate(col))
    return Columns(first.template, leaves, sum(p.n for p in parts), True)


def elements_of(parts):
    return [p.element(i) for p in parts for i in range(p.n)]


class ColumnStage(plan.Stage):
    """A stage whose work comes as Columns from `_pull()` (None at the end): hands
    them on whole (`next_columns`) or one element at a time (`__next__`)."""
    columnar = True
    _cur = None
    _pos = 0

    def _pull(self, n):
        """The next Columns (about n elements wanted; more or fewer is fine), None at
        the end."""
        raise NotImplementedError

    def _fill(self, n=CHUNK):
        while self._cur is None or self._pos >= self._cur.n:
            self._cur, self._pos = None, 0
            got = self._pull(n)
            if got is None:
                return False
            self._cur = got
        return True

    def __next__(self):
        if not self._fill():
            raise StopIteration
        i = self._pos
        self._pos += 1
        return self._cur.element(i)

    def next_records(self, n):
        """Up to n elements as one Columns (a batch-in-waiting for batch, fused
        stages and padded/ragged batch: see stacking.py stacked_input / elements)."""
        parts, have = [], 0
        while have < n:
            got = self.next_columns(n - have)  # an error drops what was gathered
            if got is None:
                break
            parts.append(got)
            have += got.n
        if not parts:
            return None
        joined = concat(parts)
        return joined if joined is not None else elements_of(parts)

    def next_columns(self, n):
        if not self._fill(n):
            return None
        cur, i = self._cur, self._pos
        if i == 0 and cur.n <= n:
            self._cur = None
            return cur
        j = min(cur.n, i + n)
        self._pos = j
        return cur.slice(i, j)


class ReplayStage(ColumnStage):
    """Stored Columns, in order (a filled cache)."""

    def __init__(self, parts):
        self._parts = iter(parts)

    def _pull(self, n):
        return next(self._parts, None)


def columnar_upstream(node):
    """Whether `node`'s stage hands out Columns (see Node.columnar)."""
    c = getattr(node, "columnar", None)
    return bool(c is not None and c())


def fixed_dense(spec):
    """Whether every leaf of `spec` is a dense tensor of a fully known shape (what
    columns can hold: one array per leaf)."""
    if spec is None:
        return False
    from .._trace import CompositeSpec
    for s in structure.flatten(spec):
        if isinstance(s, CompositeSpec) or s.shape is None or None in s.shape or \
                s.dtype is None:
            return False
    return True


def _run_recording_lengths(fn, x, n):
    """The graph on a chunk, with the lengths table the parse ops fill: each padded
    per-record value (a VarLenFeature's values) records its rows' true lengths."""
    from .._trace import LENGTHS
    LENGTHS.table = table = {}
    try:
        return Columns.of(fn.run_batch(x, n), n), table
    finally:
        LENGTHS.table = None


def _padded(table, a):
    """True when leaf `a` holds records padded to the longest (their lengths differ
    from its width): such a chunk is not n elements of one shape."""
    a = np.asarray(a)
    got = table.get((a.__array_interface__["data"][0], a.shape))
    if got is None or isinstance(got, str) or a.ndim < 2:
        return False
    return bool(np.any(np.asarray(got) != a.shape[1]))


def _run_chunk(task):
    """(fn, raw input of n elements, n) -> a list of Columns and errors in element
    order: the graph once on the whole chunk; element by element when that fails,
    so that each error is the one per-element execution gives, at its place."""
    fn, raw, n = task
    from .stacking import elements, stack, stacked_input
    if isinstance(raw, Columns):
        x = raw.batched()
    else:
        x = None
    try:
        if x is None:
            x = stacked_input(raw)
        out, table = _run_recording_lengths(fn, x, n)
        if all(a.shape[:1] == (n,) and not _padded(table, a) for a in out.leaves):
            return [out]
    except Exception:
        pass
    items = [raw.element(i) for i in range(raw.n)] if isinstance(raw, Columns) else \
        list(elements(raw))
    res, run = [], []
    for el in items:
        try:
            run.append(fn(el))
        except Exception as e:
            if run:
                res.append(Columns.of(stack(run), len(run)))
                run = []
            res.append(e)
    if run:
        res.append(Columns.of(stack(run), len(run)))
    return res


class MapColumnsStage(ColumnStage):
    """A vectorized map run on chunks of its input (on `workers` threads when more
    than one), whatever follows it; errors keep their element's place."""

    def __init__(self, upstream, fn, workers, chunk=CHUNK):
        from .workers import Pool
        self.upstreams = (upstream,)
        self._fn, self._chunk = fn, chunk
        self._pool = Pool(workers) if workers > 1 else None
        self._inflight = workers + 1
        self._pending = []    # Results (pool) or finished lists, in element order
        self._ready = []      # Columns and errors to hand out, reversed
        self._late = None     # an upstream error met after some elements, raised next
        self._ended = False
        up = upstream
        self._mode = "columns" if getattr(up, "columnar", False) else (
            "records" if getattr(up, "partial_records", False) else "elements")

    def _gather(self):
        """The next input chunk as (raw, n); an upstream error is raised here, after
        the elements before it have been handed on."""
        if self._late is not None:
            e, self._late = self._late, None
            raise e
        up, m = self.upstreams[0], self._chunk
        if self._mode == "columns":
            got = up.next_columns(m)
            return (got, got.n) if got is not None else (None, 0)
        if self._mode == "records":
            got = up.next_records(m, partial=True)
            return (got, len(got)) if got is not None else (None, 0)
        items = []
        while len(items) < m:
            try:
                items.append(next(up))
            except StopIteration:
                break
            except Exception as e:
                if not items:
                    raise
                self._late = e
                break
        return (items, len(items)) if items else (None, 0)

    def _refill(self):
        limit = self._inflight if self._pool is not None else 1
        while not self._ended and len(self._pending) < limit:
            try:
                raw, n = self._gather()
            except StopIteration:
                raw, n = None, 0
            except Exception as e:
                self._pending.append([e])
                continue
            if raw is None:
                self._ended = True
                break
            task = (self._fn, raw, n)
            self._pending.append(self._pool.submit(_run_chunk, task) if self._pool
                                 is not None else _run_chunk(task))

    def _pull(self, n):
        while not self._ready:
            self._refill()
            if not self._pending:
                return None
            got = self._pending.pop(0)
            got = got if isinstance(got, list) else got.wait()
            self._ready = list(reversed(got))
        item = self._ready.pop()
        if isinstance(item, BaseException):
            raise item
        return item

    def close(self):
        if self._pool is not None:
            self._pool.close()
        self._pending, self._ready = [], []
        plan.Stage.close(self)


class CacheFillStage(ColumnStage):
    """Hands on its input's Columns and keeps them; a complete pass fills the cache."""

    def __init__(self, upstream, store):
        self.upstreams = (upstream,)
        self._store, self._seen = store, []

    def _pull(self, n):
        got = self.upstreams[0].next_columns(max(n, CHUNK))
        if got is None:
            if self._seen is not None:
                # one array per component: a later epoch's shuffle gathers a batch
                # from it in one take per component
                whole = concat(self._seen) if self._seen else None
                self._store["done"] = [Columns(whole.template, whole.leaves, whole.n)] \
                    if whole is not None else self._seen
                self._seen = None
            return None
        got = Columns(got.template, got.leaves, got.n)  # kept: not the batch's to own
        if self._seen is not None:
            self._seen.append(got)
        return got


class ShuffleColumnsStage(ColumnStage):
    """shuffle's order on columns: the buffer holds element numbers, not elements;
    `pick(k)` draws the buffer position of the next output among k (the random
    source stays with the shuffle node). The order equals the per-element stage's,
    TensorFlow's ring: `size` slots hold elements start..end; the output is slot
    (start + pick(end - start)) % size, which then takes the oldest element."""

    def __init__(self, upstream, size, pick):
        self.upstreams = (upstream,)
        self._size, self._pick = size, pick
        self._ring = [None] * size
        self._start = self._end = 0   # element numbers held: ring slots start..end
        self._parts = {}      # part number -> Columns
        self._starts = []     # first element number of each part
        self._left = {}       # part number -> its elements still to hand out
        self._pulled = 0      # elements received from upstream
        self._inserted = 0    # of those, elements put into the buffer
        self._ended = False
        self._late = None

    def _receive(self):
        """One more part from upstream; False at its end (an error is kept for the
        call after the outputs already drawn)."""
        try:
            got = self.upstreams[0].next_columns(max(CHUNK, self._size))
        except StopIteration:
            got = None
        if got is None:
            self._ended = True
            return False
        k = len(self._starts)
        self._parts[k] = got
        self._left[k] = got.n
        self._starts.append(self._pulled)
        self._pulled += got.n
        return True

    def _pull(self, n):
        if self._late is not None:
            e, self._late = self._late, None
            raise e
        ring, size, pick = self._ring, self._size, self._pick
        out = []
        keep = out.append
        for _ in range(max(n, 1)):
            while self._end - self._start < size:
                if self._inserted < self._pulled:
                    take = min(size - (self._end - self._start),
                               self._pulled - self._inserted)
                    end = self._end
                    for v in range(self._inserted, self._inserted + take):
                        ring[end % size] = v
                        end += 1
                    self._end = end
                    self._inserted += take
                    continue
                if self._ended:
                    break
                try:
                    if not self._receive():
                        break
                except Exception as e:
                    if not out:
                        raise
                    self._late = e
                    return self._gather(out)
            if self._start == self._end:
                break
            first = self._start % size
            i = (self._start + pick(self._end - self._start)) % size
            keep(ring[i])
            ring[i], ring[first] = ring[first], None
            self._start += 1
        return self._gather(out) if out else None

    def _gather(self, out):
        h = np.asarray(out, np.int64)
        part = np.searchsorted(np.asarray(self._starts, np.int64), h, "right") - 1
        rows = h - np.asarray(self._starts, np.int64)[part]
        used = np.unique(part)
        first = self._parts[int(used[0])]
        if len(used) == 1:
            res = first.take(rows)
        else:
            # outputs grouped by the part they come from: one gather per part and leaf
            order = np.argsort(part, kind="stable")
            bounds = np.searchsorted(part[order], used, "left").tolist() + [len(h)]
            groups = [(int(p), order[bounds[k]:bounds[k + 1]])
                      for k, p in enumerate(used)]
            groups = [(p, at, rows[at]) for p, at in groups]
            leaves = []
            for c, x in enumerate(first.leaves):
                col = np.empty((len(h),) + x.shape[1:], x.dtype)
                for p, at, r in groups:
                    col[at] = self._parts[p].leaves[c].take(r, axis=0)
                leaves.append(col)
            res = Columns(first.template, leaves, len(h), True)
        counts = np.bincount(part)
        for p in used:
            p = int(p)
            self._left[p] -= int(counts[p])
            if not self._left[p]:
                del self._parts[p], self._left[p]
        return res


class RepeatColumnsStage(ColumnStage):
    """repeat on columns: `open()` gives each epoch's stage."""

    def __init__(self, open_epoch, count):
        self._open, self._left = open_epoch, count
        self.upstreams = ()
        self._seen = True

    def _pull(self, n):
        while True:
            if not self.upstreams:
                if self._left == 0 or not self._seen:
                    return None  # done, or an empty epoch under repeat()
                if self._left > 0:
                    self._left -= 1
                self.upstreams = (self._open(),)
                self._seen = False
            got = self.upstreams[0].next_columns(n)
            if got is None:
                plan.Stage.close(self)
                self.upstreams = ()
                continue
            self._seen = True
            return got


class TakeColumnsStage(ColumnStage):
    def __init__(self, upstream, count):
        self.upstreams = (upstream,)
        self._left = count

    def _pull(self, n):
        if self._left <= 0:
            return None
        got = self.upstreams[0].next_columns(min(n, self._left))
        if got is not None:
            self._left -= got.n
        return got


class SkipColumnsStage(ColumnStage):
    def __init__(self, upstream, count):
        self.upstreams = (upstream,)
        self._skip = count

    def _pull(self, n):
        up = self.upstreams[0]
        if self._skip < 0:
            while up.next_columns(CHUNK) is not None:
                pass
            return None
        while self._skip > 0:
            got = up.next_columns(min(self._skip, CHUNK))
            if got is None:
                return None
            self._skip -= got.n
        return up.next_columns(n)


class BatchColumnsStage(plan.Stage):
    """batch(n) of columns: n elements gathered as columns and joined in one copy."""

    def __init__(self, upstream, n, drop):
        self.upstreams = (upstream,)
        self._n, self._drop = n, drop
        self._ended = False

    def __next__(self):
        if self._ended:
            raise StopIteration
        parts, have, up = [], 0, self.upstreams[0]
        while have < self._n:
            got = up.next_columns(self._n - have)  # an error drops the partial batch
            if got is None:
                self._ended = True
                break
            parts.append(got)
            have += got.n
        if not have or (self._drop and have < self._n):
            self._ended = True
            raise StopIteration
        joined = concat(parts)
        if joined is None:  # shapes differ: TensorFlow's error from stacking
            from .stacking import stack
            return stack(elements_of(parts))
        if not joined.fresh:  # the batch owns its memory (a cache keeps its own)
            joined = Columns(joined.template, [np.array(x) for x in joined.leaves],
                             joined.n)
        return joined.batched()

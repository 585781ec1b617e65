"""``[map(f).]filter(p).batch(n)`` vectorized, when f and p are traced with batched
forms: records are gathered a batch-deficit at a time, f and p run once per gather,
the kept rows accumulate until n. Results and errors are those of running the three
stages element by element: each gather is no larger than what the current batch
still needs, so an error (in reading, in f or in p) only ever discards the partial
batch that per-element execution would discard too; when a vectorized run fails,
that gather is redone element by element."""
import numpy as np

from .. import plan, structure
from .batch import elements, stack, stacked_input, varying_components
from .filter import truth
from .map import MapNode


class FilterBatchNode(plan.Node):
    op = "filter_and_batch"

    def __init__(self, source, map_node, filter_node, batch_size, drop_remainder):
        super().__init__(source)
        self.map_node = map_node
        self.filter_node = filter_node
        self.batch_size = batch_size
        self.drop_remainder = drop_remainder

    def attrs(self):
        a = {"batch_size": self.batch_size}
        if self.drop_remainder:
            a["drop_remainder"] = True
        return a

    def notes(self):
        out = []
        if self.map_node is not None:
            out.append("map: " + self.map_node.fn.describe())
        out.append("filter: " + self.filter_node.fn.describe())
        out.append("vectorized: map and predicate run once per gather of records")
        return out

    def cardinality(self):
        return plan.UNKNOWN

    def element_spec(self):
        return structure.batch_spec(self.filter_node.element_spec(),
                                    self.batch_size if self.drop_remainder else None)

    def stage(self, ctx):
        fn = None if self.map_node is None else self.map_node.fn
        return _FilterBatchStage(ctx.stage(self.inputs[0]), fn, self.filter_node.fn,
                                 self.batch_size, self.drop_remainder)


def fusable(filter_node):
    """(source, map_node or None) when filter(p) (after a map) can be vectorized."""
    pred = filter_node.fn
    if not pred.vectorized:
        return None
    up = filter_node.inputs[0]
    if type(up) is MapNode:
        if not up.fn.vectorized or varying_components(up.fn.output_spec()) != []:
            return None
        return up.inputs[0], up
    spec = up.element_spec()
    if varying_components(spec) != []:
        return None
    return up, None


def _take(leaf, idx):
    if hasattr(leaf, "_tfn_views"):
        from ..readers import RecordViews
        return RecordViews(leaf.views[idx], leaf.keep)
    return np.asarray(leaf)[idx]


def _concat(parts):
    if len(parts) == 1:
        return parts[0]
    if hasattr(parts[0], "_tfn_views"):
        from ..readers import join_views
        return join_views(parts)
    return np.concatenate([np.asarray(p) for p in parts])


class _FilterBatchStage(plan.Stage):
    def __init__(self, upstream, fn, pred, n, drop):
        self.upstreams = (upstream,)
        self._fn, self._pred, self._n, self._drop = fn, pred, n, drop
        self._template = None
        self._pending = []      # [(leaves, count)] kept rows of the batch being filled
        self._count = 0
        self._leftover = None   # elements after an error, to run first next time
        self._ended = False

    def _gather(self, m):
        if self._leftover:
            raw, rest = self._leftover[:m], self._leftover[m:]
            self._leftover = rest or None
            return raw
        return self.upstreams[0].next_records(m)

    def _vectorized(self, raw, m):
        x = stacked_input(raw)
        out = x if self._fn is None else self._fn.run_batch(x, m)
        keep = np.asarray(self._pred.run_batch(out, m))
        if keep.shape != (m,) or keep.dtype != np.bool_:
            raise TypeError("the predicate's batched result is not one bool per record")
        return out, keep

    def _per_element(self, raw):
        """The gather element by element; on an error the rest waits for next time."""
        items = list(elements(raw))
        kept = []
        for i, el in enumerate(items):
            try:
                y = el if self._fn is None else self._fn(el)
                ok = truth(self._pred.raw(y))
            except Exception:
                self._leftover = items[i + 1:] + (self._leftover or [])
                raise
            if ok:
                kept.append(y)
        return kept

    def _add(self, out, count):
        if self._template is None:
            self._template = out
        self._pending.append((structure.flatten(out), count))
        self._count += count

    def __next__(self):
        if self._ended and not self._count:
            raise StopIteration
        try:
            while self._count < self._n and not self._ended:
                m = self._n - self._count
                raw = self._gather(m)
                if raw is None:
                    self._ended = True
                    break
                m = len(raw)
                try:
                    out, keep = self._vectorized(raw, m)
                except Exception:
                    kept = self._per_element(raw)
                    if kept:
                        self._add(stack(kept), len(kept))
                    continue
                idx = np.flatnonzero(keep)
                if len(idx) == m:
                    self._add(out, m)
                elif len(idx):
                    leaves = [_take(x, idx) for x in structure.flatten(out)]
                    self._add(structure.pack(out, leaves), len(idx))
        except Exception:
            self._pending, self._count = [], 0  # the partial batch goes with the error
            raise
        if not self._count or (self._drop and self._count < self._n):
            self._pending, self._count = [], 0
            raise StopIteration
        return self._emit()

    def _emit(self):
        n = min(self._n, self._count)
        cols = list(zip(*[leaves for leaves, _ in self._pending]))
        full = [_concat(list(c)) for c in cols]
        total = self._count
        out = structure.pack(self._template, [structure.to_tensor(_take(x, slice(0, n)))
                                              for x in full])
        if total > n:
            rest = [_take(x, slice(n, total)) for x in full]
            self._pending, self._count = [(rest, total - n)], total - n
        else:
            self._pending, self._count = [], 0
        return out

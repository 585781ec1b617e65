"""Fused nodes: one node (and stage) for several transformations, built by the rules
of data/optimize.py. Each gives what its transformations give one after the other.

- ``map_and_batch`` (MapBatchNode): ``map(f).batch(n)`` as TensorFlow's map-and-batch
  fusion, with its semantics: an error in any element fails the whole batch, whose
  input elements are consumed. When f is traced and every op has a batched form, a
  batch is n raw input elements gathered at once and the graph is run once on them
  (vectorized); otherwise f runs per element. Either way the result equals stacking
  the per-element results; when the vectorized run fails, the batch is re-run per
  element, so that the error is the one per-record execution gives, naming the
  record. num_parallel_calls works on whole batches in parallel. Elements of
  different sizes fail with the fused kernel's text ("Cannot add tensor to the
  batch: ..."), as TensorFlow's map_and_batch does. Over a TFRecordDataset it may
  run on the C engine (data/native.py).
- ``filter_and_batch`` (FilterBatchNode): ``[map(f).]filter(p).batch(n)`` vectorized,
  when f and p are traced with batched forms: records are gathered a batch-deficit at a time, f and p run once per gather,
  the kept rows accumulate until n. Results and errors are those of running the three
  stages element by element: each gather is no larger than what the current batch
  still needs, so an error (in reading, in f or in p) only ever discards the partial
  batch that per-element execution would discard too; when a vectorized run fails,
  that gather is redone element by element.
"""
import numpy as np

from .._tensor import as_tensor
from . import composite, plan, structure
from .ops.batch import (BatchStage, ParallelBatches, batch_cardinality, elements,
                        lengths_of, run_with_lengths, stack, stack_mapped, stacked_input,
                        varying_components)
from .ops.filter import truth
from .ops.map import MapNode


class MapBatchNode(plan.Node):
    """map(f) + batch(n) as one node (TensorFlow's map-and-batch fusion)."""
    op = "map_and_batch"

    def __init__(self, map_node, batch_size, drop_remainder):
        super().__init__(map_node.inputs[0])
        self.map_node = map_node
        self.fn = map_node.fn
        self.batch_size = batch_size
        self.drop_remainder = drop_remainder

    def attrs(self):
        a = {"batch_size": self.batch_size}
        a.update(self.map_node.attrs())
        if self.drop_remainder:
            a["drop_remainder"] = True
        return a

    def notes(self):
        how = "vectorized: one run of the graph per batch" if self.fn.vectorized else \
            "per element"
        settings, reason = self.c_route()
        if settings is not None:
            from . import native
            how = "runs on C threads (lib/pipeline): %s" % native.describe(settings)
        elif self.fn.vectorized:
            how += " on Python threads (C pipeline not used: %s)" % reason
        return [self.fn.describe(), how]

    def c_route(self):
        from . import native
        if not native.enabled(images=True):
            return None, native.disabled_reason()
        settings, reason = native.route(self)
        if settings is not None and not settings["images"] and not native.enabled():
            return None, native.disabled_reason()  # one core, no image stage
        return settings, reason

    def cardinality(self):
        return batch_cardinality(self.inputs[0].cardinality(), self.batch_size,
                                 self.drop_remainder)

    def element_spec(self):
        return structure.batch_spec(self.fn.output_spec(),
                                    self.batch_size if self.drop_remainder else None)

    def maker(self):
        fn = self.fn
        if fn.vectorized:
            return _Vectorized(fn)
        return lambda raw: stack_mapped(fn, elements(raw))

    def stage(self, ctx):
        settings, _ = self.c_route()
        ordered = self.map_node.deterministic
        if ordered is None:
            ordered = ctx.deterministic
        if settings is not None:
            from . import native
            return native.CStage(settings, self.batch_size, self.drop_remainder,
                                 ordered is not False, native.workers_for(self.map_node))
        up = ctx.stage(self.inputs[0])
        workers = self.map_node.workers(ctx)
        make = self.maker()
        if workers == 1:
            return BatchStage(up, self.batch_size, self.drop_remainder, make,
                              run_dropped=make)
        return ParallelBatches(up, make, workers, ordered is not False, self.batch_size,
                                self.drop_remainder, run_dropped=make)


class _Vectorized:
    """raw batch -> the graph run once on it; per element when that fails, or when
    records' shapes differ (batch must then raise TensorFlow's error)."""

    def __init__(self, fn):
        self.fn = fn
        self.varying = varying_components(fn.output_spec())
        self.per_element = self.varying is None

    def per_record(self, raw):
        # the first failing element raises its own error (TF's text); if none fails,
        # stacking gives exactly what per-record execution gives
        return stack_mapped(self.fn, elements(raw))

    def __call__(self, raw):
        if self.per_element:
            return self.per_record(raw)
        n = len(raw)
        try:
            out, table = run_with_lengths(self.fn, raw, n)
            if not self.varying:  # the table serves size / shape of padded values
                return out
        except Exception:
            return self.per_record(raw)
        leaves = structure.flatten(out)
        from .structured_function import STACKED
        dense = None
        for c in self.varying:
            if composite.is_ragged(leaves[c]):  # rows (tfnano._trace): equal or an error
                if dense is None:
                    dense = list(leaves)
                dense[c] = rows_as_dense(leaves[c])
                if dense[c] is None:
                    return self.per_record(raw)  # raises "Cannot add tensor to the batch ..."
                continue
            lengths = lengths_of(table, leaves[c])
            if lengths is None:
                self.per_element = True  # a varying shape not from the parser
                return self.per_record(raw)
            if lengths is STACKED:
                continue  # per-record arrays, stacked: their shapes were equal
            if n and (np.asarray(lengths) != lengths[0]).any():
                return self.per_record(raw)  # raises "Cannot add tensor to the batch ..."
        return out if dense is None else structure.pack(out, dense)


def rows_as_dense(rt):
    """Rows (a RaggedTensor whose rows are records, see tfnano._trace) as the dense
    batch that stacking the records gives: None when their lengths differ."""
    splits = np.asarray(rt.row_splits)
    lengths = np.diff(splits)
    if len(lengths) and (lengths != lengths[0]).any():
        return None
    values = np.asarray(rt.values)
    width = int(lengths[0]) if len(lengths) else 0
    return as_tensor(values.reshape((len(lengths), width) + values.shape[1:]))





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
        from .readers import RecordViews
        return RecordViews(leaf.views[idx], leaf.keep)
    return np.asarray(leaf)[idx]


def _concat(parts):
    if len(parts) == 1:
        return parts[0]
    if hasattr(parts[0], "_tfn_views"):
        from .readers import join_views
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

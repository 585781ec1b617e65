"""batch(batch_size, drop_remainder) and its fusion with a preceding map.

Batching stacks each component of `batch_size` elements (TensorFlow's error when
their shapes differ). A batch of a record source's raw records is a record batch
(no Python object per record).

``map(f).batch(n)`` runs as one stage, as TensorFlow's map-and-batch fusion does
(and with its semantics: an error in any element fails the whole batch, whose
input elements are consumed). When f is traced and every op has a batched form, a
batch is n raw input elements gathered at once and the graph is run once on them
(vectorized); otherwise f runs per element. Either way the result equals stacking
the per-element results; when the vectorized run fails, the batch is re-run per
element, so that the error is the one per-record execution gives, naming the
record. num_parallel_calls works on whole batches in parallel. Elements of different
sizes fail with the fused kernel's text ("Cannot add tensor to the batch: ..."), as
TensorFlow's map_and_batch does.
"""
import numpy as np

from ... import errors
from ..._tensor import as_tensor
from .. import composite, plan, structure
from .map import MapNode, ParallelStage


def batch_cardinality(card, size, drop):
    if card < 0:
        return card
    return card // size if drop else -(-card // size)


def stack_column(col, c=0):
    """Per-element values of component c -> one Tensor, record axis first."""
    if len(col) == 1 and (hasattr(col[0], "_tfn_joined") or hasattr(col[0], "_tfn_views")):
        return col[0]
    batched = composite.batch_column(col, c)
    if batched is not None:  # SparseTensor / RaggedTensor components
        return batched
    arrs = [np.asarray(x) for x in col]
    shape = arrs[0].shape
    for i, a in enumerate(arrs):
        if a.shape != shape:
            raise errors.InvalidArgumentError(
                None, None, "Cannot batch tensors with different shapes in component "
                "%d. First element had shape %s and element %d had shape %s."
                % (c, structure.tf_shape(shape), i, structure.tf_shape(a.shape)))
    if arrs[0].dtype == object:
        st = np.empty((len(arrs),) + shape, dtype=object)
        for i, a in enumerate(arrs):
            st[i] = a.item() if a.ndim == 0 else a  # a 0-d array would be stored whole
    else:
        st = np.stack(arrs)
    return as_tensor(st)


def stack_mapped(fn, items):
    """fn of each item, batched as TensorFlow's fused map-and-batch batches them: the
    first element's shape is the batch's; an element with another number of values
    in a component fails the batch with "Cannot add tensor to the batch: number of
    elements does not match. Shapes are: [tensor]: [3], [batch]: [2]", one with as many
    values in another shape is copied in with the first element's shape (TensorFlow
    copies the values into the batch's slot). The first failure in element order (the
    function's own error or a size) is raised, as TensorFlow reports the smallest
    offset."""
    out, first = [], None
    for el in items:
        res = fn(el)
        leaves = structure.flatten(res)
        if first is None:
            first = [None if type(x).__name__ in structure.COMPOSITE else np.shape(x)
                     for x in leaves]
        else:
            fixed = False
            for c, x in enumerate(leaves):
                want = first[c]
                if want is None or type(x).__name__ in structure.COMPOSITE:
                    continue
                shape = np.shape(x)
                if shape == want:
                    continue
                if int(np.prod(shape)) != int(np.prod(want)):
                    raise errors.InvalidArgumentError(
                        None, None, "Cannot add tensor to the batch: number of elements does "
                        "not match. Shapes are: [tensor]: %s, [batch]: %s"
                        % (structure.tf_shape(shape), structure.tf_shape(want)))
                leaves[c] = as_tensor(np.reshape(np.asarray(x), want))
                fixed = True
            if fixed:
                res = structure.pack(res, leaves)
        out.append(res)
    return stack(out)


def stack(chunk):
    """Elements -> one batched element."""
    leaves = [structure.flatten(el) for el in chunk]
    out = [stack_column([lv[c] for lv in leaves], c) for c in range(len(leaves[0]))]
    return structure.pack(chunk[0], out)


def is_records(raw):
    return hasattr(raw, "_tfn_views") or hasattr(raw, "_tfn_joined")


def elements(raw):
    """The elements of a gathered batch, one by one."""
    if is_records(raw):
        from ..._tensor import scalar_string
        return [scalar_string(b) for b in raw.numpy().tolist()]
    return raw


def stacked_input(raw):
    return raw if is_records(raw) else stack(raw)


class BatchNode(plan.Node):
    op = "batch"

    def __init__(self, input, batch_size, drop_remainder=False, num_parallel_calls=None,
                 deterministic=None):
        super().__init__(input)
        batch_size = int(batch_size)
        if batch_size <= 0:
            raise errors.invalid("Batch size must be greater than "
                                 "zero.")
        self.batch_size = batch_size
        self.drop_remainder = bool(drop_remainder)

    def attrs(self):
        a = {"batch_size": self.batch_size}
        if self.drop_remainder:
            a["drop_remainder"] = True
        return a

    def cardinality(self):
        return batch_cardinality(self.inputs[0].cardinality(), self.batch_size,
                                 self.drop_remainder)

    def element_spec(self):
        return structure.batch_spec(self.inputs[0].element_spec(),
                                    self.batch_size if self.drop_remainder else None)

    def rewrite(self, options):
        up = self.inputs[0]
        if type(up) is MapNode:
            return MapBatchNode(up, self.batch_size, self.drop_remainder)
        from .filter import FilterNode
        if type(up) is FilterNode:
            # lazy door: fusion (to go to data/optimize.py)
            from .filter_batch import FilterBatchNode, fusable
            found = fusable(up)
            if found is not None:
                return FilterBatchNode(found[0], found[1], up, self.batch_size,
                                       self.drop_remainder)
        return self

    def stage(self, ctx):
        return BatchStage(ctx.stage(self.inputs[0]), self.batch_size, self.drop_remainder,
                          stacked_input)


class BatchStage(plan.Stage):
    """Gathers n elements (or raw records) and makes one batch of them with
    `make(raw)`. With `run_dropped` (after a fused map: a function of raw), a
    remainder that drop_remainder drops is still given to it, for its errors:
    TensorFlow maps it (map-and-batch also copies it into the batch) and reports a
    failure before it drops the batch."""

    def __init__(self, upstream, n, drop, make, run_dropped=None):
        self.upstreams = (upstream,)
        self._n, self._drop, self._make = n, drop, make
        self._run_dropped = run_dropped
        self._ended = False

    def __next__(self):
        if self._ended:
            raise StopIteration
        raw = self.upstreams[0].next_records(self._n)
        if raw is None or (self._drop and len(raw) < self._n):
            self._ended = True
            if raw is not None and len(raw) and self._run_dropped is not None:
                self._run_dropped(raw)
            raise StopIteration
        return self._make(raw)


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
            from .. import native
            how = "runs on C threads (lib/pipeline): %s" % native.describe(settings)
        elif self.fn.vectorized:
            how += " on Python threads (C pipeline not used: %s)" % reason
        return [self.fn.describe(), how]

    def c_route(self):
        from .. import native
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
            from .. import native
            return native.CStage(settings, self.batch_size, self.drop_remainder,
                                 ordered is not False, native.workers_for(self.map_node))
        up = ctx.stage(self.inputs[0])
        workers = self.map_node.workers(ctx)
        make = self.maker()
        if workers == 1:
            return BatchStage(up, self.batch_size, self.drop_remainder, make,
                              run_dropped=make)
        return _ParallelBatches(up, make, workers, ordered is not False, self.batch_size,
                                self.drop_remainder, run_dropped=make)


def run_with_lengths(fn, raw, n):
    """fn run batched on raw, with the record lengths of every parsed
    FixedLenSequenceFeature output: (out, {(address, shape): lengths})."""
    from ... import _parsing
    _parsing.LENGTHS.table = table = {}
    try:
        return fn.run_batch(stacked_input(raw), n), table
    finally:
        _parsing.LENGTHS.table = None


def lengths_of(table, a):
    a = np.asarray(a)
    return table.get((a.__array_interface__["data"][0], a.shape))


def varying_components(spec):
    """Indices of the leaves whose per-record shape is not fixed (SparseTensors and
    RaggedTensors batch whatever their shapes: not listed)."""
    if spec is None:
        return None
    return [c for c, s in enumerate(structure.flatten(spec))
            if (s.shape is None or None in s.shape) and not hasattr(s, "kind")]


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
            if not self.varying:
                return self.fn.run_batch(stacked_input(raw), n)
            out, table = run_with_lengths(self.fn, raw, n)
        except Exception:
            return self.per_record(raw)
        leaves = structure.flatten(out)
        from ..structured_function import STACKED
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


class _Dropped:
    """A remainder that drop_remainder drops, run through `run` only for its errors."""
    __slots__ = ("raw", "run")

    def __init__(self, raw, run):
        self.raw, self.run = raw, run


def _run_batches(task):
    make, items = task
    out = []
    for ok, raw in items:
        dropped = type(raw) is _Dropped
        if ok:
            try:
                raw = raw.run(raw.raw) if dropped else make(raw)
            except BaseException as e:
                ok, raw, dropped = False, e, False
        if not dropped:
            out.append((ok, raw))
    return out


class _ParallelBatches(ParallelStage):
    def __init__(self, upstream, make, workers, ordered, n, drop, run_dropped=None):
        super().__init__(upstream, _run_batches, make, workers, ordered, chunk=1)
        self._inflight = workers + 1  # whole batches: memory, not latency, is the limit
        self._n, self._drop = n, drop
        self._run_dropped = run_dropped

    def _gather(self):
        try:
            raw = self.upstreams[0].next_records(self._n)
        except StopIteration:
            raw = None
        except BaseException as e:
            return [(False, e)]
        if raw is None or (self._drop and len(raw) < self._n):
            self._ended = True
            if raw is not None and len(raw) and self._run_dropped is not None:
                return [(True, _Dropped(raw, self._run_dropped))]
            return []
        return [(True, raw)]


__all__ = ["BatchNode", "MapBatchNode", "stack", "stack_column", "stack_mapped"]

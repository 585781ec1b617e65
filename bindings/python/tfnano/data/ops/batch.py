"""batch(batch_size, drop_remainder), and what batching stages share (stacking,
the stage that gathers and makes batches, on threads or not). Its fusion with a
preceding map is data/fused.py's MapBatchNode (the rule is in data/optimize.py).

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
from .. import plan, structure
from ..workers import ParallelStage


def batch_cardinality(card, size, drop):
    if card < 0:
        return card
    return card // size if drop else -(-card // size)


from ..stacking import (elements, is_records, stack, stack_column,  # noqa: F401
                        stack_mapped, stacked_input)


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

    def notes(self):
        return ["joins columns" if self.inputs[0].columnar() else "stacks elements"]

    def stage(self, ctx):
        if self.inputs[0].columnar():
            from ..columns import BatchColumnsStage
            return BatchColumnsStage(ctx.stage(self.inputs[0]), self.batch_size,
                                     self.drop_remainder)
        return BatchStage(ctx.stage(self.inputs[0]), self.batch_size, self.drop_remainder,
                          stacked_input)


class BatchStage(plan.Stage):
    """Gathers n elements (or raw records) and makes one batch of them with
    `make(raw)`. With `run_dropped` (after a fused map: a function of raw), a
    remainder that drop_remainder drops is still given to it, for its errors:
    TensorFlow maps it (map-and-batch also copies it into the batch) and reports a
    failure before it drops the batch."""

    def __init__(self, upstream, n, drop, make, run_dropped=None, fill=False):
        self.upstreams = (upstream,)
        self._n, self._drop, self._make = n, drop, make
        self._run_dropped = run_dropped
        self._ended = False
        self._fill = fill

    def __next__(self):
        if self._ended:
            raise StopIteration
        if self._fill:
            raw = plan.gather_filling(self.upstreams[0], self._n)
        else:
            raw = self.upstreams[0].next_records(self._n)
        if raw is None or (self._drop and len(raw) < self._n):
            self._ended = True
            if raw is not None and len(raw) and self._run_dropped is not None:
                self._run_dropped(raw)
            raise StopIteration
        return self._make(raw)


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


class ParallelBatches(ParallelStage):
    def __init__(self, upstream, make, workers, ordered, n, drop, run_dropped=None,
                 fill=False):
        super().__init__(upstream, _run_batches, make, workers, ordered, chunk=1)
        self._fill = fill
        self._inflight = workers + 1  # whole batches: memory, not latency, is the limit
        self._n, self._drop = n, drop
        self._run_dropped = run_dropped

    def _gather(self):
        try:
            up = self.upstreams[0]
            # map-and-batch: an input error takes its slot and drops its whole batch
            raw = plan.gather_filling(up, self._n) if self._fill else up.next_records(self._n)
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


__all__ = ["BatchNode", "stack", "stack_column", "stack_mapped"]

"""ragged_batch(batch_size, drop_remainder, row_splits_dtype): components whose shape
is not fully known batched into RaggedTensors (rows of different lengths); scalars and
components of a fully known shape stacked densely, as TensorFlow's ragged_batch does.

After a traced map that vectorizes, the map runs once per batch: values of varying
length batched as rows (tf.strings.split and what elementwise ops, lookups and ngrams
make of it, see tfnano._trace) are the batch's RaggedTensors as they are."""
import numpy as np

from ..._tensor import as_tensor
from .. import composite, plan, structure
from .batch import BatchStage, batch_cardinality, elements, stack_column, stacked_input


def _fully_known(spec, shape):
    """True when `spec` (a leaf of the element spec, or None) gives a fully known
    shape, and `shape` (of a value) is that shape."""
    known = getattr(spec, "shape", None)
    return known is not None and None not in known and not hasattr(spec, "kind") and \
        tuple(shape) == tuple(known)


def _ragged_column(col, row_splits_dtype, spec=None):
    from ...ragged import RaggedTensor
    arrs = [np.asarray(x) for x in col]
    if arrs[0].ndim == 0 or all(_fully_known(spec, a.shape) for a in arrs):
        return stack_column(col)
    inner = arrs[0].shape[1:]
    for a in arrs:
        if a.shape[1:] != inner:
            from ... import errors
            raise errors.InvalidArgumentError(
                None, None, "ragged_batch: inner dimensions differ (%s vs %s)"
                % (list(inner), list(a.shape[1:])))
    values = np.concatenate(arrs) if arrs[0].dtype != object else \
        np.concatenate([a.astype(object) for a in arrs])
    lengths = np.asarray([len(a) for a in arrs], row_splits_dtype)
    return RaggedTensor.from_row_lengths(values, lengths)


def _ragged_stack(chunk, row_splits_dtype, spec):
    leaves = [structure.flatten(el) for el in chunk]
    specs = structure.flatten(spec) if spec is not None else [None] * len(leaves[0])
    cols = [_ragged_column([lv[c] for lv in leaves], row_splits_dtype, specs[c])
            for c in range(len(leaves[0]))]
    return structure.pack(chunk[0], cols)


def ragged_batch_spec(spec, size, row_splits_dtype):
    """The spec of ragged_batch's batches of elements of `spec` (TensorFlow's rules): a
    tensor of a fully known shape batches as batch does; one with unknown sizes becomes
    a RaggedTensor whose ragged dimensions reach its last unknown size (shape [None, 3]:
    ragged_rank 1; [3, None]: 2), with row_splits_dtype; a RaggedTensor gains one ragged
    dimension and keeps its own splits dtype; a SparseTensor batches as batch does.
    None when the input's spec, or one leaf's rank, is unknown."""
    from ..._trace import CompositeSpec, Spec
    if spec is None:
        return None
    leaves = structure.flatten(spec)
    if any(s is None or s.shape is None for s in leaves):
        return None

    def one(s):
        if isinstance(s, CompositeSpec):
            return s.batched(size)
        shape = (size,) + s.shape
        if None not in s.shape:
            return Spec(s.dtype, shape)
        last = max(i for i, d in enumerate(s.shape) if d is None)
        return CompositeSpec("ragged", s.dtype, shape, last + 1, row_splits_dtype)
    return structure.map_structure(one, spec)


class RaggedBatchNode(plan.Node):
    op = "ragged_batch"

    def __init__(self, input, batch_size, drop_remainder, row_splits_dtype, fused_map=None):
        super().__init__(input)
        from ... import dtypes
        self.size, self.drop = int(batch_size), bool(drop_remainder)
        self.splits = dtypes.as_dtype(row_splits_dtype).as_numpy_dtype
        self.fused_map = fused_map

    def attrs(self):
        return {"batch_size": self.size, "drop_remainder": self.drop}

    def notes(self):
        if self.fused_map is None:
            return []
        fn = self.fused_map.fn
        return ["fused with map: " + fn.describe(), "vectorized: one run of the graph per "
                "batch"]

    def cardinality(self):
        return batch_cardinality(self.inputs[0].cardinality(), self.size, self.drop)

    def element_spec(self):
        spec = (self.inputs[0] if self.fused_map is None else self.fused_map).element_spec()
        return ragged_batch_spec(spec, self.size if self.drop else None, self.splits)

    def stage(self, ctx):
        if self.fused_map is None:
            return _RaggedBatchStage(ctx.stage(self.inputs[0]), self)
        up = ctx.stage(self.inputs[0])
        make = _VectorizedRagged(self.fused_map.fn, self.splits)
        workers = self.fused_map.workers(ctx)
        if workers == 1:
            return BatchStage(up, self.size, self.drop, make)
        from .batch import ParallelBatches
        return ParallelBatches(up, make, workers, ctx.deterministic, self.size, self.drop)


class _RaggedBatchStage(plan.Stage):
    def __init__(self, upstream, node):
        self.upstreams = (upstream,)
        self._n = node
        self._spec = node.inputs[0].element_spec()

    def __next__(self):
        chunk = []
        for _ in range(self._n.size):
            try:
                chunk.append(next(self.upstreams[0]))
            except StopIteration:
                break
        if not chunk or (self._n.drop and len(chunk) < self._n.size):
            raise StopIteration
        return _ragged_stack(chunk, self._n.splits, self._spec)


class _VectorizedRagged:
    """map(f) + ragged_batch: f run once on the batch; rows are the batch's
    RaggedTensors, dense components of a fully known shape stack as they are. Anything
    else (parsed values of varying shape, composites) runs per element."""

    def __init__(self, fn, splits_dtype):
        self.fn, self.splits = fn, splits_dtype
        self.spec = fn.output_spec()
        self.per_element = self.spec is None

    def per_record(self, raw):
        fn = self.fn
        return _ragged_stack([fn(el) for el in elements(raw)], self.splits, self.spec)

    def __call__(self, raw):
        if self.per_element:
            return self.per_record(raw)
        n = len(raw)
        try:
            out = self.fn.run_batch(stacked_input(raw), n)
        except Exception:
            return self.per_record(raw)  # the failing element raises its own error
        from ...ragged import RaggedTensor
        res = []
        for s, v in zip(structure.flatten(self.spec), structure.flatten(out)):
            if composite.is_ragged(v) and not hasattr(s, "kind"):  # rows
                splits = np.asarray(v.row_splits).astype(self.splits)
                res.append(RaggedTensor.from_row_splits(v.values, splits, validate=False))
            elif not composite.is_composite(v) and _fully_known(s, np.shape(v)[1:]):
                res.append(as_tensor(np.asarray(v)))
            else:
                self.per_element = True
                return self.per_record(raw)
        return structure.pack(out, res)

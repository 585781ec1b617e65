"""ragged_batch(batch_size, drop_remainder, row_splits_dtype): components of rank >= 1
batched into RaggedTensors (rows of different lengths), scalars stacked densely."""
import numpy as np

from .. import plan, structure
from .batch import batch_cardinality, stack_column


def _ragged_column(col, row_splits_dtype):
    from ...ragged import RaggedTensor
    arrs = [np.asarray(x) for x in col]
    if arrs[0].ndim == 0:
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


class RaggedBatchNode(plan.Node):
    op = "ragged_batch"

    def __init__(self, input, batch_size, drop_remainder, row_splits_dtype):
        super().__init__(input)
        from ... import dtypes
        self.size, self.drop = int(batch_size), bool(drop_remainder)
        self.splits = dtypes.as_dtype(row_splits_dtype).as_numpy_dtype

    def attrs(self):
        return {"batch_size": self.size, "drop_remainder": self.drop}

    def cardinality(self):
        return batch_cardinality(self.inputs[0].cardinality(), self.size, self.drop)

    def element_spec(self):
        return None

    def stage(self, ctx):
        return _RaggedBatchStage(ctx.stage(self.inputs[0]), self)


class _RaggedBatchStage(plan.Stage):
    def __init__(self, upstream, node):
        self.upstreams = (upstream,)
        self._n = node

    def __next__(self):
        chunk = []
        for _ in range(self._n.size):
            try:
                chunk.append(next(self.upstreams[0]))
            except StopIteration:
                break
        if not chunk or (self._n.drop and len(chunk) < self._n.size):
            raise StopIteration
        leaves = [structure.flatten(el) for el in chunk]
        cols = [_ragged_column([lv[c] for lv in leaves], self._n.splits)
                for c in range(len(leaves[0]))]
        return structure.pack(chunk[0], cols)

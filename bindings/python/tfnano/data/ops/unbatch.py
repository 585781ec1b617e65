"""unbatch(): each batch split back into its elements."""
import numpy as np

from .. import composite, plan, structure


class UnbatchNode(plan.Node):
    op = "unbatch"

    def element_spec(self):
        return structure.unbatch_spec(self.inputs[0].element_spec())

    def stage(self, ctx):
        return _UnbatchStage(ctx.stage(self.inputs[0]))


class _UnbatchStage(plan.Stage):
    def __init__(self, upstream):
        self.upstreams = (upstream,)
        self._el = None
        self._leaves = ()
        self._i = self._n = 0

    def __next__(self):
        while self._i >= self._n:
            el = next(self.upstreams[0])
            self._el = el
            self._leaves = [_rows(x) for x in structure.flatten(el)]
            self._n = len(self._leaves[0]) if self._leaves else 0
            self._i = 0
        i = self._i
        self._i = i + 1
        return structure.pack(self._el, [structure.to_tensor(leaf[i]) for leaf in self._leaves])


def _rows(x):
    rows = composite.rows_of(x)  # SparseTensor / RaggedTensor: their elements
    return np.asarray(x) if rows is None else rows

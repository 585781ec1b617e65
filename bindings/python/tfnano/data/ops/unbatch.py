"""unbatch(): each batch split back into its elements."""
import numpy as np

from .. import composite, plan, structure


class UnbatchNode(plan.Node):
    op = "unbatch"

    def __init__(self, input):
        super().__init__(input)
        spec = input.element_spec()
        # as TensorFlow, when the dataset is made: a known scalar component cannot split
        leaves = [] if spec is None else structure.flatten(spec)
        if any(getattr(s, "shape", None) == () for s in leaves):
            raise ValueError("Cannot unbatch an input with scalar components.")
        known = None
        for s in leaves:
            first = s.shape[0] if getattr(s, "shape", None) else None
            if known is not None and first is not None and first != known:
                raise ValueError("`unbatch()` is only supported for datasets of elements "
                                 "whose components have a matching leading dimension. "
                                 "Encountered both %d and %d." % (known, first))
            known = first if known is None else known

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

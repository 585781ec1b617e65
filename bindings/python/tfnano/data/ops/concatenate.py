"""concatenate(other): the elements of this dataset, then those of `other`."""
from .. import plan, structure
from ..plan import UNKNOWN


class ConcatenateNode(plan.Node):
    op = "concatenate"

    def cardinality(self):
        a, b = (i.cardinality() for i in self.inputs)
        return a + b if a >= 0 and b >= 0 else UNKNOWN

    def element_spec(self):
        a, b = (i.element_spec() for i in self.inputs)
        return structure.merge_specs(a, b)

    def stage(self, ctx):
        return _ConcatStage(ctx, self.inputs)


class _ConcatStage(plan.Stage):
    def __init__(self, ctx, nodes):
        self._ctx, self._nodes = ctx, list(nodes)
        self.upstreams = ()

    def __next__(self):
        while True:
            if not self.upstreams:
                if not self._nodes:
                    raise StopIteration
                self.upstreams = (self._ctx.stage(self._nodes.pop(0)),)
            try:
                return next(self.upstreams[0])
            except StopIteration:
                self.close()
                self.upstreams = ()

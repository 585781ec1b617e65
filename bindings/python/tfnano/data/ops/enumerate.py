"""enumerate(start): (index, element) pairs, index int64."""
import numpy as np

from ..._tensor import as_tensor
from .. import plan


class EnumerateNode(plan.Node):
    op = "enumerate"

    def __init__(self, input, start):
        super().__init__(input)
        self.start = int(start)

    def attrs(self):
        return {"start": self.start}

    def cardinality(self):
        return self.inputs[0].cardinality()

    def element_spec(self):
        from ..._trace import Spec
        inner = self.inputs[0].element_spec()
        return None if inner is None else (Spec(np.int64, ()), inner)

    def stage(self, ctx):
        return _EnumerateStage(ctx.stage(self.inputs[0]), self.start)


class _EnumerateStage(plan.Stage):
    def __init__(self, upstream, start):
        self.upstreams = (upstream,)
        self._i = start

    def __next__(self):
        el = next(self.upstreams[0])
        i = self._i
        self._i = i + 1
        return (as_tensor(np.asarray(i, dtype=np.int64)), el)

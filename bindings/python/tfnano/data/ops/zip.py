"""Dataset.zip(datasets): tuples (or dicts) of the datasets' elements, as long as the
shortest."""
from .. import plan
from ..plan import UNKNOWN


class ZipNode(plan.Node):
    op = "zip"

    def __init__(self, inputs, keys=None):
        super().__init__(*inputs)
        self.keys = keys

    def attrs(self):
        return {"keys": self.keys} if self.keys else {}

    def cardinality(self):
        cards = [i.cardinality() for i in self.inputs]
        known = [c for c in cards if c >= 0]
        if len(known) == len(cards):
            return min(cards) if cards else 0
        return UNKNOWN if not known else min(known)

    def element_spec(self):
        specs = [i.element_spec() for i in self.inputs]
        if any(s is None for s in specs):
            return None
        return dict(zip(self.keys, specs)) if self.keys else tuple(specs)

    def stage(self, ctx):
        return _ZipStage([ctx.stage(i) for i in self.inputs], self.keys)


class _ZipStage(plan.Stage):
    def __init__(self, upstreams, keys):
        self.upstreams = tuple(upstreams)
        self._keys = keys

    def __next__(self):
        vals = [next(u) for u in self.upstreams]
        return dict(zip(self._keys, vals)) if self._keys else tuple(vals)

"""take(count): the first `count` elements (all when negative)."""
from .. import plan
from ..plan import INFINITE, UNKNOWN


class TakeNode(plan.Node):
    op = "take"

    def __init__(self, input, count):
        super().__init__(input)
        self.count = int(count)

    def attrs(self):
        return {"count": self.count}

    def cardinality(self):
        card, count = self.inputs[0].cardinality(), self.count
        if count < 0:
            return card
        if card == INFINITE:
            return count
        return min(count, card) if card >= 0 else UNKNOWN

    def columnar(self):
        return self.inputs[0].columnar()

    def stage(self, ctx):
        up = ctx.stage(self.inputs[0])
        if self.count >= 0 and self.columnar():
            from ..columns import TakeColumnsStage
            return TakeColumnsStage(up, self.count)
        return up if self.count < 0 else _TakeStage(up, self.count)


class _TakeStage(plan.Stage):
    def __init__(self, upstream, count):
        self.upstreams = (upstream,)
        self._left = count

    def __next__(self):
        if self._left <= 0:
            raise StopIteration
        el = next(self.upstreams[0])
        self._left -= 1
        return el

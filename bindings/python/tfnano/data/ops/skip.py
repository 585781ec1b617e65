"""skip(count): all but the first `count` elements (none when negative)."""
from .. import plan


class SkipNode(plan.Node):
    op = "skip"

    def __init__(self, input, count):
        super().__init__(input)
        self.count = int(count)

    def attrs(self):
        return {"count": self.count}

    def cardinality(self):
        card = self.inputs[0].cardinality()
        if card < 0:
            return card
        return 0 if self.count < 0 else max(0, card - self.count)

    def columnar(self):
        return self.inputs[0].columnar()

    def stage(self, ctx):
        if self.columnar():
            from ..columns import SkipColumnsStage
            return SkipColumnsStage(ctx.stage(self.inputs[0]), self.count)
        return _SkipStage(ctx.stage(self.inputs[0]), self.count)


class _SkipStage(plan.Stage):
    def __init__(self, upstream, count):
        self.upstreams = (upstream,)
        self._skip = count

    def __next__(self):
        up = self.upstreams[0]
        if self._skip < 0:
            for _ in up:
                pass
            raise StopIteration
        while self._skip > 0:
            next(up)
            self._skip -= 1
        return next(up)

"""repeat(count): the input `count` times (forever when None or negative)."""
from .. import plan
from ..plan import INFINITE


class RepeatNode(plan.Node):
    op = "repeat"

    def __init__(self, input, count):
        super().__init__(input)
        self.given = -1 if count is None else int(count)
        self.count = -1 if self.given < 0 else self.given

    def attrs(self):
        return {"count": self.count}

    def cardinality(self):
        card = self.inputs[0].cardinality()
        if self.count < 0:
            return 0 if card == 0 else INFINITE
        return card * self.count if card >= 0 else card

    def columnar(self):
        return self.inputs[0].columnar()

    def stage(self, ctx):
        if (self.given == 0 or self.given < -1) and _after_shuffle(self.inputs[0]):
            # TensorFlow fuses shuffle (and maps after it) with repeat into
            # ShuffleAndRepeat, whose iterator refuses such a count
            from ...errors import InvalidArgumentError
            raise InvalidArgumentError(None, None, "count must be greater than zero or "
                                       "equal to -1.")
        if self.columnar():
            from ..columns import RepeatColumnsStage
            node = self.inputs[0]
            return RepeatColumnsStage(lambda: ctx.stage(node), self.count)
        return _RepeatStage(ctx, self.inputs[0], self.count)


def _after_shuffle(node):
    while node.op == "map":
        node = node.inputs[0]
    return node.op == "shuffle"


class _RepeatStage(plan.Stage):
    def __init__(self, ctx, node, count):
        self._ctx, self._node, self._left = ctx, node, count
        self.upstreams = ()
        self._seen = True

    def __next__(self):
        while True:
            if not self.upstreams:
                if self._left == 0 or not self._seen:
                    raise StopIteration  # done, or an empty epoch under repeat()
                if self._left > 0:
                    self._left -= 1
                self.upstreams = (self._ctx.stage(self._node),)
                self._seen = False
            try:
                el = next(self.upstreams[0])
            except StopIteration:
                self.close()
                self.upstreams = ()
                continue
            self._seen = True
            return el

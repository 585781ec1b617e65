"""prefetch(buffer_size): the input produced on a background thread, up to
`buffer_size` elements ahead (AUTOTUNE: 2). Errors are passed on as elements."""
from .. import plan
from ..plan import AUTOTUNE
from ..workers import Producer


class PrefetchNode(plan.Node):
    op = "prefetch"

    def __init__(self, input, buffer_size):
        super().__init__(input)
        self.buffer_size = buffer_size

    def attrs(self):
        return {"buffer_size": self.buffer_size}

    def cardinality(self):
        return self.inputs[0].cardinality()

    def stage(self, ctx):
        size = 2 if self.buffer_size in (None, AUTOTUNE) else max(1, int(self.buffer_size))
        return _PrefetchStage(ctx.stage(self.inputs[0]), size)


class _PrefetchStage(plan.Stage):
    def __init__(self, upstream, size):
        self._p = Producer(upstream, size)

    def __next__(self):
        return self._p.next()

    def close(self):
        self._p.close()

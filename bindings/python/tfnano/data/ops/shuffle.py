"""shuffle(buffer_size, seed, reshuffle_each_iteration): each output is drawn at
random from a buffer of `buffer_size` elements, refilled from the input."""
import random as _random

from ... import errors
from .. import plan
from ..plan import AUTOTUNE


class ShuffleNode(plan.Node):
    op = "shuffle"

    def __init__(self, input, buffer_size, seed=None, reshuffle_each_iteration=None):
        super().__init__(input)
        buffer_size = int(buffer_size)
        if buffer_size <= 0 and buffer_size != AUTOTUNE:
            raise errors.invalid("buffer_size must be greater than "
                                 "zero.")
        self.buffer_size = buffer_size if buffer_size > 0 else 1024
        self.reshuffle = True if reshuffle_each_iteration is None else \
            bool(reshuffle_each_iteration)
        self.seed = seed if seed is not None else _random.randrange(1 << 62)
        self.epochs = [0]  # shared by the plan's copies: one count per pipeline

    def attrs(self):
        return {"buffer_size": self.buffer_size, "reshuffle_each_iteration": self.reshuffle}

    def cardinality(self):
        return self.inputs[0].cardinality()

    def stage(self, ctx):
        epoch = self.epochs[0]
        if self.reshuffle:
            self.epochs[0] += 1
        rng = _random.Random(self.seed * 1000003 + (epoch if self.reshuffle else 0))
        return _ShuffleStage(ctx.stage(self.inputs[0]), self.buffer_size, rng)


class _ShuffleStage(plan.Stage):
    def __init__(self, upstream, size, rng):
        self.upstreams = (upstream,)
        self._size, self._rng = size, rng
        self._buf = []
        self._ended = False

    def __next__(self):
        buf, rng = self._buf, self._rng
        while not self._ended and len(buf) < self._size:
            try:
                buf.append(next(self.upstreams[0]))
            except StopIteration:
                self._ended = True
        if not buf:
            raise StopIteration
        i = rng.randrange(len(buf))
        if not self._ended:
            out = buf[i]
            buf[i] = buf[-1]
            buf.pop()
            return out
        buf[i], buf[-1] = buf[-1], buf[i]
        return buf.pop()

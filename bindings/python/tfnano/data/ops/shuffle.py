"""shuffle(buffer_size, seed, reshuffle_each_iteration): each output is drawn at
random from a buffer of `buffer_size` elements, refilled from the input. The draws and
the buffer's discipline are TensorFlow's (ShuffleDataset), so a seeded shuffle gives
TensorFlow's order."""
from ... import errors
from .. import plan
from ..plan import AUTOTUNE
from .random_seeds import SeedGenerator


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
        self.seeds = SeedGenerator(seed, self.reshuffle)  # shared by the plan's copies

    def attrs(self):
        return {"buffer_size": self.buffer_size, "reshuffle_each_iteration": self.reshuffle}

    def cardinality(self):
        return self.inputs[0].cardinality()

    def stage(self, ctx):
        words = self.seeds.next_words()
        if self.columnar():  # the same order, moving element numbers, not elements
            from ..columns import ShuffleColumnsStage
            return ShuffleColumnsStage(ctx.stage(self.inputs[0]), self.buffer_size,
                                       words.next_below)
        return _ShuffleStage(ctx.stage(self.inputs[0]), self.buffer_size, words)

    def columnar(self):
        return self.inputs[0].columnar()

    def notes(self):
        return ["moves columns" if self.columnar() else "moves elements"]


class _ShuffleStage(plan.Stage):
    """TensorFlow's buffer: a ring of `size` slots holding the elements start..end; the
    output is a random one of them, whose slot then takes the oldest element."""

    def __init__(self, upstream, size, rng):
        self.upstreams = (upstream,)
        self._size, self._rng = size, rng
        self._ring = [None] * size
        self._start = self._end = 0
        self._ended = False

    def __next__(self):
        ring, size = self._ring, self._size
        while not self._ended and self._end - self._start < size:
            try:
                ring[self._end % size] = next(self.upstreams[0])
                self._end += 1
            except StopIteration:
                self._ended = True
        if self._start == self._end:
            raise StopIteration
        i = (self._start + self._rng.next_below(self._end - self._start)) % size
        first = self._start % size
        out = ring[i]
        ring[i], ring[first] = ring[first], None
        self._start += 1
        return out

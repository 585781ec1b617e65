"""The random source of tf.data's seeded ops, as TensorFlow's kernels draw it.

A dataset op takes its two seeds from TensorFlow's rule when it is built
(``tf.random``'s get_seed: global and op seed; none at all means fresh seeds). Then:
- ``SeedGenerator``: TensorFlow's RandomSeedGenerator / FixedSeedGenerator: each new
  iterator (each epoch) gets two seeds, the next two 32-bit words of
  Philox(seed, seed2) when the op reshuffles each iteration, else (seed, seed2) itself;
- ``Words``: an iterator's own stream, Philox(seed, seed2) one 32-bit word at a time
  (TensorFlow's SingleSampleAdapter), e.g. ``next_below(n)`` = word % n, which is how
  ShuffleDataset picks a buffer slot."""
from ...ops import philox as _philox
from ...ops import random_ops


def op_seeds(seed):
    """The (seed, seed2) a dataset op built now gets: TensorFlow's pair, or two fresh
    random 64-bit seeds where TensorFlow passes (0, 0)."""
    s1, s2 = random_ops.get_seed(seed)
    if s1 is None or (s1 == 0 and s2 == 0):
        return random_ops.fresh_seeds()
    return s1, s2


class Words:
    """One 32-bit word at a time from Philox(seed, seed2), fetched in blocks."""

    _BLOCKS = 64

    def __init__(self, seed, seed2):
        self._gen = _philox.Philox.from_seeds(seed, seed2)
        self._buf, self._i = [], 0

    def next(self):
        if self._i == len(self._buf):
            self._buf, self._i = self._gen.blocks(self._BLOCKS).reshape(-1).tolist(), 0
        self._i += 1
        return self._buf[self._i - 1]

    def next_below(self, n):
        return self.next() % n


class SeedGenerator:
    """The seeds of each new iterator of one dataset op (shared by its plan's copies)."""

    def __init__(self, seed, reshuffle):
        self.seeds = op_seeds(seed)
        self._words = Words(*self.seeds) if reshuffle else None

    def next_words(self):
        """The word stream of the next iterator."""
        if self._words is None:
            return Words(*self.seeds)
        return Words(self._words.next(), self._words.next())

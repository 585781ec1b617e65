"""shard(num_shards, index): every num_shards-th element starting at index, with
TensorFlow's argument checks."""
from ... import errors
from .. import plan


class ShardNode(plan.Node):
    op = "shard"

    def __init__(self, input, num_shards, index):
        super().__init__(input)
        num_shards, index = int(num_shards), int(index)
        if num_shards <= 0:
            raise errors.invalid("Number of shards must be greater "
                                 "than zero (currently num_shards = %d)."
                                 % num_shards)
        if index < 0 or index >= num_shards:
            raise errors.invalid("Index must be between 0 and %d "
                                 "(currently index = %d)."
                                 % (num_shards - 1, index))
        self.num_shards, self.index = num_shards, index

    def attrs(self):
        return {"num_shards": self.num_shards, "index": self.index}

    def cardinality(self):
        card = self.inputs[0].cardinality()
        if card < 0:
            return card
        return card // self.num_shards + (1 if card % self.num_shards > self.index else 0)

    def stage(self, ctx):
        return _ShardStage(ctx.stage(self.inputs[0]), self.num_shards, self.index)


class _ShardStage(plan.Stage):
    def __init__(self, upstream, num_shards, index):
        self.upstreams = (upstream,)
        self._n, self._index = num_shards, index
        self._pos = 0

    def __next__(self):
        up = self.upstreams[0]
        while True:
            pos = self._pos
            el = next(up)
            self._pos = pos + 1
            if pos % self._n == self._index:
                return el

"""``tf.data.experimental.AutoShardPolicy`` and ``DistributeOptions``.

tfnano runs one input pipeline (one worker, one replica: the tf.distribute stand-in's
strategy), so automatic sharding never has more than one shard to make and the policy
is accepted and kept without changing the elements; ``Dataset.shard(n, i)`` shards
explicitly."""
import enum


class AutoShardPolicy(enum.IntEnum):
    """TensorFlow's values: OFF=-1, AUTO=0, FILE=1, DATA=2, HINT=3."""
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class ExternalStatePolicy(enum.IntEnum):
    WARN = 0
    IGNORE = 1
    FAIL = 2


class DistributeOptions:
    """``tf.data.experimental.DistributeOptions``: auto_shard_policy (AUTO) and
    num_devices, accepted for compatibility."""

    def __init__(self):
        self.auto_shard_policy = None
        self.num_devices = None

    def __repr__(self):
        return "DistributeOptions(auto_shard_policy=%r, num_devices=%r)" % (
            self.auto_shard_policy, self.num_devices)

"""tfnano.data.ops.distribute_options: AutoShardPolicy and DistributeOptions."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_the_policy_is_kept_and_the_elements_unchanged():
    opts = tf.data.Options()
    opts.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    ds = tf.data.Dataset.range(4).with_options(opts)
    assert ds.options().experimental_distribute.auto_shard_policy == \
        tf.data.experimental.AutoShardPolicy.DATA
    assert vals(ds) == [0, 1, 2, 3]


def test_the_policies_are_tensorflows():
    P = tf.data.experimental.AutoShardPolicy
    assert (P.OFF, P.AUTO, P.FILE, P.DATA) == (-1, 0, 1, 2)

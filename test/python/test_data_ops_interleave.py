"""tfnano.data.ops.interleave: interleave."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_the_order_of_cycle_and_block_lengths():
    ds = tf.data.Dataset.range(1, 4).interleave(
        lambda x: tf.data.Dataset.from_tensors(x).repeat(3), cycle_length=2, block_length=2)
    assert vals(ds) == [1, 1, 2, 2, 1, 2, 3, 3, 3]


def test_cycle_length_one_is_flat_map():
    ds = tf.data.Dataset.range(3).interleave(lambda x: tf.data.Dataset.range(x), cycle_length=1)
    assert vals(ds) == [0, 0, 1]

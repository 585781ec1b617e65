"""tfnano.data.ops.shuffle: shuffle."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_a_seeded_permutation_that_reshuffles_each_epoch():
    ds = tf.data.Dataset.range(20).shuffle(20, seed=7)
    first, second = vals(ds), vals(ds)
    assert sorted(first) == list(range(20)) and sorted(second) == list(range(20))
    assert first != second
    fixed = tf.data.Dataset.range(20).shuffle(20, seed=7, reshuffle_each_iteration=False)
    assert vals(fixed) == vals(fixed)


def test_a_buffer_of_one_keeps_the_order():
    assert vals(tf.data.Dataset.range(6).shuffle(1)) == list(range(6))

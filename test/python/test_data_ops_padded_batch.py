"""tfnano.data.ops.padded_batch: padded_batch."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_pads_to_the_longest_of_each_batch():
    ds = tf.data.Dataset.range(1, 5).map(lambda x: tf.fill([x], x)).padded_batch(2)
    assert vals(ds) == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]]


def test_padded_shapes_and_padding_values():
    ds = tf.data.Dataset.range(1, 3).map(lambda x: tf.fill([x], x))
    out = ds.padded_batch(2, padded_shapes=[4], padding_values=tf.constant(-1, tf.int64))
    assert vals(out) == [[[1, -1, -1, -1], [2, 2, -1, -1]]]

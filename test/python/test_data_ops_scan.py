"""tfnano.data.ops.scan: Dataset.scan."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_a_running_sum():
    ds = tf.data.Dataset.range(5).scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s + x))
    assert vals(ds) == [0, 1, 3, 6, 10]

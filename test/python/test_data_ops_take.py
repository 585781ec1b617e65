"""tfnano.data.ops.take: take."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_take_some_and_all():
    assert vals(tf.data.Dataset.range(10).take(3)) == [0, 1, 2]
    assert vals(tf.data.Dataset.range(3).take(-1)) == [0, 1, 2]
    assert tf.data.Dataset.range(10).take(3).cardinality() == 3

"""tfnano.data.ops.skip: skip."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_skip_some_all_and_none():
    assert vals(tf.data.Dataset.range(6).skip(4)) == [4, 5]
    assert vals(tf.data.Dataset.range(6).skip(10)) == []
    assert vals(tf.data.Dataset.range(3).skip(0)) == [0, 1, 2]
    assert tf.data.Dataset.range(6).skip(4).cardinality() == 2

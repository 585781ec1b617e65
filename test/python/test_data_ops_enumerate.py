"""tfnano.data.ops.enumerate: enumerate."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_pairs_with_a_start():
    ds = tf.data.Dataset.from_tensor_slices([7, 8, 9]).enumerate(start=5)
    assert [(int(i), int(v)) for i, v in ds.as_numpy_iterator()] == [(5, 7), (6, 8), (7, 9)]

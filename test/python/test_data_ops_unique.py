"""tfnano.data.ops.unique: Dataset.unique."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_first_occurrences_in_order():
    ds = tf.data.Dataset.from_tensor_slices([1, 37, 2, 37, 2, 1]).unique()
    assert vals(ds) == [1, 37, 2]

"""tfnano.data.ops.unbatch: unbatch."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_batches_split_back_into_elements():
    ds = tf.data.Dataset.range(7).batch(3).unbatch()
    assert vals(ds) == list(range(7))

"""tfnano.data.ops.ragged_batch: ragged_batch."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_rows_of_different_lengths_make_a_ragged_batch():
    ds = tf.data.Dataset.range(1, 4).map(lambda x: tf.range(x)).ragged_batch(2)
    batches = list(ds)
    assert batches[0].to_list() == [[0], [0, 1]]
    assert batches[1].to_list() == [[0, 1, 2]]

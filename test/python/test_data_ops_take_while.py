"""tfnano.data.ops.take_while: Dataset.take_while."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_stops_at_the_first_false():
    ds = tf.data.Dataset.from_tensor_slices([1, 2, 5, 1, 2]).take_while(lambda x: x < 3)
    assert vals(ds) == [1, 2]

"""tfnano.data.ops.concatenate: concatenate."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_the_second_follows_the_first():
    a, b = tf.data.Dataset.range(1, 4), tf.data.Dataset.range(4, 8)
    ds = a.concatenate(b)
    assert vals(ds) == [1, 2, 3, 4, 5, 6, 7]
    assert ds.cardinality() == 7


def test_concatenate_of_strings_and_chained():
    a = tf.data.Dataset.from_tensor_slices([b"x"])
    b = tf.data.Dataset.from_tensor_slices([b"y", b"z"])
    assert vals(a.concatenate(b).concatenate(a)) == [b"x", b"y", b"z", b"x"]

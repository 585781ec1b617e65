"""tfnano.data.ops.sources: range, from_tensor_slices, from_tensors, from_generator."""
import numpy as np
import pytest

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_range_forms():
    assert vals(tf.data.Dataset.range(3)) == [0, 1, 2]
    assert vals(tf.data.Dataset.range(2, 8, 3)) == [2, 5]
    assert vals(tf.data.Dataset.range(5, 1, -2)) == [5, 3]


def test_slices_and_tensors():
    assert vals(tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4]])) == [[1, 2], [3, 4]]
    assert vals(tf.data.Dataset.from_tensors([1, 2])) == [[1, 2]]


def test_slices_of_unequal_lengths_are_refused():
    with pytest.raises((ValueError, tf.errors.InvalidArgumentError)):
        tf.data.Dataset.from_tensor_slices(([1, 2], [1, 2, 3]))

"""tfnano.data.ops.typed_generator: from_generator with output_signature / output_types."""
import numpy as np
import pytest

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_yielded_values_take_the_declared_dtype():
    ds = tf.data.Dataset.from_generator(lambda: iter([1, 2]),
                                        output_signature=tf.TensorSpec([], tf.float32))
    got = list(ds.as_numpy_iterator())
    assert [float(x) for x in got] == [1.0, 2.0] and got[0].dtype == np.float32


def test_a_value_of_the_wrong_shape_fails():
    ds = tf.data.Dataset.from_generator(lambda: iter([[1, 2]]),
                                        output_signature=tf.TensorSpec([3], tf.int64))
    with pytest.raises((tf.errors.InvalidArgumentError, TypeError, ValueError)):
        vals(ds)

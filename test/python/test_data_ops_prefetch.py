"""tfnano.data.ops.prefetch: prefetch."""
import numpy as np
import pytest

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_values_and_errors_pass_through_in_order():
    assert vals(tf.data.Dataset.range(5).prefetch(2)) == [0, 1, 2, 3, 4]
    ds = tf.data.Dataset.from_tensor_slices([b"1", b"x"]).map(
        tf.strings.to_number).prefetch(tf.data.AUTOTUNE)
    it = iter(ds)
    assert float(next(it)) == 1.0
    with pytest.raises(tf.errors.InvalidArgumentError):
        next(it)

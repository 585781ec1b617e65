"""tfnano.data.ops.ignore_errors: ignore_errors."""
import numpy as np
import pytest

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_the_failing_elements_are_dropped():
    ds = tf.data.Dataset.from_tensor_slices([b"1", b"x", b"2"]).map(tf.strings.to_number)
    assert vals(ds.ignore_errors()) == [1.0, 2.0]
    with pytest.raises(tf.errors.InvalidArgumentError):
        vals(ds)

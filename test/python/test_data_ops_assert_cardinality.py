"""tfnano.data.ops.assert_cardinality: tf.data.experimental.assert_cardinality."""
import numpy as np
import pytest

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_the_right_count_passes_and_is_the_cardinality():
    ds = tf.data.Dataset.range(4).filter(lambda x: x < 10)
    checked = ds.apply(tf.data.experimental.assert_cardinality(4))
    assert checked.cardinality() == 4
    assert vals(checked) == [0, 1, 2, 3]


def test_too_few_or_too_many_elements_fail():
    with pytest.raises(tf.errors.FailedPreconditionError):
        vals(tf.data.Dataset.range(3).apply(tf.data.experimental.assert_cardinality(5)))
    with pytest.raises(tf.errors.FailedPreconditionError):
        vals(tf.data.Dataset.range(6).apply(tf.data.experimental.assert_cardinality(5)))

"""tfnano.data.ops.window: Dataset.window."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_windows_with_shift_and_drop_remainder():
    ds = tf.data.Dataset.range(7).window(3, shift=2, drop_remainder=True)
    assert [vals(w) for w in ds] == [[0, 1, 2], [2, 3, 4], [4, 5, 6]]


def test_the_last_windows_are_short_without_drop_remainder():
    ds = tf.data.Dataset.range(5).window(2)
    assert [vals(w) for w in ds] == [[0, 1], [2, 3], [4]]

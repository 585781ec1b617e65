"""tfnano.data.ops.group_by_window: Dataset.group_by_window."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_windows_per_key():
    ds = tf.data.Dataset.range(10).group_by_window(
        key_func=lambda x: x % 2, reduce_func=lambda key, w: w.batch(10), window_size=3)
    got = sorted(v.tolist() for v in ds.as_numpy_iterator())
    assert got == [[0, 2, 4], [1, 3, 5], [6, 8], [7, 9]]

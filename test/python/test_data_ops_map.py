"""tfnano.data.ops.map: map."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_map_over_tuples_and_dicts():
    ds = tf.data.Dataset.from_tensor_slices({"a": [1, 2], "b": [10, 20]})
    swapped = ds.map(lambda d: {"a": d["b"], "b": d["a"]})
    assert [(int(d["a"]), int(d["b"])) for d in swapped.as_numpy_iterator()] == [(10, 1), (20, 2)]
    pairs = tf.data.Dataset.from_tensor_slices(([1, 2], [3, 4])).map(lambda x, y: x * y)
    assert vals(pairs) == [3, 8]


def test_parallel_map_keeps_the_order():
    ds = tf.data.Dataset.range(50).map(lambda x: x + 1, num_parallel_calls=tf.data.AUTOTUNE)
    assert vals(ds) == list(range(1, 51))

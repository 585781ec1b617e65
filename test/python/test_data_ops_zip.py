"""tfnano.data.ops.zip: zip."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_zip_stops_at_the_shortest():
    a, b = tf.data.Dataset.range(1, 4), tf.data.Dataset.range(4, 9)
    ds = tf.data.Dataset.zip((a, b))
    assert [(int(x), int(y)) for x, y in ds.as_numpy_iterator()] == [(1, 4), (2, 5), (3, 6)]
    assert ds.cardinality() == 3


def test_a_dict_of_datasets():
    a = tf.data.Dataset.range(2)
    ds = tf.data.Dataset.zip({"x": a, "y": a.map(lambda v: v * 10)})
    assert [(int(d["x"]), int(d["y"])) for d in ds.as_numpy_iterator()] == [(0, 0), (1, 10)]

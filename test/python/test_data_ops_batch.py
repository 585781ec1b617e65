"""tfnano.data.ops.batch: batch."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_batches_and_the_short_last_one():
    assert vals(tf.data.Dataset.range(7).batch(3)) == [[0, 1, 2], [3, 4, 5], [6]]


def test_drop_remainder_and_cardinality():
    ds = tf.data.Dataset.range(7).batch(3, drop_remainder=True)
    assert vals(ds) == [[0, 1, 2], [3, 4, 5]]
    assert ds.cardinality() == 2


def test_batched_tuples_keep_their_structure():
    ds = tf.data.Dataset.from_tensor_slices(([1, 2, 3, 4], [b"a", b"b", b"c", b"d"])).batch(2)
    (x, s), _ = list(ds.as_numpy_iterator())
    assert x.tolist() == [1, 2] and s.tolist() == [b"a", b"b"]

"""tfnano.data.ops.filter: filter."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_keeps_what_the_predicate_accepts():
    assert vals(tf.data.Dataset.range(10).filter(lambda x: x % 3 == 0)) == [0, 3, 6, 9]


def test_a_predicate_on_tuples():
    ds = tf.data.Dataset.from_tensor_slices(([1, 2, 3], [b"a", b"b", b"c"]))
    kept = ds.filter(lambda n, s: n != 2)
    assert [(int(n), bytes(s)) for n, s in kept.as_numpy_iterator()] == [(1, b"a"), (3, b"c")]

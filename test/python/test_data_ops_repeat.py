"""tfnano.data.ops.repeat: repeat."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_repeat_a_count_and_forever():
    assert vals(tf.data.Dataset.range(2).repeat(3)) == [0, 1, 0, 1, 0, 1]
    forever = tf.data.Dataset.range(2).repeat()
    assert forever.cardinality() == tf.data.experimental.INFINITE_CARDINALITY
    assert vals(forever.take(5)) == [0, 1, 0, 1, 0]

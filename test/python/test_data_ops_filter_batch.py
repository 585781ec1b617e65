"""tfnano.data.ops.filter_batch: [map.]filter.batch fused and vectorized."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_the_fused_chain_gives_the_element_by_element_result():
    ds = tf.data.Dataset.range(20).map(lambda x: x * 3).filter(lambda x: x % 2 == 0).batch(4)
    assert vals(ds) == [[0, 6, 12, 18], [24, 30, 36, 42], [48, 54]]


def test_the_same_with_drop_remainder():
    ds = tf.data.Dataset.range(20).filter(lambda x: x > 4).batch(4, drop_remainder=True)
    assert vals(ds) == [[5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]

"""tfnano.data.ops.sample: sample_from_datasets, choose_from_datasets."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_choose_follows_the_choices():
    data = [tf.data.Dataset.from_tensors("a").repeat(), tf.data.Dataset.from_tensors("b").repeat()]
    choice = tf.data.Dataset.from_tensor_slices(tf.constant([0, 1, 1, 0], tf.int64))
    ds = tf.data.Dataset.choose_from_datasets(data, choice)
    assert vals(ds) == [b"a", b"b", b"b", b"a"]


def test_sample_draws_every_element_once_with_weights():
    a, b = tf.data.Dataset.range(0, 5), tf.data.Dataset.range(100, 105)
    ds = tf.data.Dataset.sample_from_datasets([a, b], weights=[0.5, 0.5], seed=1)
    got = vals(ds)
    assert sorted(got) == list(range(5)) + list(range(100, 105))
    assert [x for x in got if x < 100] == list(range(5))

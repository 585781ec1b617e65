"""tf.random on Philox-4x32-10: the generator's known answer, the C and numpy forms
agreeing, and a few values recorded from TensorFlow 2.21 (test/conformance/
test_random_tf.py compares every op with TensorFlow itself)."""
import numpy as np
import pytest

import tfnano as tf
from tfnano.ops import philox as _philox


def test_philox_known_answer():
    assert _philox.philox_blocks((0, 0), 0, 1)[0].tolist() == [
        0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]


def test_philox_counter_carries_across_words():
    start = (1 << 64) - 2  # the low half wraps after two blocks
    seq = _philox.philox_blocks((7, 9), start, 5)
    words = np.array([[(c >> (32 * i)) & 0xFFFFFFFF for i in range(4)]
                      for c in range(start, start + 5)], dtype=np.uint32)
    assert np.array_equal(_philox.philox_at((7, 9), words), seq)


def test_single_sample_adapter_takes_words_in_order():
    gen = _philox.Philox.from_seeds(5, 6)
    whole = gen.copy().blocks(3).reshape(-1)
    one = _philox.SingleSample(gen)
    got = np.concatenate([one.take(1), one.take(6), one.take(5)])
    assert np.array_equal(got, whole)


def test_stateless_values_recorded_from_tensorflow():
    u = tf.random.stateless_uniform([4], seed=[1, 2]).numpy()
    assert u.view(np.uint32).tolist() == [1062736984, 1044686728, 1065289852, 1042562200]
    d = tf.random.stateless_normal([2], seed=[1, 2], dtype=tf.float64).numpy()
    assert d.tolist() == [-0.1423118100189212, 0.7406072461585091]
    i = tf.random.stateless_uniform([3], seed=[7, 8], minval=0, maxval=10, dtype=tf.int32)
    assert i.numpy().tolist() == [9, 8, 9]


def test_seeded_stateful_values_recorded_from_tensorflow():
    tf.random.set_seed(1)
    a = tf.random.uniform([2]).numpy().view(np.uint32).tolist()
    b = tf.random.uniform([2], seed=3).numpy().view(np.uint32).tolist()
    assert (a, b) == ([1042880528, 1063700346], [1061641854, 1062017868])


def test_truncated_normal_stays_within_two_stddevs():
    v = tf.random.stateless_truncated_normal([5000], seed=[3, 4]).numpy()
    assert v.dtype == np.float32 and np.abs(v).max() < 2.0
    assert 0.7 < v.std() < 0.95


def test_op_stream_continues_and_set_seed_restarts_it():
    tf.random.set_seed(11)
    first = [tf.random.normal([3], seed=2).numpy() for _ in range(2)]
    assert not np.array_equal(first[0], first[1])
    tf.random.set_seed(11)
    assert np.array_equal(tf.random.normal([3], seed=2).numpy(), first[0])


@pytest.mark.parametrize("shape", [(1,), (7,), (4, 3)])
def test_random_shuffle_is_a_permutation(shape):
    tf.random.set_seed(3)
    x = np.arange(int(np.prod(shape))).reshape(shape)
    got = tf.random.shuffle(x).numpy()
    assert sorted(got.reshape(-1).tolist()) == x.reshape(-1).tolist()
    assert got.shape == x.shape


def test_split_and_fold_in_keep_the_seed_dtype():
    assert tf.random.split([1, 2], 3).numpy().dtype == np.int32
    assert tf.random.fold_in(np.array([1, 2], np.int64), np.int64(5)).numpy()[1] == 5

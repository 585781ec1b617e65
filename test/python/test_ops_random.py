"""tf.random: TensorFlow's seeding rules (repeatable with set_seed, streams continue,
stateless ops pure), dtypes, shapes and ranges; traced draws are fresh per record."""
import numpy as np
import pytest

import tfnano as tf
from tfnano import _trace


def test_set_seed_repeats_and_streams_continue():
    tf.random.set_seed(7)
    a, b = tf.random.uniform([3]), tf.random.uniform([3])
    tf.random.set_seed(7)
    assert tf.random.uniform([3]).tolist() == a.tolist()
    assert tf.random.uniform([3]).tolist() == b.tolist()
    assert a.tolist() != b.tolist()
    tf.random.set_seed(7)
    c, d = tf.random.normal([2], seed=3), tf.random.normal([2], seed=3)
    assert c.tolist() != d.tolist()  # one op seed: a stream, not one value
    tf.random.set_seed(7)
    assert tf.random.normal([2], seed=3).tolist() == c.tolist()


def test_dtypes_shapes_ranges():
    u = tf.random.uniform([1000], minval=2, maxval=5)
    assert u.dtype == np.float32 and u.shape == (1000,) and u.min() >= 2 and u.max() < 5
    i = tf.random.uniform([1000], maxval=3, dtype=tf.int64)
    assert i.dtype == np.int64 and set(i.tolist()) == {0, 1, 2}
    with pytest.raises(ValueError, match="Must specify maxval for integer dtype"):
        tf.random.uniform([2], dtype=tf.int32)
    t = tf.random.truncated_normal([2000], stddev=2.0)
    assert np.abs(t).max() <= 4.0 and t.dtype == np.float32
    assert tf.random.normal([2, 3], dtype=tf.float64).dtype == np.float64
    s = tf.random.shuffle(tf.range(10))
    assert sorted(s.tolist()) == list(range(10)) and s.dtype == np.int32


def test_stateless_ops_are_pure():
    a = tf.random.stateless_uniform([4], seed=[1, 2])
    assert a.tolist() == tf.random.stateless_uniform([4], seed=[1, 2]).tolist()
    assert a.tolist() != tf.random.stateless_uniform([4], seed=[1, 3]).tolist()
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"seed must have shape \[2\]"):
        tf.random.stateless_uniform([2], seed=[1])
    n = tf.random.stateless_normal([3], seed=(5, 6))
    assert n.tolist() == tf.random.stateless_normal([3], seed=(5, 6)).tolist()


def test_traced_random_draws_per_record():
    g = _trace.trace(lambda x: tf.cast(x, tf.float32) + tf.random.uniform([]),
                     _trace.Spec(np.int64, ()), call_args=False)
    assert any(n.op.name == "random.uniform" for n in g.nodes)
    out = g.run(np.zeros(64, np.int64), batched=True)
    assert out.shape == (64,) and len(set(out.tolist())) > 50  # fresh values per record


def test_generator_draws_every_distribution():
    # tf.random.Generator keeps its own stream (not TensorFlow's for the same seed):
    # shapes, dtypes, ranges, and the same numbers again from the same seed
    a, b = tf.random.Generator.from_seed(3), tf.random.Generator.from_seed(3)
    n = a.normal([2, 3])
    assert n.shape == (2, 3) and n.numpy().dtype == np.float32
    assert np.array_equal(n.numpy(), b.normal([2, 3]).numpy())
    u = a.uniform([50], maxval=5, dtype=tf.int32).numpy()
    assert u.dtype == np.int32 and u.min() >= 0 and u.max() < 5
    t = a.truncated_normal([100]).numpy()
    assert np.all(np.abs(t) <= 2.0)

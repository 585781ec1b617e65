"""tfnano.ops: array ops and Tensor operators with TensorFlow's dtypes, shapes and
errors; traced versions give per record and per batch what eager gives."""
import numpy as np
import pytest

import tfnano as tf
import tfnano.ops  # noqa: F401 - fills _trace.OPERATORS (the tf.data planner does too)
from tfnano import _trace
from tfnano.errors import InvalidArgumentError


def test_operators_follow_tensorflow_dtype_rules():
    a = tf.constant([1, 2])
    assert (a / a).dtype == np.float64
    assert (tf.constant([1], tf.int8) / tf.constant([2], tf.int8)).dtype == np.float32
    assert (a + 1).dtype == np.int32
    assert (a + np.array([1, 2], np.int64)).dtype == np.int32  # numpy takes the Tensor's
    assert (np.array([1, 2], np.int64) + a).dtype == np.int32
    with pytest.raises(InvalidArgumentError, match="expected to be a int32 tensor but is a "
                                                   "int64 tensor"):
        a + tf.constant([1, 2], tf.int64)
    with pytest.raises(InvalidArgumentError, match="but is a float tensor"):
        a + 1.5
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        1.5 * a
    with pytest.raises(InvalidArgumentError, match="Integer division by zero"):
        a // tf.constant([0, 1])
    with pytest.raises(InvalidArgumentError, match="Incompatible shapes: \\[2\\] vs. \\[3\\]"):
        a + tf.constant([1, 2, 3])
    assert (a == tf.constant([1, 2, 3])).numpy() is np.False_ or not (a == tf.constant([1, 2, 3]))
    assert (~tf.constant([True, False])).tolist() == [False, True]
    assert (~a).tolist() == [-2, -3]
    assert (a & a).tolist() == [1, 2]
    with pytest.raises(InvalidArgumentError, match="negative integer powers"):
        a ** -1
    b = a
    b += 1
    assert a.tolist() == [1, 2] and b.tolist() == [2, 3]  # no in-place change


def test_shapes():
    x = tf.constant(np.arange(6).reshape(2, 3))
    assert tf.shape(x).dtype == np.int32 and tf.shape(x).tolist() == [2, 3]
    assert tf.shape(x, out_type=tf.int64).dtype == np.int64
    assert int(tf.rank(x)) == 2 and int(tf.size(x)) == 6
    assert tf.reshape(x, [3, -1]).shape == (3, 2)
    with pytest.raises(InvalidArgumentError, match="tensor with 6 values, but the requested "
                                                   "shape has 4"):
        tf.reshape(x, [4])
    with pytest.raises(InvalidArgumentError, match="Only one input size may be -1"):
        tf.reshape(x, [-1, -1])
    assert tf.expand_dims(x, -1).shape == (2, 3, 1)
    with pytest.raises(InvalidArgumentError, match="Tried to expand dim index 3"):
        tf.expand_dims(x, 3)
    assert tf.squeeze(tf.zeros([1, 2, 1])).shape == (2,)
    with pytest.raises(InvalidArgumentError, match="Can not squeeze dim\\[0\\]"):
        tf.squeeze(x, 0)
    assert x[tf.newaxis].shape == (1, 2, 3)


def test_joins_fills_and_gathers():
    a, b = tf.constant([1, 2]), tf.constant([3, 4])
    assert tf.stack([a, b], axis=1).tolist() == [[1, 3], [2, 4]]
    assert tf.concat([a, b], 0).tolist() == [1, 2, 3, 4]
    with pytest.raises(InvalidArgumentError, match="Ranks of all input tensors should match"):
        tf.concat([a, [[1]]], 0)
    with pytest.raises(InvalidArgumentError, match="Shapes of all inputs must match"):
        tf.stack([a, tf.constant([1, 2, 3])])
    assert [t.tolist() for t in tf.unstack(tf.constant([[1, 2], [3, 4]]), axis=1)] == \
        [[1, 3], [2, 4]]
    assert tf.fill([2], 1.5).dtype == np.float32
    assert tf.zeros([2]).dtype == np.float32 and tf.ones([1], tf.int64).dtype == np.int64
    assert tf.range(5).dtype == np.int32 and tf.range(0, 1, 0.5).dtype == np.float32
    assert tf.gather([10, 20, 30], [2, 0]).tolist() == [30, 10]
    with pytest.raises(InvalidArgumentError, match=r"indices\[1\] = 5 is not in \[0, 3\)"):
        tf.gather([10, 20, 30], [0, 5])
    assert tf.one_hot([0, 2], 3).tolist() == [[1, 0, 0], [0, 0, 1]]
    assert tf.where([True, False, True]).tolist() == [[0], [2]]
    assert tf.where([True, False], a, b).tolist() == [1, 4]
    assert tf.clip_by_value(a, 0, 1).tolist() == [1, 1]
    with pytest.raises(TypeError):
        tf.clip_by_value(a, 0.0, 1.0)
    assert tf.pad(a, [[1, 2]]).tolist() == [0, 1, 2, 0, 0]
    assert tf.pad([[1, 2, 3]], maxlen=2)[0].tolist() == [[1, 2]]  # tfnano's fast pad
    assert tf.boolean_mask(a, [False, True]).tolist() == [2]
    assert tf.tile(a, [2]).tolist() == [1, 2, 1, 2]
    assert tf.transpose(tf.constant([[1, 2]])).shape == (2, 1)


def test_reductions():
    x = tf.constant([[1, 2], [3, 5]])
    assert tf.reduce_sum(x).dtype == np.int32 and int(tf.reduce_sum(x)) == 11
    assert tf.reduce_mean(x).dtype == np.int32 and int(tf.reduce_mean(x)) == 2
    assert tf.reduce_mean(tf.constant([-3, 0])).numpy() == -1  # truncates toward zero
    assert tf.reduce_max(x, axis=1, keepdims=True).tolist() == [[2], [5]]
    assert tf.argmax([1, 3, 2]).dtype == np.int64
    with pytest.raises(InvalidArgumentError,
                       match=r"Invalid reduction dimension \(2 for input with 2 dimension"):
        tf.reduce_sum(x, 2)
    with pytest.raises(InvalidArgumentError, match="Value for attr 'T' of bool"):
        tf.reduce_sum(tf.constant([True]))


def _traced_both_ways(fn, records):
    """Traces fn on the records' spec; returns (eager, per record traced, batched)."""
    first = np.asarray(records[0])
    graph = _trace.trace(fn, _trace.Spec(first.dtype, first.shape), call_args=False)
    eager = [np.asarray(fn(tf.constant(r))) for r in records]
    per = [np.asarray(graph.run(tf.constant(r))) for r in records]
    batched = np.asarray(graph.run(np.stack(records), batched=True))
    return graph, eager, per, batched


@pytest.mark.parametrize("fn", [
    lambda x: x * 2 + 1,
    lambda x: x[0] - x[..., -1],
    lambda x: tf.reshape(x, [-1, 2]),
    lambda x: tf.expand_dims(x, 0)[tf.newaxis],
    lambda x: tf.reduce_sum(x, axis=0) + tf.reduce_max(x),
    lambda x: tf.stack([x, x * 0], axis=-1),
    lambda x: tf.concat([x, [7, 8, 9, 10]], 0),
    lambda x: tf.gather(x, [3, 0]),
    lambda x: tf.one_hot(x % 4, 4),
    lambda x: tf.shape(x, out_type=tf.int64) + tf.size(x, out_type=tf.int64),
    lambda x: tf.where(x > 2, x, tf.zeros_like(x)),
    lambda x: tf.clip_by_value(x, 1, 3) == x,
    lambda x: tf.argmax(x),
])
def test_traced_ops_vectorize_and_match_eager(fn):
    rng = np.random.default_rng(3)
    records = [rng.integers(0, 9, size=4).astype(np.int32) for _ in range(5)]
    graph, eager, per, batched = _traced_both_ways(fn, records)
    assert graph.vectorizable() is None
    for e, p, b in zip(eager, per, batched):
        assert e.dtype == p.dtype == b.dtype
        assert np.array_equal(e, p) and np.array_equal(e, b)


def test_value_dependent_ops_run_per_record():
    graph = _trace.trace(lambda x: tf.range(x[0]), _trace.Spec(np.int32, (2,)),
                         call_args=False)
    assert graph.vectorizable() == "range"
    assert graph.run(tf.constant([3, 0])).tolist() == [0, 1, 2]


def test_traced_index_with_traced_value_refuses_with_reason():
    with pytest.raises(_trace.TraceError, match="traced index"):
        _trace.trace(lambda x: x[x[0]], _trace.Spec(np.int32, (2,)), call_args=False)


def test_more_array_ops():
    assert tf.repeat([1, 2], 2).tolist() == [1, 1, 2, 2]
    assert tf.roll([1, 2, 3], 1, 0).tolist() == [3, 1, 2]
    assert tf.linspace(0, 1, 3).dtype == np.float32
    assert tf.math.segment_sum([1, 2, 3], [0, 0, 1]).tolist() == [3, 3]
    assert tf.math.unsorted_segment_max([1, 5, 3], [1, 0, 1], 2).tolist() == [5, 3]
    assert tf.map_fn(lambda x: x * 2, tf.constant([1, 2])).tolist() == [2, 4]
    with pytest.raises(InvalidArgumentError, match="is not compatible with expected shape"):
        tf.ensure_shape(tf.constant([1, 2]), [3])
    assert tf.is_tensor(tf.constant(1)) and not tf.is_tensor(1)
    s = tf.math.softmax(tf.constant([1.0, 2.0]))
    assert s.dtype == np.float32 and abs(float(tf.reduce_sum(s)) - 1) < 1e-6
    with tf.name_scope("scope"), tf.device("/CPU:0"):
        assert tf.no_op() is None

"""tf.nest, TensorSpec / TensorShape, cond / case / while_loop."""
import collections

import numpy as np
import pytest

import tfnano as tf
from tfnano import _trace


def test_nest_flatten_pack_map():
    s = {"b": 1, "a": [2, (3, None)]}
    assert tf.nest.flatten(s) == [2, 3, None, 1]  # dicts in sorted key order
    assert tf.nest.pack_sequence_as(s, [5, 6, 7, 8]) == {"b": 8, "a": [5, (6, 7)]}
    P = collections.namedtuple("P", "x y")
    assert tf.nest.map_structure(lambda a, b: a + b, P(1, [2]), P(10, [20])) == P(11, [22])
    assert tf.nest.flatten("ab") == ["ab"] and tf.nest.is_nested([1]) and not tf.nest.is_nested(1)
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        tf.nest.assert_same_structure([1, [2]], [1, 2])
    with pytest.raises(ValueError, match="same number of elements"):
        tf.nest.assert_same_structure([1, 2], [1, 2, 3])
    with pytest.raises(TypeError):
        tf.nest.assert_same_structure((1, 2), [1, 2])
    with pytest.raises(ValueError, match="Structure had 2 atoms, but flat_sequence had 1"):
        tf.nest.pack_sequence_as([1, 2], [1])


def test_specs():
    spec = tf.TensorSpec([2, None], tf.int64, name="x")
    assert repr(spec) == "TensorSpec(shape=(2, None), dtype=tf.int64, name='x')"
    assert spec.is_compatible_with(tf.TensorSpec([2, 5], tf.int64))
    assert not spec.is_compatible_with(tf.TensorSpec([3, 5], tf.int64))
    assert spec.is_compatible_with(np.zeros((2, 7), np.int64))
    shape = tf.TensorShape([2, None])
    assert shape.as_list() == [2, None] and shape.rank == 2 and shape[0] == 2
    assert str(shape) == "(2, None)" and repr(shape) == "TensorShape([2, None])"
    assert str(tf.TensorShape(None)) == "<unknown>" and tf.TensorShape(None).rank is None
    assert shape.merge_with([None, 3]) == tf.TensorShape([2, 3])
    with pytest.raises(ValueError):
        shape.merge_with([3, 3])
    assert tf.TensorSpec.from_tensor(tf.constant([1.0])) == tf.TensorSpec([1], tf.float32)


def test_control_flow_eager():
    assert tf.cond(tf.constant(True), lambda: 1, lambda: 2) == 1
    assert tf.cond(tf.constant(False), lambda: 1, lambda: 2) == 2
    with pytest.raises(ValueError, match="truth value of an array"):
        tf.cond(tf.constant([True, False]), lambda: 1, lambda: 2)
    assert tf.case([(tf.constant(False), lambda: 1)], default=lambda: 3) == 3
    assert tf.case([(tf.constant(True), lambda: 1), (True, lambda: 2)]) == 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="exclusive=True"):
        tf.case([(True, lambda: 1), (True, lambda: 2)], exclusive=True)
    assert tf.switch_case(tf.constant(1), [lambda: "a", lambda: "b"]) == "b"
    i, total = tf.while_loop(lambda i, t: i < 4, lambda i, t: (i + 1, t + i), [0, 0])
    assert (i, total) == (4, 6)


def test_cond_on_a_traced_value_traces_both_branches():
    fn = lambda x: tf.cond(x > 0, lambda: x * 10, lambda: -x)  # noqa: E731
    g = _trace.trace(fn, _trace.Spec(np.int32, ()), call_args=False)
    assert g.vectorizable() is None and [n.op.name for n in g.nodes][-1] == "cond"
    xs = np.array([-2, 0, 3], np.int32)
    assert g.run(xs, batched=True).tolist() == [2, 0, 30]
    assert [int(g.run(x)) for x in xs] == [2, 0, 30]
    # one branch fails on a record: per record only the taken branch runs
    fails = lambda x: tf.cond(x >= 0, lambda: x,  # noqa: E731
                              lambda: tf.gather(tf.constant([1, 2]), x * 10))
    g = _trace.trace(fails, _trace.Spec(np.int32, ()), call_args=False)
    assert [int(g.run(x)) for x in xs[1:]] == [0, 3]
    with pytest.raises(tf.errors.InvalidArgumentError):
        g.run(xs, batched=True)  # tf.data then runs the batch per record


def test_cond_branches_must_agree_as_in_tensorflow():
    spec = _trace.Spec(np.int64, ())
    with pytest.raises(TypeError, match="true_fn and false_fn arguments to tf.cond must "
                       "have the same number, type, and overall structure"):
        _trace.trace(lambda x: tf.cond(x > 2, lambda: x, lambda: 0), spec, call_args=False)
    with pytest.raises(TypeError, match="same nested structure"):
        _trace.trace(lambda x: tf.cond(x > 2, lambda: {"a": x}, lambda: {"b": x}), spec,
                     call_args=False)
    with pytest.raises(AssertionError, match=r"\[2, 1\]"):
        _trace.trace(lambda x: tf.cond(x > 2, lambda: (x, x), lambda: x), spec,
                     call_args=False)
    # shapes may differ: the result's size is unknown, and it runs per record
    g = _trace.trace(lambda x: tf.cond(x > 2, lambda: tf.fill([2], x), lambda: tf.fill(
        [3], x)), spec, call_args=False)
    assert g.outputs.spec.shape == (None,) and g.vectorizable() == "cond"


def test_cond_in_a_dataset_map_runs_batched():
    ds = tf.data.Dataset.range(6).map(lambda x: tf.cond(
        x > 2, lambda: (x * 10, tf.strings.as_string(x)),
        lambda: (x - 1, tf.constant("small")))).batch(4)
    assert "cond (vectorized)" in ds.plan_text()
    got = [[t.tolist() for t in b] for b in ds]
    assert got == [[[-1, 0, 1, 30], [b"small", b"small", b"small", b"3"]],
                   [[40, 50], [b"4", b"5"]]]  # TensorFlow 2.21's
    with pytest.raises(TypeError, match="must have the same number, type"):
        tf.data.Dataset.range(3).map(lambda x: tf.cond(x > 1, lambda: x, lambda: 1.5))


def test_case_and_switch_case_in_a_dataset_map_run_batched():
    ds = tf.data.Dataset.range(8).map(lambda x: tf.case(
        [(x < 2, lambda: x * 10), (x < 5, lambda: x + 100)], default=lambda: -x)).batch(4)
    assert "cond (vectorized)" in ds.plan_text()
    assert [b.tolist() for b in ds] == [[0, 10, 102, 103], [104, -5, -6, -7]]
    ds = tf.data.Dataset.range(6).map(lambda x: tf.switch_case(
        tf.cast(x % 4, tf.int32), [lambda: x, lambda: x * 2, lambda: x * 3])).batch(3)
    assert "cond (vectorized)" in ds.plan_text()
    assert [b.tolist() for b in ds] == [[0, 2, 6], [9, 4, 10]]  # 3 is out of range: last
    # no default: the last function once its predicate holds; none true is TF's error
    ds = tf.data.Dataset.range(4).map(lambda x: tf.case(
        [(x < 1, lambda: x), (x < 3, lambda: x * 2)])).batch(2)
    it = iter(ds)
    assert next(it).tolist() == [0, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"assertion failed: \[Input "
                       r"error: None of conditions evaluated as True:\] \[0 0\]"):
        next(it)
    with pytest.raises(tf.errors.InvalidArgumentError, match="None of conditions"):
        tf.case([(tf.constant(False), lambda: 1)])
    # exclusive=True: traced too, a record with two true predicates fails the batch
    ds = tf.data.Dataset.range(6).map(lambda x: tf.case(
        [(x < 1, lambda: x), (x > 3, lambda: x * 2)], default=lambda: -x,
        exclusive=True)).batch(3)
    assert "case_exclusive_check" in ds.plan_text() and "vectorized" in ds.plan_text()
    assert [b.tolist() for b in ds] == [[0, -1, -2], [-3, 8, 10]]
    ds = tf.data.Dataset.range(4).map(lambda x: tf.case(
        [(x < 3, lambda: x), (x > 1, lambda: x * 2)], default=lambda: -x,
        exclusive=True)).batch(2)
    it = iter(ds)
    assert next(it).tolist() == [0, 1]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"assertion failed: \[Input "
                       r"error: exclusive=True: more than 1 conditions evaluated as True:\] "
                       r"\[1 1\]"):
        next(it)

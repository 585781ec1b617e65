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


def test_cond_on_traced_value_runs_per_record_with_reason():
    with pytest.raises(_trace.TraceError, match="tf.cond on a value known only per record"):
        _trace.trace(lambda x: tf.cond(x > 0, lambda: x, lambda: -x),
                     _trace.Spec(np.int32, ()), call_args=False)

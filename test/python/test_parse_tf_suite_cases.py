"""Cases that TensorFlow's own parsing tests exercise, run against tfnano alone with
TensorFlow 2.21's observed results (test/conformance/test_tf_suite_cases_tf.py checks
the same cases against TensorFlow itself)."""
import numpy as np
import pytest

import tfnano as tf

F = tf.train


def _sequence(lists):
    return F.SequenceExample(feature_lists=F.FeatureLists(feature_list={
        k: F.FeatureList(feature=v) for k, v in lists.items()})).SerializeToString()


def _ints(*v):
    return F.Feature(int64_list=F.Int64List(value=list(v)))


def _floats(*v):
    return F.Feature(float_list=F.FloatList(value=list(v)))


def test_empty_example_names_mean_no_names():
    out = tf.io.parse_example(
        [b"", b""], {"a": tf.io.FixedLenFeature((1, 3), tf.int64, default_value=[0, 42, 0]),
                     "s": tf.io.VarLenFeature(tf.int64)},
        example_names=np.empty((0,), dtype=bytes))
    assert out["a"].numpy().tolist() == [[[0, 42, 0]], [[0, 42, 0]]]
    assert out["s"].dense_shape.numpy().tolist() == [2, 0]


def test_example_names_of_another_length_still_fail():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected names have the same"):
        tf.io.parse_example([b"", b""], {"a": tf.io.VarLenFeature(tf.int64)},
                            example_names=["x"])


@pytest.mark.parametrize("batch", [False, True])
def test_feature_list_total_not_a_multiple_of_the_step_shape(batch):
    s = _sequence({"a": [_ints(1, 2), _ints(3, 4, 5)]})
    sf = {"a": tf.io.FixedLenSequenceFeature((2,), tf.int64)}
    want = ("Feature list 'a' has an unexpected number of values.  Total values size: 5 "
            "is not consistent with output shape: [?,2]")
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        if batch:
            tf.io.parse_sequence_example([s], sequence_features=sf)
        else:
            tf.io.parse_single_sequence_example(s, sequence_features=sf)
    assert e.value.message == want


def test_feature_list_total_a_multiple_keeps_the_step_error():
    s = _sequence({"a": [_ints(1), _ints(3, 4, 5)]})
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.io.parse_single_sequence_example(
            s, sequence_features={"a": tf.io.FixedLenSequenceFeature((2,), tf.int64)})
    assert e.value.message == ("Name: <unknown>, Key: a, Index: 0.  Number of values != "
                               "expected.  values size: 1 but output shape: [2]")


@pytest.mark.parametrize("as_tensor", [False, True])
def test_misaligned_row_splits_in_one_sequence_example(as_tensor):
    s = _sequence({"v": [_floats(1, 2, 3, 4), _floats(2, 4, 6)], "p": [_ints(0, 1, 4)]})
    sf = {"b": tf.io.RaggedFeature(value_key="v", dtype=tf.float32, validate=True,
                                   partitions=[tf.io.RaggedFeature.RowSplits("p")])}
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.io.parse_single_sequence_example(tf.constant(s) if as_tensor else s,
                                            sequence_features=sf)
    assert e.value.message == "Incompatible shapes: [2] vs. [4]"


def test_single_sequence_example_from_a_scalar_tensor():
    s = _sequence({"a": [_ints(1, 2), _ints(3, 4)]})
    _, lists = tf.io.parse_single_sequence_example(
        tf.constant(s), sequence_features={"a": tf.io.FixedLenSequenceFeature((2,), tf.int64)})
    assert lists["a"].numpy().tolist() == [[1, 2], [3, 4]]


@pytest.mark.parametrize("wrap", [list, np.array, tf.constant])
def test_parse_tensor_wants_a_scalar(wrap):
    record = tf.io.serialize_tensor(tf.constant([1.0, 2.0])).numpy()
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.io.parse_tensor(wrap([record]), tf.float32)
    assert e.value.message == "Expected `serialized` to be a scalar, got shape: [1]"
    assert tf.io.parse_tensor(wrap(record) if wrap is not list else record,
                              tf.float32).numpy().tolist() == [1.0, 2.0]

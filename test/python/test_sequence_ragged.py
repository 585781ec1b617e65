"""RaggedFeature with value_key and partitions among the sequence features of
parse_sequence_example / parse_single_sequence_example: each step's values partitioned
by the same step of the partition lists (TensorFlow 2.21's results for these inputs)."""
import numpy as np
import pytest

import tfnano as tf
from tfnano.errors import InvalidArgumentError


def f_i(v):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=v))


def seq(**lists):
    return tf.train.SequenceExample(feature_lists=tf.train.FeatureLists(feature_list={
        k: tf.train.FeatureList(feature=[f_i(s) for s in steps]) for k, steps in lists.items()
    })).SerializeToString()


RECORDS = np.array([seq(v=[[1, 2, 3], [4]], l=[[2, 1], [1]], w=[[1, 2, 3], [4]],
                        s=[[0, 2, 3], [0, 1]]),
                    seq(v=[[5, 6]], l=[[0, 2]], s=[[0, 0, 2]])], dtype=object)


def parse(spec, single=False):
    if single:
        return tf.io.parse_single_sequence_example(RECORDS[0], sequence_features=spec)[1]["r"]
    return tf.io.parse_sequence_example(RECORDS, sequence_features=spec)[1]["r"]


def test_value_key_other_than_the_features_key():
    spec = {"r": tf.io.RaggedFeature(tf.int64, value_key="v")}
    assert parse(spec).to_list() == [[[1, 2, 3], [4]], [[5, 6]]]
    assert parse(spec, single=True).to_list() == [[1, 2, 3], [4]]


def test_row_lengths_partition_each_step():
    spec = {"r": tf.io.RaggedFeature(tf.int64, value_key="v",
                                     partitions=[tf.io.RaggedFeature.RowLengths("l")])}
    got = parse(spec)
    assert got.to_list() == [[[[1, 2], [3]], [[4]]], [[[], [5, 6]]]]
    assert got.ragged_rank == 3
    assert all(np.asarray(s).dtype == np.int32 for s in got.nested_row_splits)
    assert parse(spec, single=True).to_list() == [[[1, 2], [3]], [[4]]]


def test_uniform_row_length_and_int64_splits():
    spec = {"r": tf.io.RaggedFeature(tf.int64, value_key="v", row_splits_dtype=tf.int64,
                                     partitions=[tf.io.RaggedFeature.UniformRowLength(1)])}
    got = parse(spec)
    assert got.to_list() == [[[[1], [2], [3]], [[4]]], [[[5], [6]]]]
    assert all(np.asarray(s).dtype == np.int64 for s in got.nested_row_splits)


def test_row_splits_partition_each_step():
    spec = {"r": tf.io.RaggedFeature(tf.int64, value_key="v",
                                     partitions=[tf.io.RaggedFeature.RowSplits("s")])}
    assert parse(spec).to_list() == [[[[1, 2], [3]], [[4]]], [[[], [5, 6]]]]
    assert parse(spec, single=True).to_list() == [[[1, 2], [3]], [[4]]]


def test_row_splits_that_do_not_start_at_zero_follow_tensorflows_arithmetic():
    # each step's first split is dropped unchecked, the others are offsets from the
    # step's first value: the batch below is what TensorFlow returns
    spec = {"r": tf.io.RaggedFeature(tf.int64, value_key="v",
                                     partitions=[tf.io.RaggedFeature.RowSplits("l")])}
    assert parse(spec).to_list() == [[[[1]], []], [[[2, 3, 4, 5, 6]]]]
    # alone, the first example's splits do not reach its last value: TensorFlow builds
    # an invalid RaggedTensor unless validate=True (then it fails too); tfnano refuses
    with pytest.raises(InvalidArgumentError, match="Arguments to _from_row_partition do not "
                       "form a valid RaggedTensor\nCondition x == y did not hold."):
        parse(spec, single=True)


def test_partition_lists_missing_where_values_are_present_are_an_error():
    spec = {"r": tf.io.RaggedFeature(tf.int64, value_key="w",
                                     partitions=[tf.io.RaggedFeature.RowLengths("l")])}
    with pytest.raises(InvalidArgumentError, match="Feature r: values and partitions are "
                       "not aligned"):
        parse(spec)


def test_a_list_read_with_two_dtypes_is_refused():
    spec = {"r": tf.io.RaggedFeature(tf.float32, value_key="l"),
            "s": tf.io.RaggedFeature(tf.int64, value_key="v",
                                     partitions=[tf.io.RaggedFeature.RowLengths("l")])}
    with pytest.raises(ValueError, match="read both as"):
        parse(spec)

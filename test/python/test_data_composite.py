"""SparseTensor and RaggedTensor components in tf.data batch / unbatch / padded_batch:
TensorFlow's results (batch index as a new first sparse dimension, dense_shape the
largest sizes; one more ragged dimension) and its errors."""
import functools
import warnings

import numpy as np
import pytest

import tfnano as tf
from tfnano.errors import InvalidArgumentError


def of(*elements):
    """A dataset yielding exactly `elements` (each may be a structure)."""
    return functools.reduce(lambda a, b: a.concatenate(b),
                            [tf.data.Dataset.from_tensors(e) for e in elements])


def sparse(indices, values, shape, dtype=np.int32):
    return tf.SparseTensor(np.asarray(indices, np.int64).reshape(-1, len(shape)),
                           np.asarray(values, dtype), shape)


def dense_of(sp):
    return np.asarray(tf.sparse.to_dense(sp))


ELEMENTS = [sparse([[0, 1]], [1], [2, 3]), sparse([[0, 0], [2, 4]], [2, 3], [3, 5]),
            sparse([], [], [1, 1])]


def test_batch_sparse_adds_a_leading_dimension_and_takes_the_largest_shape():
    batches = list(of(*ELEMENTS).batch(2))
    assert len(batches) == 2
    first = batches[0]
    assert isinstance(first, tf.SparseTensor)
    assert np.asarray(first.indices).tolist() == [[0, 0, 1], [1, 0, 0], [1, 2, 4]]
    assert np.asarray(first.values).tolist() == [1, 2, 3]
    assert np.asarray(first.values).dtype == np.int32
    assert np.asarray(first.dense_shape).tolist() == [2, 3, 5]
    # each element, densified into the batch's shape, is the batch's row
    d = dense_of(first)
    for i, el in enumerate(ELEMENTS[:2]):
        e = dense_of(el)
        assert (d[i][:e.shape[0], :e.shape[1]] == e).all()
        assert d[i].sum() == e.sum()
    last = batches[1]
    assert np.asarray(last.indices).shape == (0, 3)
    assert np.asarray(last.dense_shape).tolist() == [1, 1, 1]


def test_batch_sparse_drop_remainder_and_strings():
    els = [sparse([[1]], [b"a"], [2], object), sparse([[0], [3]], [b"b", b"c"], [4], object),
           sparse([[0]], [b"z"], [1], object)]
    (b,) = list(of(*els).batch(2, drop_remainder=True))
    assert np.asarray(b.values).tolist() == [b"a", b"b", b"c"]
    assert np.asarray(b.indices).tolist() == [[0, 1], [1, 0], [1, 3]]
    assert np.asarray(b.dense_shape).tolist() == [2, 4]


def test_batch_sparse_of_different_ranks_is_tensorflows_error():
    ds = of(sparse([[0]], [1], [2]), sparse([[0, 0]], [2], [3, 5])).batch(2)
    with pytest.raises(InvalidArgumentError, match=r"Inconsistent shape across "
                       r"SparseTensors: rank prior to SparseTensor\[1\] was: 1 but rank "
                       r"of SparseTensor\[1\] is: 2"):
        list(ds)


def test_unbatch_sparse_gives_back_the_elements_in_the_batch_shape():
    out = list(of(*ELEMENTS).batch(2).unbatch())
    assert len(out) == 3
    assert [np.asarray(e.indices).tolist() for e in out] == [[[0, 1]], [[0, 0], [2, 4]], []]
    assert [np.asarray(e.values).tolist() for e in out] == [[1], [2, 3], []]
    # TensorFlow keeps the batch's dense_shape (the largest), not the element's own
    assert [np.asarray(e.dense_shape).tolist() for e in out] == [[3, 5], [3, 5], [1, 1]]


def test_unbatch_sparse_with_unsorted_indices():
    sp = tf.SparseTensor(np.array([[2, 0], [0, 1], [2, 1], [0, 0]], np.int64),
                         np.array([5, 6, 7, 8], np.int32), [3, 2])
    out = list(tf.data.Dataset.from_tensors(sp).unbatch())
    assert [np.asarray(e.values).tolist() for e in out] == [[6, 8], [], [5, 7]]
    assert [np.asarray(e.indices).tolist() for e in out] == [[[1], [0]], [], [[0], [1]]]
    assert all(np.asarray(e.dense_shape).tolist() == [2] for e in out)


RAGGED = [[[1, 2], [3]], [[4]], [[5, 6, 7], [], [8]]]


def test_batch_ragged_adds_a_ragged_dimension():
    ds = of(*[tf.ragged.constant(r) for r in RAGGED]).batch(2)
    batches = list(ds)
    assert [b.to_list() for b in batches] == [RAGGED[:2], RAGGED[2:]]
    first = batches[0]
    assert first.ragged_rank == 2
    assert np.asarray(first.row_splits).tolist() == [0, 2, 3]
    assert np.asarray(first.row_splits).dtype == np.int64
    assert np.asarray(first.flat_values).tolist() == [1, 2, 3, 4]
    out = list(ds.unbatch())
    assert [e.to_list() for e in out] == RAGGED
    assert all(isinstance(e, tf.RaggedTensor) for e in out)


def test_unbatch_ragged_rank_one_gives_dense_rows():
    rt = tf.RaggedTensor.from_row_lengths(np.arange(5, dtype=np.float32), [2, 0, 3])
    out = list(tf.data.Dataset.from_tensors(rt).unbatch())
    assert [np.asarray(e).tolist() for e in out] == [[0.0, 1.0], [], [2.0, 3.0, 4.0]]
    assert np.asarray(out[0]).dtype == np.float32


def test_batch_ragged_keeps_int32_row_splits():
    els = [tf.RaggedTensor.from_row_splits(np.array([1, 2, 3]), np.array([0, 1, 3], np.int32)),
           tf.RaggedTensor.from_row_splits(np.array([4]), np.array([0, 0, 1], np.int32))]
    (b,) = list(of(*els).batch(5))
    assert b.to_list() == [[[1], [2, 3]], [[], [4]]]
    assert [np.asarray(s).dtype for s in b.nested_row_splits] == [np.int32, np.int32]


def _examples(lengths):
    return np.array([tf.train.Example(features=tf.train.Features(feature={
        "v": tf.train.Feature(int64_list=tf.train.Int64List(value=list(range(k)))),
        "w": tf.train.Feature(int64_list=tf.train.Int64List(value=list(range(k)))),
        "n": tf.train.Feature(int64_list=tf.train.Int64List(value=[k])),
        "m": tf.train.Feature(int64_list=tf.train.Int64List(value=[k]))})
    ).SerializeToString() for k in lengths], dtype=object)


def test_parsed_varlen_and_ragged_features_batch_like_tensorflow():
    lengths = [1, 3, 0, 2]
    spec = {"v": tf.io.VarLenFeature(tf.int64),
            "r": tf.io.RaggedFeature(tf.int64, value_key="w",
                                     partitions=[tf.io.RaggedFeature.RowLengths("m")]),
            "n": tf.io.FixedLenFeature([], tf.int64)}
    ds = tf.data.Dataset.from_tensor_slices(_examples(lengths))
    with warnings.catch_warnings():  # VarLen may run per record (a fallback warning)
        warnings.simplefilter("ignore")
        parsed = ds.map(lambda x: tf.io.parse_single_example(x, spec))
    batches = list(parsed.batch(3))
    b = batches[0]
    assert np.asarray(b["n"]).tolist() == [1, 3, 0]
    assert np.asarray(b["v"].dense_shape).tolist() == [3, 3]
    assert np.asarray(b["v"].indices).tolist() == [[0, 0], [1, 0], [1, 1], [1, 2]]
    assert b["r"].to_list() == [[[0]], [[0, 1, 2]], [[]]]
    # the whole-batch parse gives the same values
    whole = tf.io.parse_example(_examples(lengths[:3]), spec)
    assert np.asarray(whole["v"].indices).tolist() == np.asarray(b["v"].indices).tolist()
    back = list(parsed.batch(3).unbatch())
    assert [np.asarray(e["v"].values).tolist() for e in back] == [list(range(k))
                                                                 for k in lengths]


def test_padded_batch_of_composites_is_tensorflows_type_error():
    with pytest.raises(TypeError, match=r"`padded_batch` is only supported for datasets "
                       r"that produce tensor elements but type spec of elements in the "
                       r"input dataset is not a subclass of TensorSpec: "
                       r"`SparseTensorSpec\(TensorShape\(\[None, None\]\), tf.int32\)`."):
        list(of(*ELEMENTS).padded_batch(2))
    # refused when padded_batch is called, from the static spec: from_tensors of a
    # RaggedTensor knows its rows, as TensorFlow's spec does
    with pytest.raises(TypeError, match=r"`RaggedTensorSpec\(TensorShape\(\[2, None\]\), "
                       r"tf.int32, 1, tf.int64\)`"):
        of(tf.ragged.constant([[1], [2, 3]], dtype=tf.int32)).padded_batch(2)


def test_mixing_a_sparse_and_a_dense_value_in_one_component_is_an_error():
    ds = of(sparse([[0]], [1], [2]), np.array([1, 2], np.int32)).batch(2)
    with pytest.raises(InvalidArgumentError, match="not of the same kind"):
        list(ds)


def test_batch_ragged_with_empty_elements_between():
    els = [[[1, 2]], [], [[3], []], []]
    rts = [tf.RaggedTensor.from_row_lengths(
        np.asarray([v for row in e for v in row], np.int64),
        np.asarray([len(row) for row in e], np.int64)) for e in els]
    (b,) = list(of(*rts).batch(4))
    assert b.to_list() == els
    assert np.asarray(b.row_splits).tolist() == [0, 1, 1, 3, 3]
    assert np.asarray(b.values.row_splits).tolist() == [0, 2, 3, 3]
    assert [e.to_list() for e in of(*rts).batch(3).unbatch()] == els


def test_from_tensor_slices_of_a_sparse_tensor():
    sp = tf.SparseTensor(np.array([[0, 1], [2, 0]], np.int64), np.array([1, 2], np.int32),
                         [3, 4])
    out = list(tf.data.Dataset.from_tensor_slices(sp))
    assert [np.asarray(e.indices).tolist() for e in out] == [[[1]], [], [[0]]]
    assert [np.asarray(e.dense_shape).tolist() for e in out] == [[4]] * 3
    (b,) = list(tf.data.Dataset.from_tensor_slices(sp).batch(3))
    assert np.asarray(b.indices).tolist() == [[0, 1], [2, 0]]
    assert np.asarray(b.dense_shape).tolist() == [3, 4]


def test_rows_of_a_ragged_tensor_batch_back_into_a_ragged_tensor():
    rt = tf.RaggedTensor.from_row_splits(np.array([1, 2, 3], np.int32),
                                         np.array([0, 2, 2, 3], np.int32))
    ds = tf.data.Dataset.from_tensor_slices({"r": rt, "d": np.arange(3)})
    assert [np.asarray(e["r"]).tolist() for e in ds] == [[1, 2], [], [3]]
    batches = list(ds.batch(2))
    assert [b["r"].to_list() for b in batches] == [[[1, 2], []], [[3]]]
    assert np.asarray(batches[0]["r"].row_splits).dtype == np.int32
    assert [np.asarray(b["d"]).tolist() for b in batches] == [[0, 1], [2]]
    again = list(tf.data.Dataset.from_tensors(rt).unbatch().batch(3))
    assert again[0].to_list() == rt.to_list()
    with pytest.raises(TypeError, match=r"`RaggedTensorSpec\(TensorShape\(\[None\]\), "
                       r"tf.int32, 0, tf.int32\)`"):
        list(ds.padded_batch(2))

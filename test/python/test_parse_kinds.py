"""VarLenFeature, SparseFeature and RaggedFeature (every partition) through
tf.io.parse_example / parse_single_example, next to FixedLen features in one scan;
SparseTensor and RaggedTensor themselves. Expected values are worked out by hand from
the records each test builds (the differential test against TensorFlow is
test/conformance/test_parse_kinds_tf.py)."""
import numpy as np
import pytest

import tfnano as tf
from tfnano.errors import InvalidArgumentError

RF = tf.io.RaggedFeature


def example(**features):
    feats = {}
    for key, values in features.items():
        if isinstance(values, tuple):  # (kind, values) for empty lists
            kind, values = values
        else:
            kind = ("float" if isinstance(values[0], float) else
                    "int64" if isinstance(values[0], int) else "bytes")
        if kind == "float":
            feats[key] = tf.train.Feature(float_list=tf.train.FloatList(value=values))
        elif kind == "int64":
            feats[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=values))
        else:
            feats[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
    return tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString()


RECS = [example(ids=[3, 1, 4], w=[0.5, 1.5, 2.5], tok=[b"a", b"bc"], n=[7], rl=[2, 1]),
        example(ids=("int64", []), n=[8], rl=("int64", [])),
        example(ids=[9], w=[4.0], n=[9], rl=[0, 1])]


def test_varlen_batch_is_a_sparse_tensor():
    out = tf.io.parse_example(RECS, {"ids": tf.io.VarLenFeature(tf.int64),
                                     "tok": tf.io.VarLenFeature(tf.string),
                                     "n": tf.io.FixedLenFeature([], tf.int64)})
    sp = out["ids"]
    assert isinstance(sp, tf.SparseTensor)
    assert sp.indices.tolist() == [[0, 0], [0, 1], [0, 2], [2, 0]]
    assert sp.values.tolist() == [3, 1, 4, 9] and sp.values.dtype == np.int64
    assert sp.dense_shape.tolist() == [3, 3]
    assert out["tok"].values.tolist() == [b"a", b"bc"]
    assert out["tok"].dense_shape.tolist() == [3, 2]
    assert out["n"].tolist() == [7, 8, 9]
    dense = tf.sparse.to_dense(sp)
    assert dense.tolist() == [[3, 1, 4], [0, 0, 0], [9, 0, 0]]


def test_varlen_single_and_empty_batch():
    sp = tf.io.parse_single_example(RECS[0], {"w": tf.io.VarLenFeature(tf.float32)})["w"]
    assert sp.indices.tolist() == [[0], [1], [2]]
    assert sp.values.dtype == np.float32 and sp.dense_shape.tolist() == [3]
    sp = tf.io.parse_example(RECS[1:2], {"w": tf.io.VarLenFeature(tf.float32)})["w"]
    assert sp.indices.shape == (0, 2) and sp.dense_shape.tolist() == [1, 0]


def test_varlen_type_mismatch_text():
    with pytest.raises(InvalidArgumentError) as e:
        tf.io.parse_example(RECS, {"w": tf.io.VarLenFeature(tf.int64)})
    assert e.value.message == ("Name: <unknown>, Key: w, Index: 0.  Data types don't "
                                 "match. Expected type: int64, Actual type: float")


def test_sparse_feature_sorted_by_index():
    out = tf.io.parse_example(RECS, {"sp": tf.io.SparseFeature("ids", "w", tf.float32, 10)})
    sp = out["sp"]
    assert sp.indices.tolist() == [[0, 1], [0, 3], [0, 4], [2, 9]]
    assert sp.values.tolist() == [1.5, 0.5, 2.5, 4.0]
    assert sp.dense_shape.tolist() == [3, 10]
    single = tf.io.parse_single_example(RECS[0], {"sp": tf.io.SparseFeature(
        "ids", "w", tf.float32, 10, already_sorted=True)})["sp"]
    assert single.indices.tolist() == [[3], [1], [4]] and single.dense_shape.tolist() == [10]


def test_ragged_without_partitions():
    rt = tf.io.parse_example(RECS, {"ids": RF(tf.int64)})["ids"]
    assert isinstance(rt, tf.RaggedTensor)
    assert rt.to_list() == [[3, 1, 4], [], [9]]
    assert rt.row_splits.dtype == np.int32  # TF's default row_splits_dtype
    assert rt.row_lengths().tolist() == [3, 0, 1]
    one = tf.io.parse_single_example(RECS[0], {"ids": RF(tf.int64)})["ids"]
    assert one.tolist() == [3, 1, 4]


@pytest.mark.parametrize("part,key_values,want", [
    (RF.RowLengths, ([2, 1], [0, 1]), [[[3, 1], [4]], [], [[], [9]]]),
    (RF.RowSplits, ([0, 2, 3], [0, 0, 1]), [[[3, 1], [4]], [], [[], [9]]]),
    (RF.RowStarts, ([0, 2], [0, 0]), [[[3, 1], [4]], [], [[], [9]]]),
    (RF.RowLimits, ([2, 3], [0, 1]), [[[3, 1], [4]], [], [[], [9]]]),
    (RF.ValueRowIds, ([0, 0, 1], [1]), [[[3, 1], [4]], [], [[], [9]]]),
])
def test_ragged_partitions_batched(part, key_values, want):
    first, third = key_values
    recs = [example(v=[3, 1, 4], p=first), example(v=("int64", []), p=("int64", [])),
            example(v=[9], p=third)]
    feats = {"r": RF(tf.int64, value_key="v", partitions=[part("p")],
                     row_splits_dtype=tf.int64)}
    rt = tf.io.parse_example(recs, feats)["r"]
    assert rt.to_list() == want
    assert rt.ragged_rank == 2 and rt.row_splits.dtype == np.int64
    single = tf.io.parse_single_example(recs[0], feats)["r"]
    assert single.to_list() == want[0]


def test_ragged_uniform_row_length_and_to_tensor():
    recs = [example(v=[1, 2, 3, 4]), example(v=[5, 6])]
    rt = tf.io.parse_example(recs, {"v": RF(tf.int64, partitions=[RF.UniformRowLength(2)])})["v"]
    assert rt.to_list() == [[[1, 2], [3, 4]], [[5, 6]]]
    assert rt.to_tensor(default_value=-1).tolist() == [[[1, 2], [3, 4]], [[5, 6], [-1, -1]]]
    assert rt.to_tensor(shape=[2, 1, 1]).tolist() == [[[1]], [[5]]]
    single = tf.io.parse_single_example(recs[0], {"v": RF(
        tf.int64, partitions=[RF.UniformRowLength(2)])})["v"]
    assert single.tolist() == [[1, 2], [3, 4]]


def test_mixed_kinds_and_conflicts():
    feats = {"n": tf.io.FixedLenFeature([], tf.int64), "ids": tf.io.VarLenFeature(tf.int64),
             "r": RF(tf.float32, value_key="w")}
    out = tf.io.parse_example(RECS, feats)
    assert out["n"].tolist() == [7, 8, 9]
    assert out["r"].to_list() == [[0.5, 1.5, 2.5], [], [4.0]]
    with pytest.raises(ValueError, match="Dense and sparse keys must not intersect"):
        tf.io.parse_example(RECS, {"n": tf.io.FixedLenFeature([], tf.int64),
                                   "x": tf.io.SparseFeature("n", "w", tf.float32, 3)})


def test_numpy_string_inputs():
    arr = np.array(RECS, dtype=object)
    out = tf.io.parse_example(arr, {"ids": tf.io.VarLenFeature(tf.int64)})
    assert out["ids"].values.tolist() == [3, 1, 4, 9]
    out = tf.io.parse_single_example(np.array(RECS[2], dtype=object),
                                     {"ids": tf.io.VarLenFeature(tf.int64)})
    assert out["ids"].values.tolist() == [9]


def test_ragged_tensor_api():
    rt = tf.RaggedTensor.from_row_lengths(np.arange(6), [2, 0, 4])
    assert rt.to_list() == [[0, 1], [], [2, 3, 4, 5]]
    assert rt.row_splits.tolist() == [0, 2, 2, 6]
    assert rt.to_tensor().tolist() == [[0, 1, 0, 0], [0, 0, 0, 0], [2, 3, 4, 5]]
    assert rt.to_tensor(default_value=9, shape=[2, 3]).tolist() == [[0, 1, 9], [9, 9, 9]]
    nested = tf.RaggedTensor.from_row_splits(rt, [0, 1, 3])
    assert nested.to_list() == [[[0, 1]], [[], [2, 3, 4, 5]]]
    assert nested.flat_values.tolist() == list(range(6))
    assert [s.tolist() for s in nested.nested_row_splits] == [[0, 1, 3], [0, 2, 2, 6]]
    with pytest.raises(InvalidArgumentError):
        tf.RaggedTensor.from_row_splits([1, 2], [0, 3])


def test_sparse_api():
    sp = tf.sparse.from_dense(np.array([[0, 5], [6, 0]]))
    assert sp.indices.tolist() == [[0, 1], [1, 0]] and sp.values.tolist() == [5, 6]
    shuffled = tf.SparseTensor([[1, 0], [0, 1]], [6, 5], [2, 2])
    with pytest.raises(InvalidArgumentError, match="out of order"):
        tf.sparse.to_dense(shuffled)
    ordered = tf.sparse.reorder(shuffled)
    assert ordered.indices.tolist() == [[0, 1], [1, 0]]
    assert tf.sparse.to_dense(ordered).tolist() == [[0, 5], [6, 0]]


def test_many_strings_keep_their_nul_bytes():
    """Batches of many short strings become bytes objects through numpy's fixed-width
    arrays (tfn_bytes_copy_fixed), which drop trailing NUL bytes: every string must
    come back whole, in every output kind."""
    words = [b"", b"\x00", b"a\x00", b"\x00b", b"abc", b"a\x00\x00", b"xyz\x00w"]
    recs = [example(tok=[words[(i + k) % len(words)] for k in range(1 + i % 3)],
                    one=[words[i % len(words)]]) for i in range(40)]
    want = [[words[(i + k) % len(words)] for k in range(1 + i % 3)] for i in range(40)]
    out = tf.io.parse_example(recs, {"tok": tf.io.VarLenFeature(tf.string),
                                     "one": tf.io.FixedLenFeature([], tf.string)})
    assert out["tok"].values.tolist() == [w for row in want for w in row]
    assert out["one"].tolist() == [words[i % len(words)] for i in range(40)]
    rag = tf.io.parse_example(recs, {"tok": RF(tf.string)})["tok"]
    assert rag.to_list() == want
    seq = tf.train.SequenceExample()
    steps = seq.feature_lists.feature_list["s"]
    for row in want:
        steps.feature.add().bytes_list.value.extend(row)
    _, lists, _ = tf.io.parse_sequence_example([seq.SerializeToString()] * 2, None,
                                               {"s": RF(tf.string)})
    assert lists["s"].to_list() == [want, want]

"""SparseTensor / RaggedTensor components in tf.data batch, unbatch and padded_batch:
tfnano against TensorFlow 2.21 in one process, on seeded random elements (empty ones
included). Batches must agree component for component (indices, values, dense_shape;
nested row splits and flat values, with their dtypes); errors by class and message."""
import functools
import random
import sys
from pathlib import Path

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
import tfnano as tn  # noqa: E402

ROUNDS = 40


def rand_sparse(rng, rank, dtype):
    shape = [rng.randint(0, 4) for _ in range(rank)]
    cells = [c for c in np.ndindex(*shape)]
    chosen = sorted(rng.sample(cells, rng.randint(0, len(cells))))
    indices = np.asarray(chosen, np.int64).reshape(-1, rank)
    values = np.asarray([rng.randint(-9, 9) for _ in chosen]).astype(dtype)
    return indices, values, np.asarray(shape, np.int64)


def rand_ragged(rng, ragged_rank, splits_dtype):
    rows = rng.randint(0, 3)

    def nested(depth):
        if depth == 0:
            return [rng.randint(0, 50) for _ in range(rng.randint(0, 3))]
        return [nested(depth - 1) for _ in range(rng.randint(0, 3))]
    return [nested(ragged_rank - 1) for _ in range(rows)], splits_dtype


def tf_dataset(elements):
    return functools.reduce(lambda a, b: a.concatenate(b),
                            [tf.data.Dataset.from_tensors(e) for e in elements])


def tn_dataset(elements):
    return functools.reduce(lambda a, b: a.concatenate(b),
                            [tn.data.Dataset.from_tensors(e) for e in elements])


def same_sparse(t, n):
    assert np.asarray(n.indices).tolist() == t.indices.numpy().tolist()
    assert np.asarray(n.values).tolist() == t.values.numpy().tolist()
    assert np.asarray(n.values).dtype == t.values.numpy().dtype
    assert np.asarray(n.dense_shape).tolist() == t.dense_shape.numpy().tolist()


def same_ragged(t, n):
    if not isinstance(t, tf.RaggedTensor):
        assert np.asarray(n).tolist() == t.numpy().tolist()
        return
    assert n.to_list() == t.to_list()
    assert len(n.nested_row_splits) == len(t.nested_row_splits)
    for a, b in zip(n.nested_row_splits, t.nested_row_splits):
        assert np.asarray(a).tolist() == b.numpy().tolist()
        assert np.asarray(a).dtype == b.numpy().dtype


def outcome(fn):
    try:
        return True, fn()
    except Exception as e:  # compared below: class name and message
        return False, e


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_sparse_batch_and_unbatch_match_tensorflow(round_):
    rng = random.Random(round_)
    dtype = rng.choice([np.int32, np.int64, np.float32])
    rank = rng.randint(1, 3)
    els = [rand_sparse(rng, rank, dtype) for _ in range(rng.randint(1, 6))]
    size = rng.randint(1, 4)
    drop = rng.random() < 0.3
    t_ds = tf_dataset([tf.sparse.SparseTensor(*e) for e in els]).batch(size, drop)
    n_ds = tn_dataset([tn.SparseTensor(*e) for e in els]).batch(size, drop)
    t_out, n_out = list(t_ds), list(n_ds)
    assert len(t_out) == len(n_out)
    for t, n in zip(t_out, n_out):
        same_sparse(t, n)
    t_back, n_back = list(t_ds.unbatch()), list(n_ds.unbatch())
    assert len(t_back) == len(n_back)
    for t, n in zip(t_back, n_back):
        same_sparse(t, n)


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_ragged_batch_and_unbatch_match_tensorflow(round_):
    rng = random.Random(1000 + round_)
    ragged_rank = rng.randint(1, 2)
    splits = rng.choice([np.int32, np.int64])
    els = [rand_ragged(rng, ragged_rank, splits)[0] for _ in range(rng.randint(1, 6))]
    size = rng.randint(1, 4)

    def t_make(x):
        return tf.ragged.constant(x, dtype=tf.int64, ragged_rank=ragged_rank,
                                  row_splits_dtype=tf.as_dtype(splits))

    def n_make(x):
        rt = tn.ragged.constant(x, dtype=tn.int64, ragged_rank=ragged_rank)
        # the same row splits, in the chosen dtype
        return tn.RaggedTensor.from_nested_row_splits(
            np.asarray(rt.flat_values), [np.asarray(s, splits) for s in rt.nested_row_splits])
    t_ds = tf_dataset([t_make(e) for e in els]).batch(size)
    n_ds = tn_dataset([n_make(e) for e in els]).batch(size)
    t_out, n_out = list(t_ds), list(n_ds)
    assert len(t_out) == len(n_out)
    for t, n in zip(t_out, n_out):
        same_ragged(t, n)
    t_back, n_back = list(t_ds.unbatch()), list(n_ds.unbatch())
    assert len(t_back) == len(n_back)
    for t, n in zip(t_back, n_back):
        same_ragged(t, n)


def test_sparse_ranks_that_differ_fail_alike():
    t_els = [tf.sparse.SparseTensor([[0]], [1], [2]), tf.sparse.SparseTensor([[0, 0]], [2], [3, 5])]
    spec = tf.SparseTensorSpec(None, tf.int32)
    t_ds = tf.data.Dataset.from_generator(lambda: iter(t_els), output_signature=spec).batch(2)
    ok, t_err = outcome(lambda: list(t_ds))
    assert not ok
    n_ds = tn_dataset([tn.SparseTensor([[0]], np.int32([1]), [2]),
                       tn.SparseTensor([[0, 0]], np.int32([2]), [3, 5])]).batch(2)
    ok, n_err = outcome(lambda: list(n_ds))
    assert not ok
    assert type(n_err).__name__ == type(t_err).__name__
    assert n_err.message in t_err.message


def test_padded_batch_refuses_parsed_composites_alike():
    ex = tf.train.Example(features=tf.train.Features(feature={
        "v": tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 2])),
        "n": tf.train.Feature(int64_list=tf.train.Int64List(value=[2]))})).SerializeToString()
    for t_spec, n_spec in (
            (tf.io.VarLenFeature(tf.int64), tn.io.VarLenFeature(tn.int64)),
            (tf.io.RaggedFeature(tf.int64, value_key="v",
                                 partitions=[tf.io.RaggedFeature.RowLengths("n")]),
             tn.io.RaggedFeature(tn.int64, value_key="v",
                                 partitions=[tn.io.RaggedFeature.RowLengths("n")]))):
        ok, t_err = outcome(lambda: tf.data.Dataset.from_tensors(ex).map(
            lambda x: tf.io.parse_single_example(x, {"f": t_spec})["f"]).padded_batch(2))
        assert not ok
        ok, n_err = outcome(lambda: list(tn.data.Dataset.from_tensors(ex).map(
            lambda x: tn.io.parse_single_example(x, {"f": n_spec})["f"]).padded_batch(2)))
        assert not ok
        assert type(n_err) is type(t_err) is TypeError
        assert str(n_err) == str(t_err)


@pytest.mark.parametrize("round_", range(10))
def test_from_tensor_slices_then_batch_match_tensorflow(round_):
    rng = random.Random(2000 + round_)
    ind, vals, shape = rand_sparse(rng, 2, np.int32)
    shape[0] = max(shape[0], 1)
    rows = [[rng.randint(0, 9) for _ in range(rng.randint(0, 3))]
            for _ in range(int(shape[0]))]
    size = rng.randint(1, 3)
    t_rt = tf.ragged.constant(rows, dtype=tf.int32, ragged_rank=1)
    n_rt = tn.RaggedTensor.from_row_lengths(
        np.asarray([v for r in rows for v in r], np.int32), [len(r) for r in rows])
    t_ds = tf.data.Dataset.from_tensor_slices(
        {"s": tf.sparse.SparseTensor(ind, vals, shape), "r": t_rt})
    n_ds = tn.data.Dataset.from_tensor_slices({"s": tn.SparseTensor(ind, vals, shape),
                                               "r": n_rt})
    for t, n in zip(list(t_ds), list(n_ds)):
        same_sparse(t["s"], n["s"])
        same_ragged(t["r"], n["r"])
    t_out, n_out = list(t_ds.batch(size)), list(n_ds.batch(size))
    assert len(t_out) == len(n_out)
    for t, n in zip(t_out, n_out):
        same_sparse(t["s"], n["s"])
        same_ragged(t["r"], n["r"])
    ok, t_err = outcome(lambda: t_ds.padded_batch(2))
    assert not ok
    ok, n_err = outcome(lambda: list(n_ds.padded_batch(2)))
    assert not ok
    assert type(n_err) is type(t_err) is TypeError

"""tf.random against TensorFlow 2.21, bit for bit: the stateless ops for several seeds,
shapes and dtypes; the seeded stateful ops under TensorFlow's seeding rule (global seed,
op seed, op seeds drawn from the global seed, streams that continue per op and restart
at set_seed); random.shuffle, categorical, split and fold_in; and the orders of seeded
Dataset.shuffle, list_files and sample_from_datasets."""
import sys
from pathlib import Path

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
import tfnano as tn  # noqa: E402

SEEDS = [[0, 0], [1, 2], [-5, 123456789012], [2 ** 31 - 1, 7]]
SHAPES = [[], [1], [5], [3, 4], [257]]
FLOATS = ["float16", "float32", "float64"]


def same(x, y):
    x, y = np.asarray(x.numpy()), np.asarray(y.numpy())
    assert (x.dtype, x.shape) == (y.dtype, y.shape)
    assert x.tobytes() == y.tobytes()  # bit for bit, -0.0 and NaN included


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["stateless_uniform", "stateless_normal",
                                "stateless_truncated_normal"])
def test_stateless_floats(op, dtype, shape, seed):
    run = lambda lib: getattr(lib.random, op)(shape, seed=seed, dtype=getattr(lib, dtype))
    same(run(tf), run(tn))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("bounds", [(0, 10), (-7, 100003), (-2 ** 31, 2 ** 31 - 1),
                                    (None, None)])
def test_stateless_integers(bounds, dtype, seed):
    lo, hi = bounds
    run = lambda lib: lib.random.stateless_uniform([9], seed=seed, minval=lo, maxval=hi,
                                                   dtype=getattr(lib, dtype))
    same(run(tf), run(tn))


@pytest.mark.parametrize("seed", [[1, 2], [9, 0]])
def test_stateless_with_bounds_and_moments(seed):
    for lib_pair in ((lambda lib: lib.random.stateless_uniform(
            [6], seed=seed, minval=-2.5, maxval=7.0)),
                     (lambda lib: lib.random.stateless_normal(
            [6], seed=seed, mean=3.0, stddev=0.5, dtype=lib.float64)),
                     (lambda lib: lib.random.stateless_truncated_normal(
            [6], seed=seed, mean=-1.0, stddev=2.0))):
        same(lib_pair(tf), lib_pair(tn))


def stateful_program(lib, global_seed):
    lib.random.set_seed(global_seed)
    r = lib.random
    return [r.uniform([5]), r.uniform([3], seed=7), r.uniform([3], seed=7),
            r.uniform([2, 2], minval=-1.5, maxval=4.0, dtype=lib.float64),
            r.uniform([6], minval=3, maxval=1000, dtype=lib.int32),
            r.uniform([6], minval=-3, maxval=10 ** 12, dtype=lib.int64, seed=1),
            r.normal([7], mean=2.0, stddev=3.0), r.normal([7], seed=3, dtype=lib.float64),
            r.normal([3], dtype=lib.float16),
            r.truncated_normal([9], seed=3), r.truncated_normal([9], stddev=0.02),
            r.truncated_normal([5], dtype=lib.float64),
            r.shuffle(lib.range(10)), r.shuffle(lib.reshape(lib.range(12), [6, 2]), seed=5),
            r.shuffle([4]),
            r.categorical(lib.math.log([[0.1, 0.2, 0.7]]), 5),
            r.categorical([[1.0, 2.0, 3.0], [0.0, 0.0, -1.0]], 3, seed=9),
            r.uniform([2])]


@pytest.mark.parametrize("global_seed", [0, 1, 42, 2 ** 31 + 5])
def test_seeded_stateful_program(global_seed):
    for x, y in zip(stateful_program(tf, global_seed), stateful_program(tn, global_seed)):
        same(x, y)


def test_op_seed_without_global_seed():
    def run(lib):
        lib.random.set_seed(None)
        return [lib.random.uniform([2], seed=11), lib.random.uniform([2], seed=11),
                lib.random.normal([3], seed=0)]
    for x, y in zip(run(tf), run(tn)):
        same(x, y)


@pytest.mark.parametrize("seed", SEEDS)
def test_stateless_categorical_split_fold_in(seed):
    for run in (lambda lib: lib.random.stateless_categorical(
                    [[1.0, 2.0, 3.0], [0.0, 0.0, -1.0]], 7, seed=seed),
                lambda lib: lib.random.split(seed, 3),
                lambda lib: lib.random.fold_in(seed, 7),
                lambda lib: lib.random.fold_in(np.array(seed, np.int64), np.int64(2 ** 40))):
        same(run(tf), run(tn))


def epochs(ds, n=2):
    return [[np.asarray(e.numpy() if hasattr(e, "numpy") else e).tolist() for e in ds]
            for _ in range(n)]


def both_orders(make):
    tf.random.set_seed(None)
    tn.random.set_seed(None)
    assert epochs(make(tn)) == epochs(make(tf))


@pytest.mark.parametrize("seed", [0, 3, 2 ** 40])
@pytest.mark.parametrize("buffer", [1, 7, 20, 64])
@pytest.mark.parametrize("reshuffle", [None, False])
def test_shuffle_order(seed, buffer, reshuffle):
    both_orders(lambda lib: lib.data.Dataset.range(40).shuffle(
        buffer, seed=seed, reshuffle_each_iteration=reshuffle))


@pytest.mark.parametrize("global_seed", [1, 77])
def test_shuffle_order_from_the_global_seed(global_seed):
    def make(lib):
        lib.random.set_seed(global_seed)
        lib.random.uniform([1])  # an op before takes the first op seed
        return lib.data.Dataset.range(30).shuffle(8).repeat(2).batch(4)
    assert epochs(make(tn), 1) == epochs(make(tf), 1)


def test_list_files_order(tmp_path):
    for i in range(9):
        (tmp_path / ("part-%d.txt" % i)).write_text("x")
    both_orders(lambda lib: lib.data.Dataset.list_files(str(tmp_path / "*.txt"), seed=21))


@pytest.mark.parametrize("weights", [None, [0.2, 0.5, 0.3], [0.5, 0.0, 0.5],
                                     np.array([0.9, 0.05, 0.05])])
@pytest.mark.parametrize("stop", [False, True])
@pytest.mark.parametrize("seed", [1, 9])
def test_sample_from_datasets_order(weights, stop, seed):
    both_orders(lambda lib: lib.data.Dataset.sample_from_datasets(
        [lib.data.Dataset.range(0, 10), lib.data.Dataset.range(100, 103),
         lib.data.Dataset.range(200, 220)], weights=weights, seed=seed,
        stop_on_empty_dataset=stop))

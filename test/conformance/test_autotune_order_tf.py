"""AUTOTUNE cycle lengths on this machine: TFRecordDataset(num_parallel_reads=AUTOTUNE)
and interleave(num_parallel_calls=AUTOTUNE) read in TensorFlow's order; the seed
notebooks' map functions (a returned Python list, a dict of casts) give TensorFlow's
values, dtypes and shapes through the vectorized path."""
import sys
from pathlib import Path

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
sys.path.insert(0, str(ROOT / "test" / "bench"))
import tfnano as tn  # noqa: E402
import bench_w5  # noqa: E402


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    folder = tmp_path_factory.mktemp("autotune")
    files = []
    for s in range(5):
        p = str(folder / ("part-%d" % s))
        with tn.io.TFRecordWriter(p) as w:
            for i in range(4):
                w.write(b"%d_%02d" % (s, i))
        files.append(p)
    return files


def records(ds):
    return [bytes(x) for x in ds.as_numpy_iterator()]


def test_num_parallel_reads_autotune(shards):
    make = lambda t: t.data.TFRecordDataset(  # noqa: E731
        shards, num_parallel_reads=t.data.AUTOTUNE)
    assert records(make(tn)) == records(make(tf))


@pytest.mark.parametrize("cycle", [None, 2])
@pytest.mark.parametrize("calls", [None, "auto", 1])
def test_interleave_cycle_lengths(shards, cycle, calls):
    def make(t):
        c = t.data.AUTOTUNE if calls == "auto" else calls
        return t.data.Dataset.from_tensor_slices(shards).interleave(
            t.data.TFRecordDataset, cycle_length=cycle, num_parallel_calls=c,
            deterministic=True)
    assert records(make(tn)) == records(make(tf))


def values(x):
    if isinstance(x, dict):
        return {k: values(v) for k, v in sorted(x.items())}
    if isinstance(x, (tuple, list)):
        return tuple(values(v) for v in x)
    a = np.asarray(x)
    return (a.dtype.str if a.dtype != object else "bytes", a.shape, a.tolist())


def test_seed_004_targets_list(tmp_path):
    files, _ = bench_w5.write_images(str(tmp_path), 12)

    def make(t):
        auto = t.data.experimental.AUTOTUNE
        return t.data.TFRecordDataset(files, num_parallel_reads=auto).map(
            bench_w5.seed_004(t, True)(), num_parallel_calls=auto).batch(5)
    a = [values(e) for e in make(tf)]
    b = [values(e) for e in make(tn)]
    assert b[0][1][0] == "<i8" and b[0][1][1] == (5, 4)
    assert a == b


def test_seed_000_first_batches(tmp_path):
    files = bench_w5.write_w1(str(tmp_path), 600)

    def make(t):  # no shuffle; experimental_deterministic=False: compare the records
        batches = list(bench_w5.seed_000(t)(files, 64, None, False))
        first = batches[0]
        assert values(first)[0]["input_ids_question"][:2] == ("<i4", (64, 512))
        assert values(first)[1][:2] == ("<f4", (64, 30))
        return sorted(bench_w5.rows_of(batches))
    assert make(tf) == make(tn)

"""Cases found by running TensorFlow's own parsing tests against tfnano, compared here
with TensorFlow 2.21 itself: the same call under both gives the same values, or the
same error class and text."""
import re
import sys
from pathlib import Path

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
import tfnano as tn  # noqa: E402


def _flat(x):
    if isinstance(x, dict):
        return {k: _flat(v) for k, v in sorted(x.items())}
    if isinstance(x, (tuple, list)):
        return [_flat(v) for v in x]
    if hasattr(x, "to_list"):  # ragged
        return ("ragged", x.to_list())
    if hasattr(x, "dense_shape"):
        return ("sparse", _flat(x.indices), _flat(x.values), _flat(x.dense_shape))
    a = np.asarray(x.numpy() if hasattr(x, "numpy") else x)
    return (a.dtype.str if a.dtype != object else "O", a.shape, a.tolist())


def _outcome(lib, fn):
    try:
        return ("ok", _flat(fn(lib)))
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        msg = getattr(e, "message", str(e))
        msg = re.sub(r"^\{\{function_node [^}]*\}\} ", "", msg)
        msg = re.sub(r" \[Op:\w+\]( name: .*)?$", "", msg)
        return ("error", type(e).__name__, msg)


def _same(fn):
    want, got = _outcome(tf, fn), _outcome(tn, fn)
    assert got == want
    return want


def _sequence(lib, lists):
    F = lib.train
    return F.SequenceExample(feature_lists=F.FeatureLists(feature_list={
        k: F.FeatureList(feature=[
            F.Feature(int64_list=F.Int64List(value=v)) if all(isinstance(x, int) for x in v)
            else F.Feature(float_list=F.FloatList(value=v)) for v in rows])
        for k, rows in lists.items()})).SerializeToString()


@pytest.mark.parametrize("names", [[], np.empty((0,), dtype=bytes), ["x"], ["x", "y"]])
def test_example_names(names):
    got = _same(lambda lib: lib.io.parse_example(
        lib.constant([b"", b""]),
        {"a": lib.io.FixedLenFeature((1, 3), lib.int64, default_value=[0, 42, 0]),
         "s": lib.io.VarLenFeature(lib.int64)}, example_names=names))
    assert (got[0] == "error") == (len(names) == 1)


@pytest.mark.parametrize("rows,shape", [([[1, 2], [3, 4, 5]], (2,)), ([[1], [3, 4, 5]], (2,)),
                                        ([[1, 2, 3]], (2, 2)), ([[1, 2], [3, 4]], (2,)),
                                        ([[1, 2, 3, 4, 5, 6]], (3,))])
@pytest.mark.parametrize("batch", [False, True])
def test_fixed_len_sequence_value_counts(rows, shape, batch):
    def run(lib):
        s = _sequence(lib, {"a": rows})
        sf = {"a": lib.io.FixedLenSequenceFeature(shape, lib.int64)}
        if batch:
            return lib.io.parse_sequence_example(lib.constant([s, s]), sequence_features=sf)
        return lib.io.parse_single_sequence_example(s, sequence_features=sf)
    _same(run)


@pytest.mark.parametrize("splits", [[[0, 1, 4]], [[0, 1, 4], [0, 3]], [[0, 4], [0, 2, 3]],
                                    [[0, 1, 2, 4], [0, 1, 2], [0, 3]]])
@pytest.mark.parametrize("kind", ["RowSplits", "RowLimits", "RowStarts"])
def test_sequence_ragged_partition_steps(splits, kind):
    def run(lib):
        s = _sequence(lib, {"v": [[1.0, 2, 3, 4], [2.0, 4, 6]], "p": splits})
        part = getattr(lib.io.RaggedFeature, kind)("p")
        sf = {"b": lib.io.RaggedFeature(value_key="v", dtype=lib.float32, validate=True,
                                        partitions=[part])}
        return lib.io.parse_single_sequence_example(lib.constant(s), sequence_features=sf)
    _same(run)


@pytest.mark.parametrize("shape", [(1,), (2,), (1, 1)])
def test_parse_tensor_of_a_batch(shape):
    def run(lib):
        record = lib.io.serialize_tensor(lib.constant([1.0])).numpy()
        return lib.io.parse_tensor(lib.constant(np.full(shape, record, dtype=object)),
                                   lib.float32)
    assert _same(run)[0] == "error"


@pytest.mark.parametrize("size", [64, [64], (64,), [64, 32, 1], np.int32(64), "ab",
                                  [64.0, 32.0], [[64, 32]], [6, 5], np.array([6.0, 5.0]),
                                  [np.int64(6), 5], (4, np.float32(5)), [2 ** 40, 3],
                                  [True, False]])
def test_image_resize_size_argument(size):
    _same(lambda lib: lib.image.resize(np.zeros((8, 8, 3), np.float32), size))

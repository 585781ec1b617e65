"""Dataset.element_spec under TensorFlow 2.21 and tfnano, for the same pipelines: the
printed spec (TensorSpec / SparseTensorSpec / RaggedTensorSpec leaves in their
structure) must be TensorFlow's, and the leaves compare equal to TensorFlow's."""
import sys
from pathlib import Path

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
import tfnano as tn  # noqa: E402


def _example(lib, i):
    f = lib.train.Feature
    return lib.train.Example(features=lib.train.Features(feature={
        "ids": f(int64_list=lib.train.Int64List(value=list(range(i % 3 + 1)))),
        "fixed": f(int64_list=lib.train.Int64List(value=[i, i + 1])),
        "score": f(float_list=lib.train.FloatList(value=[i / 2])),
        "name": f(bytes_list=lib.train.BytesList(value=[b"n%d" % i])),
    })).SerializeToString()


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("spec") / "data.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for i in range(6):
            w.write(_example(tf, i))
    return path


def _features(lib):
    return {"fixed": lib.io.FixedLenFeature([2], lib.int64),
            "score": lib.io.FixedLenFeature([], lib.float32),
            "name": lib.io.FixedLenFeature([], lib.string),
            "ids": lib.io.VarLenFeature(lib.int64)}


PIPELINES = {
    "range": lambda lib, p: lib.data.Dataset.range(5),
    "range_batch": lambda lib, p: lib.data.Dataset.range(5).batch(2),
    "range_batch_drop": lambda lib, p: lib.data.Dataset.range(5).batch(2, drop_remainder=True),
    "slices_dict": lambda lib, p: lib.data.Dataset.from_tensor_slices(
        {"a": [[1, 2], [3, 4]], "b": ["x", "y"]}),
    "slices_tuple_float": lambda lib, p: lib.data.Dataset.from_tensor_slices(
        (np.zeros((3, 2, 2), np.float32), np.arange(3))),
    "tensors_sparse": lambda lib, p: lib.data.Dataset.from_tensors(
        lib.sparse.SparseTensor([[0, 1]], [1.0], [2, 3])),
    "slices_sparse_batch": lambda lib, p: lib.data.Dataset.from_tensor_slices(
        lib.sparse.SparseTensor([[0, 1], [1, 0]], [1, 2], [2, 3])).batch(2),
    "tensors_ragged": lambda lib, p: lib.data.Dataset.from_tensors(
        lib.ragged.constant([[1, 2], [3]])),
    "slices_ragged": lambda lib, p: lib.data.Dataset.from_tensor_slices(
        lib.ragged.constant([[1, 2], [3]])),
    "slices_ragged_batch": lambda lib, p: lib.data.Dataset.from_tensor_slices(
        lib.ragged.constant([[1, 2], [3]])).batch(2),
    "tfrecord": lambda lib, p: lib.data.TFRecordDataset(p),
    "tfrecord_batch": lambda lib, p: lib.data.TFRecordDataset(p).batch(4),
    "parse_single": lambda lib, p: lib.data.TFRecordDataset(p).map(
        lambda r: lib.io.parse_single_example(r, _features(lib))),
    "parse_single_batch": lambda lib, p: lib.data.TFRecordDataset(p).map(
        lambda r: lib.io.parse_single_example(r, _features(lib))).batch(3),
    "batch_parse": lambda lib, p: lib.data.TFRecordDataset(p).batch(3).map(
        lambda r: lib.io.parse_example(r, _features(lib))),
    "map_cast_tuple": lambda lib, p: lib.data.TFRecordDataset(p).map(
        lambda r: lib.io.parse_single_example(r, _features(lib))).map(
        lambda e: (lib.cast(e["fixed"], lib.int32), e["score"] * 2.0)),
    "padded_batch": lambda lib, p: lib.data.Dataset.range(1, 4).map(
        lambda x: lib.fill([x], x)).padded_batch(2),
    "padded_batch_known_dims": lambda lib, p: lib.data.Dataset.range(1, 6).map(
        lambda x: lib.zeros([3])).padded_batch(2),
    "padded_batch_shapes_drop": lambda lib, p: lib.data.Dataset.range(1, 6).map(
        lambda x: lib.fill([x], x)).padded_batch(2, padded_shapes=[7], drop_remainder=True),
    "padded_batch_minus_one": lambda lib, p: lib.data.Dataset.range(1, 6).map(
        lambda x: lib.fill([x, 2], x)).padded_batch(2, padded_shapes=[-1, 4]),
    "padded_batch_tensor_shape": lambda lib, p: lib.data.Dataset.range(1, 6).map(
        lambda x: lib.fill([x, 2], x)).padded_batch(2, padded_shapes=lib.constant([6, 2])),
    "padded_batch_tuple": lambda lib, p: lib.data.Dataset.range(1, 6).map(
        lambda x: (lib.fill([x], x), x)).padded_batch(2, padded_shapes=([None], [])),
    "padded_batch_scalars_drop": lambda lib, p: lib.data.Dataset.range(1, 6).padded_batch(
        2, drop_remainder=True),
    "unbatch": lambda lib, p: lib.data.Dataset.range(6).batch(3).unbatch(),
    "zip_enumerate": lambda lib, p: lib.data.Dataset.zip(
        (lib.data.Dataset.range(3), lib.data.Dataset.from_tensor_slices([1.5, 2.5, 3.5])))
    .enumerate(),
    "generator": lambda lib, p: lib.data.Dataset.from_generator(
        lambda: iter([[1, 2]]), output_signature=lib.TensorSpec([None], lib.int32)),
    "concatenate": lambda lib, p: lib.data.Dataset.from_tensor_slices([[1, 2]]).concatenate(
        lib.data.Dataset.from_tensor_slices([[3, 4, 5]])),
    "concatenate_tuple": lambda lib, p: lib.data.Dataset.zip(
        (lib.data.Dataset.range(2), lib.data.Dataset.range(2))).concatenate(
        lib.data.Dataset.zip((lib.data.Dataset.range(3), lib.data.Dataset.range(3)))),
    "decode_raw": lambda lib, p: lib.data.TFRecordDataset(p).map(
        lambda r: lib.reshape(lib.io.decode_raw(r, lib.uint8)[:4], [2, 2])),
    "ragged_batch_scalars": lambda lib, p: lib.data.Dataset.range(5).ragged_batch(2),
    "ragged_batch_drop_fixed": lambda lib, p: lib.data.Dataset.from_tensor_slices(
        np.zeros((4, 3), np.int32)).ragged_batch(2, drop_remainder=True),
    "ragged_batch_varlen_dict": lambda lib, p: lib.data.Dataset.range(5).map(
        lambda x: {"a": lib.range(x), "b": x}).ragged_batch(2, row_splits_dtype=lib.int32),
    "ragged_batch_rows_then_fixed": lambda lib, p: lib.data.Dataset.range(3).map(
        lambda x: lib.zeros([x, 3])).ragged_batch(2),
    "ragged_batch_fixed_then_rows": lambda lib, p: lib.data.Dataset.range(3).map(
        lambda x: lib.zeros([3, x])).ragged_batch(2, drop_remainder=True),
    "ragged_batch_twice": lambda lib, p: lib.data.Dataset.range(3).map(
        lambda x: lib.range(x)).ragged_batch(2).ragged_batch(3),
    "ragged_batch_sparse": lambda lib, p: lib.data.TFRecordDataset(p).map(
        lambda r: lib.io.parse_single_example(r, _features(lib))).ragged_batch(4),
    "ragged_batch_split": lambda lib, p: lib.data.Dataset.from_tensor_slices(
        ["a b", "c"]).map(lambda s: lib.strings.split(s)).ragged_batch(2),
    "interleave_tfrecord": lambda lib, p: lib.data.Dataset.from_tensor_slices([p, p])
    .interleave(lambda f: lib.data.TFRecordDataset(f), cycle_length=2),
    "interleave_parse": lambda lib, p: lib.data.Dataset.from_tensor_slices([p]).interleave(
        lambda f: lib.data.TFRecordDataset(f).map(
            lambda r: lib.io.parse_single_example(r, _features(lib))), cycle_length=1),
    "interleave_then_map": lambda lib, p: lib.data.Dataset.from_tensor_slices([p, p])
    .interleave(lib.data.TFRecordDataset, cycle_length=2, block_length=2).map(
        lambda r: lib.io.parse_single_example(r, _features(lib))).batch(2),
    "flat_map_range": lambda lib, p: lib.data.Dataset.range(3).flat_map(
        lambda x: lib.data.Dataset.range(x).map(lambda y: (x, lib.cast(y, lib.float32)))),
    "group_by_window": lambda lib, p: lib.data.Dataset.range(10).group_by_window(
        lambda x: x % 2, lambda k, w: w.batch(3), window_size=3),
    "group_by_window_padded": lambda lib, p: lib.data.Dataset.range(1, 6).map(
        lambda x: lib.fill([x], x)).group_by_window(
        lambda x: lib.size(x, out_type=lib.int64) % 2,
        lambda k, w: w.padded_batch(2, drop_remainder=True), window_size=2),
    "strings": lambda lib, p: lib.data.Dataset.from_tensor_slices(["a b", "c"]).map(
        lambda s: lib.strings.to_hash_bucket_fast(lib.strings.lower(s), 10)),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_element_spec_prints_as_tensorflow(name, records):
    want = PIPELINES[name](tf, records).element_spec
    got = PIPELINES[name](tn, records).element_spec
    assert repr(got) == repr(want)
    assert str(got) == str(want)
    for w, g in zip(tf.nest.flatten(want, expand_composites=False), tn.nest.flatten(got)):
        assert type(g).__name__ == type(w).__name__
        assert g.dtype == w.dtype and g.shape.as_list() == w.shape.as_list()


def test_specs_through_interleave_and_group_by_window_give_tensorflows_values(records):
    """The function is called on a stand-in to learn the spec; the data are still
    TensorFlow's (a map after interleave is now traced)."""
    for name in ("interleave_then_map", "group_by_window_padded", "flat_map_range"):
        want = [tf.nest.map_structure(
            lambda t: tf.sparse.to_dense(t).numpy().tolist() if isinstance(
                t, tf.SparseTensor) else t.numpy().tolist(), el)
                for el in PIPELINES[name](tf, records)]
        got = [tn.nest.map_structure(
            lambda t: np.asarray(tn.sparse.to_dense(t)).tolist() if type(t).__name__ ==
            "SparseTensor" else np.asarray(t).tolist(), el)
            for el in PIPELINES[name](tn, records)]
        assert got == want, name


def test_element_spec_feeds_tensorflows_own_api(records):
    """Specs made by tfnano are accepted where TensorFlow's are taken, and back."""
    spec = PIPELINES["parse_single"](tn, records).element_spec
    assert spec["fixed"] == tn.TensorSpec([2], tn.int64)
    assert spec["ids"] == tn.SparseTensorSpec([None], tn.int64)
    ds = tn.data.Dataset.from_generator(lambda: iter([([1, 2], 0.5)]), output_signature=(
        tn.TensorSpec([2], tn.int32), tn.TensorSpec([], tn.float32)))
    assert repr(ds.element_spec) == repr(tf.data.Dataset.from_generator(
        lambda: iter([([1, 2], 0.5)]), output_signature=(
            tf.TensorSpec([2], tf.int32), tf.TensorSpec([], tf.float32))).element_spec)

"""The C pipeline engine (tfnano._c.pipeline.CPipeline) against TensorFlow 2.21 in one
process: the record order of `from_tensor_slices(files).interleave(TFRecordDataset,
cycle_length, block_length)` over uneven files, parsed batches equal to TensorFlow's
`batch(n).map(parse_example)`, and the texts of a damaged record and of a record that
fails to parse."""
import sys
from pathlib import Path

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
import tfnano as tn  # noqa: E402
from tfnano import _parsing  # noqa: E402
from tfnano._c.pipeline import CPipeline  # noqa: E402


def _example(i, f):
    return tf.train.Example(features=tf.train.Features(feature={
        "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[f, i])),
        "seq": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5 * i] * (i % 4))),
        "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"n%d" % i])),
    })).SerializeToString()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cpipeline")
    out = []
    for f, n in enumerate([9, 0, 4, 17, 1, 11, 6]):
        path = str(folder / ("part-%d" % f))
        with tf.io.TFRecordWriter(path) as w:
            for i in range(n):
                w.write(_example(i, f))
        out.append(path)
    return out


@pytest.mark.parametrize("cycle,block", [(1, 1), (2, 1), (3, 2), (4, 3), (5, 16), (9, 2)])
def test_order_is_tensorflows_interleave(files, cycle, block):
    ds = tf.data.Dataset.from_tensor_slices(files).interleave(
        tf.data.TFRecordDataset, cycle_length=cycle, block_length=block)
    want = [r.numpy() for r in ds]
    got = [r for b in CPipeline(files, cycle_length=cycle, block_length=block, batch_size=5)
           for r in b.numpy()]
    assert got == want


@pytest.mark.parametrize("reads", [2, 4])
def test_order_is_num_parallel_reads(files, reads):
    want = [r.numpy() for r in tf.data.TFRecordDataset(files, num_parallel_reads=reads)]
    got = [r for b in CPipeline(files, cycle_length=reads, batch_size=7) for r in b.numpy()]
    assert got == want


def test_parsed_batches_are_tensorflows(files):
    feats = {"id": ("FixedLenFeature", [2], "int64"), "name": ("FixedLenFeature", [], "string"),
             "seq": ("FixedLenSequenceFeature", [], "float32")}

    def spec(lib):
        out = {}
        for k, (kind, shape, dt) in feats.items():
            if kind == "FixedLenFeature":
                out[k] = lib.io.FixedLenFeature(shape, getattr(lib, dt))
            else:
                out[k] = lib.io.FixedLenSequenceFeature(shape, getattr(lib, dt),
                                                        allow_missing=True)
        return out

    tf_spec = spec(tf)
    ds = tf.data.TFRecordDataset(files, num_parallel_reads=3).batch(8).map(
        lambda r: tf.io.parse_example(r, tf_spec))
    want = [{k: v.numpy() for k, v in b.items()} for b in ds]
    got = list(CPipeline(files, cycle_length=3, batch_size=8, num_threads=2,
                         spec=_parsing.get_spec(spec(tn))))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert sorted(g) == sorted(w)
        for k in w:
            assert g[k].shape == w[k].shape, k
            if w[k].dtype == object:
                assert g[k].tolist() == w[k].tolist()
            else:
                assert g[k].dtype == w[k].dtype
                np.testing.assert_array_equal(g[k], w[k])


def test_damaged_record_text_is_tensorflows(tmp_path):
    path = str(tmp_path / "d")
    with tf.io.TFRecordWriter(path) as w:
        for i in range(6):
            w.write(b"record %d" % i)
    data = bytearray(Path(path).read_bytes())
    data[(8 + 16) * 3 + 12] ^= 1  # a payload byte of record 3
    Path(path).write_bytes(bytes(data))
    with pytest.raises(tf.errors.DataLossError) as tf_err:
        list(tf.data.TFRecordDataset(path).batch(2))
    with pytest.raises(tn.errors.DataLossError) as tn_err:
        list(CPipeline([path], batch_size=2))
    assert tn_err.value.message in tf_err.value.message  # TF wraps it in op context
    assert tn_err.value.message.startswith("corrupted record at ")


def _outcomes(it, errors):
    out = []
    it = iter(it)
    while True:
        try:
            b = next(it)
        except StopIteration:
            return out
        except errors:
            out.append("error")
            continue
        out.append(np.asarray(b["id"]).tolist())


@pytest.mark.parametrize("fused", [False, True])
def test_read_error_inside_a_batch_as_tensorflow(tmp_path, fused):
    paths = []
    for f, n in enumerate([6, 5, 4]):
        path = str(tmp_path / ("f%d" % f))
        with tf.io.TFRecordWriter(path) as w:
            for i in range(n):
                w.write(_example(i, f))
        paths.append(path)
    data = bytearray(Path(paths[1]).read_bytes())
    size = len(_example(0, 1)) + 16  # the records of file 1 are all this long up to 2
    data[size * 2 + 12] ^= 1
    Path(paths[1]).write_bytes(bytes(data))
    spec_tf = {"id": tf.io.FixedLenFeature([2], tf.int64)}
    ds = tf.data.TFRecordDataset(paths)
    if fused:  # map(f).batch(n): TensorFlow fuses it into map_and_batch
        ds = ds.map(lambda r: tf.io.parse_single_example(r, spec_tf)).batch(4)
    else:
        ds = ds.batch(4).map(lambda r: tf.io.parse_example(r, spec_tf))
    want = _outcomes(ds, tf.errors.OpError)
    spec = _parsing.get_spec({"id": tn.io.FixedLenFeature([2], tn.int64)})
    got = _outcomes(CPipeline(paths, batch_size=4, spec=spec, error_fills_batch=fused),
                    tn.errors.OpError)
    assert got == want
    assert "error" in got


def test_parse_error_text_is_tensorflows(tmp_path):
    path = str(tmp_path / "p")
    with tf.io.TFRecordWriter(path) as w:
        for i in range(4):
            w.write(_example(i, 0) if i != 2 else b"\x0a\x05junk")
    spec_tf = {"id": tf.io.FixedLenFeature([2], tf.int64)}
    with pytest.raises(tf.errors.InvalidArgumentError) as tf_err:
        list(tf.data.TFRecordDataset(path).batch(4).map(lambda r: tf.io.parse_example(r, spec_tf)))
    spec = _parsing.get_spec({"id": tn.io.FixedLenFeature([2], tn.int64)})
    with pytest.raises(tn.errors.InvalidArgumentError) as tn_err:
        list(CPipeline([path], batch_size=4, spec=spec))
    assert tn_err.value.message in tf_err.value.message

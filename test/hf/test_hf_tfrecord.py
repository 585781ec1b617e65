"""tfnano.hf against Hugging Face datasets: TFRecord -> Dataset (Arrow, memory-mapped,
HF feature types) and Dataset -> TFRecord shards, byte for byte."""
import os

import datasets
import numpy as np
import pytest

import tfnano as tf
from tfnano.hf import hf_features, load_tfrecord, to_tfrecord

FEATURES = {
    "id": tf.io.FixedLenFeature([], tf.int64),
    "emb": tf.io.FixedLenFeature([4], tf.float32),
    "text": tf.io.FixedLenFeature([], tf.string),
    "tokens": tf.io.VarLenFeature(tf.int64),
}


def _records(n, seed=0):
    """Examples as tfnano's tf.train.Example writes them (keys in sorted order)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        feats = {
            "emb": tf.train.Feature(float_list=tf.train.FloatList(
                value=rng.random(4, dtype=np.float32).tolist())),
            "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i - 3])),
            "text": tf.train.Feature(bytes_list=tf.train.BytesList(
                value=[("row %d \u00e9" % i).encode()])),
            "tokens": tf.train.Feature(int64_list=tf.train.Int64List(
                value=rng.integers(-5, 2 ** 40, i % 5).tolist())),
        }
        ex = tf.train.Example(features=tf.train.Features(feature=feats))
        out.append(ex.SerializeToString())
    return out


def _write(path, recs, compression=None):
    with tf.io.TFRecordWriter(str(path), compression) as w:
        w.write_many(recs)
    return str(path)


@pytest.fixture
def shards(tmp_path):
    recs = _records(70)
    return [_write(tmp_path / "a.tfrecord", recs[:30]),
            _write(tmp_path / "b.tfrecord", recs[30:])], recs


def test_load_is_memory_mapped_with_hf_types(shards, tmp_path):
    paths, recs = shards
    ds = load_tfrecord(str(tmp_path / "*.tfrecord"), FEATURES, cache_dir=tmp_path / "c")
    assert isinstance(ds, datasets.Dataset) and len(ds) == 70
    assert ds.cache_files and ds.cache_files[0]["filename"].startswith(str(tmp_path / "c"))
    f = ds.features
    assert f["id"] == datasets.Value("int64") and f["text"] == datasets.Value("binary")
    assert f["emb"].length == 4 and f["emb"].feature == datasets.Value("float32")
    assert f["tokens"].feature == datasets.Value("int64")
    assert f == hf_features(FEATURES)
    ref = tf.io.parse_example(recs, FEATURES)
    np.testing.assert_array_equal(np.array(list(ds["id"])), ref["id"].numpy())
    np.testing.assert_array_equal(np.array(list(ds["emb"]), np.float32), ref["emb"].numpy())
    assert list(ds["text"]) == ref["text"].numpy().tolist()
    assert ds[33]["tokens"] == tf.io.parse_single_example(recs[33], FEATURES)[
        "tokens"].values.tolist()
    # numpy / torch-style formats work on it as on any Dataset
    assert ds.with_format("numpy")[:3]["emb"].shape == (3, 4)
    # loaded again: the same cache file, no second parse
    again = load_tfrecord(paths, FEATURES, cache_dir=tmp_path / "c")
    assert again.cache_files[0]["filename"] == ds.cache_files[0]["filename"]
    assert len(os.listdir(tmp_path / "c")) == 1


def test_inferred_features_and_in_memory(shards):
    paths, recs = shards
    ds = load_tfrecord(paths, keep_in_memory=True)
    assert not ds.cache_files and len(ds) == 70
    assert ds.features == hf_features(FEATURES)  # the inferred schema is the same
    assert ds[5] == load_tfrecord(paths, FEATURES, keep_in_memory=True)[5]
    assert ds[5]["id"] == 2 and ds[5]["text"] == "row 5 \u00e9".encode()


@pytest.mark.parametrize("compression", [None, "GZIP"])
def test_round_trip_is_byte_identical(tmp_path, compression):
    recs = _records(101, seed=4)
    src = _write(tmp_path / "in.tfrecord", recs, compression)
    ds = load_tfrecord(src, compression=compression, cache_dir=tmp_path / "c")
    out = to_tfrecord(ds, str(tmp_path / "out" / "part-{shard:02d}-of-{num_shards:02d}"),
                      num_shards=3, compression=compression)
    assert [os.path.basename(p) for p in out] == ["part-00-of-03", "part-01-of-03",
                                                  "part-02-of-03"]
    back = [r for p in out for r in tf.data.TFRecordDataset(
        p, compression_type=compression or "").as_numpy_iterator()]
    assert back == recs
    assert [len(list(tf.data.TFRecordDataset(p, compression_type=compression or "")))
            for p in out] == [33, 34, 34]
    if compression is None:  # one shard: the file itself, byte for byte
        one = to_tfrecord(ds, tmp_path / "one.tfrecord")
        assert open(one[0], "rb").read() == open(src, "rb").read()


def test_hf_made_dataset_to_tfrecord(tmp_path):
    ds = datasets.Dataset.from_dict({
        "label": [0, 1, 1], "score": [0.5, 1.25, -2.0], "text": ["a", "bb", ""],
        "ids": [[1, 2], [], [3]]})
    ds = ds.shuffle(seed=1)  # an indices mapping: rows go out in the shuffled order
    path = to_tfrecord(ds, tmp_path / "hf.tfrecord")[0]
    feats = {"label": tf.io.FixedLenFeature([], tf.int64),
             "score": tf.io.FixedLenFeature([], tf.float32),
             "text": tf.io.FixedLenFeature([], tf.string),
             "ids": tf.io.VarLenFeature(tf.int64)}
    got = [tf.io.parse_single_example(r, feats)
           for r in tf.data.TFRecordDataset(path).as_numpy_iterator()]
    assert [int(g["label"]) for g in got] == ds["label"]
    assert [g["text"] for g in got] == [t.encode() for t in ds["text"]]
    assert [g["ids"].values.tolist() for g in got] == ds["ids"]
    back = load_tfrecord(path, feats, keep_in_memory=True)
    assert back["label"] == ds["label"] and back["ids"] == ds["ids"]


def test_bad_pattern(tmp_path):
    ds = datasets.Dataset.from_dict({"a": [1, 2]})
    with pytest.raises(ValueError, match="no .shard. field"):
        to_tfrecord(ds, str(tmp_path / "x-{num_shards}"), num_shards=2)


def test_imports_without_datasets():
    import subprocess
    import sys
    code = ("import sys; sys.modules['datasets'] = None; import tfnano.hf as h; "
            "print(sorted(h.__all__))\n"
            "try:\n    h.load_tfrecord('x')\nexcept ImportError as e:\n    print(e)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True)
    assert "pip install datasets" in out.stdout


def test_cache_follows_the_files(tmp_path):
    path = _write(tmp_path / "x.tfrecord", _records(12))
    assert len(load_tfrecord(path, FEATURES, cache_dir=tmp_path / "c")) == 12
    _write(tmp_path / "x.tfrecord", _records(5))  # rewritten: another size and mtime
    assert len(load_tfrecord(path, FEATURES, cache_dir=tmp_path / "c")) == 5
    assert len(os.listdir(tmp_path / "c")) == 2

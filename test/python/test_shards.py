"""tfnano.io.write_shards: numbered shards from columns or records, cut by records or
bytes, optional compression, temporary names until everything is written."""
import io
import os

import numpy as np
import pytest

import tfnano as tf
from tfnano.io import _shards


def _read(paths, compression=None):
    return [r for p in paths for r in tf.io.tf_record_iterator(p, options=compression)]


def test_columns_by_records(tmp_path):
    n = 25
    ids = np.arange(n * 3).reshape(n, 3)
    labels = np.linspace(0, 1, n, dtype=np.float32)
    names = [b"r%d" % i for i in range(n)]
    pattern = str(tmp_path / "out" / "train-{shard:05d}-of-{num_shards:05d}.tfrec")
    paths = tf.io.write_shards({"ids": ids, "label": labels, "name": names}, pattern,
                               records_per_shard=10)
    assert paths == [str(tmp_path / "out" / ("train-%05d-of-00003.tfrec" % i))
                     for i in range(3)]
    assert [len(_read([p])) for p in paths] == [10, 10, 5]
    assert _read(paths) == tf.serialize_columns({"ids": ids, "label": labels, "name": names})
    assert sorted(os.listdir(tmp_path / "out")) == sorted(os.path.basename(p) for p in paths)


def test_columns_in_chunks_match_one_call(monkeypatch, tmp_path):
    monkeypatch.setattr(_shards, "_CHUNK_ROWS", 7)
    n = 30
    cols = {"x": np.arange(n, dtype=np.int64), "seq": [list(range(i % 5)) for i in range(n)]}
    paths = tf.io.write_shards(cols, str(tmp_path / "s-{shard}"), records_per_shard=8)
    assert _read(paths) == tf.serialize_columns(cols)


def test_records_by_bytes_with_gzip(tmp_path):
    records = [bytes([i]) * 84 for i in range(10)]  # 100 bytes framed
    paths = tf.io.write_shards(iter(records), str(tmp_path / "p-{shard}-of-{num_shards}.gz"),
                               bytes_per_shard=250, compression="GZIP")
    assert [os.path.basename(p) for p in paths] == ["p-%d-of-4.gz" % i for i in range(4)]
    assert [len(_read([p], "GZIP")) for p in paths] == [3, 3, 3, 1]
    assert _read(paths, "GZIP") == records
    assert open(paths[0], "rb").read(2) == b"\x1f\x8b"


def test_examples_strings_and_tensors(tmp_path):
    ex = tf.train.Example(features=tf.train.Features(feature={
        "a": tf.train.Feature(int64_list=tf.train.Int64List(value=[1]))}))
    src = tmp_path / "src.tfrecord"
    with tf.io.TFRecordWriter(str(src)) as w:
        w.write(b"from-a-dataset")
    items = [ex, "text", b"raw"] + list(tf.data.TFRecordDataset(str(src)))
    paths = tf.io.write_shards(items, str(tmp_path / "m-{shard}"), records_per_shard=2)
    assert _read(paths) == [ex.SerializeToString(), b"text", b"raw", b"from-a-dataset"]


def test_default_is_about_100_mb_per_shard(tmp_path):
    assert _shards.DEFAULT_BYTES_PER_SHARD == 100 * 1000 * 1000
    paths = tf.io.write_shards([b"x"] * 1000, str(tmp_path / "d-{shard}"))
    assert len(paths) == 1 and len(_read(paths)) == 1000


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="no {shard} field"):
        tf.io.write_shards([b"x"], str(tmp_path / "same.tfrec"))
    with pytest.raises(ValueError, match="unknown field"):
        tf.io.write_shards([b"x"], str(tmp_path / "{part}-{shard}"))
    with pytest.raises(ValueError, match="not both"):
        tf.io.write_shards([b"x"], str(tmp_path / "{shard}"), records_per_shard=1,
                           bytes_per_shard=1)
    with pytest.raises(ValueError, match=">= 1"):
        tf.io.write_shards([b"x"], str(tmp_path / "{shard}"), records_per_shard=0)
    assert tf.io.write_shards([], str(tmp_path / "e-{shard}")) == []


def test_a_failure_leaves_no_finished_looking_file(tmp_path):
    def records():
        for i in range(5):
            yield b"r%d" % i
        raise RuntimeError("the source broke")
    with pytest.raises(RuntimeError, match="the source broke"):
        tf.io.write_shards(records(), str(tmp_path / "f-{shard}-of-{num_shards}"),
                           records_per_shard=2)
    assert os.listdir(tmp_path) == []


def test_progress_line_when_asked(tmp_path, monkeypatch):
    from tfnano import _progress
    monkeypatch.setattr(_progress.Progress, "DELAY", 0.0)
    monkeypatch.setattr(_progress.Progress, "EVERY", 0.0)
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    tf.io.write_shards([b"x"] * 50, str(tmp_path / "g-{shard}"), records_per_shard=20,
                       progress=True)
    assert "write_shards [####################] 50/50" in err.getvalue()
    err.truncate(0)
    tf.io.write_shards([b"x"] * 50, str(tmp_path / "h-{shard}"), progress=False)
    assert err.getvalue() == ""


def test_urls_through_fsspec():
    fsspec = pytest.importorskip("fsspec")
    paths = tf.io.write_shards([b"a", b"b", b"c"], "memory://shards/s-{shard}-of-{num_shards}",
                               records_per_shard=2)
    assert paths == ["memory://shards/s-0-of-2", "memory://shards/s-1-of-2"]
    assert [r.numpy() for r in tf.data.TFRecordDataset(paths)] == [b"a", b"b", b"c"]
    assert not [p for p in fsspec.filesystem("memory").ls("/shards", detail=False)
                if ".tmp-" in p]

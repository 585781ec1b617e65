"""tfnano.dask on a dask.distributed LocalCluster with 2 worker processes: shards
written per partition, read back by tfnano, byte-identical across runs, atomic."""
import json
import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import dask.dataframe as dd
import distributed

import tfnano as tf
from tfnano import arrow as ta
from tfnano import dask as tdask


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def frame(n, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "id": np.arange(n, dtype=np.int64),
        "score": rng.random(n).astype(np.float32),
        "name": ["r%d" % i for i in range(n)],
        # list columns as Arrow lists (dask turns object columns into strings)
        "tokens": pd.Series([rng.integers(0, 100, int(k)).tolist()
                             for k in rng.integers(0, 6, n)],
                            dtype=pd.ArrowDtype(pa.list_(pa.int64()))),
        "maybe": pd.array([None if i % 3 == 0 else i * 10 for i in range(n)],
                          dtype="Int64"),
    })


FEATURES = {"id": tf.io.FixedLenFeature([], tf.int64),
            "score": tf.io.FixedLenFeature([], tf.float32),
            "name": tf.io.FixedLenFeature([], tf.string),
            "tokens": tf.io.VarLenFeature(tf.int64),
            "maybe": tf.io.FixedLenFeature([], tf.int64)}


def test_write_then_read_on_a_local_cluster(client, tmp_path):
    df = frame(100)
    ddf = dd.from_pandas(df, npartitions=4)
    paths = tdask.to_tfrecord(ddf, str(tmp_path / "out" / "train-*.tfrec"))
    assert [os.path.basename(p) for p in paths] == [
        "train-%05d-of-00004.tfrec" % i for i in range(4)]
    manifest = json.loads((tmp_path / "out" / "train-manifest.json").read_text())
    assert manifest["records"] == 100 and manifest["num_shards"] == 4
    assert [s["records"] for s in manifest["shards"]] == [
        len(p) for p in ddf.partitions] == [25, 25, 25, 25]
    # bytes: each file's size; payload_bytes: its Examples (16 bytes of framing each)
    for s, p in zip(manifest["shards"], paths):
        assert s["bytes"] == os.path.getsize(p)
        assert s["payload_bytes"] == s["bytes"] - 16 * s["records"]
    assert not [f for f in os.listdir(tmp_path / "out") if ".tmp-" in f]
    # every shard read back by tfnano alone, in partition order
    recs = [bytes(r.numpy()) for r in tf.data.TFRecordDataset(paths)]
    got = tf.io.parse_example(recs, {k: v for k, v in FEATURES.items() if k != "maybe"})
    np.testing.assert_array_equal(np.asarray(got["id"]), df["id"].to_numpy())
    np.testing.assert_array_equal(np.asarray(got["score"]), df["score"].to_numpy())
    assert [bytes(x) for x in np.asarray(got["name"])] == [s.encode() for s in df["name"]]
    # and as a dask DataFrame, one partition per shard
    back = tdask.read_tfrecord(str(tmp_path / "out" / "train-*.tfrec"), FEATURES)
    assert back.npartitions == 4
    pdf = back.compute()
    assert pdf["id"].tolist() == df["id"].tolist()
    assert pdf["tokens"].tolist() == df["tokens"].tolist()
    assert [None if pd.isna(v) else v for v in pdf["maybe"]] == \
        [None if pd.isna(v) else int(v) for v in df["maybe"]]
    inferred = tdask.read_tfrecord(paths)
    assert inferred.compute()["name"].tolist() == [s.encode() for s in df["name"]]


def test_shards_are_byte_identical_across_runs_and_to_to_arrow(client, tmp_path):
    ddf = dd.from_pandas(frame(60, seed=4), npartitions=3)
    a = tdask.to_tfrecord(ddf, str(tmp_path / "a" / "part-*.tfrec.gz"), compression="GZIP")
    b = tdask.to_tfrecord(ddf, str(tmp_path / "b" / "part-*.tfrec.gz"), compression="GZIP")
    for x, y in zip(a, b):
        assert open(x, "rb").read() == open(y, "rb").read()
    # a shard holds exactly from_arrow of its partition
    first = ddf.partitions[0].compute()
    want = ta.from_arrow(pa.Table.from_pandas(first, preserve_index=False))
    got = [bytes(r.numpy()) for r in tf.data.TFRecordDataset(a[0], compression_type="GZIP")]
    assert got == want


def test_a_failed_partition_leaves_no_shard_and_a_retry_rewrites_it(tmp_path):
    path = str(tmp_path / "x-00000-of-00001.tfrec")

    table = pa.table({"a": pa.array([1, 2, 3])})
    nested = pa.table({"a": pa.array([[[1]]], pa.list_(pa.list_(pa.int64())))})
    with pytest.raises(TypeError, match="variable-length lists"):  # after the open
        tdask.write_partition(nested, path)
    assert os.listdir(tmp_path) == []
    # a stale temporary name of a killed attempt is cleaned up after the rewrite
    stale = path + ".tmp-deadbeef0000"
    open(stale, "wb").write(b"partial")
    out = tdask.write_partition(table, path)
    assert out["records"] == 3
    tdask._finish([out], str(tmp_path / "x-*.tfrec"), [path], None)
    assert sorted(os.listdir(tmp_path)) == ["x-00000-of-00001.tfrec", "x-manifest.json"]
    assert [bytes(r.numpy()) for r in tf.data.TFRecordDataset(path)] == ta.from_arrow(table)


def test_shard_names():
    assert tdask.shard_paths("o/t-*.tfrec", 2) == ["o/t-00000-of-00002.tfrec",
                                                    "o/t-00001-of-00002.tfrec"]
    assert tdask.shard_paths("o/{shard:03d}.rec", 2) == ["o/000.rec", "o/001.rec"]
    with pytest.raises(ValueError, match="exactly one"):
        tdask.shard_paths("o/t.tfrec", 2)


def _die_once(df, marker):
    """Kills its worker process the first time it runs on the marked partition."""
    if len(df) and df["id"].iloc[0] == 25 and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    return df


def test_a_killed_worker_is_retried_without_duplicate_or_partial_shards(client, tmp_path):
    df = frame(100, seed=8)
    ddf = dd.from_pandas(df, npartitions=4)
    killed = ddf.map_partitions(_die_once, str(tmp_path / "died"), meta=ddf._meta)
    out = tmp_path / "out"
    paths = tdask.to_tfrecord(killed, str(out / "train-*.tfrec"))
    assert (tmp_path / "died").exists()  # a worker really died during the job
    assert sorted(os.listdir(out)) == sorted(
        ["train-%05d-of-00004.tfrec" % i for i in range(4)] + ["train-manifest.json"])
    recs = [bytes(r.numpy()) for r in tf.data.TFRecordDataset(paths)]
    assert recs == ta.from_arrow(pa.Table.from_pandas(df, preserve_index=False))
    manifest = json.loads((out / "train-manifest.json").read_text())
    assert [s["records"] for s in manifest["shards"]] == [25, 25, 25, 25]


def test_records_per_shard_cuts_partitions(client, tmp_path):
    df = frame(50, seed=10)
    ddf = dd.from_pandas(df, npartitions=2)  # 25 + 25 rows
    paths = tdask.to_tfrecord(ddf, str(tmp_path / "s-*.tfrec"), records_per_shard=10)
    assert [os.path.basename(p) for p in paths] == ["s-%05d-of-00006.tfrec" % i
                                                    for i in range(6)]
    counts = [sum(1 for _ in tf.data.TFRecordDataset(p)) for p in paths]
    assert counts == [10, 10, 5, 10, 10, 5]
    manifest = json.loads((tmp_path / "s-manifest.json").read_text())
    assert [s["records"] for s in manifest["shards"]] == counts
    recs = [bytes(r.numpy()) for r in tf.data.TFRecordDataset(paths)]
    assert recs == ta.from_arrow(pa.Table.from_pandas(df, preserve_index=False))

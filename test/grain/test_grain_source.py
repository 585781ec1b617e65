"""tfnano.grain against Grain itself: the source protocol, the batch parse, exact-once
delivery with worker processes, and iterator checkpoints."""
import os

import grain
import numpy as np
import pytest

import tfnano as tf
from tfnano.grain import ParseBatch, TFRecordDataSource

FEATURES = {
    "id": tf.io.FixedLenFeature([], tf.int64),
    "x": tf.io.FixedLenFeature([2], tf.float32),
    "name": tf.io.FixedLenFeature([], tf.string),
}


def _write(folder, sizes, compression=None):
    """Shards whose records carry ids 0.. in order; the last value of "x" is 0.0, so
    every record ends in zero bytes (what numpy's fixed-width bytes would drop)."""
    paths, nid = [], 0
    for k, n in enumerate(sizes):
        ids = np.arange(nid, nid + n, dtype=np.int64)
        nid += n
        recs = tf.serialize_columns({
            "name": [b"r%d" % i for i in ids.tolist()],
            "x": np.stack([ids.astype(np.float32), np.zeros(n, np.float32)], 1),
            "id": ids})
        path = str(folder / ("part-%d.tfrecord" % k))
        with tf.io.TFRecordWriter(path, compression) as w:
            for r in recs:
                w.write(r)
        paths.append(path)
    return paths


@pytest.fixture
def shards(tmp_path):
    return _write(tmp_path, [37, 0, 51, 12])


def test_protocol_and_exact_bytes(shards):
    src = TFRecordDataSource(shards)
    assert len(src) == 100
    assert isinstance(src, grain.sources.RandomAccessDataSource)
    ref = [r for p in shards for r in tf.data.TFRecordDataset(p).as_numpy_iterator()]
    assert [src[i].item() for i in range(100)] == ref
    assert src[-1].item() == ref[-1]
    with pytest.raises(IndexError, match="100 records"):
        src[100]
    # batching keeps every byte: the records end in zeros
    assert ref[5].endswith(b"\x00")
    batch = grain.MapDataset.source(src).batch(10)[0]
    assert batch.dtype == object and list(batch) == ref[:10]


def test_batch_parse_matches_parse_example(shards):
    src = TFRecordDataSource(shards)
    parse = ParseBatch(FEATURES)
    ds = grain.MapDataset.source(src).shuffle(seed=3).batch(16).map(parse)
    assert len(ds) == 7
    seen = []
    for b in ds:
        ref = tf.io.parse_example([src[int(i)].item() for i in b["id"]], FEATURES)
        for k in FEATURES:
            np.testing.assert_array_equal(b[k], np.asarray(ref[k]))
        seen.extend(b["id"].tolist())
    assert sorted(seen) == list(range(100)) and seen != list(range(100))
    # as batch_fn, and over a list of bytes
    b = grain.MapDataset.source(src).batch(8, batch_fn=parse)[1]
    assert b["id"].tolist() == list(range(8, 16))
    assert parse([src[0].item(), src[1].item()])["name"].tolist() == [b"r0", b"r1"]


def test_parsed_source(shards):
    src = TFRecordDataSource(shards, features=FEATURES, int32=True)
    r = src[40]
    assert r["id"] == 40 and r["id"].dtype == np.int32 and r["name"] == b"r40"
    rows = src._getitems([99, 0, 50])
    assert [x["id"] for x in rows] == [99, 0, 50]
    np.testing.assert_array_equal(rows[2]["x"], [50.0, 0.0])
    b = grain.MapDataset.source(src).batch(4)[2]
    assert b["id"].tolist() == [8, 9, 10, 11] and b["x"].shape == (4, 2)


def test_gzip_shards(tmp_path):
    paths = _write(tmp_path, [20, 9], compression="GZIP")
    src = TFRecordDataSource(paths)
    ids = ParseBatch(FEATURES)(grain.MapDataset.source(src).batch(29)[0])["id"]
    assert ids.tolist() == list(range(29))


def _epochs(shards, workers, epochs, batch=8):
    ds = (grain.MapDataset.source(TFRecordDataSource(shards)).shuffle(seed=11)
          .repeat(epochs).batch(batch).map(ParseBatch(FEATURES)))
    it = ds.to_iter_dataset()
    if workers:
        it = it.mp_prefetch(grain.MultiprocessingOptions(num_workers=workers))
    return [b["id"].tolist() for b in it]


def test_two_workers_two_epochs_exact_once(shards):
    batches = _epochs(shards, workers=2, epochs=2, batch=10)  # 100 records: 10 a epoch
    assert len(batches) == 20
    for e in range(2):
        ids = [i for b in batches[10 * e:10 * (e + 1)] for i in b]
        assert sorted(ids) == list(range(100))  # each record once in each epoch
    assert batches[:10] != batches[10:]  # epochs are shuffled differently


def test_data_loader_two_workers(shards):
    src = TFRecordDataSource(shards)
    loader = grain.DataLoader(
        data_source=src,
        sampler=grain.samplers.IndexSampler(len(src), num_epochs=2, shuffle=True, seed=2),
        operations=[grain.transforms.Batch(10, batch_fn=ParseBatch(FEATURES))],
        worker_count=2)
    ids = [i for b in loader for i in b["id"].tolist()]
    assert sorted(ids) == sorted(list(range(100)) * 2)


def test_checkpoint_resumes_mid_epoch(shards):
    def make():
        ds = (grain.MapDataset.source(TFRecordDataSource(shards)).shuffle(seed=5)
              .batch(8).map(ParseBatch(FEATURES)))
        return iter(ds.to_iter_dataset())
    full = [b["id"].tolist() for b in make()]
    it = make()
    head = [next(it)["id"].tolist() for _ in range(5)]
    state = it.get_state()
    fresh = make()
    fresh.set_state(state)
    tail = [b["id"].tolist() for b in fresh]
    assert head + tail == full
    ids = [i for b in head + tail for i in b]
    assert sorted(ids) == list(range(100))  # no repeats, none missing


def test_checkpoint_resumes_with_workers(shards):
    def make():
        ds = (grain.MapDataset.source(TFRecordDataSource(shards)).shuffle(seed=9)
              .batch(5).map(ParseBatch(FEATURES)))
        return iter(ds.to_iter_dataset().mp_prefetch(
            grain.MultiprocessingOptions(num_workers=2)))
    it = make()
    head = [next(it)["id"].tolist() for _ in range(7)]
    state = it.get_state()
    rest_a = [b["id"].tolist() for b in it]
    fresh = make()
    fresh.set_state(state)
    rest_b = [b["id"].tolist() for b in fresh]
    assert rest_b == rest_a
    assert sorted(i for b in head + rest_b for i in b) == list(range(100))


def test_source_pickles_without_maps(shards):
    import pickle
    src = TFRecordDataSource(shards, features=FEATURES)
    src[3]
    copy = pickle.loads(pickle.dumps(src))
    assert copy[3]["id"] == 3 and len(copy) == 100


def test_imports_without_grain():
    import subprocess
    import sys
    code = ("import sys; sys.modules['grain'] = None; import tfnano.grain as g; "
            "print(g.TFRecordDataSource.__name__, g.ParseBatch.__name__)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True)
    assert out.stdout.split() == ["TFRecordDataSource", "ParseBatch"]

"""ignore_errors() drops exactly the failing elements, wherever the stages before it
run: parallel reads, parallel map, fused map-and-batch, prefetch (issue 15, item 3)."""
import numpy as np
import pytest

import tfnano as tf
from tfnano.errors import DataLossError, InvalidArgumentError

FEATS = {"id": tf.io.FixedLenFeature([], tf.int64), "v": tf.io.FixedLenFeature([2], tf.int64)}


@pytest.fixture(params=["c", "python"])
def engine(request, monkeypatch):
    """The fused TFRecordDataset -> map -> batch chain on the C pipeline engine, and
    on Python threads (TFNANO_C_PIPELINE=0)."""
    monkeypatch.setenv("TFNANO_C_PIPELINE", "1" if request.param == "c" else "0")
    return request.param


def record(i, bad=False):
    feats = {"id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
             "v": tf.train.Feature(int64_list=tf.train.Int64List(
                 value=[i] if bad else [i, i]))}
    return tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString()


@pytest.fixture()
def shards(tmp_path):
    """5 files of 40..80 records; every 7th id has a bad 'v' (parse error)."""
    files, bad = [], set()
    i = 0
    for s in range(5):
        path = str(tmp_path / ("s%d" % s))
        with tf.io.TFRecordWriter(path) as w:
            for _ in range(40 + 10 * s):
                if i % 7 == 3:
                    bad.add(i)
                w.write(record(i, i in bad))
                i += 1
        files.append(path)
    return files, set(range(i)) - bad


def ids(ds):
    out = []
    for el in ds:
        out.extend(np.asarray(el["id"]).reshape(-1).tolist())
    return out


def parse(r):
    return tf.io.parse_single_example(r, FEATS)


def parse_untraced(r):
    d = tf.io.parse_single_example(r.numpy(), FEATS)  # .numpy(): runs in Python
    return d


@pytest.mark.parametrize("reads", [None, 3, tf.data.AUTOTUNE])
@pytest.mark.parametrize("calls", [None, 4, tf.data.AUTOTUNE])
@pytest.mark.parametrize("fn", [parse, parse_untraced])
def test_exactly_the_bad_elements_are_dropped(shards, reads, calls, fn):
    files, good = shards
    ds = (tf.data.TFRecordDataset(files, num_parallel_reads=reads)
          .map(fn, num_parallel_calls=calls).prefetch(3).ignore_errors())
    got = ids(ds)
    assert sorted(got) == sorted(good) and len(got) == len(good)
    if reads is None:
        assert got == sorted(good)  # file order, and in order within each file


def test_prefetch_and_parallel_map_deliver_errors_in_place(shards):
    files, good = shards
    it = iter(tf.data.TFRecordDataset(files[:1]).map(parse, num_parallel_calls=3).prefetch(4))
    seen = []
    errors = 0
    while True:
        try:
            seen.append(int(next(it)["id"]))
        except InvalidArgumentError as e:
            assert "Key: v" in str(e)
            errors += 1
        except StopIteration:
            break
    assert seen == sorted(g for g in good if g < 40) and errors == 40 - len(seen)


def test_fused_batch_drops_whole_batches_like_tensorflow(shards, engine):
    files, good = shards
    # map(f).batch(n) is TensorFlow's map-and-batch: an error fails its whole batch
    got = ids(tf.data.TFRecordDataset(files[:1]).map(parse).batch(5).ignore_errors())
    expect = [i for b in range(8) for i in range(5 * b, 5 * b + 5)
              if not any(j % 7 == 3 for j in range(5 * b, 5 * b + 5))]
    assert got == expect
    # ignore_errors() before batch keeps every good element
    got = ids(tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=2)
              .ignore_errors().batch(5).prefetch(2))
    assert got == sorted(good)


def test_damaged_file_behind_parallel_reads_loses_only_its_tail(tmp_path, shards, engine):
    files, good = shards
    data = bytearray(open(files[1], "rb").read())
    data[len(data) // 2] ^= 0x40  # a payload byte somewhere in the middle
    open(files[1], "wb").write(bytes(data))
    sequential = ids(tf.data.TFRecordDataset(files).map(parse).ignore_errors())
    with pytest.raises(DataLossError):
        list(tf.data.TFRecordDataset(files))
    parallel = ids(tf.data.TFRecordDataset(files, num_parallel_reads=3)
                   .map(parse, num_parallel_calls=3).prefetch(2).ignore_errors())
    assert sorted(parallel) == sorted(sequential)
    assert len(sequential) > len(good) - 45  # only the damaged file's tail is lost


def test_damage_in_big_records_read_ahead(tmp_path):
    """Files of big records are read ahead on a thread: an error still comes after
    every record before it, and ends only that file."""
    path = str(tmp_path / "big")
    with tf.io.TFRecordWriter(path) as w:
        for i in range(30):
            w.write(bytes([i]) * (30 << 10))
    data = bytearray(open(path, "rb").read())
    data[17 * (16 + (30 << 10)) + 12 + 100] ^= 1  # inside record 17's payload
    open(path, "wb").write(bytes(data))
    other = str(tmp_path / "other")
    with tf.io.TFRecordWriter(other) as w:
        w.write(b"after")
    it = iter(tf.data.TFRecordDataset([path, other]))
    got = [next(it).numpy()[0] for _ in range(17)]
    assert got == list(range(17))
    with pytest.raises(DataLossError):
        next(it)
    assert next(it).numpy() == b"after"
    kept = [r.numpy() for r in tf.data.TFRecordDataset([path, other]).ignore_errors()]
    assert len(kept) == 18 and kept[-1] == b"after"


def _numbered_files(tmp_path, damage_at):
    """A file of 100 Examples {"i": n} damaged in record `damage_at`, and a good one."""
    paths = []
    for name, base in (("bad", 0), ("good", 1000)):
        p = tmp_path / ("%s.tfrecord" % name)
        offsets = []
        with tf.io.TFRecordWriter(str(p)) as w:
            for i in range(100):
                ex = tf.train.Example(features=tf.train.Features(feature={
                    "i": tf.train.Feature(int64_list=tf.train.Int64List(value=[base + i]))}))
                w.write(ex.SerializeToString())
        paths.append(str(p))
    data = bytearray(open(paths[0], "rb").read())
    # every record of the bad file has the same size: flip a payload byte of one
    size = len(data) // 100
    data[damage_at * size + 14] ^= 0xFF
    open(paths[0], "wb").write(bytes(data))
    return paths


@pytest.mark.parametrize("engine", ["0", "1"])
def test_map_batch_ignore_errors_drops_the_whole_failing_batch(tmp_path, monkeypatch,
                                                                 engine):
    """TensorFlow's fused map-and-batch: the read error takes one of the 16 places of
    its batch, the batch is read to 16 places and dropped; later batches are not
    shifted. Values measured with TensorFlow 2.21 on these files."""
    monkeypatch.setenv("TFNANO_C_PIPELINE", engine)
    paths = _numbered_files(tmp_path, 44)
    feats = {"i": tf.io.FixedLenFeature([], tf.int64)}
    ds = tf.data.TFRecordDataset(paths, num_parallel_reads=2)
    ds = ds.map(lambda r: tf.io.parse_single_example(r, feats)["i"]).batch(16)
    out = [list(map(int, b)) for b in ds.ignore_errors()]
    # batches 0-4 hold records 0-39 of each file, interleaved; the next one holds
    # 40-43, 1040-1043, the error and 1044-1050 (16 places) and is dropped; the bad
    # file ends at its error
    assert [len(b) for b in out] == [16] * 8 + [1]
    assert out[4][-2:] == [39, 1039]
    assert out[5] == list(range(1051, 1067))
    assert out[-1] == [1099]
    # batch() without a map: the 8 elements before the error go, the next batch
    # starts right after it
    plain = [list(map(int, tf.io.parse_example(b, feats)["i"]))
             for b in tf.data.TFRecordDataset(paths, num_parallel_reads=2)
             .batch(16).ignore_errors()]
    assert [len(b) for b in plain] == [16] * 8 + [8]
    assert plain[5] == list(range(1044, 1060))

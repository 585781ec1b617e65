"""TFRecord files through the Python API: spec §6 cases 32-41, file objects (fsspec
memory files), the interop corpus in ../shared/interop, and a TFRecordDataset
pipeline (map -> cache -> shuffle -> repeat -> batch -> prefetch) checked value for
value."""
import gzip
import hashlib
import io
import json
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

import tfnano as tf
from tfnano.errors import DataLossError, FailedPreconditionError

ROOT = Path(__file__).resolve().parents[2]
INTEROP = ROOT.parent / "shared" / "interop"
H = bytes.fromhex


def write(path, records, options=None):
    with tf.io.TFRecordWriter(str(path), options) as w:
        for r in records:
            w.write(r)


def read(path, compression_type=None):
    return [r.numpy() for r in tf.data.TFRecordDataset(str(path), compression_type)]


def test_case32_framing(tmp_path):
    write(tmp_path / "a", [b""])
    assert (tmp_path / "a").read_bytes() == H("0000000000000000 29039807 d8ea82a2".replace(" ", ""))
    write(tmp_path / "b", [b"hello"])
    assert (tmp_path / "b").read_bytes() == \
        H("0500000000000000 eab2043e 68656c6c6f bb1f1c19".replace(" ", ""))


def test_case33_empty_file(tmp_path):
    for comp in (None, "ZLIB", "GZIP"):
        (tmp_path / "e").write_bytes(b"")
        assert read(tmp_path / "e", comp) == []


def test_case34_stray_tail(tmp_path):
    write(tmp_path / "a", [b"hello"])
    with open(tmp_path / "a", "ab") as f:
        f.write(b"12345")
    assert read(tmp_path / "a") == [b"hello"]


def test_case35_truncated_last_record(tmp_path):
    write(tmp_path / "a", [b"hello", b"world"])
    data = (tmp_path / "a").read_bytes()
    (tmp_path / "a").write_bytes(data[:-1])
    got = []
    with pytest.raises(DataLossError) as e:
        for r in tf.data.TFRecordDataset(str(tmp_path / "a")):
            got.append(r.numpy())
    assert got == [b"hello"]
    assert e.value.message == "truncated record at 21' failed with Read less bytes than requested"
    assert str(e.value) == e.value.message + "; file %s, record 1, offset 21" % (tmp_path / "a")
    assert isinstance(e.value, OSError)


def test_case36_corrupted(tmp_path):
    write(tmp_path / "a", [b"hello", b"world"])
    good = (tmp_path / "a").read_bytes()
    for pos, msg in ((13, "corrupted record at 12"),
                     (1, "corrupted record at 0 (Is this even a TFRecord file?)"),
                     (21 + 2, "corrupted record at 21"),
                     (21 + 14, "corrupted record at 33")):
        bad = bytearray(good)
        bad[pos] ^= 0x40
        (tmp_path / "a").write_bytes(bytes(bad))
        with pytest.raises(DataLossError) as e:
            read(tmp_path / "a")
        assert e.value.message == msg
        assert str(e.value).startswith(msg + "; file %s, record " % (tmp_path / "a"))


def test_case37_compressed_writers(tmp_path):
    write(tmp_path / "u", [b"foo", b"bar"])
    plain = (tmp_path / "u").read_bytes()
    write(tmp_path / "z", [b"foo", b"bar"], "ZLIB")
    assert zlib.decompress((tmp_path / "z").read_bytes()) == plain
    write(tmp_path / "g", [b"foo", b"bar"], tf.io.TFRecordOptions(compression_type="GZIP"))
    assert gzip.decompress((tmp_path / "g").read_bytes()) == plain
    assert read(tmp_path / "z", "ZLIB") == [b"foo", b"bar"]
    assert read(tmp_path / "g", "GZIP") == [b"foo", b"bar"]


def test_case38_wrong_compression(tmp_path):
    write(tmp_path / "g", [b"foo"], "GZIP")
    with pytest.raises(DataLossError, match="incorrect header check"):
        read(tmp_path / "g", "ZLIB")
    with pytest.raises(DataLossError) as e:
        read(tmp_path / "g")
    assert e.value.message == "corrupted record at 0 (Is this even a TFRecord file?)"


def test_case39_concatenated_gzip_members(tmp_path):
    write(tmp_path / "a", [b"one"], "GZIP")
    write(tmp_path / "b", [b"two", b"three"], "GZIP")
    (tmp_path / "c").write_bytes((tmp_path / "a").read_bytes() + (tmp_path / "b").read_bytes())
    assert read(tmp_path / "c", "GZIP") == [b"one", b"two", b"three"]


def test_case40_options():
    for bad in ("gzip", 5, "BZ2"):
        with pytest.raises(ValueError) as e:
            tf.io.TFRecordOptions(bad)
        assert str(e.value) == 'Not a valid compression_type: "%s"' % bad
    get = tf.io.TFRecordOptions.get_compression_type_string
    assert get(1) == "ZLIB" and get(2) == "GZIP" and get(None) == "" and get(0) == ""
    assert get(tf.io.TFRecordOptions("GZIP")) == "GZIP"


def test_case41_writer_closed(tmp_path):
    w = tf.io.TFRecordWriter(str(tmp_path / "w"))
    w.write(b"x")
    w.close()
    w.close()
    with pytest.raises(FailedPreconditionError) as e:
        w.write(b"y")
    assert str(e.value) == "Writer is closed."
    with pytest.raises(FailedPreconditionError):
        w.flush()
    assert read(tmp_path / "w") == [b"x"]


def test_missing_file_is_not_found(tmp_path):
    with pytest.raises(tf.errors.NotFoundError) as e:
        list(tf.data.TFRecordDataset(str(tmp_path / "nope")))
    assert isinstance(e.value, FileNotFoundError)


def test_file_objects_and_fsspec_memory(tmp_path):
    buf = io.BytesIO()
    w = tf.io.TFRecordWriter(buf)
    w.write(b"a")
    w.write_many([b"b", b"cc"])
    w.flush()
    assert read_obj(io.BytesIO(buf.getvalue())) == [b"a", b"b", b"cc"]
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    with fs.open("/t/x.tfrecord.gz", "wb") as f:
        with tf.io.TFRecordWriter(f, "GZIP") as w:
            for i in range(100):
                w.write(b"rec%d" % i)
    with fs.open("/t/x.tfrecord.gz", "rb") as f:
        got = [r.numpy() for r in tf.data.TFRecordDataset(f, compression_type="GZIP")]
    assert got == [b"rec%d" % i for i in range(100)]


def read_obj(f):
    return [r.numpy() for r in tf.data.TFRecordDataset([f])]


def test_write_columns_and_batched_reading(tmp_path):
    ids = np.arange(40, dtype=np.int64).reshape(10, 4)
    with tf.io.TFRecordWriter(str(tmp_path / "c")) as w:
        assert w.write_columns({"ids": ids, "y": np.arange(10, dtype=np.float32)}) == 10
    ds = tf.data.TFRecordDataset([str(tmp_path / "c")]).batch(4)
    spec = {"ids": tf.io.FixedLenFeature([4], tf.int64), "y": tf.io.FixedLenFeature([], tf.float32)}
    batches = [tf.io.parse_example(b, spec) for b in ds]
    assert [len(b["y"]) for b in batches] == [4, 4, 2]
    assert np.array_equal(np.concatenate([b["ids"] for b in batches]), ids)
    first = next(iter(ds))
    assert len(first) == 4 and first.numpy().dtype == object
    assert tf.train.Example.FromString(first[0].numpy()).features.feature["ids"] \
        .int64_list.value == [0, 1, 2, 3]


def test_num_parallel_reads_interleaves(tmp_path):
    files = []
    for f in range(3):
        p = tmp_path / ("f%d" % f)
        write(p, [b"%d-%d" % (f, i) for i in range(f + 2)])
        files.append(str(p))
    got = [r.numpy() for r in tf.data.TFRecordDataset(files, num_parallel_reads=2)]
    # what TensorFlow 2.21 gives (checked): a finished file's slot takes the next file,
    # which gets its turn when the cycle comes back to it
    assert got == [b"0-0", b"1-0", b"0-1", b"1-1", b"1-2", b"2-0", b"2-1", b"2-2", b"2-3"]
    assert [r.numpy() for r in tf.data.TFRecordDataset(files)] == \
        [b"%d-%d" % (f, i) for f in range(3) for i in range(f + 2)]


def test_gfile_glob(tmp_path):
    for n in ("b.tfrecord", "a.tfrecord", "c.txt"):
        (tmp_path / n).write_bytes(b"")
    # TensorFlow's order: the folder's (readdir), not sorted (test_gfile.py has more)
    assert tf.io.gfile.glob(str(tmp_path / "*.tfrecord")) == \
        [str(p) for p in tmp_path.iterdir() if p.suffix == ".tfrecord"]


def test_pipeline_value_for_value(tmp_path):
    rng = np.random.default_rng(7)
    n = 103
    seqs = [rng.integers(1, 1000, rng.integers(1, 12)) for _ in range(n)]
    labels = rng.random(n).astype(np.float32)
    shards = [str(tmp_path / ("s%d" % i)) for i in range(2)]
    for s, part in zip(shards, (range(0, 50), range(50, n))):
        with tf.io.TFRecordWriter(s) as w:
            w.write_columns({"ids": [seqs[i] for i in part], "y": labels[list(part)],
                             "k": np.array(list(part))})
    spec = {"ids": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
            "y": tf.io.FixedLenFeature([], tf.float32), "k": tf.io.FixedLenFeature([], tf.int64)}
    ds = (tf.data.TFRecordDataset(shards)
          .map(lambda r: tf.io.parse_single_example(r, spec), num_parallel_calls=2)
          .map(lambda d: (d["k"], d["ids"], d["y"]))
          .cache()
          .shuffle(16, seed=5)
          .repeat(2)
          .padded_batch(8)
          .prefetch(tf.data.AUTOTUNE))
    seen = []
    for k, ids, y in ds:
        assert ids.shape[0] == len(k) == len(y)
        for row in range(len(k)):
            i = int(k[row])
            L = len(seqs[i])
            assert ids[row, :L].tolist() == seqs[i].tolist()
            assert not ids[row, L:].any()
            assert y[row] == labels[i]
            seen.append(i)
    assert sorted(seen) == sorted(list(range(n)) * 2)
    assert seen[:n] != list(range(n))  # shuffled


def _expected_files():
    return sorted((INTEROP / "expected").glob("*.expected.json")) if INTEROP.exists() else []


def _check_feature(f, want):
    kind = f.WhichOneof("kind")
    assert kind == want["kind"]
    if kind is None:
        return
    vals = list(getattr(f, kind).value)
    assert len(vals) == want["count"]
    shown = vals[:8] if want["truncated"] else vals
    if kind == "int64_list":
        assert shown == want["values"]
        if want["truncated"]:
            assert hashlib.sha256(np.array(vals, "<i8").tobytes()).hexdigest() == \
                want["all_values_digest"]
    elif kind == "float_list":
        assert np.array_equal(np.array(shown, np.float32), np.array(want["values"], np.float32),
                              equal_nan=True)
        if want["truncated"]:
            assert hashlib.sha256(np.array(vals, "<f4").tobytes()).hexdigest() == \
                want["all_values_digest"]
    else:
        for v, w in zip(shown, want["values"]):
            if isinstance(w, dict):
                assert len(v) == w["length"] and hashlib.sha256(v).hexdigest() == w["sha256"]
            elif want.get("encoding") == "utf8":
                assert v.decode("utf-8") == w
            else:
                assert v.hex() == w
        if want["truncated"]:
            h = hashlib.sha256()
            for v in vals:
                h.update(struct.pack("<Q", len(v)) + v)
            assert h.hexdigest() == want["all_values_digest"]


@pytest.mark.parametrize("expected", _expected_files(),
                         ids=lambda p: getattr(p, "name", str(p))[:40])
def test_interop_corpus(expected):
    want = json.loads(expected.read_text())
    path = INTEROP / "files" / expected.name[:-len(".expected.json")]
    comp = {"NONE": None, "GZIP": "GZIP", "ZLIB": "ZLIB"}[want["compression"]]
    got = []
    err = None
    try:
        for r in tf.data.TFRecordDataset(str(path), compression_type=comp):
            got.append(r.numpy())
    except DataLossError as e:
        err = e
    assert len(got) == want["tf_yielded_record_count"]
    if want["records_with_bad_data_crc"] or want["framing_error_after_records"]:
        assert err is not None and "corrupted record at" in str(err)
    else:
        assert err is None
    for rec, w in zip(got, want["records"]):
        assert len(rec) == w["length"] and hashlib.sha256(rec).hexdigest() == w["sha256"]
        if "features" in w and want["payload_type"] == "Example":
            ex = tf.train.Example.FromString(rec)
            assert sorted(ex.features.feature) == sorted(w["features"])
            for k, fw in w["features"].items():
                _check_feature(ex.features.feature[k], fw)
                assert tf.train.Example.FromString(ex.SerializeToString()) == ex


class _Broken(io.BytesIO):
    def read(self, n=-1):
        raise RuntimeError("network down")

    readinto = None


def test_file_object_errors_propagate():
    with pytest.raises(RuntimeError, match="network down"):
        list(tf.data.TFRecordDataset([_Broken(b"x" * 100)]))


def test_tf_record_iterator_and_levels(tmp_path):
    write(tmp_path / "z", [b"a" * 1000, b"b"], tf.io.TFRecordOptions("ZLIB", compression_level=9))
    assert list(tf.io.tf_record_iterator(str(tmp_path / "z"), "ZLIB")) == [b"a" * 1000, b"b"]
    assert zlib.decompress((tmp_path / "z").read_bytes())[16:24] == b"a" * 8


def test_damaged_file_then_next_file(tmp_path):
    write(tmp_path / "a", [b"one", b"two"])
    bad = bytearray((tmp_path / "a").read_bytes())
    bad[19 + 14] ^= 1  # payload of the second record
    (tmp_path / "a").write_bytes(bytes(bad))
    write(tmp_path / "b", [b"three"])
    ds = tf.data.TFRecordDataset([str(tmp_path / "a"), str(tmp_path / "b")])
    got = [r.numpy() for r in ds.apply(tf.data.experimental.ignore_errors())]
    assert got == [b"one", b"three"]  # the error ends file a; file b is still read
    with pytest.raises(DataLossError) as e:
        list(ds)
    assert e.value.message == "corrupted record at 31" and e.value.record_index == 1


def test_url_paths_through_fsspec():
    pytest.importorskip("fsspec")
    with tf.io.TFRecordWriter("memory://bucket/u-0.tfrecord") as w:
        w.write(b"x")
    with tf.io.TFRecordWriter("memory://bucket/u-1.tfrecord", "GZIP") as w:
        w.write(b"y")
    files = tf.io.gfile.glob("memory://bucket/u-*.tfrecord")
    assert files == ["memory://bucket/u-0.tfrecord", "memory://bucket/u-1.tfrecord"]
    assert [r.numpy() for r in tf.data.TFRecordDataset(files[:1])] == [b"x"]
    assert [r.numpy() for r in tf.data.TFRecordDataset(files[1], "GZIP")] == [b"y"]
    with pytest.raises(tf.errors.NotFoundError):
        list(tf.data.TFRecordDataset("memory://bucket/missing.tfrecord"))


def test_writer_shared_by_threads(tmp_path):
    import threading
    w = tf.io.TFRecordWriter(str(tmp_path / "t"), "GZIP")

    def work(t):
        for i in range(500):
            w.write(b"%d-%d" % (t, i))
    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    w.close()
    got = read(tmp_path / "t", "GZIP")
    assert sorted(got) == sorted(b"%d-%d" % (t, i) for t in range(4) for i in range(500))


# ---- records read straight into bytes (bindings/python/pyapi.c read_record)

def _records_and_outcome(path, comp=None, on_damage="raise"):
    """Every record of the file (tf_record_iterator and per-record TFRecordDataset),
    then the error that ended it, if any."""
    out = []
    try:
        for r in tf.compat.v1.io.tf_record_iterator(str(path), comp, on_damage=on_damage):
            out.append(r)
    except DataLossError as e:
        out.append((type(e), e.message, e.record_index, str(e)))
    ds = []
    try:
        for r in tf.data.TFRecordDataset(str(path), comp, on_damage=on_damage):
            ds.append(r.numpy())
    except DataLossError as e:
        ds.append((type(e), e.message, e.record_index, str(e)))
    assert ds == out
    return out


@pytest.mark.parametrize("comp", [None, "ZLIB", "GZIP"])
def test_read_record_into_bytes_matches_the_cffi_path(tmp_path, comp, monkeypatch):
    from tfnano._c import record as _crecord
    from tfnano._c import PY_API
    rng = np.random.default_rng(4)
    # empty, small, and records of 64 KiB and more (copied with the GIL released)
    recs = [b"", b"x"] + [rng.bytes(int(n)) for n in (100, 65535, 65536, 150000, 3)]
    path = tmp_path / "a"
    write(path, recs, comp)
    assert (_crecord._read_record is not None) == bool(PY_API & 1)
    got = _records_and_outcome(path, comp)
    assert got == recs and all(type(r) is bytes for r in got)
    # damage in a big payload, in a small one, in a length: the same records and errors
    data = path.read_bytes()
    if comp is None:
        starts = np.cumsum([0] + [len(r) + 16 for r in recs])
        for pos in (starts[5] + 12 + 70000, starts[2] + 14, starts[4] + 3):
            bad = bytearray(data)
            bad[pos] ^= 0x10
            path.write_bytes(bytes(bad))
            for on_damage in ("raise", "skip"):
                fast = _records_and_outcome(path, comp, on_damage)
                with monkeypatch.context() as m:
                    m.setattr(_crecord, "_read_record", None)
                    assert _records_and_outcome(path, comp, on_damage) == fast
            assert fast[-1][0] is DataLossError or on_damage == "skip"
        path.write_bytes(data)
    with monkeypatch.context() as m:
        m.setattr(_crecord, "_read_record", None)
        assert _records_and_outcome(path, comp) == recs


def test_read_record_after_close_and_from_threads(tmp_path):
    import threading
    from tfnano.io import tf_record
    recs = [bytes([i]) * (70000 + i) for i in range(20)]
    write(tmp_path / "a", recs)
    r = tf_record.open_reader(str(tmp_path / "a"), "", 1 << 20)
    assert r.next_record() == recs[0]
    r.close()
    with pytest.raises((ValueError, TypeError, AttributeError)):
        r.next_record()
    # several readers on threads at once (the copy of big records releases the GIL)
    results = {}

    def run(k):
        results[k] = list(tf.compat.v1.io.tf_record_iterator(str(tmp_path / "a")))
    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(results[k] == recs for k in range(4))

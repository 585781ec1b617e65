"""tfnano.io.index: DALI / tfrecord-format index files, record counts and random
access over a memory map."""
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import tfnano as tf
from tfnano import errors
from tfnano.io import index as ix


def _records(n, seed=0):
    rng = np.random.default_rng(seed)
    return [bytes(rng.integers(0, 256, int(rng.integers(0, 300)), dtype=np.uint8))
            for _ in range(n)]


def _write(path, recs, compression=None):
    with tf.io.TFRecordWriter(str(path), compression) as w:
        for r in recs:
            w.write(r)
    return str(path)


def _expected(recs):
    lens = np.array([len(r) + 16 for r in recs], dtype=np.int64)
    offs = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64)
    return offs, lens


def test_build_index_offsets_and_lengths(tmp_path):
    recs = _records(500)
    p = _write(tmp_path / "a.tfrecord", recs)
    idx = ix.build_index(p)
    offs, lens = _expected(recs)
    assert len(idx) == 500 and idx.compression == ""
    assert np.array_equal(idx.offsets, offs) and np.array_equal(idx.lengths, lens)
    assert idx.end == os.path.getsize(p)
    assert idx[3] == (int(offs[3]), int(lens[3]))


def test_index_text_format_round_trip(tmp_path):
    recs = _records(20)
    p = _write(tmp_path / "a.tfrecord", recs)
    out = tmp_path / "a.idx"
    idx = ix.build_index(p, out=str(out))
    lines = out.read_text().splitlines()
    offs, lens = _expected(recs)
    assert lines == ["%d %d" % (o, n) for o, n in zip(offs.tolist(), lens.tolist())]
    assert ix.RecordIndex.load(out) == idx
    # DALI's tfrecord2idx format, written by hand (other white space is accepted too)
    assert ix.RecordIndex.from_text(b"0 20\n20 31\n") == ix.RecordIndex([0, 20], [20, 31])


def test_bad_index_text_names_the_file(tmp_path):
    bad = tmp_path / "bad.idx"
    bad.write_text("0 20\n20 x\n")
    with pytest.raises(errors.OpError) as e:
        ix.RecordIndex.load(bad)
    assert str(bad) in str(e.value)


def test_empty_file(tmp_path):
    p = _write(tmp_path / "e.tfrecord", [])
    assert len(ix.build_index(p)) == 0
    assert len(ix.TFRecordFile(p)) == 0
    assert ix.count_records(p) == 0


def test_load_index_saves_next_to_data_and_rebuilds_when_stale(tmp_path):
    p = _write(tmp_path / "a.tfrecord", _records(30))
    idx = ix.load_index(p)
    assert os.path.exists(p + ".idx") and len(idx) == 30
    assert ix.load_index(p) == idx
    _write(p, _records(40, seed=1))  # rewritten: the old index ends elsewhere
    st = os.stat(p + ".idx")
    os.utime(p + ".idx", (st.st_atime, st.st_mtime + 10))  # even if it looks newer
    assert len(ix.load_index(p)) == 40


def test_load_index_memory_only_and_cache_dir(tmp_path, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    p = _write(data / "a.tfrecord", _records(25))
    assert len(ix.load_index(p, save=False)) == 25
    assert not os.path.exists(p + ".idx")
    cache = tmp_path / "cache"
    cache.mkdir()
    built = ix.build_index(p)
    built.save(ix.cache_path(p, str(cache)))

    def no_build(*a, **k):
        raise AssertionError("the cached index should have been used")
    monkeypatch.setattr(ix, "build_index", no_build)
    assert ix.load_index(p, cache_dir=str(cache)) == built
    monkeypatch.setenv("TFNANO_INDEX_CACHE", str(cache))
    assert ix.load_index(p) == built


def test_sidecar_names_of_other_tools(tmp_path):
    p = _write(tmp_path / "a.tfrecord", _records(12))
    ix.build_index(p).save(p + ".index")  # vahidk's examples use .index
    os.utime(p, (0, 0))
    assert len(ix.load_index(p, save=False)) == 12


@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_compressed_files_index_and_random_access(tmp_path, compression):
    recs = _records(3000)
    p = _write(tmp_path / "c.tfrecord", recs, compression)
    for given in (None, compression):
        idx = ix.build_index(p, given)
        assert len(idx) == 3000 and idx.compression == compression
        offs, lens = _expected(recs)  # offsets in the decompressed stream
        assert np.array_equal(idx.offsets, offs) and np.array_equal(idx.lengths, lens)
    assert ix.count_records([p, p]) == 6000
    # seek points every 32 KiB of the ~450 KiB stream: reads start all over it
    f = ix.TFRecordFile(p, seek_spacing=32 << 10)
    assert f.compression == compression and len(f) == 3000
    rng = np.random.default_rng(5)
    for i in rng.integers(0, 3000, 150).tolist() + [0, 2999, -1]:
        assert f[i] == recs[i]
    order = rng.permutation(3000)[:400].tolist() + list(range(100, 160))
    views, keep = f.gather(order)
    assert _payloads(views) == [recs[i] for i in order]
    g = pickle.loads(pickle.dumps(f))
    assert g[1234] == recs[1234]


def test_compressed_random_access_checks_crcs(tmp_path):
    recs = [b"z" * 100] * 50
    p = _write(tmp_path / "c.tfrecord", recs, "ZLIB")
    idx = ix.build_index(p)
    wrong = ix.RecordIndex(idx.offsets + 1, idx.lengths, "ZLIB")
    with pytest.raises(errors.DataLossError):
        ix.TFRecordFile(p, index=wrong)[3]
    longer = ix.RecordIndex(np.append(idx.offsets, idx.end), np.append(idx.lengths, 116),
                            "ZLIB")
    with pytest.raises(errors.DataLossError, match="stale"):
        ix.TFRecordFile(p, index=longer)[0]


def _payloads(views):
    return [bytes(np.ctypeslib.as_array(
        (np.ctypeslib.ctypes.c_uint8 * int(n)).from_address(int(a)))) if n else b""
        for a, n in views.tolist()]


def test_random_access(tmp_path):
    recs = _records(400)
    p = _write(tmp_path / "a.tfrecord", recs)
    f = ix.TFRecordFile(p)
    assert len(f) == 400
    rng = np.random.default_rng(3)
    for i in rng.integers(0, 400, 200).tolist():
        assert f[i] == recs[i]
    assert f[-1] == recs[-1] and f[2:5] == recs[2:5]
    with pytest.raises(IndexError):
        f[400]
    order = rng.permutation(400)[:120].tolist() + list(range(10, 40))  # runs and singles
    views = f.views(order)
    got = [bytes(np.ctypeslib.as_array(
        (np.ctypeslib.ctypes.c_uint8 * int(n)).from_address(int(a)))) if n else b""
        for a, n in views.tolist()]
    assert got == [recs[i] for i in order]
    f.close()


def test_random_access_checks_crcs_and_stale_indexes(tmp_path):
    recs = [b"a" * 50] * 10
    p = _write(tmp_path / "a.tfrecord", recs)
    idx = ix.build_index(p)
    raw = bytearray(open(p, "rb").read())
    raw[int(idx.offsets[4]) + 12 + 7] ^= 1  # a payload byte of record 4
    open(p, "wb").write(bytes(raw))
    f = ix.TFRecordFile(p, index=idx)
    assert f[3] == recs[3]
    with pytest.raises(errors.DataLossError):
        f[4]
    with pytest.raises(errors.DataLossError):
        f.views(range(10))
    assert ix.TFRecordFile(p, index=idx, verify=False)[4] != recs[4]
    # an index that does not fit the file
    wrong = ix.RecordIndex(idx.offsets + 1, idx.lengths)
    with pytest.raises(errors.DataLossError):
        ix.TFRecordFile(p, index=wrong)[2]
    short = _write(tmp_path / "b.tfrecord", recs[:5])
    with pytest.raises(errors.DataLossError, match="stale"):
        ix.TFRecordFile(short, index=idx)[0]


def test_index_of_a_file_tensorflow_wrote():
    root = os.path.join(os.path.dirname(__file__), "..", "data", "interop", "files")
    path = next(os.path.join(root, n) for n in sorted(os.listdir(root))
                if n.endswith(".tfrecord") and "gzip" not in n and "zlib" not in n)
    idx = ix.build_index(path)
    expected = list(tf.compat.v1.io.tf_record_iterator(path)) if hasattr(tf, "compat") else \
        list(tf.io.tf_record_iterator(path))
    assert len(idx) == len(expected)
    f = ix.TFRecordFile(path, index=idx)
    assert [f[i] for i in range(len(f))] == expected


def test_command_line(tmp_path):
    p = _write(tmp_path / "a.tfrecord", _records(7))
    q = _write(tmp_path / "b.tfrecord", _records(9), "GZIP")
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "..",
                                                   "bindings", "python"))
    r = subprocess.run([sys.executable, "-m", "tfnano.io.index", p, q], env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert len(ix.RecordIndex.load(p + ".idx")) == 7
    assert len(ix.RecordIndex.load(q + ".idx")) == 9
    out = tmp_path / "x.idx"
    assert ix.main([p, "--out", str(out)]) == 0 and len(ix.RecordIndex.load(out)) == 7
    assert ix.main([str(tmp_path / "missing.tfrecord")]) == 1


def test_truncated_file_is_reported_when_building(tmp_path):
    p = _write(tmp_path / "a.tfrecord", _records(5))
    raw = open(p, "rb").read()
    open(p, "wb").write(raw[:-3])
    with pytest.raises(errors.DataLossError):
        ix.build_index(p)


def test_record_index_pickles(tmp_path):
    import pickle
    p = _write(tmp_path / "a.tfrecord", _records(8))
    idx = ix.build_index(p)
    assert pickle.loads(pickle.dumps(idx)) == idx
    f = pickle.loads(pickle.dumps(ix.TFRecordFile(p)))
    assert len(f) == 8 and f[1] == _records(8)[1]


def test_iterating_an_index_gives_pairs(tmp_path):
    recs = _records(9)
    idx = ix.build_index(_write(tmp_path / "a.tfrecord", recs))
    offs, lens = _expected(recs)
    assert list(idx) == list(zip(offs.tolist(), lens.tolist()))

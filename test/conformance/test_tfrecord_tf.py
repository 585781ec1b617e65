"""TFRecord files: real TensorFlow against the tfnano C library (loaded through
test/python/tfn_abi.py; TFN_LIB selects the build).

- TensorFlow writes files in NONE, ZLIB and GZIP that tfnano reads (stated
  compression and AUTO);
- tfnano writes files that TensorFlow reads; uncompressed ones are byte-identical to
  TensorFlow's, compressed ones inflate to exactly those bytes;
- damaged files (a flipped byte anywhere, a truncation at every length, garbage tails,
  cut or padded compressed streams, the wrong compression) give the same records and
  the same error (class and TensorFlow's text: tfnano's message without its
  "; file <name>, record <i>" suffix).
"""
import gzip
import os
import random
import sys
import zlib
from pathlib import Path

import pytest

tf = pytest.importorskip("tensorflow")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test" / "python"))
from tfn_abi import ffi, lib  # noqa: E402

COMPRESSIONS = {"": lib.TFN_COMPRESSION_NONE, "ZLIB": lib.TFN_COMPRESSION_ZLIB,
                "GZIP": lib.TFN_COMPRESSION_GZIP}
DATA_LOSS = {lib.TFN_E_DATA_LOSS, lib.TFN_E_DATA_LOSS_LENGTH, lib.TFN_E_TRUNCATED}


def tfn_read(path, compression="", auto=False):
    """(records, None) or (records, (status, TensorFlow's part of the message))."""
    opts = ffi.new("tfn_record_reader_options *")
    lib.tfn_record_reader_options_init(opts)
    opts.compression = lib.TFN_COMPRESSION_AUTO if auto else COMPRESSIONS[compression]
    err = ffi.new("tfn_error *")
    rp = ffi.new("tfn_record_reader **")
    rc = lib.tfn_record_reader_open(str(path).encode(), opts, ffi.NULL, rp, err)
    assert rc == lib.TFN_OK, ffi.string(err.msg)
    r = rp[0]
    data = ffi.new("const uint8_t **")
    n = ffi.new("size_t *")
    out = []
    try:
        while True:
            rc = lib.tfn_record_reader_next(r, data, n, err)
            if rc == lib.TFN_OK:
                out.append(bytes(ffi.buffer(data[0], n[0])))
            elif rc == lib.TFN_END:
                return out, None
            else:
                msg = ffi.string(err.msg).decode()
                suffix = "; file %s, record %d" % (path, err.record_index)
                assert msg.endswith(suffix), msg
                assert err.record_index == len(out)
                # TensorFlow's text comes first; the library's context (e.g. the
                # compressed offset where inflate() stopped) follows after "; "
                return out, (rc, msg[:-len(suffix)].split("; ", 1)[0])
    finally:
        lib.tfn_record_reader_free(r)


def tfn_write(path, records, compression=""):
    opts = ffi.new("tfn_record_writer_options *")
    lib.tfn_record_writer_options_init(opts)
    opts.compression = COMPRESSIONS[compression]
    err = ffi.new("tfn_error *")
    wp = ffi.new("tfn_record_writer **")
    assert lib.tfn_record_writer_open(str(path).encode(), opts, ffi.NULL, wp, err) == 0
    for rec in records:
        assert lib.tfn_record_writer_write(wp[0], rec, len(rec), err) == 0
    assert lib.tfn_record_writer_close(wp[0], err) == 0
    lib.tfn_record_writer_free(wp[0])


def tf_read(path, compression=""):
    """TensorFlow's record iterator: (records, None) or (records, (class, message))."""
    out = []
    try:
        for rec in tf.compat.v1.io.tf_record_iterator(str(path),
                                                     tf.io.TFRecordOptions(compression)):
            out.append(rec)
        return out, None
    except tf.errors.OpError as e:
        return out, (type(e).__name__, e.message)


def tf_write(path, records, compression=""):
    with tf.io.TFRecordWriter(str(path), compression) as w:
        for rec in records:
            w.write(rec)


def same_outcome(path, compression=""):
    t_recs, t_err = tf_read(path, compression)
    n_recs, n_err = tfn_read(path, compression)
    assert n_recs == t_recs
    if t_err is None:
        assert n_err is None
    else:
        assert t_err[0] == "DataLossError", t_err
        assert n_err is not None and n_err[0] in DATA_LOSS, (t_err, n_err)
        assert n_err[1] == t_err[1]
    return t_recs, t_err


def sample_records(seed, n=40):
    rnd = random.Random(seed)
    recs = [b"", b"hello", bytes(300 * 1024)]
    for _ in range(n):
        k = rnd.choice([0, 1, 10, 100, 1000, 5000, 70000])
        recs.append(bytes(rnd.getrandbits(8) for _ in range(min(k, 2000))) * max(1, k // 2000))
    return recs


@pytest.mark.parametrize("compression", ["", "ZLIB", "GZIP"])
def test_tf_writes_tfnano_reads(tmp_path, compression):
    recs = sample_records(1)
    p = tmp_path / "tf.tfrecord"
    tf_write(p, recs, compression)
    assert tfn_read(p, compression) == (recs, None)
    assert tfn_read(p, auto=True) == (recs, None)


@pytest.mark.parametrize("compression", ["", "ZLIB", "GZIP"])
def test_tfnano_writes_tf_reads(tmp_path, compression):
    recs = sample_records(2)
    ours, theirs = tmp_path / "tfn.tfrecord", tmp_path / "tf.tfrecord"
    tfn_write(ours, recs, compression)
    tf_write(theirs, recs, compression)
    assert tf_read(ours, compression) == (recs, None)
    assert [r.numpy() for r in tf.data.TFRecordDataset(str(ours), compression)] == recs
    tf_plain = tmp_path / "plain.tfrecord"
    tf_write(tf_plain, recs)
    plain = tf_plain.read_bytes()
    raw = ours.read_bytes()
    if compression == "":
        assert raw == plain
    elif compression == "ZLIB":
        assert zlib.decompress(raw) == plain
    else:
        assert gzip.decompress(raw) == plain


def test_small_zlib_file_equals_zlib_compress(tmp_path):
    # spec edge case 37, and the same bytes as TensorFlow writes
    p, q = tmp_path / "a", tmp_path / "b"
    tfn_write(p, [b"foo", b"bar"], "ZLIB")
    tf_write(q, [b"foo", b"bar"], "ZLIB")
    tfn_write(tmp_path / "plain", [b"foo", b"bar"])
    assert p.read_bytes() == zlib.compress((tmp_path / "plain").read_bytes())
    assert p.read_bytes() == q.read_bytes()


def test_every_flipped_byte(tmp_path):
    recs = [b"hello", b"", b"world!" * 3, b"x"]
    clean = tmp_path / "clean"
    tf_write(clean, recs)
    data = clean.read_bytes()
    p = tmp_path / "flip"
    for pos in range(len(data)):
        p.write_bytes(data[:pos] + bytes([data[pos] ^ 0x24]) + data[pos + 1:])
        same_outcome(p)


def test_every_truncation(tmp_path):
    recs = [b"hello", b"", b"world!" * 3]
    clean = tmp_path / "clean"
    tf_write(clean, recs)
    data = clean.read_bytes()
    p = tmp_path / "cut"
    for n in range(len(data) + 1):
        p.write_bytes(data[:n])
        same_outcome(p)


def test_garbage_tails(tmp_path):
    clean = tmp_path / "clean"
    tf_write(clean, [b"a", b"bc"])
    data = clean.read_bytes()
    rnd = random.Random(3)
    p = tmp_path / "tail"
    for n in range(1, 40):
        p.write_bytes(data + bytes(rnd.getrandbits(8) for _ in range(n)))
        same_outcome(p)


@pytest.mark.parametrize("compression", ["ZLIB", "GZIP"])
def test_compressed_cut_and_padded(tmp_path, compression):
    recs = [b"hello", b"world!", b"y" * 300]
    clean = tmp_path / "clean"
    tf_write(clean, recs, compression)
    data = clean.read_bytes()
    p = tmp_path / "cut"
    for n in range(len(data) + 1):
        p.write_bytes(data[:n])
        same_outcome(p, compression)
    for tail in [b"\0\0\0\0", b"garbage!", data]:
        p.write_bytes(data + tail)
        same_outcome(p, compression)


def test_wrong_compression(tmp_path):
    recs = [b"foo", b"bar"]
    for written, read in [("GZIP", "ZLIB"), ("ZLIB", "GZIP"), ("GZIP", ""), ("ZLIB", "")]:
        p = tmp_path / ("w" + written + read)
        tf_write(p, recs, written)
        _, err = same_outcome(p, read)
        assert err is not None


def test_interop_corpus():
    corpus = ROOT / "test" / "data" / "interop" / "files"
    for f in sorted(corpus.iterdir()):
        comp = "GZIP" if f.suffix == ".gz" else "ZLIB" if f.suffix == ".zlib" else ""
        same_outcome(f, comp)
        assert tfn_read(f, auto=True) == tf_read(f, comp)[0:1] + (tfn_read(f, comp)[1],)

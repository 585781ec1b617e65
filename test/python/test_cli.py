"""The tfnano command line on the interop corpus (real TensorFlow / Beam / Java files,
one damaged in the wild) and on files made here."""
import base64
import glob
import hashlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tfnano as tf
from tfnano.cli import main

ROOT = Path(__file__).resolve().parents[2]
INTEROP = ROOT / "test" / "data" / "interop"
DAMAGED = "corrupt_tfmodels_pets_examples_crlf_damaged.record"


def _expected():
    if not (INTEROP / "MANIFEST.md").exists():
        return []
    return [json.loads(Path(p).read_text())
            for p in sorted(glob.glob(str(INTEROP / "expected" / "*.expected.json")))]


EXPECTED = _expected()
EXPECTED_IDS = [e["file"] for e in EXPECTED]


def _file_id(e):
    # (pytest may ask for the id of its placeholder when a list is empty: no corpus)
    return e["file"] if isinstance(e, dict) else str(e)


def run(*argv):
    out = io.StringIO()
    status = main([str(a) for a in argv], out=out)
    return status, out.getvalue()


def _file(e):
    return INTEROP / "files" / e["file"]


def _write(path, records, compression=None):
    with tf.io.TFRecordWriter(str(path), options=compression) as w:
        for r in records:
            w.write(r)


def _example(i):
    return tf.train.Example(features=tf.train.Features(feature={
        "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=[i / 2, -1.5])),
        "tokens": tf.train.Feature(int64_list=tf.train.Int64List(value=list(range(i % 4)))),
        "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"n%d" % i])),
        "blob": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"\xff\x00%d" % i])),
    })).SerializeToString()


@pytest.mark.parametrize("e", EXPECTED, ids=EXPECTED_IDS)
def test_count_is_what_tensorflow_yields(e, capsys):
    status, out = run("count", _file(e))
    assert int(out.split()[0]) == e["tf_yielded_record_count"]
    if e["file"] == DAMAGED:
        assert status == 1
        assert "corrupted record at 12" in capsys.readouterr().err
    else:
        assert status == 0


def test_count_of_a_glob_lists_each_file_and_the_total(capsys):
    status, out = run("count", str(INTEROP / "files" / "tf_ydf_toy_*"))
    lines = out.strip().splitlines()
    assert status == 0
    assert [ln.split("\t")[0] for ln in lines] == ["3", "3", "6"]
    assert lines[0].endswith("tf_ydf_toy_gzip-00000-of-00002.tfrecord.gz")
    assert lines[-1] == "6\ttotal"


def _same_value(got, want, encoding):
    """A JSON value of `tfnano cat` against the expected JSON's (long bytes values are
    stored there as their length and sha256)."""
    if isinstance(want, dict):
        raw = got.encode("utf-8") if isinstance(got, str) else base64.b64decode(got["base64"])
        return len(raw) == want["length"] and hashlib.sha256(raw).hexdigest() == want["sha256"]
    if encoding == "hex":
        return base64.b64decode(got["base64"]) == bytes.fromhex(want)
    return got == want


@pytest.mark.parametrize("e", [e for e in EXPECTED if e["payload_type"] == "Example"
                               and e["file"] != DAMAGED],
                         ids=_file_id)
def test_cat_prints_every_feature_as_stored(e):
    status, out = run("cat", _file(e))
    assert status == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == e["record_count"]
    for row, rec in zip(rows, e["records"]):
        assert sorted(row) == sorted(rec["features"])
        for key, want in rec["features"].items():
            got = row[key]
            if want["kind"] is None:
                assert got is None
                continue
            assert len(got) == want["count"], key
            vals = got[:8] if want.get("truncated") else got
            for g, w in zip(vals, want["values"]):
                if want["kind"] == "float_list":
                    assert np.float32(g) == np.float32(w), key
                else:
                    assert _same_value(g, w, want.get("encoding")), key


def test_head_stops_after_n_and_reports_positions():
    e = next(x for x in EXPECTED if x["file"] == "tf_lingvo_wmt14_ende_wpm_32k_test.tfrecord")
    status, out = run("head", "-n", 3, "--with-position", _file(e))
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and len(rows) == 3
    assert [r["offset"] for r in rows] == [r["offset_in_stream"] for r in e["records"][:3]]
    assert [r["index"] for r in rows] == [0, 1, 2]


@pytest.mark.parametrize("name", ["tf_ydf_toy_gzip-00000-of-00002.tfrecord.gz",
                                  "tf_pytorchdata_example.tfrecord",
                                  "java_ecosystem_hadoop_part-m-00000.tfrecord",
                                  "tf_trax_tfds_squad_train_10.tfrecord"])
def test_schema_prints_a_spec_that_parses_the_file(name, tmp_path):
    status, out = run("schema", INTEROP / "files" / name)
    assert status == 0
    spec_file = tmp_path / "spec.py"
    spec_file.write_text(out)
    scope = {"tf": tf}
    exec(out, scope)
    features = scope["features"]
    assert features, out
    records = list(tf.data.TFRecordDataset(str(INTEROP / "files" / name),
                                           compression_type="GZIP" if name.endswith(".gz")
                                           else None))
    parsed = tf.io.parse_example(np.array([r.numpy() for r in records], dtype=object),
                                 features)
    assert sorted(parsed) == sorted(features)
    # head --spec parses with the same dict
    status, out = run("head", "-n", 1, "--spec", spec_file, INTEROP / "files" / name)
    row = json.loads(out)
    assert status == 0 and sorted(row) == sorted(features)


def test_schema_kinds_and_lengths(tmp_path):
    path = tmp_path / "mixed.tfrecord"
    _write(path, [_example(i) for i in range(8)])
    status, out = run("schema", path)
    assert status == 0
    assert "'id': tf.io.FixedLenFeature([], tf.int64)," in out
    assert "'x': tf.io.FixedLenFeature([2], tf.float32)," in out
    assert "'name': tf.io.FixedLenFeature([], tf.string)," in out
    assert "'tokens': tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True)," in out
    assert "# tokens" in out and "0..3" in out


def test_cat_of_non_utf8_bytes_is_base64(tmp_path):
    path = tmp_path / "b.tfrecord"
    _write(path, [_example(3)])
    status, out = run("cat", path)
    row = json.loads(out)
    assert row["name"] == ["n3"]
    assert base64.b64decode(row["blob"][0]["base64"]) == b"\xff\x003"
    assert row["x"] == [1.5, -1.5] and row["tokens"] == [0, 1, 2]


@pytest.mark.parametrize("e", EXPECTED, ids=EXPECTED_IDS)
def test_verify_checks_every_crc(e):
    status, out = run("verify", _file(e))
    if e["file"] != DAMAGED:
        assert status == 0
        assert out == "OK       %s: %d records\n" % (_file(e), e["record_count"])
        return
    assert status == 1
    assert out.startswith("DAMAGED  %s:" % _file(e))
    # record 0's payload CRC fails (expected JSON): the first damage starts at offset 0
    assert "  %s: offset 0, " % _file(e) in out
    status, out = run("verify", "--json", _file(e))
    report = json.loads(out)
    assert status == 1 and report["ok"] is False
    assert report["damages"][0]["offset"] == 0 and report["damages"][0]["file"] == str(_file(e))


def test_verify_finds_each_flipped_byte(tmp_path):
    path = tmp_path / "flip.tfrecord"
    recs = [_example(i) for i in range(20)]
    _write(path, recs)
    data = bytearray(path.read_bytes())
    starts = np.cumsum([0] + [len(r) + 16 for r in recs])
    data[starts[5] + 12 + 3] ^= 0x40   # payload of record 5
    data[starts[12] + 2] ^= 0x01       # length of record 12
    path.write_bytes(bytes(data))
    status, out = run("verify", "--json", path)
    report = json.loads(out)
    assert status == 1
    assert report["records"] == 18
    assert [(d["offset"], d["before_record"]) for d in report["damages"]] == [
        (int(starts[5]), 5), (int(starts[12]), 11)]
    assert [d["length"] for d in report["damages"]] == [len(recs[5]) + 16, len(recs[12]) + 16]


@pytest.mark.parametrize("e", [e for e in EXPECTED if e["compression"] == "NONE"
                               and e["file"] != DAMAGED], ids=_file_id)
def test_index_is_offset_and_framed_length(e, tmp_path):
    out_path = tmp_path / "x.idx"
    status, _ = run("index", _file(e), "-o", out_path)
    assert status == 0
    lines = out_path.read_text().splitlines()
    assert lines == ["%d %d" % (r["offset_in_stream"], r["length"] + 16) for r in e["records"]]


@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_index_of_a_compressed_file_is_tfnano_io_index(tmp_path, compression):
    # the CLI and tfnano.io.index are one implementation: offsets in the decompressed
    # stream, which TFRecordFile reads records back by
    from tfnano.io.index import TFRecordFile, build_index
    path = tmp_path / "z.tfrecord.gz"
    recs = [b"a", b"", b"0123456789"]
    _write(path, recs, compression)
    status, _ = run("index", path)
    assert status == 0
    text = (tmp_path / "z.tfrecord.gz.idx").read_text()
    assert text == "0 17\n17 16\n33 26\n"
    assert text.encode() == build_index(str(path)).to_text()
    with TFRecordFile(str(path)) as f:
        assert [f[i] for i in range(len(f))] == recs


def test_index_default_name(tmp_path):
    path = tmp_path / "p.tfrecord"
    _write(path, [b"abc", b"", b"0123456789"])
    assert run("index", path)[0] == 0
    assert (tmp_path / "p.tfrecord.idx").read_text() == "0 19\n19 16\n35 26\n"


def _digest(paths, compression=None):
    h = hashlib.sha256()
    for p in paths:
        for r in tf.io.tf_record_iterator(str(p), options=compression):
            h.update(hashlib.sha256(r).digest())
    return h.hexdigest()


def test_split_merge_recompress_keep_every_record(tmp_path):
    e = next(x for x in EXPECTED if x["file"] == "beam_tfx_sequence_example_eval.tfrecord.gz")
    pattern = str(tmp_path / "s" / "part-{shard:03d}-of-{num_shards:03d}.tfrecord")
    status, out = run("split", "--shards", 4, "--no-progress", _file(e), "-o", pattern)
    shards = out.split()
    assert status == 0
    assert shards == [str(tmp_path / "s" / ("part-%03d-of-004.tfrecord" % i))
                      for i in range(4)]
    assert [sum(1 for _ in tf.io.tf_record_iterator(s)) for s in shards] == [1125] * 4
    assert _digest(shards) == e["all_records_sha256"]
    merged = tmp_path / "merged.tfrecord"
    assert run("merge", "--no-progress", str(tmp_path / "s" / "part-*"), "-o", merged)[0] == 0
    assert _digest([merged]) == e["all_records_sha256"]
    gz = tmp_path / "merged.tfrecord.gz"
    assert run("recompress", "--no-progress", merged, "-o", gz, "-z", "GZIP")[0] == 0
    assert gz.read_bytes()[:2] == b"\x1f\x8b"
    assert _digest([gz], "GZIP") == e["all_records_sha256"]
    assert not list(tmp_path.glob("**/*.tmp-*"))


def test_split_by_bytes(tmp_path):
    src = tmp_path / "in.tfrecord"
    _write(src, [b"x" * 84] * 10)  # 100 framed bytes each
    status, out = run("split", src, "--bytes-per-shard", "300B", "-o",
                      str(tmp_path / "o-{shard}.tfrecord"))
    assert status == 0
    assert [sum(1 for _ in tf.io.tf_record_iterator(p)) for p in out.split()] == [3, 3, 3, 1]


def test_missing_file_and_bad_arguments(tmp_path, capsys):
    assert run("count", tmp_path / "nope.tfrecord")[0] == 2
    assert "No such file or directory" in capsys.readouterr().err
    assert run("count", str(tmp_path / "nothing-*"))[0] == 2
    assert "no file matches" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["frobnicate", "x"])
    assert e.value.code == 2


def test_directory_is_a_failed_precondition(tmp_path, capsys):
    assert run("count", tmp_path)[0] == 1
    assert "Is a directory" in capsys.readouterr().err


def test_memory_urls_through_fsspec():
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    buf = io.BytesIO()
    with tf.io.TFRecordWriter(buf) as w:
        for i in range(5):
            w.write(_example(i))
    fs.pipe("/cli/a.tfrecord", buf.getvalue())
    fs.pipe("/cli/b.tfrecord", buf.getvalue())
    status, out = run("count", "memory://cli/*.tfrecord")
    assert status == 0 and out.strip().splitlines()[-1] == "10\ttotal"
    status, out = run("verify", "memory://cli/a.tfrecord")
    assert status == 0 and "5 records" in out


def test_python_dash_m_runs_the_cli(tmp_path):
    path = tmp_path / "m.tfrecord"
    _write(path, [b"a", b"b"])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(tf.__file__))]
                                        + [env.get("PYTHONPATH", "")])
    res = subprocess.run([sys.executable, "-m", "tfnano", "count", str(path)],
                         capture_output=True, text=True, env=env)
    assert res.returncode == 0 and res.stdout == "2\n", res.stderr
    res = subprocess.run([sys.executable, "-m", "tfnano", "--version"],
                         capture_output=True, text=True, env=env)
    assert res.stdout.strip() == "tfnano " + tf.__version__

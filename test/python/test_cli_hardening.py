"""The CLI under faults and mistakes: every error names the damaged file, usage
errors are one line with exit status 2, SIGTERM removes temporary files, a file
with no record is not "OK", long values are cut in `head`, progress says how far."""
import glob
import io
import os
import signal
import subprocess
import sys
import time

import pytest

import tfnano as tf
from tfnano.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "bindings", "python"))


def cli(*argv):
    p = subprocess.run([sys.executable, "-m", "tfnano"] + list(argv), capture_output=True,
                       text=True, timeout=120, env=ENV)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture
def files(tmp_path):
    """good.tfrecord (50 records) and bad.tfrecord (50, record 20 damaged)."""
    out = {}
    for name in ("good", "bad"):
        p = str(tmp_path / ("%s.tfrecord" % name))
        with tf.io.TFRecordWriter(p) as w:
            for i in range(50):
                w.write(tf.train.Example(features=tf.train.Features(feature={
                    "i": tf.train.Feature(int64_list=tf.train.Int64List(value=[i]))}))
                    .SerializeToString())
        out[name] = p
    data = bytearray(open(out["bad"], "rb").read())
    size = len(data) // 50  # every record has the same size
    data[20 * size + 14] ^= 0xFF  # a payload byte of record 20
    open(out["bad"], "wb").write(bytes(data))
    return out


def test_every_command_names_the_damaged_file(files, tmp_path):
    good, bad = files["good"], files["bad"]
    for cmd in (["count", good, bad], ["schema", good, bad], ["index", bad],
                ["merge", good, bad, "-o", str(tmp_path / "m.tfrec")],
                ["split", good, bad, "--records-per-shard", "30", "-o",
                 str(tmp_path / "s-{shard}.tfrec")],
                ["recompress", bad, "-o", str(tmp_path / "r.tfrec.gz")],
                ["head", "-n", "100", good, bad]):
        rc, out, err = cli(*cmd)
        assert rc == 1, (cmd, err)
        assert "file %s, record 20, offset" % bad in err, (cmd, err)
        assert "Traceback" not in err
    assert not glob.glob(str(tmp_path / "*.tmp-*"))


def test_verify_of_a_directory_says_where_once(tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    rc, out, err = cli("verify", str(d))
    assert rc == 1
    assert out.count("file %s" % d) == 1, out


def test_verify_warns_about_a_file_with_no_record(tmp_path):
    p = tmp_path / "notes.txt"
    p.write_bytes(b"hello")
    rc, out, err = cli("verify", str(p))
    assert rc == 1
    assert "5 bytes but no record" in out
    empty = tmp_path / "empty.tfrecord"
    empty.write_bytes(b"")
    assert cli("verify", str(empty))[0] == 0


@pytest.mark.parametrize("argv", [
    ["split", "{f}", "--shards", "3", "-o", "out/part.tfrec"],
    ["split", "{f}", "--shards", "3", "-o", "out/part-{{shar}}.tfrec"],
    ["split", "{f}", "--shards", "0", "-o", "out/p-{{shard}}.tfrec"],
    ["split", "{f}", "--bytes-per-shard", "lots", "-o", "out/p-{{shard}}.tfrec"],
    ["count", "--max-record-size", "huge", "{f}"],
    ["head", "-n", "x", "{f}"],
    ["frobnicate"],
])
def test_usage_errors_are_one_line_and_exit_2(files, tmp_path, argv):
    argv = [a.format(f=files["good"]) for a in argv]
    rc, out, err = cli(*argv)
    assert rc == 2, err
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("usage:")
             and not ln.startswith(" ")]
    assert len(lines) == 1, err


def test_head_cuts_long_values_unless_full(tmp_path):
    p = str(tmp_path / "img.tfrecord")
    ex = tf.train.Example(features=tf.train.Features(feature={
        "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[bytes(range(256)) * 40]))}))
    with tf.io.TFRecordWriter(p) as w:
        w.write(ex.SerializeToString())
    rc, out, _ = cli("head", p)
    assert rc == 0 and len(out) < 400 and "(10240 bytes; --full shows all)" in out
    rc, out, _ = cli("head", "--full", p)
    assert rc == 0 and len(out) > 13000


def test_sigterm_removes_temporary_files(tmp_path):
    src = str(tmp_path / "src.tfrecord")
    with tf.io.TFRecordWriter(src) as w:
        for i in range(200000):
            w.write(b"%08d" % i * 8)
    out = str(tmp_path / "out" / "part-{shard:05d}.tfrec")
    p = subprocess.Popen([sys.executable, "-m", "tfnano", "split", src,
                          "--records-per-shard", "100", "-o", out],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    deadline = time.monotonic() + 60
    while not glob.glob(str(tmp_path / "out" / "*.tmp-*")):
        assert p.poll() is None and time.monotonic() < deadline, p.communicate()
        time.sleep(0.02)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 143, err
    assert "terminated" in err and "Traceback" not in err
    assert glob.glob(str(tmp_path / "out" / "*")) == []


def test_split_progress_is_labelled_split_with_a_percentage(files, tmp_path, monkeypatch,
                                                             capsys):
    from tfnano import _progress
    monkeypatch.setattr(_progress.Progress, "DELAY", 0.0)
    monkeypatch.setattr(_progress.Progress, "EVERY", 0.0)
    rc = main(["split", files["good"], "--shards", "2", "--progress", "-o",
               str(tmp_path / "p-{shard}.tfrec")], out=io.StringIO())
    assert rc == 0
    err = capsys.readouterr().err
    assert "split [" in err and "write_shards" not in err
    assert "/50" in err and "%" in err


def test_write_shards_failure_names_the_final_file(tmp_path):
    from tfnano.io import write_shards
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    # a shard whose temporary name is /dev/full's: the failure must name the shard
    d = tmp_path / "o"
    d.mkdir()
    final = str(d / "s-0.tfrec")
    os.symlink("/dev/full", "%s.tmp-%d" % (final, os.getpid()))
    with pytest.raises(OSError) as e:
        write_shards([b"x" * 1000] * 3000, str(d / "s-{shard}.tfrec"), records_per_shard=3000)
    assert final in str(e.value) and ".tmp-" not in str(e.value)
    assert e.value.filename == final

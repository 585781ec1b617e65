"""Hostile inputs with limits: Ctrl-C during a skip-mode scan over a long damaged
region (/dev/zero), the maximum record size (a gzip bomb whose valid header claims
10 GiB), in the dataset, the C engine, the checking tools and the CLI. Signal cases
run in child processes with deadlines: a hang fails the test."""
import gzip
import os
import signal
import struct
import subprocess
import sys
import textwrap
import time

import pytest

import tfnano as tf
from tfnano.errors import DataLossError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYPATH = os.path.join(ROOT, "bindings", "python")
ENV = dict(os.environ, PYTHONPATH=PYPATH)


def masked_crc(data):
    c = 0xFFFFFFFF
    for b in data:
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 & -(c & 1))
    c ^= 0xFFFFFFFF
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def header(claim):
    h = struct.pack("<Q", claim)
    return h + struct.pack("<I", masked_crc(h))


def interrupt_after(args, delay=1.5, deadline=30, env=None):
    """Starts args, sends SIGINT after `delay` s; (returncode, stderr, seconds from
    the signal to the exit). A child still running at the deadline fails."""
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env or ENV)
    time.sleep(delay)
    assert p.poll() is None, p.communicate()
    p.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    try:
        out, err = p.communicate(timeout=deadline)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        pytest.fail("%s ignored SIGINT for %d s" % (args, deadline))
    return p.returncode, err, time.monotonic() - t0


@pytest.mark.parametrize("engine", ["0", "1"])
def test_sigint_reaches_a_skip_mode_scan_of_dev_zero(engine):
    code = textwrap.dedent("""
        import tfnano as tf
        try:
            for r in tf.data.TFRecordDataset("/dev/zero", on_damage="skip").batch(4).map(
                    lambda b: tf.io.parse_example(b, {"x": tf.io.FixedLenFeature([], tf.int64)})):
                pass
        except KeyboardInterrupt:
            print("interrupted")
            raise SystemExit(3)
    """)
    rc, err, _ = interrupt_after([sys.executable, "-c", code],
                                 env=dict(ENV, TFNANO_C_PIPELINE=engine))
    assert rc == 3, err


@pytest.mark.parametrize("cmd", [["verify"], ["count", "--skip-damage"]])
def test_sigint_reaches_cli_scans_of_dev_zero(cmd):
    rc, err, _ = interrupt_after([sys.executable, "-m", "tfnano"] + cmd + ["/dev/zero"],
                                 delay=4)
    assert rc == 130, err
    assert "Traceback" not in err
    assert "interrupted" in err


@pytest.fixture(scope="module")
def bomb(tmp_path_factory):
    """A GZIP TFRecord file whose first header (valid CRC) claims 10 GiB, followed by
    64 MiB of real zeros (0.1 MB compressed)."""
    p = tmp_path_factory.mktemp("bomb") / "bomb.tfrecord.gz"
    with gzip.open(str(p), "wb", compresslevel=1) as f:
        f.write(header(10 << 30))
        z = bytes(1 << 20)
        for _ in range(64):
            f.write(z)
    return str(p)


def test_a_claim_over_2_gib_is_refused_naming_the_claim(bomb):
    with pytest.raises(DataLossError) as e:
        list(tf.data.TFRecordDataset(bomb, "GZIP"))
    assert "claims 10737418240 bytes, more than the maximum record size 2147483648" in \
        str(e.value)
    assert bomb in str(e.value)
    # a larger max_record_size is still capped at 2 GiB
    with pytest.raises(DataLossError, match="maximum record size 2147483648"):
        list(tf.data.TFRecordDataset(bomb, "GZIP", max_record_size=20 << 30))
    with pytest.raises(DataLossError, match="claims 10737418240"):
        list(tf.io.tf_record_iterator(bomb, tf.io.TFRecordOptions("GZIP")))


def test_max_record_size_option_and_skip_mode(tmp_path):
    p = str(tmp_path / "big.tfrecord")
    with tf.io.TFRecordWriter(p) as w:
        w.write(b"a" * 10)
        w.write(b"b" * 5000)
        w.write(b"c" * 10)
    assert len(list(tf.data.TFRecordDataset(p))) == 3
    with pytest.raises(DataLossError, match="record at 26 claims 5000 bytes, more than "
                                            "the maximum record size 1000"):
        list(tf.data.TFRecordDataset(p, max_record_size=1000))
    # with on_damage="skip" the oversized record is damage: the others come back
    got = [r.numpy() for r in tf.data.TFRecordDataset(p, max_record_size=1000,
                                                      on_damage="skip")]
    assert got == [b"a" * 10, b"c" * 10]
    with pytest.raises(ValueError):
        tf.data.TFRecordDataset(p, max_record_size=0)


def test_engine_refuses_the_claim(bomb, monkeypatch):
    monkeypatch.setenv("TFNANO_C_PIPELINE", "1")
    ds = tf.data.TFRecordDataset(bomb, "GZIP", num_parallel_reads=2).batch(4).map(
        lambda b: tf.io.parse_example(b, {"x": tf.io.FixedLenFeature([], tf.int64)}))
    with pytest.raises(DataLossError, match="claims 10737418240 bytes"):
        list(ds)


def test_cli_refuses_the_claim_quickly_with_a_flag_to_change_it(bomb, tmp_path):
    for cmd in (["count"], ["verify"], ["head"], ["schema"], ["index", "-o", "-"],
                ["merge", "-o", str(tmp_path / "m.tfrec")]):
        out = subprocess.run([sys.executable, "-m", "tfnano"] + cmd + [bomb],
                             capture_output=True, text=True, timeout=60, env=ENV)
        assert out.returncode == 1, (cmd, out.stderr)
        text = out.stdout + out.stderr
        if cmd == ["verify"]:  # verify steps over damage: the claim is a damaged region
            assert "DAMAGED" in text and "0 good records" in text, text
        else:
            assert "claims 10737418240 bytes" in text, (cmd, text)
        assert "Traceback" not in text
    out = subprocess.run([sys.executable, "-m", "tfnano", "count", "--max-record-size",
                          "1KiB", bomb], capture_output=True, text=True, timeout=60, env=ENV)
    assert "maximum record size 1024" in out.stderr
    out = subprocess.run([sys.executable, "-m", "tfnano", "count", "--max-record-size",
                          "lots", bomb], capture_output=True, text=True, timeout=60, env=ENV)
    assert out.returncode == 2 and "Traceback" not in out.stderr


def test_verify_records_default_cap(bomb):
    from tfnano.io import verify_records
    rep = verify_records(bomb, "GZIP")
    assert not rep.ok


def _tensor_proto(dtype_enum, dims):
    def varint(v):
        out = bytearray()
        while v >= 0x80:
            out.append((v & 0x7F) | 0x80)
            v >>= 7
        out.append(v)
        return bytes(out)
    shape = b""
    for d in dims:
        dim = b"\x08" + varint(d)
        shape += b"\x12" + varint(len(dim)) + dim
    return b"\x08" + varint(dtype_enum) + b"\x12" + varint(len(shape)) + shape


def test_parse_tensor_checks_the_claimed_count_against_the_bytes():
    from tfnano.errors import InvalidArgumentError
    # 11 bytes claiming 2^27 strings: refused before anything is allocated
    with pytest.raises(InvalidArgumentError, match="claims 134217728 elements"):
        tf.io.parse_tensor(_tensor_proto(7, [1 << 27]), tf.string)
    # a shape whose element count overflows: InvalidArgumentError, not ValueError
    with pytest.raises(InvalidArgumentError, match="Could not parse `serialized`"):
        tf.io.parse_tensor(_tensor_proto(7, [1 << 32, 1 << 32]), tf.string)
    # TensorFlow's filling of short protos still works within the limit
    got = tf.io.parse_tensor(_tensor_proto(7, [1000]), tf.string).numpy()
    assert got.shape == (1000,) and set(got.tolist()) == {b""}
    got = tf.io.parse_tensor(_tensor_proto(9, [3, 4]), tf.int64).numpy()
    assert got.shape == (3, 4) and not got.any()


def test_damage_in_gzip_data_gives_both_offsets(tmp_path):
    """inflate() fails ~1 MB into the records (the gzip trailer's CRC is damaged): the
    error gives the record's offset in the inflated stream and the compressed offset
    where inflate() failed, not "record 0, offset 0"."""
    import random
    p = str(tmp_path / "d.tfrecord.gz")
    rng = random.Random(3)
    words = [b"alpha", b"beta", b"gamma", b"delta", b"epsilon", b"zeta"]
    recs = [b" ".join(rng.choice(words) for _ in range(200)) for _ in range(2000)]
    with tf.io.TFRecordWriter(p, "GZIP") as w:
        for r in recs:
            w.write(r)
    data = bytearray(open(p, "rb").read())
    data[-6] ^= 0x01  # the CRC32 of the gzip trailer
    open(p, "wb").write(bytes(data))
    with pytest.raises(DataLossError) as e:
        for _ in tf.data.TFRecordDataset(p, "GZIP"):
            pass
    exc = e.value
    assert exc.message == "inflate() failed with error -3: incorrect data check"  # TF's
    assert exc.offset > 1000000 and exc.record_index > 1000
    assert len(data) - 8 <= exc.compressed_offset <= len(data)
    assert "offset %d (inflated stream), compressed offset %d" % (
        exc.offset, exc.compressed_offset) in str(exc)


@pytest.mark.parametrize("comp", ["GZIP", "ZLIB"])
def test_tf_named_readers_say_which_compression_was_found(tmp_path, comp):
    p = str(tmp_path / "c.tfrecord")
    with tf.io.TFRecordWriter(p, comp) as w:
        w.write(b"x" * 100)
    with pytest.raises(DataLossError) as e:
        list(tf.data.TFRecordDataset(p))
    assert e.value.message.startswith("corrupted record at 0")  # TensorFlow's text
    assert "%s header found: pass compression_type='%s'" % (comp, comp) in str(e.value)
    assert p in str(e.value)
    # tfnano's own tools detect it
    from tfnano.cli import main
    import io
    out = io.StringIO()
    assert main(["count", p], out=out) == 0 and out.getvalue() == "1\n"

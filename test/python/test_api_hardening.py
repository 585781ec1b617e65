"""Hardening of the Python API: bad types, closed writers, wrong shapes and dtypes, and
corrupted inputs raise Python exceptions (the risky barrages run in a child
interpreter, so a crash fails the test instead of killing pytest); one million parse
and serialize calls do not grow the process's memory."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tfnano as tf

SPEC = {"a": tf.io.FixedLenFeature([2], tf.int64)}


def _example(values=(1, 2)):
    return tf.train.Example(features=tf.train.Features(feature={
        "a": tf.train.Feature(int64_list=tf.train.Int64List(value=list(values)))}))


GOOD = _example().SerializeToString()


def _varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def _field(number, payload):
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _run_child(code, timeout=300):
    """Runs code in a fresh interpreter; returns its stdout (fails on a crash)."""
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                       text=True, timeout=timeout, env=env)
    assert r.returncode == 0, "child died with %d:\n%s\n%s" % (r.returncode, r.stdout,
                                                               r.stderr[-3000:])
    return r.stdout


# ------------------------------------------------------------------ bad types

@pytest.mark.parametrize("make", [
    lambda: tf.train.Int64List(value=["a"]),
    lambda: tf.train.Int64List(value=[1.5]),
    lambda: tf.train.Int64List(value=[[1, 2]]),
    lambda: tf.train.FloatList(value=[object()]),
    lambda: tf.train.BytesList(value=[1]),
    lambda: tf.train.Feature(int64_list=tf.train.FloatList(value=[1.0])),
    lambda: tf.train.Features(feature={"a": 5}),
    lambda: tf.train.Features(feature={1: tf.train.Feature()}),
    lambda: tf.train.Example.FromString("not bytes"),
    lambda: tf.train.Example.FromString(None),
])
def test_bad_types_in_builders_raise_type_error(make):
    with pytest.raises(TypeError):
        make()


def test_out_of_range_int64_raises_value_error():
    with pytest.raises(ValueError):
        tf.train.Int64List(value=[2 ** 64])


@pytest.mark.parametrize("serialized, exc", [
    (123, TypeError),
    (None, TypeError),
    ([1, 2], TypeError),
    (np.arange(3), TypeError),
    (np.array([[GOOD]]), ValueError),
])
def test_bad_serialized_arguments(serialized, exc):
    with pytest.raises(exc):
        tf.io.parse_example(serialized, SPEC)


@pytest.mark.parametrize("features", [None, {"a": "x"}, {"a": 5}])
def test_bad_feature_specs(features):
    with pytest.raises((TypeError, ValueError)):
        tf.io.parse_example([GOOD], features)


def test_bad_writer_arguments(tmp_path):
    with pytest.raises(TypeError):
        tf.io.TFRecordWriter(123)
    with pytest.raises(ValueError):
        tf.io.TFRecordWriter(str(tmp_path / "x"), options="BZIP")
    with pytest.raises(tf.errors.NotFoundError):
        tf.io.TFRecordWriter(str(tmp_path / "no" / "such" / "dir"))
    with tf.io.TFRecordWriter(str(tmp_path / "y")) as w:
        for bad in (123, None, [1, 2], 1.5):
            with pytest.raises(TypeError):
                w.write(bad)
        w.write(GOOD)
    assert [bytes(r.numpy()) for r in tf.data.TFRecordDataset([str(tmp_path / "y")])] == [GOOD]


def test_write_many_rejects_non_bytes(tmp_path):
    with tf.io.TFRecordWriter(str(tmp_path / "m")) as w:
        for bad in ([1], [b"ok", 2.5], [np.arange(3)]):
            with pytest.raises(TypeError):
                w.write_many(bad)
        with pytest.raises(TypeError):
            w.write(np.arange(3, dtype=np.int64))
        w.write_many([b"a", "b", bytearray(b"c"), np.bytes_(b"d"), tf.constant(b"e")])
    assert [bytes(r.numpy()) for r in tf.data.TFRecordDataset([str(tmp_path / "m")])] == \
        [b"a", b"b", b"c", b"d", b"e"]


def test_bad_reader_arguments(tmp_path):
    with pytest.raises(TypeError):
        list(tf.data.TFRecordDataset(5))
    with pytest.raises(tf.errors.NotFoundError):
        list(tf.data.TFRecordDataset([str(tmp_path / "missing")]))


def test_bad_padding_arguments():
    with pytest.raises(ValueError):
        tf.keras.utils.pad_sequences(5)
    with pytest.raises(ValueError):
        tf.keras.utils.pad_sequences([[1, 2], ["a"]])
    with pytest.raises(ValueError):
        tf.keras.utils.pad_sequences([[1, 2]], padding="middle")
    with pytest.raises(ValueError):
        tf.keras.utils.pad_sequences([[1, 2]], maxlen=-1)


# ------------------------------------------------------------------ closed writers

def test_closed_writer_raises(tmp_path):
    w = tf.io.TFRecordWriter(str(tmp_path / "c"))
    w.write(GOOD)
    w.close()
    for call in (lambda: w.write(GOOD), w.flush, lambda: w.write_many([GOOD]),
                 lambda: w.write_columns({"a": np.zeros((2, 2), np.int64)})):
        with pytest.raises(tf.errors.FailedPreconditionError, match="Writer is closed."):
            call()
    w.close()  # closing again is fine
    with tf.io.TFRecordWriter(str(tmp_path / "d")) as w2:
        pass
    with pytest.raises(tf.errors.FailedPreconditionError):
        w2.write(GOOD)


# ------------------------------------------------------------------ wrong shapes and dtypes

def test_wrong_shapes_raise():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Number of int64 values"):
        tf.io.parse_example([GOOD], {"a": tf.io.FixedLenFeature([3], tf.int64)})
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.io.parse_example([GOOD], {"a": tf.io.FixedLenFeature([-5], tf.int64)})
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.io.parse_example([GOOD], {"a": tf.io.FixedLenFeature([2 ** 62, 2 ** 62], tf.int64)})
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.io.parse_example([b""], {"a": tf.io.FixedLenFeature([2 ** 40], tf.int64,
                                                               default_value=0)})
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.io.parse_example([GOOD], {"a": tf.io.FixedLenFeature([2], tf.int64,
                                                                default_value=[1, 2, 3])})
    with pytest.raises(ValueError):
        tf.io.parse_example([GOOD], {"a": tf.io.FixedLenFeature("ab", tf.int64)})
    with pytest.raises(ValueError, match="scalar"):
        tf.io.parse_single_example([GOOD, GOOD], SPEC)
    with pytest.raises(ValueError, match="allow_missing"):
        tf.io.parse_example([GOOD], {"a": tf.io.FixedLenSequenceFeature([], tf.int64)})


def test_wrong_dtypes_raise():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Data types don't match"):
        tf.io.parse_example([GOOD], {"a": tf.io.FixedLenFeature([2], tf.float32)})
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.io.parse_example([GOOD], {"a": tf.io.FixedLenFeature([2], tf.int32)})
    with pytest.raises(TypeError):
        tf.io.parse_example([GOOD], {"a": tf.io.FixedLenFeature([2], tf.int64,
                                                                default_value="x")})


# ------------------------------------------------------------------ corrupted inputs

def test_corrupted_examples_raise():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse example input"):
        tf.io.parse_example([b"\xff\xff"], SPEC)
    with pytest.raises(tf.train.DecodeError):
        tf.train.Example.FromString(b"\x0a\xff")
    # a packed run inside the int64 list claiming 2^63 - 1 bytes (see test_hardening.c)
    for claim in (4, 2 ** 31, 2 ** 63 - 1):
        run = b"\x0a" + _varint(claim) + b"\x01\x02\x03"
        feature = _field(3, run)
        entry = _field(1, b"a") + _field(2, feature)
        lying = _field(1, _field(1, entry))
        with pytest.raises(tf.train.DecodeError):
            tf.train.Example.FromString(lying)


def test_corrupted_files_raise(tmp_path):
    p = str(tmp_path / "r")
    with tf.io.TFRecordWriter(p) as w:
        for i in range(5):
            w.write(_example((i, i)).SerializeToString())
    data = open(p, "rb").read()
    cases = {
        "cut": (data[:-3], tf.errors.DataLossError, "truncated record"),
        "crc": (data[:20] + bytes([data[20] ^ 1]) + data[21:], tf.errors.DataLossError,
                "corrupted record at 12"),
        "header": (data[:3] + b"\xff" + data[4:], tf.errors.DataLossError,
                   "Is this even a TFRecord file"),
    }
    for name, (content, exc, text) in cases.items():
        q = str(tmp_path / name)
        open(q, "wb").write(content)
        with pytest.raises(exc, match=text):
            list(tf.data.TFRecordDataset([q]))
    with pytest.raises(tf.errors.DataLossError, match="incorrect header check"):
        list(tf.data.TFRecordDataset([p], compression_type="GZIP"))


def test_random_bytes_never_crash_the_interpreter():
    """Random and mutated bytes through every reading entry point, in a child."""
    out = _run_child("""
        import io, os, random, tempfile, zlib, gzip
        import tfnano as tf
        rnd = random.Random(6)
        good = tf.train.Example(features=tf.train.Features(feature={
            "a": tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 2])),
            "b": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5])),
            "c": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"xy"]))})
        ).SerializeToString()
        specs = [
            {"a": tf.io.FixedLenFeature([2], tf.int64)},
            {"a": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
             "b": tf.io.FixedLenFeature([1], tf.float32, default_value=[0.0]),
             "c": tf.io.FixedLenSequenceFeature([], tf.string, allow_missing=True)},
        ]
        def mutate(b):
            b = bytearray(b)
            for _ in range(rnd.randint(1, 4)):
                op = rnd.randrange(3)
                if op == 0 and b:
                    b[rnd.randrange(len(b))] = rnd.randrange(256)
                elif op == 1:
                    b.insert(rnd.randrange(len(b) + 1), rnd.randrange(256))
                elif b:
                    del b[rnd.randrange(len(b))]
            return bytes(b)
        raised = 0
        for i in range(3000):
            blob = mutate(good) if i % 2 else bytes(rnd.randrange(256) for _ in range(rnd.randrange(40)))
            for spec in specs:
                try:
                    tf.io.parse_example([blob, good], spec)
                except tf.errors.OpError:
                    raised += 1
                try:
                    tf.io.parse_single_example(blob, spec)
                except tf.errors.OpError:
                    raised += 1
            try:
                tf.train.Example.FromString(blob)
            except tf.train.DecodeError:
                raised += 1
        d = tempfile.mkdtemp()
        p = os.path.join(d, "r")
        with tf.io.TFRecordWriter(p) as w:
            for _ in range(4):
                w.write(good)
        plain = open(p, "rb").read()
        for i in range(600):
            kind = i % 3
            body = plain if kind == 0 else zlib.compress(plain) if kind == 1 else gzip.compress(plain)
            q = os.path.join(d, "m%d" % i)
            open(q, "wb").write(mutate(body))
            for comp in ("", "ZLIB", "GZIP"):
                try:
                    for r in tf.data.TFRecordDataset([q], compression_type=comp):
                        pass
                except (tf.errors.OpError, ValueError):
                    raised += 1
        print("raised", raised)
    """)
    assert int(out.split()[-1]) > 1000


# ------------------------------------------------------------------ memory growth

def test_million_parse_and_serialize_calls_do_not_grow_memory():
    """1M records parsed (1000 batches of 1000 plus 20k single parses) and 1M
    Example.SerializeToString calls (plus 20k FromString); RSS is read from
    /proc/self/statm after a warm-up and at the end."""
    if not os.path.exists("/proc/self/statm"):
        pytest.skip("needs /proc/self/statm")
    out = _run_child("""
        import json, os, resource
        import numpy as np
        import tfnano as tf
        page = os.sysconf("SC_PAGE_SIZE")
        def rss():
            with open("/proc/self/statm") as f:
                return int(f.read().split()[1]) * page
        def example(i):
            return tf.train.Example(features=tf.train.Features(feature={
                "ids": tf.train.Feature(int64_list=tf.train.Int64List(value=range(i, i + 20))),
                "w": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5] * 5)),
                "t": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"tok%d" % i]))}))
        spec = {"ids": tf.io.FixedLenFeature([20], tf.int64),
                "w": tf.io.FixedLenFeature([5], tf.float32),
                "t": tf.io.FixedLenFeature([], tf.string),
                "seq": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True)}
        examples = [example(i) for i in range(1000)]
        batch = [e.SerializeToString() for e in examples]
        def parse_batches(n):
            for _ in range(n):
                out = tf.io.parse_example(batch, spec)
                assert out["ids"].shape == (1000, 20)
        def serialize(n):
            for k in range(n):
                s = examples[k % 1000].SerializeToString()
            assert len(s) > 0
        def singles(n):
            for k in range(n):
                tf.io.parse_single_example(batch[k % 1000], spec)
                tf.train.Example.FromString(batch[k % 1000])
        # warm-up: caches, pools and allocator arenas reach their steady size
        parse_batches(50); serialize(50000); singles(2000)
        before = rss()
        parse_batches(1000)       # 1,000,000 records parsed
        serialize(1000000)        # 1,000,000 serialize calls
        singles(20000)            # 20,000 single parses + 20,000 decodes
        after = rss()
        print(json.dumps({"before": before, "after": after,
                          "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
    """, timeout=600)
    figures = json.loads(out.strip().splitlines()[-1])
    growth = figures["after"] - figures["before"]
    print("RSS before %.1f MiB, after %.1f MiB, growth %.2f MiB, peak %.1f MiB" % (
        figures["before"] / 2 ** 20, figures["after"] / 2 ** 20, growth / 2 ** 20,
        figures["peak"] / 2 ** 20))
    assert growth < 8 * 2 ** 20, figures

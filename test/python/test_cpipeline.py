"""tfnano._c.pipeline.CPipeline (the C pipeline engine, lib/pipeline): batches equal to
_parsing.run / the record readers on the same records in tf.data's interleave order,
over random specs and files; errors with the readers' and parse_example's classes and
texts, in order, with iteration going on after them; skip policies and their counts;
threads and open files back where they were after 200 abandoned pipelines; Ctrl-C
while next() waits."""
import gc
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import tfnano as tf
from tfnano import _parsing, errors
from tfnano._c.pipeline import CPipeline
from tfnano.io.tf_record import RecordBatch

ROOT = Path(__file__).resolve().parents[2]


# ----------------------------------------------------------------- data

def _feature(value):
    if isinstance(value, (bytes, list)) and value and isinstance(value[0], bytes):
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=value))
    arr = np.asarray(value)
    if arr.dtype.kind == "f":
        return tf.train.Feature(float_list=tf.train.FloatList(value=arr.reshape(-1).tolist()))
    return tf.train.Feature(int64_list=tf.train.Int64List(value=arr.reshape(-1).tolist()))


def _example(features):
    return tf.train.Example(features=tf.train.Features(
        feature={k: _feature(v) for k, v in features.items()})).SerializeToString()


def _write(path, records):
    with tf.io.TFRecordWriter(str(path)) as w:
        for r in records:
            w.write(r)
    return str(path)


def _interleave(per_file, cycle, block):
    """tf.data's interleave(cycle_length, block_length) order, from its definition."""
    slots = [None] * cycle
    pending = list(range(len(per_file)))
    out, idx, taken, n_open = [], 0, 0, 0
    while True:
        s = slots[idx]
        if s is None:
            if pending:
                slots[idx] = [pending.pop(0), 0]
                n_open += 1
                continue
            if n_open == 0:
                return out
            idx, taken = (idx + 1) % cycle, 0
            continue
        f, k = s
        if k == len(per_file[f]):
            slots[idx] = None
            n_open -= 1
            idx, taken = (idx + 1) % cycle, 0
            continue
        out.append(per_file[f][k])
        s[1] += 1
        taken += 1
        if taken == block:
            idx, taken = (idx + 1) % cycle, 0


def _chunks(items, n, drop_remainder=False):
    out = [items[i:i + n] for i in range(0, len(items), n)]
    if drop_remainder and out and len(out[-1]) < n:
        out.pop()
    return out


def _assert_same(got, want):
    assert list(got) == list(want)
    for k in want:
        assert got[k].dtype == want[k].dtype, k
        assert got[k].shape == want[k].shape, k
        if got[k].dtype == object:
            assert got[k].tolist() == want[k].tolist(), k
        else:
            np.testing.assert_array_equal(got[k], want[k], err_msg=k)


def _random_case(rng, tmp_path):
    """A random spec (FixedLen / FixedLenSequence of the three kinds, defaults, int32
    outputs) and files of Examples for it."""
    features, makers = {}, {}
    for j in range(int(rng.integers(1, 6))):
        key = "f%d" % j
        kind = ["int64", "float32", "string"][int(rng.integers(0, 3))]
        dt = {"int64": tf.int64, "float32": tf.float32, "string": tf.string}[kind]
        shape = [[], [2], [3, 2]][int(rng.integers(0, 3))]
        size = int(np.prod(shape)) if shape else 1

        def values(count, kind=kind):
            if kind == "int64":
                return rng.integers(-2 ** 40, 2 ** 40, size=count).tolist() if rng.random() < .5 \
                    else rng.integers(-1000, 1000, size=count).tolist()
            if kind == "float32":
                return rng.standard_normal(count).astype(np.float32).tolist()
            return [bytes(rng.integers(97, 123, size=int(rng.integers(0, 6))).astype(np.uint8))
                    for _ in range(count)]

        if rng.random() < 0.35:
            step = [[], [2]][int(rng.integers(0, 2))]
            ssize = 2 if step else 1
            default = None if rng.random() < .5 else values(1)[0]
            features[key] = tf.io.FixedLenSequenceFeature(step, dt, allow_missing=True,
                                                          default_value=default)
            makers[key] = (lambda v=values, s=ssize: v(s * int(rng.integers(0, 4))))
        else:
            default = None
            if rng.random() < 0.3:
                default = values(size)
                default = default if shape else default[0]
            features[key] = tf.io.FixedLenFeature(shape, dt, default_value=default)
            optional = default is not None
            makers[key] = (lambda v=values, s=size, o=optional: None
                           if o and rng.random() < .3 else v(s))
    int32 = tuple(k for k, f in features.items() if f.dtype == tf.int64 and rng.random() < .5)
    # int32 outputs need values that fit
    for k in int32:
        kind_maker = makers[k]
        makers[k] = (lambda m=kind_maker: None if (x := m()) is None
                     else [int(v) % 1000 for v in x])
    per_file, files = [], []
    for i in range(int(rng.integers(1, 6))):
        recs = []
        for _ in range(int(rng.integers(0, 30))):
            ex = {}
            for k, make in makers.items():
                v = make()
                if v is not None and len(v):
                    ex[k] = v
            recs.append(_example(ex))
        per_file.append(recs)
        files.append(_write(tmp_path / ("part-%d" % i), recs))
    return features, int32, per_file, files


# ----------------------------------------------------------------- equality

@pytest.mark.parametrize("seed", range(12))
def test_random_specs_equal_parsing_run(seed, tmp_path):
    rng = np.random.default_rng(seed)
    features, int32, per_file, files = _random_case(rng, tmp_path)
    maxlen = None if seed % 3 else int(rng.integers(0, 3))
    spec = _parsing.get_spec(features, int32, maxlen, masks=seed % 4 == 1)
    cycle, block = int(rng.integers(1, 5)), int(rng.integers(1, 4))
    batch, drop = int(rng.integers(1, 17)), bool(rng.random() < .3)
    order = _interleave(per_file, cycle, block)
    want = [_parsing.run(spec, c, tensors=False) for c in _chunks(order, batch, drop)]
    for threads, det in ((1, True), (3, True), (2, False)):
        got = list(CPipeline(files, cycle_length=cycle, block_length=block, batch_size=batch,
                             drop_remainder=drop, spec=spec, num_threads=threads,
                             deterministic=det))
        assert len(got) == len(want)
        if det:
            for g, w in zip(got, want):
                _assert_same(g, w)
    raw = list(CPipeline(files, cycle_length=cycle, block_length=block, batch_size=batch,
                         drop_remainder=drop))
    assert all(isinstance(b, RecordBatch) for b in raw)
    assert [list(b.numpy()) for b in raw] == _chunks(order, batch, drop)


def test_order_matches_tfrecorddataset_parallel_reads(tmp_path):
    per_file = [[b"%d-%d" % (f, k) for k in range(n)] for f, n in enumerate([7, 0, 3, 12, 5])]
    files = [_write(tmp_path / str(i), r) for i, r in enumerate(per_file)]
    for reads in (1, 2, 3, 8):
        ds = tf.data.TFRecordDataset(files, num_parallel_reads=reads)
        want = [r.numpy() for r in ds]
        got = [x for b in CPipeline(files, cycle_length=reads, batch_size=4) for x in b.numpy()]
        assert got == want
        assert got == _interleave(per_file, reads, 1)


def test_autotune_cycle_length_is_the_cpu_count(tmp_path):
    per_file = [[b"%d-%d" % (f, k) for k in range(3)] for f in range(9)]
    files = [_write(tmp_path / str(i), r) for i, r in enumerate(per_file)]
    got = [x for b in CPipeline(files, cycle_length=tf.data.AUTOTUNE, num_threads=-1,
                                prefetch=-1, batch_size=5) for x in b.numpy()]
    assert got == _interleave(per_file, len(os.sched_getaffinity(0)), 1)


@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_compressed_files(tmp_path, compression):
    per_file = [[b"%s %d %d" % (compression.encode(), f, k) * (k % 5) for k in range(n)]
                for f, n in enumerate([40, 7, 0, 25])]
    files = []
    for i, recs in enumerate(per_file):
        path = str(tmp_path / ("c%d" % i))
        with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(compression)) as w:
            for r in recs:
                w.write(r)
        files.append(path)
    got = [x for b in CPipeline(files, compression=compression, cycle_length=2,
                                block_length=3, batch_size=6) for x in b.numpy()]
    assert got == _interleave(per_file, 2, 3)
    auto = [x for b in CPipeline(files, compression="AUTO", batch_size=6) for x in b.numpy()]
    assert auto == _interleave(per_file, 1, 1)


def test_raw_batches_are_views_and_parse(tmp_path):
    recs = [_example({"a": [i, i + 1]}) for i in range(40)]
    path = _write(tmp_path / "a", recs)
    batches = list(CPipeline([path], batch_size=16))
    assert [len(b) for b in batches] == [16, 16, 8]
    assert bytes(batches[0].data[batches[0].offsets[3]:batches[0].offsets[4]]) == recs[3]
    out = tf.io.parse_example(batches[2], {"a": tf.io.FixedLenFeature([2], tf.int64)})
    np.testing.assert_array_equal(np.asarray(out["a"])[:, 0], np.arange(32, 40))


def test_outputs_outlive_the_pipeline(tmp_path):
    path = _write(tmp_path / "a", [_example({"a": [i] * 64}) for i in range(600)])
    spec = _parsing.get_spec({"a": tf.io.FixedLenFeature([64], tf.int64)}, ("a",))
    p = CPipeline([path], batch_size=256, spec=spec, num_threads=2)
    first = next(p)["a"]
    p.close()
    del p
    gc.collect()
    assert first.dtype == np.int32 and first.shape == (256, 64)
    np.testing.assert_array_equal(first[:, 0], np.arange(256))
    first[0, 0] = 7  # writable, like parse_example's outputs


# ----------------------------------------------------------------- errors

def _outcomes(iterable):
    out = []
    it = iter(iterable)
    while True:
        try:
            out.append(("ok", next(it)))
        except StopIteration:
            return out
        except errors.OpError as e:
            out.append(("error", e))


def test_parse_errors_in_order_then_going_on(tmp_path):
    recs = [_example({"a": [i]}) for i in range(20)]
    recs[5] = b"\x0a\x7f\x01"             # not a protobuf
    recs[13] = _example({"a": [0.5]})      # the wrong kind
    path = _write(tmp_path / "a", recs)
    spec = _parsing.get_spec({"a": tf.io.FixedLenFeature([], tf.int64)})
    want = []
    for chunk in _chunks(recs, 4):
        try:
            want.append(("ok", _parsing.run(spec, chunk, tensors=False)))
        except errors.OpError as e:
            want.append(("error", e))
    got = _outcomes(CPipeline([path], batch_size=4, spec=spec, num_threads=3))
    assert [k for k, _ in got] == [k for k, _ in want] == ["ok", "error", "ok", "error", "ok"]
    for (gk, g), (wk, w) in zip(got, want):
        if gk == "ok":
            _assert_same(g, w)
        else:
            assert type(g) is type(w)
            assert g.message == w.message
            assert "file %s" % path in str(g) and "record" in str(g) and "offset" in str(g)
    assert got[1][1].record_index == 5 and got[3][1].record_index == 13


def test_parse_errors_single_style(tmp_path):
    recs = [_example({"a": [i]}) for i in range(4)]
    recs[2] = _example({"a": [1, 2]})
    path = _write(tmp_path / "a", recs)
    spec = _parsing.get_spec({"a": tf.io.FixedLenFeature([], tf.int64)})
    with pytest.raises(errors.InvalidArgumentError) as single:
        _parsing.run(spec, [recs[2]], single=True, tensors=False)
    with pytest.raises(errors.InvalidArgumentError) as got:
        next(CPipeline([path], batch_size=4, spec=spec, parse_errors="single"))
    assert got.value.message == single.value.message


def test_parse_errors_skip(tmp_path):
    recs = [_example({"a": [i]}) for i in range(12)]
    for i in (1, 2, 9):
        recs[i] = b"junk%d" % i
    path = _write(tmp_path / "a", recs)
    spec = _parsing.get_spec({"a": tf.io.FixedLenFeature([], tf.int64)})
    p = CPipeline([path], batch_size=4, spec=spec, on_parse_error="skip")
    got = [b["a"].tolist() for b in p]
    assert got == [[0, 3], [4, 5, 6, 7], [8, 10, 11]]
    assert p.stats()["parse_skipped"] == 3


def _damaged(tmp_path, name, records, k):
    path = _write(tmp_path / name, records)
    data = bytearray(Path(path).read_bytes())
    off = sum(len(r) + 16 for r in records[:k])
    data[off + 12] ^= 0x40  # a payload byte of record k
    Path(path).write_bytes(bytes(data))
    return path


def test_damage_raise_like_the_reader_then_next_file(tmp_path):
    a = [b"a%d" % i for i in range(6)]
    b = [b"b%d" % i for i in range(5)]
    c = [b"c%d" % i for i in range(4)]
    pa, pb, pc = _write(tmp_path / "a", a), _damaged(tmp_path, "b", b, 3), _write(tmp_path / "c", c)
    with pytest.raises(errors.DataLossError) as reader_error:
        list(tf.compat.v1.io.tf_record_iterator(pb))
    got = _outcomes(CPipeline([pa, pb, pc], batch_size=4))
    kinds = [k for k, _ in got]
    # a0-a3 | a4 a5 b0 b1 | b2 + damage: the error | c0-c3
    assert kinds == ["ok", "ok", "error", "ok"]
    assert [list(x.numpy()) for k, x in got if k == "ok"] == [a[:4], a[4:] + b[:2], c]
    err = got[2][1]
    assert type(err) is type(reader_error.value)
    assert err.message == reader_error.value.message
    assert pb in str(err)


def test_error_fills_batch_as_fused_map_and_batch(tmp_path):
    a = [b"a%d" % i for i in range(6)]
    b = [b"b%d" % i for i in range(5)]
    c = [b"c%d" % i for i in range(4)]
    files = [_write(tmp_path / "a", a), _damaged(tmp_path, "b", b, 2), _write(tmp_path / "c", c)]
    plain = _outcomes(CPipeline(files, batch_size=4))
    fused = _outcomes(CPipeline(files, batch_size=4, error_fills_batch=True))
    ok = lambda out: [list(x.numpy()) if k == "ok" else "error" for k, x in out]  # noqa: E731
    assert ok(plain) == [a[:4], a[4:] + b[:2], "error", c]
    assert ok(fused) == [a[:4], a[4:] + b[:2], "error", c[3:]]


def test_damage_skip_counts(tmp_path):
    b = [b"b%d" % i for i in range(9)]
    pb = _damaged(tmp_path, "b", b, 4)
    p = CPipeline([pb], batch_size=3, on_damage="skip")
    got = [x for batch in p for x in batch.numpy()]
    assert got == b[:4] + b[5:]
    st = p.stats()
    assert st["skipped_records"] == 1 and st["skipped_bytes"] > 0


def test_missing_file_is_not_found_then_going_on(tmp_path):
    pa = _write(tmp_path / "a", [b"x", b"y"])
    got = _outcomes(CPipeline([str(tmp_path / "none"), pa], batch_size=2))
    assert [k for k, _ in got] == ["error", "ok"]
    assert isinstance(got[0][1], errors.NotFoundError)
    assert list(got[1][1].numpy()) == [b"x", b"y"]


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError):
        CPipeline([], batch_size=0)
    with pytest.raises(ValueError):
        CPipeline([], batch_size=2, on_damage="ignore")
    assert list(CPipeline([], batch_size=2)) == []


# ----------------------------------------------------------------- teardown

def _threads():
    return len(os.listdir("/proc/self/task"))


def _fds():
    return len(os.listdir("/proc/self/fd"))


def test_abandoned_pipelines_leave_no_threads_or_files(tmp_path):
    files = [_write(tmp_path / str(i), [_example({"a": [i, k]}) for k in range(300)])
             for i in range(4)]
    spec = _parsing.get_spec({"a": tf.io.FixedLenFeature([2], tf.int64)})
    gc.collect()
    threads, fds = _threads(), _fds()
    for i in range(200):
        p = CPipeline(files, cycle_length=4, batch_size=8, spec=spec if i % 2 else None,
                      num_threads=2, prefetch=2)
        next(p)
        if i % 3 == 0:
            p.close()
        del p  # __del__ stops the workers and closes the files
    gc.collect()
    assert _threads() == threads
    assert _fds() == fds


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_child_neither_uses_nor_hangs_on_the_parents_pipeline(tmp_path):
    files = [_write(tmp_path / "a", [b"r%d" % i for i in range(5000)])]
    script = textwrap.dedent("""
        import os, sys
        from tfnano._c.pipeline import CPipeline
        p = CPipeline(sys.argv[1:], batch_size=4, prefetch=1)
        next(p)  # the worker now waits for room, holding nothing
        pid = os.fork()
        if pid == 0:
            try:
                next(p)
                sys.exit(3)
            except RuntimeError:
                pass
            del p  # must neither free the parent's pipeline nor wait for its threads
            sys.exit(0)
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
        assert len(list(p)) == 1249  # the parent's pipeline is intact
        print("ok")
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python"))
    out = subprocess.run([sys.executable, "-c", script] + files, env=env, timeout=60,
                         capture_output=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == b"ok"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_ctrl_c_while_waiting_exits(tmp_path):
    fifo = tmp_path / "never-written.fifo"
    os.mkfifo(fifo)
    script = textwrap.dedent("""
        import sys
        from tfnano._c.pipeline import CPipeline
        p = CPipeline([sys.argv[1]], batch_size=2)
        print("waiting", flush=True)
        next(p)
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python"))
    proc = subprocess.Popen([sys.executable, "-c", script, str(fifo)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout.readline().strip() == b"waiting"
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    assert b"KeyboardInterrupt" in err

"""Abandoned iterators stop their threads and close their files (break, exception,
garbage collection, interpreter exit, Ctrl-C): issue 15, item 4."""
import gc
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import tfnano as tf

ROOT = Path(__file__).resolve().parents[2]
FEATS = {"x": tf.io.FixedLenFeature([3], tf.int64)}


@pytest.fixture()
def shards(tmp_path):
    files = []
    for s in range(3):
        path = str(tmp_path / ("s%d" % s))
        with tf.io.TFRecordWriter(path) as w:
            w.write_columns({"x": np.arange(300).reshape(100, 3) + s})
        files.append(path)
    return files


def open_fds():
    return len(os.listdir("/proc/self/fd"))


def settle(count_before, fds_before, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        gc.collect()
        if threading.active_count() <= count_before and open_fds() <= fds_before:
            return True
        time.sleep(0.05)
    return False


def pipelines(files):
    def untraced(r):
        return tf.io.parse_single_example(r.numpy(), FEATS)
    return [
        tf.data.TFRecordDataset(files, num_parallel_reads=3)
        .map(lambda r: tf.io.parse_single_example(r, FEATS), num_parallel_calls=2)
        .prefetch(2),
        tf.data.TFRecordDataset(files).map(untraced, num_parallel_calls=3).batch(4)
        .prefetch(1),
        tf.data.TFRecordDataset(files).batch(16).prefetch(3).unbatch().prefetch(2),
        # fused map-and-batch on the C pipeline engine (its own threads and files)
        tf.data.TFRecordDataset(files, num_parallel_reads=2)
        .map(lambda r: tf.io.parse_single_example(r, FEATS), num_parallel_calls=2)
        .batch(8).prefetch(2),
    ]


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc (Linux)")
def test_thousand_abandoned_iterations_leave_threads_and_files_flat(shards, monkeypatch):
    import warnings
    monkeypatch.setenv("TFNANO_C_PIPELINE", "1")  # the last pipeline on the C engine
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dss = pipelines(shards)
    for ds in dss:  # warm up: lazily imported modules, pools
        next(iter(ds))
    gc.collect()
    threads, fds = threading.active_count(), open_fds()
    for i in range(1000):
        ds = dss[i % len(dss)]
        for j, _ in enumerate(ds):
            if j == i % 5:
                break  # abandoned mid-stream
    assert settle(threads, fds), (threading.active_count(), threads, open_fds(), fds)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc (Linux)")
def test_exception_and_explicit_close_release_everything(shards):
    ds = pipelines(shards)[0]
    next(iter(ds))
    gc.collect()
    threads, fds = threading.active_count(), open_fds()
    for _ in range(50):
        try:
            for el in ds:
                raise RuntimeError("user code failed")
        except RuntimeError:
            pass
    it = iter(ds)
    next(it)
    it.close()
    with pytest.raises(StopIteration):
        next(it)
    assert settle(threads, fds)


CHILD = r"""
import sys, time
sys.path.insert(0, %(path)r)
import tfnano as tf
files = %(files)r
feats = {"x": tf.io.FixedLenFeature([3], tf.int64)}
def slow(r):
    time.sleep(0.001)
    return tf.io.parse_single_example(r.numpy(), feats)
ds = (tf.data.TFRecordDataset(files, num_parallel_reads=2).repeat()
      .map(slow, num_parallel_calls=3).prefetch(4))
it = iter(ds)
next(it)
print("started", flush=True)
if %(mode)r == "exit":
    sys.exit(0)  # the iterator is still alive: interpreter exit must not hang
for el in it:
    pass
"""


def _child(files, mode):
    code = CHILD % {"path": str(ROOT / "bindings" / "python"), "files": files, "mode": mode}
    return subprocess.Popen([sys.executable, "-W", "ignore", "-c", code],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_ctrl_c_during_iteration_exits(shards):
    p = _child(shards, "sigint")
    try:
        assert p.stdout.readline().strip() == "started"
        time.sleep(0.3)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode != 0 and "KeyboardInterrupt" in err


def test_interpreter_exit_with_a_live_iterator(shards):
    p = _child(shards, "exit")
    try:
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0 and "started" in out, err


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc (Linux)")
def test_read_ahead_threads_of_big_records_stop_too(tmp_path):
    files = []
    for s in range(2):
        path = str(tmp_path / ("big%d" % s))
        with tf.io.TFRecordWriter(path) as w:
            for i in range(40):
                w.write(bytes([i]) * (40 << 10))  # big records: read ahead on a thread
        files.append(path)
    ds = tf.data.TFRecordDataset(files, num_parallel_reads=2)
    assert len(list(ds)) == 80
    gc.collect()
    threads, fds = threading.active_count(), open_fds()
    for i in range(200):
        for j, _ in enumerate(ds.batch(4)):
            if j == i % 7:
                break
    assert settle(threads, fds), (threading.active_count(), threads, open_fds(), fds)

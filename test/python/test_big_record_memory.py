"""Big records (100 KiB images) through the reader and the traced pipeline: pooled
read buffers give the same records as fresh ones and are never reused while a batch
still points into them, and glibc's malloc thresholds are raised once (or not at all
with TFNANO_MALLOC_TUNING=0) without changing any result."""
import gc
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

import tfnano as tf
from tfnano._c import record as _crecord
from tfnano._c import malloc as _malloc

ROOT = Path(__file__).resolve().parents[2]


def _write_images(path, n, seed):
    rng = np.random.default_rng(seed)
    images = [rng.bytes(int(rng.integers(60 << 10, 140 << 10))) for _ in range(n)]
    names = [b"img_%04d.jpg" % i for i in range(n)]
    with tf.io.TFRecordWriter(str(path)) as w:
        for i in range(n):
            w.write(tf.train.Example(features=tf.train.Features(feature={
                "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[images[i]])),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 7])),
                "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[names[i]])),
            })).SerializeToString())
    return images, names


def _read_all(path, pooled):
    r = _crecord.Reader(str(path), "", 1 << 20)
    out = []
    try:
        while True:
            got = r.read_batch(5, pooled=pooled)
            if got is None:
                return out
            data, offsets = got
            o = offsets.tolist()
            out.extend(bytes(memoryview(data)[o[i]:o[i + 1]]) for i in range(len(o) - 1))
    finally:
        r.close()


def test_pooled_reads_give_the_same_records(tmp_path):
    path = tmp_path / "images.tfrecord"
    _write_images(path, 40, seed=1)
    plain = _read_all(path, pooled=False)
    assert len(plain) == 40
    assert _read_all(path, pooled=True) == plain
    assert _read_all(path, pooled=True) == plain  # recycled blocks this time


def test_pooled_buffer_is_not_reused_while_alive(tmp_path):
    path = tmp_path / "images.tfrecord"
    _write_images(path, 30, seed=2)
    expect = _read_all(path, pooled=False)
    r = _crecord.Reader(str(path), "", 1 << 20)
    kept = []
    try:
        while True:
            got = r.read_batch(5, pooled=True)
            if got is None:
                break
            kept.append(got)
            gc.collect()  # nothing kept may go back to the pool
    finally:
        r.close()
    seen = []
    pooled = 0
    for data, offsets in kept:
        if len(data) >= _crecord.POOLED_MIN // 4:
            assert isinstance(data, np.ndarray) and data.dtype == np.uint8
            pooled += 1
        else:  # a short read (the end of the read buffer): small, not worth a block
            assert isinstance(data, bytearray)
        o = offsets.tolist()
        assert len(data) == o[-1]
        seen.extend(bytes(data[o[i]:o[i + 1]]) for i in range(len(o) - 1))
    assert seen == expect
    assert pooled > 0


def _image_pipeline(files):
    def read_tfrecord(example):
        features = {"image": tf.io.FixedLenFeature([], tf.string),
                    "label": tf.io.FixedLenFeature([], tf.int64),
                    "name": tf.io.FixedLenFeature([], tf.string)}
        example = tf.io.parse_single_example(example, features)
        return example["image"], example["label"], example["name"]
    return tf.data.TFRecordDataset(files).map(read_tfrecord).batch(16)


def test_traced_image_pipeline_returns_every_image(tmp_path):
    files, images, names = [], [], []
    for s in range(2):
        path = tmp_path / ("w2-%d.tfrecord" % s)
        im, nm = _write_images(path, 37, seed=10 + s)
        files.append(str(path))
        images += im
        names += nm
    got_images, got_labels, got_names = [], [], []
    for _ in range(2):  # the second pass runs on recycled memory
        got_images, got_labels, got_names = [], [], []
        for image, label, name in _image_pipeline(files):
            got_images += image.tolist()
            got_labels += label.tolist()
            got_names += name.tolist()
    assert got_images == images
    assert got_names == names
    assert got_labels == [i % 7 for i in range(37)] * 2
    if os.confstr("CS_GNU_LIBC_VERSION") and os.environ.get("TFNANO_MALLOC_TUNING") != "0":
        assert _malloc.tune() is True  # batches of 16 x 100 KiB images set it


def test_malloc_tuning_can_be_turned_off(tmp_path):
    path = tmp_path / "images.tfrecord"
    _write_images(path, 20, seed=3)
    code = (
        "import sys; sys.path.insert(0, %r)\n"
        "import tfnano as tf\n"
        "from tfnano._c import malloc as _malloc\n"
        "f = {'image': tf.io.FixedLenFeature([], tf.string)}\n"
        "ds = tf.data.TFRecordDataset(%r).map(lambda x: tf.io.parse_single_example(x, f))\n"
        "n = sum(len(b['image']) for b in ds.batch(20))\n"
        "print(n, _malloc._state)\n" % (str(ROOT / "bindings" / "python"), str(path)))
    env = dict(os.environ, TFNANO_MALLOC_TUNING="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["20", "False"]


def test_tune_is_idempotent():
    first = _malloc.tune()
    assert _malloc.tune() is first
    if os.environ.get("TFNANO_MALLOC_TUNING") != "0" and os.confstr("CS_GNU_LIBC_VERSION"):
        assert first is True

"""The image pipeline: JPEG-like bytes + int64 targets (scalars, and a variable-length
list of box labels read with FixedLenSequenceFeature(..., allow_missing=True)) +
names, written as tf.train.Examples the TensorFlow way and read back with
TFRecordDataset -> map(parse_single_example) -> padded_batch, then with the fast
batch parser. Synthetic data; no TensorFlow needed.

    python examples/image_pipeline.py [--examples 300]
"""
import argparse
import os
import tempfile
import time

import numpy as np

import tfnano as tf


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=300)
    args = ap.parse_args(argv)
    # the records live in a folder of their own, removed afterwards
    with tempfile.TemporaryDirectory(prefix="tfnano-images-") as tmp:
        run(args.examples, os.path.join(tmp, "images.tfrecord.gz"))


def run(n, path):
    rng = np.random.default_rng(7)

    images, heights, boxes, names = [], [], [], []
    t0 = time.perf_counter()
    with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(compression_type="GZIP")) as w:
        for i in range(n):
            h, wd = int(rng.integers(64, 256)), int(rng.integers(64, 256))
            img = b"\xff\xd8\xff\xe0" + rng.bytes(int(rng.integers(2000, 6000))) + b"\xff\xd9"
            lab = rng.integers(0, 80, int(rng.integers(0, 6)))  # 0..5 objects
            name = ("img_%05d.jpg" % i).encode()
            ex = tf.train.Example(features=tf.train.Features(feature={
                "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[img])),
                "height": tf.train.Feature(int64_list=tf.train.Int64List(value=[h])),
                "width": tf.train.Feature(int64_list=tf.train.Int64List(value=[wd])),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 10])),
                "box_labels": tf.train.Feature(int64_list=tf.train.Int64List(value=lab)),
                "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[name])),
            }))
            w.write(ex.SerializeToString())
            images.append(img), heights.append(h), boxes.append(lab), names.append(name)
    t_write = time.perf_counter() - t0

    features = {
        "image": tf.io.FixedLenFeature([], tf.string),
        "height": tf.io.FixedLenFeature([], tf.int64),
        "width": tf.io.FixedLenFeature([], tf.int64),
        "label": tf.io.FixedLenFeature([], tf.int64, default_value=-1),
        "box_labels": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
        "name": tf.io.FixedLenFeature([], tf.string),
    }
    t0 = time.perf_counter()
    ds = (tf.data.TFRecordDataset(path, compression_type="GZIP")
          .map(lambda r: tf.io.parse_single_example(r, features))
          .map(lambda d: ((d["image"], d["height"]), d["box_labels"]))
          .padded_batch(32, padding_values=(None, tf.constant(-1, tf.int64))))
    i = 0
    for (img, h), lab in ds:
        for row in range(len(h)):
            assert img[row].numpy() == images[i] and h[row] == heights[i]
            k = len(boxes[i])
            assert lab[row, :k].tolist() == boxes[i].tolist() and (lab[row, k:] == -1).all()
            i += 1
    assert i == n
    t_tfapi = time.perf_counter() - t0

    t0 = time.perf_counter()
    parser = tf.Parser(features, maxlen=4, masks=True)  # fast path: fixed 4 box slots
    got = [parser.parse(b) for b in tf.data.TFRecordDataset(path, "GZIP").batch(64)]
    t_fast = time.perf_counter() - t0
    names_back = np.concatenate([g["name"] for g in got]).tolist()
    lengths = np.concatenate([g["box_labels_length"] for g in got])
    assert names_back == names and lengths.tolist() == [len(b) for b in boxes]
    print("image pipeline: %d examples (%.1f MB of JPEG-like bytes, GZIP)" %
          (n, sum(map(len, images)) / 1e6))
    print("  write with tf.train.Example + TFRecordWriter   %7.1f ms" % (t_write * 1e3))
    print("  TFRecordDataset -> parse_single_example -> padded_batch  %7.1f ms" % (t_tfapi * 1e3))
    print("  TFRecordDataset.batch -> tfnano.Parser (maxlen 4 + masks)  %7.1f ms" % (t_fast * 1e3))
    print("checked: images, heights, box labels, names all read back equal")


if __name__ == "__main__":
    main()

"""Test data for the torch tests: shards whose records carry a unique id."""
import numpy as np

import tfnano as tf

FEATURES = {
    "id": tf.io.FixedLenFeature([], tf.int64),
    "x": tf.io.FixedLenFeature([3], tf.float32),
    "tokens": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
    "name": tf.io.FixedLenFeature([], tf.string),
}


def write_shards(folder, sizes, compression=None, first_id=0):
    """Writes len(sizes) files; record ids run first_id, first_id + 1, ... across them."""
    paths = []
    nid = first_id
    for k, n in enumerate(sizes):
        ids = np.arange(nid, nid + n, dtype=np.int64)
        nid += n
        path = str(folder / ("shard-%02d.tfrecord" % k))
        recs = []
        for i in ids.tolist():
            ex = tf.train.Example(features=tf.train.Features(feature={
                "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=[i, 2 * i, 3 * i])),
                "tokens": tf.train.Feature(int64_list=tf.train.Int64List(
                    value=list(range(i % 7)))),
                "name": tf.train.Feature(bytes_list=tf.train.BytesList(
                    value=[b"rec-%d" % i]))}))
            recs.append(ex.SerializeToString())
        with tf.io.TFRecordWriter(path, compression) as w:
            w.write_many(recs)
        paths.append(path)
    return paths


W1_FEATURES = {
    "q_input_ids": tf.io.FixedLenFeature([512], tf.int64),
    "q_attention_mask": tf.io.FixedLenFeature([512], tf.int64),
    "a_input_ids": tf.io.FixedLenFeature([512], tf.int64),
    "a_attention_mask": tf.io.FixedLenFeature([512], tf.int64),
    "labels": tf.io.FixedLenFeature([30], tf.float32),
}


def w1_columns(n, seed=1):
    """W1 "QUEST" (shared/spec/performance.md): 4 int64 features of 512 (token ids and
    masks, pad id 1) and 30 float labels (random, so each record is unique)."""
    rng = np.random.default_rng(seed)
    cols = {}
    for side in ("q", "a"):
        lengths = np.clip(rng.lognormal(np.log(250), 0.6, n), 8, 512).astype(np.int64)
        ids = np.exp(rng.uniform(np.log(3), np.log(50265), (n, 512))).astype(np.int64)
        mask = (np.arange(512)[None, :] < lengths[:, None]).astype(np.int64)
        ids[mask == 0] = 1
        cols[side + "_input_ids"] = ids
        cols[side + "_attention_mask"] = mask
    cols["labels"] = rng.random((n, 30), dtype=np.float32)
    return cols


def write_w1_shards(folder, n, shards=4, seed=1, compression=None):
    cols = w1_columns(n, seed)
    paths = []
    bounds = [n * k // shards for k in range(shards + 1)]
    for k in range(shards):
        part = {key: v[bounds[k]:bounds[k + 1]] for key, v in cols.items()}
        path = str(folder / ("w1-%05d-of-%05d.tfrecord" % (k, shards)))
        with tf.io.TFRecordWriter(path, compression) as w:
            w.write_columns(part)
        paths.append(path)
    return paths, cols

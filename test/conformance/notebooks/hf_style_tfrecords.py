# Transformer input pipelines as Hugging Face / TF Model Garden scripts write them:
# tokenized examples stored as int64 lists, parsed into dict features, cast to int32,
# shuffled, padded-batched with attention masks, labels split off.
import os
import sys

import numpy as np
import tensorflow as tf

workdir = sys.argv[1]
rng = np.random.default_rng(11)
path = os.path.join(workdir, "train.tfrecord")
lengths = []
with tf.io.TFRecordWriter(path) as writer:
    for i in range(40):
        n = int(rng.integers(3, 12))
        lengths.append(n)
        ids = [101] + rng.integers(1000, 2000, n - 2).tolist() + [102]
        feature = {
            "input_ids": tf.train.Feature(int64_list=tf.train.Int64List(value=ids)),
            "token_type_ids": tf.train.Feature(int64_list=tf.train.Int64List(value=[0] * n)),
            "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 2])),
            "idx": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
        }
        writer.write(tf.train.Example(features=tf.train.Features(feature=feature))
                     .SerializeToString())
MAX_LEN = 16
name_to_features = {
    "input_ids": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
    "token_type_ids": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
    "label": tf.io.FixedLenFeature([], tf.int64),
    "idx": tf.io.FixedLenFeature([], tf.int64),
}


def decode(record):
    example = tf.io.parse_single_example(record, name_to_features)
    for name in list(example.keys()):
        example[name] = tf.cast(example[name], tf.int32)
    example["attention_mask"] = tf.ones_like(example["input_ids"])
    return example


def split_label(example):
    label = example.pop("label")
    return example, label


ds = tf.data.TFRecordDataset(path).map(decode, num_parallel_calls=tf.data.AUTOTUNE)
first = next(iter(ds))
print(sorted(first.keys()), first["input_ids"].numpy()[:2], first["input_ids"].numpy().dtype)
ds = ds.map(split_label)
padded = ds.padded_batch(8, padded_shapes=({"input_ids": [MAX_LEN], "token_type_ids": [MAX_LEN],
                                            "attention_mask": [MAX_LEN], "idx": []}, []),
                         padding_values=({"input_ids": 0, "token_type_ids": 0,
                                          "attention_mask": 0, "idx": -1}, -1))
for features, labels in padded.take(2):
    print(features["input_ids"].shape, features["attention_mask"].numpy().sum(axis=1), labels.numpy())
dynamic = ds.padded_batch(8)
for features, labels in dynamic.take(2):
    print(features["input_ids"].shape, int(tf.reduce_max(tf.reduce_sum(features["attention_mask"], 1))))
total = 0
for features, labels in ds.shuffle(64, seed=1).padded_batch(8, drop_remainder=True):
    total += int(tf.reduce_sum(features["attention_mask"]))
print(total == sum(lengths[:len(lengths) // 8 * 8]) or total)
buckets = ds.bucket_by_sequence_length(
    lambda features, label: tf.shape(features["input_ids"])[0], [6, 9], [4, 4, 4])
print(sorted(int(f["input_ids"].shape[1]) for f, _ in buckets))
print(sum(1 for _ in tf.data.TFRecordDataset(path).shard(4, 1)))

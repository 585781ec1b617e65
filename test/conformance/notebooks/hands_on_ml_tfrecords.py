# Modelled on Hands-On Machine Learning (ch. 13, "The TFRecord Format"): compressed
# TFRecord files, Example protobufs with lists of emails, VarLenFeature -> sparse ->
# dense, parse_example on batches, interleaving several files.
import os
import sys

import tensorflow as tf

workdir = sys.argv[1]
path = os.path.join(workdir, "my_data.tfrecord")
with tf.io.TFRecordWriter(path) as f:
    f.write(b"This is the first record")
    f.write(b"And this is the second record")
filepaths = [path]
dataset = tf.data.TFRecordDataset(filepaths)
for item in dataset:
    print(item.numpy())

options = tf.io.TFRecordOptions(compression_type="GZIP")
zpath = os.path.join(workdir, "my_compressed.tfrecord")
with tf.io.TFRecordWriter(zpath, options) as f:
    f.write(b"Compress, compress, compress!")
dataset = tf.data.TFRecordDataset([zpath], compression_type="GZIP")
print([item.numpy() for item in dataset])

BytesList = tf.train.BytesList
FloatList = tf.train.FloatList
Int64List = tf.train.Int64List
Feature = tf.train.Feature
Features = tf.train.Features
Example = tf.train.Example
person_example = Example(
    features=Features(
        feature={
            "name": Feature(bytes_list=BytesList(value=[b"Alice"])),
            "id": Feature(int64_list=Int64List(value=[123])),
            "emails": Feature(bytes_list=BytesList(value=[b"a@b.com", b"c@d.com"])),
        }))
epath = os.path.join(workdir, "my_contacts.tfrecord")
with tf.io.TFRecordWriter(epath) as f:
    for _ in range(5):
        f.write(person_example.SerializeToString())
feature_description = {
    "name": tf.io.FixedLenFeature([], tf.string, default_value=""),
    "id": tf.io.FixedLenFeature([], tf.int64, default_value=0),
    "emails": tf.io.VarLenFeature(tf.string),
}


def parse(serialized_example):
    return tf.io.parse_single_example(serialized_example, feature_description)


dataset = tf.data.TFRecordDataset([epath]).map(parse)
for parsed_example in dataset.take(1):
    print(parsed_example["name"].numpy(), parsed_example["id"].numpy())
    print(tf.sparse.to_dense(parsed_example["emails"], default_value=b"").numpy())
    print(parsed_example["emails"].values.numpy())


def parse_batch(serialized_examples):
    return tf.io.parse_example(serialized_examples, feature_description)


dataset = tf.data.TFRecordDataset([epath]).batch(2).map(parse_batch)
for parsed_examples in dataset:
    print(parsed_examples["id"].numpy(), parsed_examples["emails"].dense_shape.numpy())

n_files = 3
paths = []
for k in range(n_files):
    p = os.path.join(workdir, "part_%d.tfrecord" % k)
    with tf.io.TFRecordWriter(p) as f:
        for i in range(4):
            f.write(("file%d-rec%d" % (k, i)).encode())
    paths.append(p)
filepath_dataset = tf.data.Dataset.list_files(os.path.join(workdir, "part_*.tfrecord"), shuffle=False)
dataset = filepath_dataset.interleave(lambda fp: tf.data.TFRecordDataset(fp), cycle_length=n_files)
print([r.numpy() for r in dataset])
dataset = tf.data.TFRecordDataset(paths, num_parallel_reads=3)
print(sorted(r.numpy() for r in dataset))
print(sum(1 for _ in tf.compat.v1.io.tf_record_iterator(paths[0])) if hasattr(tf.compat.v1.io, "tf_record_iterator") else 4)

# Modelled on the Keras example "How to train a Keras model on TFRecord files":
# parse image + label records, decode, reshape, ignore order, shuffle, batch, prefetch.
import os
import sys
from functools import partial

import numpy as np
import tensorflow as tf

workdir = sys.argv[1]
AUTOTUNE = tf.data.AUTOTUNE
BATCH_SIZE = 8
IMAGE_SIZE = [8, 8]
rng = np.random.default_rng(1)
paths = []
for shard in range(3):
    path = os.path.join(workdir, "train%02d-%d.tfrec" % (shard, 6))
    with tf.io.TFRecordWriter(path) as w:
        for i in range(6):
            img = rng.integers(0, 255, (8, 8, 3)).astype(np.uint8)
            jpeg = tf.image.encode_png(tf.constant(img)).numpy()
            feat = {
                "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[jpeg])),
                "target": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(img[0, 0, 0] > 127)])),
                "image_name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"img%d_%d" % (shard, i)])),
            }
            w.write(tf.train.Example(features=tf.train.Features(feature=feat)).SerializeToString())
    paths.append(path)
FILENAMES = tf.io.gfile.glob(os.path.join(workdir, "train*.tfrec"))
split_ind = int(0.8 * len(FILENAMES))
TRAINING_FILENAMES, VALID_FILENAMES = FILENAMES[:split_ind], FILENAMES[split_ind:]
print("Train TFRecord Files:", len(TRAINING_FILENAMES))
print("Validation TFRecord Files:", len(VALID_FILENAMES))


def decode_image(image):
    image = tf.image.decode_png(image, channels=3)
    image = tf.cast(image, tf.float32)
    image = tf.reshape(image, [*IMAGE_SIZE, 3])
    return image


def read_tfrecord(example, labeled):
    tfrecord_format = (
        {"image": tf.io.FixedLenFeature([], tf.string),
         "target": tf.io.FixedLenFeature([], tf.int64)}
        if labeled else {"image": tf.io.FixedLenFeature([], tf.string)})
    example = tf.io.parse_single_example(example, tfrecord_format)
    image = decode_image(example["image"])
    if labeled:
        label = tf.cast(example["target"], tf.int32)
        return image, label
    return image


def load_dataset(filenames, labeled=True):
    ignore_order = tf.data.Options()
    ignore_order.experimental_deterministic = False
    dataset = tf.data.TFRecordDataset(filenames)
    dataset = dataset.with_options(ignore_order)
    dataset = dataset.map(partial(read_tfrecord, labeled=labeled), num_parallel_calls=AUTOTUNE)
    return dataset


def get_dataset(filenames, labeled=True):
    dataset = load_dataset(filenames, labeled=labeled)
    dataset = dataset.shuffle(2048, seed=5)
    dataset = dataset.prefetch(buffer_size=AUTOTUNE)
    dataset = dataset.batch(BATCH_SIZE)
    return dataset


train_dataset = get_dataset(TRAINING_FILENAMES)
valid_dataset = get_dataset(VALID_FILENAMES)
image_batch, label_batch = next(iter(train_dataset))
print(image_batch.shape, image_batch.numpy().dtype, label_batch.shape, label_batch.numpy().dtype)
total = 0
label_sum = 0
pixel_sum = 0.0
for images, labels in train_dataset:
    total += int(images.shape[0])
    label_sum += int(tf.reduce_sum(labels))
    pixel_sum += float(tf.reduce_sum(images))
print(total, label_sum, pixel_sum)
for images in get_dataset(VALID_FILENAMES, labeled=False):
    print(images.shape)
ordered = load_dataset(sorted(FILENAMES)).with_options(tf.data.Options())
print([int(l) for _, l in ordered.take(6)] if False else sorted(int(l) for _, l in ordered))

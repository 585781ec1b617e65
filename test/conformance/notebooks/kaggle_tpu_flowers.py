# Modelled on the Kaggle "Flower classification with TPUs" starter notebooks: TPU
# detection with a fallback strategy, file counting from names, labeled/unlabeled
# TFRecord readers, augmentation, repeat/shuffle/batch/prefetch, steps per epoch.
import math
import os
import re
import sys

import numpy as np
import tensorflow as tf

workdir = sys.argv[1]
try:
    tpu = tf.distribute.cluster_resolver.TPUClusterResolver()
    print('Device:', tpu.master())
    tf.config.experimental_connect_to_cluster(tpu)
    tf.tpu.experimental.initialize_tpu_system(tpu)
    strategy = tf.distribute.experimental.TPUStrategy(tpu)
except ValueError:
    strategy = tf.distribute.get_strategy()
print('Number of replicas:', strategy.num_replicas_in_sync)
AUTO = tf.data.experimental.AUTOTUNE
IMAGE_SIZE = [8, 8]
BATCH_SIZE = 4 * strategy.num_replicas_in_sync
CLASSES = ['pink primrose', 'hard-leaved pocket orchid', 'canterbury bells']

rng = np.random.default_rng(3)
for split, n_files in (("train", 2), ("val", 1), ("test", 1)):
    os.makedirs(os.path.join(workdir, split))
    for f in range(n_files):
        count = 5 + f
        path = os.path.join(workdir, split, "%02d-%dx%d-%d.tfrec" % (f, 8, 8, count))
        with tf.io.TFRecordWriter(path) as w:
            for i in range(count):
                img = rng.integers(0, 255, (8, 8, 3)).astype(np.uint8)
                feature = {"image": tf.train.Feature(bytes_list=tf.train.BytesList(
                    value=[tf.image.encode_jpeg(tf.constant(img), quality=95).numpy()]))}
                if split == "test":
                    feature["id"] = tf.train.Feature(bytes_list=tf.train.BytesList(
                        value=[b"id%d_%d" % (f, i)]))
                else:
                    feature["class"] = tf.train.Feature(int64_list=tf.train.Int64List(
                        value=[int(rng.integers(0, 3))]))
                w.write(tf.train.Example(features=tf.train.Features(
                    feature=feature)).SerializeToString())
TRAINING_FILENAMES = tf.io.gfile.glob(os.path.join(workdir, 'train', '*.tfrec'))
VALIDATION_FILENAMES = tf.io.gfile.glob(os.path.join(workdir, 'val', '*.tfrec'))
TEST_FILENAMES = tf.io.gfile.glob(os.path.join(workdir, 'test', '*.tfrec'))


def decode_image(image_data):
    image = tf.image.decode_jpeg(image_data, channels=3)
    image = tf.cast(image, tf.float32) / 255.0
    image = tf.reshape(image, [*IMAGE_SIZE, 3])
    return image


def read_labeled_tfrecord(example):
    LABELED_TFREC_FORMAT = {
        "image": tf.io.FixedLenFeature([], tf.string),
        "class": tf.io.FixedLenFeature([], tf.int64),
    }
    example = tf.io.parse_single_example(example, LABELED_TFREC_FORMAT)
    image = decode_image(example['image'])
    label = tf.cast(example['class'], tf.int32)
    return image, label


def read_unlabeled_tfrecord(example):
    UNLABELED_TFREC_FORMAT = {
        "image": tf.io.FixedLenFeature([], tf.string),
        "id": tf.io.FixedLenFeature([], tf.string),
    }
    example = tf.io.parse_single_example(example, UNLABELED_TFREC_FORMAT)
    image = decode_image(example['image'])
    idnum = example['id']
    return image, idnum


def load_dataset(filenames, labeled=True, ordered=False):
    ignore_order = tf.data.Options()
    if not ordered:
        ignore_order.experimental_deterministic = False
    dataset = tf.data.TFRecordDataset(filenames, num_parallel_reads=AUTO)
    dataset = dataset.with_options(ignore_order)
    dataset = dataset.map(read_labeled_tfrecord if labeled else read_unlabeled_tfrecord,
                          num_parallel_calls=AUTO)
    return dataset


def data_augment(image, label):
    image = tf.image.flip_left_right(image)
    return image, label


def get_training_dataset():
    dataset = load_dataset(TRAINING_FILENAMES, labeled=True)
    dataset = dataset.map(data_augment, num_parallel_calls=AUTO)
    dataset = dataset.repeat()
    dataset = dataset.shuffle(2048)
    dataset = dataset.batch(BATCH_SIZE)
    dataset = dataset.prefetch(AUTO)
    return dataset


def get_validation_dataset(ordered=False):
    dataset = load_dataset(VALIDATION_FILENAMES, labeled=True, ordered=ordered)
    dataset = dataset.batch(BATCH_SIZE)
    dataset = dataset.cache()
    dataset = dataset.prefetch(AUTO)
    return dataset


def get_test_dataset(ordered=False):
    dataset = load_dataset(TEST_FILENAMES, labeled=False, ordered=ordered)
    dataset = dataset.batch(BATCH_SIZE)
    dataset = dataset.prefetch(AUTO)
    return dataset


def count_data_items(filenames):
    n = [int(re.compile(r"-([0-9]*)\.").search(filename).group(1)) for filename in filenames]
    return np.sum(n)


NUM_TRAINING_IMAGES = count_data_items(TRAINING_FILENAMES)
NUM_VALIDATION_IMAGES = count_data_items(VALIDATION_FILENAMES)
NUM_TEST_IMAGES = count_data_items(TEST_FILENAMES)
STEPS_PER_EPOCH = NUM_TRAINING_IMAGES // BATCH_SIZE
print('Dataset: {} training images, {} validation images, {} unlabeled test images'.format(
    NUM_TRAINING_IMAGES, NUM_VALIDATION_IMAGES, NUM_TEST_IMAGES))
print("Training data shapes:")
for image, label in get_training_dataset().take(3):
    print(image.numpy().shape, label.numpy().shape)
print("Validation data shapes:")
for image, label in get_validation_dataset().take(3):
    print(image.numpy().shape, label.numpy().shape)
print("Validation data label examples:", sorted(
    l for _, lab in get_validation_dataset(ordered=True) for l in lab.numpy().tolist()))
print("Test data shapes:")
for image, idnum in get_test_dataset().take(3):
    print(image.numpy().shape, idnum.numpy().shape)
test_ds = get_test_dataset(ordered=True)
test_ids_ds = test_ds.map(lambda image, idnum: idnum).unbatch()
test_ids = next(iter(test_ids_ds.batch(NUM_TEST_IMAGES))).numpy().astype('U')
print(test_ids)
with strategy.scope():
    print("steps per epoch:", STEPS_PER_EPOCH, math.ceil(NUM_VALIDATION_IMAGES / BATCH_SIZE))
row = next(iter(get_validation_dataset(ordered=True).unbatch()))
print(np.round(row[0].numpy()[0, :2], 1).shape, row[1].numpy().dtype)

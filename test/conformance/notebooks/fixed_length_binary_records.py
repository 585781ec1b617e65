# Binary datasets read with FixedLengthRecordDataset, as the TF Model Garden CIFAR-10
# input code (cifar10_input.py: a label byte then the depth-major image) and the MNIST
# idx readers (a 16-byte / 8-byte header before the images / labels) do it; then the
# same files gzipped, read with compression_type="GZIP".
import gzip
import os
import struct
import sys

import numpy as np
import tensorflow as tf

workdir = sys.argv[1]
rng = np.random.default_rng(3)

# CIFAR-10 style: each record is <1 x label><3 x 8 x 8 pixels>, depth-major.
HEIGHT, WIDTH, DEPTH = 8, 8, 3
LABEL_BYTES, IMAGE_BYTES = 1, HEIGHT * WIDTH * DEPTH
RECORD_BYTES = LABEL_BYTES + IMAGE_BYTES
filenames = []
for i in range(2):
    labels = rng.integers(0, 10, 5, dtype=np.uint8)
    images = rng.integers(0, 256, (5, IMAGE_BYTES), dtype=np.uint8)
    path = os.path.join(workdir, "data_batch_%d.bin" % (i + 1))
    with open(path, "wb") as f:
        f.write(np.concatenate([labels[:, None], images], axis=1).tobytes())
    filenames.append(path)
print([os.path.getsize(f) for f in filenames])

dataset = tf.data.FixedLengthRecordDataset(filenames, RECORD_BYTES)
print(dataset.element_spec)
first = next(iter(dataset))
print(len(first.numpy()), first.dtype)


def parse_record(value):
    record = tf.io.decode_raw(value, tf.uint8)
    label = tf.cast(record[0], tf.int32)
    depth_major = tf.reshape(record[LABEL_BYTES:RECORD_BYTES], [DEPTH, HEIGHT, WIDTH])
    image = tf.transpose(depth_major, [1, 2, 0])
    return tf.cast(image, tf.float32) / 255.0, label


parsed = dataset.map(parse_record)
print(parsed.element_spec)
for image, label in parsed.take(2):
    print(image.shape, label.numpy(), np.round(image.numpy()[0, 0], 4))
for images, labels in parsed.batch(4).take(3):
    print(images.shape, labels.numpy(), float(np.round(tf.reduce_mean(images).numpy(), 4)))
print(sum(1 for _ in parsed), parsed.cardinality().numpy())

interleaved = tf.data.FixedLengthRecordDataset(filenames, RECORD_BYTES, num_parallel_reads=2)
print([tf.io.decode_raw(r, tf.uint8)[0].numpy() for r in interleaved])

# MNIST idx: a header (magic number, sizes) before the fixed-size records.
n, rows, cols = 6, 4, 4
pixels = rng.integers(0, 256, (n, rows, cols), dtype=np.uint8)
digits = rng.integers(0, 10, n, dtype=np.uint8)
img_path = os.path.join(workdir, "train-images-idx3-ubyte")
lbl_path = os.path.join(workdir, "train-labels-idx1-ubyte")
with open(img_path, "wb") as f:
    f.write(struct.pack(">IIII", 2051, n, rows, cols) + pixels.tobytes())
with open(lbl_path, "wb") as f:
    f.write(struct.pack(">II", 2049, n) + digits.tobytes())

images = tf.data.FixedLengthRecordDataset(img_path, rows * cols, header_bytes=16).map(
    lambda s: tf.reshape(tf.io.decode_raw(s, tf.uint8), [rows, cols]))
labels = tf.data.FixedLengthRecordDataset(lbl_path, 1, header_bytes=8).map(
    lambda s: tf.cast(tf.io.decode_raw(s, tf.uint8)[0], tf.int64))
mnist = tf.data.Dataset.zip((images, labels))
print(mnist.element_spec)
for img, lbl in mnist.batch(3):
    print(img.numpy().sum(axis=(1, 2)), lbl.numpy())
print(np.array_equal(np.stack([i.numpy() for i, _ in mnist]), pixels))

# A footer (a checksum block at the end, say) is left out.
footer_path = os.path.join(workdir, "with_footer.bin")
with open(footer_path, "wb") as f:
    f.write(b"HDR" + bytes(range(12)) + b"END!")
print([r.numpy() for r in tf.data.FixedLengthRecordDataset(footer_path, 4, header_bytes=3,
                                                             footer_bytes=4)])

# Compressed copies: the records are the same.
gz_path = os.path.join(workdir, "data_batch_1.bin.gz")
with open(filenames[0], "rb") as src, open(gz_path, "wb") as dst:
    dst.write(gzip.compress(src.read()))
gz = tf.data.FixedLengthRecordDataset(gz_path, RECORD_BYTES, compression_type="GZIP")
print(all(a.numpy() == b.numpy() for a, b in zip(gz, tf.data.FixedLengthRecordDataset(
    filenames[0], RECORD_BYTES))))
try:
    for _ in tf.data.FixedLengthRecordDataset(filenames[0], 7):
        pass
except tf.errors.InvalidArgumentError as e:
    print("InvalidArgumentError:", "not an exact multiple of the record length" in str(e))

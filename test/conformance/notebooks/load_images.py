# Modelled on the TensorFlow tutorial "Load and preprocess images" (the tf.data part):
# list files, labels from the directory names, read_file + decode, split, batch.
import os
import pathlib
import sys

import numpy as np
import tensorflow as tf

data_dir = pathlib.Path(sys.argv[1]) / "flower_photos"
rng = np.random.default_rng(0)
for k, name in enumerate(["daisy", "roses", "tulips"]):
    (data_dir / name).mkdir(parents=True)
    for i in range(4):
        pixels = (rng.integers(0, 255, (6 + i, 5, 3))).astype(np.uint8)
        png = tf.image.encode_png(tf.constant(pixels))
        tf.io.write_file(str(data_dir / name / ("%s_%d.png" % (name, i))), png)

image_count = len(list(data_dir.glob('*/*.png')))
print(image_count)
list_ds = tf.data.Dataset.list_files(str(data_dir / '*/*'), shuffle=False)
print(sorted(os.path.basename(f.numpy().decode()) for f in list_ds)[:4])
class_names = np.array(sorted([item.name for item in data_dir.glob('*') if item.name != "LICENSE.txt"]))
print(class_names)
val_size = int(image_count * 0.25)
train_ds = list_ds.skip(val_size)
val_ds = list_ds.take(val_size)
print(tf.data.experimental.cardinality(train_ds).numpy())
print(tf.data.experimental.cardinality(val_ds).numpy())
img_height = 4
img_width = 4


def get_label(file_path):
    parts = tf.strings.split(file_path, os.path.sep)
    one_hot = parts[-2] == class_names
    return tf.argmax(one_hot)


def decode_img(img):
    img = tf.io.decode_png(img, channels=3) if hasattr(tf.io, "decode_png") else \
        tf.image.decode_png(img, channels=3)
    return tf.image.resize(img, [img_height, img_width])


def process_path(file_path):
    label = get_label(file_path)
    img = tf.io.read_file(file_path)
    img = decode_img(img)
    return img, label


for f in list_ds.take(3):
    print(get_label(f).numpy(), tf.strings.split(f, os.path.sep)[-1].numpy())
AUTOTUNE = tf.data.AUTOTUNE
train_ds = train_ds.map(process_path, num_parallel_calls=AUTOTUNE)
val_ds = val_ds.map(process_path, num_parallel_calls=AUTOTUNE)
for image, label in train_ds.take(2):
    print("Image shape: ", image.numpy().shape)
    print("Label: ", label.numpy())
    print(np.round(image.numpy()[0, 0], 3))


def configure_for_performance(ds):
    ds = ds.cache()
    ds = ds.batch(4)
    ds = ds.prefetch(buffer_size=AUTOTUNE)
    return ds


train_ds = configure_for_performance(train_ds)
val_ds = configure_for_performance(val_ds)
image_batch, label_batch = next(iter(train_ds))
print(image_batch.shape, label_batch.numpy(), image_batch.numpy().dtype)
normalized = train_ds.map(lambda x, y: (x / 255.0, y))
first = next(iter(normalized))[0]
print(float(np.min(first)) >= 0, float(np.max(first)) <= 1)
raw = tf.io.read_file(str(data_dir / "roses" / "roses_0.png"))
print(raw.numpy()[:8], tf.strings.length(raw).numpy() > 20)
print(sorted(os.path.basename(p) for p in tf.io.matching_files(str(data_dir / "tulips" / "*.png")).numpy().astype(str)))

# Modelled on the TensorFlow guide "tf.data: Build TensorFlow input pipelines":
# basic mechanics, dataset structure, reading numpy data, batching, repeat, shuffle.
import numpy as np
import tensorflow as tf

dataset = tf.data.Dataset.from_tensor_slices([8, 3, 0, 8, 2, 1])
for elem in dataset:
    print(elem.numpy())
it = iter(dataset)
print(next(it).numpy())
print(dataset.reduce(0, lambda state, value: state + value).numpy())

dataset1 = tf.data.Dataset.from_tensor_slices(
    tf.random.uniform([4, 10], minval=1, maxval=10, dtype=tf.int32))
print(len(list(dataset1)), [e.shape for e in dataset1][0])
dataset2 = tf.data.Dataset.from_tensor_slices(
    (tf.random.uniform([4]), tf.random.uniform([4, 100], maxval=100, dtype=tf.int32)))
dataset3 = tf.data.Dataset.zip((dataset1, dataset2))
for a, (b, c) in dataset3.take(1):
    print('shapes: {a.shape}, {b.shape}, {c.shape}'.format(a=a, b=b, c=c))

dataset4 = tf.data.Dataset.from_tensors(tf.constant([[1, 2, 3], [4, 5, 6]]))
print([x.numpy().tolist() for x in dataset4])

train = (np.arange(60000 * 4, dtype=np.uint8).reshape(60000, 2, 2) % 251,
         np.arange(60000, dtype=np.uint8) % 10)
images, labels = train
images = images / 255
dataset = tf.data.Dataset.from_tensor_slices((images, labels))
for img, lab in dataset.take(2):
    print(img.numpy().round(4).tolist(), lab.numpy())
print(dataset.cardinality().numpy())


def count(stop):
    i = 0
    while i < stop:
        yield i
        i += 1


for n in count(5):
    print(n)
ds_counter = tf.data.Dataset.from_generator(count, args=[25], output_types=tf.int32,
                                            output_shapes=(), )
for count_batch in ds_counter.repeat().batch(10).take(10):
    print(count_batch.numpy())


def gen_series():
    i = 0
    while True:
        size = (i * 7) % 10
        yield i, np.arange(size) * 0.5
        i += 1


ds_series = tf.data.Dataset.from_generator(
    gen_series, output_types=(tf.int32, tf.float32), output_shapes=((), (None,)))
ds_series_batch = ds_series.shuffle(1).padded_batch(10)
ids, sequence_batch = next(iter(ds_series_batch))
print(ids.numpy())
print(sequence_batch.numpy()[:5])

inc_dataset = tf.data.Dataset.range(100)
dec_dataset = tf.data.Dataset.range(0, -100, -1)
dataset = tf.data.Dataset.zip((inc_dataset, dec_dataset))
batched_dataset = dataset.batch(4)
for batch in batched_dataset.take(4):
    print([arr.numpy() for arr in batch])
batched_dataset = dataset.batch(7, drop_remainder=True)
print(len(list(batched_dataset)))

dataset = tf.data.Dataset.range(100)
dataset = dataset.map(lambda x: tf.fill([tf.cast(x, tf.int32)], x))
dataset = dataset.padded_batch(4, padded_shapes=(None,))
for batch in dataset.take(2):
    print(batch.numpy())
    print()

titanic_lines = tf.data.Dataset.from_tensor_slices(
    ["survived,sex,age", "0,male,22.0", "1,female,38.0", "1,female,26.0"])
for line in titanic_lines.skip(1).take(2):
    print(line.numpy())


def survived(line):
    return tf.not_equal(tf.strings.substr(line, 0, 1), "0")


survivors = titanic_lines.skip(1).filter(survived)
for line in survivors:
    print(line.numpy())

lines = tf.data.Dataset.range(5).repeat(3).batch(4)
print([b.numpy().tolist() for b in lines])
shuffled = tf.data.Dataset.range(20).shuffle(buffer_size=5, seed=3).batch(20)
print(sorted(next(iter(shuffled)).numpy().tolist()))
print(tf.data.Dataset.range(10).enumerate(start=5).take(2).as_numpy_iterator().__next__())

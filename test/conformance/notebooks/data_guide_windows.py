# Modelled on the "tf.data" guide's time-series section: window, flat_map, batch
# windows, group_by_window and bucket_by_sequence_length; plus resampling helpers.
import numpy as np
import tensorflow as tf

range_ds = tf.data.Dataset.range(100000)
batches = range_ds.batch(10, drop_remainder=True)
for batch in batches.take(5):
    print(batch.numpy())


def dense_1_step(batch):
    return batch[:-1], batch[1:]


predict_dense_1_step = batches.map(dense_1_step)
for features, label in predict_dense_1_step.take(3):
    print(features.numpy(), " => ", label.numpy())

batches = range_ds.batch(15, drop_remainder=True)


def label_next_5_steps(batch):
    return (batch[:-5], batch[-5:])


for features, label in batches.map(label_next_5_steps).take(3):
    print(features.numpy(), " => ", label.numpy())

feature_length = 10
label_length = 3
features = range_ds.batch(feature_length, drop_remainder=True)
labels = range_ds.batch(feature_length).skip(1).map(lambda labels: labels[:label_length])
predicted_steps = tf.data.Dataset.zip((features, labels))
for features, label in predicted_steps.take(5):
    print(features.numpy(), " => ", label.numpy())

window_size = 5
windows = range_ds.window(window_size, shift=1)
for sub_ds in windows.take(5):
    print(sub_ds)  if False else print([x.numpy() for x in sub_ds])
for x in windows.flat_map(lambda x: x).take(30):
    print(x.numpy(), end=' ')
print()


def sub_to_batch(sub):
    return sub.batch(window_size, drop_remainder=True)


for example in windows.flat_map(sub_to_batch).take(5):
    print(example.numpy())


def make_window_dataset(ds, window_size=5, shift=1, stride=1):
    windows = ds.window(window_size, shift=shift, stride=stride)

    def sub_to_batch(sub):
        return sub.batch(window_size, drop_remainder=True)

    windows = windows.flat_map(sub_to_batch)
    return windows


ds = make_window_dataset(range_ds, window_size=10, shift=5, stride=3)
for example in ds.take(10):
    print(example.numpy())
dense_labels_ds = ds.map(dense_1_step)
for inputs, labels in dense_labels_ds.take(3):
    print(inputs.numpy(), "=>", labels.numpy())

words = tf.data.Dataset.from_tensor_slices(
    ["a", "bb", "ccc", "dd", "e", "ffff", "ggg", "h", "iiiii", "jj"])
grouped = words.group_by_window(
    key_func=lambda w: tf.cast(tf.strings.length(w) % 2, tf.int64),
    reduce_func=lambda key, ds: ds.batch(3), window_size=3)
for batch in grouped:
    print(batch.numpy())


def _element_length_fn(x, y=None):
    return tf.shape(x)[0]


lengths = [3, 7, 1, 5, 9, 2, 8, 4, 6, 10, 3, 5]
sequences = tf.data.Dataset.from_generator(
    lambda: (np.arange(n, dtype=np.int32) + 1 for n in lengths),
    output_signature=tf.TensorSpec(shape=[None], dtype=tf.int32))
bucketed = sequences.bucket_by_sequence_length(
    element_length_func=_element_length_fn, bucket_boundaries=[4, 8],
    bucket_batch_sizes=[2, 2, 2])
for batch in bucketed:
    print(batch.numpy().shape, batch.numpy()[0])
bucketed = sequences.apply(tf.data.experimental.bucket_by_sequence_length(
    _element_length_fn, [4, 8, 12], [3, 3, 3, 3], pad_to_bucket_boundary=True,
    padding_values=-1, drop_remainder=True))
for batch in bucketed:
    print(batch.numpy())

counts = tf.data.Dataset.range(1, 11).scan(
    tf.constant(0, dtype=tf.int64), lambda state, x: (state + x, state * 10 + x))
print(list(counts.as_numpy_iterator()))
print(list(tf.data.Dataset.from_tensor_slices([3, 1, 3, 2, 1]).unique().as_numpy_iterator()))
print(list(tf.data.Dataset.range(10).batch(3).rebatch(4).as_numpy_iterator()))
choice = tf.data.Dataset.range(3).repeat(2)
datasets = [tf.data.Dataset.from_tensors("foo").repeat(), tf.data.Dataset.from_tensors("bar").repeat(),
            tf.data.Dataset.from_tensors("baz").repeat()]
print(list(tf.data.Dataset.choose_from_datasets(datasets, choice).as_numpy_iterator()))
print(list(tf.data.Dataset.counter(start=2, step=5).take(4).as_numpy_iterator()))
balanced = tf.data.Dataset.sample_from_datasets(
    [tf.data.Dataset.range(0, 50), tf.data.Dataset.range(50, 100)], weights=[0.5, 0.5], seed=4)
print(sorted(balanced.as_numpy_iterator()) == list(range(100)))
print(tf.data.Dataset.range(5).apply(tf.data.experimental.assert_cardinality(5))
      .cardinality().numpy())
try:
    list(tf.data.Dataset.range(5).filter(lambda x: x < 3).apply(
        tf.data.experimental.assert_cardinality(5)))
except tf.errors.FailedPreconditionError as e:
    print("FailedPreconditionError", e.message.split("}} ")[-1].split(" [Op")[0])

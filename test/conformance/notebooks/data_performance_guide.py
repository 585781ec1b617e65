# Modelled on the TensorFlow guide "Better performance with the tf.data API": a
# generator-backed dataset, prefetch, interleave, parallel map, cache, vectorized
# map (batch before map), and options.
import time

import numpy as np
import tensorflow as tf


class ArtificialDataset(tf.data.Dataset):
    def _generator(num_samples):
        for sample_idx in range(num_samples):
            yield (sample_idx,)

    def __new__(cls, num_samples=3):
        return tf.data.Dataset.from_generator(
            cls._generator,
            output_signature=tf.TensorSpec(shape=(1,), dtype=tf.int64),
            args=(num_samples,))


def benchmark(dataset, num_epochs=2):
    seen = []
    for epoch_num in range(num_epochs):
        for sample in dataset:
            seen.append(np.asarray(sample).tolist())
    return seen


print(benchmark(ArtificialDataset()))
print(benchmark(ArtificialDataset().prefetch(tf.data.AUTOTUNE)))
print(sorted(map(str, benchmark(tf.data.Dataset.range(2).interleave(
    lambda _: ArtificialDataset(), num_parallel_calls=tf.data.AUTOTUNE)))))
print(benchmark(tf.data.Dataset.range(2).interleave(lambda _: ArtificialDataset())))


def mapped_function(s):
    return tf.py_function(lambda x: x * 2, inp=[s], Tout=tf.int64)


print(benchmark(ArtificialDataset().map(mapped_function)))
print(benchmark(ArtificialDataset().map(mapped_function, num_parallel_calls=tf.data.AUTOTUNE)))
print(benchmark(ArtificialDataset().map(mapped_function).cache(), 3))

fast_dataset = tf.data.Dataset.range(10000)


def increment(x):
    return x + 1


scalar = fast_dataset.map(increment).batch(256)
vector = fast_dataset.batch(256).map(increment)
a = [b.numpy() for b in scalar]
b = [b.numpy() for b in vector]
print(len(a), all(np.array_equal(x, y) for x, y in zip(a, b)), a[-1][-3:])
options = tf.data.Options()
options.deterministic = False
options.threading.private_threadpool_size = 2
options.experimental_optimization.map_parallelization = True
ds = tf.data.Dataset.range(8).map(lambda x: x * x, num_parallel_calls=4).with_options(options)
print(sorted(ds.as_numpy_iterator()))
print(ds.options().deterministic, ds.options().threading.private_threadpool_size)
ds = tf.data.Dataset.range(6).map(lambda x: tf.cast(x, tf.float32) / 2.0,
                                  num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
print(list(ds.as_numpy_iterator()))
t0 = time.perf_counter()
n = sum(1 for _ in tf.data.Dataset.range(1000).map(lambda x: x * 2).batch(100).prefetch(1))
print(n, time.perf_counter() - t0 >= 0)

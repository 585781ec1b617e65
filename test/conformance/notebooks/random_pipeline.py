# Random augmentation as pipelines use it: seeds make runs repeatable, stateless ops
# repeat exactly; tfnano draws other numbers than TensorFlow (documented), so this
# script prints what must agree: shapes, dtypes, ranges and repeatability.
import numpy as np
import tensorflow as tf

tf.random.set_seed(42)
a = tf.random.uniform([3, 2])
b = tf.random.normal([4], mean=1.0, stddev=0.1, dtype=tf.float64)
c = tf.random.uniform([5], maxval=10, dtype=tf.int64)
print(a.shape, a.numpy().dtype, bool(tf.reduce_all(a >= 0)), bool(tf.reduce_all(a < 1)))
print(b.numpy().dtype, c.numpy().dtype, bool(tf.reduce_all((c >= 0) & (c < 10))))
tf.random.set_seed(42)
print(bool(tf.reduce_all(tf.random.uniform([3, 2]) == a)))
s1 = tf.random.stateless_uniform([3], seed=[1, 2])
s2 = tf.random.stateless_uniform([3], seed=[1, 2])
print(bool(tf.reduce_all(s1 == s2)), s1.numpy().dtype)
t = tf.random.truncated_normal([1000], stddev=2.0)
print(bool(tf.reduce_max(tf.abs(t)) <= 4.0))
perm = tf.random.shuffle(tf.range(10))
print(sorted(perm.numpy().tolist()))
try:
    tf.random.uniform([2], dtype=tf.int32)
except ValueError as e:
    print("ValueError", e)


def augment(x):
    noise = tf.random.uniform(tf.shape(x), -0.1, 0.1)
    return x + noise


ds = tf.data.Dataset.from_tensor_slices(tf.zeros([6, 4])).map(augment).batch(3)
for batch in ds:
    arr = batch.numpy()
    print(arr.shape, arr.dtype, bool(np.all(np.abs(arr) <= 0.1)), len(set(arr.ravel().tolist())) > 6)
sh = tf.data.Dataset.range(10).shuffle(10, seed=1, reshuffle_each_iteration=True)
print(sorted(sh.as_numpy_iterator()) == list(range(10)))
g = tf.random.Generator.from_seed(7)
print(g.normal([2, 3]).shape, g.uniform([2], maxval=5, dtype=tf.int32).numpy().dtype)

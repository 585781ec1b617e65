# from_generator with declared types and shapes, py_function / numpy_function inside
# and outside Dataset.map, element_spec-free checks of dtypes and shapes.
import numpy as np
import tensorflow as tf


def gen():
    for i in range(1, 5):
        yield np.arange(i) * 0.5, i


ds = tf.data.Dataset.from_generator(gen, output_types=(tf.float32, tf.int32),
                                    output_shapes=([None], []))
for x, n in ds:
    print(x.numpy(), x.numpy().dtype, n.numpy(), n.numpy().dtype)
ds2 = tf.data.Dataset.from_generator(
    lambda: ({"a": [i, i], "b": str(i)} for i in range(3)),
    output_signature={"a": tf.TensorSpec(shape=(2,), dtype=tf.int64),
                      "b": tf.TensorSpec(shape=(), dtype=tf.string)})
for el in ds2:
    print(el["a"].numpy(), el["a"].numpy().dtype, el["b"].numpy())
bad = tf.data.Dataset.from_generator(lambda: iter([[1, 2, 3]]), output_types=tf.int64,
                                     output_shapes=[2])
try:
    list(bad)
except tf.errors.InvalidArgumentError as e:
    print("InvalidArgumentError")


def py_upper(s):
    return s.numpy().decode().upper()


words = tf.data.Dataset.from_tensor_slices(["ab", "cd"])
print([w.numpy() for w in words.map(lambda w: tf.py_function(py_upper, [w], tf.string))])


def np_stats(x):
    return np.float32(x.mean()), np.int64(x.size)


nums = tf.data.Dataset.from_tensor_slices(np.arange(12, dtype=np.float32).reshape(4, 3))
stats = nums.map(lambda v: tf.numpy_function(np_stats, [v], [tf.float32, tf.int64]))
for m, s in stats:
    print(m.numpy(), s.numpy())
print(tf.py_function(lambda a, b: a + b, [tf.constant(1.5), tf.constant(2.0)], tf.float32).numpy())
print(tf.numpy_function(lambda a: a * 2, [np.array([1, 2])], tf.int64).numpy())


def random_crop_like(x):
    shape = tf.shape(x)
    return tf.reshape(x, [shape[0] * shape[1]])


flat = nums.batch(2).map(random_crop_like)
print([f.numpy() for f in flat])


@tf.function
def scale(x):
    return x * 2


print(scale(tf.constant([1, 2])).numpy())
print(nums.map(tf.autograph.experimental.do_not_convert(lambda v: v + 1)).take(1).get_single_element().numpy()
      if hasattr(tf.data.Dataset, "get_single_element") else "n/a")

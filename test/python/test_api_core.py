"""The error hierarchy, dtypes, tf.constant / tf.cast and the Tensor type."""
import pickle

import numpy as np
import pytest

import tfnano as tf


@pytest.mark.parametrize("cls, builtin", [
    (tf.errors.InvalidArgumentError, ValueError),
    (tf.errors.DataLossError, OSError),
    (tf.errors.NotFoundError, FileNotFoundError),
    (tf.errors.NotFoundError, OSError),
    (tf.errors.PermissionDeniedError, PermissionError),
    (tf.errors.ResourceExhaustedError, MemoryError),
    (tf.errors.FailedPreconditionError, ValueError),
    (tf.errors.OutOfRangeError, IndexError),
    (tf.errors.UnimplementedError, NotImplementedError),
])
def test_errors_subclass_builtins(cls, builtin):
    e = cls(None, None, "the message")
    assert isinstance(e, tf.errors.OpError) and isinstance(e, builtin)
    assert str(e) == e.message == "the message"
    with pytest.raises(builtin):
        raise e
    again = pickle.loads(pickle.dumps(e))
    assert type(again) is cls and again.message == "the message"


def test_error_codes():
    assert tf.errors.InvalidArgumentError.error_code == tf.errors.INVALID_ARGUMENT == 3
    assert tf.errors.DataLossError.error_code == tf.errors.DATA_LOSS == 15
    assert tf.errors.exception_type_from_error_code(5) is tf.errors.NotFoundError


def test_c_errors_carry_record_index():
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.io.parse_example([b"", b"\xff"], {"a": tf.io.FixedLenFeature([], tf.int64, 0)})
    assert e.value.record_index == 1


def test_dtypes():
    assert tf.int64 == np.int64 and tf.int64 == np.dtype("int64") and tf.int64 == "int64"
    assert np.dtype("float32") == tf.float32 and tf.float32 != tf.float64
    assert np.zeros(2, tf.int32).dtype == np.int32
    assert tf.as_dtype(np.float32) is tf.float32 and tf.as_dtype(object) is tf.string
    assert tf.string.name == "string" and str(tf.int64) == "<dtype: 'int64'>"
    assert repr(tf.float32) == "tf.float32" and tf.int64.is_integer
    assert hash(tf.int64) == hash(tf.as_dtype("int64"))
    assert tf.int32.max == 2 ** 31 - 1


def test_tensor_dtype_is_tensorflows():
    s = tf.constant(["a", "b"])
    assert isinstance(s.dtype, tf.DType) and str(s.dtype) == "<dtype: 'string'>"
    assert s.dtype == tf.string and s.dtype == object and s.dtype == np.object_
    x = tf.constant([1, 2], tf.int64)
    assert x.dtype is tf.int64 and repr(x.dtype) == "tf.int64"
    assert x.dtype == np.int64 and np.dtype("int64") == x.dtype and x.dtype != tf.int32
    # numpy takes it as the dtype it stands for, and reads numpy's attributes from it
    assert np.zeros(2, x.dtype).dtype == np.int64 and x.astype(tf.float32).dtype == np.float32
    assert np.issubdtype(x.dtype, np.integer) and x.dtype.kind == "i"
    assert x.dtype.itemsize == 8 and x.dtype.str == "<i8" and np.iinfo(x.dtype).bits == 64
    assert {np.dtype("int64"): "found"}[x.dtype] == "found"
    assert np.asarray(x).dtype == np.dtype("int64")  # the ndarray itself is unchanged
    assert x.numpy().dtype is np.dtype("int64")
    # a dtype TensorFlow has no name for stays numpy's
    assert tf.Tensor.__new__(tf.Tensor, (2,), "S3").dtype == np.dtype("S3")


def test_tensor_prints_as_tensorflow():
    assert repr(tf.constant(1)) == "<tf.Tensor: shape=(), dtype=int32, numpy=1>"
    assert str(tf.constant("x")) == "tf.Tensor(b'x', shape=(), dtype=string)"
    assert str(tf.constant([1, 2], tf.int64)) == "tf.Tensor([1 2], shape=(2,), dtype=int64)"
    assert repr(tf.constant([1.5], tf.float64)) == \
        "<tf.Tensor: shape=(1,), dtype=float64, numpy=array([1.5])>"
    assert str(tf.constant([[1.0, 2.0], [3.0, 4.0]])) == \
        "tf.Tensor(\n[[1. 2.]\n [3. 4.]], shape=(2, 2), dtype=float32)"
    assert repr(tf.constant([b"a"])) == \
        "<tf.Tensor: shape=(1,), dtype=string, numpy=array([b'a'], dtype=object)>"
    # f-strings and format() give the value, as TensorFlow's __format__ does
    assert f"{tf.constant([1, 2])} {tf.constant(3.5):.2f} {tf.constant('x')}" == \
        "[1 2] 3.50 b'x'"
    shape = tf.zeros((2, 3)).shape
    assert str(shape) == "(2, 3)" and repr(shape) == "TensorShape([2, 3])"
    assert shape == (2, 3) and shape.as_list() == [2, 3]


def test_constant_follows_tf_inference():
    assert tf.constant(1).dtype == np.int32 and tf.constant(1).shape == ()
    assert tf.constant(2 ** 40).dtype == np.int64
    assert tf.constant(1.5).dtype == np.float32
    assert tf.constant(np.float64(1.5)).dtype == np.float64
    assert tf.constant([b"a", "b"]).numpy().tolist() == [b"a", b"b"]
    assert tf.constant(0, shape=(2, 3)).tolist() == [[0] * 3] * 2
    assert tf.constant([1, 2], dtype=tf.float32).dtype == np.float32
    assert tf.constant(7).numpy() == 7 and tf.constant(b"x").numpy() == b"x"
    with pytest.raises(TypeError):
        tf.constant(1.5, dtype=tf.int32)


def test_cast():
    assert tf.cast([1.7, -1.7], tf.int32).tolist() == [1, -1]
    assert tf.cast(tf.constant([0, 2]), tf.bool).tolist() == [False, True]
    assert tf.cast(np.arange(3), "float32").dtype == np.float32
    with pytest.raises(tf.errors.UnimplementedError):
        tf.cast(tf.constant([1]), tf.string)


def test_tensor_is_numpy_with_tf_methods():
    t = tf.constant([[1, 2], [3, 4]])
    assert isinstance(t, np.ndarray) and isinstance(t.numpy(), np.ndarray)
    assert type(t.numpy()) is np.ndarray
    assert t[1, 0].numpy() == 3 and [x.numpy().tolist() for x in t] == [[1, 2], [3, 4]]
    assert (t + 1).tolist() == [[2, 3], [4, 5]]
    assert t.get_shape() == (2, 2) and t.rank == 2

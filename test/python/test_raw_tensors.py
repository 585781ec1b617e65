"""tf.io.decode_raw, serialize_tensor and parse_tensor without TensorFlow: round trips
over every dtype, the TensorProto wire layout (field numbers from tensor.proto), and
the errors. (Bytes equal to TensorFlow's: test/conformance/test_raw_tf.py.)"""
import numpy as np
import pytest

import tfnano as tf
from tfnano.errors import InvalidArgumentError

DTYPES = ["float32", "float64", "int32", "uint8", "int16", "int8", "int64", "bool",
          "uint16", "complex64", "complex128", "float16", "uint32", "uint64"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_serialize_parse_round_trip(dtype):
    rng = np.random.default_rng(3)
    raw = rng.integers(0, 256, size=6 * np.dtype(dtype).itemsize, dtype=np.uint8).tobytes()
    a = np.frombuffer(raw, dtype=dtype).reshape(2, 3).copy()
    if dtype == "bool":
        a = (a.view(np.uint8) & 1).astype(bool) if a.dtype.itemsize == 1 else a
    data = tf.io.serialize_tensor(a).numpy()
    back = tf.io.parse_tensor(data, dtype)
    assert back.dtype == a.dtype and back.shape == (2, 3)
    assert back.tobytes() == a.tobytes()


def test_wire_layout():
    # dtype (field 1) = DT_INT64 (9), shape (field 2) with dim {size: 2}, content (4)
    data = tf.io.serialize_tensor(np.array([1, 2], dtype=np.int64)).numpy()
    assert data[:2] == b"\x08\x09"
    assert data[2:8] == b"\x12\x04\x12\x02\x08\x02"
    assert data[8:10] == b"\x22\x10" and data[10:] == np.array([1, 2], "<i8").tobytes()
    # a scalar has an empty shape; strings go to string_val (field 8), empty ones too
    assert tf.io.serialize_tensor(np.float32(1.5)).numpy() == \
        b"\x08\x01\x12\x00\x22\x04" + np.float32(1.5).tobytes()
    assert tf.io.serialize_tensor(np.array([b"a", b""], dtype=object)).numpy() == \
        b"\x08\x07\x12\x04\x12\x02\x08\x02\x42\x01a\x42\x00"


def test_parse_typed_fields_repeat_last_value():
    # float_val (field 5, packed) with 2 values for a shape of 4
    proto = (b"\x08\x01\x12\x04\x12\x02\x08\x04" + b"\x2a\x08" +
             np.array([1.5, 2.5], "<f4").tobytes())
    assert tf.io.parse_tensor(proto, tf.float32).tolist() == [1.5, 2.5, 2.5, 2.5]
    # int_val (field 7) for int8, negative values as 10-byte varints
    proto = b"\x08\x06\x12\x04\x12\x02\x08\x02\x3a\x0b" + b"\xff" * 9 + b"\x01\x05"
    assert tf.io.parse_tensor(proto, tf.int8).tolist() == [-1, 5]


def test_parse_errors():
    data = tf.io.serialize_tensor(np.array([1, 2], dtype=np.int32)).numpy()
    with pytest.raises(InvalidArgumentError, match=r"Type mismatch between parsed tensor "
                                                   r"\(int32\) and dtype \(float\)"):
        tf.io.parse_tensor(data, tf.float32)
    with pytest.raises(InvalidArgumentError, match="Could not parse `serialized` as "
                                                   "TensorProto, base64: //8="):
        tf.io.parse_tensor(b"\xff\xff", tf.float32)


def test_decode_raw():
    out = tf.io.decode_raw([b"\x01\x00\x02\x00", b"\x03\x00\x04\x00"], tf.int16)
    assert out.dtype == np.int16 and out.tolist() == [[1, 2], [3, 4]]
    assert tf.io.decode_raw(b"\x01\x00\x02\x00", tf.int16, little_endian=False).tolist() == \
        [256, 512]
    padded = tf.io.decode_raw([b"\x01\x00\x02", b"\x03\x00\x04\x00\x05\x00"], tf.int16,
                              fixed_length=4)
    assert padded.tolist() == [[1, 2], [3, 4]]
    assert tf.io.decode_raw(np.array([[b"\x07"], [b"\x08"]], dtype=object),
                            tf.uint8).shape == (2, 1, 1)
    with pytest.raises(InvalidArgumentError, match="same size"):
        tf.io.decode_raw([b"\x01\x00", b"\x01\x00\x02\x00"], tf.int16)
    with pytest.raises(InvalidArgumentError, match="not a multiple of 4, the size of float"):
        tf.io.decode_raw([b"abc"], tf.float32)

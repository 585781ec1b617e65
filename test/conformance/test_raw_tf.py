"""tf.io.serialize_tensor / parse_tensor and tf.io.decode_raw: tfnano against
TensorFlow 2.21 in one process. serialize_tensor must give TensorFlow's bytes exactly
(golden bytes: dtype, tensor_shape, tensor_content / string_val), parse_tensor must
read TensorFlow's bytes back (and TensorProtos written with the typed value fields,
short ones repeating their last value), decode_raw must give the same arrays, and
every error the same class and text."""
import random
import sys
from pathlib import Path

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
import tfnano as tn  # noqa: E402

NUMERIC = ["float32", "float64", "int32", "uint8", "int16", "int8", "int64", "bool",
           "uint16", "complex64", "complex128", "float16", "uint32", "uint64"]


def random_array(rng, dtype):
    shape = tuple(rng.choice([0, 1, 2, 3]) for _ in range(rng.choice([0, 1, 2, 3])))
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == "string":
        a = np.empty(n, dtype=object)
        a[:] = [bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 1, 5]))) for _ in range(n)]
        return a.reshape(shape)
    raw = bytes(rng.getrandbits(8) for _ in range(n * np.dtype(dtype).itemsize))
    a = np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    if dtype == "bool":
        a = np.frombuffer(bytes(b & 1 for b in raw), dtype=np.bool_).reshape(shape).copy()
    return a


def outcome(call):
    try:
        v = call()
        v = v.numpy() if hasattr(v, "numpy") else v
        return ("ok", np.asarray(v).dtype.str, np.asarray(v).shape,
                np.asarray(v).tobytes() if np.asarray(v).dtype != object
                else np.asarray(v).tolist())
    except Exception as e:  # noqa: BLE001 - class and text are compared
        msg = getattr(e, "message", None) or str(e)
        msg = msg.split("}} ")[-1].split(" [Op:")[0].split("\n\t; NodeDef")[0]
        return ("error", type(e).__name__, msg)


def test_serialize_tensor_golden_bytes_and_parse_back():
    rng = random.Random(7)
    for _ in range(300):
        dtype = rng.choice(NUMERIC + ["string"])
        a = random_array(rng, dtype)
        theirs = tf.io.serialize_tensor(tf.constant(a)).numpy()
        ours = tn.io.serialize_tensor(a).numpy()
        assert ours == theirs, (dtype, a)
        tf_dtype = tf.as_dtype(np.dtype(object) if dtype == "string" else dtype) \
            if dtype != "string" else tf.string
        got = outcome(lambda: tn.io.parse_tensor(theirs, tf_dtype))
        want = outcome(lambda: tf.io.parse_tensor(theirs, tf_dtype))
        assert got == want, (dtype, a)


def test_parse_tensor_typed_fields_and_errors():
    rng = random.Random(8)
    for _ in range(200):
        dtype = rng.choice(NUMERIC)
        a = random_array(rng, dtype)
        proto = tf.make_tensor_proto(a)
        proto.ClearField("tensor_content")
        field = {"float32": "float_val", "float64": "double_val", "int64": "int64_val",
                 "bool": "bool_val", "complex64": "scomplex_val",
                 "complex128": "dcomplex_val", "float16": "half_val",
                 "uint32": "uint32_val", "uint64": "uint64_val"}.get(dtype, "int_val")
        flat = a.reshape(-1)[:rng.choice([0, 1, 2, a.size])]
        if dtype == "float16":
            vals = flat.view(np.uint16).tolist()
        elif dtype.startswith("complex"):
            vals = [x for c in flat for x in (c.real, c.imag)]
        else:
            vals = flat.tolist()
        getattr(proto, field).extend(vals)
        data = proto.SerializeToString()
        for want_dtype in (dtype, rng.choice(NUMERIC)):
            want = outcome(lambda: tf.io.parse_tensor(data, tf.as_dtype(want_dtype)))
            got = outcome(lambda: tn.io.parse_tensor(data, tf.as_dtype(want_dtype)))
            assert got == want, (dtype, want_dtype, data)
    for bad in (b"\xff\xff", b"\x08"):
        assert outcome(lambda: tn.io.parse_tensor(bad, tf.float32)) == \
            outcome(lambda: tf.io.parse_tensor(bad, tf.float32)), bad
    # tensor_content of the wrong size: TensorFlow's text holds protobuf's DebugString
    # (with a marker that varies between protobuf versions); the class must match
    short = b"\x08\x01\x12\x04\x12\x02\x08\x05\x22\x01\x00"
    assert outcome(lambda: tn.io.parse_tensor(short, tf.float32))[:2] == \
        outcome(lambda: tf.io.parse_tensor(short, tf.float32))[:2]


def test_decode_raw_matches():
    rng = random.Random(9)
    types = ["float16", "float32", "float64", "int32", "uint16", "uint8", "int16", "int8",
             "int64", "complex64", "complex128", "bool"]
    for _ in range(300):
        dtype = rng.choice(types)
        n = rng.choice([1, 2, 3])
        same = rng.random() < 0.8
        width = rng.choice([0, 1, 2, 4, 8, 16])
        strings = [bytes(rng.getrandbits(8) for _ in range(width if same else rng.choice(
            [0, 1, 2, 4, 8]))) for _ in range(n)]
        fixed = rng.choice([None, None, 0, 2, 4, 8, 16])
        little = rng.random() < 0.7
        kwargs = dict(little_endian=little)
        if fixed is not None:
            kwargs["fixed_length"] = fixed
        want = outcome(lambda: tf.io.decode_raw(strings, tf.as_dtype(dtype), **kwargs))
        got = outcome(lambda: tn.io.decode_raw(strings, tf.as_dtype(dtype), **kwargs))
        if want[0] == "ok" and want[1].endswith(("f2", "f4", "f8", "c8", "c16")):
            assert got[:3] == want[:3] and got[3] == want[3], (dtype, strings, kwargs)
        assert got == want, (dtype, strings, kwargs)

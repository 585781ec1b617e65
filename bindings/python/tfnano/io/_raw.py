"""Raw tensors: ``tf.io.decode_raw`` and ``tf.io.serialize_tensor`` / ``parse_tensor``
(the TensorProto fields numeric and string tensors use: dtype, tensor_shape,
tensor_content and the typed value fields), with TensorFlow's bytes and rules."""
import base64

import numpy as np

from .. import errors
from .. import dtypes as _dt
from .._tensor import as_tensor
from .._trace import traceable


# name -> (TensorFlow's DataType enum, numpy dtype, TensorProto typed-value field)
_TYPES = {
    "float32": (1, np.float32, 5), "float64": (2, np.float64, 6), "int32": (3, np.int32, 7),
    "uint8": (4, np.uint8, 7), "int16": (5, np.int16, 7), "int8": (6, np.int8, 7),
    "string": (7, object, 8), "complex64": (8, np.complex64, 9), "int64": (9, np.int64, 10),
    "bool": (10, np.bool_, 11), "uint16": (17, np.uint16, 7),
    "complex128": (18, np.complex128, 12), "float16": (19, np.float16, 13),
    "uint32": (22, np.uint32, 16), "uint64": (23, np.uint64, 17),
}
_BY_ENUM = {v[0]: k for k, v in _TYPES.items()}
_TF_NAME = {"float32": "float", "float64": "double", "float16": "half"}
_DECODE_RAW_TYPES = ("half, float, double, int32, uint16, uint8, int16, int8, int64, "
                     "complex64, complex128, bool, bfloat16")
_PADDED_RAW_TYPES = ("half, float, double, int32, uint16, uint8, int16, int8, int64, "
                     "bfloat16")  # DecodePaddedRaw, used when fixed_length is given


def _dtype_name(dtype):
    name = getattr(dtype, "name", None)
    if type(dtype).__name__ == "DType" and name:  # TensorFlow's or tfnano's
        return _dt.as_dtype(name).name
    return _dt.as_dtype(dtype).name


def _tf_name(name):
    return _TF_NAME.get(name, name)


def _numpy(x):
    if hasattr(x, "numpy") and not isinstance(x, np.ndarray):
        x = x.numpy()  # a TensorFlow tensor
    return x


# ----------------------------------------------------------------- decode_raw

def _decode_raw_infer(input_bytes, out_type, little_endian=True, fixed_length=None,
                      name=None):
    from .._trace import Spec, Symbol
    tname = _dtype_name(out_type)
    npt = np.dtype(_TYPES[tname][1]) if tname in _TYPES else None
    shape = input_bytes.spec.shape if isinstance(input_bytes, Symbol) else np.shape(
        input_bytes)
    per = None
    if fixed_length is not None and npt is not None and not isinstance(fixed_length, Symbol):
        per = int(_numpy(fixed_length)) // npt.itemsize
    return Spec(npt, None if shape is None else tuple(shape) + (per,))


def _decode_raw_batch(input_bytes, out_type, little_endian=True, fixed_length=None,
                      name=None):
    # A batch of strings decodes as one tensor of them: the record axis stays first (a
    # batch whose strings differ in size fails, and runs again per record).
    return decode_raw(input_bytes, out_type, little_endian, fixed_length)


@traceable("io.decode_raw", batch=_decode_raw_batch, infer=_decode_raw_infer)
def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """``tf.io.decode_raw``: each string's bytes as a vector of `out_type`; the output
    has the input's shape plus one dimension."""
    tname = _dtype_name(out_type)
    if tname not in _TYPES or tname == "string" or tname in ("uint32", "uint64"):
        raise errors.invalid("Value for attr 'out_type' of %s is not in the list of allowed "
                              "values: %s" % (_tf_name(tname), _DECODE_RAW_TYPES))
    if fixed_length is not None and tname in ("complex64", "complex128", "bool"):
        raise errors.invalid("Value for attr 'out_type' of %s is not in the list of allowed "
                              "values: %s" % (tname, _PADDED_RAW_TYPES))
    if fixed_length is not None and tname == "float16":  # TF registers no such kernel
        from ..errors import NotFoundError
        raise NotFoundError(None, None, (
            "Could not find device for node: {{node DecodePaddedRaw}} = DecodePaddedRaw["
            "little_endian=%s, out_type=DT_HALF]\nAll kernels registered for op "
            "DecodePaddedRaw:\n" % ("true" if little_endian else "false")) + "".join(
            "  device='CPU'; out_type in [DT_%s]\n" % t for t in (
                "BFLOAT16", "INT64", "INT8", "INT16", "UINT8", "UINT16", "INT32", "DOUBLE",
                "FLOAT")))
    npt = np.dtype(_TYPES[tname][1])
    size = npt.itemsize
    src = _numpy(input_bytes)
    arr = np.asarray(src, dtype=object) if not isinstance(src, (bytes, str)) else None
    if arr is None:
        arr = np.empty((), dtype=object)
        arr[()] = src
    flat = [x.encode("utf-8") if isinstance(x, str) else bytes(x) for x in arr.reshape(-1)]
    dt = npt.newbyteorder("<" if little_endian else ">") if size > 1 else npt
    if fixed_length is not None:
        width = int(_numpy(fixed_length))
        if width <= 0:
            raise errors.invalid("fixed_length (%d) must be greater than zero." % width)
        if width % size:
            raise errors.invalid("fixed_length (%d) must be a multiple of the size of out_type "
                                  "(%d)" % (width, size))
        buf = bytearray(width * len(flat))
        for i, s in enumerate(flat):
            take = s[:width]
            buf[i * width:i * width + len(take)] = take
        per = width // size
    else:
        first = len(flat[0]) if flat else 0
        for i, s in enumerate(flat):
            if len(s) != first:
                raise errors.invalid("DecodeRaw requires input strings to all be the same size, "
                                      "but element %d has size %d != %d" % (i, first, len(s)))
        if first % size:
            raise errors.invalid("Input to DecodeRaw has length %d that is not a multiple of %d, "
                                  "the size of %s" % (first, size, _tf_name(tname)))
        per = first // size
        buf = b"".join(flat)
    out = np.frombuffer(bytes(buf), dtype=dt).astype(npt, copy=True)
    return as_tensor(out.reshape(arr.shape + (per,)))


# ----------------------------------------------------------------- TensorProto bytes

def _varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def _ld(field, payload):
    return _varint(field << 3 | 2) + _varint(len(payload)) + payload


def serialize_tensor(tensor, name=None):
    """``tf.io.serialize_tensor``: a TensorProto, byte for byte as TensorFlow writes
    it (numbers in tensor_content, strings in string_val)."""
    a = _numpy(tensor)
    if isinstance(a, (bytes, str)) or (isinstance(a, np.ndarray) and a.dtype.kind in "SUO"):
        a = np.asarray(a, dtype=object)
        tname = "string"
    else:
        from .._tensor import constant
        a = np.asarray(a) if isinstance(a, np.ndarray) else np.asarray(constant(a))
        tname = _dt.as_dtype(a.dtype).name
    if tname not in _TYPES:
        raise TypeError("serialize_tensor: dtype %s is not supported" % tname)
    enum = _TYPES[tname][0]
    shape = b"".join(_ld(2, _varint(1 << 3) + _varint(d) if d else b"") for d in a.shape)
    out = _varint(1 << 3) + _varint(enum) + _ld(2, shape)
    if tname == "string":
        for v in a.reshape(-1):
            v = v.encode("utf-8") if isinstance(v, str) else bytes(v)
            out += _ld(8, v)
    elif a.size:
        out += _ld(4, np.ascontiguousarray(a, dtype=np.dtype(_TYPES[tname][1]).newbyteorder(
            "<")).tobytes())
    return as_tensor(np.asarray(out, dtype=object))


class _Reader:
    __slots__ = ("b", "p", "end")

    def __init__(self, b, p=0, end=None):
        self.b, self.p, self.end = b, p, len(b) if end is None else end

    def varint(self):
        v = shift = 0
        while True:
            if self.p >= self.end or shift > 63:
                raise ValueError("varint")
            c = self.b[self.p]
            self.p += 1
            v |= (c & 0x7F) << shift
            if c < 0x80:
                return v
            shift += 7

    def fields(self):
        while self.p < self.end:
            key = self.varint()
            field, wire = key >> 3, key & 7
            if field == 0:
                raise ValueError("field 0")
            if wire == 0:
                yield field, wire, self.varint()
            elif wire == 1:
                if self.p + 8 > self.end:
                    raise ValueError("fixed64")
                yield field, wire, self.b[self.p:self.p + 8]
                self.p += 8
            elif wire == 5:
                if self.p + 4 > self.end:
                    raise ValueError("fixed32")
                yield field, wire, self.b[self.p:self.p + 4]
                self.p += 4
            elif wire == 2:
                n = self.varint()
                if n > self.end - self.p:
                    raise ValueError("length")
                yield field, wire, self.b[self.p:self.p + n]
                self.p += n
            else:
                raise ValueError("wire type %d" % wire)


def _signed(v, bits=64):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def _typed_values(tname, items):
    """Values of a typed field (packed or not) as a flat numpy array."""
    npt = np.dtype(_TYPES[tname][1])
    out = []
    for wire, v in items:
        if tname in ("float32", "complex64"):
            out.append(np.frombuffer(v[:len(v) // 4 * 4], dtype="<f4"))
        elif tname in ("float64", "complex128"):
            out.append(np.frombuffer(v[:len(v) // 8 * 8], dtype="<f8"))
        else:
            vals = []
            if wire == 0:
                vals.append(v)
            else:
                r = _Reader(v)
                while r.p < r.end:
                    vals.append(r.varint())
            if tname == "float16":
                out.append(np.asarray([x & 0xFFFF for x in vals], dtype=np.uint16).view(
                    np.float16))
            elif tname == "bool":
                out.append(np.asarray([x != 0 for x in vals], dtype=np.bool_))
            elif tname in ("uint32", "uint64", "uint8", "uint16"):
                out.append(np.asarray([x & ((1 << (8 * npt.itemsize)) - 1) for x in vals],
                                      dtype=npt))
            else:
                out.append(np.asarray([_signed(x) for x in vals], dtype=np.int64).astype(npt))
    flat = np.concatenate(out) if out else np.zeros(0, dtype=npt)
    if tname in ("complex64", "complex128"):
        flat = flat[:len(flat) // 2 * 2].view(np.complex64 if tname == "complex64"
                                              else np.complex128)
    return flat.astype(npt, copy=False)


_MAX_ELEMENTS = (1 << 63) - 1   # TensorShape's limit on the element count
_MAX_FILL = 256 << 20           # bytes of output a short proto may be filled up to


def parse_tensor(serialized, out_type, name=None):
    """``tf.io.parse_tensor``: a serialized TensorProto back to its array; `out_type`
    must be the tensor's dtype, as in TensorFlow."""
    data = _numpy(serialized)
    if isinstance(data, (list, tuple)):
        data = np.asarray(data, dtype=object)
    if isinstance(data, np.ndarray):
        if data.ndim != 0:  # TensorFlow's op takes one scalar record, not a batch
            raise errors.invalid("Expected `serialized` to be a scalar, got shape: [%s]"
                                  % ",".join(str(d) for d in data.shape))
        data = data.item()
    if isinstance(data, str):
        data = data.encode("utf-8")
    data = bytes(data)
    want = _dtype_name(out_type)
    try:
        enum, dims, content, typed = 0, [], None, []
        for field, wire, v in _Reader(data).fields():
            if field == 1 and wire == 0:
                enum = v
            elif field == 2 and wire == 2:
                dims = []
                for f2, w2, dim in _Reader(v).fields():
                    if f2 == 2 and w2 == 2:
                        size = 0
                        for f3, w3, x in _Reader(dim).fields():
                            if f3 == 1 and w3 == 0:
                                size = _signed(x)
                        dims.append(size)
            elif field == 4 and wire == 2:
                content = v
            elif 5 <= field <= 17:
                typed.append((field, wire, v))
    except ValueError:
        raise errors.invalid("Could not parse `serialized` as TensorProto, base64: %s"
                              % base64.b64encode(data).decode("ascii")) from None
    tname = _BY_ENUM.get(enum)
    if tname is None:
        raise errors.invalid("Could not parse `serialized` as TensorProto, base64: %s"
                              % base64.b64encode(data).decode("ascii"))
    if tname != want:
        raise errors.invalid("Type mismatch between parsed tensor (%s) and dtype (%s)"
                       % (_tf_name(tname), _tf_name(want)))
    n = 1
    for d in dims:
        n *= d
    # a negative or overflowing shape (TensorShape's checks, in Python ints)
    if any(d < 0 for d in dims) or n > _MAX_ELEMENTS:
        raise errors.invalid("Could not parse `serialized` as TensorProto, base64: %s"
                       % base64.b64encode(data).decode("ascii"))
    npt = _TYPES[tname][1]
    # TensorFlow fills the elements a proto leaves out with its last value: a few
    # bytes can claim any number. Checked against the bytes present before anything
    # is allocated: no more than _MAX_FILL bytes of output made up by filling.
    width = 8 if tname == "string" else np.dtype(npt).itemsize
    if content is None and n * width > _MAX_FILL and n * width > 64 * len(data):
        raise errors.invalid("Could not parse `serialized` as TensorProto: shape %s claims %d "
                       "elements (%d bytes) from %d bytes of input"
                       % (list(dims), n, n * width, len(data)))
    if tname == "string":
        vals = [bytes(v) for f, w, v in typed if f == 8 and w == 2]
        if len(vals) >= n:
            out = np.empty(n, dtype=object)
            out[:] = vals[:n] if n else []
        else:
            # the missing elements repeat the last value (empty when there is none)
            out = np.full(n, vals[-1] if vals else b"", dtype=object)
            if vals:
                out[:len(vals)] = vals
    elif content is not None:
        size = np.dtype(npt).itemsize
        if len(content) != n * size:
            raise errors.invalid("Cannot parse tensor from proto: tensor_content holds %d bytes "
                                  "but shape %s of %s needs %d"
                                  % (len(content), dims, tname, n * size))
        out = np.frombuffer(content, dtype=np.dtype(npt).newbyteorder("<")).astype(npt)
    else:
        field = _TYPES[tname][2]
        flat = _typed_values(tname, [(w, v) for f, w, v in typed if f == field])
        out = np.zeros(n, dtype=npt)
        if len(flat):
            k = min(n, len(flat))
            out[:k] = flat[:k]
            out[k:] = flat[k - 1] if k < n else out[k:]
    return as_tensor(out.reshape(dims))

"""A thin driver of tfnano's C parser (tfn_spec_new, tfn_parser_scan / fill) for the
conformance tests, loaded through test/python/tfn_abi.py (TFN_LIB selects the build).

    spec = Spec([Feature("a", "int64", (2,)), Feature("s", "float32", (), seq=True)])
    out = spec.parse([rec1, rec2])              # batch: {"a": int64 (2, 2), "s": (2, T)}
    out = spec.parse([rec1], single=True)       # single: {"a": (2,), "s": (rows,)}

Failures raise TfnError(status, message bytes, index): the status is the C code, the
message the exact bytes of err->msg (TensorFlow's texts may hold raw record bytes).
Outputs are numpy arrays: int64, int32 (out_int32), float32, or object arrays of bytes.
"""
import collections

import numpy as np

from tfn_abi import ffi, lib

DTYPES = {"int64": lib.TFN_INT64, "float32": lib.TFN_FLOAT32, "string": lib.TFN_BYTES,
          "int32": lib.TFN_INT32, "float64": lib.TFN_FLOAT64, None: lib.TFN_DTYPE_NONE}
_NUMPY = {lib.TFN_INT64: np.int64, lib.TFN_INT32: np.int32, lib.TFN_FLOAT32: np.float32}
_CTYPE = {lib.TFN_INT64: "int64_t[]", lib.TFN_INT32: "int32_t[]", lib.TFN_FLOAT32: "float[]",
          lib.TFN_BYTES: "tfn_bytes[]"}


class Feature(collections.namedtuple(
        "Feature", ["key", "dtype", "shape", "default", "seq", "out_int32", "allow_missing"])):
    """One feature config. key: str; dtype: "int64" | "float32" | "string" (or an
    unsupported name for the error tests); shape: a tuple with None for an unknown
    dimension, or None for a missing shape; default: None or a flat list (FixedLen:
    prod(shape) values; FixedLenSequence: [padding]); seq: FixedLenSequenceFeature;
    out_int32: int64 values come back as int32."""

    def __new__(cls, key, dtype, shape, default=None, seq=False, out_int32=False,
                allow_missing=None):
        if allow_missing is None:
            allow_missing = seq
        return super().__new__(cls, key, dtype, shape, default, seq, out_int32,
                               allow_missing)


class TfnError(Exception):
    def __init__(self, status, message, index):
        super().__init__(status, message, index)
        self.status = status
        self.message = message
        self.index = index


def _error(rc, err):
    return TfnError(rc, ffi.string(err.msg), err.record_index)


class Spec:
    """A compiled tfn_spec and a parser bound to it. Raises TfnError from tfn_spec_new."""

    def __init__(self, features):
        self.features = list(features)
        n = len(self.features)
        cfg = ffi.new("tfn_feature_config[]", max(n, 1))
        keep = []
        for c, f in zip(cfg, self.features):
            kb = f.key.encode("utf-8")
            k = ffi.new("char[]", kb)
            keep.append(k)
            c.key, c.key_len = k, len(kb)
            c.type = lib.TFN_FIXED_LEN_SEQUENCE if f.seq else lib.TFN_FIXED_LEN
            c.dtype = DTYPES[f.dtype]
            c.out_dtype = lib.TFN_INT32 if f.out_int32 else lib.TFN_DTYPE_NONE
            c.allow_missing = 1 if f.allow_missing else 0
            if f.shape is None:
                c.rank = 1  # a rank with no dimensions: "Missing shape"
            else:
                dims = ffi.new("int64_t[]", [-1 if d is None else d for d in f.shape] or [0])
                keep.append(dims)
                c.shape, c.rank = dims, len(f.shape)
            if f.default is not None:
                vals = list(f.default)
                if c.dtype == lib.TFN_BYTES:
                    views = ffi.new("tfn_bytes[]", max(len(vals), 1))
                    for v, b in zip(views, vals):
                        buf = ffi.new("uint8_t[]", b or b"\0")
                        keep.append(buf)
                        v.data, v.len = buf, len(b)
                    arr = views
                else:
                    arr = ffi.new("int64_t[]" if c.dtype == lib.TFN_INT64 else "float[]",
                                  vals or [0])
                keep.append(arr)
                c.default_value, c.default_count = arr, len(vals)
        err = ffi.new("tfn_error *")
        out = ffi.new("tfn_spec **")
        rc = lib.tfn_spec_new(cfg, n, ffi.NULL, out, err)
        if rc != lib.TFN_OK:
            raise _error(rc, err)
        self._spec = ffi.gc(out[0], lib.tfn_spec_free)
        self._parser = ffi.gc(lib.tfn_parser_new(self._spec, ffi.NULL), lib.tfn_parser_free)
        self._strides = [lib.tfn_spec_stride(self._spec, j) for j in range(n)]

    def parse(self, records, names=None, single=False):
        """{key: numpy array} for the records (TF's layout for the mode), or TfnError."""
        n = len(records)
        bufs = [ffi.from_buffer(r) for r in records]
        recs = ffi.new("tfn_bytes[]", max(n, 1))
        for v, b, r in zip(recs, bufs, records):
            v.data, v.len = b, len(r)
        nm = ffi.NULL
        if names is not None:
            name_bufs = [ffi.from_buffer(x) for x in names]
            nm = ffi.new("tfn_bytes[]", max(n, 1))
            for v, b, x in zip(nm, name_bufs, names):
                v.data, v.len = b, len(x)
        flags = lib.TFN_PARSE_SINGLE if single else lib.TFN_PARSE_BATCH
        err = ffi.new("tfn_error *")
        rc = lib.tfn_parser_scan(self._parser, recs, n, nm, flags, err)
        if rc != lib.TFN_OK:
            raise _error(rc, err)
        outs = ffi.new("tfn_output[]", max(len(self.features), 1))
        arrays = []
        for j, (f, o) in enumerate(zip(self.features, outs)):
            rows = lib.tfn_parser_max_rows(self._parser, j)
            count = n * rows * self._strides[j]
            dt = lib.TFN_INT32 if f.out_int32 else DTYPES[f.dtype]
            values = ffi.new(_CTYPE[dt], max(count, 1))
            o.values, o.capacity, o.max_rows = values, count, -1
            arrays.append((values, count, rows, dt))
        rc = lib.tfn_parser_fill(self._parser, outs, err)
        if rc != lib.TFN_OK:
            raise _error(rc, err)
        result = {}
        for j, (f, (values, count, rows, dt)) in enumerate(zip(self.features, arrays)):
            stride = self._strides[j]
            if dt == lib.TFN_BYTES:
                flat = np.empty(count, dtype=object)
                for i in range(count):
                    flat[i] = bytes(ffi.buffer(values[i].data, values[i].len))
            else:
                flat = np.frombuffer(ffi.buffer(values), dtype=_NUMPY[dt])[:count].copy()
            inner = tuple(f.shape)
            if f.seq:
                if single:
                    rows = lib.tfn_parser_rows(self._parser, j, 0)
                    flat = flat[:rows * stride]
                shape = (rows,) + inner
            else:
                shape = inner
            result[f.key] = flat.reshape(shape if single else (n,) + shape)
        return result

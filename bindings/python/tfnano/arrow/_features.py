"""Feature configs <-> Arrow types, and schema inference from serialized Examples.

Every feature is parsed by the C batch parser as a TFN_VAR_LEN feature (all values of
the batch back to back plus row splits); the layout decided here then turns those
buffers into the Arrow column:

  FixedLenFeature(shape=[])        -> a primitive column (int64, float32, binary)
  FixedLenFeature(shape=[d0, ...]) -> FixedSizeList(prod(shape)) of the primitive
  FixedLenSequenceFeature(shape)   -> List of the primitive (FixedSizeList rows when
                                      the row shape has more than one element)
  VarLenFeature / RaggedFeature    -> List of the primitive (LargeList past 2**31 values)

A fixed-length feature missing from an example is null (or its default_value when
the config has one); a variable one is an empty list (TensorFlow cannot tell a
missing VarLenFeature from an empty one either).
"""
import collections

import numpy as np

from .. import _c
from .. import dtypes as _dt

ffi = _c.ffi
lib = _c.lib

KINDS = ("int64", "float32", "string")
NATIVE = {"int64": lib.TFN_INT64, "float32": lib.TFN_FLOAT32, "string": lib.TFN_BYTES}
NUMPY = {"int64": np.int64, "float32": np.float32}

# layout: "fixed" (shape: the feature's shape), "seq" (shape: one row's shape) or
# "list"; default: None, or the default values (numpy array / list of bytes), flat.
Column = collections.namedtuple("Column", ["key", "kind", "layout", "shape", "default"])


def _kind(dtype):
    name = getattr(dtype, "name", None)
    d = _dt.as_dtype(name if isinstance(name, str) else dtype)
    if d.name not in KINDS:
        raise ValueError("Unsupported dtype %s: an Example holds int64, float32 or bytes "
                         "(string)" % d.name)
    return d.name


def _width(shape):
    return int(np.prod(shape, dtype=np.int64)) if shape else 1


def _default(kind, value, shape, key):
    if value is None:
        return None
    count = _width(shape)
    if kind == "string":
        flat = np.asarray(value, dtype=object).reshape(-1).tolist()
        flat = [v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in flat]
    else:
        flat = np.asarray(value, dtype=NUMPY[kind]).reshape(-1)
    if len(flat) == 1 and count != 1:
        flat = flat * count if kind == "string" else np.repeat(flat, count)
    if len(flat) != count:
        raise ValueError("feature %r: default_value has %d values, shape %s needs %d"
                         % (key, len(flat), list(shape), count))
    return flat


def normalize(features):
    """[Column] for a {key: config} dict of tfnano's or TensorFlow's feature configs
    (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature, RaggedFeature without
    partitions), in the dict's order."""
    if not isinstance(features, dict) or not features:
        raise ValueError("features must be a non-empty dict {key: feature config}, got %r"
                         % (features,))
    out = []
    for key, f in features.items():
        name = type(f).__name__
        kind = _kind(f.dtype)
        if name == "FixedLenFeature":
            shape = tuple(int(d) for d in (f.shape if not isinstance(f.shape, int)
                                           else [f.shape]))
            out.append(Column(key, kind, "fixed", shape,
                              _default(kind, f.default_value, shape, key)))
        elif name == "FixedLenSequenceFeature":
            shape = tuple(int(d) for d in f.shape)
            out.append(Column(key, kind, "seq", shape, None))
        elif name == "VarLenFeature":
            out.append(Column(key, kind, "list", (), None))
        elif name == "RaggedFeature":
            if getattr(f, "partitions", ()):
                raise ValueError("feature %r: RaggedFeature with partitions has no Arrow "
                                 "mapping here; read its keys as VarLenFeature" % key)
            vkey = getattr(f, "value_key", None)
            if vkey not in (None, key):
                raise ValueError("feature %r: RaggedFeature value_key %r must be the key "
                                 "itself" % (key, vkey))
            out.append(Column(key, kind, "list", (), None))
        else:
            raise TypeError("feature %r: unsupported config %s (FixedLenFeature, "
                            "FixedLenSequenceFeature, VarLenFeature, RaggedFeature)"
                            % (key, name))
    return out


def to_features(columns):
    """The tfnano feature configs of [Column] (what inference reports)."""
    from .._parsing import FixedLenFeature, FixedLenSequenceFeature, VarLenFeature
    dt = {"int64": _dt.int64, "float32": _dt.float32, "string": _dt.string}
    out = {}
    for c in columns:
        if c.layout == "fixed":
            out[c.key] = FixedLenFeature(list(c.shape), dt[c.kind])
        elif c.layout == "seq":
            out[c.key] = FixedLenSequenceFeature(list(c.shape), dt[c.kind],
                                                 allow_missing=True)
        else:
            out[c.key] = VarLenFeature(dt[c.kind])
    return out


def value_type(pa, kind, large_binary=False):
    if kind == "int64":
        return pa.int64()
    if kind == "float32":
        return pa.float32()
    return pa.large_binary() if large_binary else pa.binary()


def arrow_type(pa, col, large_list=False, large_binary=False):
    """The Arrow type of one column (see the module docstring)."""
    v = value_type(pa, col.kind, large_binary)
    w = _width(col.shape)
    if col.layout == "fixed":
        return v if not col.shape else pa.list_(v, w)
    if col.layout == "seq" and col.shape and w != 1:
        v = pa.list_(v, w)
    return pa.large_list(v) if large_list else pa.list_(v)


def arrow_schema(pa, columns, large_lists=False):
    import json
    fields = []
    for c in columns:
        meta = {b"tfnano.feature": json.dumps(
            {"layout": c.layout, "dtype": c.kind, "shape": list(c.shape)}).encode()}
        fields.append(pa.field(c.key, arrow_type(pa, c, large_lists),
                               nullable=True, metadata=meta))
    return pa.schema(fields)


# ----------------------------------------------------------------- inference

_KIND_OF = {lib.TFN_KIND_INT64: "int64", lib.TFN_KIND_FLOAT: "float32",
            lib.TFN_KIND_BYTES: "string"}


def infer(views, n, sample=1000):
    """[Column] from the first `sample` of n records (tfn_bytes views): each key's kind,
    in first-seen order; FixedLenFeature of shape [] when every sampled example that
    has the key holds exactly one value, [k] when all hold k, else VarLenFeature. Keys found with
    several kinds raise ValueError."""
    ex = ffi.gc(lib.tfn_example_new(ffi.NULL), lib.tfn_example_free)
    if ex == ffi.NULL:
        raise MemoryError("tfn_example_new")
    err = _c.new_error()
    feat = ffi.new("tfn_feature *")
    seen = {}  # key bytes -> [kind, counts set, examples holding it]
    m = min(n, sample)
    for i in range(m):
        rc = lib.tfn_example_decode(ex, views[i].data, views[i].len, 0, err)
        if rc < 0:
            raise _c.exception(rc, err)
        for j in range(lib.tfn_example_size(ex)):
            lib.tfn_example_at(ex, j, feat)
            key = ffi.unpack(feat.key, feat.key_len)
            kind = _KIND_OF.get(feat.kind)
            entry = seen.get(key)
            if entry is None:
                entry = seen[key] = [kind, set(), 0]
            if kind is not None:
                if entry[0] is None:
                    entry[0] = kind
                elif entry[0] != kind:
                    raise ValueError("cannot infer a schema: feature %r is %s in one "
                                     "example and %s in another" % (
                                         key.decode("utf-8", "replace"), entry[0], kind))
            entry[1].add(int(feat.count))
            entry[2] += 1
    cols = []
    for key, (kind, counts, _present) in seen.items():
        k = key.decode("utf-8")
        kind = kind or "float32"  # only kind-less / empty features: any kind will do
        if len(counts) == 1 and min(counts) >= 1:
            c = counts.pop()
            cols.append(Column(k, kind, "fixed", () if c == 1 else (c,), None))
        else:
            cols.append(Column(k, kind, "list", (), None))
    return cols

"""The feature lists of tf.train.SequenceExamples as Arrow columns (tfn_sequence_lists:
one pass over the batch gives every step's values back to back, the steps of each
example and the values of each step as row splits).

  FixedLenSequenceFeature([], dtype)      -> list<T>               (one value a step)
  FixedLenSequenceFeature([k, ...], dtype) -> list<fixed_size_list<T, k*...>>
  VarLenFeature / RaggedFeature(dtype)      -> list<list<T>>         (any values a step)

An example without the feature list is null.
"""
import numpy as np

from .. import _c
from . import _features as F

ffi = _c.ffi
lib = _c.lib


def normalize(sequence_features):
    cols = []
    for key, f in sequence_features.items():
        name = type(f).__name__
        kind = F._kind(f.dtype)
        if name == "FixedLenSequenceFeature":
            cols.append(F.Column(key, kind, "seq", tuple(int(d) for d in f.shape), None))
        elif name in ("VarLenFeature", "RaggedFeature"):
            if getattr(f, "partitions", ()):
                raise ValueError("sequence feature %r: RaggedFeature partitions have no "
                                 "Arrow mapping here" % key)
            cols.append(F.Column(key, kind, "list", (), None))
        else:
            raise TypeError("sequence feature %r: %s (FixedLenSequenceFeature, "
                            "VarLenFeature or RaggedFeature)" % (key, name))
    return cols


def arrow_type(pa, c):
    v = F.value_type(pa, c.kind)
    if c.layout == "list":
        return pa.list_(pa.list_(v))
    w = F._width(c.shape)
    return pa.list_(pa.list_(v, w) if c.shape else v)


def read_lists(recs, cols):
    """[(values, example_splits, step_splits, present)] per column."""
    k = len(cols)
    cfg = ffi.new("tfn_list_config[]", k)
    keys = []
    for i, c in enumerate(cols):
        kb = c.key.encode("utf-8")
        buf = ffi.new("char[]", kb)
        keys.append(buf)
        cfg[i].key = buf
        cfg[i].key_len = len(kb)
        cfg[i].dtype = F.NATIVE[c.kind]
    outs = ffi.new("tfn_list_output[]", k)
    err = _c.new_error()
    n = recs.n
    _c.check(lib.tfn_sequence_lists(recs.views, n, ffi.NULL, cfg, k, outs, err), err)
    keep, result = [], []
    for i, c in enumerate(cols):
        steps, values = int(outs[i].steps), int(outs[i].values)
        ex = np.zeros(n + 1, np.int64)
        st = np.zeros(steps + 1, np.int64)
        present = np.zeros(max(n, 1), np.uint8)
        vals = (np.zeros((max(values, 1), 2), np.uint64) if c.kind == "string"
                else np.zeros(max(values, 1), F.NUMPY[c.kind]))
        ptrs = [ffi.from_buffer(a) for a in (ex, st, vals, present)]
        keep.append(ptrs)
        outs[i].example_splits = ffi.cast("int64_t *", ptrs[0])
        outs[i].step_splits = ffi.cast("int64_t *", ptrs[1])
        outs[i].values_out = ptrs[2]
        outs[i].present = ffi.cast("uint8_t *", ptrs[3])
        result.append([vals, ex, st, present[:n], values])
    _c.check(lib.tfn_sequence_lists(recs.views, n, ffi.NULL, cfg, k, outs, err), err)
    del keep
    from ._to_arrow import _copy_out
    out = []
    for (vals, ex, st, present, values), c in zip(result, cols):
        vals = _copy_out(vals, values) if c.kind == "string" else vals[:values]
        out.append((vals, ex, st, present.astype(bool)))
    return out


def to_columns(pa, cols, lists):
    from ._to_arrow import _count_error, _values_array
    arrays = []
    for c, (vals, ex, st, present) in zip(cols, lists):
        flat = _values_array(pa, c, vals, False)
        per_step = np.diff(st)
        if c.layout == "list":
            inner = pa.ListArray.from_arrays(pa.array(st.astype(np.int32)), flat)
        else:
            w = F._width(c.shape)
            bad = np.flatnonzero(per_step != w)
            if len(bad):
                s = int(bad[0])
                i = int(np.searchsorted(ex, s, side="right") - 1)
                raise _count_error(c, i, int(per_step[s]), w)
            inner = pa.FixedSizeListArray.from_arrays(flat, w) if c.shape else flat
        mask = None if present.all() else pa.array(~present)
        arrays.append(pa.ListArray.from_arrays(pa.array(ex.astype(np.int32)), inner,
                                               mask=mask))
    return arrays

"""to_arrow: serialized Examples -> pyarrow.RecordBatch through the C batch parser.

One tfn_parser_scan and one tfn_parser_fill per batch give every feature's values back
to back and its row splits; the Arrow arrays are built on those buffers with whole-array
numpy operations (no Python object per record or per value)."""
import threading

import numpy as np

from .. import _ffi
from .._parsing import _Records
from . import _features as F

ffi = _ffi.ffi
lib = _ffi.lib
_INT32_MAX = (1 << 31) - 1


def _pa():
    try:
        import pyarrow
    except ImportError:
        raise ImportError("tfnano.arrow needs pyarrow: pip install 'tfnano[arrow]'") from None
    return pyarrow


class _Joined:
    """An Arrow binary array of records, as the (data, offsets) pair _Records reads."""

    __slots__ = ("data", "offsets")

    def __init__(self, arr):
        pa = _pa()
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
        if arr.null_count:
            raise ValueError("records: %d null record(s) in the Arrow array" % arr.null_count)
        if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
            arr = arr.cast(pa.large_binary() if pa.types.is_large_string(arr.type)
                           else pa.binary())
        if not (pa.types.is_binary(arr.type) or pa.types.is_large_binary(arr.type)):
            raise TypeError("records: expected a binary Arrow array, got %s" % arr.type)
        bufs = arr.buffers()
        odt = np.int64 if pa.types.is_large_binary(arr.type) else np.int32
        offs = np.frombuffer(bufs[1], dtype=odt)[arr.offset:arr.offset + len(arr) + 1]
        self.offsets = offs.astype(np.int64)
        self.data = bufs[2] if bufs[2] is not None else b""

    def _tfn_joined(self):
        return self.data, self.offsets


def records_of(records):
    """_Records for a list / array of bytes, a tfnano RecordBatch, or an Arrow binary
    array (pyarrow Array / ChunkedArray)."""
    mod = type(records).__module__ or ""
    if mod.startswith("pyarrow"):
        records = _Joined(records)
    return _Records(records)


# ----------------------------------------------------------------- parsing

_local = threading.local()


class _VarLenParser:
    """A compiled spec with every column as TFN_VAR_LEN, and one parser (per thread)."""

    def __init__(self, cols):
        n = len(cols)
        cfg = ffi.new("tfn_feature_config[]", n)
        self._keys = []
        for i, c in enumerate(cols):
            kb = ffi.new("char[]", c.key.encode("utf-8"))
            self._keys.append(kb)
            cfg[i].key = kb
            cfg[i].key_len = len(c.key.encode("utf-8"))
            cfg[i].type = lib.TFN_VAR_LEN
            cfg[i].dtype = F.NATIVE[c.kind]
            cfg[i].out_dtype = lib.TFN_DTYPE_NONE
        out = ffi.new("tfn_spec **")
        err = _ffi.new_error()
        _ffi.check(lib.tfn_spec_new(cfg, n, ffi.NULL, out, err), err)
        self.spec = ffi.gc(out[0], lib.tfn_spec_free)
        p = lib.tfn_parser_new(self.spec, ffi.NULL)
        if p == ffi.NULL:
            raise MemoryError("tfn_parser_new")
        self.parser = ffi.gc(p, lib.tfn_parser_free)
        self.err = err
        self.outs = ffi.new("tfn_output[]", n)


def _parser(cols):
    cache = getattr(_local, "parsers", None)
    if cache is None:
        cache = _local.parsers = {}
    key = tuple((c.key, c.kind) for c in cols)
    p = cache.get(key)
    if p is None:
        if len(cache) > 32:
            cache.clear()
        p = cache[key] = _VarLenParser(cols)
    return p


def _raise(rc, err):
    from .._parsing import _parse_err
    raise _parse_err(rc, err)


def parse_var_len(recs, cols):
    """[(values, splits)] per column: values a numpy array (int64 / float32) or, for
    bytes, (data uint8 ndarray, offsets uint64 ndarray of count+1)."""
    vp = _parser(cols)
    n = recs.n
    err = vp.err
    rc = lib.tfn_parser_scan(vp.parser, recs.views, n, ffi.NULL, lib.TFN_PARSE_BATCH, err)
    if rc < 0:
        _raise(rc, err)
    out = []
    keep = []
    for j, c in enumerate(cols):
        total = int(lib.tfn_parser_total(vp.parser, j))
        splits = np.empty(n + 1, dtype=np.int64)
        _ffi.check(lib.tfn_parser_row_splits(
            vp.parser, j, ffi.cast("int64_t *", ffi.from_buffer(splits)), err), err)
        if c.kind == "string":
            vals = np.zeros((max(total, 1), 2), dtype=np.uint64)
        else:
            vals = np.empty(max(total, 1), dtype=F.NUMPY[c.kind])
        ptr = ffi.from_buffer(vals)
        keep.append(ptr)
        vp.outs[j].values = ptr
        vp.outs[j].capacity = total
        vp.outs[j].max_rows = -1
        vp.outs[j].lengths = ffi.NULL
        vp.outs[j].mask = ffi.NULL
        out.append([vals, splits, total])
    rc = lib.tfn_parser_fill(vp.parser, vp.outs, err)
    if rc < 0:
        _raise(rc, err)
    result = []
    for (vals, splits, total), c in zip(out, cols):
        if c.kind == "string":
            result.append((_copy_out(vals, total), splits))
        else:
            result.append((vals[:total], splits))
    del keep
    return result


def _copy_out(views, count):
    """tfn_bytes views (uint64 (count, 2)) -> (data uint8 ndarray, offsets uint64)."""
    nbytes = int(views[:count, 1].sum()) if count else 0
    data = np.empty(max(nbytes, 1), dtype=np.uint8)
    offs = np.zeros(count + 1, dtype=np.uint64)
    if count:
        needed = ffi.new("size_t *")
        err = _ffi.new_error()
        _ffi.check(lib.tfn_bytes_copy_out(
            ffi.cast("tfn_bytes *", ffi.from_buffer(views)), count, ffi.from_buffer(data),
            nbytes, ffi.cast("uint64_t *", ffi.from_buffer(offs)), needed, err), err)
    return data[:nbytes], offs


# ----------------------------------------------------------------- Arrow arrays

def _values_array(pa, c, vals, large_binary):
    """The flat Arrow array of a column's values."""
    if c.kind != "string":
        return pa.array(vals)
    data, offs = vals
    count = len(offs) - 1
    big = large_binary or (count and int(offs[-1]) > _INT32_MAX)
    typ = pa.large_binary() if big else pa.binary()
    o = offs.astype(np.int64 if big else np.int32)
    return pa.Array.from_buffers(typ, count, [None, pa.py_buffer(o), pa.py_buffer(data)])


def _count_error(c, i, got, want):
    from ..errors import InvalidArgumentError
    what = {"int64": "int64", "float32": "float", "string": "bytes"}[c.kind]
    return InvalidArgumentError(
        None, None, "Name: <unknown>, Key: %s, Index: %d.  Number of %s values != expected."
        "  Values size: %d but output shape: [%s]"
        % (c.key, i, what, got, ", ".join(str(d) for d in c.shape)))


def _fixed(pa, c, vals, splits, n, large_binary):
    w = F._width(c.shape)
    counts = np.diff(splits)
    present = counts == w
    if not present.all():
        bad = np.flatnonzero(~present & (counts != 0))
        if len(bad):
            i = int(bad[0])
            raise _count_error(c, i, int(counts[i]), w)
    flat = _values_array(pa, c, vals, large_binary)
    compact = flat if not c.shape else pa.FixedSizeListArray.from_arrays(flat, w)
    if present.all():
        return compact
    # missing examples: a take from the present rows (+ the default row), nulls where
    # there is no default; one vectorized gather
    pos = np.cumsum(present) - 1
    if c.default is not None:
        dflt = _values_array(pa, c, _default_values(c), large_binary)
        if c.shape:
            dflt = pa.FixedSizeListArray.from_arrays(dflt, w)
        if dflt.type != compact.type:
            dflt = dflt.cast(compact.type)
        both = pa.concat_arrays([compact, dflt])
        idx = np.where(present, pos, len(compact))
        return both.take(pa.array(idx))
    idx = pa.array(np.where(present, pos, 0), mask=~present)
    if len(compact) == 0:  # nothing to take from: all null
        return pa.nulls(n, compact.type)
    return compact.take(idx)


def _default_values(c):
    if c.kind != "string":
        return c.default
    lens = np.fromiter(map(len, c.default), dtype=np.uint64, count=len(c.default))
    offs = np.zeros(len(c.default) + 1, dtype=np.uint64)
    np.cumsum(lens, out=offs[1:])
    return np.frombuffer(b"".join(c.default) or b"\0", dtype=np.uint8)[:int(offs[-1])], offs


def _list(pa, c, vals, splits, large_list, large_binary):
    flat = _values_array(pa, c, vals, large_binary)
    w = F._width(c.shape) if c.layout == "seq" else 1
    if w != 1:
        counts = np.diff(splits)
        bad = np.flatnonzero(counts % w)
        if len(bad):
            i = int(bad[0])
            raise _count_error(c, i, int(counts[i]), w)
        flat = pa.FixedSizeListArray.from_arrays(flat, w)
        splits = splits // w
    big = large_list or int(splits[-1]) > _INT32_MAX
    if big:
        return pa.LargeListArray.from_arrays(pa.array(splits), flat)
    return pa.ListArray.from_arrays(pa.array(splits.astype(np.int32)), flat)


def columns_to_batch(pa, cols, parsed, n, schema=None, large_lists=False,
                     inferred=False):
    arrays, fields = [], []
    for c, (vals, splits) in zip(cols, parsed):
        if inferred and c.layout == "fixed":
            counts = np.diff(splits)
            w = F._width(c.shape)
            if not np.all((counts == w) | (counts == 0)):
                c = F.Column(c.key, c.kind, "list", (), None)  # the sample misled us
        if c.layout == "fixed":
            arr = _fixed(pa, c, vals, splits, n, False)
        else:
            arr = _list(pa, c, vals, splits, large_lists, False)
        arrays.append(arr)
    if schema is not None:
        out = []
        for arr, field in zip(arrays, schema):
            if arr.type != field.type:
                arr = arr.cast(field.type)  # int32 offsets -> int64 etc.
            out.append(arr)
        return pa.RecordBatch.from_arrays(out, schema=schema)
    fields = F.arrow_schema(pa, cols, large_lists)
    fields = pa.schema([pa.field(f.name, a.type, True, f.metadata)
                        for f, a in zip(fields, arrays)])
    return pa.RecordBatch.from_arrays(arrays, schema=fields)


def infer_columns(recs, sample):
    return F.infer(recs.views, recs.n, sample)


def to_arrow(records, features=None, *, sequence_features=None, large_lists=False,
             sample=1000, schema=None):
    """Serialized tf.train.Examples (or SequenceExamples) -> ``pyarrow.RecordBatch``.

    records: a list / numpy array of bytes, a tfnano RecordBatch (TFRecordDataset(...)
    .batch(n)), or a pyarrow binary Array / ChunkedArray.
    features: {key: tf.io.FixedLenFeature / FixedLenSequenceFeature / VarLenFeature /
    RaggedFeature} (tfnano's or TensorFlow's). FixedLen -> a primitive column (shape
    []) or FixedSizeList; the others -> List (LargeList with ``large_lists=True`` or
    past 2**31 values); bytes -> Binary. A missing FixedLen feature is null (its
    default_value when it has one); wrong value counts raise InvalidArgumentError as
    tf.io.parse_example does.
    Without features the schema is inferred from the first `sample` records
    (``infer_features`` returns it; every field also carries it in its metadata).
    sequence_features: the records are tf.train.SequenceExamples; `features` then
    describes their context (None: no context column) and sequence_features
    ({key: FixedLenSequenceFeature / VarLenFeature / RaggedFeature}) their feature
    lists: list<T> (one value a step), list<fixed_size_list<T, k>> or
    list<list<T>> columns, null where an example lacks the list.
    """
    pa = _pa()
    recs = records_of(records)
    n = recs.n
    if sequence_features is not None:
        return _sequence_batch(pa, recs, features, sequence_features, large_lists)
    inferred = features is None
    if inferred:
        cols = infer_columns(recs, sample)
        if not cols:
            return _no_columns(pa, n)
    else:
        cols = F.normalize(features)
    parsed = parse_var_len(recs, cols)
    return columns_to_batch(pa, cols, parsed, n, schema, large_lists, inferred)


def _sequence_batch(pa, recs, features, sequence_features, large_lists):
    from . import _sequence as S
    names, arrays = [], []
    if features:
        cols = F.normalize(features)
        ctx = columns_to_batch(pa, cols, parse_var_len(recs, cols), recs.n, None,
                               large_lists)
        names += ctx.schema.names
        arrays += ctx.columns
    seq = S.normalize(sequence_features)
    if not seq:
        raise ValueError("sequence_features must name at least one feature list")
    arrays += S.to_columns(pa, seq, S.read_lists(recs, seq))
    names += [c.key for c in seq]
    return pa.RecordBatch.from_arrays(arrays, names=names)


def _no_columns(pa, n):
    # a batch of n rows and no column (Examples without features)
    return pa.RecordBatch.from_struct_array(pa.array([{}] * n, type=pa.struct([])))

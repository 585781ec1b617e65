"""to_arrow: serialized Examples -> pyarrow.RecordBatch through the C batch parser.

One tfn_parser_scan and one tfn_parser_fill per batch give every feature's values back
to back and its row splits; the Arrow arrays are built on those buffers with whole-array
numpy operations (no Python object per record or per value). The parser fills buffers
of pyarrow's memory pool (mimalloc / jemalloc): the arrays own them with no copy, and
the next batch reuses the pages of the last instead of faulting in fresh ones."""
import os
import threading

import numpy as np

from .. import _c
from .._parsing import _Records
from . import _features as F

ffi = _c.ffi
lib = _c.lib
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
        err = _c.new_error()
        _c.check(lib.tfn_spec_new(cfg, n, ffi.NULL, out, err), err)
        self.spec = ffi.gc(out[0], lib.tfn_spec_free)
        p = lib.tfn_parser_new(self.spec, ffi.NULL)
        if p == ffi.NULL:
            raise MemoryError("tfn_parser_new")
        self.parser = ffi.gc(p, lib.tfn_parser_free)
        self.err = err
        self.outs = ffi.new("tfn_output[]", n)


def _parser(cols, part=0):
    """This thread's parser for `cols` (part > 0: one more, for a chunk of a batch
    parsed on several threads)."""
    cache = getattr(_local, "parsers", None)
    if cache is None:
        cache = _local.parsers = {}
    key = (tuple((c.key, c.kind) for c in cols), part)
    p = cache.get(key)
    if p is None:
        if len(cache) > 32:
            cache.clear()
        p = cache[key] = _VarLenParser(cols)
    return p


# Batches of at least THREAD_BYTES are parsed on several threads, THREAD_BYTES or more
# of records each (each with its own C parser; cffi releases the GIL in the C calls).
THREAD_BYTES = 1 << 20
_pool = [None, None]  # (ThreadPoolExecutor, the pid that made it: none survive fork)
_pool_lock = threading.Lock()


def _usable_cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _pool_map(fn, items):
    with _pool_lock:
        if _pool[0] is None or _pool[1] != os.getpid():
            from concurrent.futures import ThreadPoolExecutor
            _pool[0] = ThreadPoolExecutor(max(2, min(8, _usable_cores())),
                                          thread_name_prefix="tfnano-arrow")
            _pool[1] = os.getpid()
        pool = _pool[0]
    return list(pool.map(fn, items))


def _threads_for(recs, num_threads):
    """How many threads parse `recs` (1: this one; num_threads 0 / None: the usable
    cores)."""
    want = _usable_cores() if not num_threads else int(num_threads)
    if want <= 1 or recs.n < 2:
        return 1
    sizes = np.frombuffer(ffi.buffer(recs.views, recs.n * 16), dtype=np.uint64)[1::2]
    nbytes = int(sizes.sum())
    return max(1, min(want, 8, recs.n, nbytes // THREAD_BYTES))


def _raise(rc, err):
    from .._c.parse import parse_error
    raise parse_error(rc, err)


def parse_var_len(recs, cols, num_threads=1):
    """[(values, splits)] per column: values a flat pyarrow array (int64 / float32) or,
    for bytes, (data, offsets uint64 ndarray of count+1). Big batches are parsed on up
    to num_threads threads (0 / None: the usable cores)."""
    k = _threads_for(recs, num_threads)
    if k > 1:
        from ..errors import OpError
        try:
            return _parse_chunks(recs, cols, k)
        except OpError:
            pass  # parsed again in one piece: the error then names the batch's index
    pa = _pa()
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
        _c.check(lib.tfn_parser_row_splits(
            vp.parser, j, ffi.cast("int64_t *", ffi.from_buffer(splits)), err), err)
        if c.kind == "string":
            vals = np.empty((max(total, 1), 2), dtype=np.uint64)
            ptr = ffi.from_buffer(vals)
        else:
            vals = pa.allocate_buffer(max(total, 1) * np.dtype(F.NUMPY[c.kind]).itemsize)
            ptr = ffi.cast("void *", vals.address)
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
            typ = pa.int64() if c.kind == "int64" else pa.float32()
            result.append((pa.Array.from_buffers(typ, total, [None, vals]), splits))
    del keep
    return result


def _parse_chunks(recs, cols, k):
    """parse_var_len on k threads: each scans a chunk of the records with its own
    parser, then each fills its part of one buffer per column (no concatenation)."""
    pa = _pa()
    n = recs.n
    bounds = [n * i // k for i in range(k + 1)]
    parsers = [_parser(cols, i) for i in range(k)]

    def scan(i):
        vp = parsers[i]
        m = bounds[i + 1] - bounds[i]
        rc = lib.tfn_parser_scan(vp.parser, recs.views + bounds[i], m, ffi.NULL,
                                 lib.TFN_PARSE_BATCH, vp.err)
        if rc < 0:
            _raise(rc, vp.err)
        totals, splits = [], []
        for j in range(len(cols)):
            totals.append(int(lib.tfn_parser_total(vp.parser, j)))
            sp = np.empty(m + 1, dtype=np.int64)
            _c.check(lib.tfn_parser_row_splits(
                vp.parser, j, ffi.cast("int64_t *", ffi.from_buffer(sp)), vp.err), vp.err)
            splits.append(sp)
        return totals, splits

    scanned = _pool_map(scan, range(k))
    bases, outs = [], []
    for j, c in enumerate(cols):
        starts = np.cumsum([0] + [t[j] for t, _ in scanned])
        total = int(starts[-1])
        if c.kind == "string":
            vals = np.empty((max(total, 1), 2), dtype=np.uint64)
            base, size = ffi.cast("char *", ffi.from_buffer(vals)), 16
        else:
            size = np.dtype(F.NUMPY[c.kind]).itemsize
            vals = pa.allocate_buffer(max(total, 1) * size)
            base = ffi.cast("char *", vals.address)
        bases.append((base, size, starts))
        splits = np.empty(n + 1, dtype=np.int64)
        splits[0] = 0
        for i, (_, chunk_splits) in enumerate(scanned):
            splits[bounds[i] + 1:bounds[i + 1] + 1] = chunk_splits[j][1:] + starts[i]
        outs.append([vals, splits, total])

    def fill(i):
        vp = parsers[i]
        for j, (base, size, starts) in enumerate(bases):
            o = vp.outs[j]
            o.values = base + int(starts[i]) * size
            o.capacity = int(starts[i + 1] - starts[i])
            o.max_rows = -1
            o.lengths = ffi.NULL
            o.mask = ffi.NULL
        rc = lib.tfn_parser_fill(vp.parser, vp.outs, vp.err)
        if rc < 0:
            _raise(rc, vp.err)

    _pool_map(fill, range(k))
    result = []
    for (vals, splits, total), c in zip(outs, cols):
        if c.kind == "string":
            result.append((_copy_out(vals, total), splits))
        else:
            typ = pa.int64() if c.kind == "int64" else pa.float32()
            result.append((pa.Array.from_buffers(typ, total, [None, vals]), splits))
    return result


def _copy_out(views, count):
    """tfn_bytes views (uint64 (count, 2)) -> (data pyarrow Buffer, offsets uint64)."""
    nbytes = int(views[:count, 1].sum()) if count else 0
    data = _pa().allocate_buffer(max(nbytes, 1))
    offs = np.zeros(count + 1, dtype=np.uint64)
    if count:
        needed = ffi.new("size_t *")
        err = _c.new_error()
        _c.check(lib.tfn_bytes_copy_out(
            ffi.cast("tfn_bytes *", ffi.from_buffer(views)), count,
            ffi.cast("void *", data.address), nbytes,
            ffi.cast("uint64_t *", ffi.from_buffer(offs)), needed, err), err)
    return data, offs


# ----------------------------------------------------------------- Arrow arrays

def _values_array(pa, c, vals, large_binary):
    """The flat Arrow array of a column's values (a pyarrow array already, numbers as
    numpy, or bytes as (data, offsets))."""
    if c.kind != "string":
        return vals if isinstance(vals, pa.Array) else pa.array(vals)
    data, offs = vals
    count = len(offs) - 1
    big = large_binary or (count and int(offs[-1]) > _INT32_MAX)
    typ = pa.large_binary() if big else pa.binary()
    o = offs.astype(np.int64 if big else np.int32)
    if not isinstance(data, pa.Buffer):
        data = pa.py_buffer(data)
    return pa.Array.from_buffers(typ, count, [None, pa.py_buffer(o), data])


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
             sample=1000, schema=None, num_threads=1):
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
    num_threads: > 1 parses a batch of a few MB or more on that many threads (0 or
    None: the usable cores), each with its own C parser, filling one buffer per column
    (the result is the same). The default, 1, suits engines that already run one task
    per core (Dask, Ray, Beam workers).
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
    parsed = parse_var_len(recs, cols, num_threads)
    return columns_to_batch(pa, cols, parsed, n, schema, large_lists, inferred)


def _sequence_batch(pa, recs, features, sequence_features, large_lists):
    from . import _sequence as S  # lazy door: _sequence imports this module
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

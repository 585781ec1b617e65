"""from_arrow: a pyarrow RecordBatch / Table -> serialized Examples.

The Arrow buffers are handed to tfn_encode_columns as they are (values, list offsets,
binary offsets): no Python object per row or value. Arrow nulls become absent
features; rows are grouped by which columns are null and each group is encoded in
one C call, so a batch with no nulls (or few null patterns) costs one or a few calls.
"""
import numpy as np

from .. import _ffi
from ._to_arrow import _pa

ffi = _ffi.ffi
lib = _ffi.lib

_bytes_per_example = [0.0]


class _Native:
    """One column's tfn_column fields, and the arrays keeping its memory alive."""

    __slots__ = ("key", "dtype", "values", "width", "row_splits", "byte_offsets", "keep")


def _leaf(pa, arr, key):
    """(dtype code, values pointer, byte_offsets or None, keep) of a flat array."""
    t = arr.type
    if arr.null_count:
        raise ValueError("column %r: null values inside lists cannot be written to a "
                         "tf.train.Example (a whole row may be null: it is then absent)"
                         % key)
    if pa.types.is_dictionary(t):
        return _leaf(pa, arr.dictionary_decode(), key)
    if (pa.types.is_binary(t) or pa.types.is_string(t) or pa.types.is_large_binary(t)
            or pa.types.is_large_string(t)):
        bufs = arr.buffers()
        large = pa.types.is_large_binary(t) or pa.types.is_large_string(t)
        offs = np.frombuffer(bufs[1], dtype=np.int64 if large else np.int32)
        offs = offs[arr.offset:arr.offset + len(arr) + 1].astype(np.int64)
        data = bufs[2]
        # strings that are all empty have no data buffer: the C side still wants a
        # pointer when there are strings
        ptr = ffi.from_buffer(data) if data is not None and data.size else \
            ffi.new("char[]", 1)
        return lib.TFN_BYTES, ptr, offs, (data, ptr, offs)
    if pa.types.is_boolean(t) or pa.types.is_integer(t):
        a = arr.to_numpy(zero_copy_only=False)
        if a.dtype == np.int32:
            code, ctype = lib.TFN_INT32, "int32_t[]"
        else:
            if a.dtype == np.uint64 and a.size and a.max() > (1 << 63) - 1:
                raise ValueError("column %r: Value out of range: %d" % (key, int(a.max())))
            a = a.astype(np.int64, copy=False)
            code, ctype = lib.TFN_INT64, "int64_t[]"
    elif pa.types.is_floating(t):
        a = arr.to_numpy(zero_copy_only=False)
        if a.dtype == np.float64:
            code, ctype = lib.TFN_FLOAT64, "double[]"
        else:
            a = a.astype(np.float32, copy=False)
            code, ctype = lib.TFN_FLOAT32, "float[]"
    elif pa.types.is_temporal(t) and t.bit_width in (32, 64):
        # the integer behind the value (epoch units), as TF users store times
        return _leaf(pa, arr.view(pa.int64() if t.bit_width == 64 else pa.int32()), key)
    else:
        raise TypeError("column %r: Arrow type %s has no tf.train.Example mapping "
                        "(integers, floats, bool, binary, string and (fixed-size) lists "
                        "of them)" % (key, t))
    a = np.ascontiguousarray(a)
    ptr = ffi.from_buffer(ctype, a) if a.size else ffi.NULL
    return code, ptr, None, (a, ptr)


def _native(pa, key, arr):
    """_Native for one column with no top-level null."""
    c = _Native()
    c.key = key.encode("utf-8")
    c.row_splits = None
    width = 1
    t = arr.type
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        offs = arr.offsets.to_numpy(zero_copy_only=False).astype(np.int64)
        splits = offs - offs[0] if len(offs) else np.zeros(1, np.int64)
        arr = arr.flatten()
        t = arr.type
        c.row_splits = splits
    while pa.types.is_fixed_size_list(t):
        width *= t.list_size
        if arr.null_count:
            raise ValueError("column %r: null rows inside a nested list cannot be "
                             "written to a tf.train.Example" % key)
        arr = arr.flatten()
        t = arr.type
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        raise TypeError("column %r: lists of variable-length lists have no "
                        "tf.train.Example mapping (write the inner lengths as a column "
                        "of their own)" % key)
    c.dtype, c.values, c.byte_offsets, keep = _leaf(pa, arr, key)
    if c.row_splits is not None:
        if width != 1:
            c.row_splits = c.row_splits * width
        c.width = 0
    else:
        c.width = width
    c.keep = [keep, c.row_splits]
    return c


def _encode(cols, n):
    """tfn_encode_columns over [_Native] -> (data uint8 ndarray, offsets uint64)."""
    arr = ffi.new("tfn_column[]", max(1, len(cols)))
    keep = []
    for i, c in enumerate(cols):
        kb = ffi.from_buffer(c.key) if c.key else ffi.new("char[]", 1)
        keep.append(kb)
        arr[i].key = kb
        arr[i].key_len = len(c.key)
        arr[i].dtype = c.dtype
        arr[i].values = c.values
        arr[i].width = c.width
        if c.row_splits is not None:
            rs = ffi.from_buffer("int64_t[]", c.row_splits)
            keep.append(rs)
            arr[i].row_splits = rs
        if c.byte_offsets is not None:
            bo = ffi.from_buffer("int64_t[]", c.byte_offsets)
            keep.append(bo)
            arr[i].byte_offsets = bo
    err = _ffi.new_error()
    offsets = np.empty(n + 1, dtype=np.uint64)
    offs_ptr = ffi.cast("uint64_t *", ffi.from_buffer(offsets))
    written = ffi.new("size_t *")
    if _bytes_per_example[0]:
        cap = int(_bytes_per_example[0] * n * 1.125) + 4096
    else:
        total = ffi.new("uint64_t *")
        _ffi.check(lib.tfn_encode_columns_size(arr, len(cols), n, ffi.NULL, total, err), err)
        cap = max(int(total[0]), 1)
    block = np.empty(cap, dtype=np.uint8)
    rc = lib.tfn_encode_columns(arr, len(cols), n, ffi.from_buffer(block), cap, offs_ptr,
                                written, err)
    if rc == lib.TFN_E_BUF_TOO_SMALL:
        block = np.empty(max(int(written[0]), 1), dtype=np.uint8)
        rc = lib.tfn_encode_columns(arr, len(cols), n, ffi.from_buffer(block), len(block),
                                    offs_ptr, written, err)
    _ffi.check(rc, err)
    size = int(written[0])
    if n:
        _bytes_per_example[0] = size / n
    del keep
    return block[:size], offsets


def _encode_batch(pa, batch):
    """(data, offsets) of one RecordBatch, nulls -> absent features."""
    n = batch.num_rows
    names = batch.schema.names
    if len(set(names)) != len(names):
        raise ValueError("duplicate column names: %r" % (names,))
    nullable = [j for j in range(batch.num_columns) if batch.column(j).null_count]
    if not nullable:
        return _encode([_native(pa, names[j], batch.column(j))
                        for j in range(batch.num_columns)], n)
    # which of the nullable columns each row has: one code per row
    valid = np.stack([batch.column(j).is_valid().to_numpy(zero_copy_only=False)
                      for j in nullable], axis=1)
    patterns, inverse = np.unique(valid, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    sizes = np.empty(n, dtype=np.int64)
    starts = np.empty(n, dtype=np.int64)
    parts = []
    base = 0
    for g, pattern in enumerate(patterns):
        rows = np.flatnonzero(inverse == g)
        absent = {nullable[k] for k in np.flatnonzero(~pattern)}
        keep_cols = [j for j in range(batch.num_columns) if j not in absent]
        sub = batch.select(keep_cols).take(pa.array(rows)) if keep_cols else None
        if sub is None:
            data, offs = np.empty(0, np.uint8), np.zeros(len(rows) + 1, np.uint64)
        else:
            data, offs = _encode([_native(pa, names[j], sub.column(i))
                                  for i, j in enumerate(keep_cols)], len(rows))
        offs = offs.astype(np.int64)
        sizes[rows] = np.diff(offs)
        starts[rows] = base + offs[:-1]
        parts.append(data)
        base += len(data)
    joined = np.concatenate(parts) if parts else np.empty(0, np.uint8)
    out_offs = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(sizes, out=out_offs[1:])
    total = int(out_offs[-1])
    # gather every row's bytes into row order in one numpy pass
    index = np.repeat(starts - out_offs[:-1], sizes) + np.arange(total, dtype=np.int64)
    return joined[index], out_offs.astype(np.uint64)


def _batches(pa, data):
    if isinstance(data, pa.RecordBatch):
        return [data]
    if isinstance(data, pa.Table):
        return data.to_batches()
    if hasattr(data, "__arrow_c_stream__"):
        return pa.RecordBatchReader.from_stream(data)
    if hasattr(data, "__arrow_c_array__"):
        return [pa.record_batch(data)]
    raise TypeError("from_arrow expects a pyarrow RecordBatch or Table (or an object "
                    "with __arrow_c_stream__ / __arrow_c_array__), got %s"
                    % type(data).__name__)


def encode_arrow(data):
    """[(data, offsets)] per batch of `data`."""
    pa = _pa()
    return [_encode_batch(pa, b) for b in _batches(pa, data)]


def from_arrow(data, *, as_buffer=False, as_arrow=False):
    """A pyarrow RecordBatch or Table -> serialized tf.train.Examples, one per row.

    Columns: integers and bool -> Int64List, floats -> FloatList, binary / string ->
    BytesList; a FixedSizeList or List of those -> a list feature (FixedSizeLists of
    FixedSizeLists are flattened row-major). A null row of a column leaves that
    feature out of that Example. Bytes are identical to building each
    tf.train.Example and calling SerializeToString().

    Returns a list of bytes; ``as_buffer=True``: (data, offsets) with record i at
    data[offsets[i]:offsets[i+1]]; ``as_arrow=True``: a pyarrow (Large)BinaryArray of
    the records, built on the same buffer (what Spark's mapInArrow / Ray want).
    """
    pa = _pa()
    chunks = encode_arrow(data)
    if len(chunks) == 1:
        blob, offsets = chunks[0]
    else:
        blob = np.concatenate([c[0] for c in chunks]) if chunks else np.empty(0, np.uint8)
        pieces, base = [np.zeros(1, np.uint64)], 0
        for d, o in chunks:
            pieces.append(o[1:] + np.uint64(base))
            base += len(d)
        offsets = np.concatenate(pieces)
    if as_arrow:
        large = len(blob) > (1 << 31) - 1
        o = offsets.astype(np.int64 if large else np.int32)
        return pa.Array.from_buffers(pa.large_binary() if large else pa.binary(),
                                     len(o) - 1, [None, pa.py_buffer(o),
                                                  pa.py_buffer(blob)])
    if as_buffer:
        return blob, offsets
    view = memoryview(blob)
    o = offsets.tolist()
    return [view[o[i]:o[i + 1]].tobytes() for i in range(len(o) - 1)]

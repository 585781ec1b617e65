"""The fast writer: whole numpy columns -> serialized Examples in one C call, with no
Python object per example or per value (tfn_encode_columns)."""
import numpy as np

from .. import _c
from .outbuf import POOL

ffi = _c.ffi
lib = _c.lib


def _numeric(arr):
    """(ctype, dtype code, contiguous array) for a numeric ndarray."""
    k = arr.dtype.kind
    if k == "f":
        if arr.dtype == np.float64:
            return "double[]", lib.TFN_FLOAT64, np.ascontiguousarray(arr)
        return "float[]", lib.TFN_FLOAT32, np.ascontiguousarray(arr, dtype=np.float32)
    if k in "iub":
        if arr.dtype == np.int32:
            return "int32_t[]", lib.TFN_INT32, np.ascontiguousarray(arr)
        if k == "u" and arr.dtype.itemsize == 8 and arr.size and arr.max() > (1 << 63) - 1:
            raise ValueError("Value out of range: %d" % int(arr.max()))
        return "int64_t[]", lib.TFN_INT64, np.ascontiguousarray(arr, dtype=np.int64)
    raise TypeError("column of dtype %s: expected integers, floats or bytes" % arr.dtype)


def _to_bytes(x):
    if isinstance(x, bytes):
        return x
    if isinstance(x, str):
        return x.encode("utf-8")
    if isinstance(x, (bytearray, memoryview)):
        return bytes(x)
    raise TypeError("expected bytes, %s found" % type(x).__name__)


def _is_bytes_like(x):
    return isinstance(x, (bytes, str, bytearray, memoryview, np.bytes_, np.str_))


class _Column:
    __slots__ = ("key", "dtype", "values", "width", "row_splits", "byte_offsets", "keep")


def _prepare(key, col, n):
    c = _Column()
    c.key = key.encode("utf-8") if isinstance(key, str) else bytes(key)
    c.row_splits = None
    c.byte_offsets = None
    c.keep = []
    if isinstance(col, tuple) and len(col) == 2 and not _is_bytes_like(col[0]):
        values, splits = col  # (flat values, row_splits): already ragged
        splits = np.ascontiguousarray(splits, dtype=np.int64)
        return _finish(c, np.asarray(values) if not isinstance(values, list) else values,
                       None, splits, n)
    if isinstance(col, np.ndarray) and col.dtype.kind in "iufb":
        # (n, w, ...) -> (n, w * ...): spelled out, as reshape(0, -1) is ambiguous
        width = int(np.prod(col.shape[1:], dtype=np.int64))
        arr = col.reshape(len(col), width)
        return _finish(c, arr.reshape(-1), width, None, n, rows=len(arr))
    if isinstance(col, np.ndarray) and col.dtype.kind in "OSU" and col.ndim >= 1:
        width = int(np.prod(col.shape[1:], dtype=np.int64))
        arr = col.reshape(len(col), width)
        return _finish(c, [_to_bytes(x) for x in arr.reshape(-1).tolist()],
                       width, None, n, rows=len(arr), is_bytes=True)
    seq = list(col)
    if all(_is_bytes_like(x) for x in seq):
        return _finish(c, [_to_bytes(x) for x in seq], 1, None, n, rows=len(seq),
                       is_bytes=True)
    # ragged: one list/array per example
    lengths = np.fromiter((len(x) for x in seq), dtype=np.int64, count=len(seq))
    splits = np.zeros(len(seq) + 1, dtype=np.int64)
    np.cumsum(lengths, out=splits[1:])
    first = next((x for x in seq if len(x)), None)
    if first is not None and all(_is_bytes_like(v) for v in first):
        flat = [_to_bytes(v) for x in seq for v in x]
        return _finish(c, flat, None, splits, n, is_bytes=True)
    parts = [np.asarray(x).reshape(-1) for x in seq if len(x)]  # [] alone is float64
    flat = np.concatenate(parts) if parts else np.empty(0, np.int64)
    return _finish(c, flat, None, splits, n)


def _finish(c, values, width, splits, n, rows=None, is_bytes=False):
    if splits is not None:
        if len(splits) != n + 1:
            raise ValueError("column %s: %d rows, expected %d"
                             % (c.key.decode("utf-8", "replace"), len(splits) - 1, n))
        c.row_splits = splits
        c.width = 0
    else:
        if rows != n:
            raise ValueError("column %s: %d rows, expected %d"
                             % (c.key.decode("utf-8", "replace"), rows, n))
        c.width = width
    if is_bytes or isinstance(values, list):
        vals = [_to_bytes(v) for v in values] if not is_bytes else values
        lengths = np.fromiter(map(len, vals), dtype=np.int64, count=len(vals))
        offs = np.zeros(len(vals) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offs[1:])
        data = b"".join(vals)
        c.dtype = lib.TFN_BYTES
        c.values = ffi.from_buffer(data) if data else ffi.new("char[]", 1)
        c.byte_offsets = offs
        c.keep = [data, offs]
        return c
    ctype, code, arr = _numeric(np.asarray(values))
    c.dtype = code
    c.values = ffi.from_buffer(ctype, arr) if arr.size else ffi.NULL
    c.keep = [arr]
    return c


def _native_columns(columns, n):
    cols = [_prepare(k, v, n) for k, v in columns.items()]
    arr = ffi.new("tfn_column[]", max(1, len(cols)))
    keep = [cols]
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
    return arr, len(cols), keep


def num_rows(columns):
    for v in columns.values():
        if isinstance(v, tuple) and len(v) == 2 and not _is_bytes_like(v[0]):
            return len(v[1]) - 1
        return len(v)
    return 0


# Serialized bytes per example seen by the last call: the next call encodes straight
# into a block of that size (plus slack) and skips the sizing pass, which reads every
# column once more; a short guess costs one retry with the exact size C reports.
_bytes_per_example = [0.0]


def encode_into_pool(columns, n):
    """Serializes the columns into pooled memory (see _outbuf; no page faults once
    warm): (block, size, offsets: uint64 ndarray of n+1). The block is reused after
    it is garbage, so callers copy out of it."""
    if n is None:
        n = num_rows(columns)
    arr, ncols, keep = _native_columns(columns, n)
    err = _c.new_error()
    offsets = np.empty(n + 1, dtype=np.uint64)
    offsets_ptr = ffi.cast("uint64_t *", ffi.from_buffer(offsets))
    written = ffi.new("size_t *")
    guess = int(_bytes_per_example[0] * n * 1.125) + 4096
    if _bytes_per_example[0] == 0.0:
        total = ffi.new("uint64_t *")
        _c.check(lib.tfn_encode_columns_size(arr, ncols, n, ffi.NULL, total, err), err)
        guess = max(int(total[0]), 1)
    block = POOL.take(guess)
    rc = lib.tfn_encode_columns(arr, ncols, n, ffi.from_buffer(block), len(block),
                                offsets_ptr, written, err)
    if rc == lib.TFN_E_BUF_TOO_SMALL:
        block = POOL.take(max(int(written[0]), 1))
        rc = lib.tfn_encode_columns(arr, ncols, n, ffi.from_buffer(block), len(block),
                                    offsets_ptr, written, err)
    _c.check(rc, err)
    size = int(written[0])
    if n:
        _bytes_per_example[0] = size / n
    del keep
    return block, size, offsets


def encode_columns(columns, n=None):
    """Serializes the columns into (data: bytes, offsets: uint64 ndarray of n+1)."""
    block, size, offsets = encode_into_pool(columns, n)
    return block[:size].tobytes(), offsets


def serialize_columns(columns, n=None, as_buffer=False):
    """Serializes n Examples from columns, one C call for the whole batch.

    columns: {key: column}. A column is a numeric ndarray of shape (n,) or (n, w, ...)
    (int32/int64 -> Int64List, float32/float64 -> FloatList; trailing dimensions are
    flattened row-major), a list of n bytes (or an object array), a list of n
    variable-length lists/arrays (ragged), or a ``(values, row_splits)`` pair.
    Returns a list of n serialized Examples, byte-identical to building each
    tf.train.Example and calling SerializeToString(); with ``as_buffer=True`` returns
    ``(data, offsets)`` instead (record i is ``data[offsets[i]:offsets[i+1]]``).
    """
    if as_buffer:
        return encode_columns(columns, n)
    block, _, offsets = encode_into_pool(columns, n)
    view = memoryview(block)
    o = offsets.tolist()
    return [view[o[i]:o[i + 1]].tobytes() for i in range(len(o) - 1)]

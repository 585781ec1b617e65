"""String tensors (numpy object arrays of bytes) handed to C without joining them.

The built-ins of bindings/python/pyapi_strings.c walk a 1-D object array (read through the
buffer protocol, Python >= 3.11) or a list of bytes (``tolist()``, 3.8-3.10) and hand
each string to the C library as a (pointer, length) view where its bytes object holds
it: ``tfn_hash_views``, ``tfn_table_find_strings``, ``tfn_table_vocab_strings``, and
the ASCII case / strip maps and ``tf.strings.split``, which write the new bytes objects
straight into the result array. Hashing and lookups of many strings run with the GIL
released.

When the walker is not installed (PyPy, free-threaded builds) or declines (an item
that is not bytes), the strings are joined once and views made of the joined copy
(numpy computes the offsets), or, for the maps and split, each string is done in
Python: same results, slower.
"""
import numpy as np

from .. import _native
from . import malloc as _malloc
from . import PY_API, check, new_error
from .._native import ffi, lib

WALK = bool(PY_API & 1)     # the walker is installed
BUFFERS = bool(PY_API & 2)  # it reads object arrays (else it is given lists)
KINDS = (np.ndarray, np.dtype(object))  # what the walker takes for an object array

LOWER, UPPER, STRIP = 0, 1, 2  # bytes_map ops (pyapi_strings.c)
_SPACE = b" \t\n\v\f\r"


def _addr(a):
    return a.__array_interface__["data"][0]


BIG = 256 << 10  # outputs this big: glibc keeps freed heap memory mapped (see _malloc)


def _empty(n, dtype):
    """An output of n items. A fresh big array otherwise costs a page fault per 4 KiB
    (1.6 MB of hash buckets for 200,000 strings: 1.9 -> 3.1-4.5 ms a call)."""
    if n * np.dtype(dtype).itemsize >= BIG:
        _malloc.tune()
    return np.empty(n, dtype)


def objects(flat):
    """`flat` as a contiguous 1-D numpy object array (a view when it already is one)."""
    a = np.asarray(flat)
    if a.dtype != object:
        a = a.astype(object)
    return np.ascontiguousarray(a.reshape(-1))


def _arg(a):
    return a if BUFFERS else a.tolist()


def _text(v):
    return v.encode("utf-8") if isinstance(v, str) else bytes(v)


def _bytes_items(a):
    items = a.tolist()
    if not all(v.__class__ is bytes for v in items):
        items = [v if v.__class__ is bytes else _text(v) for v in items]
    return items


_VIEW = np.dtype([("data", np.uintp), ("len", np.uintp)])  # tfn_bytes


class JoinedViews:
    """Views of the strings of `a` into one joined copy (the fallback path, and table
    building): ``.ptr`` is a ``tfn_bytes *`` valid while this object lives."""

    def __init__(self, a):
        items = _bytes_items(a)
        n = len(items)
        assert ffi.sizeof("tfn_bytes") == _VIEW.itemsize
        self.data = b"".join(items)
        self.buf = ffi.from_buffer(self.data)
        lens = np.fromiter(map(len, items), np.uintp, n)
        self.views = np.empty(n, _VIEW)
        starts = np.zeros(n, np.uintp)
        if n > 1:
            np.cumsum(lens[:-1], out=starts[1:])
        self.views["data"] = starts + np.uintp(int(ffi.cast("uintptr_t", self.buf)))
        self.views["len"] = lens
        self.ptr = ffi.cast("tfn_bytes *", ffi.from_buffer(self.views)) if n else ffi.NULL
        self.n = n


def all_bytes(a):
    """True when every item of the object array `a` is exactly a bytes object (None:
    not known, the walker is not installed or does not take `a`)."""
    if not WALK:
        return None
    if BUFFERS and a.ndim == 1 and a.flags.c_contiguous and type(a) is np.ndarray:
        return _native.all_bytes(a, KINDS) or None
    return None


# ---------------------------------------------------------------- packed tensors

PACK_AT = 4096  # string tensors this big are packed on first use (smaller: no gain)
_PACKED = "_tfnano_packed"  # where a Tensor keeps its Packed (its instance dict)


class Packed:
    """The strings of a string tensor joined once into one bytes object, with a view
    (``tfn_bytes``) of each: later ops read contiguous memory, as TensorFlow's reads its
    tensor's tstring buffer, instead of one scattered bytes object per string (hashing
    200,000 strings in shuffled order spent most of its time in cache misses).

    ``items`` is a copy of the tensor's object array: it holds the very objects that were
    packed, so while the tensor's items are those same objects (``same_items``: their
    pointers compared, 8 bytes a string read in order), the packed bytes are theirs
    (bytes objects never change). A numpy array can be written to; a tensor whose items
    were replaced is packed again."""

    __slots__ = ("items", "blob", "views", "ptr", "n")

    def __init__(self, items, blob, offsets):
        self.items, self.blob, self.n = items, blob, len(items)
        self.views = np.empty(self.n, _VIEW)
        base = int(ffi.cast("uintptr_t", ffi.from_buffer(blob))) if self.n else 0
        self.views["data"] = offsets[:-1] + np.uintp(base)
        self.views["len"] = np.diff(offsets)
        self.ptr = ffi.cast("tfn_bytes *", ffi.from_buffer(self.views)) if self.n else ffi.NULL


def packed(t):
    """The Packed strings of `t` when it is a tensor (tfnano's Tensor: it has a dict to
    keep them in) of at least PACK_AT exact bytes objects, made on its first use; else
    None (the caller walks the objects)."""
    d = getattr(t, "__dict__", None)
    if d is None or not BUFFERS or not isinstance(t, np.ndarray) or t.size < PACK_AT:
        return None
    a = t.view(np.ndarray)
    if a.dtype != object or not a.flags.c_contiguous:
        return None
    a = a.reshape(-1)
    p = d.get(_PACKED)
    if p is not None and _native.same_items(a, p.items, KINDS):
        return p
    items = a.copy()
    offsets = np.empty(len(items) + 1, np.uint64)
    blob = _native.pack_strings(items, KINDS, _addr(offsets))
    if blob is None:
        return None
    p = d[_PACKED] = Packed(items, blob, offsets)
    return p


# ---------------------------------------------------------------- hashing

def hash_strings(flat, kind, num_buckets=0, key=None, tensor=None):
    """The hash (`num_buckets` 0) or bucket of each string of `flat`, as uint64
    (tfn_hash_views; `kind` a tfn_hash_kind, `key` two uint64 words for SipHash).
    `tensor`: the tensor `flat` was read from (its packed strings are used, see
    packed)."""
    v = packed(tensor) if WALK else None
    if v is None:
        a = objects(flat)
        out = _empty(len(a), np.uint64)
        key_addr = 0 if key is None else _addr(key)
        if WALK and _native.hash_strings(_arg(a), KINDS, kind, num_buckets, key_addr,
                                         _addr(out)):
            return out
        v = JoinedViews(a)
    else:
        out = _empty(v.n, np.uint64)
    err = new_error()
    check(lib.tfn_hash_views(kind, v.ptr, v.n,
                             ffi.NULL if key is None else ffi.from_buffer("uint64_t[]", key),
                             num_buckets, ffi.from_buffer("uint64_t[]", out), err), err)
    return out


# ---------------------------------------------------------------- tables

def _table(rc_fn, n):
    out = ffi.new("tfn_table **")
    first = np.empty(n, np.int64)
    err = new_error()
    check(rc_fn(ffi.from_buffer("int64_t[]", first) if n else ffi.NULL, out, err), err)
    return ffi.gc(out[0], lib.tfn_table_free), first


def new_string_table(keys):
    """(table, first): a C table of the strings of `keys`; first[i] = the index of
    the first key equal to keys[i]."""
    v = JoinedViews(objects(keys))
    return _table(lambda first, out, err: lib.tfn_table_new_strings(
        v.ptr, v.n, first, ffi.NULL, out, err), v.n)


def new_int64_table(keys):
    k = np.ascontiguousarray(keys, np.int64).reshape(-1)
    return _table(lambda first, out, err: lib.tfn_table_new_int64(
        ffi.from_buffer("int64_t[]", k) if len(k) else ffi.NULL, len(k), first, ffi.NULL,
        out, err), len(k))


def find_strings(table, flat, missing, tensor=None):
    """Row of each string of `flat` in `table`, `missing` where absent (int64).
    `tensor`: the tensor `flat` was read from (its packed strings are used)."""
    v = packed(tensor) if WALK else None
    if v is None:
        a = objects(flat)
        rows = _empty(len(a), np.int64)
        if WALK and _native.table_find(_arg(a), KINDS, int(ffi.cast("uintptr_t", table)),
                                       int(missing), _addr(rows)):
            return rows
        v = JoinedViews(a)
    else:
        rows = _empty(v.n, np.int64)
    err = new_error()
    check(lib.tfn_table_find_strings(table, v.ptr, v.n, missing,
                                     ffi.from_buffer("int64_t[]", rows), err), err)
    return rows


def find_int64(table, keys, missing):
    k = np.ascontiguousarray(keys, np.int64).reshape(-1)
    rows = _empty(len(k), np.int64)
    if len(k):
        err = new_error()
        check(lib.tfn_table_find_int64(table, ffi.from_buffer("int64_t[]", k), len(k),
                                       missing, ffi.from_buffer("int64_t[]", rows), err), err)
    return rows


def vocab_strings(table, values, flat, oov_buckets, tensor=None):
    """StaticVocabularyTable ids of the strings of `flat` (tfn_table_vocab_strings;
    `table` None: no vocabulary). `values`: contiguous int64, one per row. `tensor`:
    the tensor `flat` was read from (its packed strings are used)."""
    t = ffi.NULL if table is None else table
    v = packed(tensor) if WALK else None
    if v is None:
        a = objects(flat)
        ids = _empty(len(a), np.int64)
        if WALK and _native.table_vocab(_arg(a), KINDS, int(ffi.cast("uintptr_t", t)),
                                        _addr(values) if len(values) else 0, oov_buckets,
                                        _addr(ids)):
            return ids
        v = JoinedViews(a)
    else:
        ids = _empty(v.n, np.int64)
    err = new_error()
    check(lib.tfn_table_vocab_strings(
        t, ffi.from_buffer("int64_t[]", values) if len(values) else ffi.NULL, v.ptr, v.n,
        oov_buckets, ffi.from_buffer("int64_t[]", ids), err), err)
    return ids


def vocab_int64(table, values, keys, oov_buckets):
    k = np.ascontiguousarray(keys, np.int64).reshape(-1)
    ids = _empty(len(k), np.int64)
    if len(k):
        err = new_error()
        check(lib.tfn_table_vocab_int64(
            table, ffi.from_buffer("int64_t[]", values) if len(values) else ffi.NULL,
            ffi.from_buffer("int64_t[]", k), len(k), oov_buckets,
            ffi.from_buffer("int64_t[]", ids), err), err)
    return ids


# ---------------------------------------------------------------- maps and split

def _from_list(items):
    out = np.empty(len(items), object)
    out[:] = items
    return out


def _py_map(v, op):
    if op == STRIP:
        return v.strip(_SPACE)
    return v.lower() if op == LOWER else v.upper()


def bytes_map(flat, op):
    """lower / upper (ASCII letters) / strip (ASCII whitespace) of each string of
    `flat`: a new 1-D object array."""
    a = objects(flat)
    if WALK:
        if BUFFERS:
            out = _empty(len(a), object)
            if _native.bytes_map(a, KINDS, op, out) is True:
                return out
        else:
            got = _native.bytes_map(a.tolist(), KINDS, op, None)
            if got is not False:
                return _from_list(got)
    return _from_list([_py_map(_text(v) if v.__class__ is not bytes else v, op)
                       for v in a.tolist()])


def split_one(v, sep, maxsplit):
    """TensorFlow's StringSplitV2 of one string: Python's bytes.split, except that
    maxsplit 0 gives the whole string, and once maxsplit is reached what is left is a
    token even when empty. `sep` None: runs of ASCII whitespace."""
    if maxsplit == 0:
        return [v]
    if sep is None:
        parts = []
        rest = v.lstrip(_SPACE)
        while rest:
            head = rest.split(None, 1)
            parts.append(head[0])
            rest = head[1].lstrip(_SPACE) if len(head) > 1 else b""
            if maxsplit > 0 and len(parts) == maxsplit:
                parts.append(rest)
                break
        return parts
    return v.split(sep, maxsplit) if maxsplit > 0 else v.split(sep)


def _maxsplit(maxsplit):
    m = -1 if maxsplit is None else int(maxsplit)
    return -1 if m < 0 or m >= 2 ** 62 else m


def split(flat, sep=None, maxsplit=-1):
    """tf.strings.split of each string of `flat`: (tokens, row_splits), a 1-D object
    array and int64 row splits (len(flat) + 1)."""
    a = objects(flat)
    m = _maxsplit(maxsplit)
    s = None if sep is None or sep == b"" else sep
    if WALK:
        splits = _empty(len(a) + 1, np.int64)
        arg = _arg(a)
        total = _native.split_count(arg, KINDS, s, m, _addr(splits))
        if total is not None:
            if BUFFERS:
                values = _empty(total, object)
                if _native.split_fill(arg, KINDS, s, m, values, total) is True:
                    return values, splits
            else:
                got = _native.split_fill(arg, KINDS, s, m, None, total)
                if got is not False:
                    return _from_list(got), splits
    pieces = [split_one(_text(v) if v.__class__ is not bytes else v, s, m) for v in a.tolist()]
    splits = np.zeros(len(pieces) + 1, np.int64)
    if pieces:
        np.cumsum(np.fromiter(map(len, pieces), np.int64, len(pieces)), out=splits[1:])
    values = np.empty(int(splits[-1]), object)
    values[:] = [t for p in pieces for t in p]
    return values, splits

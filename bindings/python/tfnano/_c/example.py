"""One tf.train.Example in C (lib/example: tfn_example_*): serializing a record's
features in one call, decoding one record into (key, kind, values).

``tfnano.train`` keeps the messages; this module sees only their content, a dict
{key: (kind, values)} with kind "int64_list", "float_list", "bytes_list" or None and
values an int64 / float32 numpy array or a sequence of bytes."""
import threading

import numpy as np

from .. import _c

ffi = _c.ffi
lib = _c.lib

_SCRATCH = threading.local()
_KEY_BYTES = {}
_I64_ARRAY = ffi.typeof("int64_t[]")
_F32_ARRAY = ffi.typeof("float[]")
_BYTES_ARRAY = ffi.typeof("tfn_bytes[]")
_from_buffer = ffi.from_buffer
_buffer = ffi.buffer
_KINDS = {"int64_list": lib.TFN_KIND_INT64, "float_list": lib.TFN_KIND_FLOAT,
          "bytes_list": lib.TFN_KIND_BYTES, None: lib.TFN_KIND_NONE}
_serialize_features = lib.tfn_example_serialize_features


def serialize(feats, has_features):
    """protobuf's deterministic bytes of an Example holding `feats` (keys in the
    order given are sorted by C); `has_features` writes an empty Features message."""
    # One C call for the whole record (tfn_example_serialize_features): the values
    # are read where the messages keep them, through a per-thread tfn_feature
    # array kept for each tuple of keys (records repeat their keys).
    try:
        ex, err, out, n, layouts = _SCRATCH.fast
    except AttributeError:
        ex, err, out, n, layouts = _fast_state()
    keys = tuple(feats)
    lay = layouts.get(keys)
    if lay is None:
        lay = _new_layout(layouts, keys)
    arr, items, kinds, _ = lay
    keep = []
    i = 0
    for kind, vals in feats.values():
        item = items[i]
        if kinds[i] is not kind:  # the kind of key i, as the last record had it
            kinds[i] = kind
            item.kind = _KINDS[kind]
        i += 1
        if kind == "int64_list":
            item.int64s = b = _from_buffer(_I64_ARRAY, vals)
        elif kind == "float_list":
            item.floats = b = _from_buffer(_F32_ARRAY, vals)
        elif kind is None:
            item.count = 0
            continue
        else:
            item.bytes = b = _bytes_views(vals, keep)
        item.count = len(vals)
        keep.append(b)
    rc = _serialize_features(ex, arr, len(items), has_features, out, n, err)
    if rc < 0:
        if rc == lib.TFN_E_LIMIT:
            raise ValueError("Message tensorflow.Example exceeds maximum protobuf "
                             "size of 2GB: %s" % _total_size(feats))
        _c.check(rc, err)
    return _buffer(out[0], n[0])[:]


def decode(s):
    """(has_features, [(key, kind, values)], size in bytes) of one serialized
    Example, values as numpy arrays (int64 / float32, None when empty) or a list of
    bytes; has_features is None when the record is empty. None when the bytes are not an Example (protobuf's rules)."""
    try:
        buf = ffi.from_buffer(s)
    except TypeError:
        raise TypeError("a bytes-like object is required, not '%s'"
                        % type(s).__name__) from None
    ex = _scratch_example()
    err = _c.new_error()
    rc = lib.tfn_example_decode(ex, buf, len(buf), 0, err)
    if rc < 0:
        if rc == lib.TFN_E_NOMEM:
            raise MemoryError(_c.message(err))
        return None
    n = lib.tfn_example_size(ex)
    has = None
    if n or len(buf):
        # Any feature implies presence; an empty Features message serializes to 0a 00.
        has = n > 0 or lib.tfn_example_serialized_size(ex) > 0
    out = []
    view = ffi.new("tfn_feature *")
    for i in range(n):
        lib.tfn_example_at(ex, i, view)
        key = ffi.buffer(view.key, view.key_len)[:].decode("utf-8", "surrogateescape") \
            if view.key_len else ""
        kind = view.kind
        cnt = view.count
        if kind == lib.TFN_KIND_INT64:
            vals = np.frombuffer(ffi.buffer(view.int64s, cnt * 8), dtype=np.int64).copy() \
                if cnt else None
            out.append((key, "int64_list", vals))
        elif kind == lib.TFN_KIND_FLOAT:
            vals = np.frombuffer(ffi.buffer(view.floats, cnt * 4), dtype=np.float32).copy() \
                if cnt else None
            out.append((key, "float_list", vals))
        elif kind == lib.TFN_KIND_BYTES:
            bs = view.bytes
            out.append((key, "bytes_list", [ffi.buffer(bs[j].data, bs[j].len)[:]
                                            if bs[j].len else b"" for j in range(cnt)]))
        else:
            out.append((key, None, None))
    return has, out, len(buf)


def _bytes_views(vals, keep):
    """A tfn_bytes array over the values (their buffers are kept alive in `keep`)."""
    init = []
    for v in vals:
        if v:
            b = _from_buffer(v)
            keep.append(b)
            init.append((b, len(v)))
        else:
            init.append((ffi.NULL, 0))
    return ffi.new(_BYTES_ARRAY, init)


def _fast_state():
    """Per thread: a scratch tfn_example, error, output slots and the tfn_feature
    arrays by tuple of keys."""
    st = (ffi.gc(_new_example(), lib.tfn_example_free), _c.new_error(),
          ffi.new("const uint8_t **"), ffi.new("size_t *"), {})
    _SCRATCH.fast = st
    return st


def _new_example():
    ex = lib.tfn_example_new(ffi.NULL)
    if ex == ffi.NULL:
        raise MemoryError("tfn_example_new")
    return ex


def _new_layout(layouts, keys):
    """A tfn_feature array with the keys set (their bytes kept alive with it)."""
    arr = ffi.new("tfn_feature[]", max(1, len(keys)))
    held = []
    for i, k in enumerate(keys):
        kb = _KEY_BYTES.get(k)
        if kb is None:
            kb = k.encode("utf-8")
            if len(_KEY_BYTES) < 4096:  # feature names repeat record after record
                _KEY_BYTES[k] = kb
        c = ffi.new("char[]", kb)
        held.append(c)
        arr[i].key = c
        arr[i].key_len = len(kb)
    if len(layouts) >= 64:
        layouts.clear()
    # the items, then each item's kind as last set (a list, updated in place)
    lay = layouts[keys] = (arr, [arr[i] for i in range(len(keys))], [0] * len(keys), held)
    return lay


def _total_size(feats):
    """The serialized size protobuf names when a message is over 2 GB."""
    ex = _scratch_example()
    lib.tfn_example_clear(ex)
    for k, (kind, arr) in feats.items():
        kb = k.encode("utf-8")
        if kind == "int64_list":
            lib.tfn_example_set_int64s(ex, kb, len(kb), _from_buffer(_I64_ARRAY, arr),
                                       len(arr), ffi.NULL)
        elif kind == "float_list":
            lib.tfn_example_set_floats(ex, kb, len(kb), _from_buffer(_F32_ARRAY, arr),
                                       len(arr), ffi.NULL)
        elif kind is None:
            lib.tfn_example_set_none(ex, kb, len(kb), ffi.NULL)
        else:
            keep = []
            lib.tfn_example_set_bytes(ex, kb, len(kb), _bytes_views(arr, keep), len(arr),
                                      ffi.NULL)
    size = lib.tfn_example_serialized_size(ex)
    lib.tfn_example_clear(ex)
    return size


def _scratch_example():
    """One tfn_example per thread, reused (its arena keeps its memory)."""
    ex = getattr(_SCRATCH, "ex", None)
    if ex is None:
        ex = ffi.gc(_new_example(), lib.tfn_example_free)
        _SCRATCH.ex = ex
    return ex

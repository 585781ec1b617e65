"""FixedLenFeature / FixedLenSequenceFeature, parse_example, parse_single_example, and
the fast batch parser (int32 output, fused maxlen padding with masks, threads).

Configs are validated here with TensorFlow's Python-layer rules and texts, compiled
once into a C tfn_spec (cached), and parsed by a per-thread tfn_parser: one scan call
and one fill call per batch, with the GIL released by cffi during both.
"""
import collections
import threading

import numpy as np

from . import errors
from . import _c, _native
from ._c import parse as _cparse
from . import dtypes as _dt
from ._c.outbuf import POOL as _outbuf_pool, Carver
from ._c.spec import CompiledSpec
from ._tensor import Tensor
from ._trace import LENGTHS as _LENGTHS
from ._trace import Spec as _TSpec, Symbol as _Symbol, TraceError as _TraceError, traceable

ffi = _c.ffi
lib = _c.lib


class FixedLenFeature(collections.namedtuple(
        "FixedLenFeature", ["shape", "dtype", "default_value"])):
    """``tf.io.FixedLenFeature(shape, dtype, default_value=None)``: a dense feature of
    a fixed shape; without a default it is required."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """``tf.io.FixedLenSequenceFeature(shape, dtype, allow_missing=False,
    default_value=None)``: a variable number of rows of `shape`, padded to the batch's
    longest; ``allow_missing=True`` is required in parse_example."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """``tf.io.VarLenFeature`` (accepted for repr; parsing it is not supported)."""


_NATIVE_DTYPE = _cparse.NATIVE_DTYPE
_NP_OUT = _cparse.NP_OUT
_parse_err = _cparse.parse_error
_bytes_objects = _cparse.bytes_objects
_TF_NAMES = {"float32": "float", "float64": "double", "int64": "int64", "string": "string"}


def _as_shape(shape):
    if isinstance(shape, (int, np.integer)):
        return [int(shape)]
    return [None if d is None else int(d) for d in shape]


class _Config:
    """One validated feature: what tfn_spec_new needs, kept alive for the call."""
    __slots__ = ("key", "kb", "seq", "dtype", "shape", "default", "out_dtype")


def _default_array(key, value, dt, count, shape_for_msg):
    if dt is _dt.string:
        arr = np.asarray(value, dtype=object).reshape(-1)
        vals = []
        for v in arr:
            if isinstance(v, str):
                v = v.encode("utf-8")
            elif not isinstance(v, bytes):
                raise TypeError("Failed to convert elements of %r to Tensor. Consider "
                                "casting elements to a supported type." % (value,))
            vals.append(bytes(v))
        flat = vals
        n = len(vals)
    else:
        src = np.asarray(value)
        if src.dtype.kind in "SUO" and src.size:
            raise TypeError("Cannot convert %r to EagerTensor of dtype %s"
                            % (value, dt.name))
        if src.dtype.kind == "f" and dt.is_integer and src.size:
            raise TypeError("Cannot convert %r to EagerTensor of dtype %s"
                            % (value, dt.name))
        flat = np.ascontiguousarray(src, dtype=dt.as_numpy_dtype).reshape(-1)
        n = flat.size
    if n != count:
        raise errors.invalid("Input to reshape is a tensor with %d values, but the requested "
                              "shape has %d" % (n, count))
    return flat


def _validate(features):
    """TensorFlow's Python-side checks, in its order; returns [_Config] by sorted key."""
    if not features:
        raise ValueError("Argument `features` cannot be None or falsy. Got %s" % (features,))
    from .io import _kinds  # lazy door: io/_kinds imports this module
    features, kinds = _kinds.adopt(features)  # TensorFlow's own configs
    if kinds:  # parse_example handles them; Parser and the batch tracer do not
        raise _kinds.KindsNotDense(features)
    # FixedLenSequenceFeature(allow_missing=False) is refused before anything else.
    for key in sorted(features):
        f = features[key]
        if isinstance(f, FixedLenSequenceFeature) and not f.allow_missing:
            raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing "
                             "to be True.")
    out = []
    for key in sorted(features):
        f = features[key]
        if not isinstance(key, str):
            raise TypeError("Feature keys must be str, got %r" % (key,))
        if isinstance(f, VarLenFeature):
            raise NotImplementedError("tfnano: VarLenFeature (sparse output) is not "
                                      "supported; use FixedLenSequenceFeature(..., "
                                      "allow_missing=True)")
        if not isinstance(f, (FixedLenFeature, FixedLenSequenceFeature)):
            raise ValueError("Unsupported %s %s for key '%s'" % (type(f).__name__, f, key))
        seq = isinstance(f, FixedLenSequenceFeature)
        if not f.dtype:
            raise ValueError("Missing type for feature %s. Received feature=%s." % (key, f))
        if f.shape is None:
            raise ValueError("Missing shape for feature %s. Received feature=%s." % (key, f))
        shape = _as_shape(f.shape)
        if not seq:
            if shape and shape[0] is None:
                raise ValueError("First dimension of shape for feature %s unknown. Consider "
                                 "using FixedLenSequenceFeature. Received feature=%s."
                                 % (key, f))
            if any(d is None for d in shape):
                raise ValueError("All dimensions of shape for feature %s need to be known "
                                 "but received %s." % (key, f.shape))
        dt = _dt.as_dtype(f.dtype)
        if dt.name not in _NATIVE_DTYPE:
            raise errors.invalid("Value for attr 'Tdense' of %s is not in the list of allowed "
                                  "values: float, int64, string" % _TF_NAMES.get(dt.name, dt.name))
        if seq and any(d is None for d in shape):
            raise errors.invalid("dense_shapes[%d] has unknown rank or unknown inner dimensions: "
                                  "[?,%s]" % (len(out), ",".join("?" if d is None else str(d)
                                                                 for d in shape)))
        c = _Config()
        c.key, c.kb, c.seq, c.dtype, c.shape = key, key.encode("utf-8"), seq, dt, shape
        c.default = None
        if f.default_value is not None:
            count = 1 if seq else int(np.prod(shape, dtype=np.int64))
            c.default = _default_array(key, f.default_value, dt, count, shape)
        out.append(c)
    return out


def fill_dense_config(cfg, c, keep):
    """Fills one tfn_feature_config from a validated FixedLen / FixedLenSequence
    _Config; what the C side points at (key, shape, default) is appended to `keep`."""
    key = ffi.new("char[]", c.kb)
    shape = ffi.new("int64_t[]", [(-1 if d is None else d) for d in c.shape] or [0])
    keep.extend((key, shape))
    cfg.key, cfg.key_len = key, len(c.kb)
    cfg.type = lib.TFN_FIXED_LEN_SEQUENCE if c.seq else lib.TFN_FIXED_LEN
    cfg.dtype = _NATIVE_DTYPE[c.dtype.name]
    cfg.shape, cfg.rank = shape, len(c.shape)
    cfg.allow_missing = 1 if c.seq else 0
    if c.default is None:
        return
    if c.dtype is _dt.string:
        views = ffi.new("tfn_bytes[]", max(1, len(c.default)))
        for j, b in enumerate(c.default):
            if b:
                bb = ffi.from_buffer(b)
                keep.append(bb)
                views[j].data = bb
            views[j].len = len(b)
        keep.append(views)
        cfg.default_value = views
    else:
        buf = ffi.from_buffer(c.default)
        keep.append((c.default, buf))
        cfg.default_value = buf
    cfg.default_count = len(c.default)


class _Spec:
    """A compiled tfn_spec plus the output layout of each feature."""

    def __init__(self, configs, out_int32=(), maxlen=None, masks=False):
        self._init_args = (configs, tuple(out_int32), maxlen, masks)
        self.configs = configs
        n = len(configs)
        cfg = ffi.new("tfn_feature_config[]", n)
        keep = []
        self.out_dtype = []
        for i, c in enumerate(configs):
            fill_dense_config(cfg[i], c, keep)
            od = cfg[i].dtype
            if od == lib.TFN_INT64 and c.key in out_int32:
                od = lib.TFN_INT32
            cfg[i].out_dtype = od if od != cfg[i].dtype else lib.TFN_DTYPE_NONE
            self.out_dtype.append(od)
        self.compiled = CompiledSpec(cfg, n)
        self.spec, self.strides = self.compiled.spec, self.compiled.strides
        self.maxlen = maxlen
        self.masks = masks
        # every output's shape is known before the records are read: run() can size
        # them first and make one tfn_parser_parse call (which decodes while it scans)
        self.fixed_only = not any(c.seq for c in configs)
        self._local = threading.local()

    def __reduce__(self):
        # The C spec and per-thread parsers are rebuilt from the validated configs.
        return (_Spec, self._init_args)

    def _one_state(self):
        """Per-thread reusable C structures for parse_one, and the output layout
        computed once: (j, key, numpy dtype or None for bytes, shape, count, seq)."""
        layout = []
        outs = ffi.new("tfn_output[]", max(1, len(self.configs)))
        for j, c in enumerate(self.configs):
            od = self.out_dtype[j]
            dtype = None if od == lib.TFN_BYTES else np.dtype(_NP_OUT[od])
            if dtype is None and not c.seq and not c.shape:
                view = ffi.new("tfn_bytes[]", 1)  # owned by the layout entry
                outs[j].values = view
                outs[j].capacity = 1
                layout.append((j, c.key, "scalar bytes", view, 1, False))
                continue
            layout.append((j, c.key, dtype, tuple(c.shape), self.strides[j], c.seq))
        for j in range(len(layout)):
            outs[j].max_rows = -1
        st = (self.parser(), _c.new_error(), outs, ffi.new("tfn_bytes[]", 1), layout)
        self._local.one = st
        return st

    def parse_one(self, record):
        """parse_single_example of one bytes record, without the batch machinery."""
        st = getattr(self._local, "one", None)
        if st is None:
            st = self._one_state()
        p, err, outs, views, layout = st
        buf = ffi.from_buffer(record)
        views[0].data = buf
        views[0].len = len(record)
        fused = self.fixed_only  # outputs made first, then one tfn_parser_parse call
        if not fused:
            rc = lib.tfn_parser_scan(p, views, 1, ffi.NULL, lib.TFN_PARSE_SINGLE, err)
            if rc < 0:
                raise _parse_err(rc, err)
        result = {}
        keep = []
        strings = None
        scalars = None
        for j, key, dtype, shape, stride, seq in layout:
            if dtype == "scalar bytes":  # `shape` holds its tfn_bytes[1]
                if scalars is None:
                    scalars = []
                scalars.append((key, shape))
                continue
            if seq:
                rows = lib.tfn_parser_max_rows(p, j)
                shape = (rows,) + shape
                count = rows * stride
            else:
                count = stride
            outs[j].capacity = count
            if dtype is None:
                bviews = np.zeros((max(count, 1), 2), dtype=np.uint64)
                ptr = ffi.from_buffer(bviews)
                if strings is None:
                    strings = []
                strings.append((key, bviews, count, shape))
            else:
                arr = np.empty(shape, dtype)
                ptr = ffi.from_buffer(arr)
                result[key] = arr
            outs[j].values = ptr
            keep.append(ptr)
        if fused:
            rc = lib.tfn_parser_parse(p, views, 1, ffi.NULL, lib.TFN_PARSE_SINGLE, outs, err)
        else:
            rc = lib.tfn_parser_fill(p, outs, err)
        if rc < 0:
            raise _parse_err(rc, err)
        if scalars is not None:
            for key, v in scalars:
                a = np.empty((), dtype=object)
                ln = v[0].len
                a[()] = ffi.buffer(v[0].data, ln)[:] if ln else b""
                result[key] = a
        if strings is not None:
            for key, bviews, count, shape in strings:
                if count == 1 and not shape:
                    a = np.empty((), dtype=object)
                    ln = int(bviews[0, 1])
                    a[()] = ffi.buffer(ffi.cast("char *", int(bviews[0, 0])), ln)[:] \
                        if ln else b""
                    result[key] = a
                else:
                    result[key] = _bytes_objects(bviews[:count], count).reshape(shape)
        del keep, buf
        return {k: v.view(Tensor) for k, v in result.items()}

    def parser(self):
        return self.compiled.parser()


_CACHE = collections.OrderedDict()
_CACHE_LOCK = threading.Lock()


def _freeze(v):
    if v is None:
        return None
    if isinstance(v, np.ndarray):
        return (v.dtype.str, v.shape, v.tobytes() if v.dtype != object else repr(v.tolist()))
    try:
        hash(v)
        return ("h", type(v).__name__, v)
    except TypeError:
        return ("r", repr(v))


def _spec_key(features, out_int32, maxlen, masks):
    items = []
    for k in features:
        f = features[k]
        try:
            shape = tuple(f.shape) if isinstance(f.shape, (list, tuple)) else f.shape
            fields = (type(f).__name__, shape, str(f.dtype),
                      getattr(f, "allow_missing", None), _freeze(f.default_value))
        except Exception:
            return None
        items.append((k, fields))
    items.sort(key=lambda kv: str(kv[0]))
    return (tuple(items), tuple(sorted(out_int32)), maxlen, masks)


def get_spec(features, out_int32=(), maxlen=None, masks=False):
    key = _spec_key(features, out_int32, maxlen, masks) if features else None
    if key is not None:
        with _CACHE_LOCK:
            s = _CACHE.get(key)
            if s is not None:
                _CACHE.move_to_end(key)
                return s
    s = _Spec(_validate(features), out_int32, maxlen, masks)
    if key is not None:
        with _CACHE_LOCK:
            _CACHE[key] = s
            while len(_CACHE) > 64:
                _CACHE.popitem(last=False)
    return s


# The same features dict object passed call after call (what map functions do) is
# recognised by identity: the dict and each of its config objects (immutable
# namedtuples) must be the very same objects as when the entry was made. Configs with
# a numpy default (mutable in place) are keyed by value every call instead.
_FAST = {}
_FAST_LOCK = threading.Lock()


def _fast_spec(features):
    """The plain spec of `features` (no int32/maxlen/masks) if seen before, else None;
    False when the dict holds VarLen/Sparse/Ragged kinds."""
    e = _FAST.get(id(features))
    if e is None or e[0] is not features or len(features) != len(e[1]):
        return None
    for k, f in e[1]:
        if features.get(k) is not f:
            return None
    return e[2]


def _remember(features, spec):
    if type(features) is not dict:
        return
    items = tuple(features.items())
    for _, f in items:
        if isinstance(getattr(f, "default_value", None), np.ndarray):
            return
    with _FAST_LOCK:
        if len(_FAST) >= 64:
            _FAST.pop(next(iter(_FAST)))
        _FAST[id(features)] = (features, items, spec)


# ----------------------------------------------------------------- record views

_ONLY_BYTES = frozenset((bytes,))


def _bytes_views_of(items, n):
    """(views, keep) of a list of bytes objects read in place by the pyapi_strings.c walker,
    or None where it is not installed or an item is not exactly bytes."""
    from ._c import strviews as _strviews
    if not _strviews.WALK:
        return None
    pairs = np.empty((max(n, 1), 2), dtype=np.uint64)
    if not _native.bytes_views(items, _strviews.KINDS, _strviews._addr(pairs)):
        return None
    return ffi.cast("tfn_bytes *", ffi.from_buffer(pairs)), pairs


class _Records:
    """n serialized records as a tfn_bytes array (and what keeps their memory alive)."""

    __slots__ = ("views", "n", "keep")

    def __init__(self, serialized):
        if isinstance(serialized, _Records):
            self.views, self.n, self.keep = serialized.views, serialized.n, serialized.keep
            return
        views = getattr(serialized, "_tfn_views", None)
        if views is not None:  # record views from a TFRecordDataset batch: no copy
            arr, keep = views()
            self.n = len(arr)
            arr = np.ascontiguousarray(arr, dtype=np.uint64)
            self.views = ffi.cast("tfn_bytes *", ffi.from_buffer(arr)) if self.n else \
                ffi.new("tfn_bytes[]", 1)
            self.keep = (arr, keep)
            return
        joined = getattr(serialized, "_tfn_joined", None)
        if joined is not None:  # a RecordBatch from TFRecordDataset: one buffer + offsets
            data, offsets = joined()
            self._from_joined(data, offsets)
            return
        items = serialized
        if items.__class__ is list and len(items) <= 16:
            if all(x.__class__ is bytes for x in items):
                self._from_small(items)
                return
        if isinstance(items, np.ndarray):
            items = items.reshape(-1).tolist()
        elif not isinstance(items, list):
            items = list(items)
        n = len(items)
        # bytes objects in place, no copy (a list of our own holds them, whatever the
        # caller does with theirs meanwhile)
        items = list(items)
        got = _bytes_views_of(items, n)
        if got is not None:
            self.n, self.views = n, got[0]
            self.keep = (items, got[1])
            return
        for i, x in enumerate(items if not _ONLY_BYTES.issuperset(map(type, items)) else ()):
            if x.__class__ is not bytes:
                if isinstance(x, str):
                    items[i] = x.encode("utf-8")
                elif isinstance(x, (bytes, bytearray, memoryview, np.bytes_)):
                    items[i] = bytes(x)
                else:
                    raise TypeError("Expected bytes serialized Examples, got %s"
                                    % type(x).__name__)
                if items is serialized:
                    items = list(items)
        lengths = np.fromiter(map(len, items), dtype=np.int64, count=n)
        data = b"".join(items)
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        self._from_joined(data, offsets, lengths)

    def _from_small(self, items):
        n = len(items)
        self.n = n
        views = ffi.new("tfn_bytes[]", max(n, 1))
        bufs = []
        for i, x in enumerate(items):
            b = ffi.from_buffer(x)
            bufs.append(b)
            views[i].data = b
            views[i].len = len(x)
        self.views = views
        self.keep = (items, bufs)

    def _from_joined(self, data, offsets, lengths=None):
        n = len(offsets) - 1
        self.n = n
        buf = ffi.from_buffer(data) if len(data) else ffi.new("char[]", 1)
        base = int(ffi.cast("uintptr_t", buf))
        pairs = np.empty((max(n, 1), 2), dtype=np.uint64)
        np.add(offsets[:-1], base, out=pairs[:n, 0], dtype=np.uint64, casting="unsafe")
        pairs[:n, 1] = np.diff(offsets) if lengths is None else lengths
        self.views = ffi.cast("tfn_bytes *", ffi.from_buffer(pairs))
        self.keep = (data, buf, pairs)


def _names_views(names, n):
    if names is None:
        return ffi.NULL, None
    names = np.asarray(names, dtype=object).reshape(-1).tolist()
    if not names:  # TensorFlow checks the names' shape only when there are some
        return ffi.NULL, None
    if len(names) != n:
        raise errors.invalid("Expected names have the same shape as serialized: name.shape=[%d], "
                              "serialized.shape=[%d]" % (len(names), n))
    r = _Records([x if isinstance(x, (bytes, str)) else str(x) for x in names])
    return r.views, r


# ----------------------------------------------------------------- parse

_INVALID = {rc: None for rc in ()}


def _run_state(spec):
    """Per-thread reusable C structures for run(), and each feature's layout computed
    once: (j, key, output dtype code, numpy dtype, record shape, stride, seq)."""
    st = getattr(spec._local, "run", None)
    if st is None:
        layout = []
        for j, c in enumerate(spec.configs):
            od = spec.out_dtype[j]
            layout.append((j, c.key, od, None if od == lib.TFN_BYTES else
                           np.dtype(_NP_OUT[od]), tuple(c.shape), spec.strides[j], c.seq))
        st = (spec.parser(), _c.new_error(), ffi.new("tfn_output[]", max(1, len(layout))),
              layout)
        spec._local.run = st
    return st


_MIN_POOLED = 256 << 10  # _outbuf.MIN_BYTES: below it np.empty is as fast


def _fixed_plan(spec, layout, n):
    """The outputs of a spec without FixedLenSequence features for n records, cached per
    thread and batch size: (j, key, numpy dtype or None for bytes, shape, count,
    pooled byte size or 0)."""
    plans = getattr(spec._local, "plans", None)
    if plans is None:
        plans = spec._local.plans = {}
    plan = plans.get(n)
    if plan is None:
        plan = []
        for j, key, od, dtype, rshape, stride, seq in layout:
            count = n * stride
            nbytes = 0 if dtype is None else count * dtype.itemsize
            plan.append((j, key, dtype, (n,) + rshape, count,
                         nbytes if nbytes >= _MIN_POOLED else 0))
        if len(plans) >= 16:
            plans.clear()
        plans[n] = plan
    return plan


def _run_fixed(spec, recs, names_v, flags, p, err, outs, layout):
    """run() for a spec whose output shapes are known before parsing: the outputs are
    made first (big ones from the pool, as _outbuf.Carver makes them), then one
    tfn_parser_parse call, which decodes FixedLen numeric features while it scans."""
    n = recs.n
    result = {}
    keep = []
    post = None
    take = _outbuf_pool.take
    for j, key, dtype, shape, count, pooled in _fixed_plan(spec, layout, n):
        out = outs[j]
        out.capacity = count
        out.max_rows = -1
        if dtype is None:
            views = np.zeros((max(count, 1), 2), dtype=np.uint64)
            ptr = ffi.from_buffer(views)
            if post is None:
                post = []
            post.append((key, views, count, shape))
        else:
            arr = (take(pooled)[:pooled].view(dtype).reshape(shape) if pooled
                   else np.empty(shape, dtype))
            ptr = ffi.from_buffer(arr)
            result[key] = arr
        out.values = ptr
        keep.append(ptr)
    rc = lib.tfn_parser_parse(p, recs.views, n, names_v, flags, outs, err)
    if rc < 0:
        raise _parse_err(rc, err)
    if post is not None:
        for key, views, count, shape in post:
            result[key] = _bytes_objects(views[:count], count).reshape(shape)
    del keep
    return result


def run(spec, serialized, names=None, single=False, tensors=True):
    """Scans and fills one batch; returns {key: array} (+ masks/lengths if asked)."""
    recs = _Records(serialized)
    n = recs.n
    names_v, _keep_names = _names_views(names, n)
    p, err, outs, layout = _run_state(spec)
    flags = lib.TFN_PARSE_SINGLE if single else lib.TFN_PARSE_BATCH
    if spec.fixed_only:
        result = _run_fixed(spec, recs, names_v, flags, p, err, outs, layout)
        del recs
        if single:
            result = {k: v.reshape(v.shape[1:]) for k, v in result.items()}
        if tensors:
            result = {k: v.view(Tensor) for k, v in result.items()}
        return result
    rc = lib.tfn_parser_scan(p, recs.views, n, names_v, flags, err)
    if rc < 0:
        raise _parse_err(rc, err)
    masks = spec.masks
    maxlen = spec.maxlen
    # Pass 1: shapes and byte sizes. Big numeric outputs, masks and lengths share one
    # pooled block (see _outbuf: reused memory spares a page fault per 4 KiB); bytes
    # features get views.
    plan = []
    total = 0
    for j, key, od, dtype, rshape, stride, seq in layout:
        if seq:
            rows = maxlen if maxlen is not None else lib.tfn_parser_max_rows(p, j)
            shape = (n, rows) + rshape
            count = n * rows * stride
            outs[j].max_rows = rows if maxlen is not None else -1
        else:
            rows = None
            shape = (n,) + rshape
            count = n * stride
            outs[j].max_rows = -1
        outs[j].capacity = count
        if dtype is not None:
            total += count * dtype.itemsize
        extras = seq and masks
        if extras:
            total += n * rows + n * 8
        plan.append((j, key, dtype, shape, count, rows, extras))
    carver = Carver() if total >= _MIN_POOLED else None
    if carver is not None:
        idx = []
        for j, key, dtype, shape, count, rows, extras in plan:
            idx.append((None if dtype is None else carver.add(shape, dtype),
                        (carver.add((n, rows), np.bool_), carver.add((n,), np.int64))
                        if extras else None))
        arrays = carver.arrays()
    # Pass 2: point the outputs at their memory.
    result = {}
    keep = []
    post = None
    for i, (j, key, dtype, shape, count, rows, extras) in enumerate(plan):
        if extras:
            if carver is not None:
                mask, lengths = arrays[idx[i][1][0]], arrays[idx[i][1][1]]
            else:
                mask, lengths = np.empty((n, rows), np.bool_), np.empty(n, np.int64)
            m = ffi.cast("uint8_t *", ffi.from_buffer(mask))
            ln = ffi.cast("int64_t *", ffi.from_buffer(lengths))
            outs[j].mask = m
            outs[j].lengths = ln
            keep.append((m, ln))
            result[key + "_mask"] = mask
            result[key + "_length"] = lengths
        if dtype is None:
            views = np.zeros((max(count, 1), 2), dtype=np.uint64)
            ptr = ffi.from_buffer(views)
            if post is None:
                post = []
            post.append((key, views, count, shape))
        else:
            arr = arrays[idx[i][0]] if carver is not None else np.empty(shape, dtype)
            ptr = ffi.from_buffer(arr)
            result[key] = arr
        outs[j].values = ptr
        keep.append(ptr)
    rc = lib.tfn_parser_fill(p, outs, err)
    if rc < 0:
        raise _parse_err(rc, err)
    if post is not None:
        for key, views, count, shape in post:
            result[key] = _bytes_objects(views[:count], count).reshape(shape)
    del keep, recs
    if single:
        result = {k: v.reshape(v.shape[1:]) for k, v in result.items()}
    if tensors:
        result = {k: v.view(Tensor) for k, v in result.items()}
    return result


# ----------------------------------------------------------------- tracing

LENGTHS = _LENGTHS  # the tracer's lengths table (tf.data's padded_batch reads it)

_TRACE_DTYPE = {"int64": np.int64, "float32": np.float32, "string": object}


def _out_specs(features, lead):
    """{key: Spec} of parse outputs, record shapes prefixed by `lead`."""
    if isinstance(features, _Symbol) or not isinstance(features, dict):
        raise _TraceError("the features argument must be a Python dict")
    from .io import _kinds  # lazy door: io/_kinds imports this module
    adopted, kinds = _kinds.adopt(features)
    if kinds:  # SparseTensor / RaggedTensor outputs: CompositeSpecs
        return _kinds.trace_specs(adopted, lead)
    spec = get_spec(features)
    out = {}
    for c in spec.configs:
        seq = getattr(c, "seq", None)
        if seq is None or getattr(c, "dtype", None) is None or \
                c.dtype.name not in _TRACE_DTYPE:
            raise _TraceError("feature %r of this kind is parsed per record" % (c.key,))
        shape = tuple(lead) + ((None,) if seq else ()) + tuple(c.shape)
        out[c.key] = _TSpec(_TRACE_DTYPE[c.dtype.name], shape)
    return out


def _single_infer(serialized, features, example_names=None, name=None):
    if isinstance(serialized, _Symbol) and serialized.spec.shape not in ((), None):
        raise ValueError("Input serialized must be a scalar")
    return _out_specs(features, ())


def _single_batch(serialized, features, example_names=None, name=None, _tfn_int32=()):
    """parse_single_example over a batch of records = parse_example of the batch."""
    sink = getattr(LENGTHS, "table", None)
    from .io import _kinds  # lazy door: io/_kinds imports this module
    adopted, kinds = _kinds.adopt(features)
    if kinds:
        return _kinds.parse_records_batched(serialized, adopted, example_names,
                                            tuple(_tfn_int32), sink)
    spec = get_spec(features, tuple(_tfn_int32), None, sink is not None)
    names = None
    if example_names is not None:
        names = [example_names] * len(serialized)
    out = run(spec, serialized, names)
    if sink is not None:
        for c in spec.configs:
            if c.seq:
                out.pop(c.key + "_mask")
                lengths = out.pop(c.key + "_length")
                a = out[c.key]
                sink[(a.__array_interface__["data"][0], a.shape)] = lengths
    return out


def _batch_infer(serialized, features, example_names=None, name=None):
    shape = serialized.spec.shape if isinstance(serialized, _Symbol) else np.shape(serialized)
    if shape is None:
        raise _TraceError("parse_example() needs the rank of its input")
    if len(shape) == 0:
        return _out_specs(features, ())
    if len(shape) != 1:
        raise ValueError("Shape must be rank 1 but is rank %d" % len(shape))
    return _out_specs(features, shape)


@traceable("parse_example", batch=None, infer=_batch_infer)
def parse_example(serialized, features, example_names=None, name=None):
    """``tf.io.parse_example``: a batch (1-D) of serialized Examples -> {key: array}.
    int64 -> int64, float -> float32, string -> object arrays of bytes."""
    spec = _fast_spec(features)
    if spec and serialized.__class__ is list and len(serialized) == 1 and \
            serialized[0].__class__ is bytes and example_names is None:
        try:  # one record: the single-record path, with the batch dimension added
            one = spec.parse_one(serialized[0])
        except Exception:
            return run(spec, serialized)  # raises with parse_example's batch wording
        return {k: v.reshape((1,) + v.shape) for k, v in one.items()}
    if spec and (serialized.__class__ is list or hasattr(serialized, "_tfn_views") or
                 hasattr(serialized, "_tfn_joined") or (
                     isinstance(serialized, np.ndarray) and serialized.ndim == 1 and
                     serialized.dtype == object)):
        return run(spec, serialized, example_names)
    from .io import _kinds  # VarLen / Sparse / Ragged, TensorFlow configs and tensors
    serialized = _kinds.as_input(serialized)
    features, kinds = _kinds.adopt(features)
    if kinds:
        _remember(features, False)
        return _kinds.parse_example(serialized, features, example_names)
    spec = get_spec(features)
    _remember(features, spec)
    if isinstance(serialized, (bytes, str)) or (
            isinstance(serialized, np.ndarray) and serialized.ndim == 0):
        # TensorFlow accepts a scalar too, giving outputs without the batch dimension.
        item = (serialized.reshape(-1).tolist()[0] if isinstance(serialized, np.ndarray)
                else serialized)
        return run(spec, [item], None if example_names is None else [example_names],
                   single=True)
    if isinstance(serialized, np.ndarray) and serialized.ndim > 1:
        raise ValueError("Shape must be rank 1 but is rank %d" % serialized.ndim)
    return run(spec, serialized, example_names)


def parse_single_example(serialized, features, example_names=None, name=None):
    """``tf.io.parse_single_example``: one serialized Example -> {key: array}."""
    if serialized.__class__ is _Symbol and isinstance(features, dict):
        from .io import _kinds  # lazy door: io/_kinds imports this module
        if _kinds.batchable(features) is not None:  # traced, run per record
            return _parse_single_per_record(serialized, features, example_names, name)
    return _parse_single(serialized, features, example_names, name)


def _parse_single_impl(serialized, features, example_names=None, name=None):
    if serialized.__class__ is bytes and example_names is None:
        spec = _fast_spec(features)
        if spec:
            return spec.parse_one(serialized)
    if not features:
        raise ValueError("Invalid argument: features cannot be empty.")
    from .io import _kinds  # VarLen / Sparse / Ragged, TensorFlow configs and tensors
    serialized = _kinds.as_input(serialized)
    features, kinds = _kinds.adopt(features)
    if kinds:
        _remember(features, False)
        return _kinds.parse_single_example(serialized, features, example_names)
    if isinstance(serialized, np.ndarray):
        if serialized.ndim != 0:
            raise ValueError("Input serialized must be a scalar")
        serialized = serialized.reshape(-1).tolist()[0]
    elif isinstance(serialized, (list, tuple)):
        raise ValueError("Input serialized must be a scalar")
    spec = get_spec(features)
    _remember(features, spec)
    if serialized.__class__ is bytes and example_names is None:
        return spec.parse_one(serialized)
    return run(spec, [serialized], None if example_names is None else [example_names],
               single=True)


_parse_single = traceable("parse_single_example", batch=_single_batch,
                          infer=_single_infer)(_parse_single_impl)
_parse_single_per_record = traceable(
    "parse_single_example of RaggedFeature row partitions (checked per record)",
    batch=None, infer=_single_infer)(_parse_single_impl)


def _parser_infer(parser, serialized, names=None):
    shape = serialized.spec.shape
    if shape is None or len(shape) != 1:
        raise _TraceError("Parser.parse() needs a 1-D batch of records")
    out = {}
    spec = parser._spec
    for c, od in zip(spec.configs, spec.out_dtype):
        dtype = object if od == lib.TFN_BYTES else _NP_OUT[od]
        rows = () if not c.seq else (spec.maxlen,)
        out[c.key] = _TSpec(dtype, tuple(shape) + rows + tuple(c.shape))
        if c.seq and spec.masks:
            out[c.key + "_mask"] = _TSpec(np.bool_, tuple(shape) + rows)
            out[c.key + "_length"] = _TSpec(np.int64, tuple(shape))
    return out


@traceable("Parser.parse", batch=None, infer=_parser_infer)
def _parser_parse(parser, serialized, names=None):
    return parser.parse(serialized, names)


class Parser:
    """The fast path: a compiled feature spec that parses whole batches straight into
    numpy arrays, in one C call per batch with the GIL released.

    Args:
      features: {key: FixedLenFeature | FixedLenSequenceFeature}, as for parse_example.
      int32: True to output every int64 feature as int32 (values range-checked), or a
        collection of keys to do it for.
      maxlen: pad or truncate every FixedLenSequenceFeature to this many rows (keeping
        the first rows) instead of the batch's longest.
      masks: also return ``key + "_mask"`` (bool, (n, rows)) and ``key + "_length"``
        (int64, real rows before truncation) for each FixedLenSequenceFeature.
      num_threads: split big batches over this many threads (each with its own C
        parser; the GIL is released while they run).
    """

    def __init__(self, features, int32=False, maxlen=None, masks=False, num_threads=1):
        if int32 is True:
            keys = tuple(k for k, f in features.items()
                         if _dt.as_dtype(f.dtype) is _dt.int64)
        elif not int32:
            keys = ()
        else:
            keys = tuple(int32)
        if maxlen is not None and int(maxlen) < 0:
            raise ValueError("maxlen must be >= 0, got %r" % (maxlen,))
        self._spec = get_spec(features, keys, None if maxlen is None else int(maxlen),
                              bool(masks))
        self.num_threads = max(1, int(num_threads or 1))
        self._pool = None
        self._init_args = (dict(features), int32 if int32 in (True, False) else keys,
                           maxlen, masks, num_threads)

    def __reduce__(self):
        # Pickles as its arguments (DataLoader workers started with spawn or
        # forkserver get a copy): the C spec is compiled again on load.
        return (Parser, self._init_args)

    def parse(self, serialized, names=None):
        """Parses a batch of serialized Examples -> {key: ndarray}."""
        if isinstance(serialized, _Symbol):  # in a traced tf.data function
            return _parser_parse(self, serialized, names)
        if self.num_threads > 1 and names is None:
            recs = _Records(serialized)
            if recs.n >= 64 * self.num_threads:
                return self._parse_threads(recs)
            return run(self._spec, recs, names, tensors=False)
        return run(self._spec, serialized, names, tensors=False)

    __call__ = parse

    def _parse_threads(self, recs):
        from concurrent.futures import ThreadPoolExecutor
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.num_threads)
        n, k = recs.n, self.num_threads
        bounds = [n * i // k for i in range(k + 1)]
        chunks = []
        for i in range(k):
            sub = _Records.__new__(_Records)
            sub.n = bounds[i + 1] - bounds[i]
            sub.views = recs.views + bounds[i]
            sub.keep = recs.keep
            chunks.append(sub)
        try:
            parts = list(self._pool.map(lambda r: run(self._spec, r, tensors=False), chunks))
        except Exception:
            # Re-run in one piece so that the message names the batch-wide index.
            return run(self._spec, recs, tensors=False)
        return _concat_parts(self._spec, parts)

    def close(self):
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None


def _concat_parts(spec, parts):
    out = {}
    for key in parts[0]:
        arrs = [p[key] for p in parts]
        if arrs[0].ndim >= 2 and any(a.shape[1:] != arrs[0].shape[1:] for a in arrs):
            rows = max(a.shape[1] for a in arrs)
            padded = []
            for a in arrs:
                if a.shape[1] < rows:
                    fill = _pad_value(spec, key, a)
                    pad = np.full((a.shape[0], rows - a.shape[1]) + a.shape[2:], fill,
                                  dtype=a.dtype)
                    a = np.concatenate([a, pad], axis=1)
                padded.append(a)
            arrs = padded
        out[key] = np.concatenate(arrs)
    return out


def _pad_value(spec, key, a):
    if key.endswith("_mask"):
        return False
    for c in spec.configs:
        if c.key == key and c.default is not None:
            return c.default[0]
    return b"" if a.dtype == object else 0


def parse_batch(serialized, features, int32=False, maxlen=None, masks=False,
                num_threads=1, names=None):
    """One-shot form of :class:`Parser` (the compiled spec is cached)."""
    return Parser(features, int32=int32, maxlen=maxlen, masks=masks,
                  num_threads=num_threads).parse(serialized, names)

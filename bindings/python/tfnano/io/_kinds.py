"""The feature kinds beyond FixedLen: VarLenFeature (-> SparseTensor), SparseFeature
and RaggedFeature (every partition, row_splits_dtype), parsed in the same C scan as
the FixedLen kinds, plus TensorFlow's own config objects and tensors as inputs.

Every VarLen-like key (a VarLenFeature, a SparseFeature's index and value keys, a
RaggedFeature's value and partition keys) is one TFN_VAR_LEN feature of the C spec:
the C parser gives its values back to back and the row splits; the SparseTensor /
RaggedTensor is assembled from those with whole-array numpy operations (no Python
object per row), following parsing_ops.py / parsing_config.py of TensorFlow 2.21.
"""
import collections
import math
import os
import threading

import numpy as np

from .. import errors
from .. import _c
from .._c import parse as _cparse
from .. import _parsing as _p
from .. import dtypes as _dt
from .._c.outbuf import Carver
from .._c.spec import CompiledSpec
from .._tensor import as_tensor

ffi = _c.ffi
lib = _c.lib

_DENSE_NAMES = ("FixedLenFeature", "FixedLenSequenceFeature")
_KIND_NAMES = ("VarLenFeature", "SparseFeature", "RaggedFeature")
_PARTITION_NAMES = ("RowSplits", "RowLengths", "RowStarts", "RowLimits", "ValueRowIds",
                    "UniformRowLength")


def _dtype(d):
    """tfnano DType of a tfnano / TensorFlow / numpy dtype (TF's by its name)."""
    if d is None or isinstance(d, _dt.DType):
        return d
    if type(d).__name__ == "DType" and hasattr(d, "name"):
        return _dt.as_dtype(d.name)
    return _dt.as_dtype(d)


# ----------------------------------------------------------------- configs

class SparseFeature(collections.namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"])):
    """``tf.io.SparseFeature(index_key, value_key, dtype, size, already_sorted=False)``:
    a SparseTensor whose indices come from the int64 feature(s) `index_key` and values
    from `value_key`; dense_shape is [batch] + size."""

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


class RaggedFeature(collections.namedtuple(
        "RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype",
                          "validate"])):
    """``tf.io.RaggedFeature(dtype, value_key=None, partitions=(), row_splits_dtype=
    tf.int32, validate=False)``: a RaggedTensor from the values of `value_key` (the
    feature's own key when None), partitioned (outermost first) by `partitions`."""

    RowSplits = collections.namedtuple("RowSplits", ["key"])
    RowLengths = collections.namedtuple("RowLengths", ["key"])
    RowStarts = collections.namedtuple("RowStarts", ["key"])
    RowLimits = collections.namedtuple("RowLimits", ["key"])
    ValueRowIds = collections.namedtuple("ValueRowIds", ["key"])
    UniformRowLength = collections.namedtuple("UniformRowLength", ["length"])

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=_dt.int32,
                validate=False):
        if value_key is not None and not isinstance(value_key, str):
            raise ValueError("Argument `value_key` must be a string; got %r" % (value_key,))
        dt = _dtype(dtype)
        if dt not in (_dt.int64, _dt.float32, _dt.string):
            raise ValueError("Argument `dtype` must be int64, float32, or bytes; got %r"
                             % (dtype,))
        rsd = _dtype(row_splits_dtype)
        if rsd not in (_dt.int32, _dt.int64):
            raise ValueError("Argument `row_splits_dtype` must be int32 or int64; got %r"
                             % (row_splits_dtype,))
        if not isinstance(partitions, (list, tuple)):
            raise TypeError("Argument `partitions` must be a list or tuple. Received"
                            "partitions=%s of type %s." % (partitions,
                                                           type(partitions).__name__))
        for p in partitions:
            if type(p).__name__ not in _PARTITION_NAMES:
                raise TypeError("Argument `partitions` must be a list of partition "
                                "objects %s; got: %r" % (list(_PARTITION_NAMES), p))
        if not isinstance(validate, bool):
            raise TypeError("Argument `validate` must be a bool; got %r" % (validate,))
        return super().__new__(cls, dtype, value_key, partitions, row_splits_dtype,
                               validate)


def adopt(features):
    """TensorFlow's FixedLen configs become tfnano's; returns (features, has_kinds):
    has_kinds tells whether a VarLen / Sparse / Ragged feature is present."""
    if not features or not hasattr(features, "items"):
        return features, False
    out = None
    kinds = False
    for key, f in features.items():
        cls = type(f)
        if cls is _p.FixedLenFeature or cls is _p.FixedLenSequenceFeature:
            continue
        name = cls.__name__
        if name in _KIND_NAMES:
            kinds = True
            continue
        if name == "FixedLenFeature":
            g = _p.FixedLenFeature(f.shape, _dtype(f.dtype), f.default_value)
        elif name == "FixedLenSequenceFeature":
            g = _p.FixedLenSequenceFeature(f.shape, _dtype(f.dtype), f.allow_missing,
                                           f.default_value)
        else:
            continue
        if out is None:
            out = dict(features)
        out[key] = g
    return (features if out is None else out), kinds


def as_input(serialized):
    """A TensorFlow tensor (string) becomes its numpy value; numpy 'S' / 'U' arrays
    become object arrays (so that bytes keep their trailing NULs where they can)."""
    if serialized is None or isinstance(serialized, (bytes, str, list)):
        return serialized
    if not isinstance(serialized, np.ndarray) and hasattr(serialized, "numpy") and \
            type(serialized).__module__.startswith("tensorflow"):
        serialized = serialized.numpy()
    if isinstance(serialized, np.ndarray) and serialized.dtype.kind in "SU":
        serialized = serialized.astype(object)
    return serialized


# ----------------------------------------------------------------- the plan

class _Plan:
    """What one features dict needs: the C spec (dense configs first, then the
    VarLen-like keys) and how to assemble each output."""

    def __init__(self, features):
        keys = sorted(features)
        for k in keys:
            if not isinstance(k, str):
                raise TypeError("Feature keys must be str, got %r" % (k,))
        dense = {}
        sparse = collections.OrderedDict()  # key -> dtype
        ragged = collections.OrderedDict()  # key -> (dtype, splits dtype)

        def add_sparse(key, dt):
            if key in sparse and sparse[key] is not dt:
                raise ValueError("Conflicting type %s vs %s for feature %s."
                                 % (_tf_repr(sparse[key]), _tf_repr(dt), key))
            sparse[key] = dt

        def add_ragged(key, dt, sdt):
            if key in ragged:
                if ragged[key][0] is not dt:
                    raise ValueError("Conflicting type %s vs %s for feature %s."
                                     % (_tf_repr(ragged[key][0]), _tf_repr(dt), key))
                if ragged[key][1] is not sdt:
                    raise ValueError("Conflicting partition type %s vs %s for feature %s."
                                     % (_tf_repr(ragged[key][1]), _tf_repr(sdt), key))
            ragged[key] = (dt, sdt)

        self.outputs = []  # (key, kind, feature)
        for key in keys:
            f = features[key]
            name = type(f).__name__
            if name == "VarLenFeature":
                dt = _dtype(f.dtype)
                if not dt:
                    raise ValueError("Missing type for feature %s. Received feature=%s."
                                     % (key, f))
                add_sparse(key, dt)
                self.outputs.append((key, "varlen", f))
            elif name == "SparseFeature":
                idx = [f.index_key] if isinstance(f.index_key, str) else list(f.index_key)
                if not f.index_key:
                    raise ValueError("Missing index_key for SparseFeature %s." % (f,))
                if not f.value_key:
                    raise ValueError("Missing value_key for SparseFeature %s." % (f,))
                if not f.dtype:
                    raise ValueError("Missing type for feature %s. Received feature=%s."
                                     % (key, f))
                for ik in idx:
                    add_sparse(ik, _dt.int64)
                add_sparse(f.value_key, _dtype(f.dtype))
                self.outputs.append((key, "sparse", f))
            elif name == "RaggedFeature":
                sdt = _dtype(f.row_splits_dtype)
                vk = key if f.value_key is None else f.value_key
                add_ragged(vk, _dtype(f.dtype), sdt)
                for part in f.partitions:
                    if type(part).__name__ != "UniformRowLength":
                        add_ragged(part.key, _dt.int64, sdt)
                self.outputs.append((key, "ragged", f))
            elif name in _DENSE_NAMES:
                dense[key] = f
                self.outputs.append((key, "dense", f))
            else:
                raise ValueError("Unsupported %s %s for key '%s'" % (name, f, key))
        dset, sset, rset = set(dense), set(sparse), set(ragged)
        for a, b, an, bn, al, bl in (
                (dset, sset, "Dense", "sparse", dense, sparse),
                (dset, rset, "Dense", "ragged", dense, ragged),
                (rset, sset, "Ragged", "sparse", ragged, sparse)):
            if not a.isdisjoint(b):
                raise ValueError("%s and %s keys must not intersect; %s_keys: %s, %s_keys: "
                                 "%s, intersection: %s"
                                 % (an, bn, an.lower(), list(al), bn, list(bl), a & b))
        self.dense = _p._validate(dense) if dense else []
        self.var = [(k, dt) for k, dt in sparse.items()] + \
                   [(k, v[0]) for k, v in ragged.items()]
        self.var_index = {k: len(self.dense) + i for i, (k, _) in enumerate(self.var)}
        # The result dict in TensorFlow's key order: VarLen, dense (FixedLen and
        # FixedLenSequence), Ragged, then SparseFeature keys, each group sorted.
        rank = {"varlen": 0, "dense": 1, "ragged": 2, "sparse": 3}
        self.outputs.sort(key=lambda o: (rank[o[1]], o[0]))
        self.sparse_out = {k for k, kind, _ in self.outputs if kind == "varlen"}
        self._compile()

    def _compile(self):
        n = len(self.dense) + len(self.var)
        cfg = ffi.new("tfn_feature_config[]", n)
        keep = []
        for i, c in enumerate(self.dense):
            _p.fill_dense_config(cfg[i], c, keep)
        for m, (key, dt) in enumerate(self.var):
            i = len(self.dense) + m
            kb = ffi.new("char[]", key.encode("utf-8"))
            keep.append(kb)
            cfg[i].key, cfg[i].key_len = kb, len(key.encode("utf-8"))
            cfg[i].type = lib.TFN_VAR_LEN
            if dt.name not in _cparse.NATIVE_DTYPE:
                raise errors.invalid("Value for attr 'sparse_types' of %s is not in the list of "
                                      "allowed values: float, int64, string"
                                      % _p._TF_NAMES.get(dt.name, dt.name))
            cfg[i].dtype = _cparse.NATIVE_DTYPE[dt.name]
        self.compiled = CompiledSpec(cfg, n)
        self.spec, self.strides = self.compiled.spec, self.compiled.strides

    def parser(self):
        return self.compiled.parser()


def _tf_repr(dt):
    return "<dtype: %r>" % dt.name


_CACHE = collections.OrderedDict()
_CACHE_LOCK = threading.Lock()


def _plan_key(features):
    try:
        return tuple(sorted((k, type(f).__name__, repr(tuple(f))) for k, f in features.items()))
    except Exception:
        return None


def get_plan(features):
    key = _plan_key(features)
    if key is not None:
        with _CACHE_LOCK:
            plan = _CACHE.get(key)
            if plan is not None:
                _CACHE.move_to_end(key)
                return plan
    plan = _Plan(features)
    if key is not None:
        with _CACHE_LOCK:
            _CACHE[key] = plan
            while len(_CACHE) > 64:
                _CACHE.popitem(last=False)
    return plan


# ----------------------------------------------------------------- parsing

def _scan_fill(plan, serialized, names, single, seq_lengths=False):
    """One C scan + fill: dense arrays and (values, row_splits) per VarLen key. Numeric
    outputs are carved from one pooled block (see _outbuf: reused memory spares the
    page faults of fresh arrays)."""
    recs = _p._Records(serialized)
    n = recs.n
    names_v, _keep_names = _p._names_views(names, n)
    p = plan.parser()
    err = _c.new_error()
    flags = lib.TFN_PARSE_SINGLE if single else lib.TFN_PARSE_BATCH
    rc = lib.tfn_parser_scan(p, recs.views, n, names_v, flags, err)
    if rc < 0:
        raise _cparse.parse_error(rc, err)
    nd = len(plan.dense)
    outs = ffi.new("tfn_output[]", nd + len(plan.var))
    carver = Carver()
    dense, keep_lengths = {}, []
    layout = []  # (target, key, carver index or views, count, shape)
    for j, c in enumerate(plan.dense):
        if c.seq:
            rows = lib.tfn_parser_max_rows(p, j)
            shape = (n, rows) + tuple(c.shape)
        else:
            shape = (n,) + tuple(c.shape)
        count = math.prod(shape)
        outs[j].capacity = count
        outs[j].max_rows = -1
        if c.seq and seq_lengths:  # each example's rows, from the fill
            lengths = np.empty(n, np.int64)
            outs[j].lengths = ffi.cast("int64_t *", ffi.from_buffer(lengths)) if n else \
                ffi.NULL
            keep_lengths.append(lengths)
            dense[c.key + "\0lengths"] = lengths
        if c.dtype is _dt.string:
            layout.append(("dense", c.key, None, count, shape))
        else:
            npt = _cparse.NP_OUT[_cparse.NATIVE_DTYPE[c.dtype.name]]
            layout.append(("dense", c.key, carver.add(shape, npt), count, shape))
    for m, (key, dt) in enumerate(plan.var):
        total = lib.tfn_parser_total(p, nd + m)
        outs[nd + m].capacity = total
        idx = carver.add((total, 2), np.int64) if key in plan.sparse_out and not single \
            else None
        splits = carver.add((n + 1,), np.int64)
        vals = None if dt is _dt.string else carver.add((total,), dt.as_numpy_dtype)
        layout.append(("var", key, (vals, splits, idx), total, (total,)))
    arrays = carver.arrays()
    var, post, keep = {}, [], []
    spare = ffi.new("int64_t[2]")  # for empty outputs: C needs a non-NULL pointer
    for j, (kind, key, where, count, shape) in enumerate(layout):
        if kind == "var":
            vals, splits, idx = where
            where = vals
            sp = arrays[splits]
            _c.check(lib.tfn_parser_row_splits(p, j, ffi.cast("int64_t *", ffi.from_buffer(
                sp)), err), err)
            var[key + "\0splits"] = sp
            if idx is not None:
                ia = arrays[idx]
                _c.check(lib.tfn_parser_sparse_indices(
                    p, j, ffi.cast("int64_t *", ffi.from_buffer(ia)) if count else spare,
                    err), err)
                var[key + "\0indices"] = ia
        target = dense if kind == "dense" else var
        if where is None:  # bytes: views into the records, copied out after the fill
            views = np.zeros((max(count, 1), 2), dtype=np.uint64)
            outs[j].values = ffi.from_buffer(views)
            post.append((target, key, views, count, shape))
        else:
            arr = arrays[where]
            outs[j].values = ffi.from_buffer(arr) if arr.size else spare
            target[key] = arr
        keep.append(outs[j].values)
    _fill(p, outs, [c for _, _, _, c, _ in layout], err)
    for target, key, views, count, shape in post:
        target[key] = _cparse.bytes_objects(views[:count], count).reshape(shape)
    del keep, recs
    return n, dense, var


# A batch with this many values or more is filled on two threads (tfn_parser_fill only
# reads the scanned parser, so fills of disjoint outputs may run at once): below it
# handing work to a thread costs more than it saves. The handover costs about 60 us of
# CPU (measured on a loaded 2-core machine); int64 token ids fill at about 0.7 ns a
# value, so a W1 batch of 256 (137k values) stays on one thread.
_SPLIT_VALUES = 1 << 18
_FILL_POOL = []


def _fill(p, outs, counts, err):
    """tfn_parser_fill of every output, split by feature over the caller and one worker
    thread (the GIL is released in C) when the batch is big and two cores are usable."""
    if sum(counts) < _SPLIT_VALUES or sum(1 for c in counts if c) < 2 or not _two_cores():
        rc = lib.tfn_parser_fill(p, outs, err)
        if rc < 0:
            raise _cparse.parse_error(rc, err)
        return
    nf = len(counts)
    mine, theirs = ffi.new("tfn_output[]", nf), ffi.new("tfn_output[]", nf)
    load = [0, 0]
    for j in sorted(range(nf), key=lambda j: -counts[j]):  # greedy balance by values
        side = 0 if load[0] <= load[1] else 1
        load[side] += counts[j] + 1
        (mine if side == 0 else theirs)[j] = outs[j]
    err2 = _c.new_error()
    if not _FILL_POOL:
        from concurrent.futures import ThreadPoolExecutor
        _FILL_POOL.append(ThreadPoolExecutor(1, thread_name_prefix="tfnano-fill"))
    job = _FILL_POOL[0].submit(lib.tfn_parser_fill, p, theirs, err2)
    rc = lib.tfn_parser_fill(p, mine, err)
    rc2 = job.result()
    if rc < 0:  # (the kinds' outputs have no int32 range checks: fills do not fail)
        raise _cparse.parse_error(rc, err)
    if rc2 < 0:
        raise _cparse.parse_error(rc2, err2)


_CORES = []


def _two_cores():
    if not _CORES:
        try:
            _CORES.append(len(os.sched_getaffinity(0)) >= 2)
        except (AttributeError, OSError):
            _CORES.append((os.cpu_count() or 1) >= 2)
    return _CORES[0]


def _sparse_from(values, splits, single, indices=None):
    from ..sparse import SparseTensor
    lengths = np.diff(splits)
    total = len(values)
    if indices is not None and not single:
        n = len(lengths)
        width = int(lengths.max()) if n and total else 0
        return SparseTensor._make(indices, values, np.asarray([n, width], dtype=np.int64))
    if single:
        idx = np.arange(total, dtype=np.int64).reshape(-1, 1)
        return SparseTensor(idx, values, np.asarray([total], dtype=np.int64))
    n = len(lengths)
    rowids = np.repeat(np.arange(n, dtype=np.int64), lengths)
    pos = np.arange(total, dtype=np.int64) - splits[:-1][rowids]
    idx = np.empty((total, 2), dtype=np.int64)
    idx[:, 0] = rowids
    idx[:, 1] = pos
    width = int(lengths.max()) if n and total else 0
    return SparseTensor(idx, values, np.asarray([n, width], dtype=np.int64))


def _sparse_feature(key, f, var, n, single):
    """TF's sparse_merge of the index key(s) and the value key."""
    from ..sparse import SparseTensor, reorder
    idx_keys = [f.index_key] if isinstance(f.index_key, str) else list(f.index_key)
    values = var[f.value_key]
    sizes = [f.size] if np.ndim(f.size) == 0 else list(f.size)
    cols = []
    for ik in idx_keys:
        ids = var[ik]
        if len(ids) != len(values):  # TF's static shape check of the merge
            raise ValueError("Dimensions %d and %d are not compatible"
                             % (len(ids), len(values)))
        cols.append(ids.astype(np.int64))
    if single:
        ind = np.stack(cols, axis=1) if cols else np.zeros((len(values), 0), np.int64)
        shape = np.asarray(sizes, dtype=np.int64)
    else:
        # TF keeps the example ids of the first index key's entries
        lengths = np.diff(var[idx_keys[0] + "\0splits"])
        rowids = np.repeat(np.arange(n, dtype=np.int64), lengths)
        ind = np.stack([rowids] + cols, axis=1)
        shape = np.asarray([n] + [int(s) for s in sizes], dtype=np.int64)
    sp = SparseTensor(ind, values, shape)
    if not f.already_sorted:
        sp = reorder(sp)
    if single:  # TensorFlow's static spec shows the size (padded_batch's TypeError)
        sp._tfn_static = tuple(int(d) for d in sizes)
    return sp


def _ragged_feature(key, f, var, n, single):
    from ..ragged import RaggedTensor
    sdt = np.dtype(_dtype(f.row_splits_dtype).as_numpy_dtype)
    vk = key if f.value_key is None else f.value_key
    values = var[vk]
    validate = bool(f.validate)
    if single:
        rt = values
        for part in reversed(f.partitions):
            rt = _single_partition(rt, part, var, sdt, validate)
        return rt if isinstance(rt, RaggedTensor) else as_tensor(rt)
    rt = RaggedTensor(values, as_tensor(var[vk + "\0splits"].astype(sdt)))
    for part in reversed(f.partitions):
        rt = _batched_partition(rt, part, var, key, validate, sdt)
    return rt


def _single_partition(values, part, var, sdt, validate):
    from ..ragged import RaggedTensor
    name = type(part).__name__
    if name == "UniformRowLength":
        length = int(part.length)
        if isinstance(values, RaggedTensor):
            return RaggedTensor.from_uniform_row_length(values, np.asarray(length, sdt),
                                                        validate=True)
        return _reshape_rows(np.asarray(values), length)
    t = var[part.key].astype(sdt)
    make = {"RowSplits": RaggedTensor.from_row_splits,
            "RowLengths": RaggedTensor.from_row_lengths,
            "RowStarts": RaggedTensor.from_row_starts,
            "RowLimits": RaggedTensor.from_row_limits,
            "ValueRowIds": RaggedTensor.from_value_rowids}[name]
    return make(values, t, validate=True)


def _reshape_rows(vals, length):
    """TF's reshape(values, [-1, length] + shape(values)[1:]) of a UniformRowLength,
    with its error text (counted in elements)."""
    step = length * math.prod(vals.shape[1:])
    if length <= 0 or step <= 0 or vals.size % step:
        raise errors.invalid("Input to reshape is a tensor with %d values, but the requested "
                              "shape requires a multiple of %d" % (vals.size, step))
    return vals.reshape((-1, length) + vals.shape[1:])


def _batched_partition(rt, part, var, key, validate, sdt):
    """TF's _add_batched_ragged_partition, on whole arrays, through the same RaggedTensor
    factories (so a partition that cannot form a RaggedTensor fails with TensorFlow's
    texts). Row partitions are always checked: with validate=False TensorFlow builds an
    invalid tensor instead; UniformRowLength is checked only with validate=True."""
    from ..ragged import RaggedTensor
    name = type(part).__name__
    splits = rt.row_splits.view(np.ndarray).astype(sdt)
    if name == "UniformRowLength":
        length = int(part.length)
        if isinstance(rt._values, RaggedTensor):
            inner = RaggedTensor.from_uniform_row_length(rt._values, np.asarray(length, sdt),
                                                         validate=validate)
        else:
            inner = _reshape_rows(np.asarray(rt._values), length)
        outer = splits // length if length > 0 else np.zeros_like(splits)
        if validate:
            return RaggedTensor.from_row_splits(inner, outer, validate=True)
        return RaggedTensor(inner, as_tensor(outer))  # as TF: alignment unchecked
    pvals = var[part.key].astype(sdt)
    psplits = var[part.key + "\0splits"].astype(np.int64)
    plengths = np.diff(psplits)
    if name == "RowSplits":  # TF drops each example's first split, unchecked
        keep = np.ones(len(pvals), dtype=bool)
        keep[psplits[:-1][plengths > 0]] = False
        pvals = pvals[keep]
        plengths = np.maximum(plengths - 1, 0)
        psplits = np.zeros(len(plengths) + 1, np.int64)
        np.cumsum(plengths, out=psplits[1:])
    outer = as_tensor(psplits.astype(sdt))
    if name in ("RowSplits", "RowLimits", "RowStarts"):
        starts = splits[:-1]
        if len(starts) != len(plengths):  # (sequence steps: one row per step)
            if len(plengths) != 1:
                raise ValueError("Dimensions %d and %d are not compatible"
                                 % (len(starts), len(plengths)))
            plengths = np.full(len(starts), plengths[0])  # tf.repeat broadcasts one count
        rep = np.repeat(starts, plengths).astype(sdt)
        if len(pvals) != len(rep) and 1 not in (len(pvals), len(rep)):
            raise errors.invalid("Incompatible shapes: [%d] vs. [%d]" % (len(pvals), len(rep)))
        adjusted = pvals + rep
        make = RaggedTensor.from_row_starts if name == "RowStarts" else \
            RaggedTensor.from_row_limits
        return RaggedTensor(make(rt._values, adjusted, validate=True), outer)
    if name == "RowLengths":
        return RaggedTensor(RaggedTensor.from_row_lengths(rt._values, pvals, validate=True),
                            outer)
    if name == "ValueRowIds":
        n = len(plengths)
        # rows of each example: its largest id + 1 (an example without ids: 0)
        per_max = np.full(n, np.iinfo(sdt).min, dtype=np.int64)
        if len(pvals):
            np.maximum.at(per_max, np.repeat(np.arange(n), plengths), pvals.astype(np.int64))
        nrows = np.maximum(per_max + 1, 0).astype(sdt)
        offsets = np.zeros(n, sdt)
        if n:
            np.cumsum(nrows[:-1], out=offsets[1:])
        adjusted = pvals + np.repeat(offsets, plengths)
        inner = RaggedTensor.from_value_rowids(rt._values, adjusted, validate=True)
        return RaggedTensor.from_row_lengths(inner, nrows, validate=True)
    raise ValueError("Unhandled partition type %r" % (part,))


def parse(serialized, features, names=None, single=False):
    """Parses with any mix of feature kinds; returns {key: Tensor | SparseTensor |
    RaggedTensor} as tf.io.parse_example / parse_single_example."""
    plan = get_plan(features)
    n, dense, var = _scan_fill(plan, serialized, names, single)
    made = {}
    # SparseFeatures and RaggedFeatures are built in key order, as TensorFlow's
    # _construct_tensors_for_composite_features does (so its first error is raised);
    # the dict is then in TensorFlow's output order
    for key, kind, f in sorted(plan.outputs, key=lambda o: o[0]):
        if kind == "dense":
            a = dense[key]
            made[key] = as_tensor(a.reshape(a.shape[1:]) if single else a)
        elif kind == "varlen":
            made[key] = _sparse_from(var[key], var[key + "\0splits"], single,
                                     var.get(key + "\0indices"))
        elif kind == "sparse":
            made[key] = _sparse_feature(key, f, var, n, single)
        else:
            made[key] = _ragged_feature(key, f, var, n, single)
    return {key: made[key] for key, _, _ in plan.outputs}


def parse_example(serialized, features, example_names=None):
    if isinstance(serialized, (bytes, str)) or (
            isinstance(serialized, np.ndarray) and serialized.ndim == 0):
        item = (serialized.reshape(-1).tolist()[0] if isinstance(serialized, np.ndarray)
                else serialized)
        return parse([item], features, None if example_names is None else [example_names],
                     single=True)
    if isinstance(serialized, np.ndarray) and serialized.ndim > 1:
        raise ValueError("Shape must be rank 1 but is rank %d" % serialized.ndim)
    return parse(serialized, features, example_names)


def parse_single_example(serialized, features, example_names=None):
    if isinstance(serialized, np.ndarray):
        if serialized.ndim != 0:
            raise ValueError("Input serialized must be a scalar")
        serialized = serialized.reshape(-1).tolist()[0]
    elif isinstance(serialized, (list, tuple)):
        raise ValueError("Input serialized must be a scalar")
    return parse([serialized], features, None if example_names is None else [example_names],
                 single=True)


# ----------------------------------------------------------------- traced map

def _np_dtype(dt):
    dt = _dtype(dt)
    return np.dtype(object) if dt is _dt.string else np.dtype(dt.as_numpy_dtype)


def _ragged_layout(f):
    """(ragged partitions, inner dense shape) of a RaggedFeature's single-example
    result: trailing UniformRowLength partitions (applied first) reshape the values;
    a RaggedFeature with no other partition gives a dense tensor."""
    parts = list(f.partitions)
    inner = []
    while parts and type(parts[-1]).__name__ == "UniformRowLength":
        inner.insert(0, int(parts.pop().length))
    return parts, tuple(inner)


def batchable(features):
    """None when parse_single_example of these features has a batched form in a
    traced map, else the reason (the graph then runs per record)."""
    for key, f in features.items():
        if type(f).__name__ == "RaggedFeature" and _ragged_layout(f)[0]:
            return ("RaggedFeature %r has row partitions, which are checked per record"
                    % (key,))
    return None


def trace_specs(features, lead):
    """{key: Spec | CompositeSpec} of parse outputs with kinds; `lead` is () for
    parse_single_example, the batch shape for parse_example."""
    from .._trace import CompositeSpec, Spec
    from . import _traced_kinds  # noqa: F401  (ops on the traced values)
    from .. import sparse  # noqa: F401  (registers the traced SparseTensor ops)
    plan = get_plan(features)
    lead = tuple(lead)
    single = not lead
    dense = {c.key: c for c in plan.dense}
    out = {}
    for key, kind, f in plan.outputs:
        if kind == "dense":
            c = dense[key]
            out[key] = Spec(_np_dtype(c.dtype), lead + ((None,) if c.seq else ()) +
                            tuple(c.shape))
        elif kind == "varlen":
            out[key] = CompositeSpec("sparse", _np_dtype(f.dtype), lead + (None,))
        elif kind == "sparse":
            sizes = [f.size] if np.ndim(f.size) == 0 else list(f.size)
            out[key] = CompositeSpec("sparse", _np_dtype(f.dtype), lead + tuple(
                None if d is None else int(d) for d in sizes))
        else:
            parts, inner = _ragged_layout(f)
            dt, sdt = _np_dtype(f.dtype), _np_dtype(f.row_splits_dtype)
            if single and not parts:
                out[key] = Spec(dt, (None,) + inner)
            else:
                out[key] = CompositeSpec("ragged", dt, lead + (None,) * (len(parts) + 1) +
                                         inner, len(parts) + len(lead), sdt)
    return out


def _rows_padded(values, splits, inner, key):
    """Each example's values as rows of `inner` shape, padded to the longest
    (0 / b""): ([n, rows, *inner], rows per example). An example whose count is not
    a multiple of the row size raises (its own parse raises TensorFlow's error)."""
    counts = np.diff(splits)
    n = len(counts)
    size = math.prod(inner)
    if size <= 0 or (counts % size).any():
        raise errors.invalid("Feature %s: values do not fill whole rows of %s" % (key, inner))
    rows = counts // size
    width = int(counts.max()) if n else 0
    shape = (n, width)
    out = np.full(shape, b"", object) if values.dtype == object else np.zeros(shape,
                                                                             values.dtype)
    if len(values):
        rowid = np.repeat(np.arange(n), counts)
        out[rowid, np.arange(len(values)) - splits[:-1][rowid]] = values
    return out.reshape((n, width // size if size else 0) + inner), rows


def parse_records_batched(serialized, features, names, int32_keys, sink):
    """parse_single_example of each record, for a whole batch at once: what tf.data's
    batch makes of the per-record results. SparseTensors and RaggedTensors are the
    batched parse's (equal to batching the single ones); dense per-record results
    whose size varies (FixedLenSequence, RaggedFeature without row partitions) come
    padded, with each record's rows recorded in `sink` (the tracer's lengths table)
    so that batch can check them and padded_batch re-pad them."""
    plan = get_plan(features)
    if names is not None:
        names = [names] * _p._Records(serialized).n
    n, dense, var = _scan_fill(plan, serialized, names, False, seq_lengths=True)
    configs = {c.key: c for c in plan.dense}
    out = {}

    def emit(key, arr, lengths=None):
        if key in int32_keys and arr.dtype == np.int64:
            arr = arr.astype(np.int32)  # a folded tf.cast: wraps as tf.cast does
        if lengths is not None and sink is not None:
            sink[(arr.__array_interface__["data"][0], arr.shape)] = lengths
        out[key] = as_tensor(arr)

    for key, kind, f in sorted(plan.outputs, key=lambda o: o[0]):  # errors in key order
        if kind == "dense":
            emit(key, dense[key], dense[key + "\0lengths"] if configs[key].seq else None)
        elif kind == "varlen":
            out[key] = _sparse_from(var[key], var[key + "\0splits"], False,
                                    var.get(key + "\0indices"))
        elif kind == "sparse":
            out[key] = _sparse_feature(key, f, var, n, False)
        else:
            vk = key if f.value_key is None else f.value_key
            arr, rows = _rows_padded(var[vk], var[vk + "\0splits"],
                                     _ragged_layout(f)[1], key)
            emit(key, arr, rows)
    return {key: out[key] for key, _, _ in plan.outputs}


def _trace_error():
    from .._trace import TraceError
    return TraceError


class KindsNotDense(_trace_error(), ValueError):
    """Raised where only FixedLen kinds are compiled (tfnano.Parser and the C pipeline
    engine): a TraceError too (a ValueError for Parser's callers)."""

    def __init__(self, features):
        keys = sorted(k for k, f in features.items() if type(f).__name__ in _KIND_NAMES)
        super().__init__("features %s are VarLen / Sparse / Ragged, which tfnano.Parser "
                         "and the C pipeline engine do not take (tf.io.parse_example and "
                         "parse_single_example do, in a traced map too)" % keys)

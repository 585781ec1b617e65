"""``tf.io.parse_sequence_example`` / ``parse_single_sequence_example``: context
features (every Example kind, read by the Example parser from field 1 of the same
bytes) and sequence features (FixedLenSequenceFeature, VarLenFeature, RaggedFeature)
from the feature lists, read for the whole batch by one C call (tfn_sequence_lists)
and shaped with whole-array numpy operations."""
import re

import numpy as np

from .. import errors
from .. import _parsing as _p
from .._c import parse as _cparse
from .. import dtypes as _dt
from .._tensor import as_tensor
from ..ragged import _check_equal
from . import _kinds


def _check_sequence_features(features):
    out = []
    for key in sorted(features):
        f = features[key]
        name = type(f).__name__
        if name not in ("FixedLenSequenceFeature", "VarLenFeature", "RaggedFeature"):
            raise ValueError("Unsupported %s %s for key '%s'" % (name, f, key))
        dt = _kinds._dtype(f.dtype)
        if dt is None:
            raise ValueError("Missing type for feature %s. Received feature=%s." % (key, f))
        if dt.name not in _cparse.NATIVE_DTYPE:
            raise errors.invalid("Value for attr 'feature_list_dense_types' of %s is not in the "
                                  "list of allowed values: float, int64, string"
                                  % _p._TF_NAMES.get(dt.name, dt.name))
        if name == "FixedLenSequenceFeature" and f.default_value is not None:
            raise ValueError("Value feature_list.dense_defaults[%s] must be None" % key)
        out.append((key, name, f, dt))
    return out


def _list_reads(configs):
    """The feature lists to read for the configs: (read key, dtype) once each; a
    RaggedFeature reads its value_key and its partition keys (int64)."""
    reads = {}

    def want(k, dt):
        if reads.setdefault(k, dt).name != dt.name:
            raise ValueError("Sequence feature list '%s' is read both as %s and as %s"
                             % (k, reads[k].name, dt.name))
    for key, name, f, dt in configs:
        if name != "RaggedFeature":
            want(key, dt)
            continue
        want(key if f.value_key is None else f.value_key, dt)
        for part in f.partitions:
            if type(part).__name__ != "UniformRowLength":
                want(part.key, _dt.int64)
    return list(reads.items())


# (key, dtype) -> (steps, values) per record seen last time: the first guess of the
# room for a batch, so that most batches need a single pass over the bytes.
_PER_RECORD = {}


def _read_lists(recs, names_v, configs):
    """The feature lists of the batch (tfnano._c.parse.sequence_lists)."""
    return _cparse.sequence_lists(recs, names_v, configs, _PER_RECORD)


def _name(names, i):
    if names is None:
        return "<unknown>"
    v = names[i]
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


def _dense_problem(key, f, ex_splits, st_splits, present, names):
    """TF's first error for a FixedLenSequence feature list, as (example, message), or
    None: a required list missing, or a step without exactly prod(shape) values."""
    shape = tuple(_p._as_shape(f.shape))
    stride = int(np.prod(shape, dtype=np.int64)) if shape else 1
    n = len(ex_splits) - 1
    # before any step, TF checks the longest list's value count against the step shape
    per_example = st_splits[ex_splits[1:]] - st_splits[ex_splits[:-1]] if n else []
    most = int(np.max(per_example)) if n else 0
    if stride and most % stride:
        return (0, 0, "Feature list '%s' has an unexpected number of values.  Total values "
                   "size: %d is not consistent with output shape: [%s]"
                % (key, most, ",".join(["?"] + [str(d) for d in shape])))
    found = []
    if not getattr(f, "allow_missing", False) and n and not present.all():
        i = int(np.argmin(present))
        found.append((i, 1, "Name: %s, Feature list '%s' is required but could not be found.  "
                         "Did you mean to include it in "
                         "feature_list_dense_missing_assumed_empty or "
                         "feature_list_dense_defaults?" % (_name(names, i), key)))
    step_len = np.diff(st_splits)
    bad = np.nonzero(step_len != stride)[0]
    if bad.size:
        s = int(bad[0])
        i = int(np.searchsorted(ex_splits, s, side="right") - 1)
        found.append((i, 0, "Name: %s, Key: %s, Index: %d.  Number of values != expected.  "
                         "values size: %d but output shape: [%s]"
                         % (_name(names, i), key, s - int(ex_splits[i]), int(step_len[s]),
                            ",".join(str(d) for d in shape))))
    # TF walks the examples in order: the first one whose list is missing or has a
    # step of the wrong size
    return min(found, key=lambda p: p[0]) if found else None


def _dense_list(key, f, dt, ex_splits, st_splits, values, present, names, single):
    shape = tuple(_p._as_shape(f.shape))
    n = len(ex_splits) - 1
    lengths = np.diff(ex_splits)
    steps_max = int(lengths.max()) if n else 0
    total = len(st_splits) - 1
    values = np.asarray(values)
    if total == n * steps_max:  # every example has the longest length: no padding
        out = values.reshape((n, steps_max) + shape)
    else:
        if dt is _dt.string:
            out = np.full((n, steps_max) + shape, b"", dtype=object)
        else:
            out = np.zeros((n, steps_max) + shape, dtype=dt.as_numpy_dtype)
        if total:
            ex = np.repeat(np.arange(n), lengths)
            pos = np.arange(total) - ex_splits[:-1][ex]
            out[ex, pos] = values.reshape((total,) + shape)
    if single:
        return as_tensor(out[0]), None
    return as_tensor(out), as_tensor(lengths.astype(np.int64))


def _sparse_list(values, ex_splits, st_splits, single):
    from ..sparse import SparseTensor
    n = len(ex_splits) - 1
    total_steps = len(st_splits) - 1
    step_len = np.diff(st_splits)
    nvals = len(values)
    step_of = np.repeat(np.arange(total_steps, dtype=np.int64), step_len)
    pos = np.arange(nvals, dtype=np.int64) - st_splits[:-1][step_of]
    ex_of_step = np.repeat(np.arange(n, dtype=np.int64), np.diff(ex_splits))
    step_in_ex = np.arange(total_steps, dtype=np.int64) - ex_splits[:-1][ex_of_step]
    max_steps = int(np.diff(ex_splits).max()) if n else 0
    max_vals = int(step_len.max()) if total_steps else 0
    if single:
        idx = np.stack([step_in_ex[step_of], pos], axis=1) if nvals else np.zeros((0, 2),
                                                                                  np.int64)
        return SparseTensor(idx, values, np.asarray([max_steps, max_vals], np.int64))
    idx = np.stack([ex_of_step[step_of], step_in_ex[step_of], pos], axis=1) if nvals else \
        np.zeros((0, 3), np.int64)
    return SparseTensor(idx, values, np.asarray([n, max_steps, max_vals], np.int64))


def _ragged_list(key, f, got, single):
    """A RaggedFeature of the feature lists: [(steps), (values)] per example, then each
    partition applied within the steps, innermost first, as TensorFlow does (steps
    taken as its batch dimension, the examples restored around them)."""
    from ..ragged import RaggedTensor
    sdt = np.dtype(_kinds._dtype(f.row_splits_dtype).as_numpy_dtype)
    ex_splits, st_splits, values, _ = got[key if f.value_key is None else f.value_key]
    rt = RaggedTensor(np.asarray(values), as_tensor(st_splits.astype(sdt)))
    var = {}
    for part in f.partitions:
        if type(part).__name__ == "UniformRowLength":
            continue
        pex, pst, pvals, _ = got[part.key]
        # the steps of a partition must be those of the values: in a batch TF asserts
        # it (with validate=True; tfnano always), for one example the partition's
        # arithmetic below fails as TensorFlow's does (or gives what it gives)
        if not single:
            _check_equal("Feature %s: values and partitions are not aligned" % key,
                         ex_splits.astype(sdt), pex.astype(sdt))
        var[part.key] = np.asarray(pvals)
        var[part.key + "\0splits"] = pst
    for part in reversed(f.partitions):
        rt = _kinds._batched_partition(rt, part, var, key, bool(f.validate), sdt)
    if single:
        return rt
    return RaggedTensor.from_row_splits(rt, ex_splits.astype(sdt), validate=False)


_MISMATCH = re.compile(r"^(?:Name: (.*), )?Key: (.*?)(?:, Index: \d+)?\.  Data types don't "
                       r"match\. Expected type: (\w+), Actual type: \w+$", re.S)


def _as_context_error(e, names):
    """The Example parser's type-mismatch text, as TF's sequence parser words it for a
    context feature ("Name: <unknown>, Context feature: c.  Data types don't match.
    Expected type: float")."""
    msg = getattr(e, "message", None)
    m = _MISMATCH.match(msg) if isinstance(msg, str) else None
    if m is None:
        return None
    name = m.group(1) or (_name(names, 0) if names is not None else "<unknown>")
    return errors.invalid("Name: %s, Context feature: %s.  Data types don't match. Expected type: "
                           "%s" % (name, m.group(2), m.group(3)))


_VALUE_LIST = {"int64": "int64_list", "float32": "float_list", "string": "bytes_list"}


def _context_dense_error(items, context_features, names):
    """TensorFlow's own first error for context FixedLenFeatures, worked out per record
    on the error path only (the context is parsed by the Example parser, whose texts
    differ). TF's sequence parser (FastParseSequenceExample) first checks every
    requested context feature's kind in every record, then, per FixedLenFeature, takes
    the largest value count over the records (at least the default's) and requires it
    to be the shape's size, then each record's count to equal it. None: no such error
    (the Example parser's error stands)."""
    from ..train import SequenceExample
    dense = [(k, f) for k, f in context_features.items()
             if type(f).__name__ == "FixedLenFeature"]
    if not dense:
        return None
    try:
        recs = [SequenceExample.FromString(bytes(r)) for r in items]
    except Exception:  # noqa: BLE001 - a malformed record: the parser's text stands
        return None

    def kind_of(f):  # the Feature's value list, and TensorFlow's name of the dtype
        name = _kinds._dtype(f.dtype).name
        return _VALUE_LIST.get(name), _p._TF_NAMES.get(name, name)

    def feature(r, key):
        return r.context.feature[key] if key in r.context.feature else None

    for key, f in context_features.items():
        want, tname = kind_of(f)
        for d, r in enumerate(recs):
            feat = feature(r, key)
            kind = None if feat is None else feat.WhichOneof("kind")
            if want is not None and kind is not None and kind != want:
                return ("Name: %s, Context feature: %s.  Data types don't match. Expected "
                        "type: %s" % (_name(names, d), key, tname))
    for key, f in dense:
        want, tname = kind_of(f)
        expected = int(np.prod(f.shape, dtype=np.int64)) if len(f.shape) else 1
        default = 0 if f.default_value is None else int(np.size(f.default_value))
        counts = []
        for r in recs:
            feat = feature(r, key)
            kind = None if feat is None else feat.WhichOneof("kind")
            counts.append(None if feat is None else
                          len(getattr(feat, kind).value) if kind else 0)
        length = max([default] + [c for c in counts if c is not None])
        if length != expected:
            return ("Inconsistent max number of elements for feature %s: expected %d, but "
                    "found %d" % (key, expected, length))
        for d, c in enumerate(counts):
            if c is None:
                if default == 0:
                    return ("Feature: %s (data type: %s) is required but could not be "
                            "found." % (key, tname))
                c = default
            if c != length:
                return "Unexpected number of elements in example %s" % _name(names, d)
    return None


def _may_hold_empty_context_feature(items, context_features):
    """Whether a record may hold a present but empty context Feature (no value list)
    for a FixedLenFeature with a default: the Example parser then takes the default,
    where TensorFlow's sequence parser counts 0 values and fails. A byte search for
    the map entry (key, then an empty value); a match elsewhere only costs the exact
    per-record check."""
    entries = []
    for key, f in context_features.items():
        if type(f).__name__ == "FixedLenFeature" and f.default_value is not None:
            k = key.encode("utf-8") if isinstance(key, str) else bytes(key)
            if len(k) < 128:
                entries.append(b"\x0a" + bytes([len(k)]) + k + b"\x12\x00")
    return bool(entries) and any(e in r for r in items for e in entries)


def _parse(serialized, context_features, sequence_features, names, single):
    context_features = dict(context_features or {})
    sequence_features = dict(sequence_features or {})
    if not context_features and not sequence_features:
        raise ValueError("Missing features.")
    context_features, _ = _kinds.adopt(context_features)
    configs = _check_sequence_features(sequence_features)
    serialized = _kinds.as_input(serialized)
    if single and isinstance(serialized, np.ndarray) and serialized.ndim == 0:
        serialized = serialized.item()  # a scalar tensor holds the one record
    items = [serialized] if single else serialized
    recs = _p._Records(items)
    names_list = None if names is None else (
        [names] if single else np.asarray(names, dtype=object).reshape(-1).tolist())
    names_v, _keep = _p._names_views(names_list, recs.n)
    context = {}
    if context_features:
        for key, f in context_features.items():
            if type(f).__name__ == "FixedLenSequenceFeature":
                raise ValueError("Unsupported FixedLenSequenceFeature %s for key '%s'"
                                 % (f, key))
        try:
            context = _kinds.parse(recs, context_features, names_list, single=single)
        except Exception as e:  # noqa: BLE001 - reworded, then raised again
            tf_text = _context_dense_error(items, context_features, names_list)
            if tf_text is not None:
                raise errors.invalid(tf_text) from None
            reworded = _as_context_error(e, names_list)
            if reworded is not None:
                raise reworded from None
            raise
        if _may_hold_empty_context_feature(items, context_features):
            tf_text = _context_dense_error(items, context_features, names_list)
            if tf_text is not None:
                raise errors.invalid(tf_text)
    lists, lengths = {}, {}
    if configs:
        reads = _list_reads(configs)
        got = dict(zip([k for k, _ in reads], _read_lists(
            recs, names_v, [(k, None, None, dt) for k, dt in reads])))
        read = [got[key] if kind != "RaggedFeature" else None
                for key, kind, f, dt in configs]
        problems = [_dense_problem(key, f, r[0], r[1], r[3], names_list)
                    for (key, kind, f, dt), r in zip(configs, read)
                    if kind == "FixedLenSequenceFeature"]
        # as TF: feature by feature in key order, the first feature with a problem
        problems = [p for p in problems if p is not None]
        if problems:
            raise errors.invalid(problems[0][2])
        for (key, kind, f, dt), r in zip(configs, read):
            if kind != "RaggedFeature":
                ex_splits, st_splits, values, present = r
            if kind == "FixedLenSequenceFeature":
                lists[key], length = _dense_list(key, f, dt, ex_splits, st_splits, values,
                                                 present, names_list, single)
                if length is not None:
                    lengths[key] = length
            elif kind == "VarLenFeature":
                lists[key] = _sparse_list(values, ex_splits, st_splits, single)
            else:
                lists[key] = _ragged_list(key, f, got, single)
    return context, lists, lengths


def parse_sequence_example(serialized, context_features=None, sequence_features=None,
                           example_names=None, name=None):
    """``tf.io.parse_sequence_example``: a batch of SequenceExamples -> (context,
    feature_lists, feature_list_lengths); lengths are given for the
    FixedLenSequenceFeature sequence features."""
    return _parse(serialized, context_features, sequence_features, example_names, False)


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None,
                                  example_name=None, name=None):
    """``tf.io.parse_single_sequence_example``: one SequenceExample -> (context,
    feature_lists)."""
    context, lists, _ = _parse(serialized, context_features, sequence_features, example_name,
                               True)
    return context, lists

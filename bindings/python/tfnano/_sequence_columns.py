"""serialize_sequence_columns: n SequenceExamples from numpy columns, byte-identical to
building each tf.train.SequenceExample and calling SerializeToString(), with no Python
object per step.

The C column encoder (tfn_encode_columns) writes every step of a feature list as a
one-feature Example ``{"": Feature}``; a step's FeatureList element
(``0a len Feature``) is the tail of that record from the value tag on, with the tag
byte rewritten. Headers are dropped with one numpy mask over the whole buffer, so the
steps of each example end up back to back; only the few headers of each example are
written in Python.
"""
import numpy as np

from ._columns import encode_columns


_SMALL = [bytes([i]) if i < 0x80 else bytes([(i & 0x7F) | 0x80, i >> 7]) for i in range(16384)]


def _varint(n):
    if n < 16384:
        return _SMALL[n]
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _vlen(x):
    x = np.asarray(x, dtype=np.int64)
    return 1 + (x >= 1 << 7) + (x >= 1 << 14) + (x >= 1 << 21) + (x >= 1 << 28)


def _solve_prefix(total):
    """For lengths total = 1 + vlen(L) + L (a tag, a varint, L bytes): vlen(L)."""
    out = np.ones(len(total), dtype=np.int64)  # L < 128: the common case
    big = np.nonzero(total - 2 >= 0x80)[0]
    if big.size:
        t = total[big]
        for v in range(5, 1, -1):
            out[big[_vlen(t - 1 - v) == v]] = v
    return out


def _steps_of(column, n):
    """A feature-list column as (per-step rows for serialize_columns, step_splits)."""
    if isinstance(column, np.ndarray) and column.dtype != object:
        if column.ndim < 2 or column.shape[0] != n:
            raise ValueError("a numeric feature-list column must be shaped (n, steps, ...); "
                             "got %s" % (column.shape,))
        steps = column.shape[1]
        rows = column.reshape((n * steps,) + column.shape[2:])
        if rows.ndim == 1:
            rows = rows.reshape(-1, 1)
        return rows, np.arange(n + 1, dtype=np.int64) * steps
    if len(column) != n:
        raise ValueError("feature-list column has %d examples, expected %d"
                         % (len(column), n))
    rows, splits = [], [0]
    for example in column:  # ragged: a list of steps per example
        for step in example:
            rows.append(np.atleast_1d(step) if not isinstance(step, (bytes, str)) else [step])
        splits.append(len(rows))
    return rows, np.asarray(splits, dtype=np.int64)


def _elements(column, n):
    """Every step's FeatureList element back to back, and each step's offset in it."""
    rows, step_splits = _steps_of(column, n)
    total_steps = int(step_splits[-1])
    if total_steps == 0:
        return np.zeros(0, np.uint8), np.zeros(1, np.int64), step_splits
    data, offsets = encode_columns({"": rows}, total_steps)
    buf = np.frombuffer(data, dtype=np.uint8)
    offsets = np.asarray(offsets, dtype=np.int64)
    e = np.diff(offsets)                       # 0a L1 [0a L2 [0a 00 12 F Feature]]
    v1 = _solve_prefix(e)
    l1 = e - 1 - v1
    v2 = _solve_prefix(l1)
    header = 1 + v1 + 1 + v2 + 2               # up to the value tag (12)
    keep = np.ones(len(buf), dtype=bool)
    drop = np.repeat(offsets[:-1], header) + (
        np.arange(int(header.sum())) - np.repeat(np.cumsum(header) - header, header))
    keep[drop] = False
    elems = buf[keep].copy()
    lengths = e - header
    starts = np.zeros(total_steps + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    elems[starts[:-1]] = 0x0A                  # FeatureList.feature (field 1)
    return elems, starts, step_splits


def serialize_sequence_columns(context=None, feature_lists=None, n=None):
    """n serialized SequenceExamples from columns.

    context: {key: column} as for :func:`tfnano.serialize_columns` (the context Features
      of each example), or None for no context.
    feature_lists: {key: column}; a column is a numeric array shaped (n, steps) or
      (n, steps, k) (every example has `steps` steps of k values), or a list of n
      examples, each a list of steps (arrays / lists of values, or bytes).
    Returns a list of n bytes, equal to tf.train.SequenceExample(...).SerializeToString().
    """
    context = context or {}
    feature_lists = feature_lists or {}
    if n is None:
        col = next(iter(feature_lists.values()), None)
        if col is None:
            col = next(iter(context.values()), None)
        if col is None:
            raise ValueError("serialize_sequence_columns needs n or a column")
        n = len(col) if not isinstance(col, tuple) else len(col[1]) - 1
    ctx = None
    if context:
        data, offsets = encode_columns(context, n)
        ctx = (bytes(data), np.asarray(offsets, dtype=np.int64).tolist())
    lists = []
    for key in sorted(feature_lists, key=lambda k: k.encode("utf-8")):
        elems, starts, step_splits = _elements(feature_lists[key], n)
        kb = key.encode("utf-8")
        lists.append((b"\x0a" + _varint(len(kb)) + kb + b"\x12", elems.tobytes(),
                      starts[step_splits].tolist()))
    out = []
    for i in range(n):
        parts = []
        if ctx is not None:
            data, o = ctx
            rec = data[o[i]:o[i + 1]]
            # an Example's bytes are 0a len Features: the same bytes as the context field
            parts.append(rec if rec else b"\x0a\x00")
        if lists:
            body = []
            for head, elems, bounds in lists:
                fl = elems[bounds[i]:bounds[i + 1]]
                entry = head + _varint(len(fl)) + fl
                body.append(b"\x0a" + _varint(len(entry)) + entry)
            fls = b"".join(body)
            parts.append(b"\x12" + _varint(len(fls)) + fls)
        out.append(b"".join(parts))
    return out

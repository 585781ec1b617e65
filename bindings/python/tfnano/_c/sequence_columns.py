"""serialize_sequence_columns: n SequenceExamples from numpy columns, byte-identical to
building each tf.train.SequenceExample and calling SerializeToString(), with no Python
object per step: one C call (tfn_encode_sequences) writes every example, the context
through the Example column encoder and each feature list as a column of steps.
"""
import numpy as np

from .. import _c
from .columns import _native_columns

ffi = _c.ffi
lib = _c.lib


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


def _native_lists(feature_lists, n):
    """{key: column} -> (tfn_list_column[], count, objects to keep alive)."""
    arr = ffi.new("tfn_list_column[]", max(1, len(feature_lists)))
    keep = []
    for i, (key, column) in enumerate(feature_lists.items()):
        rows, example_splits = _steps_of(column, n)
        steps, _, kept = _native_columns({key: rows}, int(example_splits[-1]))
        splits = ffi.from_buffer("int64_t[]", example_splits)
        keep += [steps, kept, example_splits, splits]
        arr[i].steps = steps[0]
        arr[i].example_splits = splits
    return arr, len(feature_lists), keep


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
    ctx, nctx, keep_ctx = _native_columns(context, n)
    lists, nlists, keep_lists = _native_lists(feature_lists, n)
    err = _c.new_error()
    total = ffi.new("uint64_t *")
    _c.check(lib.tfn_encode_sequences_size(ctx, nctx, lists, nlists, n, ffi.NULL, total,
                                             err), err)
    data = bytearray(max(int(total[0]), 1))
    offsets = np.empty(n + 1, dtype=np.uint64)
    written = ffi.new("size_t *")
    _c.check(lib.tfn_encode_sequences(
        ctx, nctx, lists, nlists, n, ffi.from_buffer(data), len(data),
        ffi.cast("uint64_t *", ffi.from_buffer(offsets)), written, err), err)
    del keep_ctx, keep_lists
    data = bytes(data)
    o = offsets.tolist()
    return [data[o[i]:o[i + 1]] for i in range(n)]


_NUMERIC = {"int64_list": (np.int64, "int64_t[]"), "float_list": (np.float32, "float[]")}


def _message_list(key, features, keep):
    """One FeatureList's Features -> a tfn_list_column of one example, or None when the
    steps are not one kind (a kind-less step, or kinds mixed): the caller then
    serializes in Python."""
    kinds = {f.WhichOneof("kind") for f in features}
    if len(kinds) != 1 or None in kinds:
        return None
    kind = kinds.pop()
    lists = [getattr(f, kind).value for f in features]
    lengths = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
    splits = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum(lengths, out=splits[1:])
    col = ffi.new("tfn_list_column *")
    kb = key.encode("utf-8")
    keep += [kb, splits]
    col.steps.key, col.steps.key_len = ffi.from_buffer(kb), len(kb)
    col.steps.row_splits = ffi.from_buffer("int64_t[]", splits)
    if kind == "bytes_list":
        flat = [b for lst in lists for b in lst]
        offs = np.zeros(len(flat) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, flat), dtype=np.int64, count=len(flat)), out=offs[1:])
        data = b"".join(flat) or b"\0"
        keep += [data, offs]
        col.steps.dtype = lib.TFN_BYTES
        col.steps.values = ffi.from_buffer(data)
        col.steps.byte_offsets = ffi.from_buffer("int64_t[]", offs)
    else:
        dtype, ctype = _NUMERIC[kind]
        flat = np.fromiter((v for lst in lists for v in lst), dtype=dtype,
                           count=int(splits[-1]))
        keep.append(flat)
        col.steps.dtype = lib.TFN_INT64 if kind == "int64_list" else lib.TFN_FLOAT32
        col.steps.values = ffi.from_buffer(ctype, flat) if flat.size else ffi.NULL
    ex_splits = np.asarray([0, len(lists)], dtype=np.int64)
    keep.append(ex_splits)
    col.example_splits = ffi.from_buffer("int64_t[]", ex_splits)
    return col


def encode_feature_lists(items):
    """The body of a FeatureLists message from (key, [Feature, ...]) pairs, written by
    tfn_encode_sequences; None when a list is not expressible as a column."""
    keep = []
    cols = []
    for key, features in items:
        col = _message_list(key, features, keep)
        if col is None:
            return None
        cols.append(col)
    if not cols:
        return None
    arr = ffi.new("tfn_list_column[]", len(cols))
    for i, c in enumerate(cols):
        arr[i] = c[0]
    err = _c.new_error()
    total = ffi.new("uint64_t *")
    _c.check(lib.tfn_encode_sequences_size(ffi.NULL, 0, arr, len(cols), 1, ffi.NULL, total,
                                             err), err)
    data = bytearray(int(total[0]))
    written = ffi.new("size_t *")
    _c.check(lib.tfn_encode_sequences(ffi.NULL, 0, arr, len(cols), 1, ffi.from_buffer(data),
                                        len(data), ffi.NULL, written, err), err)
    del keep
    pos = 1  # the feature_lists tag (12), then its length varint, then the body
    while data[pos] & 0x80:
        pos += 1
    return bytes(data[pos + 1:])

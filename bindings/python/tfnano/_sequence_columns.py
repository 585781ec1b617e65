"""serialize_sequence_columns: n SequenceExamples from numpy columns, byte-identical to
building each tf.train.SequenceExample and calling SerializeToString(), with no Python
object per step: one C call (tfn_encode_sequences) writes every example, the context
through the Example column encoder and each feature list as a column of steps.
"""
import numpy as np

from . import _ffi
from ._columns import _native_columns

ffi = _ffi.ffi
lib = _ffi.lib


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
    err = _ffi.new_error()
    total = ffi.new("uint64_t *")
    _ffi.check(lib.tfn_encode_sequences_size(ctx, nctx, lists, nlists, n, ffi.NULL, total,
                                             err), err)
    data = bytearray(max(int(total[0]), 1))
    offsets = np.empty(n + 1, dtype=np.uint64)
    written = ffi.new("size_t *")
    _ffi.check(lib.tfn_encode_sequences(
        ctx, nctx, lists, nlists, n, ffi.from_buffer(data), len(data),
        ffi.cast("uint64_t *", ffi.from_buffer(offsets)), written, err), err)
    del keep_ctx, keep_lists
    data = bytes(data)
    o = offsets.tolist()
    return [data[o[i]:o[i + 1]] for i in range(n)]

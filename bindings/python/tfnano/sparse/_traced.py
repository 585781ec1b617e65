"""Ops on a SparseTensor inside a traced tf.data map function (``tf.sparse.to_dense``,
``sp.values`` / ``sp.indices`` / ``sp.dense_shape``), registered with the tracer by
``tfnano.sparse`` itself.

A traced map's parse_single_example of a VarLenFeature gives, per record, a
SparseTensor of dense_shape [count]; batched, it is the batch's SparseTensor (what
tf.data's batch makes of the per-record ones). The batch rules below turn it into what
stacking the per-record results would give: rows padded to the longest, each record's
row count put in the tracer's lengths table (``_trace.LENGTHS``) so that batch checks
them (TensorFlow's error when they differ) and padded_batch re-pads them.
"""
import numpy as np

from .._tensor import as_tensor
from .._trace import LENGTHS, OPERATORS, Spec, TraceError, composite_spec, traceable


def record_lengths(arr, lengths):
    """Puts each record's row count of batched output `arr` in the lengths table."""
    sink = getattr(LENGTHS, "table", None)
    if sink is not None:
        a = np.asarray(arr)
        sink[(a.__array_interface__["data"][0], a.shape)] = lengths


def _entry_rows(sp):
    """(row of each entry, entries per row, position in its row) of a batched
    SparseTensor whose entries are grouped by row in order (a parse's output)."""
    ind = np.asarray(sp.indices)
    n = int(np.asarray(sp.dense_shape)[0])
    rowid = ind[:, 0]
    if len(rowid) > 1 and (np.diff(rowid) < 0).any():
        raise TraceError("entries not grouped by row")  # never from a parse: per record
    counts = np.bincount(rowid, minlength=n) if len(rowid) else np.zeros(n, np.int64)
    starts = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=starts[1:])
    return rowid, counts, np.arange(len(rowid)) - starts[:-1][rowid]


def _padded_entries(sp, column):
    """Each record's entries (values, or index columns) as rows padded to the
    longest, with the row counts recorded."""
    rowid, counts, pos = _entry_rows(sp)
    n, width = len(counts), int(counts.max()) if len(counts) else 0
    src = np.asarray(sp.values) if column is None else \
        np.asarray(sp.indices)[:, 1:]
    out = np.full((n, width) + src.shape[1:], b"", object) if src.dtype == object else \
        np.zeros((n, width) + src.shape[1:], src.dtype)
    out[rowid, pos] = src
    record_lengths(out, counts)
    return as_tensor(out)


def _to_dense_infer(sp_input, default_value=None, validate_indices=True, name=None):
    s = composite_spec(sp_input, "sparse")
    return Spec(s.dtype, s.shape)


def install(eager):
    """Registers the traced SparseTensor ops, `eager` being tf.sparse.to_dense on
    values; returns to_dense of a traced SparseTensor."""

    def rows_batch(sp_input, default_value=None, validate_indices=True, name=None):
        """Records of dense_shape [count] (VarLenFeature): [n, longest], counts recorded."""
        out = eager(sp_input, default_value, validate_indices)
        record_lengths(out, _entry_rows(sp_input)[1])
        return out

    rows = traceable("sparse.to_dense", batch=rows_batch, infer=_to_dense_infer,
                     composites=True)(eager)
    # records of one fixed dense_shape (SparseFeature): the batch's to_dense is the stack
    fixed = traceable("sparse.to_dense", batch=eager, infer=_to_dense_infer,
                      composites=True)(eager)

    def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
        shape = composite_spec(sp_input, "sparse").shape
        if shape == (None,):
            return rows(sp_input, default_value, validate_indices, name)
        if shape is not None and None not in shape:
            return fixed(sp_input, default_value, validate_indices, name)
        raise TraceError("tf.sparse.to_dense of a SparseTensor of shape %s" % (shape,))

    def prop(name, fn, infer, batch=None):
        op = traceable("sparse.%s" % name, batch=batch, infer=infer, composites=True)(fn)
        op._tfn_property = True
        OPERATORS["sparse.%s" % name] = op

    prop("values", lambda sp: sp.values,
         lambda sp: Spec(composite_spec(sp, "sparse").dtype, (None,)),
         batch=lambda sp: _padded_entries(sp, None))
    prop("indices", lambda sp: sp.indices,
         lambda sp: Spec(np.int64, (None, len(composite_spec(sp, "sparse").shape))),
         batch=lambda sp: _padded_entries(sp, "indices"))
    prop("dense_shape", lambda sp: sp.dense_shape,
         lambda sp: Spec(np.int64, (len(composite_spec(sp, "sparse").shape),)))
    OPERATORS["sparse.to_dense"] = traceable(
        "sparse.to_dense", infer=lambda sp, default_value=None: _to_dense_infer(sp),
        composites=True)(lambda sp, default_value=None: to_dense(sp, default_value))
    return to_dense

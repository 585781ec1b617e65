"""Ops on parsed SparseTensors and RaggedTensors inside a traced tf.data map function:
``tf.sparse.to_dense``, ``sp.values`` / ``sp.indices`` / ``sp.dense_shape``,
``rt.to_tensor()``, ``rt.values`` / ``flat_values`` / ``row_splits`` /
``row_lengths()`` / ``nrows()``, and ``tf.cast`` (declared in _tensor.py).

A traced map's parse_single_example of a VarLenFeature gives, per record, a
SparseTensor of dense_shape [count]; batched, it is the batch's SparseTensor (what
tf.data's batch makes of the per-record ones). The batch rules below turn it into what
stacking the per-record results would give: rows padded to the longest, each record's
row count put in the tracer's lengths table (``_parsing.LENGTHS``) so that batch checks
them (TensorFlow's error when they differ) and padded_batch re-pads them. Ops with no
batch rule here are traced and run per record (``explain()`` names them).
"""
import numpy as np

from .._tensor import as_tensor
from .._trace import OPERATORS, CompositeSpec, Spec, Symbol, TraceError, traceable


def _spec(x, kind):
    s = x.spec
    if not isinstance(s, CompositeSpec) or s.kind != kind:
        raise TraceError("expected a traced %s" % ("SparseTensor" if kind == "sparse"
                                                    else "RaggedTensor"))
    return s


def _record_lengths(arr, lengths):
    from .. import _parsing
    sink = getattr(_parsing.LENGTHS, "table", None)
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
    _record_lengths(out, counts)
    return as_tensor(out)


# ---- SparseTensor

def _to_dense_eager(sp_input, default_value=None, validate_indices=True, name=None):
    from ..sparse import _to_dense_impl
    return _to_dense_impl(sp_input, default_value, validate_indices, name)


def _to_dense_infer(sp_input, default_value=None, validate_indices=True, name=None):
    s = _spec(sp_input, "sparse")
    return Spec(s.dtype, s.shape)


def _to_dense_rows_batch(sp_input, default_value=None, validate_indices=True, name=None):
    """Records of dense_shape [count] (VarLenFeature): [n, longest], counts recorded."""
    out = _to_dense_eager(sp_input, default_value, validate_indices)
    _record_lengths(out, _entry_rows(sp_input)[1])
    return out


_to_dense_rows = traceable("sparse.to_dense", batch=_to_dense_rows_batch,
                           infer=_to_dense_infer, composites=True)(_to_dense_eager)
# records of one fixed dense_shape (SparseFeature): the batch's to_dense is the stack
_to_dense_fixed = traceable("sparse.to_dense", batch=_to_dense_eager,
                            infer=_to_dense_infer, composites=True)(_to_dense_eager)


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """tf.sparse.to_dense of a traced SparseTensor."""
    shape = _spec(sp_input, "sparse").shape
    if shape == (None,):
        return _to_dense_rows(sp_input, default_value, validate_indices, name)
    if shape is not None and None not in shape:
        return _to_dense_fixed(sp_input, default_value, validate_indices, name)
    raise TraceError("tf.sparse.to_dense of a SparseTensor of shape %s" % (shape,))


def _prop(kind, name, fn, infer, batch=None):
    op = traceable("%s.%s" % (kind, name), batch=batch, infer=infer, composites=True)(fn)
    op._tfn_property = True
    OPERATORS["%s.%s" % (kind, name)] = op


def _method(kind, name, fn, infer, batch=None):
    OPERATORS["%s.%s" % (kind, name)] = traceable(
        "%s.%s" % (kind, name), batch=batch, infer=infer, composites=True)(fn)


_prop("sparse", "values", lambda sp: sp.values,
      lambda sp: Spec(_spec(sp, "sparse").dtype, (None,)),
      batch=lambda sp: _padded_entries(sp, None))
_prop("sparse", "indices", lambda sp: sp.indices,
      lambda sp: Spec(np.int64, (None, len(_spec(sp, "sparse").shape))),
      batch=lambda sp: _padded_entries(sp, "indices"))
_prop("sparse", "dense_shape", lambda sp: sp.dense_shape,
      lambda sp: Spec(np.int64, (len(_spec(sp, "sparse").shape),)))
_method("sparse", "to_dense", lambda sp, default_value=None: to_dense(sp, default_value),
        lambda sp, default_value=None: _to_dense_infer(sp))


# ---- RaggedTensor (per record: a RaggedFeature with row partitions)

def _ragged_shape(s):
    return (None,) * (s.ragged_rank + 1) + tuple(s.shape[s.ragged_rank + 1:]) \
        if s.shape is not None else None


def _values_infer(rt):
    s = _spec(rt, "ragged")
    if s.ragged_rank > 1:
        return CompositeSpec("ragged", s.dtype, None if s.shape is None else s.shape[1:],
                             s.ragged_rank - 1, s.row_splits_dtype)
    return Spec(s.dtype, None if s.shape is None else (None,) + tuple(s.shape[2:]))


def _flat_infer(rt):
    s = _spec(rt, "ragged")
    return Spec(s.dtype, None if s.shape is None else (None,) + tuple(
        s.shape[s.ragged_rank + 1:]))


_prop("ragged", "values", lambda rt: rt.values, _values_infer)
_prop("ragged", "flat_values", lambda rt: rt.flat_values, _flat_infer)
_prop("ragged", "row_splits", lambda rt: rt.row_splits,
      lambda rt: Spec(_spec(rt, "ragged").row_splits_dtype, (None,)))
_method("ragged", "to_tensor",
        lambda rt, default_value=None, name=None, shape=None: rt.to_tensor(
            default_value, name, shape),
        lambda rt, default_value=None, name=None, shape=None: Spec(
            _spec(rt, "ragged").dtype, _ragged_shape(rt.spec)))
_method("ragged", "row_lengths", lambda rt, axis=1, name=None: rt.row_lengths(axis, name),
        lambda rt, axis=1, name=None: Spec(_spec(rt, "ragged").row_splits_dtype, (None,)))
_method("ragged", "nrows", lambda rt, out_type=None, name=None: rt.nrows(out_type, name),
        lambda rt, out_type=None, name=None: Spec(
            _spec(rt, "ragged").row_splits_dtype if out_type is None else
            np.dtype(_np(out_type)), ()))


def _np(dtype):
    from .. import dtypes
    return dtypes.as_dtype(dtype).as_numpy_dtype


__all__ = ["to_dense", "Symbol"]

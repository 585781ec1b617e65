"""Ops on parsed RaggedTensors inside a traced tf.data map function:
``rt.to_tensor()``, ``rt.values`` / ``flat_values`` / ``row_splits`` /
``row_lengths()`` / ``nrows()``, and ``tf.cast`` (declared in _tensor.py). Ops with no
batch rule here are traced and run per record (``explain()`` names them). The
SparseTensor ones (``tf.sparse.to_dense``, ``sp.values``, ...) are registered by
``tfnano.sparse``.
"""
import numpy as np

from .._trace import OPERATORS, CompositeSpec, Spec, composite_spec, traceable


def _prop(kind, name, fn, infer, batch=None):
    op = traceable("%s.%s" % (kind, name), batch=batch, infer=infer, composites=True)(fn)
    op._tfn_property = True
    OPERATORS["%s.%s" % (kind, name)] = op


def _method(kind, name, fn, infer, batch=None):
    OPERATORS["%s.%s" % (kind, name)] = traceable(
        "%s.%s" % (kind, name), batch=batch, infer=infer, composites=True)(fn)


# ---- RaggedTensor (per record: a RaggedFeature with row partitions)

def _ragged_shape(s):
    return (None,) * (s.ragged_rank + 1) + tuple(s.shape[s.ragged_rank + 1:]) \
        if s.shape is not None else None


def _values_infer(rt):
    s = composite_spec(rt, "ragged")
    if s.ragged_rank > 1:
        return CompositeSpec("ragged", s.dtype, None if s.shape is None else s.shape[1:],
                             s.ragged_rank - 1, s.row_splits_dtype)
    return Spec(s.dtype, None if s.shape is None else (None,) + tuple(s.shape[2:]))


def _flat_infer(rt):
    s = composite_spec(rt, "ragged")
    return Spec(s.dtype, None if s.shape is None else (None,) + tuple(
        s.shape[s.ragged_rank + 1:]))


_prop("ragged", "values", lambda rt: rt.values, _values_infer)
_prop("ragged", "flat_values", lambda rt: rt.flat_values, _flat_infer)
_prop("ragged", "row_splits", lambda rt: rt.row_splits,
      lambda rt: Spec(composite_spec(rt, "ragged").row_splits_dtype, (None,)))
_method("ragged", "to_tensor",
        lambda rt, default_value=None, name=None, shape=None: rt.to_tensor(
            default_value, name, shape),
        lambda rt, default_value=None, name=None, shape=None: Spec(
            composite_spec(rt, "ragged").dtype, _ragged_shape(rt.spec)))
_method("ragged", "row_lengths", lambda rt, axis=1, name=None: rt.row_lengths(axis, name),
        lambda rt, axis=1, name=None: Spec(composite_spec(rt, "ragged").row_splits_dtype, (None,)))
_method("ragged", "nrows", lambda rt, out_type=None, name=None: rt.nrows(out_type, name),
        lambda rt, out_type=None, name=None: Spec(
            composite_spec(rt, "ragged").row_splits_dtype if out_type is None else
            np.dtype(_np(out_type)), ()))


def _np(dtype):
    from .. import dtypes
    return dtypes.as_dtype(dtype).as_numpy_dtype


__all__ = []

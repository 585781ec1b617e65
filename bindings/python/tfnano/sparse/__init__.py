"""``tf.sparse``: ``tfnano.SparseTensor`` (indices, values, dense_shape as numpy-backed
tensors) with ``to_dense``, ``from_dense`` and ``reorder``, TensorFlow's rules."""
import numpy as np

from .. import errors
from .._tensor import as_tensor
from .._trace import Symbol
from . import _traced


def _array(x, dtype=None):
    if hasattr(x, "numpy") and not isinstance(x, np.ndarray):
        x = x.numpy()  # a TensorFlow tensor
    if dtype is None and not isinstance(x, (np.ndarray, np.generic)):
        from .._tensor import _infer  # Python values as tf.constant takes them:
        return _infer(x)              # floats float32, ints int32, text bytes
    a = np.asarray(x) if dtype is None else np.asarray(x, dtype=dtype)
    if a.dtype.kind in "SU":
        a = a.astype(object)
    return a


class SparseTensor:
    """``tf.sparse.SparseTensor(indices, values, dense_shape)``: `indices` an int64
    (N, rank) array, `values` (N,), `dense_shape` int64 (rank,)."""

    # _tfn_static: the static dense shape TensorFlow's spec would show (a SparseFeature
    # parsed per record: its size), None when the sizes vary (VarLenFeature)
    __slots__ = ("_indices", "_values", "_dense_shape", "_tfn_static")

    def __init__(self, indices, values, dense_shape):
        ind = _array(indices, np.int64)
        if ind.size == 0:
            ind = ind.reshape(0, len(_array(dense_shape, np.int64).reshape(-1)))
        self._indices = as_tensor(ind)
        self._values = as_tensor(_array(values))
        self._dense_shape = as_tensor(_array(dense_shape, np.int64).reshape(-1))

    @classmethod
    def _make(cls, indices, values, dense_shape):
        """From arrays already of the right dtypes and shapes (no checks, no copies)."""
        sp = cls.__new__(cls)
        sp._indices = as_tensor(indices)
        sp._values = as_tensor(values)
        sp._dense_shape = as_tensor(dense_shape)
        return sp

    @property
    def indices(self):
        return self._indices

    @property
    def values(self):
        return self._values

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def dtype(self):
        from .. import dtypes
        return dtypes.as_dtype(self._values.dtype)

    @property
    def shape(self):
        return tuple(int(d) for d in self._dense_shape)

    def get_shape(self):
        return self.shape

    @property
    def rank(self):
        return len(self._dense_shape)

    def __repr__(self):
        return ("SparseTensor(indices=%r, values=%r, dense_shape=%r)"
                % (self._indices.view(np.ndarray), self._values.view(np.ndarray),
                   self._dense_shape.view(np.ndarray)))

    @classmethod
    def from_value(cls, value):
        return value if isinstance(value, SparseTensor) else from_dense(value)

    def to_dense(self, default_value=None):
        return to_dense(self, default_value)


def _is_sparse(x):
    return isinstance(x, SparseTensor) or type(x).__name__ in ("SparseTensor",
                                                               "SparseTensorValue")


def _as_sparse(x):
    if isinstance(x, SparseTensor):
        return x
    if _is_sparse(x):  # TensorFlow's own
        return SparseTensor(x.indices, x.values, x.dense_shape)
    raise TypeError("Input must be a SparseTensor, got %s" % type(x).__name__)


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """``tf.sparse.to_dense``: the dense array, `default_value` (0 / b"") elsewhere.
    With validate_indices, indices must be in range, sorted and unique, as in TF."""
    if isinstance(sp_input, Symbol):  # in a traced tf.data map function
        return _traced_to_dense(sp_input, default_value, validate_indices, name)
    return _to_dense_impl(sp_input, default_value, validate_indices, name)


def _to_dense_impl(sp_input, default_value=None, validate_indices=True, name=None):
    sp = _as_sparse(sp_input)
    shape = tuple(int(d) for d in sp.dense_shape)
    vals = sp.values.view(np.ndarray)
    if default_value is None:
        default_value = b"" if vals.dtype == object else 0
    else:
        _check_default(default_value, vals.dtype)
    out = np.full(shape, default_value, dtype=vals.dtype if vals.dtype != object else object)
    ind = sp.indices.view(np.ndarray)
    if ind.shape[0] == 0:
        return as_tensor(out)
    if validate_indices:
        problem = _indices_problem(ind, shape)
        if problem is not None:
            raise errors.invalid(problem)
    out[tuple(ind.T)] = vals
    return as_tensor(out)


def _check_default(value, dtype):
    """TensorFlow's conversion of default_value to the values' dtype (eager text)."""
    v = value.item() if isinstance(value, np.generic) or (
        isinstance(value, np.ndarray) and value.ndim == 0) else value
    if isinstance(v, np.ndarray):
        return
    string = dtype == object
    ok = isinstance(v, (bytes, str)) if string else (
        not isinstance(v, (bytes, str)) and (dtype.kind == "f" or not isinstance(v, float)))
    if not ok:
        name = "string" if string else {"float32": "float", "float64": "double"}.get(
            dtype.name, dtype.name)
        raise TypeError("Cannot convert %r to EagerTensor of dtype %s" % (v, name))


def _indices_problem(ind, shape):
    """TensorFlow's SparseTensor::IndicesValid text for the first bad entry, or None:
    entries are checked in order, each for its bounds, then its order after the
    previous entry (lexicographic), then repetition."""
    n, rank = ind.shape
    dims = np.asarray(shape, dtype=np.int64)
    bad = np.zeros(n, dtype=np.int8)  # 0 fine, 1 out of bounds, 2 out of order, 3 repeated
    if n > 1:
        gt, lt = ind[1:] > ind[:-1], ind[1:] < ind[:-1]
        differ = gt | lt
        first = np.argmax(differ, axis=1)
        rows = np.arange(n - 1)
        bad[1:] = np.where(~differ.any(axis=1), 3, np.where(lt[rows, first], 2, 0))
    if rank:
        bad[((ind < 0) | (ind >= dims)).any(axis=1)] = 1
    at = np.nonzero(bad)[0]
    if not at.size:
        return None
    i = int(at[0])
    index = "indices[%d] = [%s" % (i, ",".join(str(int(v)) for v in ind[i])) + \
        ("]" if rank else "")
    if bad[i] == 1:
        return "%s is out of bounds: need 0 <= index < [%s]" % (
            index, ",".join(str(d) for d in shape))
    if bad[i] == 2:
        return ("%s is out of order. Many sparse ops require sorted indices.\n    Use "
                "`tf.sparse.reorder` to create a correctly ordered copy.\n\n" % index)
    return "%s is repeated" % index


def from_dense(tensor, name=None):
    """``tf.sparse.from_dense``: the non-zero (non-empty) entries, in row-major order."""
    a = _array(tensor)
    if a.dtype == object:
        mask = np.frompyfunc(lambda v: v != b"" and v != "", 1, 1)(a).astype(bool)
    else:
        mask = a != 0
    ind = np.argwhere(mask).astype(np.int64).reshape(-1, a.ndim)
    return SparseTensor(ind, a[mask], np.asarray(a.shape, dtype=np.int64))


def reorder(sp_input, name=None):
    """``tf.sparse.reorder``: entries sorted into row-major (canonical) order."""
    sp = _as_sparse(sp_input)
    ind = sp.indices.view(np.ndarray)
    if ind.shape[0] <= 1 or ind.shape[1] == 0:
        return SparseTensor(ind.copy(), sp.values.view(np.ndarray).copy(), sp.dense_shape)
    order = np.lexsort(ind.T[::-1])
    return SparseTensor(ind[order], sp.values.view(np.ndarray)[order], sp.dense_shape)


# the traced ops (tf.sparse.to_dense, .values, ... in a tf.data map function)
_traced_to_dense = _traced.install(_to_dense_impl)

__all__ = ["SparseTensor", "to_dense", "from_dense", "reorder"]

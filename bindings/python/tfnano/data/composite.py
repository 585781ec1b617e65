"""SparseTensor and RaggedTensor components in batch / unbatch / padded_batch, with
TensorFlow's rules:

- a batch of SparseTensors is one SparseTensor: each element's indices get the
  element's position as a new first column, and dense_shape is [n] + the largest
  size of each dimension over the elements (ranks must agree);
- a batch of RaggedTensors is one RaggedTensor with one more ragged dimension: its
  rows are the elements (outer row splits in the elements' row_splits dtype);
- unbatch undoes both (a row of a ragged-rank-1 RaggedTensor is a dense Tensor);
- padded_batch refuses both with TensorFlow's TypeError.

Everything stays numpy arrays: no Python object per value."""
import numpy as np

from .. import errors
from .._tensor import Tensor, as_tensor


class RaggedRow(Tensor):
    """A row of a ragged-rank-1 RaggedTensor (from unbatch or from_tensor_slices): a
    dense tensor, which batch turns back into a RaggedTensor, as TensorFlow batches
    elements of a RaggedTensorSpec with ragged_rank 0 (dense elements of different
    lengths would be an error)."""


def _ragged_row(a, splits_dtype):
    row = np.asarray(a).view(RaggedRow)
    row._tfn_splits_dtype = splits_dtype
    return row


def is_sparse(x):
    return type(x).__name__ == "SparseTensor" and hasattr(x, "dense_shape")


def is_ragged(x):
    return type(x).__name__ == "RaggedTensor" and hasattr(x, "nested_row_splits")


def is_composite(x):
    return is_sparse(x) or is_ragged(x)


def _kind_error(c, i):
    return errors.InvalidArgumentError(
        None, None, "Cannot batch component %d: element %d is not of the same kind "
        "(Tensor, SparseTensor or RaggedTensor) as element 0." % (c, i))


# ---- batch

def batch_sparse(col, c=0):
    """SparseTensors -> one SparseTensor with the element position as dimension 0."""
    from ..sparse import SparseTensor
    rank = None
    shapes, parts, values = [], [], []
    for i, sp in enumerate(col):
        if not is_sparse(sp):
            raise _kind_error(c, i)
        shape = np.asarray(sp.dense_shape, np.int64).reshape(-1)
        if rank is None:
            rank = len(shape)
        elif len(shape) != rank:
            raise errors.InvalidArgumentError(
                None, None, "Inconsistent shape across SparseTensors: rank prior to "
                "SparseTensor[%d] was: %d but rank of SparseTensor[%d] is: %d"
                % (i, rank, i, len(shape)))
        ind = np.asarray(sp.indices, np.int64).reshape(-1, rank)
        parts.append(np.concatenate(
            [np.full((len(ind), 1), i, np.int64), ind], axis=1))
        values.append(np.asarray(sp.values))
        shapes.append(shape)
    dense = np.concatenate([[len(col)], np.max(shapes, axis=0)]).astype(np.int64) \
        if rank else np.asarray([len(col)], np.int64)
    vals = np.concatenate(values) if values[0].dtype != object else \
        np.concatenate([v.astype(object) for v in values])
    return SparseTensor._make(np.concatenate(parts), vals, dense)


def _concat_rows(parts):
    """Ragged (or dense) values of several tensors, rows one after another."""
    from ..ragged import RaggedTensor
    if not isinstance(parts[0], RaggedTensor):
        arrs = [np.asarray(p) for p in parts]
        if arrs[0].dtype == object:
            arrs = [a.astype(object) for a in arrs]
        return np.concatenate(arrs)
    first = parts[0].row_splits.view(np.ndarray)
    splits, offset = [first], first[-1]
    for p in parts[1:]:
        s = p.row_splits.view(np.ndarray)
        splits.append(s[1:] + offset)
        offset = offset + s[-1]
    uniform = parts[0]._uniform_row_length
    if any(p._uniform_row_length != uniform for p in parts):
        uniform = None
    inner = _concat_rows([p._values for p in parts])
    return RaggedTensor(inner, as_tensor(np.concatenate(splits)), uniform)


def batch_ragged(col, c=0):
    """RaggedTensors -> one RaggedTensor whose rows are the elements."""
    from ..ragged import RaggedTensor
    for i, rt in enumerate(col):
        if not is_ragged(rt):
            raise _kind_error(c, i)
        if rt.ragged_rank != col[0].ragged_rank:
            raise errors.InvalidArgumentError(
                None, None, "Cannot batch RaggedTensors of different ragged ranks in "
                "component %d: element 0 has ragged_rank %d and element %d has %d."
                % (c, col[0].ragged_rank, i, rt.ragged_rank))
    dtype = col[0].row_splits.dtype
    lengths = np.asarray([rt.nrows_int() for rt in col], dtype)
    splits = np.zeros(len(col) + 1, dtype)
    np.cumsum(lengths, out=splits[1:])
    rows = RaggedTensor(_concat_rows(list(col)), as_tensor(splits))
    return rows


def batch_rows(col):
    """RaggedRows -> one RaggedTensor with them as its rows."""
    from ..ragged import RaggedTensor
    dtype = getattr(col[0], "_tfn_splits_dtype", np.dtype(np.int64))
    arrs = [np.asarray(x) for x in col]
    lengths = np.asarray([len(a) for a in arrs], dtype)
    splits = np.zeros(len(col) + 1, dtype)
    np.cumsum(lengths, out=splits[1:])
    return RaggedTensor(_concat_rows(arrs), as_tensor(splits))


def batch_column(col, c=0):
    """A component's per-element composite values -> their batch, or None when the
    component is dense."""
    if is_sparse(col[0]):
        return batch_sparse(col, c)
    if is_ragged(col[0]):
        return batch_ragged(col, c)
    if type(col[0]) is RaggedRow:
        return batch_rows(col)
    kinds = set(map(type, col))  # at C speed: dense batches pay almost nothing here
    if len(kinds) > 1 and any(k.__name__ in ("SparseTensor", "RaggedTensor") or
                              k is RaggedRow for k in kinds):
        for i, x in enumerate(col):
            if is_composite(x) or type(x) is RaggedRow:
                raise _kind_error(c, i)
    return None


# ---- unbatch

class _SparseRows:
    """The elements of a batched SparseTensor, cut lazily."""

    def __init__(self, sp):
        ind = np.asarray(sp.indices, np.int64)
        shape = np.asarray(sp.dense_shape, np.int64).reshape(-1)
        if len(shape) == 0:
            raise errors.InvalidArgumentError(
                None, None, "Input must have rank at least 1 to unbatch, got a rank 0 "
                "SparseTensor.")
        order = np.argsort(ind[:, 0], kind="stable")
        self._ind = ind[order]
        self._vals = np.asarray(sp.values)[order]
        self._starts = np.searchsorted(self._ind[:, 0], np.arange(shape[0] + 1))
        self._shape = shape[1:]
        self._n = int(shape[0])

    def __len__(self):
        return self._n

    def element_spec(self):
        from .._trace import CompositeSpec
        return CompositeSpec("sparse", self._vals.dtype, tuple(int(d) for d in self._shape))

    def __getitem__(self, i):
        from ..sparse import SparseTensor
        lo, hi = self._starts[i], self._starts[i + 1]
        return SparseTensor._make(np.ascontiguousarray(self._ind[lo:hi, 1:]),
                                  self._vals[lo:hi], self._shape.copy())


class _RaggedRows:
    """The rows of a ragged-rank-1 RaggedTensor, as RaggedRows."""

    def __init__(self, rt):
        self._rt = rt
        self._dtype = rt.row_splits.dtype

    def __len__(self):
        return len(self._rt)

    def element_spec(self):
        from .._trace import CompositeSpec
        flat = np.asarray(self._rt.flat_values)
        return CompositeSpec("ragged", flat.dtype, (None,) + flat.shape[1:], 0, self._dtype)

    def __getitem__(self, i):
        return _ragged_row(self._rt[i], self._dtype)


def rows_of(x):
    """A batched component -> something with len() and [i] giving its elements, or
    None for a dense component."""
    if is_sparse(x):
        return _SparseRows(x)
    if is_ragged(x):
        return _RaggedRows(x) if x.ragged_rank == 1 else x
    return None


# ---- padded_batch

def _dtype_name(dtype):
    from .. import dtypes
    try:
        return "tf." + dtypes.as_dtype(dtype).name
    except Exception:
        return str(dtype)


def spec_text(x):
    """TensorFlow's repr of the type spec of a parsed composite value (sizes that
    vary per element unknown)."""
    if type(x) is RaggedRow:
        return "RaggedTensorSpec(TensorShape([%s]), %s, 0, %s)" % (
            ", ".join(["None"] + [str(d) for d in x.shape[1:]]), _dtype_name(x.dtype),
            _dtype_name(getattr(x, "_tfn_splits_dtype", np.dtype(np.int64))))
    if is_sparse(x):
        static = getattr(x, "_tfn_static", None)
        dims = ["None"] * int(np.asarray(x.dense_shape).size) if static is None else \
            [str(d) for d in static]
        return "SparseTensorSpec(TensorShape([%s]), %s)" % (
            ", ".join(dims), _dtype_name(x.values.dtype))
    return "RaggedTensorSpec(TensorShape([%s]), %s, %d, %s)" % (
        ", ".join(["None"] * (1 + x.ragged_rank) +
                  [str(d) for d in np.asarray(x.flat_values).shape[1:]]),
        _dtype_name(x.flat_values.dtype), x.ragged_rank, _dtype_name(x.row_splits.dtype))


def _spec_text_static(spec):
    """TensorFlow's repr of a traced composite's type spec (CompositeSpec)."""
    dims = ", ".join("None" if d is None else str(d) for d in (spec.shape or ()))
    if spec.kind == "sparse":
        return "SparseTensorSpec(TensorShape([%s]), %s)" % (dims, _dtype_name(spec.dtype))
    return "RaggedTensorSpec(TensorShape([%s]), %s, %d, %s)" % (
        dims, _dtype_name(spec.dtype), spec.ragged_rank, _dtype_name(spec.row_splits_dtype))


def refuse_padded_spec(specs):
    """refuse_padded at padded_batch(), from the traced element spec's leaves (as
    TensorFlow refuses from its static spec, before any element is made)."""
    for sp in specs:
        if getattr(sp, "kind", None) in ("sparse", "ragged"):
            raise TypeError(
                "`padded_batch` is only supported for datasets that produce tensor "
                "elements but type spec of elements in the input dataset is not a "
                "subclass of TensorSpec: `%s`." % _spec_text_static(sp))


def refuse_padded(leaves):
    """TensorFlow's TypeError when an element of padded_batch holds a composite."""
    for x in leaves:
        if is_composite(x) or type(x) is RaggedRow:
            raise TypeError(
                "`padded_batch` is only supported for datasets that produce tensor "
                "elements but type spec of elements in the input dataset is not a "
                "subclass of TensorSpec: `%s`." % spec_text(x))


__all__ = ["batch_column", "rows_of", "refuse_padded", "refuse_padded_spec",
           "is_composite"]

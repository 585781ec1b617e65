"""``tf.io.serialize_sparse`` / ``serialize_many_sparse``: a SparseTensor as three
serialized TensorProtos (indices, values, dense_shape), byte for byte TensorFlow's; for
the "many" form one row per entry of the first dimension."""
import numpy as np

from .. import errors
from ._raw import _ld, _varint, serialize_tensor


def _sparse(sp_input):
    from ..sparse import SparseTensor
    if not isinstance(sp_input, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    return (np.asarray(sp_input.indices, np.int64), np.asarray(sp_input.values),
            np.asarray(sp_input.dense_shape, np.int64))


def _check_out_type(out_type):
    from .. import dtypes
    if dtypes.as_dtype(out_type) != dtypes.string:
        raise TypeError("tfnano serializes sparse tensors as strings only "
                        "(out_type=tf.string); tf.variant is not supported")


def _string_content(values):
    """Strings as TensorFlow's SerializeSparse writes them: in tensor_content (every
    length as a varint, then the bytes), not in string_val as serialize_tensor does."""
    items = [v.encode() if isinstance(v, str) else bytes(v) for v in values.reshape(-1)]
    shape = b"".join(_ld(2, _varint(1 << 3) + _varint(d) if d else b"") for d in values.shape)
    content = b"".join(_varint(len(v)) for v in items) + b"".join(items)
    return _varint(1 << 3) + _varint(7) + _ld(2, shape) + (_ld(4, content) if items else b"")


def _row(indices, values, shape):
    out = np.empty(3, dtype=object)
    for i, part in enumerate((indices, values, shape)):
        if part.dtype.kind in "OSU":
            out[i] = _string_content(part)
        else:
            out[i] = np.asarray(serialize_tensor(part)).reshape(()).item()
    return out


def serialize_sparse(sp_input, out_type="string", name=None):
    """A string vector of 3: the serialized indices, values and dense_shape."""
    from .._tensor import as_tensor
    ind, val, shape = _sparse(sp_input)
    _check_out_type(out_type)
    return as_tensor(_row(ind, val, shape))


def serialize_many_sparse(sp_input, out_type="string", name=None):
    """[N, 3] strings: row i serializes the entries whose first index is i (indices
    without that first column, dense_shape without its first dimension)."""
    from .._tensor import as_tensor
    ind, val, shape = _sparse(sp_input)
    _check_out_type(out_type)
    rank = shape.shape[0]
    if rank < 2:
        raise errors.InvalidArgumentError(
            None, None, "Rank of input SparseTensor should be > 1, but saw rank: %d" % rank)
    for i in range(1, len(ind)):
        if tuple(ind[i]) <= tuple(ind[i - 1]):
            raise errors.InvalidArgumentError(
                None, None, "indices[%d] = [%s] is out of order. Many sparse ops require "
                "sorted indices.\n    Use `tf.sparse.reorder` to create a correctly ordered "
                "copy.\n\n" % (i, ",".join(str(int(x)) for x in ind[i])))
    n = int(shape[0])
    out = np.empty((n, 3), dtype=object)
    for b in range(n):
        rows = ind[:, 0] == b
        out[b] = _row(ind[rows, 1:], val[rows], shape[1:])
    return as_tensor(out)

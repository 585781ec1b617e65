"""``tf.linalg`` basics an input pipeline may touch: matmul, eye, diag_part, norm."""
import numpy as np

from .._trace import traceable
from ..errors import invalid
from ._common import contiguous as _contiguous, NUMERIC, check_dtype, same_dtype, to_array, wrap


def _matmul_impl(a, b, transpose_a=False, transpose_b=False, name=None, **unused):
    x, y = same_dtype("MatMul", a, b)
    check_dtype("MatMul", x, NUMERIC)
    if x.ndim < 2 or y.ndim < 2:
        raise invalid("In[0] and In[1] has different ndims: %s vs. "
                      "%s" % (list(x.shape), list(y.shape)) if x.ndim != y.ndim
                      else "In[0] ndims must be >= 2: %d" % min(x.ndim, y.ndim))
    if transpose_a:
        x = np.swapaxes(x, -1, -2)
    if transpose_b:
        y = np.swapaxes(y, -1, -2)
    if x.shape[-1] != y.shape[-2]:
        raise invalid("Matrix size-incompatible: In[0]: %s, In[1]: "
                      "%s" % (list(x.shape), list(y.shape)))
    return wrap(np.matmul(x, y))


# On a batch both operands carry the record axis (a constant operand is broadcast
# by numpy's stacked matmul only when it is 2-D), so matmul runs per record.
matmul = traceable("matmul", batch=None)(_matmul_impl)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=np.float32, name=None):
    from .. import dtypes
    out = np.eye(int(num_rows), None if num_columns is None else int(num_columns),
                 dtype=dtypes.as_dtype(dtype).as_numpy_dtype)
    if batch_shape is not None:
        out = np.broadcast_to(out, tuple(batch_shape) + out.shape).copy()
    return wrap(out)


def diag_part(input, name=None, k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002
    return wrap(_contiguous(np.diagonal(to_array(input), int(k), -2, -1)))


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002
    a = to_array(tensor)
    o = None if ord in ("euclidean", "fro") else ord
    if axis is None:
        r = np.linalg.norm(a.reshape(-1), o, keepdims=bool(keepdims))
        if keepdims:
            r = r.reshape((1,) * a.ndim)
    else:
        r = np.linalg.norm(a, o, axis=axis, keepdims=bool(keepdims))
    return wrap(np.asarray(r, a.dtype))

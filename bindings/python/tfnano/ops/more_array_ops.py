"""``tf.tensordot`` and ``tf.reverse_sequence``: array ops public input code calls
(the census in test/census counts each in 3 or more files). Eager and per record in
maps (not traced)."""
import numpy as np

from .. import dtypes as _dt
from ..errors import InvalidArgumentError, invalid
from ._common import to_array, wrap


def _type_name(dtype):
    return {"float32": "float", "float64": "double"}.get(_dt.as_dtype(dtype).name,
                                                         _dt.as_dtype(dtype).name)


def tensordot(a, b, axes, name=None):
    """Sum of products over `axes` (an int: the last n of `a` with the first n of `b`;
    or two lists of axes). Both operands must have the same dtype, as in TensorFlow."""
    x, y = to_array(a), to_array(b)
    if x.dtype != y.dtype:
        raise InvalidArgumentError(
            None, None, "cannot compute MatMul as input #1(zero-based) was expected to be a "
            "%s tensor but is a %s tensor" % (_type_name(x.dtype), _type_name(y.dtype)))
    if np.ndim(axes) == 0:
        n = int(axes)
        ax_a, ax_b = list(range(x.ndim - n, x.ndim)), list(range(n))
    else:
        ax_a, ax_b = [np.atleast_1d(np.asarray(v)).tolist() for v in axes]
    ax_a = [d % x.ndim for d in ax_a]
    ax_b = [d % y.ndim for d in ax_b]
    ka = int(np.prod([x.shape[d] for d in ax_a]))
    kb = int(np.prod([y.shape[d] for d in ax_b]))
    if ka != kb:
        rows = x.size // max(ka, 1) if ka else 0
        cols = y.size // max(kb, 1) if kb else 0
        raise invalid("Matrix size-incompatible: In[0]: [%d,%d], "
                      "In[1]: [%d,%d]" % (rows, ka, kb, cols))
    return wrap(np.tensordot(x, y, axes=(ax_a, ax_b)).astype(x.dtype, copy=False))


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None):  # noqa: A002
    """For each slice i along `batch_axis`, the first seq_lengths[i] entries along
    `seq_axis` reversed; the rest kept."""
    if seq_axis is None:
        raise TypeError("Expected int for argument 'seq_dim' not None.")
    x = to_array(input)
    lens = np.asarray(to_array(seq_lengths)).reshape(-1)
    seq_axis = int(seq_axis) % x.ndim
    batch_axis = 0 if batch_axis is None else int(batch_axis) % x.ndim
    if lens.shape[0] != x.shape[batch_axis]:
        raise invalid("Length of seq_lengths != input.dims(%d), "
                      "(%d vs. %d)" % (batch_axis, lens.shape[0],
                                       x.shape[batch_axis]))
    out = x.copy()
    for i, n in enumerate(lens.tolist()):
        if n > x.shape[seq_axis]:
            raise invalid("seq_lens(%d) > input.dims(%d)"
                          % (i, seq_axis))
        if n < 0:
            raise invalid("seq_lens(%d) < 0" % i)
        src = [slice(None)] * x.ndim
        src[batch_axis] = i
        src[seq_axis] = slice(0, n)
        dst = list(src)
        out[tuple(dst)] = np.flip(x[tuple(src)], axis=seq_axis - (batch_axis < seq_axis))
    return wrap(out)

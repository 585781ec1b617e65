"""``tf.math``: elementwise ops, comparisons, logic and reductions, with TensorFlow's
dtype rules (inputs of one op share one dtype: int32 + int64 is InvalidArgumentError;
int32 / int32 is float64, int8 / int8 float32; integer floordiv / mod by zero is an
error) and its error texts. Elementwise ops run batched as they are ("elementwise");
reductions and scans shift their axis by one on a batch."""
import numpy as np

from .. import dtypes as _dt
from .._trace import Symbol, traceable
from ..errors import InvalidArgumentError, invalid
from ._common import (FLOATS, INTEGERS, NUMERIC, REAL, SIGNED, check_dtype, lenient_infer,
                      plain, same_dtype, shift_axis, to_array, wrap)
from ._common import contiguous as _contiguous


def _broadcast(op, a, b):
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise invalid("Incompatible shapes: [%s] vs. [%s]" % (
",".join(map(str, a.shape)), ",".join(map(str, b.shape)))) from None


def _divide_types(x, y):
    """tf.math.truediv refuses (TypeError) typed operands of two dtypes, and bool or
    string ones, before any kernel runs."""
    from .._tensor import Tensor

    def dtype_of(v, strict):
        # numpy values beside a tensor are converted to its dtype (no refusal)
        if isinstance(v, Symbol):
            return v.spec.dtype
        if isinstance(v, Tensor) or (strict and isinstance(v, (np.ndarray, np.generic))):
            return np.asarray(v).dtype
        return None
    tensors = any(isinstance(v, (Tensor, Symbol)) for v in (x, y))
    dx, dy = dtype_of(x, not tensors), dtype_of(y, not tensors)
    if dx is not None and dy is not None and dx != dy:
        raise TypeError("`x` and `y` must have the same dtype, got %r != %r."
                        % (_dt.as_dtype(dx), _dt.as_dtype(dy)))
    for d in (dx, dy):
        if d is not None and d.kind in "bOSU":
            raise TypeError("Invalid dtype %r in __truediv__" % _dt.as_dtype(d))


def _binary(tf_name, kernel, compute, allowed=None):
    def op(x, y, name=None):
        if kernel == "RealDiv":
            _divide_types(x, y)
        a, b = same_dtype(kernel, x, y)
        if allowed is not None:
            check_dtype(kernel, a, allowed)
        _broadcast(kernel, a, b)
        with np.errstate(all="ignore"):
            return wrap(compute(a, b))
    op.__name__ = tf_name.rsplit(".", 1)[-1]
    op.__qualname__ = op.__name__
    op.__doc__ = "``tf.%s``: elementwise, broadcasting, both inputs of one dtype." % tf_name
    return traceable(tf_name, batch="elementwise", infer=lenient_infer(op))(op)


def _unary(tf_name, compute, allowed=None, unregistered=()):
    def op(x, name=None):
        a = to_array(x)
        if _dt.as_dtype(a.dtype).name in unregistered:  # TF has the op but no CPU kernel
            from ..errors import NotFoundError
            kernel = tf_name.rsplit(".", 1)[-1].capitalize()
            raise NotFoundError(None, None, "Could not find device for node: {{node %s}} = "
                                "%s[T=DT_%s]" % (kernel, kernel, a.dtype.name.upper()))
        if allowed is not None:
            check_dtype(tf_name, a, allowed)
        with np.errstate(all="ignore"):
            return wrap(compute(a))
    op.__name__ = tf_name.rsplit(".", 1)[-1]
    op.__qualname__ = op.__name__
    op.__doc__ = "``tf.%s``: elementwise." % tf_name
    return traceable(tf_name, batch="elementwise", infer=lenient_infer(op))(op)


def _int_divisor_check(a, b):
    if a.dtype.kind in "iu" and np.any(b == 0):
        raise invalid("Integer division by zero")


def _truediv(a, b):
    if a.dtype.kind in "iu":
        float_type = np.float32 if a.dtype.itemsize <= 2 else np.float64
        a, b = a.astype(float_type), b.astype(float_type)
    return np.true_divide(a, b)


def _floordiv(a, b):
    _int_divisor_check(a, b)
    if a.dtype.kind == "b":
        raise invalid("Value for attr 'T' of bool is not in the "
                      "list of allowed values")
    return np.floor_divide(a, b)


def _floormod(a, b):
    _int_divisor_check(a, b)
    return np.mod(a, b)


def _pow(a, b):
    if a.dtype.kind in "iu" and np.any(b < 0) and np.broadcast(a, b).size:
        raise InvalidArgumentError(None, None,
                                   "Integers to negative integer powers are not allowed")
    return np.power(a, b)


def _logical(fn):
    def compute(a, b):
        if a.dtype.kind != "b":
            raise invalid("cannot compute %s as input #0(zero-based)"
                          " was expected to be a bool tensor but is a %s tensor"
                          % (fn.__name__, _dt.as_dtype(a.dtype).name))
        return fn(a, b)
    return compute


def _divide_no_nan(a, b):
    q = _truediv(a, b) if a.dtype.kind in "iu" else np.true_divide(a, b)
    return np.where(b == 0, np.zeros((), q.dtype), q)


add = _binary("math.add", "AddV2", lambda a, b: a + b if a.dtype.kind != "O"
              else np.vectorize(lambda u, v: u + v, otypes=[object])(a, b), NUMERIC + ("string",))
subtract = _binary("math.subtract", "Sub", np.subtract, NUMERIC)
multiply = _binary("math.multiply", "Mul", np.multiply, NUMERIC)
truediv = _binary("math.truediv", "RealDiv", _truediv, NUMERIC)
divide = _binary("math.divide", "RealDiv", _truediv, NUMERIC)
floordiv = _binary("math.floordiv", "FloorDiv", _floordiv, REAL)
floormod = _binary("math.floormod", "FloorMod", _floormod, REAL)
mod = floormod
pow = _binary("math.pow", "Pow", _pow, SIGNED)  # noqa: A001 - TensorFlow's name
maximum = _binary("math.maximum", "Maximum", np.maximum, REAL)
minimum = _binary("math.minimum", "Minimum", np.minimum, REAL)
squared_difference = _binary("math.squared_difference", "SquaredDifference",
                             lambda a, b: (a - b) * (a - b),
                             ("float16", "float32", "float64", "int32", "int64", "complex64",
                              "complex128"))
divide_no_nan = _binary("math.divide_no_nan", "DivNoNan", _divide_no_nan, NUMERIC)
atan2 = _binary("math.atan2", "Atan2", np.arctan2, FLOATS[:3])
equal = _binary("math.equal", "Equal", np.equal)
not_equal = _binary("math.not_equal", "NotEqual", np.not_equal)
less = _binary("math.less", "Less", np.less, REAL)
less_equal = _binary("math.less_equal", "LessEqual", np.less_equal, REAL)
greater = _binary("math.greater", "Greater", np.greater, REAL)
greater_equal = _binary("math.greater_equal", "GreaterEqual", np.greater_equal, REAL)
logical_and = _binary("math.logical_and", "LogicalAnd", _logical(np.logical_and))
logical_or = _binary("math.logical_or", "LogicalOr", _logical(np.logical_or))
logical_xor = _binary("math.logical_xor", "LogicalXor", _logical(np.logical_xor))
bitwise_and = _binary("bitwise.bitwise_and", "BitwiseAnd", np.bitwise_and, INTEGERS)
bitwise_or = _binary("bitwise.bitwise_or", "BitwiseOr", np.bitwise_or, INTEGERS)
bitwise_xor = _binary("bitwise.bitwise_xor", "BitwiseXor", np.bitwise_xor, INTEGERS)

negative = _unary("math.negative", np.negative, SIGNED)
abs = _unary("math.abs", np.abs, SIGNED)  # noqa: A001 - TensorFlow's name
sign = _unary("math.sign", np.sign, SIGNED)
square = _unary("math.square", np.square, NUMERIC)
sqrt = _unary("math.sqrt", np.sqrt, FLOATS)
rsqrt = _unary("math.rsqrt", lambda a: 1 / np.sqrt(a), FLOATS)
reciprocal = _unary("math.reciprocal", np.reciprocal, FLOATS,
                    unregistered=("int8", "int16", "int32", "int64"))
exp = _unary("math.exp", np.exp, FLOATS)
expm1 = _unary("math.expm1", np.expm1, FLOATS)
log = _unary("math.log", np.log, FLOATS)
log1p = _unary("math.log1p", np.log1p, FLOATS)
sin = _unary("math.sin", np.sin, FLOATS)
cos = _unary("math.cos", np.cos, FLOATS)
tan = _unary("math.tan", np.tan, FLOATS)
tanh = _unary("math.tanh", np.tanh, FLOATS)
sigmoid = _unary("math.sigmoid", lambda a: (1 / (1 + np.exp(-a))).astype(a.dtype), FLOATS)
softplus = _unary("math.softplus", lambda a: np.logaddexp(0, a).astype(a.dtype), FLOATS[:3])
floor = _unary("math.floor", np.floor, FLOATS[:3])
ceil = _unary("math.ceil", np.ceil, FLOATS[:3])
round = _unary("math.round", np.round, REAL)  # noqa: A001 - half to even, as TF
rint = _unary("math.rint", np.rint, ("float32", "float64"))
is_nan = _unary("math.is_nan", np.isnan, FLOATS[:3])
is_inf = _unary("math.is_inf", np.isinf, FLOATS[:3])
is_finite = _unary("math.is_finite", np.isfinite, FLOATS[:3])
logical_not = _unary("math.logical_not", np.logical_not, ("bool",))
invert = _unary("bitwise.invert", np.invert, INTEGERS)


# ------------------------------------------------------------------ reductions

def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    raw = plain(axis)
    items = np.asarray(raw).reshape(-1).tolist()
    out = []
    for ax in items:
        ax = int(ax)
        if ax < -ndim or ax >= ndim:
            raise invalid("Invalid reduction dimension (%d for "
                          "input with %d dimension(s)" % (ax, ndim))
        out.append(ax % ndim if ndim else ax)
    return tuple(sorted(set(out)))


def _reduction(tf_name, compute, allowed):
    def op(input_tensor, axis=None, keepdims=False, name=None):
        a = to_array(input_tensor)
        check_dtype(tf_name, a, allowed)
        axes = _axes(axis, a.ndim)
        with np.errstate(all="ignore"):
            return wrap(np.asarray(compute(a, axes, bool(keepdims))))

    def batched(input_tensor, axis=None, keepdims=False, name=None):
        a = np.asarray(input_tensor)
        axes = tuple(range(1, a.ndim)) if axis is None else shift_axis(
            np.asarray(plain(axis)).reshape(-1).tolist())
        return op(a, axes, keepdims)
    op.__name__ = tf_name.rsplit(".", 1)[-1]
    op.__qualname__ = op.__name__
    op.__doc__ = "``tf.%s(input_tensor, axis=None, keepdims=False)``." % tf_name
    return traceable(tf_name, batch=batched)(op)


def _sum(a, axes, keep):
    return np.sum(a, axis=axes, keepdims=keep, dtype=a.dtype)


def _prod(a, axes, keep):
    return np.prod(a, axis=axes, keepdims=keep, dtype=a.dtype)


def _mean(a, axes, keep):
    count = int(np.prod([a.shape[i] for i in axes])) if axes else 1
    if a.dtype.kind in "iu":
        total = np.sum(a, axis=axes, keepdims=keep, dtype=np.int64)
        if count == 0:
            return np.zeros(total.shape, a.dtype)
        # Integer mean truncates toward zero, as TensorFlow's kernel divides.
        q = np.abs(total) // count * np.sign(total)
        return q.astype(a.dtype)
    return np.mean(a, axis=axes, keepdims=keep, dtype=a.dtype)


def _extreme(fn, lowest):
    def compute(a, axes, keep):
        if a.dtype.kind == "f":
            init = -np.inf if lowest else np.inf
        elif a.dtype.kind in "iu":
            info = np.iinfo(a.dtype)
            init = info.min if lowest else info.max
        else:
            init = not lowest
        return fn(a, axis=axes, keepdims=keep, initial=init)
    return compute


def _variance(a, axes, keep):
    return np.var(a, axis=axes, keepdims=keep).astype(a.dtype)


def _std(a, axes, keep):
    return np.std(a, axis=axes, keepdims=keep).astype(a.dtype)


def _logsumexp(a, axes, keep):
    m = np.max(a, axis=axes, keepdims=True, initial=-np.inf)
    m = np.where(np.isfinite(m), m, 0)
    s = np.log(np.sum(np.exp(a - m), axis=axes, keepdims=True)) + m
    return (s if keep else np.squeeze(s, axis=axes)).astype(a.dtype)


reduce_sum = _reduction("math.reduce_sum", _sum, NUMERIC)
reduce_prod = _reduction("math.reduce_prod", _prod, NUMERIC)
reduce_mean = _reduction("math.reduce_mean", _mean, NUMERIC)
reduce_max = _reduction("math.reduce_max", _extreme(np.max, True), REAL)
reduce_min = _reduction("math.reduce_min", _extreme(np.min, False), REAL)
reduce_any = _reduction("math.reduce_any", lambda a, ax, k: np.any(a, axis=ax, keepdims=k),
                        ("bool",))
reduce_all = _reduction("math.reduce_all", lambda a, ax, k: np.all(a, axis=ax, keepdims=k),
                        ("bool",))
reduce_variance = _reduction("math.reduce_variance", _variance, FLOATS)
reduce_std = _reduction("math.reduce_std", _std, FLOATS)
reduce_logsumexp = _reduction("math.reduce_logsumexp", _logsumexp, FLOATS[:3])


def _count_nonzero(input, axis=None, keepdims=None, dtype=_dt.int64, name=None):
    a = to_array(input)
    axes = _axes(axis, a.ndim)
    nz = a != (b"" if a.dtype == object else 0)
    return wrap(np.sum(nz, axis=axes, keepdims=bool(keepdims)).astype(_dt.as_dtype(dtype)
                                                                          .as_numpy_dtype))


def _count_nonzero_batch(input, axis=None, keepdims=None, dtype=_dt.int64, name=None):
    a = np.asarray(input)
    axes = tuple(range(1, a.ndim)) if axis is None else shift_axis(
        np.asarray(axis).reshape(-1).tolist())
    return _count_nonzero(a, axes, keepdims, dtype)


count_nonzero = traceable("math.count_nonzero", batch=_count_nonzero_batch)(_count_nonzero)


def _arg(tf_name, fn):
    def op(input, axis=None, output_type=_dt.int64, name=None):
        a = to_array(input)
        check_dtype(tf_name, a, REAL + ("bool",))
        ax = 0 if axis is None else int(plain(axis))
        if ax < -a.ndim or ax >= a.ndim:
            raise invalid("Expected dimension in the range [%d, %d),"
                          " but got %d" % (-a.ndim, a.ndim, ax))
        if a.shape[ax] == 0:
            raise invalid("Reduction axis %d is empty in shape %s"
                          % (ax, list(a.shape)))
        return wrap(fn(a, axis=ax).astype(_dt.as_dtype(output_type).as_numpy_dtype))

    def batched(input, axis=None, output_type=_dt.int64, name=None):
        return op(input, shift_axis(0 if axis is None else int(axis)), output_type)
    op.__name__ = tf_name.rsplit(".", 1)[-1]
    op.__qualname__ = op.__name__
    op.__doc__ = "``tf.%s``: index of the extreme along `axis` (default 0), int64." % tf_name
    return traceable(tf_name, batch=batched)(op)


argmax = _arg("math.argmax", np.argmax)
argmin = _arg("math.argmin", np.argmin)


def _scan(tf_name, fn):
    def op(x, axis=0, exclusive=False, reverse=False, name=None):
        a = to_array(x)
        check_dtype(tf_name, a, NUMERIC)
        ax = int(plain(axis))
        if ax < -a.ndim or ax >= a.ndim:
            raise invalid("ScanOp: Expected scan axis in the range "
                          "[%d, %d), but got %d" % (-a.ndim, a.ndim, ax))
        if reverse:
            a = np.flip(a, ax)
        r = fn(a, axis=ax, dtype=a.dtype)
        if exclusive:
            ident = 0 if fn is np.cumsum else 1
            r = np.concatenate([np.full_like(np.take(r, [0], axis=ax), ident),
                                np.take(r, range(r.shape[ax] - 1), axis=ax)], axis=ax)
        if reverse:
            r = np.flip(r, ax)
        return wrap(_contiguous(r))

    def batched(x, axis=0, exclusive=False, reverse=False, name=None):
        return op(x, shift_axis(int(axis)), exclusive, reverse)
    op.__name__ = tf_name.rsplit(".", 1)[-1]
    op.__qualname__ = op.__name__
    return traceable(tf_name, batch=batched)(op)


cumsum = _scan("math.cumsum", np.cumsum)
cumprod = _scan("math.cumprod", np.cumprod)


def add_n(inputs, name=None):
    """``tf.math.add_n``: the sum of a list of tensors of one dtype and shape."""
    if not inputs:
        raise ValueError("inputs must be an iterable of at least one Tensor/IndexedSlices "
                         "with the same dtype and shape")
    total = inputs[0]
    for v in inputs[1:]:
        total = add(total, v)
    return total if len(inputs) > 1 else wrap(to_array(total))


def scalar_mul(scalar, x, name=None):
    return multiply(x, scalar)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None):
    a = to_array(x)
    check_dtype("math.l2_normalize", a, FLOATS)
    sq = np.sum(a * a, axis=axis, keepdims=True)
    return wrap((a / np.sqrt(np.maximum(sq, epsilon))).astype(a.dtype))


def top_k(input, k=1, sorted=True, name=None):  # noqa: A002
    """``tf.math.top_k``: (values, indices int32) of the k largest along the last axis."""
    import collections
    a = to_array(input)
    if a.ndim < 1:
        raise invalid("input must be at least 1-D")
    if k > a.shape[-1]:
        raise invalid("input must have at least k columns. Had %d,"
                      " needed %d" % (a.shape[-1], k))
    idx = np.argsort(-a if a.dtype.kind != "u" else ~a, axis=-1, kind="stable")[..., :k]
    TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])
    return TopKV2(wrap(np.take_along_axis(a, idx, -1)), wrap(idx.astype(np.int32)))


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=_dt.int32,
             name=None, axis=None, binary_output=False):
    a = to_array(arr)
    if a.size and a.min() < 0:
        raise invalid("Input arr must be non-negative!")
    n = max(int(a.max()) + 1 if a.size else 0, int(minlength or 0))
    if maxlength is not None:
        n = min(n, int(maxlength))
        keep = a < n
        a = a[keep]
        weights = None if weights is None else to_array(weights)[keep]
    w = None if weights is None else to_array(weights).reshape(-1)
    out = np.bincount(a.reshape(-1), weights=w, minlength=n)[:n]
    if binary_output:
        out = out > 0
    return wrap(out.astype(_dt.as_dtype(dtype).as_numpy_dtype if w is None else w.dtype))


def _tensor_equals(x, y):
    """``Tensor.__eq__``: elementwise, but False (not an error) when shapes cannot
    broadcast, as TensorFlow's operator does."""
    a, b = same_dtype("Equal", x, y)
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        return wrap(np.asarray(False))
    return wrap(np.equal(a, b))


def _tensor_not_equals(x, y):
    a, b = same_dtype("NotEqual", x, y)
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        return wrap(np.asarray(True))
    return wrap(np.not_equal(a, b))


tensor_equals = traceable("Tensor.__eq__", batch="elementwise",
                          infer=lenient_infer(_tensor_equals))(_tensor_equals)
tensor_not_equals = traceable("Tensor.__ne__", batch="elementwise",
                              infer=lenient_infer(_tensor_not_equals))(_tensor_not_equals)


def _is_bool(x):
    if isinstance(x, Symbol):
        return x.spec.dtype is not None and x.spec.dtype.kind == "b"
    return to_array(x).dtype.kind == "b"


def _mul_operator(x, y):
    """``x * y``: on bool tensors TensorFlow's operator is logical_and (a Python number
    taken as its truth value)."""
    if _is_bool(x) and not isinstance(y, (np.ndarray, np.generic, Symbol)) and \
            np.asarray(y).dtype.kind in "iub":
        return logical_and(x, np.asarray(y).astype(bool))
    return multiply(x, y)


def _and(x, y):
    return logical_and(x, y) if _is_bool(x) else bitwise_and(x, y)


def _or(x, y):
    return logical_or(x, y) if _is_bool(x) else bitwise_or(x, y)


def _xor(x, y):
    return logical_xor(x, y) if _is_bool(x) else bitwise_xor(x, y)


def _invert_op(x):
    return logical_not(x) if _is_bool(x) else invert(x)


# Operators dispatch on the first operand's dtype (bool: logical, integers: bitwise):
# plain functions, since the ops they pick are traceable themselves.
logical_or_bitwise_and = _and
logical_or_bitwise_or = _or
logical_or_bitwise_xor = _xor
logical_or_bitwise_invert = _invert_op
multiply_operator = _mul_operator


# ------------------------------------------------------------ more math ops

asin = _unary("math.asin", np.arcsin, FLOATS)
acos = _unary("math.acos", np.arccos, FLOATS)
atan = _unary("math.atan", np.arctan, FLOATS)
sinh = _unary("math.sinh", np.sinh, FLOATS)
cosh = _unary("math.cosh", np.cosh, FLOATS)
asinh = _unary("math.asinh", np.arcsinh, FLOATS)
acosh = _unary("math.acosh", np.arccosh, FLOATS)
atanh = _unary("math.atanh", np.arctanh, FLOATS)
log_sigmoid = _unary("math.log_sigmoid", lambda a: (-np.logaddexp(0, -a)).astype(a.dtype),
                     FLOATS[:3])
softsign = _unary("math.softsign", lambda a: (a / (1 + np.abs(a))).astype(a.dtype),
                  FLOATS[:3])


def _softmax_impl(logits, axis=-1, name=None, log=False):
    a = to_array(logits)
    check_dtype("Softmax", a, FLOATS[:3])
    m = np.max(a, axis=axis, keepdims=True) if a.size else a
    z = a - m
    lse = np.log(np.sum(np.exp(z), axis=axis, keepdims=True))
    out = z - lse if log else np.exp(z - lse)
    return wrap(out.astype(a.dtype))


softmax = traceable("math.softmax", batch=lambda logits, axis=-1, name=None: _softmax_impl(
    logits, shift_axis(int(axis))))(lambda logits, axis=-1, name=None: _softmax_impl(
        logits, axis))
log_softmax = traceable("math.log_softmax", batch=lambda logits, axis=-1, name=None:
                        _softmax_impl(logits, shift_axis(int(axis)), log=True))(
    lambda logits, axis=-1, name=None: _softmax_impl(logits, axis, log=True))


def _segments(op, data, segment_ids, num_segments=None, sorted_ids=True):
    d, ids = to_array(data), to_array(segment_ids)
    if sorted_ids and ids.size and np.any(np.diff(ids) < 0):
        raise invalid("segment ids are not increasing")
    n = int(plain(num_segments)) if num_segments is not None else \
        (int(ids.max()) + 1 if ids.size else 0)
    if ids.size and (ids.min() < 0 and sorted_ids):
        raise invalid("segment ids must be >= 0")
    flat = d.reshape((ids.size,) + d.shape[ids.ndim:])
    ids = ids.reshape(-1)
    if op == "sum" or op == "mean":
        out = np.zeros((n,) + flat.shape[1:], d.dtype)
        valid = (ids >= 0) & (ids < n)
        np.add.at(out, ids[valid], flat[valid])
        if op == "mean":
            counts = np.bincount(ids[valid], minlength=n).reshape((n,) + (1,) * (d.ndim - 1))
            out = np.where(counts > 0, out / np.maximum(counts, 1), 0).astype(d.dtype)
        return wrap(out)
    fill = {"max": np.finfo(d.dtype).min if d.dtype.kind == "f" else np.iinfo(d.dtype).min,
            "min": np.finfo(d.dtype).max if d.dtype.kind == "f" else np.iinfo(d.dtype).max,
            "prod": 1}[op]
    if sorted_ids and op in ("max", "min"):
        fill = 0
    out = np.full((n,) + flat.shape[1:], fill, d.dtype)
    seen = np.zeros(n, bool)
    ufunc = {"max": np.maximum, "min": np.minimum, "prod": np.multiply}[op]
    for i, s in enumerate(ids):
        if 0 <= s < n:
            out[s] = flat[i] if not seen[s] else ufunc(out[s], flat[i])
            seen[s] = True
    return wrap(out)


def segment_sum(data, segment_ids, name=None):
    return _segments("sum", data, segment_ids)


def segment_mean(data, segment_ids, name=None):
    return _segments("mean", data, segment_ids)


def segment_max(data, segment_ids, name=None):
    return _segments("max", data, segment_ids)


def segment_min(data, segment_ids, name=None):
    return _segments("min", data, segment_ids)


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    return _segments("sum", data, segment_ids, num_segments, sorted_ids=False)


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    return _segments("mean", data, segment_ids, num_segments, sorted_ids=False)


def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    return _segments("max", data, segment_ids, num_segments, sorted_ids=False)


def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    return _segments("min", data, segment_ids, num_segments, sorted_ids=False)


def xlogy(x, y, name=None):
    a, b = same_dtype("Xlogy", x, y)
    with np.errstate(all="ignore"):
        return wrap(np.where(a == 0, np.zeros((), a.dtype), a * np.log(b)).astype(a.dtype))


# Static result shapes, no batched form: recorded in a trace, run per record.
top_k = traceable("math.top_k", batch=None)(top_k)
l2_normalize = traceable("math.l2_normalize", batch=None)(l2_normalize)

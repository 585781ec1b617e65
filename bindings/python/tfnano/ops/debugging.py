"""``tf.debugging`` asserts (``assert_equal`` and the other comparisons, ``Assert``) and
TF1's ``tf.compat.v1.Print``, eager, with TensorFlow's messages."""
import sys

import numpy as np

from .. import errors
from ._common import to_array

_COMPARE = {
    "==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal,
    ">": np.greater, ">=": np.greater_equal,
}


def _pretty(item):
    return str(item)


def _dims(shape):
    return "[%s]" % ",".join(str(d) for d in shape)


def _compare(sym, x, y, message=None, summarize=None):
    a, b = to_array(x), to_array(y)
    if a.dtype != b.dtype and not (a.dtype.kind in "SUO" and b.dtype.kind in "SUO"):
        names = {"float32": "float", "float64": "double"}
        from .. import dtypes as _dt
        raise errors.InvalidArgumentError(
            None, None, "cannot compute %s as input #1(zero-based) was expected to be a %s "
            "tensor but is a %s tensor" % (
                {"==": "Equal", "!=": "NotEqual", "<": "Less", "<=": "LessEqual",
                 ">": "Greater", ">=": "GreaterEqual"}[sym],
                names.get(_dt.as_dtype(a.dtype).name, _dt.as_dtype(a.dtype).name),
                names.get(_dt.as_dtype(b.dtype).name, _dt.as_dtype(b.dtype).name)))
    try:
        held = _COMPARE[sym](a, b)
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, "Incompatible shapes: %s vs. %s" % (_dims(a.shape), _dims(b.shape))
        ) from None
    if np.all(held):
        return None
    summarize = 3 if summarize is None else (10 ** 9 if summarize < 0 else summarize)
    data = ["Condition x %s y did not hold." % sym]
    if summarize > 0:
        if a.shape == b.shape and a.shape:
            mask = ~np.asarray(held)
            idx = np.argwhere(mask)
            k = min(summarize, idx.shape[0])
            data += ["Indices of first %d different values:" % k, idx[:k],
                     "Corresponding x values:", a[mask].reshape(-1)[:k],
                     "Corresponding y values:", b[mask].reshape(-1)[:k]]
        fx, fy = a.reshape(-1), b.reshape(-1)
        data += ["First %d elements of x:" % min(fx.size, summarize), fx[:summarize],
                 "First %d elements of y:" % min(fy.size, summarize), fy[:summarize]]
    if message is not None:
        data = [message] + data
    raise errors.invalid("\n".join(_pretty(d) for d in data))


def assert_equal(x, y, message=None, summarize=None, name=None):
    """None when x == y everywhere; otherwise InvalidArgumentError saying where not."""
    return _compare("==", x, y, message, summarize)


def assert_none_equal(x, y, message=None, summarize=None, name=None):
    return _compare("!=", x, y, message, summarize)


def assert_less(x, y, message=None, summarize=None, name=None):
    return _compare("<", x, y, message, summarize)


def assert_less_equal(x, y, message=None, summarize=None, name=None):
    return _compare("<=", x, y, message, summarize)


def assert_greater(x, y, message=None, summarize=None, name=None):
    return _compare(">", x, y, message, summarize)


def assert_greater_equal(x, y, message=None, summarize=None, name=None):
    return _compare(">=", x, y, message, summarize)


def _summary(item, summarize):
    """One data item of Assert's message: text as bytes' repr, numbers joined by ", "."""
    if isinstance(item, (str, bytes)):
        return repr(item.encode() if isinstance(item, str) else item)
    a = np.asarray(item.numpy() if hasattr(item, "numpy") else item)
    flat = a.reshape(-1)
    vals = [repr(v.encode() if isinstance(v, str) else v) if isinstance(v, (str, bytes))
            else str(v) for v in flat[:summarize].tolist()]
    if a.dtype.kind == "f":
        vals = [repr(float(v)) if np.isfinite(v) else str(v) for v in
                flat[:summarize].astype(np.float64)]
    return ", ".join(vals) + (", ..." if flat.size > summarize else "")


def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TensorFlow's name
    """Raises InvalidArgumentError with `data` summarized when `condition` is false."""
    ok = bool(np.asarray(condition.numpy() if hasattr(condition, "numpy") else condition))
    if ok:
        return None
    summarize = 3 if summarize is None else summarize
    raise errors.InvalidArgumentError(
        None, None, "Expected '%s' to be true. Summarized data: %s"
        % (condition, "\n".join(_summary(d, summarize) for d in data)))


def _print_value(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, float):
        if np.isfinite(v) and v == int(v) and abs(v) < 1e16:
            return str(int(v))
        return "%g" % v
    return str(v)


def _print_summary(a, limit):
    """TensorFlow's legacy SummarizeValue: nested brackets, `limit` values, '...'."""
    flat = [_print_value(v) for v in a.reshape(-1).tolist()]
    if a.ndim == 0:
        return flat[0]
    out, index = [], [0]

    def dim(d):
        if index[0] >= limit:
            return
        if d == a.ndim - 1:
            for i in range(a.shape[d]):
                if index[0] >= limit:
                    if d != 0:
                        out.append("...")
                    return
                if i > 0:
                    out.append(" ")
                out.append(flat[index[0]])
                index[0] += 1
            return
        for _ in range(a.shape[d]):
            opened = index[0] < limit
            if opened:
                out.append("[")
            dim(d + 1)
            if index[0] < limit or opened:
                out.append("]")
    dim(0)
    if len(flat) > limit:
        out.append("...")
    return "".join(out)


def Print(input_, data, message=None, first_n=None, summarize=None, name=None):  # noqa: N802
    """TF1's tf.Print: writes `message` and each of `data` to stderr, returns `input_`."""
    from .._tensor import convert_to_tensor
    limit = 3 if summarize is None else (10 ** 9 if summarize < 0 else summarize)
    parts = [message or ""]
    for d in data:
        a = to_array(d)
        parts.append("[" + _print_summary(a, limit) + "]")
    print("".join(parts), file=sys.stderr)
    return convert_to_tensor(input_)

"""``tf.py_function`` and ``tf.numpy_function``: any Python inside a pipeline.

Inside a traced tf.data map function they are recorded as ops that always run per
record (batch=None), so a map holding one runs per record (its other ops still traced)
and the reason is shown. Outside a map they call the function at once.

As TensorFlow: ``py_function`` hands the function Tensors (``.numpy()`` works) and
converts its results to ``Tout``; ``numpy_function`` hands it numpy arrays and, inside
a map, requires results of exactly ``Tout``'s dtypes (InvalidArgumentError
"0-th value returned by pyfunc_0 is double, but expects float"), while called eagerly
it converts results without a dtype, as TensorFlow's eager mode does."""
import numpy as np

from .. import dtypes as _dt
from .._tensor import Tensor, constant
from .._trace import Spec, traceable
from ..errors import invalid
from ._common import kernel_name, like_symbol, plain, wrap


def _flat_tout(Tout):
    if isinstance(Tout, (list, tuple)):
        return [None if t is None else _dt.as_dtype(t) for t in Tout], True
    return [None if Tout is None else _dt.as_dtype(Tout)], False


def _infer(func, inp, Tout, kind, name=None, _like=None):
    touts, many = _flat_tout(Tout)
    specs = [Spec(None if t is None else (object if t is _dt.string else t.as_numpy_dtype),
                  None) for t in touts]
    return specs if many else specs[0]


def _results(values, touts, many):
    if not many:
        values = [values]
    elif not isinstance(values, (list, tuple)):
        values = [values]
    return list(values)[:len(touts)] if len(values) >= len(touts) else list(values)


@traceable("py_function", batch=None,
           infer=lambda func, inp, Tout, name=None, _like=None: _infer(func, inp, Tout, "py"))
def _py_function(func, inp, Tout, name=None, _like=None):
    args = [v if isinstance(v, Tensor) else constant(v) if not isinstance(v, np.ndarray)
            else wrap(v) for v in (inp or [])]
    touts, many = _flat_tout(Tout)
    out = func(*args)
    if Tout is None or (many and not touts):
        return None
    vals = _results(out, touts, many)
    converted = []
    for v, t in zip(vals, touts):
        if hasattr(v, "numpy") and not isinstance(v, np.ndarray):
            v = v.numpy()
        if t is _dt.string:
            converted.append(constant(v, dtype=t))
        else:
            a = np.asarray(plain(v) if isinstance(v, np.ndarray) else v)
            converted.append(wrap(a.astype(t.as_numpy_dtype)))
    return converted if many else converted[0]


def py_function(func=None, inp=None, Tout=None, name=None):
    """``tf.py_function(func, inp, Tout)``: func gets Tensors; results converted to Tout
    (a dtype, or a list of dtypes for several results)."""
    if func is None:  # decorator form: @tf.py_function(Tout=...)
        return lambda f: (lambda *a: py_function(f, list(a), Tout, name))
    like = like_symbol()
    if like is not None:
        return _py_function(func, inp, Tout, name, _like=like)
    return _py_function(func, inp, Tout, name)


@traceable("numpy_function", batch=None,
           infer=lambda func, inp, Tout, stateful=True, name=None, _like=None:
           _infer(func, inp, Tout, "numpy"))
def _numpy_function(func, inp, Tout, stateful=True, name=None, _like=None):
    args = []
    for v in inp or []:
        a = np.asarray(plain(v) if isinstance(v, np.ndarray) else constant(v).view(np.ndarray))
        args.append(a[()] if a.ndim == 0 and a.dtype != object else a)
    touts, many = _flat_tout(Tout)
    out = func(*args)
    vals = _results(out, touts, many)
    converted = []
    for i, (v, t) in enumerate(zip(vals, touts)):
        if _like is not None:  # inside a map (graph): the dtype must be Tout's
            a = np.asarray(v)
            got = _dt.string if a.dtype.kind in "SUO" else _dt.as_dtype(a.dtype)
            if got != t:
                raise invalid("%d-th value returned by pyfunc_0 is "
                              "%s, but expects %s" % (i, kernel_name(got),
                                                      kernel_name(t)))
            converted.append(constant(a) if got is _dt.string else wrap(a))
        else:
            converted.append(constant(v) if not isinstance(v, np.ndarray) else
                             constant(v) if v.dtype.kind in "SUO" else wrap(v))
    return converted if many else converted[0]


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
    """``tf.numpy_function(func, inp, Tout)``: func gets numpy arrays."""
    if func is None:
        return lambda f: (lambda *a: numpy_function(f, list(a), Tout, stateful, name))
    like = like_symbol()
    if like is not None:
        return _numpy_function(func, inp, Tout, stateful, name, _like=like)
    return _numpy_function(func, inp, Tout, stateful, name)


py_func = numpy_function

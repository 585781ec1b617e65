"""What every tensor op shares: TensorFlow's conversion of arguments to typed arrays,
its dtype rules for ops taking several tensors (no silent upcasting), its error texts,
and wrapping results as :class:`tfnano.Tensor`.

Ops work on plain ndarray views internally (``plain``) so that the operators defined on
Tensor are never re-entered from inside an op."""
import numpy as np

from .. import dtypes as _dt
from .._tensor import Tensor, _infer, as_tensor, constant
from ..errors import InvalidArgumentError

# TensorFlow's C++ names for dtypes in kernel messages ("float", "double").
_KERNEL_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def kernel_name(dtype):
    name = _dt.as_dtype(dtype).name
    return _KERNEL_NAMES.get(name, name)


def plain(a):
    return a.view(np.ndarray) if isinstance(a, np.ndarray) else a


def typed(x):
    """True for values that carry a dtype TensorFlow keeps (tensors, numpy values)."""
    return isinstance(x, (np.ndarray, np.generic))


def to_array(x, dtype=None):
    """``tf.convert_to_tensor`` as a plain ndarray (Python ints int32, floats float32,
    text bytes objects)."""
    if dtype is not None:
        return plain(constant(x, dtype=dtype))
    if isinstance(x, np.ndarray):
        x = plain(x)  # numpy's dtype from here on (a Tensor's .dtype is TensorFlow's)
        if x.dtype.kind not in "SU":
            return x
    return plain(_infer(x))


def wrap(a):
    """A result as a Tensor (numpy scalars become 0-d Tensors)."""
    if isinstance(a, bytes):  # one string (an element of a string tensor): TF's object
        out = np.empty((), dtype=object)
        out[()] = bytes(a)
        return out.view(Tensor)
    if not isinstance(a, np.ndarray):
        a = np.asarray(a)
    return a.view(Tensor) if type(a) is not Tensor else a


def type_error(op, index, want, got):
    return InvalidArgumentError(
        None, None, "cannot compute %s as input #%d(zero-based) was expected to be a %s "
        "tensor but is a %s tensor" % (op, index, kernel_name(want), kernel_name(got)))


def _python_into(op, value, dtype, index, reflected):
    """A Python number or list converted to `dtype`, as TensorFlow converts the other
    operand of a binary op: a float into an integer tensor is refused (TypeError);
    ``x + y`` (TensorFlow's _add_dispatch) falls back to the value's own dtype, so
    there the refusal is the kernel's InvalidArgumentError."""
    try:
        return _python_into_strict(op, value, dtype, index, reflected)
    except TypeError:
        if op == "AddV2" and not reflected:
            raise type_error(op, index, dtype, _infer(value).dtype) from None
        raise


def _python_into_strict(op, value, dtype, index, reflected):
    arr = np.asarray(value)
    if dtype.kind == "b" and arr.dtype.kind != "b":
        raise TypeError("Cannot convert %r to EagerTensor of dtype bool" % (value,))
    # A Python bool converts to int32/int64/floats (as an int) but not to narrow ints.
    if arr.dtype.kind == "b" and dtype.kind in "iu" and dtype.itemsize < 4:
        raise TypeError("Cannot convert %r to EagerTensor of dtype %s"
                        % (value, _dt.as_dtype(dtype).name))
    if arr.dtype.kind in "SUO":
        if dtype.kind == "O":
            return to_array(value)
        raise type_error(op, index, dtype, _dt.string)
    if arr.dtype.kind == "f" and dtype.kind in "iub":
        raise TypeError("Cannot convert %r to EagerTensor of dtype %s"
                        % (value, _dt.as_dtype(dtype).name))
    if arr.dtype.kind == "c" and dtype.kind != "c":
        raise type_error(op, index, dtype, np.complex128)
    if dtype.kind == "O":
        raise type_error(op, index, dtype, _infer(value).dtype)
    with np.errstate(over="ignore"):
        return arr.astype(dtype) if arr.dtype.kind != "i" else \
            (arr.astype(np.int64).astype(dtype) if dtype.kind in "iu" else arr.astype(dtype))


def same_dtype(op, *values):
    """Converts the inputs of an op whose inputs share one dtype (TensorFlow's `T`):
    the first typed input fixes it; a Tensor (or, between numpy values, any typed value)
    of another dtype is InvalidArgumentError; numpy arrays beside a Tensor and Python
    numbers are converted to it. Returns plain ndarrays."""
    anchor = None
    for i, v in enumerate(values):
        if isinstance(v, Tensor):
            anchor = i
            break
    if anchor is None:
        for i, v in enumerate(values):
            if typed(v):
                anchor = i
                break
    if anchor is None:
        anchor = 0
    first = to_array(values[anchor])
    dtype = first.dtype
    out = []
    for i, v in enumerate(values):
        if i == anchor:
            out.append(first)
        elif isinstance(v, Tensor) or (typed(v) and not isinstance(values[anchor], Tensor)):
            a = plain(np.asarray(v))
            if a.dtype.kind in "SU":
                a = to_array(a)
            if a.dtype != dtype:
                raise type_error(op, i, dtype, a.dtype)
            out.append(a)
        elif typed(v):  # a numpy value beside a Tensor takes the Tensor's dtype
            a = np.asarray(v)
            if dtype.kind == "O" or a.dtype.kind in "SUO":
                a = to_array(a)
                if a.dtype != dtype:
                    raise type_error(op, i, dtype, a.dtype)
                out.append(a)
            else:
                with np.errstate(over="ignore", invalid="ignore"):
                    out.append(a.astype(dtype))
        else:
            out.append(_python_into(op, v, dtype, i, reflected=i < anchor))
    return out


def check_dtype(op, a, allowed):
    """TensorFlow's refusal of a dtype an op's kernel does not take."""
    name = _dt.as_dtype(a.dtype).name
    if name not in allowed:
        pretty = ", ".join(_KERNEL_NAMES.get(n, n) for n in allowed)
        raise InvalidArgumentError(
            None, None, "Value for attr 'T' of %s is not in the list of allowed values: %s"
            % (kernel_name(a.dtype), pretty))


FLOATS = ("float16", "float32", "float64", "complex64", "complex128")
SIGNED = ("float16", "float32", "float64", "int8", "int16", "int32", "int64",
          "complex64", "complex128")
NUMERIC = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
           "uint16", "uint32", "uint64", "complex64", "complex128")
REAL = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
        "uint16", "uint32", "uint64")
INTEGERS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def shape_list(shape):
    """A shape argument (list, tuple, TensorShape, 1-D tensor) as a list of ints."""
    if shape is None:
        return None
    if hasattr(shape, "as_list"):
        return shape.as_list()
    a = np.asarray(plain(shape) if isinstance(shape, np.ndarray) else shape)
    if a.ndim == 0:
        return [int(a)]
    return [int(v) for v in a.reshape(-1)]


def norm_axis(axis, ndim, op="axis"):
    if axis < -ndim or axis >= max(ndim, 1):
        raise InvalidArgumentError(
            None, None, "Expected axis in the range [%d, %d), but got %d"
            % (-ndim, ndim, axis))
    return axis + ndim if axis < 0 else axis


def shift_axis(axis):
    """A per-record axis as the same axis of a batch (record axis first)."""
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        return type(axis)(shift_axis(a) for a in axis)
    if isinstance(axis, np.ndarray):
        return shift_axis(axis.tolist())
    axis = int(axis)
    return axis + 1 if axis >= 0 else axis


__all__ = ["as_tensor", "Tensor"]


def contiguous(a):
    """A C-contiguous copy keeping the rank (np.ascontiguousarray makes 0-d 1-d); one
    string stays a string (not numpy's fixed-width bytes)."""
    if isinstance(a, bytes):
        return bytes(a)
    return np.array(a, order="C", copy=True)


def like_symbol():
    """A traced input of the active trace, or None. Ops that must run per record even
    with no traced argument (random draws, py_function) pass it along so that the
    trace records them instead of running them once at trace time."""
    from .._trace import Symbol, _leaves, active_graph
    graph = active_graph()
    if graph is None:
        return None
    leaves = [s for s in _leaves(graph.inputs) if isinstance(s, Symbol)]
    return leaves[0] if leaves else None


def _stand_in(x, unknown_rank_as=()):
    from .._trace import Symbol
    if not isinstance(x, Symbol):
        return x
    shape = x.spec.shape
    shape = unknown_rank_as if shape is None else [1 if d is None else d for d in shape]
    if x.spec.dtype is not None and x.spec.dtype.kind == "O":
        a = np.empty(shape, object)
        a.fill(b"")
        return a
    return np.zeros(shape, x.spec.dtype)


def lenient_infer(fn):
    """An `infer` for elementwise ops that also copes with inputs of unknown rank (the
    result of a py_function): the dtype from a run on stand-ins, the shape unknown.
    String stand-ins are b"" (not 0)."""
    from .._trace import Spec, Symbol, TraceError, _leaves, _map

    def infer(*args, **kwargs):
        syms = [x for x in _leaves((args, kwargs)) if isinstance(x, Symbol)]
        if any(s.spec.dtype is None for s in syms):
            raise TraceError("%s() needs the dtype of its inputs" % fn.__name__)
        unknown_rank = any(s.spec.shape is None for s in syms)
        unknown_dims = unknown_rank or any(None in s.spec.shape for s in syms)
        out = fn(*_map(_stand_in, args), **_map(_stand_in, kwargs))

        def spec_of(v):
            a = np.asarray(v)
            if unknown_rank:
                return Spec(a.dtype, None)
            return Spec(a.dtype, tuple(None for _ in a.shape) if unknown_dims else a.shape)
        return _map(spec_of, out)
    return infer


def same_shape_infer(out_dtype, arg=0):
    """An `infer` for ops whose output has the shape of argument `arg` and a fixed dtype
    (string ops whose stand-in run would fail on b"")."""
    from .._trace import Spec, Symbol

    def infer(*args, **kwargs):
        x = args[arg] if len(args) > arg else next(iter(kwargs.values()))
        shape = x.spec.shape if isinstance(x, Symbol) else np.shape(x)
        import types
        dtype = out_dtype(args, kwargs) if isinstance(out_dtype, types.FunctionType) \
            else out_dtype
        return Spec(dtype, shape)
    return infer

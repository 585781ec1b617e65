"""numpy-backed stand-ins for TensorFlow's eager tensors.

``Tensor`` is a numpy array (a plain ndarray subclass: every numpy function takes it)
with TensorFlow's ``.numpy()`` added, so notebook code such as
``parsed["x"].numpy()`` runs unchanged. ``constant`` and ``cast`` follow
TensorFlow's dtype rules (Python ints become int32, Python floats float32, text
becomes bytes)."""
import numpy as np

from . import dtypes as _dt
from ._trace import traceable


class _Shape(tuple):
    """``Tensor.shape``: numpy's shape tuple that also answers TensorShape's methods
    (``x.shape.as_list()``, ``.rank``, ``.is_fully_defined()``); slices stay shapes."""
    __slots__ = ()

    def as_list(self):
        return list(self)

    @property
    def rank(self):
        return len(self)

    ndims = rank

    @property
    def dims(self):
        return list(self)

    def is_fully_defined(self):
        return True

    def num_elements(self):
        n = 1
        for d in self:
            n *= d
        return n

    def is_compatible_with(self, other):
        from .ops.specs import TensorShape
        return TensorShape(list(self)).is_compatible_with(other)

    def __getitem__(self, key):
        r = tuple.__getitem__(self, key)
        return _Shape(r) if isinstance(key, slice) else r

    def __repr__(self):  # str() stays the tuple's "(2, 3)", as TensorShape prints
        return "TensorShape(%s)" % list(self)

    def __str__(self):
        return tuple.__repr__(self)


_ND_DTYPE = np.ndarray.dtype
_TF_DTYPES = _dt._BY_NP


class Tensor(np.ndarray):
    """A numpy array that also answers TensorFlow's tensor methods."""

    # `t.dtype` is TensorFlow's DType (prints <dtype: 'string'>, compares equal to
    # tf.string and to numpy's object dtype, and numpy takes it as a dtype); numpy
    # itself reads the array's own descriptor, so its functions are unaffected. A
    # numpy dtype TensorFlow has no name for (fixed-width 'S', datetime, records)
    # stays numpy's.
    @property
    def dtype(self):
        d = _ND_DTYPE.__get__(self)
        return _TF_DTYPES.get(d, d)

    @dtype.setter
    def dtype(self, value):
        _ND_DTYPE.__set__(self, np.dtype(value))

    # TensorFlow's text: print(t) gives "tf.Tensor([1 2], shape=(2,), dtype=int32)",
    # repr "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>".
    def _numpy_text(self, is_repr):
        v = self.numpy()
        if is_repr:
            text = repr(v.item()) if np.isscalar(v) and not isinstance(v, bytes) \
                else repr(v)
        else:
            text = str(v)
        return "\n" + text if "\n" in text else text

    def __repr__(self):
        dt = self.dtype
        if not isinstance(dt, _dt.DType):
            return np.ndarray.__repr__(self)
        return "<tf.Tensor: shape=%s, dtype=%s, numpy=%s>" % (
            self.shape, dt.name, self._numpy_text(True))

    def __format__(self, format_spec):  # f"{t}" formats the value, as TensorFlow's
        return format(self.numpy(), format_spec)

    def __str__(self):
        dt = self.dtype
        if not isinstance(dt, _dt.DType):
            return np.ndarray.__str__(self)
        return "tf.Tensor(%s, shape=%s, dtype=%s)" % (self._numpy_text(False), self.shape,
                                                     dt.name)

    @property
    def shape(self):
        return _Shape(np.ndarray.shape.__get__(self))

    @shape.setter
    def shape(self, value):
        np.ndarray.shape.__set__(self, value)

    def numpy(self):
        a = self.view(np.ndarray)
        return a[()] if a.ndim == 0 else a

    # A string tensor holds pointers to Python bytes objects: its bytes are the string's,
    # never the pointers. bytes(t) of a scalar gives the string; so do io.BytesIO(t) and
    # np.frombuffer(t, np.uint8) where Python lets a class define its buffer (3.12+).
    def _string_bytes(self):
        v = np.ndarray.__getitem__(self, ())
        if isinstance(v, (bytes, bytearray, memoryview)):
            return bytes(v)
        if isinstance(v, str):
            return v.encode("utf-8")
        raise TypeError("a %s tensor holding %s has no bytes"
                        % (self.dtype, type(v).__name__))

    def __bytes__(self):
        if self.dtype == object:
            if self.ndim == 0:
                return self._string_bytes()
            raise TypeError("bytes() of a string tensor of shape %s: take one element "
                            "(t[i]) or t.numpy()" % (self.shape,))
        return np.ndarray.tobytes(self)

    def __buffer__(self, flags):
        if self.dtype == object:
            if self.ndim == 0:
                return memoryview(self._string_bytes())
            raise TypeError("a string tensor of shape %s has no byte buffer: take one "
                            "element (t[i]) or t.numpy()" % (self.shape,))
        return memoryview(self.view(np.ndarray))

    def get_shape(self):
        return self.shape

    def set_shape(self, shape):
        """TensorFlow's check: `shape` must be compatible with this tensor's shape."""
        from ._set_shape import merged_shape
        merged_shape(np.shape(self), shape)

    @property
    def rank(self):
        return self.ndim

    # Indexing down to one element gives a 0-d Tensor (as TensorFlow does), so that
    # `batch["x"][0].numpy()` and `for x in t: x.numpy()` keep working.
    def __getitem__(self, idx):
        try:
            r = np.ndarray.__getitem__(self, idx)
        except IndexError:  # TensorFlow's InvalidArgumentError and text, when it has one
            from .ops.array_ops import _check_index  # lazy door: the ops build on Tensor
            _check_index(self.view(np.ndarray), idx)
            raise
        if isinstance(r, np.ndarray):
            return r
        out = np.empty((), dtype=_ND_DTYPE.__get__(self))
        out[()] = r
        return out.view(Tensor)

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        for i in range(self.shape[0]):
            yield self[i]


# Operators follow TensorFlow's dtype rules (tfnano.ops._operators): int32 + int64 is
# InvalidArgumentError, int32 / int32 is float64, a numpy array beside a Tensor takes the
# Tensor's dtype, `x += 1` makes a new Tensor. The ops load on first use.
def _tensor_binary(name, reflected=False):
    def method(self, other):
        from .ops import _operators  # lazy door: the ops build on Tensor
        op = _operators.BINARY[name]
        return op(other, self) if reflected else op(self, other)
    method.__name__ = name
    return method


def _tensor_unary(name):
    def method(self):
        from .ops import _operators  # lazy door: the ops build on Tensor
        return _operators.UNARY[name](self)
    method.__name__ = name
    return method


for _n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or",
           "xor"):
    setattr(Tensor, "__%s__" % _n, _tensor_binary("__%s__" % _n))
    setattr(Tensor, "__r%s__" % _n, _tensor_binary("__%s__" % _n, reflected=True))
    setattr(Tensor, "__i%s__" % _n, _tensor_binary("__%s__" % _n))
for _n in ("lt", "le", "gt", "ge", "eq", "ne"):
    setattr(Tensor, "__%s__" % _n, _tensor_binary("__%s__" % _n))
for _n in ("neg", "abs", "invert"):
    setattr(Tensor, "__%s__" % _n, _tensor_unary("__%s__" % _n))
Tensor.__hash__ = None  # __eq__ is elementwise, as TensorFlow's tensors


def as_tensor(a):
    """Views an ndarray as a Tensor (no copy)."""
    return a.view(Tensor)


def scalar_string(b):
    """A 0-d string Tensor holding the bytes `b` (what TensorFlow's ops that make one
    string, such as encode_png or a record read, return)."""
    out = np.empty((), dtype=object)
    out[()] = b
    return out.view(Tensor)


def _to_bytes_array(arr):
    if arr.dtype == object and arr.size > 64:
        from ._c.strviews import all_bytes
        flat = arr.reshape(-1)
        if all_bytes(flat.view(np.ndarray) if type(flat) is not np.ndarray else flat):
            return arr.copy()  # bytes already (what TensorFlow's .numpy() gives)
    out = np.empty(arr.shape, dtype=object)
    flat_in = arr.reshape(-1)
    flat_out = out.reshape(-1)
    for i, v in enumerate(flat_in):
        if isinstance(v, str):
            v = v.encode("utf-8")
        elif isinstance(v, np.str_):
            v = str(v).encode("utf-8")
        elif isinstance(v, (bytes, np.bytes_)):
            v = bytes(v)
        else:
            raise TypeError("Failed to convert elements of %r to Tensor of dtype string."
                            % (arr,))
        flat_out[i] = v
    return out


def _infer(value):
    """TensorFlow's conversion of a Python/numpy value without an explicit dtype."""
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        arr = np.asarray(value)
        if arr.dtype.kind in "SUO":
            return _to_bytes_array(arr)
        return arr
    try:
        arr = np.asarray(value)
    except UnicodeError:  # text beside non-ASCII bytes: numpy tries a str array
        arr = np.array(value, dtype=object)
    kind = arr.dtype.kind
    if kind in "SUO":
        # numpy's fixed-width 'S' arrays drop trailing NUL bytes: keep the objects.
        return _to_bytes_array(np.array(value, dtype=object))
    if kind == "i":
        if arr.size and (arr.min() < -2**31 or arr.max() >= 2**31):
            return arr.astype(np.int64)
        return arr.astype(np.int32)
    if kind == "f":
        return arr.astype(np.float32)
    if kind == "c":
        return arr.astype(np.complex128)
    return arr


def constant(value, dtype=None, shape=None, name=None):
    """``tf.constant``: a Tensor from a Python or numpy value."""
    if dtype is None:
        arr = _infer(value)
    else:
        dt = _dt.as_dtype(dtype)
        if dt is _dt.string:
            arr = _to_bytes_array(np.asarray(value, dtype=object))
        else:
            src = np.asarray(value)
            if src.dtype.kind == "f" and dt.is_integer and src.size:  # [] is fine
                raise TypeError("Cannot convert %r to EagerTensor of dtype %s"
                                % (value, dt.name))
            arr = np.asarray(value, dtype=dt.as_numpy_dtype)
    if shape is not None:
        shape = tuple(int(s) for s in (shape if np.iterable(shape) else (shape,)))
        if arr.size == 1:
            arr = np.broadcast_to(arr.reshape(()), shape).copy()
        else:
            n = int(np.prod(shape))
            if n != arr.size:
                raise TypeError("Eager execution of tf.constant with unsupported shape. "
                                "Tensor %s (converted from %r) has %d elements, but got "
                                "`shape` %s with %d elements)."
                                % (arr, value, arr.size, shape, n))
            arr = arr.reshape(shape)
    return as_tensor(arr if arr.flags.c_contiguous else arr.copy())


def convert_to_tensor(value, dtype=None, name=None):
    if isinstance(value, Tensor) and dtype is None:
        return value
    return constant(value, dtype=dtype)


def _cast_infer(x, dtype, name=None):
    from ._trace import Spec
    dt = _dt.as_dtype(dtype)
    src = x.spec.dtype
    if dt is _dt.string or src == object:
        if not (dt is _dt.string and src == object):
            from .errors import UnimplementedError
            raise UnimplementedError(None, None, "Cast %s to %s is not supported"
                                     % (_dt.as_dtype(src).name, dt.name))
        return Spec(object, x.spec.shape)
    if hasattr(x.spec, "kind"):  # a traced SparseTensor / RaggedTensor: its values
        return x.spec.with_dtype(dt.as_numpy_dtype)
    return Spec(dt.as_numpy_dtype, x.spec.shape)


@traceable("cast", batch="elementwise", infer=_cast_infer, composites=True)
def cast(x, dtype, name=None):
    """``tf.cast``: numeric conversion (float to int truncates toward zero); a
    SparseTensor or RaggedTensor gets its values cast."""
    kind = type(x).__name__
    if kind == "SparseTensor" and hasattr(x, "dense_shape"):
        return type(x)._make(x.indices, cast(x.values, dtype), x.dense_shape)
    if kind == "RaggedTensor" and hasattr(x, "with_flat_values"):
        return x.with_flat_values(cast(x.flat_values, dtype))
    dt = _dt.as_dtype(dtype)
    arr = x if isinstance(x, np.ndarray) else _infer(x)
    if dt is _dt.string or arr.dtype == object:
        if dt is _dt.string and arr.dtype == object:
            return as_tensor(np.asarray(arr))
        from .errors import UnimplementedError
        raise UnimplementedError(None, None, "Cast %s to %s is not supported"
                                 % (_dt.as_dtype(arr.dtype).name, dt.name))
    if dt.is_bool:
        return as_tensor(np.asarray(arr != 0))
    # No copy when the dtype already matches: tensors are immutable in TensorFlow, and
    # an image pipeline's float32 -> float32 cast would otherwise copy every batch.
    return as_tensor(np.asarray(arr).astype(dt.as_numpy_dtype, copy=False))


def tf_shape(shape):
    """A shape as TensorFlow's error messages print it: [2,?,3]."""
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"

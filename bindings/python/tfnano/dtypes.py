"""TensorFlow's dtype objects (``tf.int64``, ``tf.string``, ...), backed by numpy.

``Tensor.dtype`` is one of these, as in TensorFlow: it prints as TensorFlow prints it
(``<dtype: 'string'>``, repr ``tf.string``) and compares equal to itself, to its name
("int64") and to the numpy dtype or type it stands for (``tf.string == object``,
``tf.int64 == np.int64``). It also stands in for that numpy dtype: numpy accepts it
wherever a dtype is expected (``np.zeros(3, tf.float32)``, ``arr.astype(t.dtype)``,
``np.issubdtype(t.dtype, np.integer)``), its hash is the numpy dtype's (so it finds
numpy-dtype keys of a dict), and numpy's dtype attributes (``kind``, ``itemsize``,
``char``, ``type``, ...) answer from the numpy dtype. ``tf.string`` stands for numpy
object arrays of ``bytes``, which is what TensorFlow's ``.numpy()`` gives.
"""
import numpy as np


class DType:
    __slots__ = ("_name", "_np", "kind", "itemsize", "char", "type")

    def __init__(self, name, np_dtype):
        self._name = name
        self._np = np.dtype(np_dtype)
        # numpy's dtype attributes that code reading `tensor.dtype` asks most often
        # (plain slots: as fast as numpy's); the rest come from __getattr__.
        self.kind, self.itemsize = self._np.kind, self._np.itemsize
        self.char, self.type = self._np.char, self._np.type

    def __getattr__(self, name):
        # Only called for names DType lacks: numpy's dtype attributes (str, names,
        # fields, byteorder, isnative, descr, hasobject, ...).
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return getattr(object.__getattribute__(self, "_np"), name)
        except AttributeError:
            raise AttributeError("'DType' object has no attribute %r" % name) from None

    @property
    def name(self):
        return self._name

    @property
    def as_numpy_dtype(self):
        return self._np.type

    @property
    def dtype(self):  # lets numpy take a DType wherever it takes a dtype
        return self._np

    @property
    def base_dtype(self):
        return self

    @property
    def is_floating(self):
        return self._np.kind == "f"

    @property
    def is_integer(self):
        return self._np.kind in "iu"

    @property
    def is_unsigned(self):
        return self._np.kind == "u"

    @property
    def is_bool(self):
        return self._np.kind == "b"

    @property
    def is_complex(self):
        return self._np.kind == "c"

    @property
    def size(self):
        return 0 if self is string else self._np.itemsize

    @property
    def min(self):
        info = np.finfo(self._np) if self.is_floating else np.iinfo(self._np)
        return info.min

    @property
    def max(self):
        info = np.finfo(self._np) if self.is_floating else np.iinfo(self._np)
        return info.max

    def __eq__(self, other):
        if isinstance(other, DType):
            return self._name == other._name
        try:
            return as_dtype(other)._name == self._name
        except (TypeError, ValueError):
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):  # the numpy dtype's: a DType finds numpy-dtype dict keys
        return hash(self._np)

    def is_compatible_with(self, other):
        return self == other

    @property
    def is_numpy_compatible(self):
        return True

    @property
    def real_dtype(self):
        return {"complex64": float32, "complex128": float64}.get(self._name, self)

    @property
    def limits(self):
        return (self.min, self.max)

    def __repr__(self):
        return "tf." + self._name

    def __str__(self):
        return "<dtype: %r>" % self._name

    def __reduce__(self):
        return (as_dtype, (self._name,))


float16 = half = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = double = DType("float64", np.float64)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
uint16 = DType("uint16", np.uint16)
uint32 = DType("uint32", np.uint32)
uint64 = DType("uint64", np.uint64)
bool = DType("bool", np.bool_)  # noqa: A001 - TensorFlow's name
complex64 = DType("complex64", np.complex64)
complex128 = DType("complex128", np.complex128)
string = DType("string", object)

_ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32,
        uint64, bool, complex64, complex128, string)
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update({"half": float16, "float": float32, "double": float64})
_BY_NP = {d._np: d for d in _ALL}


def as_dtype(type_value):
    """Converts a DType, a name ("int64"), a numpy dtype or type, or a Python type
    (int -> int64? no: as TensorFlow, only numpy-known types) to a DType."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):
        d = _BY_NAME.get(type_value)
        if d is not None:
            return d
    if type_value is bytes or type_value is str:
        return string
    if hasattr(type_value, "as_numpy_dtype") and isinstance(
            getattr(type_value, "name", None), str):  # TensorFlow's own DType
        d = _BY_NAME.get(type_value.name)
        if d is not None:
            return d
    try:
        npd = np.dtype(type_value)
    except TypeError:
        npd = None
    if npd is not None:
        if npd.kind in "SUO":
            return string
        d = _BY_NP.get(npd)
        if d is not None:
            return d
    raise TypeError("Cannot convert value %r to a TensorFlow DType." % (type_value,))


def numpy_dtype(dtype):
    """The numpy dtype of the arrays a tensor of `dtype` (anything :func:`as_dtype`
    takes) holds: ``tf.string`` is ``object`` (arrays of bytes, as TensorFlow's
    ``.numpy()``). The one dtype -> numpy helper of the package."""
    return as_dtype(dtype)._np


__all__ = [d.name for d in _ALL] + ["half", "double", "DType", "as_dtype"]


def cast(x, dtype, name=None):
    """``tf.dtypes.cast``: the same function as ``tf.cast`` (imported on use: tfnano's
    array ops import this module)."""
    from ._tensor import cast as _cast  # lazy door: _tensor imports dtypes
    return _cast(x, dtype, name)


__all__.append("cast")

"""``tf.TensorShape`` and ``tf.TensorSpec``: static shapes (None for unknown sizes)
and the type of a tensor, as tf.data's ``element_spec`` and ``from_generator``'s
``output_signature`` use them."""
import numpy as np

from .. import dtypes as _dt


class Dimension:
    """A size in a TensorShape (``value`` is an int or None)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = None if value is None else int(value)

    def __int__(self):
        return self.value

    __index__ = __int__

    def __eq__(self, other):
        other = other.value if isinstance(other, Dimension) else other
        return None if self.value is None or other is None else self.value == other

    def __repr__(self):
        return "Dimension(%s)" % self.value


class TensorShape:
    """A static shape: a list of sizes (None unknown), or unknown rank (dims None).
    Indexing gives ints or None (TF 2 behaviour)."""

    def __init__(self, dims):
        if isinstance(dims, TensorShape):
            dims = dims._dims
        elif dims is not None:
            if np.ndim(dims) == 0 and not isinstance(dims, (list, tuple)):
                dims = [dims]
            dims = [None if d is None else int(d.value if isinstance(d, Dimension) else d)
                    for d in dims]
            dims = [None if d is not None and d < 0 else d for d in dims]
        self._dims = None if dims is None else tuple(dims)

    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    @property
    def rank(self):
        return None if self._dims is None else len(self._dims)

    ndims = rank

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self):
        return self._dims is not None and None not in self._dims

    def num_elements(self):
        return int(np.prod(self._dims)) if self.is_fully_defined() else None

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            return None if not isinstance(key, slice) else TensorShape(None)
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __bool__(self):
        return self._dims is not None

    def is_compatible_with(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        return len(self._dims) == len(other._dims) and all(
            a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError("Shapes %s and %s are incompatible" % (self, as_shape(other)))

    def merge_with(self, other):
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        self.assert_is_compatible_with(other)
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def concatenate(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def with_rank(self, rank):
        if self._dims is None:
            return TensorShape([None] * rank)
        if len(self._dims) != rank:
            raise ValueError("Shape %s must have rank %d" % (self, rank))
        return self

    def most_specific_compatible_shape(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims)])

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(self._dims)

    def __repr__(self):
        return "TensorShape(%s)" % (None if self._dims is None else list(self._dims))

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return "(%s,)" % self._dims[0]
        return "(%s)" % ", ".join(str(d) for d in self._dims)

    def __reduce__(self):
        return (TensorShape, (self.dims,))


def as_shape(shape):
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


class TensorSpec:
    """``tf.TensorSpec(shape, dtype=tf.float32, name=None)``."""
    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=_dt.float32, name=None):
        self._shape = as_shape(shape)
        self._dtype = _dt.as_dtype(dtype)
        self._name = name

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    name = property(lambda self: self._name)

    @classmethod
    def from_tensor(cls, tensor, name=None):
        a = np.asarray(tensor)
        return cls(a.shape, _dt.as_dtype(a.dtype), name)

    @classmethod
    def from_spec(cls, spec, name=None):
        return cls(spec.shape, spec.dtype, name if name is not None else spec.name)

    def is_compatible_with(self, spec_or_value):
        if isinstance(spec_or_value, TensorSpec):
            other_shape, other_dtype = spec_or_value.shape, spec_or_value.dtype
        else:
            a = np.asarray(spec_or_value)
            other_shape, other_dtype = TensorShape(a.shape), _dt.as_dtype(a.dtype)
        return self._dtype == other_dtype and self._shape.is_compatible_with(other_shape)

    def most_specific_compatible_type(self, other):
        if self._dtype != other.dtype:
            raise ValueError("No TypeSpec is compatible with both %s and %s" % (self, other))
        return TensorSpec(self._shape.most_specific_compatible_shape(other.shape),
                          self._dtype)

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and self._dtype == other._dtype and
                self._shape == other._shape and self._name == other._name)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self._shape, self._dtype, self._name))

    def __repr__(self):
        return "TensorSpec(shape=%s, dtype=%r, name=%r)" % (self._shape, self._dtype,
                                                            self._name)

    def __reduce__(self):
        return (TensorSpec, (self._shape.dims, self._dtype.name, self._name))


class SparseTensorSpec:
    """``tf.SparseTensorSpec(shape=None, dtype=tf.float32)``: the type of a
    SparseTensor (its dense shape, None for unknown sizes, and its values' dtype)."""
    __slots__ = ("_shape", "_dtype")

    def __init__(self, shape=None, dtype=_dt.float32):
        self._shape = as_shape(shape)
        self._dtype = _dt.as_dtype(dtype)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    value_type = property(lambda self: _lazy("tfnano.sparse", "SparseTensor"))

    def is_compatible_with(self, other):
        return (isinstance(other, SparseTensorSpec) and self._dtype == other.dtype and
                self._shape.is_compatible_with(other.shape))

    def __eq__(self, other):
        return (type(other) is SparseTensorSpec and self._dtype == other._dtype and
                self._shape == other._shape)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((SparseTensorSpec, self._shape, self._dtype))

    def __repr__(self):
        return "SparseTensorSpec(%r, %r)" % (self._shape, self._dtype)

    def __reduce__(self):
        return (SparseTensorSpec, (self._shape.dims, self._dtype.name))


class RaggedTensorSpec:
    """``tf.RaggedTensorSpec(shape=None, dtype=tf.float32, ragged_rank=None,
    row_splits_dtype=tf.int64, flat_values_spec=None)``: the type of a RaggedTensor
    (ragged_rank defaults to rank - 1)."""
    __slots__ = ("_shape", "_dtype", "_ragged_rank", "_row_splits_dtype",
                 "_flat_values_spec")

    def __init__(self, shape=None, dtype=_dt.float32, ragged_rank=None,
                 row_splits_dtype=_dt.int64, flat_values_spec=None):
        self._shape = as_shape(shape)
        self._dtype = _dt.as_dtype(dtype if flat_values_spec is None
                                   else flat_values_spec.dtype)
        rank = self._shape.rank
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        if not isinstance(ragged_rank, int):
            raise TypeError("ragged_rank must be an int")
        if rank is not None and ragged_rank >= rank:
            raise ValueError("Argument `ragged_rank` (%d) must be less than rank (%d)."
                             % (ragged_rank, rank))
        self._ragged_rank = ragged_rank
        self._row_splits_dtype = _dt.as_dtype(row_splits_dtype)
        self._flat_values_spec = flat_values_spec

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    ragged_rank = property(lambda self: self._ragged_rank)
    row_splits_dtype = property(lambda self: self._row_splits_dtype)
    flat_values_spec = property(lambda self: self._flat_values_spec)
    value_type = property(lambda self: _lazy("tfnano.ragged", "RaggedTensor"))

    def is_compatible_with(self, other):
        return (isinstance(other, RaggedTensorSpec) and self._dtype == other.dtype and
                self._ragged_rank == other.ragged_rank and
                self._row_splits_dtype == other.row_splits_dtype and
                self._shape.is_compatible_with(other.shape))

    def __eq__(self, other):
        return (type(other) is RaggedTensorSpec and self._dtype == other._dtype and
                self._shape == other._shape and self._ragged_rank == other._ragged_rank and
                self._row_splits_dtype == other._row_splits_dtype)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((RaggedTensorSpec, self._shape, self._dtype, self._ragged_rank))

    def __repr__(self):
        text = "RaggedTensorSpec(%r, %r, %d, %r" % (self._shape, self._dtype,
                                                   self._ragged_rank, self._row_splits_dtype)
        if self._flat_values_spec is not None:
            text += ", flat_values_spec=%r" % (self._flat_values_spec,)
        return text + ")"

    def __reduce__(self):
        return (RaggedTensorSpec, (self._shape.dims, self._dtype.name, self._ragged_rank,
                                   self._row_splits_dtype.name, self._flat_values_spec))


def _lazy(module, name):
    import importlib
    return getattr(importlib.import_module(module), name)

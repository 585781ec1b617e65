"""``tf.lookup.experimental.MutableHashTable`` and ``DenseHashTable``: tables that
``insert`` and ``remove`` after they are made, with TensorFlow's conversions, shapes
and error texts (checked against TensorFlow 2.21).

A Python dict holds the entries (keys as Python ints or bytes), guarded by a lock: the
tables are for the small, changing maps an input pipeline keeps (seen ids, label
maps), not for vocabularies, which StaticHashTable serves from C. Values may be
vectors: a default of shape [d] makes every value a [d] row (TensorFlow's
MutableHashTableOfTensors), and a lookup gives keys.shape + [d].

``lookup`` is traced in tf.data maps (batched: one pass over the batch's keys, reading
the table as it is when the batch runs); ``insert`` and ``remove`` on traced values
make the function run per record, as their order matters.

Differences from TensorFlow: ``export`` gives the entries in insertion order
(TensorFlow's is its hash order), and DenseHashTable's ``export`` gives its entries,
not its whole bucket array; ``remove`` also takes a Python list (TensorFlow's needs a
tensor); checkpointing (``_serialize_to_tensors``) is absent.
"""
import itertools
import threading

import numpy as np

from .. import dtypes as _dt
from .._tensor import as_tensor, constant
from .._trace import Spec, traceable
from ..errors import NotFoundError, invalid
from .lookup_ops import _dims

_KEY_DTYPES = (_dt.string, _dt.int32, _dt.int64)
_TABLE_NUMBERS = itertools.count(1)  # TensorFlow names its tables table_<n>
_ENUM_NAMES = {"float32": "FLOAT", "float64": "DOUBLE", "float16": "HALF"}


def _enum_name(dtype):
    """TensorFlow's DataType enum name (DT_FLOAT for float32)."""
    return "DT_" + _ENUM_NAMES.get(dtype.name, dtype.name.upper())


def _convert(x, dtype, what):
    """x as a tensor of `dtype`, as TensorFlow's convert_to_tensor(x, dtype) in these
    ops: a tensor of another dtype is a ValueError naming the argument; a Python value
    that does not convert is a TypeError."""
    have = getattr(x, "dtype", None)
    if have is not None and not isinstance(x, (list, tuple)):
        have = _dt.as_dtype(have) if not isinstance(have, _dt.DType) else have
        if have.base_dtype != dtype:
            raise ValueError("%s: Tensor conversion requested dtype %s for Tensor with dtype "
                             "%s: %r" % (what, dtype.name, have.name, x))
        return np.asarray(x.numpy() if hasattr(x, "numpy") else x)
    try:
        return np.asarray(constant(x, dtype=dtype).numpy())
    except (TypeError, ValueError):
        raise TypeError("Cannot convert %r to EagerTensor of dtype %s"
                        % (x, dtype.name)) from None


def _lookup_infer(table, keys, dynamic_default_values=None):
    shape = None if keys.spec.shape is None else keys.spec.shape + table._value_shape
    return Spec(_dt.numpy_dtype(table.value_dtype), shape)


@traceable("lookup", batch="elementwise", infer=_lookup_infer)
def _find(table, keys, dynamic_default_values=None):
    return table._find_array(keys, dynamic_default_values)


class MutableHashTable:
    """``tf.lookup.experimental.MutableHashTable(key_dtype, value_dtype,
    default_value)``: keys of string, int32 or int64; ``insert(keys, values)``,
    ``lookup(keys, dynamic_default_values=None)`` (or ``table[keys]``),
    ``remove(keys)``, ``size()``, ``export()``. Thread-safe."""

    _op = "MutableHashTableV2"

    def __init__(self, key_dtype, value_dtype, default_value, name="MutableHashTable",
                 checkpoint=True, experimental_is_anonymous=False):
        self._key_dtype = _dt.as_dtype(key_dtype)
        self._value_dtype = _dt.as_dtype(value_dtype)
        if self._key_dtype not in _KEY_DTYPES:
            raise NotFoundError(None, None, "Could not find device for node: {{node %s}} = "
                                "%s[container=\"\", key_dtype=%s, shared_name=\"table_%d\", "
                                "use_node_name_sharing=false, value_dtype=%s]"
                                % (self._op, self._op, _enum_name(self._key_dtype),
                                   next(_TABLE_NUMBERS), _enum_name(self._value_dtype)))
        if self._value_dtype != _dt.string and isinstance(default_value, (str, bytes)):
            raise TypeError("Cannot convert %r to EagerTensor of dtype %s"
                            % (default_value, self._value_dtype.name))
        self._default = _convert(default_value, self._value_dtype, "default_value")
        self._value_shape = self._default.shape
        self._name = name
        self._entries = {}
        self._lock = threading.Lock()

    key_dtype = property(lambda self: self._key_dtype)
    value_dtype = property(lambda self: self._value_dtype)
    name = property(lambda self: None)  # TensorFlow's eager tables have no name
    resource_handle = property(lambda self: None)

    def _keys(self, keys, op):
        k = _convert(keys, self._key_dtype, "keys")
        flat = k.reshape(-1).tolist()
        self._check_keys(k, flat, op)
        return k, flat

    def _check_keys(self, k, flat, op):
        pass

    def size(self, name=None):
        with self._lock:
            return as_tensor(np.asarray(len(self._entries), np.int64))

    def insert(self, keys, values, name=None):
        """Sets each key's value (values: keys.shape + the default's shape)."""
        k, flat = self._keys(keys, "LookupTableInsertV2")
        v = _convert(values, self._value_dtype, "values")
        want = k.shape + self._value_shape
        if v.shape != want:
            raise invalid("Expected shape %s for value, got %s"
                          % (_dims(want), _dims(v.shape)))
        rows = v.reshape((len(flat),) + self._value_shape)
        items = [r.copy() for r in rows] if self._value_shape else rows.tolist()
        with self._lock:
            self._entries.update(zip(flat, items))
        return None

    def remove(self, keys, name=None):
        """Removes the keys (absent ones are ignored)."""
        _, flat = self._keys(keys, "LookupTableRemoveV2")
        with self._lock:
            for key in flat:
                self._entries.pop(key, None)
        return None

    def lookup(self, keys, dynamic_default_values=None, name=None):
        """Each key's value, the default (or its entry of dynamic_default_values, of
        keys.shape + the value shape) where absent: keys.shape + the value shape."""
        return _find(self, keys, dynamic_default_values)

    def __getitem__(self, keys):
        return self.lookup(keys)

    def _find_array(self, keys, dynamic_default_values=None):
        k, flat = self._keys(keys, "LookupTableFindV2")
        vshape = self._value_shape
        out = np.empty((len(flat),) + vshape, _dt.numpy_dtype(self._value_dtype))
        if dynamic_default_values is not None:
            dd = _convert(dynamic_default_values, self._value_dtype, "default_value")
            try:
                fill = np.broadcast_to(dd, k.shape + vshape).reshape((len(flat),) + vshape)
            except ValueError:
                raise invalid("Expected shape %s or %s for "
                              "default value, got %s"
                              % (_dims(vshape), _dims(k.shape + vshape),
                                 _dims(dd.shape))) from None
        else:
            fill = None
        with self._lock:
            get, missing = self._entries.get, object()
            for i, key in enumerate(flat):
                v = get(key, missing)
                out[i] = (self._default if fill is None else fill[i]) if v is missing else v
        return as_tensor(out.reshape(k.shape + vshape))

    def export(self, name=None):
        """(keys, values) of every entry, in insertion order."""
        with self._lock:
            items = list(self._entries.items())
        keys = np.empty(len(items), _dt.numpy_dtype(self._key_dtype))
        values = np.empty((len(items),) + self._value_shape, _dt.numpy_dtype(self._value_dtype))
        for i, (key, value) in enumerate(items):
            keys[i], values[i] = key, value
        return as_tensor(keys), as_tensor(values)


class DenseHashTable(MutableHashTable):
    """``tf.lookup.experimental.DenseHashTable(key_dtype, value_dtype, default_value,
    empty_key, deleted_key, initial_num_buckets=None)``: MutableHashTable's operations
    (``erase`` is ``remove``); `empty_key` and `deleted_key`, TensorFlow's reserved
    bucket markers, must differ and may not be used as keys."""

    _op = "MutableDenseHashTableV2"

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, deleted_key,
                 initial_num_buckets=None, name="MutableDenseHashTable", checkpoint=True,
                 experimental_is_anonymous=False):
        super().__init__(key_dtype, value_dtype, default_value, name, checkpoint,
                         experimental_is_anonymous)
        empty = _convert(empty_key, self._key_dtype, "empty_key").reshape(-1).tolist()
        deleted = _convert(deleted_key, self._key_dtype, "deleted_key").reshape(-1).tolist()
        if empty == deleted:
            raise invalid("Empty and deleted keys cannot be equal")
        self._reserved = ((empty[0] if len(empty) == 1 else None, "empty_key"),
                          (deleted[0] if len(deleted) == 1 else None, "deleted_key"))

    def _check_keys(self, k, flat, op):
        # its keys are scalars: a batch of them is at most 1-D (remove takes any shape)
        if k.ndim > 1 and op != "LookupTableRemoveV2":
            raise invalid("Expected key shape %s got %s"
                          % (_dims(k.shape[:1]), _dims(k.shape)))
        for reserved, what in self._reserved:
            if reserved is not None and reserved in flat:
                raise invalid("Using the %s as a table key is not "
                              "allowed" % what)

    def erase(self, keys, name=None):
        return self.remove(keys, name)


__all__ = ["MutableHashTable", "DenseHashTable"]

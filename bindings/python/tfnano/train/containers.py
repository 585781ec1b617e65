"""The protobuf machinery under ``tf.train``'s messages: the value checks and text
format of protobuf's upb backend (the one TensorFlow ships), its repeated scalar field,
its message map, and the ``Message`` base class."""
import operator

import numpy as np

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


class DecodeError(Exception):
    """protobuf's ``google.protobuf.message.DecodeError``."""


class EncodeError(Exception):
    """protobuf's ``google.protobuf.message.EncodeError``."""


# ----------------------------------------------------------------- value checks

def _check_int(v, field):
    if isinstance(v, np.bool_):
        # numpy bools are 0 / 1, as TensorFlow takes them with numpy 1.x (the TFRecord
        # tutorial's np.random.choice([False, True]) features); Python bools stay refused
        # as current protobuf refuses them.
        return int(v)
    if v.__class__ is bool or isinstance(v, bool):
        raise TypeError("Field %s: Expected an int, got a boolean." % field)
    i = operator.index(v)  # TypeError "'float' object cannot be interpreted as an integer"
    if i < _INT64_MIN or i > _INT64_MAX:
        raise ValueError("Value out of range: %d" % i)
    return i


def _check_float(v, field):
    if isinstance(v, (str, bytes)) or v is None:
        raise TypeError("must be real number, not %s" % type(v).__name__)
    return float(v)


def _check_bytes(v, field):
    if v.__class__ is bytes:
        return v
    if isinstance(v, bytes):  # np.bytes_ and other bytes subclasses
        return bytes(v)
    raise TypeError("expected bytes, %s found" % type(v).__name__)


def _int64_array(values, field):
    """Validated int64 numpy array from any iterable (protobuf's rules)."""
    if isinstance(values, np.ndarray) and values.ndim == 1:
        k = values.dtype.kind
        if k == "i" or k == "b":
            return values.astype(np.int64, copy=True)
        if k == "u":
            if values.size and values.max() > _INT64_MAX:
                raise ValueError("Value out of range: %d" % int(values.max()))
            return values.astype(np.int64)
    elif isinstance(values, (list, tuple)):
        if set(map(type, values)) <= {int}:
            try:
                return np.array(values, dtype=np.int64)
            except OverflowError:
                pass
    elif isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError("must assign iterable")
    out = [_check_int(v, field) for v in values]
    return np.array(out, dtype=np.int64)


def _float_array(values, field):
    if isinstance(values, np.ndarray) and values.ndim == 1 and values.dtype.kind in "fiub":
        if values.dtype == np.float32:  # nothing can overflow: skip errstate's cost
            return values.copy()
        with np.errstate(over="ignore"):
            return values.astype(np.float32, copy=True)
    if isinstance(values, (list, tuple)):
        if set(map(type, values)) <= {float, int}:
            try:
                with np.errstate(over="ignore"):
                    return np.array(values, dtype=np.float64).astype(np.float32)
            except OverflowError:
                pass
    elif isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError("must assign iterable")
    out = [_check_float(v, field) for v in values]
    with np.errstate(over="ignore"):
        return np.array(out, dtype=np.float64).astype(np.float32)


def _bytes_list(values, field):
    if values.__class__ is list or values.__class__ is tuple:
        for v in values:
            if v.__class__ is not bytes:
                break
        else:
            return list(values)
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError("must assign iterable")
    return [_check_bytes(v, field) for v in values]


# ----------------------------------------------------------------- text format

def _escape(b):
    out = []
    for c in b:
        if c == 0x0A:
            out.append("\\n")
        elif c == 0x0D:
            out.append("\\r")
        elif c == 0x09:
            out.append("\\t")
        elif c == 0x22:
            out.append('\\"')
        elif c == 0x27:
            out.append("\\'")
        elif c == 0x5C:
            out.append("\\\\")
        elif 0x20 <= c < 0x7F:
            out.append(chr(c))
        else:
            out.append("\\%03o" % c)
    return "".join(out)


def _fmt_float(x):
    f = float(x)
    if f != f:
        return "nan"
    if f in (float("inf"), float("-inf")):
        return "inf" if f > 0 else "-inf"
    s = repr(np.float32(f)) if hasattr(np, "float32") else repr(f)
    s = str(np.float32(f))
    if s.endswith(".0"):
        s = s[:-2]
    return s


# ----------------------------------------------------------------- containers

class RepeatedScalarContainer:
    """protobuf's repeated scalar field: a list that checks what goes into it.
    Numeric values live in a numpy array until a per-item edit needs a list."""

    __slots__ = ("_owner", "_kind")

    def __init__(self, owner, kind):
        self._owner = owner
        self._kind = kind  # "int64", "float" or "bytes"

    # The values live on the owning list message (one object less per message).
    @property
    def _items(self):
        return self._owner._items

    @_items.setter
    def _items(self, v):
        self._owner._items = v

    # conversions
    def _checked(self, values):
        field = self._owner._FIELD
        if self._kind == "int64":
            return _int64_array(values, field)
        if self._kind == "float":
            return _float_array(values, field)
        return _bytes_list(values, field)

    def _check_one(self, v):
        field = self._owner._FIELD
        if self._kind == "int64":
            return _check_int(v, field)
        if self._kind == "float":
            return float(np.float32(_check_float(v, field)))
        return _check_bytes(v, field)

    def _as_list(self):
        if isinstance(self._items, np.ndarray):
            self._items = self._items.tolist()
        return self._items

    def _touch(self):
        self._owner._modified()

    def _array(self):
        """The values as an int64/float32 ndarray (numeric kinds)."""
        it = self._items
        if isinstance(it, np.ndarray):
            return it
        dt = np.int64 if self._kind == "int64" else np.float32
        arr = np.array(it, dtype=dt)
        self._items = arr
        return arr

    def __array__(self, dtype=None, copy=None):
        """numpy sees what protobuf's (upb) container gives: float32 for FloatList,
        int64 for Int64List, fixed-width bytes ('S') for BytesList."""
        if self._kind == "bytes":
            arr = np.array(list(self._items))
        else:
            arr = self._array().copy()
        return arr if dtype is None else arr.astype(dtype, copy=False)

    # list protocol
    def __len__(self):
        return len(self._items)

    def __iter__(self):
        it = self._items
        return iter(it.tolist() if isinstance(it, np.ndarray) else it)

    def __getitem__(self, i):
        it = self._items
        if isinstance(it, np.ndarray):
            r = it[i]
            return r.tolist()
        return it[i]

    def __setitem__(self, i, v):
        items = self._as_list()
        if isinstance(i, slice):
            items[i] = [self._check_one(x) for x in v]
        else:
            items[i] = self._check_one(v)
        self._touch()

    def __delitem__(self, i):
        del self._as_list()[i]
        self._touch()

    def append(self, v):
        v = self._check_one(v)
        self._as_list().append(v)
        self._touch()

    def extend(self, values):
        if values is None:
            return
        new = self._checked(values)
        if len(self._items) == 0 and not isinstance(new, list):
            self._items = new
        elif isinstance(self._items, np.ndarray) and isinstance(new, np.ndarray):
            self._items = np.concatenate([self._items, new])
        else:
            self._as_list().extend(new.tolist() if isinstance(new, np.ndarray) else new)
        self._touch()

    def insert(self, i, v):
        self._as_list().insert(i, self._check_one(v))
        self._touch()

    def pop(self, i=-1):
        r = self._as_list().pop(i)
        self._touch()
        return r

    def remove(self, v):
        self._as_list().remove(v)
        self._touch()

    def sort(self, *args, **kwargs):
        self._as_list().sort(*args, **kwargs)

    def reverse(self):
        self._as_list().reverse()

    def MergeFrom(self, other):
        self.extend(other)

    def __eq__(self, other):
        if other is self:
            return True
        if isinstance(other, RepeatedScalarContainer):
            return list(self) == list(other)
        try:
            return list(self) == list(other)
        except TypeError:
            return NotImplemented

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    __hash__ = None

    def __repr__(self):
        return repr(list(self))


# ----------------------------------------------------------------- messages

class Message:
    """Common behaviour of the tf.train message classes."""

    __slots__ = ("_parent_hook", "__weakref__")
    DESCRIPTOR = None

    def _modified(self):
        hook = self._parent_hook
        if hook is not None:
            self._parent_hook = None
            hook(self)

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented if not isinstance(other, Message) else False
        return self._key() == other._key()

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    __hash__ = None

    def __str__(self):
        lines = []
        self._text(lines, "")
        return "".join(lines)

    def __repr__(self):
        return self.__str__()

    def __reduce__(self):
        return (type(self).FromString, (self.SerializeToString(),))

    def __deepcopy__(self, memo=None):
        c = type(self)()
        c.CopyFrom(self)
        return c

    def __copy__(self):
        return self.__deepcopy__()

    @classmethod
    def FromString(cls, s):
        m = cls()
        m.ParseFromString(s)
        return m

    def MergeFromString(self, s):
        other = type(self).FromString(s)
        self.MergeFrom(other)
        return len(s)

    def CopyFrom(self, other):
        if type(other) is not type(self):
            raise TypeError("Parameter to CopyFrom() must be instance of same class: "
                            "expected %s got %s." % (type(self), type(other)))
        if other is self:
            return
        self.Clear()
        self.MergeFrom(other)

    def ByteSize(self):
        return len(self.SerializeToString())

    def IsInitialized(self):
        return True

    def ListFields(self):
        return [(name, getattr(self, name)) for name in self._FIELDS if self.HasField(name)]

    def HasField(self, name):
        raise ValueError('Protocol message %s has no singular "%s" field.'
                         % (type(self).__name__, name))

    def ClearField(self, name):
        if name not in self._FIELDS:
            raise ValueError('Protocol message %s has no "%s" field.'
                             % (type(self).__name__, name))
        self._clear_field(name)

    def _init_fields(self, kwargs):
        for name, value in kwargs.items():
            if name not in self._FIELDS:
                raise ValueError('Protocol message %s has no "%s" field.'
                                 % (type(self).__name__, name))
            if value is None:
                continue
            self._init_field(name, value)

    def _serialize_via_example(self):
        raise NotImplementedError


def _readonly(name, repeated):
    """A read-only field property whose assignment fails as protobuf's does."""
    def get(self):
        return getattr(self, "_" + name)

    def set_(self, value):
        if repeated:
            raise AttributeError('Assignment not allowed to map, or repeated field "%s" in '
                                 'protocol message object.' % name)
        raise AttributeError('Assignment not allowed to message field "%s" in protocol '
                             'message object.' % name)
    return property(get, set_)



class MessageMap:
    """protobuf's message map (``Features.feature``, ``FeatureLists.feature_list``):
    str key -> message of one class; reading a missing key creates it, and ``in``,
    assignment and ``repr`` answer as upb's map does."""

    __slots__ = ("_d", "_owner", "_cls")

    def __init__(self, owner, cls):
        self._d = {}
        self._owner = owner
        self._cls = cls

    @staticmethod
    def _key(k):
        if isinstance(k, str):
            return k
        if isinstance(k, bytes):
            try:
                return k.decode("utf-8")
            except UnicodeDecodeError:
                raise ValueError("%r has type bytes, but isn't valid UTF-8 encoding. "
                                 "Non-UTF-8 strings must be converted to unicode "
                                 "objects before being added." % (k,)) from None
        raise TypeError("bad argument type for built-in operation")

    def __getitem__(self, k):
        k = self._key(k)
        f = self._d.get(k)
        if f is None:
            f = self._cls()
            self._d[k] = f
            self._owner._modified()
        return f

    def get(self, k, default=None):
        return self._d.get(self._key(k), default)

    def get_or_create(self, k):
        return self[k]

    def __setitem__(self, k, v):
        raise ValueError("Message objects may not be assigned")

    def __delitem__(self, k):
        del self._d[self._key(k)]

    def __contains__(self, k):
        return self._key(k) in self._d

    def __len__(self):
        return len(self._d)

    def __iter__(self):
        return iter(list(self._d))

    def keys(self):
        return self._d.keys()

    def values(self):
        return self._d.values()

    def items(self):
        return self._d.items()

    def clear(self):
        self._d.clear()

    def update(self, other):
        for k, v in (other.items() if hasattr(other, "items") else other):
            self[k].CopyFrom(v)

    def MergeFrom(self, other):
        for k, v in other.items():
            self[k].CopyFrom(v)

    def __eq__(self, other):
        if isinstance(other, MessageMap):
            return self._d == other._d
        try:
            return self._d == dict(other)
        except (TypeError, ValueError):
            return NotImplemented

    __hash__ = None

    def __repr__(self):
        return repr(self._d)  # the messages' text format, as upb prints a map


# ----------------------------------------------------------------- wire format

def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _wrap(field, payload):
    return bytes([(field << 3) | 2]) + _varint(len(payload)) + payload


def _skip_len(buf, pos):
    while buf[pos] & 0x80:
        pos += 1
    return pos + 1

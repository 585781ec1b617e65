"""``tf.train``: Example, Features, Feature, BytesList, FloatList, Int64List.

Pure-Python message classes with protobuf's construction rules and error texts
(those of the upb backend TensorFlow ships), serialized and parsed by the C library:
``SerializeToString()`` gives the bytes of protobuf's ``deterministic=True`` (keys
sorted), ``FromString`` / ``ParseFromString`` follow protobuf's decoding rules.

Numeric lists keep numpy arrays inside, so building from numpy is cheap:
``Int64List(value=np_array)`` checks the dtype once instead of every value.
"""
import operator
import threading

import numpy as np

from . import _c

ffi = _c.ffi
lib = _c.lib

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


_NDARRAY = np.ndarray
_new = object.__new__
_EMPTY_I64 = np.empty(0, np.int64)   # shared: stored arrays are never written in place
_EMPTY_F32 = np.empty(0, np.float32)


class _ListMessage(Message):
    __slots__ = ("_items", "_cont")
    _FIELDS = ("value",)
    _REPEATED = True
    _KIND = None

    def __init__(self, value=None, **kwargs):
        self._parent_hook = None
        self._cont = None
        if value.__class__ is _NDARRAY and value.dtype is self._DTYPE and value.ndim == 1:
            self._items = value.copy()  # the common numpy row: one copy (copy-on-assign)
            if kwargs:
                self._init_fields(kwargs)
            return
        kind = self._KIND
        if value is None:
            items = [] if kind == "bytes" else (_EMPTY_I64 if kind == "int64" else _EMPTY_F32)
        elif kind == "int64":
            items = _int64_array(value, self._FIELD)
        elif kind == "float":
            items = _float_array(value, self._FIELD)
        else:
            items = _bytes_list(value, self._FIELD)
        self._items = items
        if kwargs:
            self._init_fields(kwargs)

    @property
    def _value(self):
        c = self._cont
        if c is None:
            c = self._cont = RepeatedScalarContainer(self, self._KIND)
        return c

    value = _readonly("value", True)

    def _init_field(self, name, value):
        self._value.extend(value)

    def _share(self):
        """A new message of the same values (arrays are shared: never written in place)."""
        c = type(self).__new__(type(self))
        c._parent_hook = None
        it = self._items
        c._items = it if type(it) is not list else list(it)
        c._cont = None
        return c

    def _key(self):
        return list(self._value)

    def _snapshot(self):
        """(kind, values) for a Feature: the numpy array itself (never written in
        place), a fresh one for numeric values held in a list, a tuple of bytes."""
        it = self._items
        if it.__class__ is list:
            if self._DTYPE is None:
                return (self._LIST_FIELD, tuple(it))
            it = self._items = np.array(it, dtype=self._DTYPE)
        return (self._LIST_FIELD, it)

    def Clear(self):
        self._value._items = [] if self._KIND == "bytes" else self._value._checked([])

    def _clear_field(self, name):
        self.Clear()

    def MergeFrom(self, other):
        if type(other) is not type(self):
            raise TypeError("Parameter to MergeFrom() must be instance of same class: "
                            "expected %s got %s." % (type(self), type(other)))
        self._value.extend(list(other._value) if self._KIND == "bytes"
                           else other._value._array())

    def HasField(self, name):
        raise ValueError('Protocol message %s has no singular "%s" field.'
                         % (type(self).__name__, name))

    def _text(self, lines, ind):
        for v in self._value:
            lines.append("%svalue: %s\n" % (ind, self._fmt(v)))

    def SerializeToString(self, deterministic=None):
        # A list message is the body of a one-feature Example's Feature: serialize
        # that and cut the list out (cheap and always consistent with the C encoder).
        f = Feature()
        f._kind = self._LIST_FIELD
        f._lists[self._LIST_FIELD] = self
        body = f.SerializeToString()
        return body[_skip_len(body, 1):]

    def ParseFromString(self, s):
        f = Feature()
        f.ParseFromString(_wrap(1 if self._KIND == "bytes" else
                                (2 if self._KIND == "float" else 3), s))
        self.Clear()
        got = f._lists.get(self._LIST_FIELD)
        if got is not None:
            self._value._items = got._value._items
        return len(s)


class BytesList(_ListMessage):
    """``tf.train.BytesList(value=[b"...", ...])``: bytes only (``str`` is a TypeError)."""
    __slots__ = ()
    _KIND = "bytes"
    _FIELD = "tensorflow.BytesList.value"
    _LIST_FIELD = "bytes_list"
    _DTYPE = None

    @staticmethod
    def _fmt(v):
        return '"%s"' % _escape(v)


class FloatList(_ListMessage):
    """``tf.train.FloatList(value=[...])``: float32 values (ints and floats accepted)."""
    __slots__ = ()
    _KIND = "float"
    _FIELD = "tensorflow.FloatList.value"
    _LIST_FIELD = "float_list"
    _DTYPE = np.dtype(np.float32)
    _fmt = staticmethod(_fmt_float)


class Int64List(_ListMessage):
    """``tf.train.Int64List(value=[...])``: ints in int64 range (a float is a TypeError,
    an out-of-range int a ValueError)."""
    __slots__ = ()
    _KIND = "int64"
    _FIELD = "tensorflow.Int64List.value"
    _LIST_FIELD = "int64_list"
    _DTYPE = np.dtype(np.int64)

    @staticmethod
    def _fmt(v):
        return str(v)


_LIST_CLASSES = {"bytes_list": BytesList, "float_list": FloatList, "int64_list": Int64List}


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


class Feature(Message):
    """``tf.train.Feature``: one of ``bytes_list``, ``float_list``, ``int64_list``.

    Built from a list message, it keeps only a snapshot ``_raw`` = (kind, values) and
    leaves the ``_lists`` slot unset until something reads it (``__getattr__``): the
    values are numpy arrays never written in place (or a tuple of bytes), so sharing
    them keeps protobuf's copy-on-assign semantics at the cost of one object."""
    __slots__ = ("_kind", "_lists", "_raw")
    _FIELDS = ("bytes_list", "float_list", "int64_list")
    _REPEATED = False

    def __init__(self, **kwargs):
        self._parent_hook = None
        if len(kwargs) == 1:
            (name, value), = kwargs.items()
            if value.__class__ is _LIST_CLASSES.get(name):
                self._kind = name
                it = value._items
                self._raw = (name, it) if it.__class__ is _NDARRAY else value._snapshot()
                return
        self._raw = None
        self._kind = None
        self._lists = {}
        if kwargs:
            self._init_fields(kwargs)

    def __getattr__(self, name):
        # Only an unset slot gets here: build the list message from the snapshot.
        raw = self._raw if name == "_lists" else None
        if raw is None:
            raise AttributeError("'Feature' object has no attribute '%s'" % name)
        kind, items = raw
        lst = _LIST_CLASSES[kind].__new__(_LIST_CLASSES[kind])
        lst._parent_hook = None
        lst._items = list(items) if items.__class__ is tuple else items
        lst._cont = None
        self._raw = None
        lists = self._lists = {kind: lst}
        return lists

    def _snapshot(self):
        """(kind, values) shared with this Feature's current content, or (None, None)."""
        raw = self._raw
        if raw is not None:
            return raw
        k = self._kind
        return (None, None) if k is None else self._lists[k]._snapshot()

    def _init_field(self, name, value):
        cls = _LIST_CLASSES[name]
        if isinstance(value, dict):
            value = cls(**value)
        elif not isinstance(value, cls):
            raise TypeError("Parameter to initialize message field must be dict or "
                            "instance of same class: expected %s got %s."
                            % (cls, type(value)))
        else:
            value = value._share()
        self._set_list(name, value)

    def _share(self):
        c = Feature.__new__(Feature)
        c._parent_hook = None
        k = self._kind
        c._kind = k
        if k is None:
            c._raw = None
            c._lists = {}
        else:
            c._raw = self._snapshot()
        return c

    def _set_list(self, name, lst):
        lst._parent_hook = None
        self._raw = None
        self._lists = {name: lst}
        self._kind = name
        self._modified()

    def _get_list(self, name):
        if self._kind == name:
            return self._lists[name]
        lst = self._lists.get(name)
        if lst is None:
            lst = _LIST_CLASSES[name]()
            lst._parent_hook = lambda child, name=name: self._set_list(name, child)
            self._lists[name] = lst
        return lst

    def _field(name):  # noqa: N805 - a property factory used in the class body
        def set_(self, value):
            raise AttributeError('Assignment not allowed to message field "%s" in protocol '
                                 'message object.' % name)
        return property(lambda self: self._get_list(name), set_)

    bytes_list = _field("bytes_list")
    float_list = _field("float_list")
    int64_list = _field("int64_list")
    del _field

    def WhichOneof(self, group):
        if group != "kind":
            raise ValueError('Protocol message has no oneof "%s" field.' % group)
        return self._kind

    def HasField(self, name):
        if name == "kind":
            return self._kind is not None
        if name not in self._FIELDS:
            raise ValueError('Protocol message Feature has no field %s.' % name)
        return self._kind == name

    def _clear_field(self, name):
        if self._kind == name:
            self.Clear()

    def Clear(self):
        self._kind = None
        self._raw = None
        self._lists = {}

    def MergeFrom(self, other):
        if type(other) is not type(self):
            raise TypeError("Parameter to MergeFrom() must be instance of same class: "
                            "expected %s got %s." % (type(self), type(other)))
        if other._kind is not None:
            mine = self._get_list(other._kind)
            mine.MergeFrom(other._lists[other._kind])
            if self._kind != other._kind:
                self._set_list(other._kind, mine)
        self._modified()

    def _key(self):
        if self._kind is None:
            return (None,)
        return (self._kind, list(self._lists[self._kind]._value))

    def _text(self, lines, ind):
        if self._kind is not None:
            lines.append("%s%s {\n" % (ind, self._kind))
            self._lists[self._kind]._text(lines, ind + "  ")
            lines.append("%s}\n" % ind)

    def SerializeToString(self, deterministic=None):
        ex = Example()
        ex.features.feature[""].CopyFrom(self)
        data = ex.SerializeToString()
        # Example > Features entry > value: skip three headers and the key "".
        pos = _skip_len(data, 1)
        pos = _skip_len(data, pos + 1)
        pos += 2  # key field: 0a 00
        pos = _skip_len(data, pos + 1)
        return data[pos:]

    def ParseFromString(self, s):
        s = bytes(s)
        body = _wrap(1, b"\x0a\x00" + _wrap(2, s))
        ex = Example.FromString(_wrap(1, body))
        self.Clear()
        f = ex.features.feature.get("")
        if f is not None and f._kind is not None:
            self._set_list(f._kind, f._lists[f._kind])
        return len(s)


class _FeatureMap:
    """protobuf's message map ``Features.feature``: str key -> Feature; reading a
    missing key creates it, as protobuf does."""

    __slots__ = ("_d", "_owner")

    def __init__(self, owner):
        self._d = {}
        self._owner = owner

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
            f = Feature()
            self._d[k] = f
            self._owner._modified()
        return f

    def get(self, k, default=None):
        return self._d.get(self._key(k), default)

    def get_or_create(self, k):
        return self[k]

    def __setitem__(self, k, v):
        raise ValueError("May not set values directly, call my_map[key].foo = 5")

    def __delitem__(self, k):
        del self._d[self._key(k)]

    def __contains__(self, k):
        try:
            return self._key(k) in self._d
        except TypeError:
            return False

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
        if isinstance(other, _FeatureMap):
            return self._d == other._d
        try:
            return self._d == dict(other)
        except (TypeError, ValueError):
            return NotImplemented

    __hash__ = None

    def __repr__(self):
        return "{%s}" % ", ".join("%r: %s" % (k, str(v).strip() or "")
                                  for k, v in self._d.items())


class Features(Message):
    """``tf.train.Features(feature={"key": Feature, ...})``.

    Built from a dict of Features (str keys), it keeps only ``_frozen`` = {key:
    Feature snapshot} and leaves the ``_feature`` slot unset until something reads it
    (``__getattr__``); copying such a message (into an Example) shares the snapshot."""
    __slots__ = ("_feature", "_frozen")
    _FIELDS = ("feature",)
    _REPEATED = True

    def __init__(self, *, feature=None, **kwargs):
        self._parent_hook = None
        self._frozen = None
        if feature.__class__ is dict and not kwargs:
            frozen = {}
            for k, v in feature.items():
                if v.__class__ is not Feature or k.__class__ is not str:
                    break
                raw = v._raw
                frozen[k] = raw if raw is not None else v._snapshot()
            else:
                self._frozen = frozen
                return
        self._feature = _FeatureMap(self)
        if feature is not None:
            kwargs = dict(feature=feature, **kwargs)
        if kwargs:
            self._init_fields(kwargs)

    def __getattr__(self, name):
        # Only an unset slot gets here: build the feature map from the snapshot.
        frozen = self._frozen if name == "_feature" else None
        if frozen is None:
            raise AttributeError("'Features' object has no attribute '%s'" % name)
        m = _FeatureMap(self)
        d = m._d
        for k, raw in frozen.items():
            f = Feature.__new__(Feature)
            f._parent_hook = None
            f._kind = raw[0]
            if raw[0] is None:
                f._raw = None
                f._lists = {}
            else:
                f._raw = raw
            d[k] = f
        self._frozen = None
        self._feature = m
        return m

    def _snapshot(self):
        """{key: (kind, values)}: the content, shared (see Feature._snapshot)."""
        frozen = self._frozen
        if frozen is None:
            frozen = {k: f._snapshot() for k, f in self._feature._d.items()}
        return frozen

    def _init_field(self, name, value):
        if not hasattr(value, "items"):
            raise TypeError("bad argument type for built-in operation")
        m = self._feature
        d = m._d
        key = m._key
        for k, v in value.items():
            if type(v) is Feature:
                d[k if type(k) is str else key(k)] = v._share()
                continue
            if isinstance(v, dict):
                v = Feature(**v)
            elif not isinstance(v, Feature):
                raise TypeError("Parameter to CopyFrom() must be instance of same class: "
                                "expected %s got %s." % (Feature, type(v)))
            m[k].CopyFrom(v)
        self._modified()

    def _share(self):
        c = Features.__new__(Features)
        c._parent_hook = None
        c._frozen = self._snapshot()
        return c

    feature = _readonly("feature", True)

    def _key(self):
        return {k: v._key() for k, v in self._feature._d.items()}

    def Clear(self):
        self._feature._d.clear()

    def _clear_field(self, name):
        self.Clear()

    def MergeFrom(self, other):
        if type(other) is not type(self):
            raise TypeError("Parameter to MergeFrom() must be instance of same class: "
                            "expected %s got %s." % (type(self), type(other)))
        for k, v in other._feature._d.items():
            self._feature[k].MergeFrom(v)
        self._modified()

    def _text(self, lines, ind):
        for k, f in self._feature._d.items():
            lines.append('%sfeature {\n%s  key: "%s"\n%s  value {\n'
                         % (ind, ind, _escape(k.encode("utf-8")), ind))
            f._text(lines, ind + "    ")
            lines.append("%s  }\n%s}\n" % (ind, ind))

    def SerializeToString(self, deterministic=None):
        data = Example(features=self).SerializeToString()
        return data[_skip_len(data, 1):] if data else b""

    def ParseFromString(self, s):
        s = bytes(s)
        ex = Example.FromString(_wrap(1, s))
        self.Clear()
        self._feature._d = ex.features._feature._d
        return len(s)


class Example(Message):
    """``tf.train.Example(features=tf.train.Features(feature={...}))``."""
    __slots__ = ("_features", "_has_features")
    _FIELDS = ("features",)
    _REPEATED = False

    def __init__(self, *, features=None, **kwargs):
        self._parent_hook = None
        if features.__class__ is Features and not kwargs:
            # The common case: share its snapshot. No parent hook: presence is already
            # set, and a hook (a bound method of self) would make a reference cycle,
            # leaving every Example and its arrays to the cyclic garbage collector.
            c = _new(Features)
            c._parent_hook = None
            frozen = features._frozen
            c._frozen = frozen if frozen is not None else features._snapshot()
            self._features = c
            self._has_features = True
            return
        self._has_features = False
        self._features = self._child()
        if features is not None:
            kwargs = dict(features=features, **kwargs)
        if kwargs:
            self._init_fields(kwargs)

    def _child(self):
        f = Features()
        f._parent_hook = self._child_modified
        return f

    def _child_modified(self, child):
        self._has_features = True

    def _init_field(self, name, value):
        if isinstance(value, dict):
            value = Features(**value)
        elif not isinstance(value, Features):
            raise TypeError("Parameter to initialize message field must be dict or "
                            "instance of same class: expected %s got %s."
                            % (Features, type(value)))
        if not self._has_features and not self._features._snapshot():
            f = value._share()
            f._parent_hook = self._child_modified
            self._features = f
        else:
            self._features.MergeFrom(value)
        self._has_features = True

    features = _readonly("features", False)

    def HasField(self, name):
        if name != "features":
            raise ValueError('Protocol message Example has no field %s.' % name)
        return self._has_features

    def _clear_field(self, name):
        self.Clear()

    def Clear(self):
        self._features = self._child()
        self._has_features = False

    def MergeFrom(self, other):
        if type(other) is not type(self):
            raise TypeError("Parameter to MergeFrom() must be instance of same class: "
                            "expected %s got %s." % (type(self), type(other)))
        if other._has_features:
            self._features.MergeFrom(other._features)
            self._has_features = True

    def _key(self):
        return (self._has_features, self._features._key())

    def _text(self, lines, ind):
        if self._has_features:
            lines.append("%sfeatures {\n" % ind)
            self._features._text(lines, ind + "  ")
            lines.append("%s}\n" % ind)

    def SerializeToString(self, deterministic=None):
        """protobuf's ``SerializeToString(deterministic=True)`` bytes (keys sorted);
        the ``deterministic`` argument is accepted and ignored."""
        # One C call for the whole record (tfn_example_serialize_features): the values
        # are read where the messages keep them, through a per-thread tfn_feature
        # array kept for each tuple of keys (records repeat their keys).
        try:
            ex, err, out, n, layouts = _SCRATCH.fast
        except AttributeError:
            ex, err, out, n, layouts = _fast_state()
        fs = self._features
        feats = fs._frozen
        if feats is None:
            feats = fs._snapshot()
        keys = tuple(feats)
        lay = layouts.get(keys)
        if lay is None:
            lay = _new_layout(layouts, keys)
        arr, items, kinds, _ = lay
        keep = []
        i = 0
        for kind, vals in feats.values():
            item = items[i]
            if kinds[i] is not kind:  # the kind of key i, as the last record had it
                kinds[i] = kind
                item.kind = _KINDS[kind]
            i += 1
            if kind == "int64_list":
                item.int64s = b = _from_buffer(_I64_ARRAY, vals)
            elif kind == "float_list":
                item.floats = b = _from_buffer(_F32_ARRAY, vals)
            elif kind is None:
                item.count = 0
                continue
            else:
                item.bytes = b = _bytes_views(vals, keep)
            item.count = len(vals)
            keep.append(b)
        rc = _serialize_features(ex, arr, len(items), self._has_features, out, n, err)
        if rc < 0:
            if rc == lib.TFN_E_LIMIT:
                raise ValueError("Message tensorflow.Example exceeds maximum protobuf "
                                 "size of 2GB: %s" % _total_size(feats))
            _c.check(rc, err)
        return _buffer(out[0], n[0])[:]

    def ParseFromString(self, s):
        """Replaces the content with the decoded bytes (protobuf semantics)."""
        try:
            buf = ffi.from_buffer(s)
        except TypeError:
            raise TypeError("a bytes-like object is required, not '%s'"
                            % type(s).__name__) from None
        ex = _scratch_example()
        err = _c.new_error()
        rc = lib.tfn_example_decode(ex, buf, len(buf), 0, err)
        if rc < 0:
            if rc == lib.TFN_E_NOMEM:
                raise MemoryError(_c.message(err))
            raise DecodeError("Error parsing message with type 'tensorflow.Example'")
        self.Clear()
        _fill_from_native(self, ex, len(buf))
        return len(buf)


def _bytes_views(vals, keep):
    """A tfn_bytes array over the values (their buffers are kept alive in `keep`)."""
    init = []
    for v in vals:
        if v:
            b = _from_buffer(v)
            keep.append(b)
            init.append((b, len(v)))
        else:
            init.append((ffi.NULL, 0))
    return ffi.new(_BYTES_ARRAY, init)


def _fill_from_native(msg, ex, nbytes):
    n = lib.tfn_example_size(ex)
    feats = msg._features._feature._d
    if n or nbytes:
        msg._has_features = _native_has_features(ex, n, nbytes)
    view = ffi.new("tfn_feature *")
    for i in range(n):
        lib.tfn_example_at(ex, i, view)
        key = ffi.buffer(view.key, view.key_len)[:].decode("utf-8", "surrogateescape") \
            if view.key_len else ""
        f = Feature()
        kind = view.kind
        cnt = view.count
        if kind == lib.TFN_KIND_INT64:
            lst = Int64List()
            if cnt:
                lst._value._items = np.frombuffer(
                    ffi.buffer(view.int64s, cnt * 8), dtype=np.int64).copy()
            f._kind, f._lists = "int64_list", {"int64_list": lst}
        elif kind == lib.TFN_KIND_FLOAT:
            lst = FloatList()
            if cnt:
                lst._value._items = np.frombuffer(
                    ffi.buffer(view.floats, cnt * 4), dtype=np.float32).copy()
            f._kind, f._lists = "float_list", {"float_list": lst}
        elif kind == lib.TFN_KIND_BYTES:
            lst = BytesList()
            bs = view.bytes
            lst._value._items = [ffi.buffer(bs[j].data, bs[j].len)[:] if bs[j].len else b""
                                 for j in range(cnt)]
            f._kind, f._lists = "bytes_list", {"bytes_list": lst}
        feats[key] = f


def _native_has_features(ex, n, nbytes):
    # Any feature implies presence; an empty Features message serializes to 0a 00.
    return n > 0 or lib.tfn_example_serialized_size(ex) > 0


_SCRATCH = threading.local()
_KEY_BYTES = {}
_I64_ARRAY = ffi.typeof("int64_t[]")
_F32_ARRAY = ffi.typeof("float[]")
_BYTES_ARRAY = ffi.typeof("tfn_bytes[]")
_from_buffer = ffi.from_buffer
_clear = lib.tfn_example_clear
_set_int64s = lib.tfn_example_set_int64s
_set_floats = lib.tfn_example_set_floats
_serialize_owned = lib.tfn_example_serialize_owned
_buffer = ffi.buffer


_KIND_INT64 = lib.TFN_KIND_INT64
_KIND_FLOAT = lib.TFN_KIND_FLOAT
_KIND_BYTES = lib.TFN_KIND_BYTES
_KIND_NONE = lib.TFN_KIND_NONE
_KINDS = {"int64_list": _KIND_INT64, "float_list": _KIND_FLOAT, "bytes_list": _KIND_BYTES,
          None: _KIND_NONE}
_serialize_features = lib.tfn_example_serialize_features


def _fast_state():
    """Per thread: a scratch tfn_example, error, output slots and the tfn_feature
    arrays by tuple of keys."""
    st = (ffi.gc(_new_example(), lib.tfn_example_free), _c.new_error(),
          ffi.new("const uint8_t **"), ffi.new("size_t *"), {})
    _SCRATCH.fast = st
    return st


def _new_example():
    ex = lib.tfn_example_new(ffi.NULL)
    if ex == ffi.NULL:
        raise MemoryError("tfn_example_new")
    return ex


def _new_layout(layouts, keys):
    """A tfn_feature array with the keys set (their bytes kept alive with it)."""
    arr = ffi.new("tfn_feature[]", max(1, len(keys)))
    held = []
    for i, k in enumerate(keys):
        kb = _KEY_BYTES.get(k)
        if kb is None:
            kb = k.encode("utf-8")
            if len(_KEY_BYTES) < 4096:  # feature names repeat record after record
                _KEY_BYTES[k] = kb
        c = ffi.new("char[]", kb)
        held.append(c)
        arr[i].key = c
        arr[i].key_len = len(kb)
    if len(layouts) >= 64:
        layouts.clear()
    # the items, then each item's kind as last set (a list, updated in place)
    lay = layouts[keys] = (arr, [arr[i] for i in range(len(keys))], [0] * len(keys), held)
    return lay


def _total_size(feats):
    """The serialized size protobuf names when a message is over 2 GB."""
    ex = _scratch_example()
    lib.tfn_example_clear(ex)
    for k, (kind, arr) in feats.items():
        kb = k.encode("utf-8")
        if kind == "int64_list":
            lib.tfn_example_set_int64s(ex, kb, len(kb), _from_buffer(_I64_ARRAY, arr),
                                       len(arr), ffi.NULL)
        elif kind == "float_list":
            lib.tfn_example_set_floats(ex, kb, len(kb), _from_buffer(_F32_ARRAY, arr),
                                       len(arr), ffi.NULL)
        elif kind is None:
            lib.tfn_example_set_none(ex, kb, len(kb), ffi.NULL)
        else:
            keep = []
            lib.tfn_example_set_bytes(ex, kb, len(kb), _bytes_views(arr, keep), len(arr),
                                      ffi.NULL)
    size = lib.tfn_example_serialized_size(ex)
    lib.tfn_example_clear(ex)
    return size


def _scratch_example():
    """One tfn_example per thread, reused (its arena keeps its memory)."""
    ex = getattr(_SCRATCH, "ex", None)
    if ex is None:
        ex = ffi.gc(lib.tfn_example_new(ffi.NULL), lib.tfn_example_free)
        if ex == ffi.NULL:
            raise MemoryError("tfn_example_new")
        _SCRATCH.ex = ex
        _SCRATCH.state = (ex, _c.new_error(), ffi.new("const uint8_t **"),
                          ffi.new("size_t *"))
    return ex


from ._sequence_example import FeatureList, FeatureLists, SequenceExample  # noqa: E402

__all__ = ["Example", "Features", "Feature", "BytesList", "FloatList", "Int64List",
           "DecodeError", "EncodeError", "SequenceExample", "FeatureLists", "FeatureList"]

"""``tf.train.Example``, ``Features``, ``Feature``, ``BytesList``, ``FloatList``,
``Int64List``: serialized and parsed by the C library in one call per record
(``tfnano._c.example``)."""
import numpy as np

from .._c import example as _native
from .containers import (DecodeError, Message, MessageMap, RepeatedScalarContainer,
                         _bytes_list, _escape, _float_array, _fmt_float, _int64_array,
                         _readonly, _skip_len, _wrap)

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
        self._feature = MessageMap(self, Feature)
        if feature is not None:
            kwargs = dict(feature=feature, **kwargs)
        if kwargs:
            self._init_fields(kwargs)

    def __getattr__(self, name):
        # Only an unset slot gets here: build the feature map from the snapshot.
        frozen = self._frozen if name == "_feature" else None
        if frozen is None:
            raise AttributeError("'Features' object has no attribute '%s'" % name)
        m = MessageMap(self, Feature)
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
        fs = self._features
        feats = fs._frozen
        if feats is None:
            feats = fs._snapshot()
        return _native.serialize(feats, self._has_features)

    def ParseFromString(self, s):
        """Replaces the content with the decoded bytes (protobuf semantics)."""
        got = _native.decode(s)
        if got is None:
            raise DecodeError("Error parsing message with type 'tensorflow.Example'")
        has, items, nbytes = got
        self.Clear()
        if has is not None:
            self._has_features = has
        feats = self._features._feature._d
        for key, kind, vals in items:
            f = Feature()
            if kind is not None:
                lst = _LIST_CLASSES[kind]()
                if vals is not None:
                    lst._value._items = vals
                f._kind, f._lists = kind, {kind: lst}
            feats[key] = f
        return nbytes

"""``tf.train.SequenceExample``, ``FeatureLists`` and ``FeatureList``: protobuf-style
messages whose SerializeToString() gives protobuf's deterministic bytes (map entries
sorted by key) and whose FromString() follows protobuf's parsing (later map entries
win, repeated messages merge). Features and Feature are those of ``example``."""
from .containers import DecodeError, Message, MessageMap, _escape, _readonly, _wrap
from .example import Feature, Features


def _read_varint(buf, pos, end):
    v = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise DecodeError("Error parsing message")
        b = buf[pos]
        pos += 1
        v |= (b & 0x7F) << shift
        if b < 0x80:
            return v, pos
        shift += 7


def _fields(buf):
    """(field, wire, value) of a message; length-delimited values as bytes."""
    pos, end = 0, len(buf)
    while pos < end:
        tag, pos = _read_varint(buf, pos, end)
        field, wire = tag >> 3, tag & 7
        if field == 0:
            raise DecodeError("Error parsing message")
        if wire == 0:
            v, pos = _read_varint(buf, pos, end)
        elif wire == 1:
            v, pos = buf[pos:pos + 8], pos + 8
        elif wire == 5:
            v, pos = buf[pos:pos + 4], pos + 4
        elif wire == 2:
            n, pos = _read_varint(buf, pos, end)
            if n > end - pos:
                raise DecodeError("Error parsing message")
            v, pos = buf[pos:pos + n], pos + n
        else:
            raise DecodeError("Error parsing message")
        if pos > end:
            raise DecodeError("Error parsing message")
        yield field, wire, v


class _RepeatedFeature:
    """protobuf's repeated message field ``FeatureList.feature``."""

    __slots__ = ("_items", "_owner")

    def __init__(self, owner):
        self._items = []
        self._owner = owner

    def add(self, **kwargs):
        f = Feature(**kwargs)
        self._items.append(f)
        self._owner._modified()
        return f

    def append(self, f):
        if not isinstance(f, Feature):
            raise TypeError("Parameter to append() must be instance of Feature, got %s"
                            % type(f).__name__)
        c = Feature()
        c.CopyFrom(f)
        self._items.append(c)
        self._owner._modified()

    def extend(self, items):
        for f in items:
            self.append(f)

    def __len__(self):
        return len(self._items)

    def __iter__(self):
        return iter(self._items)

    def __getitem__(self, i):
        return self._items[i]

    def __delitem__(self, i):
        del self._items[i]

    def __eq__(self, other):
        return list(self) == list(other)

    __hash__ = None

    def __repr__(self):
        return repr(self._items)


class FeatureList(Message):
    """``tf.train.FeatureList(feature=[Feature, ...])``: one Feature per step."""
    __slots__ = ("_feature",)
    _FIELDS = ("feature",)

    def __init__(self, **kwargs):
        self._parent_hook = None
        self._feature = _RepeatedFeature(self)
        if kwargs:
            self._init_fields(kwargs)

    def _init_field(self, name, value):
        for f in value:
            self._feature.append(Feature(**f) if isinstance(f, dict) else f)

    feature = _readonly("feature", True)

    def _key(self):
        return [f._key() for f in self._feature]

    def Clear(self):
        self._feature._items = []

    def _clear_field(self, name):
        self.Clear()

    def MergeFrom(self, other):
        if type(other) is not type(self):
            raise TypeError("Parameter to MergeFrom() must be instance of same class: "
                            "expected %s got %s." % (type(self), type(other)))
        self._feature.extend(other._feature)
        self._modified()

    def _text(self, lines, ind):
        for f in self._feature:
            lines.append("%sfeature {\n" % ind)
            f._text(lines, ind + "  ")
            lines.append("%s}\n" % ind)

    def SerializeToString(self, deterministic=None):
        return b"".join(_wrap(1, f.SerializeToString()) for f in self._feature)

    def ParseFromString(self, s):
        self.Clear()
        self._merge_bytes(bytes(s))
        return len(s)

    def _merge_bytes(self, s):
        for field, wire, v in _fields(s):
            if field == 1 and wire == 2:
                self._feature._items.append(Feature.FromString(v))


class FeatureLists(Message):
    """``tf.train.FeatureLists(feature_list={"key": FeatureList, ...})``."""
    __slots__ = ("_feature_list",)
    _FIELDS = ("feature_list",)

    def __init__(self, **kwargs):
        self._parent_hook = None
        self._feature_list = MessageMap(self, FeatureList)
        if kwargs:
            self._init_fields(kwargs)

    def _init_field(self, name, value):
        for k, v in value.items():
            if isinstance(v, dict):
                v = FeatureList(**v)
            self._feature_list[k].CopyFrom(v)
        self._modified()

    feature_list = _readonly("feature_list", True)

    def _key(self):
        return {k: v._key() for k, v in self._feature_list.items()}

    def Clear(self):
        self._feature_list.clear()

    def _clear_field(self, name):
        self.Clear()

    def MergeFrom(self, other):
        if type(other) is not type(self):
            raise TypeError("Parameter to MergeFrom() must be instance of same class: "
                            "expected %s got %s." % (type(self), type(other)))
        for k, v in other._feature_list.items():
            self._feature_list[k].MergeFrom(v)
        self._modified()

    def _text(self, lines, ind):
        for k, fl in self._feature_list.items():
            lines.append('%sfeature_list {\n%s  key: "%s"\n%s  value {\n'
                         % (ind, ind, _escape(k.encode("utf-8")), ind))
            fl._text(lines, ind + "    ")
            lines.append("%s  }\n%s}\n" % (ind, ind))

    def SerializeToString(self, deterministic=None):
        # one C call (tfn_encode_sequences) when every list's steps are one kind; the
        # Python path below otherwise (same bytes)
        from .._c.sequence_columns import encode_feature_lists
        fast = encode_feature_lists([(k, list(v.feature))
                                     for k, v in self._feature_list._d.items()])
        if fast is not None:
            return fast
        out = []
        for k in sorted(self._feature_list._d, key=lambda s: s.encode("utf-8")):
            entry = _wrap(1, k.encode("utf-8")) + _wrap(
                2, self._feature_list._d[k].SerializeToString())
            out.append(_wrap(1, entry))
        return b"".join(out)

    def ParseFromString(self, s):
        self.Clear()
        self._merge_bytes(bytes(s))
        return len(s)

    def _merge_bytes(self, s):
        for field, wire, v in _fields(s):
            if field != 1 or wire != 2:
                continue
            key, value = b"", b""
            for f2, w2, x in _fields(v):
                if f2 == 1 and w2 == 2:
                    key = x
                elif f2 == 2 and w2 == 2:
                    value = x
            fl = FeatureList()
            fl._merge_bytes(value)
            self._feature_list._d[key.decode("utf-8")] = fl  # a later entry wins


class SequenceExample(Message):
    """``tf.train.SequenceExample(context=Features, feature_lists=FeatureLists)``."""
    __slots__ = ("_context", "_feature_lists", "_has")
    _FIELDS = ("context", "feature_lists")

    def __init__(self, **kwargs):
        self._parent_hook = None
        self._has = set()
        self._context = self._child("context", Features())
        self._feature_lists = self._child("feature_lists", FeatureLists())
        if kwargs:
            self._init_fields(kwargs)

    def _child(self, name, msg):
        msg._parent_hook = lambda child, name=name: self._child_modified(name)
        return msg

    def _child_modified(self, name):
        self._has.add(name)
        self._modified()

    def _init_field(self, name, value):
        cls = Features if name == "context" else FeatureLists
        if isinstance(value, dict):
            value = cls(**value)
        elif not isinstance(value, cls):
            raise TypeError("Parameter to initialize message field must be dict or "
                            "instance of same class: expected %s got %s." % (cls, type(value)))
        getattr(self, "_" + name).CopyFrom(value)
        self._has.add(name)

    def _field(name):  # noqa: N805 - a property factory used in the class body
        def set_(self, value):
            raise AttributeError('Assignment not allowed to message field "%s" in protocol '
                                 'message object.' % name)
        return property(lambda self: getattr(self, "_" + name), set_)

    context = _field("context")
    feature_lists = _field("feature_lists")
    del _field

    def HasField(self, name):
        if name not in self._FIELDS:
            raise ValueError('Protocol message SequenceExample has no field %s.' % name)
        return name in self._has

    def _clear_field(self, name):
        getattr(self, "_" + name).Clear()
        getattr(self, "_" + name)._parent_hook = (
            lambda child, name=name: self._child_modified(name))
        self._has.discard(name)

    def Clear(self):
        for name in self._FIELDS:
            self._clear_field(name)

    def MergeFrom(self, other):
        if type(other) is not type(self):
            raise TypeError("Parameter to MergeFrom() must be instance of same class: "
                            "expected %s got %s." % (type(self), type(other)))
        for name in other._has:
            getattr(self, "_" + name).MergeFrom(getattr(other, "_" + name))
            self._has.add(name)
        self._modified()

    def _key(self):
        return (self._context._key() if "context" in self._has else None,
                self._feature_lists._key() if "feature_lists" in self._has else None)

    def _text(self, lines, ind):
        for name in self._FIELDS:
            if name in self._has:
                lines.append("%s%s {\n" % (ind, name))
                getattr(self, "_" + name)._text(lines, ind + "  ")
                lines.append("%s}\n" % ind)

    def SerializeToString(self, deterministic=None):
        out = b""
        if "context" in self._has:
            out += _wrap(1, self._context.SerializeToString())
        if "feature_lists" in self._has:
            out += _wrap(2, self._feature_lists.SerializeToString())
        return out

    def ParseFromString(self, s):
        s = bytes(s)
        self.Clear()
        for field, wire, v in _fields(s):
            if field == 1 and wire == 2:
                self._context.MergeFrom(Features.FromString(v))
                self._has.add("context")
            elif field == 2 and wire == 2:
                self._feature_lists._merge_bytes(v)
                self._has.add("feature_lists")
        return len(s)

"""``tf.lookup``: StaticHashTable and StaticVocabularyTable, filled by a
KeyValueTensorInitializer or a TextFileInitializer, with TensorFlow's rules, dtypes and
errors (checked against TensorFlow 2.21).

A table is immutable once made. String and integer keys go into a C hash table
(lib/base/table.c: open addressing over the keys' Fingerprint64), built once; a lookup
of a whole tensor is one C call over views of its strings (tfnano._c.strviews, the GIL
released for big inputs), so ``table.lookup`` in a traced tf.data map runs batched.
StaticVocabularyTable sends keys missing from the vocabulary to ``vocab_size +
Fingerprint64(key) % num_oov_buckets`` (tf.strings.to_hash_bucket_fast, bit-exact;
integer keys hashed as their decimal text, as TensorFlow does), in the same C call.

As in TensorFlow, tables made from the same file with the same key / value indices,
vocab_size and offset share one table for the life of the process: the file is read
once, and a second table of other dtypes is an InvalidArgumentError.
"""
import itertools
import threading

import numpy as np

from .. import dtypes as _dt
from .._tensor import Tensor, as_tensor, constant
from .._trace import Spec, Symbol, traceable
from ..errors import FailedPreconditionError, InvalidArgumentError, invalid


class TextFileIndex:
    """``tf.lookup.TextFileIndex``: what a TextFileInitializer takes from each line."""
    WHOLE_LINE = -2
    LINE_NUMBER = -1


def _dtype_of(x):
    """TensorFlow's ``x.dtype`` (an AttributeError for Python lists, as in TensorFlow)."""
    d = x.dtype
    if isinstance(x, Symbol):
        return d
    if isinstance(d, _dt.DType):
        return d
    if isinstance(d, np.dtype) and d.kind in "SU":  # numpy's own 'S' arrays: TF refuses
        raise AttributeError("'numpy.dtypes.%s' object has no attribute 'base_dtype'"
                             % ("BytesDType" if d.kind == "S" else "StrDType"))
    return _dt.as_dtype(d)


class _TableInitializer:
    """What a table is filled from: key and value dtypes, and the (keys, values)."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = _dt.as_dtype(key_dtype)
        self._value_dtype = _dt.as_dtype(value_dtype)

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def value_dtype(self):
        return self._value_dtype

    _shared_name = None  # tables made from it share nothing


class KeyValueTensorInitializer(_TableInitializer):
    """``tf.lookup.KeyValueTensorInitializer(keys, values, key_dtype=None,
    value_dtype=None)``: the table's entries from two tensors of the same shape."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        self._keys = _as_tensor(keys, key_dtype)
        self._values = _as_tensor(values, value_dtype)
        self._name = name
        super().__init__(_dtype_of(self._keys), _dtype_of(self._values))

    def _entries(self, table):
        k, v = self._keys, self._values
        if k.shape != v.shape:
            raise invalid("Expected shape %s for value, got %s"
                          % (_dims(k.shape), _dims(v.shape)))
        return k.reshape(-1), v.reshape(-1)


def _as_tensor(x, dtype):
    if isinstance(x, np.ndarray) and dtype is None:
        return x.view(Tensor) if x.dtype.kind not in "SU" else constant(x)
    return constant(x, dtype=dtype)


def _dims(shape):
    return "[%s]" % ",".join(str(d) for d in shape)


class TextFileInitializer(_TableInitializer):
    """``tf.lookup.TextFileInitializer(filename, key_dtype, key_index, value_dtype,
    value_index, vocab_size=None, delimiter="\\t", value_index_offset=0)``: one entry
    per line of a text file; an index is a column (split on `delimiter`), the whole
    line (TextFileIndex.WHOLE_LINE) or the line number (TextFileIndex.LINE_NUMBER)."""

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index,
                 vocab_size=None, delimiter="\t", name=None, value_index_offset=0):
        if not isinstance(filename, np.ndarray) and not filename:
            raise ValueError("`filename` argument required for tf.lookup.TextFileInitializer")
        self._filename_arg = filename
        key_dtype, value_dtype = _dt.as_dtype(key_dtype), _dt.as_dtype(value_dtype)
        if key_index < -2:
            raise ValueError("`key_index` should be >= -2, received: %s." % (key_index,))
        if key_index == TextFileIndex.LINE_NUMBER and key_dtype != _dt.int64:
            raise ValueError("`key_dtype` must be int64 if `key_index` is %d, received: %s"
                             % (TextFileIndex.LINE_NUMBER, key_dtype))
        if key_index == TextFileIndex.WHOLE_LINE and not key_dtype.is_integer and \
                key_dtype != _dt.string:
            raise ValueError("`key_dtype` should be either integer or string for "
                             "`key_index` %d, received: %s" % (TextFileIndex.WHOLE_LINE,
                                                               key_dtype))
        if value_index < -2:
            raise ValueError("`value_index` should be >= -2, received: %s" % (value_index,))
        if value_index == TextFileIndex.LINE_NUMBER and value_dtype != _dt.int64:
            raise ValueError("`value_dtype` must be int64 for `value_index` %d, received: %s"
                             % (TextFileIndex.LINE_NUMBER, value_dtype))
        if value_index == TextFileIndex.WHOLE_LINE and not value_dtype.is_integer and \
                value_dtype != _dt.string:
            raise ValueError("`value_dtype` should be either integer or string for "
                             "`value_index` %d, received: %s" % (TextFileIndex.WHOLE_LINE,
                                                                 value_dtype))
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError("`vocab_size` should be > 0, received: %s" % (vocab_size,))
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size, self._delimiter = vocab_size, delimiter
        self._name, self._offset = name, value_index_offset
        self._filename = _filename(filename)
        super().__init__(key_dtype, value_dtype)

    @property
    def _shared_name(self):
        parts = [self._filename_arg if isinstance(self._filename_arg, str)
                 else self._filename]
        if self._vocab_size:
            parts.append("%d" % self._vocab_size)
        parts += [str(self._key_index), str(self._value_index)]
        if self._offset:
            parts.append(str(self._offset))
        return "hash_table_" + "_".join(parts)

    def _check(self):
        """The initializing kernel's own check (made even when the table exists)."""
        delim = self._delimiter
        if isinstance(delim, bytes):
            delim = delim.decode("utf-8", "replace")
        if len(delim) != 1:
            raise invalid("delimiter should be only 1 char")
        return delim.encode("utf-8")

    def _entries(self, table):
        return _read_entries(self._filename, self._vocab_size, self._check(),
                             self._key_dtype, self._key_index, self._value_dtype,
                             self._value_index, self._offset)


def _filename(filename):
    if isinstance(filename, np.ndarray):
        filename = filename.reshape(()).tolist() if filename.size == 1 else filename
    if isinstance(filename, bytes):
        return filename.decode("utf-8")
    import os
    return os.fspath(filename)


def _strto(token, dtype, line, name):
    """TensorFlow's safe_strto32 / 64, strtof / d: surrounding spaces allowed."""
    text = token.decode("utf-8", "replace")
    try:
        if dtype.is_integer:
            s = text.strip(" \t\n\v\f\r")
            if not s or not (s.lstrip("+-").isdigit() and s.lstrip("+-") == s[1:]
                             if s[0] in "+-" else s.isdigit()):
                raise ValueError
            v = int(s)
            lo, hi = (-2 ** 31, 2 ** 31 - 1) if dtype == _dt.int32 else (-2 ** 63, 2 ** 63 - 1)
            if not lo <= v <= hi:
                raise ValueError
            return v
        return float(text)
    except ValueError:
        raise invalid("Field %s in line %d is not a valid %s."
                      % (text, line, name)) from None


def _read_entries(path, vocab_size, delim, key_dtype, key_index, value_dtype, value_index,
                  offset):
    """The lookup_util.cc TextFileLineIterator: lines as io::InputBuffer reads them (one
    trailing "\\r" dropped), empty lines refused, columns split on one character."""
    from .io_ops import _read
    data = _read(path)
    keys, values = [], []
    pos = 0
    n = 0
    limit = -1 if vocab_size is None else vocab_size
    split = max(key_index, value_index) >= 0
    need = max(key_index, value_index) + 1
    names = {_dt.int32: "int32", _dt.int64: "int64", _dt.float32: "float",
             _dt.float64: "double"}
    while pos < len(data):
        end = data.find(b"\n", pos)
        line = data[pos:] if end < 0 else data[pos:end]
        pos = len(data) if end < 0 else end + 1
        if line.endswith(b"\r"):
            line = line[:-1]
        if limit != -1 and n >= limit:
            break
        if not line:
            raise invalid("Invalid content in %s: empty line found "
                          "at position %d." % (path, pos))
        tokens = line.split(delim) if split else None
        if split and len(tokens) < need:
            raise InvalidArgumentError(
                None, None, "Invalid number of columns in %s line %d (%s) : expected at least "
                "%d got %d" % (path, n, line.decode("utf-8", "replace"), need, len(tokens)))
        for index, dtype, out in ((key_index, key_dtype, keys),
                                  (value_index, value_dtype, values)):
            if index == TextFileIndex.LINE_NUMBER:
                out.append(n + offset)
                continue
            token = line if index == TextFileIndex.WHOLE_LINE else tokens[index]
            if dtype == _dt.string:
                out.append(token)
            elif dtype in names:
                v = _strto(token, dtype, n, names[dtype])
                out.append(v + offset if dtype == _dt.int32 else v)
            else:
                raise invalid("Data type %s not supported."
                              % dtype.name)
        n += 1
    if limit != -1 and n != limit and n < limit:
        raise invalid("Invalid vocab_size in %s: expected %d but "
                      "got %d" % (path, limit, n))
    return (_column(keys, key_dtype), _column(values, value_dtype))


def _column(items, dtype):
    if dtype == _dt.string:
        out = np.empty(len(items), object)
        out[:] = items
        return out
    return np.asarray(items, dtype=dtype.as_numpy_dtype)


# ---------------------------------------------------------------- the table itself

class _Entries:
    """Immutable key -> value data. String and integer keys (int64 and narrower) go
    into a C hash table (tfnano._c.strviews, lib/base/table.c) that gives each key's row:
    the index of its first occurrence in the keys given, into `all_values`. Other key
    dtypes are kept sorted (searchsorted). `keys` / `values`: the distinct keys and
    their values, in the order given."""

    def __init__(self, key_dtype, value_dtype, keys, values):
        self.key_dtype, self.value_dtype = key_dtype, value_dtype
        keys = np.asarray(keys).reshape(-1)
        values = np.asarray(values).reshape(-1)
        self.table = None
        if key_dtype == _dt.string or keys.dtype.kind == "i" or (
                keys.dtype.kind == "u" and keys.dtype.itemsize < 8):
            from .._c import strviews as _strviews
            if key_dtype == _dt.string:
                self.table, first = _strviews.new_string_table(keys)
            else:
                self.table, first = _strviews.new_int64_table(keys)
            self.int_keys = key_dtype != _dt.string
            own = first == np.arange(len(first))
            if not own.all():  # repeated keys: TensorFlow wants the same value again
                bad = np.flatnonzero(values[first] != values)
                if len(bad):
                    i = bad[0]
                    raise _different(keys[i], values[first[i]], values[i])
            self.all_values = values
            self.keys, self.values = keys[own], values[own]
            return
        order = np.argsort(keys, kind="stable")
        ks, vs = keys[order], values[order]
        first = np.ones(len(ks), bool)
        first[1:] = ks[1:] != ks[:-1]
        if not first.all():  # duplicates: the same value only
            groups = np.cumsum(first) - 1
            firsts = vs[first][groups]
            bad = np.flatnonzero(firsts != vs)
            if len(bad):
                i = bad[0]
                raise _different(ks[i], firsts[i], vs[i])
        back = np.sort(order[first])  # each key's first entry, in the order given
        self.keys, self.values = keys[back], values[back]
        self.all_values = self.values
        srt = np.argsort(self.keys, kind="stable")
        self.sorted_keys, self.sorted_pos = self.keys[srt], srt

    def __len__(self):
        return len(self.keys)

    def find(self, flat, tensor=None):
        """Row of each key of `flat` (a 1-D array; `tensor`, the tensor it comes from,
        lends its packed strings: tfnano._c.strviews.packed) in all_values,
        len(all_values) where missing."""
        missing = len(self.all_values)
        if self.table is not None:
            from .._c import strviews as _strviews
            if self.int_keys:
                return _strviews.find_int64(self.table, flat, missing)
            return _strviews.find_strings(self.table, flat, missing, tensor)
        n = len(self.keys)
        if n == 0:
            return np.full(len(flat), 0, np.int64)
        pos = np.searchsorted(self.sorted_keys, flat)
        pos[pos == n] = n - 1
        hit = self.sorted_keys[pos] == flat
        return np.where(hit, self.sorted_pos[pos], n).astype(np.int64)


def _text(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, np.generic):
        v = v.item()
    return str(v)


def _different(key, had, new):
    return FailedPreconditionError(
        None, None, "HashTable has different value for same key. Key %s has %s and trying "
        "to add value %s" % (_text(key), _text(had), _text(new)))


_SHARED = {}  # shared name -> _Entries of tables made from files (as TensorFlow keeps them)
_SHARED_LOCK = threading.Lock()


def _entries_for(initializer, anonymous):
    name = None if anonymous else initializer._shared_name
    if name is None:
        keys, values = initializer._entries(None)
        return _Entries(initializer.key_dtype, initializer.value_dtype, keys, values)
    with _SHARED_LOCK:
        got = _SHARED.get(name)
        if got is not None:
            if got.key_dtype != initializer.key_dtype or \
                    got.value_dtype != initializer.value_dtype:
                raise InvalidArgumentError(
                    None, None, "Conflicting key/value dtypes %s->%s with %s-%s for table %s"
                    % (initializer.key_dtype.name, initializer.value_dtype.name,
                       got.key_dtype.name, got.value_dtype.name, name))
            initializer._check()
            return got
        keys, values = initializer._entries(None)
        got = _Entries(initializer.key_dtype, initializer.value_dtype, keys, values)
        _SHARED[name] = got
        return got


def _lookup_infer(table, keys):
    return Spec(table.value_dtype.as_numpy_dtype if table.value_dtype != _dt.string
                else object, keys.spec.shape)


@traceable("lookup", batch="elementwise", infer=_lookup_infer)
def _find(table, keys):
    """The values of `keys` (a tensor of the table's key dtype), default where missing."""
    return table._find_array(np.asarray(keys), keys)


def _check_keys(table, keys):
    if _dtype_of(keys).base_dtype != table.key_dtype:
        raise TypeError("Dtype of argument `keys` must be %s, received: %s"
                        % (table.key_dtype, keys.dtype))


def _composite_kind(keys):
    kind = type(keys).__name__
    if kind == "SparseTensor" and hasattr(keys, "dense_shape"):
        return "sparse"
    if kind == "RaggedTensor" and hasattr(keys, "flat_values"):
        return "ragged"
    return None


def _with_values(keys, kind, values):
    if kind == "sparse":
        return type(keys)._make(keys.indices, values, keys.dense_shape)
    return keys.with_flat_values(values)


class _Lookup:
    """lookup(keys) / table[keys] of the static tables: the keys' dtype checked, a
    SparseTensor / RaggedTensor keeping its structure, the values from _find_array."""

    def lookup(self, keys, name=None):
        _check_keys(self, keys)
        kind = _composite_kind(keys)
        if kind is not None:
            return _with_values(keys, kind, _find(self, keys.values if kind == "sparse"
                                                  else keys.flat_values))
        return _find(self, keys)

    def __getitem__(self, keys):
        return self.lookup(keys)


class StaticHashTable(_Lookup):
    """``tf.lookup.StaticHashTable(initializer, default_value)``: an immutable table;
    ``lookup(keys)`` (or ``table[keys]``) gives each key's value, `default_value` for
    the keys it lacks, in the keys' shape (a SparseTensor / RaggedTensor keeps its
    structure)."""

    def __init__(self, initializer, default_value, name=None,
                 experimental_is_anonymous=False):
        self._initializer = initializer
        self._key_dtype, self._value_dtype = initializer.key_dtype, initializer.value_dtype
        self._default_value = _default(default_value, self._value_dtype)
        self._name = name or "hash_table"
        self._entries = _entries_for(initializer, experimental_is_anonymous)
        # values with the default as the last row: one take() per lookup
        self._table_values = np.concatenate([
            np.asarray(self._entries.all_values, dtype=_dt.numpy_dtype(self._value_dtype)),
            np.asarray(self._default_value).reshape(1)])

    key_dtype = property(lambda self: self._key_dtype)
    value_dtype = property(lambda self: self._value_dtype)
    default_value = property(lambda self: self._default_value)
    name = property(lambda self: None)  # TensorFlow's eager tables have no name
    resource_handle = property(lambda self: None)

    def size(self, name=None):
        return as_tensor(np.asarray(len(self._entries), np.int64))

    def _find_array(self, a, tensor=None):
        rows = self._entries.find(a.reshape(-1), tensor)
        return as_tensor(self._table_values[rows].reshape(a.shape))

    def export(self, name=None):
        """All keys and values (in the order given; TensorFlow's is its hash order)."""
        e = self._entries
        return (as_tensor(np.asarray(e.keys, dtype=_dt.numpy_dtype(self._key_dtype))),
                as_tensor(np.asarray(e.values, dtype=_dt.numpy_dtype(self._value_dtype))))


def _default(value, dtype):
    if dtype != _dt.string and isinstance(value, (str, bytes)):
        raise TypeError("Cannot convert %r to EagerTensor of dtype %s" % (value, dtype.name))
    t = constant(value, dtype=dtype) if not (isinstance(value, np.ndarray) and
                                             _dt.as_dtype(value.dtype) == dtype) \
        else as_tensor(value)
    if t.ndim != 0:
        raise ValueError("Shapes %s and () are not compatible" % (tuple(t.shape),))
    return t


class StaticVocabularyTable(_Lookup):
    """``tf.lookup.StaticVocabularyTable(initializer, num_oov_buckets,
    lookup_key_dtype=None)``: ids of a vocabulary (int64 values); a key missing from it
    gets ``vocab_size + Fingerprint64(key) % num_oov_buckets``."""

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous=False):
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        if name:
            name = name.rstrip("/")
        if initializer:
            lookup_key_dtype = initializer.key_dtype if lookup_key_dtype is None else \
                _dt.as_dtype(lookup_key_dtype)
            supported = (_dt.int64, _dt.string)
            if initializer.key_dtype not in supported:
                raise TypeError("Invalid `key_dtype`, expected one of %s, but got %s."
                                % (supported, initializer.key_dtype))
            if initializer.key_dtype.is_integer != lookup_key_dtype.is_integer:
                raise TypeError("Invalid `key_dtype`, expected %s but got %s." % (
                    "integer" if lookup_key_dtype.is_integer else "non-integer",
                    initializer.key_dtype))
            if initializer.value_dtype != _dt.int64:
                raise TypeError("Invalid `value_dtype`, expected %s but got %s."
                                % (_dt.int64, initializer.value_dtype))
            self._table = StaticHashTable(initializer, -1,
                                          experimental_is_anonymous=experimental_is_anonymous)
        else:
            lookup_key_dtype = _dt.string
            self._table = None
        if not lookup_key_dtype.is_integer and lookup_key_dtype != _dt.string:
            raise TypeError("Invalid `key_dtype`, expected integer or string, got %s"
                            % (lookup_key_dtype,))
        self._key_dtype = lookup_key_dtype
        self._num_oov_buckets = int(num_oov_buckets)
        self._name = name

    key_dtype = property(lambda self: self._key_dtype)
    value_dtype = property(lambda self: _dt.int64)
    name = property(lambda self: None if self._name is None else self._name.split("/")[-1])
    resource_handle = property(lambda self: None)

    def size(self, name=None):
        n = len(self._table._entries) if self._table is not None else 0
        return as_tensor(np.asarray(n + self._num_oov_buckets, np.int64))

    def _find_array(self, a, tensor=None):
        """TensorFlow's ids: the table's value, or where that is its default (-1, also
        for a key whose value is -1) vocab_size + Fingerprint64(key) % num_oov_buckets
        (integer keys: of their decimal text); one C call (tfn_table_vocab_*)."""
        from .._c import strviews as _strviews
        flat = a.reshape(-1)
        t = self._table
        if t is None:  # no vocabulary: every key hashed
            return as_tensor(_strviews.vocab_strings(
                None, np.empty(0, np.int64), flat, self._num_oov_buckets,
                tensor).reshape(a.shape))
        e = t._entries
        values = self._values
        if values is None:
            values = self._values = np.ascontiguousarray(e.all_values, np.int64)
        if e.int_keys:
            ids = _strviews.vocab_int64(e.table, values, flat, self._num_oov_buckets)
        else:
            ids = _strviews.vocab_strings(e.table, values, flat, self._num_oov_buckets,
                                          tensor)
        return as_tensor(ids.reshape(a.shape))

    _values = None


def __getattr__(name):
    if name == "experimental":  # the mutable tables, imported when first asked for
        from . import lookup_experimental  # lazy door: lookup_experimental imports this module
        return lookup_experimental
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(
        "module 'tfnano.lookup' has no attribute %r: tfnano implements tf.lookup's "
        "StaticHashTable, StaticVocabularyTable, KeyValueTensorInitializer, "
        "TextFileInitializer and TextFileIndex, and tf.lookup.experimental's "
        "MutableHashTable and DenseHashTable; tf.lookup.%s is not part of it. See "
        "docs/compat.md." % (name, name))


__all__ = ["StaticHashTable", "StaticVocabularyTable", "KeyValueTensorInitializer",
           "TextFileInitializer", "TextFileIndex"]

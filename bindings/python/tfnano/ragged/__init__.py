"""``tf.RaggedTensor`` / ``tf.ragged``: rows of different lengths as flat values plus
row splits (numpy arrays; no Python object per row).

``RaggedTensor(values, row_splits)``: row i is ``values[row_splits[i]:row_splits[i+1]]``;
`values` is an ndarray (the flat values, possibly with uniform inner dimensions) or
another RaggedTensor (more ragged dimensions). Construct with the ``from_*`` class
methods, as in TensorFlow."""
import numpy as np

from .. import errors
from .._tensor import as_tensor


def _array(x, dtype=None):
    if isinstance(x, RaggedTensor):
        return x
    if hasattr(x, "numpy") and not isinstance(x, np.ndarray):
        x = x.numpy()  # a TensorFlow tensor
    a = np.asarray(x) if dtype is None else np.asarray(x, dtype=dtype)
    if a.dtype.kind in "SU":
        a = a.astype(object)
    return a


def _splits_dtype(splits, dtype):
    if dtype is not None:
        from .. import dtypes
        return np.dtype(dtypes.as_dtype(getattr(dtype, "name", dtype)).as_numpy_dtype)
    a = np.asarray(splits)
    return a.dtype if a.dtype in (np.int32, np.int64) else np.dtype(np.int64)


def _nvals(values):
    return values.nrows() if isinstance(values, RaggedTensor) else len(values)


# TensorFlow's eager assertion texts (check_ops), for the checks its RaggedTensor
# factories make with validate=True, in their order.

def _shown(a, summarize=3):
    """A Tensor's values as TensorFlow's eager assertion shows them: ['1', '-2']."""
    flat = np.asarray(a).reshape(-1)
    items = [str(x) for x in flat[:summarize]]
    if len(items) < flat.size:
        items.append("...")
    return str(items)


def _check_equal(msg, x, y, sym="=="):
    """assert_equal / assert_less_equal / assert_less of x against y."""
    x, y = np.asarray(x), np.asarray(y)
    ok = {"==": np.equal, "<=": np.less_equal, "<": np.less}[sym](x, y)
    if np.all(ok):
        return
    lines = [msg, "Condition x %s y did not hold." % sym]
    if x.shape == y.shape and x.shape:
        bad = ~ok
        where = np.argwhere(bad)
        k = min(3, len(where))
        lines += ["Indices of first %d different values:" % k, str(where[:k]),
                  "Corresponding x values:", str(x[bad].reshape(-1)[:k]),
                  "Corresponding y values:", str(y[bad].reshape(-1)[:k])]
    xs, ys = x.reshape(-1), y.reshape(-1)
    lines += ["First %d elements of x:" % min(xs.size, 3), str(xs[:3]),
              "First %d elements of y:" % min(ys.size, 3), str(ys[:3])]
    raise errors.invalid("\n".join(lines))


def _check_non_negative(msg, x):
    """assert_non_negative(x, message=msg)."""
    x = np.asarray(x)
    if not np.any(x < 0):
        return
    raise errors.invalid("%s.  \nCondition x >= 0 did not hold element-wise:\nx (shape=%s "
                         "dtype=%s) = \n%s" % (msg, tuple(x.shape), x.dtype.name, _shown(x)))


def _check_nvals(nvals, values):
    """_from_row_partition's check: the partition's value count against the values'
    rows (in the partition's dtype)."""
    nvals = np.asarray(nvals)
    _check_equal("Arguments to _from_row_partition do not form a valid RaggedTensor",
                 nvals, nvals.dtype.type(_nvals(values)))


class RaggedTensor:
    """A ragged tensor: `values` partitioned into rows by `row_splits`."""

    __slots__ = ("_values", "_row_splits", "_uniform_row_length")

    def __init__(self, values, row_splits, uniform_row_length=None, internal=True):
        self._values = values
        self._row_splits = row_splits
        self._uniform_row_length = uniform_row_length

    # ------------------------------------------------------------ construction

    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        if isinstance(row_splits, (list, tuple)) and not row_splits:
            raise ValueError("row_splits tensor may not be empty.")
        values = _array(values)
        splits = np.ascontiguousarray(_array(row_splits), dtype=_splits_dtype(row_splits, None))
        if splits.ndim != 1:
            raise ValueError("Shape %s must have rank 1" % (splits.shape,))
        if splits.size == 0:  # TF reads row_splits[0]
            raise errors.invalid("slice index 0 of dimension 0 out of bounds.")
        if validate:
            msg = "Arguments to from_row_splits do not form a valid RaggedTensor:"
            _check_equal(msg + "zero", splits[0], splits.dtype.type(0))
            _check_non_negative(msg + "monotonic", np.diff(splits))
            _check_nvals(splits[-1], values)
        return cls(values, as_tensor(splits))

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        lengths = _array(row_lengths)
        dt = _splits_dtype(row_lengths, None)
        lengths = np.asarray(lengths, dtype=dt).reshape(-1)
        if validate:
            _check_non_negative("Arguments to from_row_lengths do not form a valid "
                                "RowPartition", lengths)
        splits = np.zeros(len(lengths) + 1, dtype=dt)
        np.cumsum(lengths, out=splits[1:])
        values = _array(values)
        if validate:
            _check_nvals(splits[-1], values)
        return cls(values, as_tensor(splits))

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype="int64"):
        """A rank-2, right-ragged SparseTensor (row r's columns are 0, 1, ... in order)
        as a RaggedTensor with dense_shape[0] rows."""
        from ..errors import InvalidArgumentError
        from ..sparse import SparseTensor
        if not isinstance(st_input, SparseTensor):
            raise TypeError("st_input must be tf.SparseTensor.")
        ind = np.asarray(st_input.indices, np.int64)
        shape = np.asarray(st_input.dense_shape, np.int64)
        if shape.shape[0] != 2:
            raise ValueError("rank(st_input) must be 2.")
        rows, cols = ind[:, 0], ind[:, 1]
        starts = np.searchsorted(rows, rows, side="left") if len(rows) else rows
        if len(rows) and (np.any(np.diff(rows) < 0) or np.any(cols != np.arange(len(rows))
                                                                 - starts)):
            flat = ind.reshape(-1).tolist()
            shown = ", ".join(str(v) for v in flat[:3]) + (", ..." if len(flat) > 3 else "")
            raise InvalidArgumentError(
                None, None, "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. "
                "Summarized data: b'SparseTensor is not right-ragged'\n"
                "b'SparseTensor.indices ='\n" + shown)
        from .. import dtypes as _dt
        dt = _dt.as_dtype(row_splits_dtype).as_numpy_dtype
        lengths = np.bincount(rows, minlength=int(shape[0])).astype(dt)
        return cls.from_row_lengths(st_input.values, lengths, validate=False)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        starts = np.asarray(_array(row_starts)).reshape(-1)
        dt = _splits_dtype(row_starts, None)
        starts = starts.astype(dt)
        values = _array(values)
        nvals = dt.type(_nvals(values))
        if validate:
            msg = "Arguments to from_row_starts do not form a valid RaggedTensor"
            _check_equal(msg, starts[:1], dt.type(0))
            _check_non_negative(msg, np.diff(starts))
            _check_equal(msg, starts[-1:], nvals, "<=")
        splits = np.concatenate([starts, np.asarray([nvals], dtype=dt)])
        return cls(values, as_tensor(splits))

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        limits = np.asarray(_array(row_limits)).reshape(-1)
        dt = _splits_dtype(row_limits, None)
        limits = limits.astype(dt)
        values = _array(values)
        splits = np.concatenate([np.zeros(1, dtype=dt), limits])
        if validate:
            msg = "Arguments to from_row_limits do not form a valid RaggedTensor"
            _check_non_negative(msg, limits[:1])
            _check_non_negative(msg, np.diff(limits))
            _check_nvals(splits[-1], values)
        return cls(values, as_tensor(splits))

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        ids = np.asarray(_array(value_rowids)).reshape(-1)
        dt = _splits_dtype(value_rowids, None)
        ids = ids.astype(dt)
        if nrows is None:
            nrows = int(ids[-1]) + 1 if ids.size else 0
        else:
            nrows = int(np.asarray(_array(nrows)))
            if nrows < 0:
                raise ValueError("Expected nrows >= 0; got %d" % nrows)
            if ids.size and not nrows >= ids[-1] + 1:
                raise ValueError("Expected nrows >= value_rowids[-1] + 1; got nrows=%d, "
                                 "value_rowids[-1]=%d" % (nrows, ids[-1]))
        if validate:
            msg = "Arguments to from_value_rowids do not form a valid RowPartition"
            _check_non_negative(msg, ids[:1])
            _check_non_negative(msg, np.diff(ids))
            _check_equal(msg, ids[-1:], dt.type(nrows), "<")
        values = _array(values)
        if len(ids) != _nvals(values):  # the static shape check, validated or not
            raise ValueError("Shapes (%d,) and (%d,) are incompatible"
                             % (_nvals(values), len(ids)))
        counts = np.bincount(ids[(ids >= 0) & (ids < nrows)], minlength=nrows)[:nrows]
        return cls.from_row_lengths(values, counts.astype(dt), validate=False)

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length, nrows=None, name=None,
                                validate=True):
        values = _array(values)
        length = int(np.asarray(_array(uniform_row_length)))
        dt = _splits_dtype(uniform_row_length, None)
        nvals = _nvals(values)
        if nrows is None:
            nrows = nvals // length if length else 0
        nrows = int(nrows)
        if validate:
            if nrows * length != nvals:
                raise ValueError("uniform_row_length=%d times nrows=%d must equal nvals=%d"
                                 % (length, nrows, nvals))
            if length < 0:
                raise ValueError("uniform_row_length must be >= 0.")
        splits = np.arange(nrows + 1, dtype=dt) * length
        return cls(values, as_tensor(splits.astype(dt)), length)

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None,
                               validate=True):
        result = _array(flat_values)
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None,
                                validate=True):
        result = _array(flat_values)
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    def with_values(self, new_values):
        return RaggedTensor(_array(new_values), self._row_splits, self._uniform_row_length)

    def with_flat_values(self, new_values):
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    # ------------------------------------------------------------ properties

    @property
    def values(self):
        v = self._values
        return v if isinstance(v, RaggedTensor) else as_tensor(v)

    @property
    def row_splits(self):
        return self._row_splits

    @property
    def flat_values(self):
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v._values
        return as_tensor(v)

    @property
    def nested_row_splits(self):
        out = [self._row_splits]
        v = self._values
        while isinstance(v, RaggedTensor):
            out.append(v._row_splits)
            v = v._values
        return tuple(out)

    @property
    def uniform_row_length(self):
        if self._uniform_row_length is None:
            return None
        return as_tensor(np.asarray(self._uniform_row_length, dtype=self._row_splits.dtype))

    @property
    def ragged_rank(self):
        v = self._values
        return 1 + (v.ragged_rank if isinstance(v, RaggedTensor) else 0)

    @property
    def dtype(self):
        from .. import dtypes
        return dtypes.as_dtype(self.flat_values.dtype)

    @property
    def row_splits_dtype(self):
        from .. import dtypes
        return dtypes.as_dtype(self._row_splits.dtype)

    @property
    def shape(self):
        inner = (self._values.shape[1:] if isinstance(self._values, RaggedTensor)
                 else tuple(self._values.shape[1:]))
        return (self.nrows_int(), self._uniform_row_length) + tuple(inner)

    def get_shape(self):
        return self.shape

    @property
    def rank(self):
        return len(self.shape)

    def nrows_int(self):
        return len(self._row_splits) - 1

    def nrows(self, out_type=None, name=None):
        return as_tensor(np.asarray(self.nrows_int(), dtype=out_type and np.dtype(
            getattr(out_type, "name", out_type)) or self._row_splits.dtype))

    def row_lengths(self, axis=1, name=None):
        if axis != 1:
            return self.with_values(self._values.row_lengths(axis - 1))
        return as_tensor(np.diff(self._row_splits.view(np.ndarray)))

    def row_starts(self, name=None):
        return as_tensor(self._row_splits.view(np.ndarray)[:-1])

    def row_limits(self, name=None):
        return as_tensor(self._row_splits.view(np.ndarray)[1:])

    def value_rowids(self, name=None):
        s = self._row_splits.view(np.ndarray)
        return as_tensor(np.repeat(np.arange(len(s) - 1, dtype=s.dtype), np.diff(s)))

    def __len__(self):
        return self.nrows_int()

    # ------------------------------------------------------------ conversion

    def _row(self, i):
        s = self._row_splits
        lo, hi = int(s[i]), int(s[i + 1])
        v = self._values
        if isinstance(v, RaggedTensor):
            return v._slice_rows(lo, hi)
        return as_tensor(np.asarray(v)[lo:hi])

    def _slice_rows(self, lo, hi):
        s = self._row_splits.view(np.ndarray)[lo:hi + 1]
        start, stop = int(s[0]), int(s[-1])
        v = self._values
        sub = v._slice_rows(start, stop) if isinstance(v, RaggedTensor) else v[start:stop]
        return RaggedTensor(sub, as_tensor(s - s[0]), self._uniform_row_length)

    def __getitem__(self, key):
        if isinstance(key, (int, np.integer)):
            n = self.nrows_int()
            i = int(key) + (n if key < 0 else 0)
            if not 0 <= i < n:
                raise IndexError("slice index %d of dimension 0 out of bounds." % key)
            return self._row(i)
        if isinstance(key, slice):
            rows = range(*key.indices(self.nrows_int()))
            if rows.step == 1:
                return self._slice_rows(rows.start, max(rows.start, rows.stop))
        raise TypeError("tfnano.RaggedTensor supports indexing by an int or a slice")

    def __iter__(self):
        for i in range(self.nrows_int()):
            yield self._row(i)

    def to_list(self):
        """Nested Python lists (bytes stay bytes), as TensorFlow's to_list()."""
        v = self._values
        inner = v.to_list() if isinstance(v, RaggedTensor) else np.asarray(v).tolist()
        s = self._row_splits.view(np.ndarray).tolist()
        return [inner[s[i]:s[i + 1]] for i in range(len(s) - 1)]

    def numpy(self):
        """An object array of the rows (each an ndarray or a nested object array)."""
        out = np.empty(self.nrows_int(), dtype=object)
        for i in range(self.nrows_int()):
            r = self._row(i)
            out[i] = r.numpy() if isinstance(r, RaggedTensor) else np.asarray(r)
        return out

    def _coords(self):
        """For each flat value: its index along every ragged dimension (rows first)."""
        levels = []
        rt = self
        while isinstance(rt, RaggedTensor):
            levels.append(rt._row_splits.view(np.ndarray).astype(np.int64))
            rt = rt._values
        coords = None
        for splits in reversed(levels):
            lengths = np.diff(splits)
            rowid = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
            pos = np.arange(splits[-1], dtype=np.int64) - splits[:-1][rowid]
            if coords is None:
                coords = [rowid, pos]
            else:
                coords = [rowid[coords[0]], pos[coords[0]]] + coords[1:]
        return coords, levels

    def bounding_shape(self):
        coords, levels = self._coords()
        dims = [len(levels[0]) - 1]
        for level in levels:
            lengths = np.diff(level)
            dims.append(int(lengths.max()) if lengths.size else 0)
        flat = np.asarray(self.flat_values)
        return dims + list(flat.shape[1:])

    def to_tensor(self, default_value=None, name=None, shape=None):
        """A dense array padded with `default_value` (0 / b""); `shape` (entries may be
        None) truncates or pads each dimension, as TensorFlow's to_tensor."""
        flat = np.asarray(self.flat_values)
        natural = self.bounding_shape()
        if shape is not None:
            shape = list(shape)
            if len(shape) != len(natural):
                raise ValueError("shape=%s has rank %d but expected rank %d"
                                 % (shape, len(shape), len(natural)))
            target = [natural[d] if shape[d] is None else int(shape[d])
                      for d in range(len(natural))]
        else:
            target = natural
        if default_value is None:
            default_value = b"" if flat.dtype == object else 0
        out = np.full(target, default_value, dtype=flat.dtype)
        coords, levels = self._coords()
        nr = len(levels) + 1
        keep = np.ones(len(coords[0]), dtype=bool)
        for d in range(nr):
            keep &= coords[d] < target[d]
        inner = tuple(slice(0, min(target[d], natural[d])) for d in range(nr, len(target)))
        idx = tuple(c[keep] for c in coords)
        out[idx] = flat[keep][(slice(None),) + inner]
        return as_tensor(out)

    def __repr__(self):
        return "<tf.RaggedTensor %r>" % (self.to_list(),)

    def __str__(self):
        return self.__repr__()


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None,
             row_splits_dtype="int64"):
    """``tf.ragged.constant`` for nested lists of scalars (uniform leaves)."""
    def depth(x):
        d = 0
        while isinstance(x, (list, tuple)):
            if not x:
                return d + 1
            x = x[0]
            d += 1
        return d

    nd = max(depth(pylist), 1)
    rr = nd - 1 if ragged_rank is None else int(ragged_rank)
    splits_dt = _splits_dtype(None, row_splits_dtype)
    levels = []
    cur = list(pylist)
    for _ in range(rr):
        lengths = [len(x) for x in cur]
        splits = np.zeros(len(lengths) + 1, dtype=splits_dt)
        np.cumsum(lengths, out=splits[1:])
        levels.append(splits)
        cur = [y for x in cur for y in x]
    from .._tensor import constant as _const
    flat = _const(cur, dtype=dtype) if cur or dtype is not None else \
        np.zeros((0,), dtype=np.float32)  # no values and no dtype: float32, as TensorFlow
    return RaggedTensor.from_nested_row_splits(np.asarray(flat), levels, validate=False)


__all__ = ["RaggedTensor", "constant"]

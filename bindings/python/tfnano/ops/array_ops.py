"""Array ops at TensorFlow's names (``tf.reshape``, ``tf.shape``, ``tf.stack`` ...):
shapes, joins, fills, gathers, slicing. Each is traceable; ops with an axis shift it
by one when they run on a batch (the record axis comes first), and ops whose result
shape depends on values (``tf.range``, ``tf.where`` with one argument,
``tf.boolean_mask``) run per record (batch=None)."""
import builtins

import numpy as np

from .. import dtypes as _dt
from .._trace import LENGTHS, Spec, Symbol, TraceError, active_graph, traceable
from ..errors import InvalidArgumentError, invalid
from ._common import contiguous as _contiguous
from ._common import kernel_name
from ._common import plain, same_dtype, shape_list, shift_axis, to_array, wrap

newaxis = None


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _same_rows(rows, what):
    rows = np.asarray(rows)
    if rows.ndim == 2 and len(rows) and not (rows == rows[0]).all():
        raise TraceError("%s differs between records, so the results cannot form one "
                         "batch" % what)
    return rows[0] if rows.ndim == 2 and len(rows) else rows


# A constant beside traced values in a list argument (tf.stack([x, [0, 1]])) is lifted
# to a traced value, so that on a batch every list item has the record axis.
def _batch_size(like):
    return len(np.asarray(like.row_splits)) - 1 if _is_rows(like) else len(like)


@traceable("lift_constant", batch=lambda value, like: np.broadcast_to(
    to_array(value), (_batch_size(like),) + to_array(value).shape),
    infer=lambda value, like: Spec(to_array(value).dtype, to_array(value).shape),
    rows=lambda node: "reduce")  # beside rows: the constant once per record
def _lift_constant(value, like):
    return wrap(to_array(value))


def _lift_list(values):
    if active_graph() is None or not any(isinstance(v, Symbol) for v in values):
        return list(values)
    like = next(v for v in values if isinstance(v, Symbol))
    return [v if isinstance(v, Symbol) else _lift_constant(v, like) for v in values]


# ---------------------------------------------------------------------- shapes

def _shape_infer(input, out_type=_dt.int32, name=None):
    rank = input.spec.rank if isinstance(input, Symbol) else np.ndim(input)
    return Spec(_dt.as_dtype(out_type).as_numpy_dtype, (rank,))


def _shape_batch(input, out_type=_dt.int32, name=None):
    a = np.asarray(input)
    out = np.tile(np.asarray(a.shape[1:], _dt.as_dtype(out_type).as_numpy_dtype),
                  (a.shape[0], 1))
    lengths = _padded_lengths(a)
    if lengths is not None:
        out[:, 0] = lengths
    return out


@traceable("shape", batch=_shape_batch, infer=_shape_infer)
def shape(input, out_type=_dt.int32, name=None):  # noqa: A002 - TensorFlow's names
    """``tf.shape``: the dynamic shape as a 1-D int32 (or `out_type`) tensor."""
    return wrap(np.asarray(np.shape(plain(input)) if isinstance(input, np.ndarray)
                           else to_array(input).shape, _dt.as_dtype(out_type).as_numpy_dtype))


@traceable("rank", batch=lambda input, name=None: np.full(
    np.shape(input)[0], np.ndim(input) - 1, np.int32), infer=lambda input, name=None:
    Spec(np.int32, ()))
def rank(input, name=None):  # noqa: A002
    """``tf.rank``: number of dimensions, a 0-d int32 tensor."""
    return wrap(np.asarray(to_array(input).ndim, np.int32))


def _is_rows(x):
    """A batch of per-record 1-D values of varying length (a RaggedTensor of records)."""
    return type(x).__name__ == "RaggedTensor" and hasattr(x, "row_splits")


def _row_lengths(rows):
    return np.diff(np.asarray(rows.row_splits))


def _rank1_rows(node):
    x = node.args[0] if node.args else None
    return isinstance(x, Symbol) and x.spec.shape is not None and len(x.spec.shape) == 1


def _padded_lengths(a):
    """Each record's true length along axis 1 where a batched value holds records
    padded to the longest (a VarLenFeature's sp.values), else None."""
    table = getattr(LENGTHS, "table", None)
    if table is None or a.ndim < 2:
        return None
    got = table.get((a.__array_interface__["data"][0], a.shape))
    return None if got is None or isinstance(got, str) else np.asarray(got, np.int64)


def _size_batch(input, out_type=_dt.int32, name=None):
    if _is_rows(input):
        return _row_lengths(input).astype(_dt.as_dtype(out_type).as_numpy_dtype)
    a = np.asarray(input)
    lengths = _padded_lengths(a)
    if lengths is not None:
        return (lengths * int(np.prod(a.shape[2:]))).astype(
            _dt.as_dtype(out_type).as_numpy_dtype)
    return np.full(a.shape[0], int(np.prod(a.shape[1:])),
                   _dt.as_dtype(out_type).as_numpy_dtype)


@traceable("size", batch=_size_batch, infer=lambda input, out_type=_dt.int32, name=None:
           Spec(_dt.as_dtype(out_type).as_numpy_dtype, ()),
           rows=lambda node: "reduce" if _rank1_rows(node) else None)
def size(input, out_type=_dt.int32, name=None):  # noqa: A002
    """``tf.size``: number of elements, a 0-d int32 (or `out_type`) tensor."""
    return wrap(np.asarray(to_array(input).size, _dt.as_dtype(out_type).as_numpy_dtype))


def _reshape_target(input_shape, dims):
    """TensorFlow's Reshape shape rule, zero sizes included: with a zero in `dims`,
    zero dimensions of the input are left out of the count the -1 is inferred from."""
    total = int(np.prod(input_shape)) if not isinstance(input_shape, int) else input_shape
    in_dims = [input_shape] if isinstance(input_shape, int) else list(input_shape)
    unknown = [i for i, d in enumerate(dims) if d == -1]
    if len(unknown) > 1:
        raise invalid("Only one input size may be -1, not both "
                      "%d and %d" % (unknown[0], unknown[1]))
    for i, d in enumerate(dims):
        if d < -1:
            raise invalid("Size %d must be non-negative, not %d"
                          % (i, d))
    has_zero = any(d == 0 for d in dims)
    product = 1
    for d in dims:
        if d > 0:
            product *= d
    if unknown:
        count, input_has_zero = 1, False
        for d in in_dims:
            if d > 0 or not has_zero:
                count *= d
            else:
                input_has_zero = True
        missing = count // product if product else 0
        if not input_has_zero and product * missing != count:
            raise invalid("Input to reshape is a tensor with %d "
                          "values, but the requested shape requires a multiple"
                          " of %d" % (count, product))
        dims = [missing if d == -1 else d for d in dims]
    requested = int(np.prod(dims)) if dims else 1
    if requested != total:
        raise invalid("Input to reshape is a tensor with %d values,"
                      " but the requested shape has %d" % (total, requested))
    return dims


def _reshape_infer(tensor, shape, name=None):
    dtype = tensor.spec.dtype if isinstance(tensor, Symbol) else to_array(tensor).dtype
    if isinstance(shape, Symbol):
        if shape.spec.shape is None or shape.spec.shape[0] is None:
            return Spec(dtype, None)
        return Spec(dtype, (None,) * shape.spec.shape[0])
    if _has_traced_dims(shape):
        return Spec(dtype, tuple(None if isinstance(d, Symbol) or d == -1 else int(d)
                                 for d in shape))
    dims = shape_list(shape)
    if isinstance(tensor, Symbol) and tensor.spec.shape is not None and \
            None not in tensor.spec.shape:
        dims = _reshape_target(tensor.spec.shape, dims)
    return Spec(dtype, tuple(None if d == -1 else d for d in dims))


def _reshape_batch(tensor, shape, name=None):
    a = np.asarray(tensor)
    dims = [int(d) for d in _same_rows(shape, "the shape given to tf.reshape")]
    per = _reshape_target(a.shape[1:], dims)
    return a.reshape((a.shape[0],) + tuple(per))


def reshape(tensor, shape, name=None):
    """``tf.reshape``: at most one -1, sizes must agree (InvalidArgumentError). With a
    traced shape (known per record) it runs per record."""
    if active_graph() is not None and _has_traced_dims(shape):
        return _reshape_per_record(tensor, shape)
    return _reshape_traced(tensor, shape)


def _reshape_impl(tensor, shape, name=None):
    a = to_array(tensor)
    dims = _reshape_target(a.shape, shape_list(shape))
    return wrap(a.reshape(dims))


_reshape_traced = traceable("reshape", batch=_reshape_batch, infer=_reshape_infer)(_reshape_impl)
_reshape_per_record = traceable("reshape", batch=None, infer=_reshape_infer)(_reshape_impl)


def _expand_axis(a, axis):
    axis = int(plain(axis))
    if axis < -a.ndim - 1 or axis > a.ndim:
        raise invalid("Tried to expand dim index %d for tensor with "
                      "%d dimensions." % (axis, a.ndim))
    return axis


def _expand_dims_infer(input, axis, name=None):  # noqa: A002
    """The input's static shape with a 1 at `axis` (unknown sizes stay unknown)."""
    s = input.spec if isinstance(input, Symbol) else Spec(to_array(input).dtype,
                                                           to_array(input).shape)
    if s.shape is None:
        return Spec(s.dtype, None)
    n = len(s.shape)
    if isinstance(axis, Symbol):
        return Spec(s.dtype, (None,) * (n + 1))
    ax = int(plain(axis))
    if ax < -n - 1 or ax > n:
        raise InvalidArgumentError(None, None, "Tried to expand dim index %d for tensor with "
                                   "%d dimensions." % (ax, n))
    ax = ax + n + 1 if ax < 0 else ax
    return Spec(s.dtype, s.shape[:ax] + (1,) + s.shape[ax:])


@traceable("expand_dims", batch=lambda input, axis, name=None: np.expand_dims(
    input, shift_axis(int(axis))), infer=_expand_dims_infer)
def expand_dims(input, axis, name=None):  # noqa: A002
    """``tf.expand_dims``: axis in [-rank-1, rank]."""
    a = to_array(input)
    return wrap(np.expand_dims(a, _expand_axis(a, axis)))


def _squeeze_axes(a, axis, first=0):
    if axis is None:
        return tuple(i for i in range(first, a.ndim) if a.shape[i] == 1)
    axes = [axis] if np.ndim(axis) == 0 else list(axis)
    out = []
    for ax in axes:
        ax = int(ax)
        if ax < -a.ndim or ax >= a.ndim:
            raise invalid("Tried to squeeze dim index %d for tensor "
                          "with %d dimensions." % (ax, a.ndim))
        ax %= a.ndim
        if a.shape[ax] != 1:
            raise invalid("Can not squeeze dim[%d], expected a "
                          "dimension of 1, got %d" % (ax, a.shape[ax]))
        out.append(ax)
    return tuple(out)


def _squeeze_batch(input, axis=None, name=None):
    a = np.asarray(input)
    if axis is None:
        return np.squeeze(a, _squeeze_axes(a, None, first=1))
    return np.squeeze(a, _squeeze_axes(a, shift_axis(
        [axis] if np.ndim(axis) == 0 else list(axis))))


@traceable("squeeze", batch=_squeeze_batch)
def squeeze(input, axis=None, name=None):  # noqa: A002
    """``tf.squeeze``: drops size-1 dimensions (all, or those in `axis`)."""
    a = to_array(input)
    return wrap(np.squeeze(a, _squeeze_axes(a, axis)))


# ----------------------------------------------------------------------- joins

def _stack_impl(values, axis=0, name=None):
    if values:  # the axis is checked first, as TensorFlow does
        nd = np.ndim(plain(values[0]) if isinstance(values[0], np.ndarray) else values[0]) + 1
        if int(axis) < -nd or int(axis) >= nd:
            raise ValueError("Argument `axis` = %d not in range [%d, %d)" % (int(axis), -nd, nd))
    arrays = same_dtype("Pack", *values) if values else []
    if not arrays:
        raise ValueError("List argument 'values' to 'Pack' Op with length 0 shorter than "
                         "minimum length 1.")
    for i, a in enumerate(arrays[1:], 1):
        if a.shape != arrays[0].shape:
            raise invalid("Shapes of all inputs must match: "
                          "values[0].shape = %s != values[%d].shape = %s"
                          % (_dims(arrays[0].shape), i, _dims(a.shape)))
    nd = arrays[0].ndim + 1
    axis = int(axis)
    if axis < -nd or axis >= nd:
        raise ValueError("Argument `axis` = %d not in range [%d, %d)" % (axis, -nd, nd))
    return wrap(np.stack(arrays, axis))


_stack_traced = traceable("stack", batch=lambda values, axis=0, name=None: np.stack(
    [np.asarray(v) for v in values], shift_axis(int(axis))))(_stack_impl)


def stack(values, axis=0, name="stack"):
    """``tf.stack``: tensors of one shape and dtype along a new axis."""
    return _stack_traced(_lift_list(values), axis)


def _concat_impl(values, axis, name=None):
    arrays = same_dtype("ConcatV2", *values)
    first = arrays[0]
    ax = int(plain(axis))
    if first.ndim == 0:
        raise invalid("ConcatOp : Can't concatenate scalars (use "
                      "tf.stack instead)")
    if ax < -first.ndim or ax >= first.ndim:
        raise invalid("ConcatOp : Expected concatenating dimensions "
                      "in the range [%d, %d), but got %d"
                      % (-first.ndim, first.ndim, ax))
    ax %= first.ndim
    for i, a in enumerate(arrays[1:], 1):
        if a.ndim != first.ndim:
            raise invalid("ConcatOp : Ranks of all input tensors "
                          "should match: shape[0] = %s vs. shape[%d] = %s"
                          % (_dims(first.shape), i, _dims(a.shape)))
        for d in range(first.ndim):
            if d != ax and a.shape[d] != first.shape[d]:
                raise invalid("ConcatOp : Dimension %d in both "
                              "shapes must be equal: shape[0] = %s vs. shape[%d]"
                              " = %s" % (d, _dims(first.shape), i,
                                         _dims(a.shape)))
    return wrap(np.concatenate(arrays, ax))


def _concat_rows_kind(node):
    """concat along axis 0 of 1-D records, one of them rows and the others of a known
    length (tf.concat([[cls], tokens, [sep]], 0)): rows out."""
    values, axis = node.args[0], node.args[1] if len(node.args) > 1 else None
    if not isinstance(values, (list, tuple)) or axis is None or \
            isinstance(axis, Symbol) or int(plain(axis)) not in (0, -1):
        return None
    if not builtins.all(isinstance(v, Symbol) and v.spec.shape is not None and
                        len(v.spec.shape) == 1 for v in values):
        return None
    return "map" if builtins.sum(v.spec.shape[0] is None for v in values) == 1 else None


def _concat_rows(values):
    """Each record's parts joined: rows (RaggedTensor) and per-record 1-D arrays."""
    parts, n = [], None
    for v in values:
        if _is_rows(v):
            splits = np.asarray(v.row_splits).astype(np.int64)
            parts.append((np.diff(splits), np.asarray(v.values), splits))
            rows_type = type(v)
        else:
            a = np.asarray(v)
            parts.append((np.full(a.shape[0], a.shape[1], np.int64), a, None))
        n = len(parts[-1][0])
    dtypes = {p[1].dtype for p in parts}
    if len(dtypes) > 1:
        raise invalid("ConcatOp : dtypes of the inputs differ: %s"
                      % sorted(map(str, dtypes)))
    lengths = builtins.sum(p[0] for p in parts)
    new_splits = np.zeros(n + 1, np.int64)
    np.cumsum(lengths, out=new_splits[1:])
    out = np.empty(int(new_splits[-1]), parts[0][1].dtype)
    offset = new_splits[:-1].copy()
    for lens, vals, splits in parts:
        pos = np.arange(int(lens.sum()), dtype=np.int64)
        firsts = np.zeros(n, np.int64)
        np.cumsum(lens[:-1], out=firsts[1:])
        pos += np.repeat(offset - firsts, lens)
        out[pos] = vals.reshape(-1) if splits is None else vals
        offset += lens
    return rows_type.from_row_splits(out, new_splits, validate=False)


def _concat_batch(values, axis, name=None):
    if builtins.any(_is_rows(v) for v in values):
        return _concat_rows(values)
    return np.concatenate([np.asarray(v) for v in values], shift_axis(int(axis)))


_concat_traced = traceable("concat", batch=_concat_batch,
                           rows=_concat_rows_kind)(_concat_impl)


def concat(values, axis, name="concat"):
    """``tf.concat``: along an existing axis; ranks and other dimensions must agree."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1 and not isinstance(values[0], Symbol):
        return wrap(to_array(values[0]))
    return _concat_traced(_lift_list(values), axis)


def _unstack_infer(value, num=None, axis=0, name=None):
    spec = value.spec
    if spec.shape is None:
        raise TraceError("tf.unstack needs the rank of its input")
    ax = int(axis) % len(spec.shape)
    n = spec.shape[ax] if num is None else num
    if n is None:
        raise TraceError("tf.unstack needs a known size along axis %d" % ax)
    rest = spec.shape[:ax] + spec.shape[ax + 1:]
    return [Spec(spec.dtype, rest) for _ in range(n)]


@traceable("unstack", batch=lambda value, num=None, axis=0, name=None: [
    np.take(value, i, shift_axis(int(axis))) for i in
    builtins.range(np.shape(value)[shift_axis(int(axis))])], infer=_unstack_infer)
def unstack(value, num=None, axis=0, name="unstack"):
    """``tf.unstack``: a list of tensors along `axis`."""
    a = to_array(value)
    ax = int(axis)
    if ax < -a.ndim or ax >= a.ndim:
        raise ValueError("Argument `axis` = %d not in range [%d, %d)" % (ax, -a.ndim, a.ndim))
    if num is not None and num != a.shape[ax]:
        raise invalid("Input shape axis %d must equal %d, got shape "
                      "%s" % (ax, num, _dims(a.shape)))
    return [wrap(np.take(a, i, ax)) for i in builtins.range(a.shape[ax])]


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """``tf.split``: equal parts (an int) or the given sizes (one may be -1)."""
    a = to_array(value)
    ax = int(axis) % max(a.ndim, 1)
    if np.ndim(num_or_size_splits) == 0:
        n = int(num_or_size_splits)
        if a.shape[ax] % n:
            raise invalid("Number of ways to split should evenly "
                          "divide the split dimension, but got split_dim %d "
                          "(size = %d) and num_split %d" % (ax, a.shape[ax], n))
        return [wrap(p) for p in np.split(a, n, ax)]
    sizes = [int(s) for s in np.asarray(plain(num_or_size_splits)).reshape(-1)]
    if sizes.count(-1) == 1:
        sizes[sizes.index(-1)] = a.shape[ax] - (builtins.sum(sizes) + 1)
    if builtins.sum(sizes) != a.shape[ax]:
        raise invalid("Determined shape must either match input "
                      "shape along split_dim exactly if fully specified, or be "
                      "less than the size of the input along split_dim if not "
                      "fully specified.  Got: %d" % builtins.sum(sizes))
    return [wrap(p) for p in np.split(a, np.cumsum(sizes)[:-1], ax)]


# ----------------------------------------------------------------------- fills

def _fill_dtype(value):
    return to_array(value)


def _fill_batch(dims, value, name=None):
    v = np.asarray(value)
    d = [int(x) for x in _same_rows(dims, "the shape given to tf.fill")]
    if v.ndim == 1:  # a traced value: one per record
        return np.broadcast_to(v.reshape((-1,) + (1,) * len(d)), (len(v),) + tuple(d)).copy()
    raise TraceError("tf.fill with a traced shape and a constant value has no batch size")


def _known_shape_value(sym):
    """The static shape of x when `sym` is tf.shape(x) and x's rank is known (what
    TensorFlow's shape inference reads from it, unknown sizes None), else None."""
    for node in reversed(sym.graph.nodes):
        if node.outputs is sym:
            x = node.args[0] if node.op.name == "shape" and node.args else None
            if isinstance(x, Symbol) and x.spec.shape is not None:
                return tuple(x.spec.shape)
            return None
    return None


def _fill_infer(dims, value, name=None):
    dtype = value.spec.dtype if isinstance(value, Symbol) else to_array(value).dtype
    if isinstance(dims, Symbol) and _known_shape_value(dims) is not None:
        return Spec(dtype, _known_shape_value(dims))
    if isinstance(dims, Symbol):
        n = None if dims.spec.shape is None else dims.spec.shape[0]
        return Spec(dtype, None if n is None else (None,) * n)
    return Spec(dtype, tuple(None if isinstance(d, Symbol) else int(d) for d in dims))


def _has_traced_dims(dims):
    return isinstance(dims, Symbol) or (isinstance(dims, (list, tuple)) and builtins.any(
        isinstance(d, Symbol) for d in dims))


def fill(dims, value, name=None):
    """``tf.fill``: `dims` filled with `value` (its dtype: Python floats float32). With
    traced dims (a shape known per record) it runs per record."""
    if active_graph() is not None and _has_traced_dims(dims):
        return _fill_per_record(dims, value)
    return _fill_traced(dims, value)


def _fill_impl(dims, value, name=None):
    v = to_array(value)
    if v.size != 1:
        raise invalid("value must be a scalar, got shape %s"
                      % _dims(v.shape))
    v = v.reshape(())
    d = shape_list(dims)
    if builtins.any(x < 0 for x in d):
        raise invalid("Dimension %d must be >= 0"
                      % next(x for x in d if x < 0))
    return wrap(np.full(d, v, v.dtype))


_fill_traced = traceable("fill", batch=_fill_batch, infer=_fill_infer)(_fill_impl)
_fill_per_record = traceable("fill", batch=None, infer=_fill_infer)(_fill_impl)


def zeros(shape, dtype=_dt.float32, name=None, layout=None):
    """``tf.zeros``: float32 unless `dtype` (strings: b''). With a traced shape (a size
    known per record) it is tf.fill's per-record op."""
    if (active_graph() is not None and _has_traced_dims(shape)
            and _dt.as_dtype(dtype) is not _dt.string):
        return fill(shape, np.zeros((), _dt.numpy_dtype(dtype)))
    d = shape_list(shape)
    if _dt.as_dtype(dtype) is _dt.string:
        a = np.empty(d, object)
        a.fill(b"")
        return wrap(a)
    return wrap(np.zeros(d, _dt.numpy_dtype(dtype)))


def ones(shape, dtype=_dt.float32, name=None, layout=None):
    """``tf.ones``: float32 unless `dtype`; a traced shape as in zeros."""
    if active_graph() is not None and _has_traced_dims(shape):
        return fill(shape, np.ones((), _dt.numpy_dtype(dtype)))
    return wrap(np.ones(shape_list(shape), _dt.numpy_dtype(dtype)))


@traceable("zeros_like", batch="elementwise")
def zeros_like(input, dtype=None, name=None, layout=None):  # noqa: A002
    """``tf.zeros_like``: same shape, same dtype unless `dtype`."""
    a = to_array(input)
    if (dtype is None and a.dtype == object) or (dtype is not None and
                                                  _dt.as_dtype(dtype) is _dt.string):
        out = np.empty(a.shape, object)
        out.fill(b"")
        return wrap(out)
    return wrap(np.zeros(a.shape, a.dtype if dtype is None else _dt.numpy_dtype(dtype)))


@traceable("ones_like", batch="elementwise")
def ones_like(input, dtype=None, name=None, layout=None):  # noqa: A002
    """``tf.ones_like``: same shape, same dtype unless `dtype`."""
    a = to_array(input)
    return wrap(np.ones(a.shape, a.dtype if dtype is None else _dt.numpy_dtype(dtype)))


def _range_type(dtypes, dtype):
    """tf.range's output dtype: `dtype`, else the widest of the bounds' dtypes."""
    if dtype is not None:
        return np.dtype(_dt.numpy_dtype(dtype))
    order = [np.dtype(t) for t in (np.int32, np.int64, np.float32, np.float64)]
    return builtins.max(dtypes, key=lambda t: order.index(t) if t in order else 0)


def _range_infer(start, limit=None, delta=1, dtype=None, name="range"):
    # a traced bound: the length is only known per record (zero stand-ins would say 0)
    bounds = (start, limit, delta) if limit is not None else (0, start, delta)
    if not builtins.any(isinstance(b, Symbol) for b in bounds):
        a = _range_impl(start, limit, delta, dtype).numpy()
        return Spec(a.dtype, a.shape)
    dtypes = [b.spec.dtype if isinstance(b, Symbol) else to_array(b).dtype for b in bounds]
    return Spec(_range_type(dtypes, dtype), (None,))


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
    """``tf.range``: int32 for Python ints, float32 once any bound is a float."""
    if limit is None:
        start, limit = 0, start
    vals = [to_array(v) for v in (start, limit, delta)]
    out_type = _range_type([v.dtype for v in vals], dtype)
    s, l, d = (v.item() for v in vals)

    def show(v):  # TensorFlow prints its float bounds in shortest form (1, 0.5)
        return ("%g" % (v + 0.0)).replace("-0", "0") if v == 0 and isinstance(v, float) \
            else "%g" % v if isinstance(v, float) else str(v)
    if d == 0:
        raise invalid("Requires delta != 0: %s" % show(d))
    if d > 0 and s > l:
        raise invalid("Requires start <= limit when delta > 0: "
                      "%s/%s" % (show(s), show(l)))
    if d < 0 and s < l:
        raise invalid("Requires start >= limit when delta < 0: "
                      "%s/%s" % (show(s), show(l)))
    # Size and values in the output dtype's arithmetic, as TensorFlow's kernel.
    t = np.dtype(out_type).type
    with np.errstate(all="ignore"):
        ts, tl, td = t(s), t(l), t(d)
        if np.dtype(out_type).kind in "iu":
            n = (abs(int(tl) - int(ts)) + abs(int(td)) - 1) // abs(int(td))
        else:
            n = int(np.ceil(np.abs((tl - ts) / td)))
        return wrap((ts + np.arange(n, dtype=out_type) * td).astype(out_type))


_range_impl = range
range = traceable("range", batch=None, infer=_range_infer)(_range_impl)  # noqa: A001


@traceable("identity", batch="elementwise")
def identity(input, name=None):  # noqa: A002
    """``tf.identity``: the same values."""
    return wrap(to_array(input))


# ------------------------------------------------------------------- gathering

def _gather_impl(params, indices, validate_indices=None, axis=None, batch_dims=0,
                 name=None):
    p = to_array(params)
    idx = to_array(indices)
    if idx.dtype.kind not in "iu":
        from ._common import kernel_name
        raise invalid("Value for attr 'Tindices' of %s is not in the "
                      "list of allowed values: int16, int32, int64"
                      % kernel_name(idx.dtype))
    ax = 0 if axis is None else int(plain(axis))
    if ax < -p.ndim or ax >= p.ndim:
        raise invalid("Expected axis in the range [%d, %d), but got "
                      "%d" % (-p.ndim, p.ndim, ax))
    ax %= p.ndim
    n = p.shape[ax]
    bad = np.argwhere((idx < 0) | (idx >= n))
    if len(bad):
        where = bad[0]
        label = "indices" if idx.ndim == 0 else "indices[%s]" % ",".join(map(str, where))
        raise invalid("%s = %d is not in [0, %d)"
                      % (label, idx[tuple(where)], n))
    if batch_dims:
        bd = int(batch_dims) % max(idx.ndim, 1) if batch_dims < 0 else int(batch_dims)
        flat_p = p.reshape((-1,) + p.shape[bd:])
        flat_i = idx.reshape((-1,) + idx.shape[bd:])
        out = np.stack([np.take(pp, ii, ax - bd) for pp, ii in zip(flat_p, flat_i)])
        return wrap(out.reshape(p.shape[:bd] + out.shape[1:]))
    return wrap(np.take(p, idx, ax))


def _gather_const_batch(params, indices, validate_indices=None, axis=None, batch_dims=0,
                        name=None):
    return _gather_impl(params, indices, None, shift_axis(0 if axis is None else int(axis)))


def _gather_both_batch(params, indices, validate_indices=None, axis=None, batch_dims=0,
                       name=None):
    return _gather_impl(params, indices, None, shift_axis(0 if axis is None else int(axis)),
                        batch_dims + 1)


_gather_const = traceable("gather", batch=_gather_const_batch)(_gather_impl)
_gather_both = traceable("gather", batch=_gather_both_batch)(_gather_impl)


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """``tf.gather``: slices of `params` along `axis` at `indices` (out of range:
    InvalidArgumentError, as on CPU)."""
    if active_graph() is not None and isinstance(indices, Symbol):
        if batch_dims or not isinstance(params, Symbol):
            if not isinstance(params, Symbol):
                params = _lift_constant(params, indices)
            elif batch_dims:
                return traceable("gather", batch=None)(_gather_impl)(
                    params, indices, None, axis, batch_dims)
        return _gather_both(params, indices, None, axis, batch_dims)
    return _gather_const(params, indices, None, axis, batch_dims)


def gather_nd(params, indices, batch_dims=0, name=None):
    p, idx = to_array(params), to_array(indices)
    k = idx.shape[-1]
    flat = idx.reshape(-1, k)
    for row in flat:
        for d, i in enumerate(row):
            if i < 0 or i >= p.shape[d]:
                raise invalid("indices%s = %s does not index into "
                              "param shape %s" % (list(row), list(row),
                                                  _dims(p.shape)))
    out = p[tuple(flat.T)] if k else np.broadcast_to(p, (len(flat),) + p.shape)
    return wrap(out.reshape(idx.shape[:-1] + p.shape[k:]))


@traceable("where", batch=None)
def _where1(condition):
    c = to_array(condition)
    if c.ndim == 0:
        raise invalid("WhereOp : Unhandled input dimensions: 0")
    return wrap(np.argwhere(c).astype(np.int64))


@traceable("where", batch="elementwise")
def _where3(condition, x, y):
    c = to_array(condition)
    if c.dtype.kind != "b" and not isinstance(condition, (np.ndarray, np.generic)):
        raise TypeError("Cannot convert %r to EagerTensor of dtype bool" % (condition,))
    if c.dtype.kind != "b":
        raise invalid("cannot compute SelectV2 as input #0(zero-"
                      "based) was expected to be a bool tensor but is a %s "
                      "tensor" % _dt.as_dtype(c.dtype).name)
    a, b = same_dtype("SelectV2", x, y)
    try:
        np.broadcast_shapes(c.shape, a.shape, b.shape)
    except ValueError:
        raise invalid("condition %s, then %s, and else %s must be "
                      "broadcastable" % (_dims(c.shape), _dims(a.shape),
                                         _dims(b.shape))) from None
    return wrap(np.where(c, a, b))


def where(condition, x=None, y=None, name=None):
    """``tf.where``: indices of True (int64, [n, rank]), or a broadcast select."""
    if x is None and y is None:
        return _where1(condition)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    return _where3(condition, x, y)


def _one_hot_impl(indices, depth, on_value=None, off_value=None, axis=None, dtype=None,
                  name=None):
    idx = to_array(indices)
    depth = int(plain(depth))
    if dtype is not None:
        out_type = _dt.numpy_dtype(dtype)
    elif on_value is not None:
        out_type = to_array(on_value).dtype
    elif off_value is not None:
        out_type = to_array(off_value).dtype
    else:
        out_type = np.float32
    on = np.asarray(1 if on_value is None else plain(on_value)).astype(out_type)
    off = np.asarray(0 if off_value is None else plain(off_value)).astype(out_type)
    hot = idx[..., None] == np.arange(depth)
    out = np.where(hot, on, off).astype(out_type)
    if axis is not None and axis != -1:
        out = np.moveaxis(out, -1, int(axis))
    return wrap(_contiguous(out))


def _one_hot_batch(indices, depth, on_value=None, off_value=None, axis=None, dtype=None,
                   name=None):
    return _one_hot_impl(indices, depth, on_value, off_value,
                         None if axis is None or axis == -1 else shift_axis(int(axis)), dtype)


one_hot = traceable("one_hot", batch=_one_hot_batch)(_one_hot_impl)
one_hot.__doc__ = ("``tf.one_hot``: float32 unless `dtype` / `on_value`; indices outside "
                   "[0, depth) give a row of `off_value`.")


@traceable("clip_by_value", batch="elementwise")
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """``tf.clip_by_value``: bounds take the tensor's dtype (a float bound on an int
    tensor is a TypeError, as TensorFlow's conversion)."""
    a = to_array(t)
    lo = _bound(clip_value_min, a.dtype)
    hi = _bound(clip_value_max, a.dtype)
    return wrap(np.minimum(np.maximum(a, lo), hi).astype(a.dtype))


def _bound(v, dtype):
    if isinstance(v, (np.ndarray, np.generic)):
        b = plain(np.asarray(v))
        if b.dtype != dtype:
            raise invalid("cannot compute Minimum as input #1(zero-"
                          "based) was expected to be a %s tensor but is a %s "
                          "tensor" % (_dt.as_dtype(dtype).name,
                                      _dt.as_dtype(b.dtype).name))
        return b
    b = np.asarray(v)
    if b.dtype.kind == "f" and np.dtype(dtype).kind in "iu":
        raise TypeError("Cannot convert %r to EagerTensor of dtype %s"
                        % (v, _dt.as_dtype(dtype).name))
    return b.astype(dtype)


def _perm_batch(a, perm):
    return [0] + [int(p) + 1 for p in perm]


@traceable("transpose", batch=lambda a, perm=None, conjugate=False, name=None: np.transpose(
    a, [0] + (list(builtins.range(np.ndim(a) - 1, 0, -1)) if perm is None
              else [int(p) % (np.ndim(a) - 1) + 1 for p in shape_list(perm)])))
def transpose(a, perm=None, conjugate=False, name="transpose"):
    """``tf.transpose``: reverses the axes unless `perm`."""
    x = to_array(a)
    if perm is None:
        return wrap(_contiguous(np.transpose(x)))
    p = shape_list(perm)
    if sorted(q % max(x.ndim, 1) for q in p) != list(builtins.range(x.ndim)):
        raise invalid("transpose expects a vector of size %d. But "
                      "input(1) is a vector of size %d" % (x.ndim, len(p))
                      if len(p) != x.ndim else
                      "%s is not a valid permutation" % _dims(p))
    return wrap(_contiguous(np.transpose(x, p)))


@traceable("tile", batch=lambda input, multiples, name=None: np.tile(
    input, [1] + shape_list(multiples)))
def tile(input, multiples, name=None):  # noqa: A002
    """``tf.tile``: `multiples` has one entry per dimension."""
    a = to_array(input)
    m = shape_list(multiples)
    if len(m) != a.ndim:
        raise invalid("Expected multiples argument to be a vector of "
                      "length %d but got length %d" % (a.ndim, len(m)))
    return wrap(np.tile(a, m))


def _pad_impl(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    a = to_array(tensor)
    p = np.asarray(plain(paddings)).reshape(-1, 2).astype(int)
    if p.shape[0] != a.ndim:
        raise invalid("The first dimension of paddings must be the "
                      "rank of inputs%s, input shape: %s"
                      % (_dims(p.shape), _dims(a.shape)))
    mode = mode.upper()
    if mode == "CONSTANT":
        cv = _bound(constant_values, a.dtype) if a.dtype != object else constant_values
        return wrap(np.pad(a, p, constant_values=cv))
    return wrap(np.pad(a, p, mode={"REFLECT": "reflect", "SYMMETRIC": "symmetric"}[mode]))


pad = traceable("pad", batch=lambda tensor, paddings, mode="CONSTANT", constant_values=0,
                name=None: _pad_impl(tensor, [[0, 0]] + np.asarray(plain(paddings))
                                     .reshape(-1, 2).tolist(), mode, constant_values))(_pad_impl)
pad.__doc__ = "``tf.pad``: CONSTANT (with `constant_values`), REFLECT or SYMMETRIC."


@traceable("boolean_mask", batch=None)
def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """``tf.boolean_mask``: the entries where `mask` (leading dims of tensor) is True."""
    a, m = to_array(tensor), to_array(mask)
    ax = 0 if axis is None else int(axis)
    if m.ndim == 0:
        raise ValueError("mask cannot be scalar.")
    if a.shape[ax:ax + m.ndim] != m.shape:
        raise ValueError("Shapes %s and %s are incompatible" % (a.shape[ax:ax + m.ndim],
                                                                m.shape))
    lead = a.shape[:ax]
    flat = a.reshape(lead + (-1,) + a.shape[ax + m.ndim:])
    return wrap(np.compress(m.reshape(-1), flat, axis=ax))


def _reverse_batch(tensor, axis, name=None):
    if _is_rows(tensor):  # each record's tokens reversed
        return _getitem_rows(tensor, builtins.slice(None, None, -1))
    return np.flip(tensor, tuple(shift_axis(shape_list(axis))))


def _reverse_rows_kind(node):
    """tf.reverse(tokens, [0]) of a record's 1-D tokens maps rows to rows."""
    axis = node.args[1] if len(node.args) > 1 else node.kwargs.get("axis")
    if not _rank1_rows(node) or isinstance(axis, Symbol):
        return None
    try:
        return "map" if shape_list(axis) in ([0], [-1]) else None
    except (TypeError, ValueError):
        return None


@traceable("reverse", batch=_reverse_batch, rows=_reverse_rows_kind)
def reverse(tensor, axis, name=None):
    """``tf.reverse``: flips the given axes."""
    a = to_array(tensor)
    return wrap(_contiguous(np.flip(a, tuple(shape_list(axis)))))


def _slice_impl(input_, begin, size, name=None):
    a = to_array(input_)
    b, s = shape_list(begin), shape_list(size)
    idx = []
    for d, (st, sz) in enumerate(zip(b, s)):
        sz = a.shape[d] - st if sz == -1 else sz
        if st < 0 or st + sz > a.shape[d]:
            raise invalid("Expected size[%d] in [0, %d], but got %d"
                          % (d, a.shape[d] - st, sz))
        idx.append(builtins.slice(st, st + sz))
    return wrap(_contiguous(a[tuple(idx)]))


slice = traceable("slice", batch=lambda input_, begin, size, name=None: _slice_impl(  # noqa
    input_, [0] + shape_list(begin), [-1] + shape_list(size)))(_slice_impl)


@traceable("broadcast_to", batch=lambda input, shape, name=None: np.broadcast_to(
    input, (np.shape(input)[0],) + tuple(shape_list(shape))).copy())
def broadcast_to(input, shape, name=None):  # noqa: A002
    """``tf.broadcast_to``."""
    a = to_array(input)
    try:
        return wrap(np.broadcast_to(a, shape_list(shape)).copy())
    except ValueError:
        raise invalid("Unable to broadcast tensor of shape %s to "
                      "tensor of shape %s" % (_dims(a.shape),
                                              _dims(shape_list(shape)))) from None


def _sort_impl(values, axis=-1, direction="ASCENDING", name=None, stable=True, argsort=False):
    a = to_array(values)
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError("%s should be one of ASCENDING, DESCENDING" % direction)
    key = a if direction == "ASCENDING" else (-a if a.dtype.kind != "u" else ~a)
    idx = np.argsort(key, axis=int(axis), kind="stable")
    if argsort:
        return wrap(idx.astype(np.int32))
    return wrap(np.take_along_axis(a, idx, int(axis)))


sort = traceable("sort", batch=lambda values, axis=-1, direction="ASCENDING", name=None:
                 _sort_impl(values, shift_axis(int(axis)), direction))(_sort_impl)


def _argsort_impl(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    return _sort_impl(values, axis, direction, argsort=True)


argsort = traceable("argsort", batch=lambda values, axis=-1, direction="ASCENDING",
                    stable=False, name=None: _sort_impl(values, shift_axis(int(axis)),
                                                        direction, argsort=True))(_argsort_impl)


def unique(x, out_idx=_dt.int32, name=None):
    """``tf.unique``: (y, idx) in order of first occurrence."""
    import collections
    a = to_array(x)
    if a.ndim != 1:
        raise invalid("unique expects a 1D vector.")
    seen, y, idx = {}, [], []
    for v in a.tolist():
        if v not in seen:
            seen[v] = len(y)
            y.append(v)
        idx.append(seen[v])
    Unique = collections.namedtuple("Unique", ["y", "idx"])
    out = np.array(y, dtype=a.dtype) if a.dtype != object else np.array(y + [None],
                                                                         object)[:-1]
    return Unique(wrap(out), wrap(np.asarray(idx, _dt.numpy_dtype(out_idx))))


def sequence_mask(lengths, maxlen=None, dtype=_dt.bool, name=None):
    """``tf.sequence_mask``: mask[..., j] = j < lengths[...]."""
    n = to_array(lengths)
    m = int(n.max()) if maxlen is None and n.size else int(plain(maxlen) or 0)
    return wrap((np.arange(m) < n[..., None]).astype(_dt.numpy_dtype(dtype)))


# --------------------------------------------------------------- __getitem__

def _check_index(a, idx):
    """TensorFlow's errors for integer indices out of range (an ellipsis stands for the
    dimensions the other parts do not name)."""
    parts = idx if isinstance(idx, tuple) else (idx,)
    named = sum(1 for p in parts if p is not None and p is not Ellipsis)
    dim = 0
    for p in parts:
        if p is None:
            continue
        if p is Ellipsis:
            dim += max(a.ndim - named, 0)
            continue
        if isinstance(p, (int, np.integer)) or (isinstance(p, np.ndarray) and p.ndim == 0
                                                and p.dtype.kind in "iu"):
            if dim >= a.ndim:
                raise invalid("Index out of range using input dim "
                              "%d; input has only %d dims" % (dim, a.ndim))
            i = int(p)
            if i >= a.shape[dim] or i < -a.shape[dim]:
                # TensorFlow names a negative index as it counts it: i + the size
                shown = i + a.shape[dim] if i < 0 else i
                raise invalid("slice index %d of dimension %d out "
                              "of bounds." % (shown, dim))
        elif dim >= a.ndim:
            raise invalid("Index out of range using input dim %d; "
                          "input has only %d dims" % (dim, a.ndim))
        dim += 1


def _index_value(p):
    if isinstance(p, np.ndarray) and not isinstance(p, np.generic):
        return plain(p)
    return p


def _getitem_impl(tensor, slice_spec):
    a = to_array(tensor)
    idx = tuple(_index_value(p) for p in slice_spec) if isinstance(slice_spec, tuple) \
        else _index_value(slice_spec)
    _check_index(a, idx)
    return wrap(_contiguous(a[idx]))


def _getitem_rows_kind(node):
    """Indexing rows of 1-D records: a slice with constant bounds and step maps them
    (tokens[:n], tokens[::-1]), a constant integer index reduces them (tokens[0]);
    nothing else."""
    if not _rank1_rows(node) or len(node.args) < 2:
        return None
    key = node.args[1]
    if isinstance(key, tuple) and len(key) == 1:
        key = key[0]
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        return "reduce"
    if isinstance(key, builtins.slice) and builtins.all(
            b is None or (isinstance(b, (int, np.integer)) and not isinstance(b, bool))
            for b in (key.start, key.stop, key.step)) and key.step != 0:
        return "map"
    return None


def _getitem_rows(rows, key):
    """tokens[i] / tokens[a:b:c] of every record, on the rows' values (Python's rules
    per row; an index out of range in any row fails the batch, which tf.data then
    runs per record for TensorFlow's error)."""
    if isinstance(key, tuple):
        key = key[0]
    splits = np.asarray(rows.row_splits).astype(np.int64)
    starts, lengths = splits[:-1], np.diff(splits)
    values = np.asarray(rows.values)
    if not isinstance(key, builtins.slice):
        i = int(key)
        if len(lengths) and (i >= lengths.min() or i < -lengths.min()):
            short = int(lengths.min())
            raise invalid("slice index %d of dimension 0 out of "
                          "bounds." % (i + short if i < 0 else i))
        return values[starts + (i if i >= 0 else lengths + i)]
    return _slice_rows(type(rows), values, starts, lengths, key)


def _slice_rows(kind, values, starts, lengths, key):
    """tokens[a:b:c] of every record: Python's slice.indices per row, vectorized."""
    step = 1 if key.step is None else int(key.step)
    if step > 0:
        lo = np.zeros_like(lengths) if key.start is None else np.full_like(lengths, key.start)
        hi = lengths.copy() if key.stop is None else np.full_like(lengths, key.stop)
        lo = np.clip(np.where(lo < 0, lo + lengths, lo), 0, lengths)
        hi = np.clip(np.where(hi < 0, hi + lengths, hi), 0, lengths)
        kept = np.maximum((hi - lo + step - 1) // step, 0)
    else:
        lo = lengths - 1 if key.start is None else np.full_like(lengths, key.start)
        hi = np.full_like(lengths, -1) if key.stop is None else np.full_like(lengths, key.stop)
        lo = np.clip(np.where(lo < 0, lo + lengths, lo), -1, lengths - 1)
        if key.stop is not None:
            hi = np.clip(np.where(hi < 0, hi + lengths, hi), -1, lengths - 1)
        kept = np.maximum((lo - hi - step - 1) // -step, 0)
    new_splits = np.zeros(len(kept) + 1, np.int64)
    np.cumsum(kept, out=new_splits[1:])
    k = np.arange(new_splits[-1], dtype=np.int64) - np.repeat(new_splits[:-1], kept)
    take = np.repeat(starts + lo, kept) + step * k
    return kind.from_row_splits(values[take], new_splits, validate=False)


def _getitem_batch(tensor, slice_spec):
    if _is_rows(tensor):
        return _getitem_rows(tensor, slice_spec)
    parts = slice_spec if isinstance(slice_spec, tuple) else (slice_spec,)
    if builtins.any(p is Ellipsis for p in parts):
        return np.asarray(tensor)[parts]
    return np.asarray(tensor)[(builtins.slice(None),) + parts]


def _getitem_infer(tensor, slice_spec):
    parts = slice_spec if isinstance(slice_spec, tuple) else (slice_spec,)
    if builtins.any(isinstance(p, Symbol) or (isinstance(p, builtins.slice) and builtins.any(
            isinstance(q, Symbol) for q in (p.start, p.stop, p.step))) for p in parts):
        raise TraceError("indexing with a traced index: its value is only known per record")
    spec = tensor.spec
    if spec.shape is None:
        raise TraceError("indexing a tensor of unknown rank")
    stand_in = np.zeros([1 if d is None else d for d in spec.shape], spec.dtype)
    out = plain(_getitem_impl(stand_in, slice_spec))
    dtype = spec.dtype  # indexing keeps it (an object stand-in's zeros would read int64)
    if None in spec.shape:
        known = _index_known(spec.shape, parts)
        if known is None or len(known) != out.ndim:
            return Spec(dtype, (None,) * out.ndim)
        return Spec(dtype, tuple(d if k else None for d, k in zip(out.shape, known)))
    return Spec(dtype, out.shape)


def _index_known(shape, parts):
    """Per output dimension of basic indexing, whether its size is static (as
    TensorFlow's shape inference has it: an integer drops a dimension, a slice of an
    unknown size is unknown, a new axis is 1); None for other kinds of index."""
    consumed = 0
    for p in parts:
        if p is Ellipsis or p is None:
            continue
        if not isinstance(p, (builtins.slice, int, np.integer)):
            return None
        consumed += 1
    known, i = [], 0
    for p in parts:
        if p is Ellipsis:
            k = len(shape) - consumed
            known += [shape[i + j] is not None for j in range(k)]
            i += k
        elif p is None:
            known.append(True)
        elif isinstance(p, builtins.slice):
            known.append(shape[i] is not None)
            i += 1
        else:
            i += 1
    return known + [d is not None for d in shape[i:]]


getitem = traceable("__getitem__", batch=_getitem_batch, infer=_getitem_infer,
                    rows=_getitem_rows_kind)(_getitem_impl)


def pad_either(*args, **kwargs):
    """``tfnano.pad`` answers two callers: TensorFlow's ``tf.pad(tensor, paddings,
    mode="CONSTANT", constant_values=0)`` (a `paddings` argument: one [before, after]
    pair per dimension), and tfnano's fast sequence padding
    ``tfnano.pad(sequences, maxlen=None, ...)`` -> (padded, mask, lengths), see
    :func:`tfnano._pad.pad`."""
    second = args[1] if len(args) > 1 else kwargs.get("paddings")
    if "paddings" in kwargs or (second is not None and not isinstance(second, (int, np.integer))
                                and np.ndim(plain(second) if not isinstance(second, Symbol)
                                            else np.zeros(second.spec.shape or ())) == 2):
        return pad(*args, **kwargs)
    from .._pad import pad as fast_pad
    return fast_pad(*args, **kwargs)


# ------------------------------------------------------------- more array ops

def _repeat_batch(input, repeats, axis=None, name=None):
    if axis is None:
        raise TraceError("tf.repeat without an axis flattens each record")
    return np.repeat(np.asarray(input), repeats, shift_axis(int(axis)))


@traceable("repeat", batch=_repeat_batch)
def repeat(input, repeats, axis=None, name=None):  # noqa: A002
    """``tf.repeat``: each element `repeats` times along `axis` (flattened if None)."""
    a = to_array(input)
    r = to_array(repeats)
    if axis is None:
        a = a.reshape(-1)
        axis = 0
    return wrap(np.repeat(a, r, int(axis)))


@traceable("roll", batch=lambda input, shift, axis, name=None: np.roll(
    input, shift, shift_axis(axis if np.ndim(axis) else int(axis))))
def roll(input, shift, axis, name=None):  # noqa: A002
    """``tf.roll``: elements shifted cyclically along `axis`."""
    a = to_array(input)
    shifts = np.asarray(plain(shift)).tolist()
    axes = np.asarray(plain(axis)).tolist()
    return wrap(np.roll(a, shifts, axes))


def linspace(start, stop, num, name=None, axis=0):
    """``tf.linspace``: float32 for Python numbers (the inputs' float dtype otherwise)."""
    s, e = to_array(start), to_array(stop)
    dtype = s.dtype if s.dtype.kind == "f" else np.float32
    out = np.linspace(s.astype(np.float64), e.astype(np.float64), int(plain(num)), axis=axis)
    return wrap(out.astype(dtype))


def meshgrid(*args, **kwargs):
    """``tf.meshgrid(x, y, indexing="xy")``."""
    indexing = kwargs.pop("indexing", "xy")
    return [wrap(g) for g in np.meshgrid(*[to_array(a) for a in args], indexing=indexing)]


def _rows_2d(a):
    """`a` as TensorFlow's searchsorted reshapes it: [-1, last dimension]."""
    rows = int(np.prod(a.shape[:-1], dtype=np.int64))
    return a.reshape(rows, a.shape[-1])


def _search_rows(seq2d, vals2d, side):
    if seq2d.shape[0] == 1:
        return np.searchsorted(seq2d[0], vals2d, side=side)
    return np.stack([np.searchsorted(s, v, side=side) for s, v in zip(seq2d, vals2d)]) \
        if seq2d.shape[0] else np.zeros(vals2d.shape, np.int64)


def searchsorted(sorted_sequence, values, side="left", out_type=_dt.int32, name=None):
    """``tf.searchsorted`` along the last axis, with TensorFlow's checks: both of rank
    1 or more, the same dtype, and as many rows (all but the last dimension) in each."""
    seq, vals = to_array(sorted_sequence), to_array(values)
    if seq.ndim == 0 or vals.ndim == 0:
        raise invalid("slice index -1 of dimension 0 out of bounds.")
    if side not in ("left", "right"):
        raise ValueError("Argument `side` must be either 'right' or 'left'. Received: "
                         "`side` = '%s'." % (side,))
    if seq.dtype != vals.dtype:
        raise InvalidArgumentError(
            None, None, "cannot compute %s as input #1(zero-based) was expected to be a %s "
            "tensor but is a %s tensor" % ("UpperBound" if side == "right" else "LowerBound",
                                          kernel_name(seq.dtype), kernel_name(vals.dtype)))
    seq2d, vals2d = _rows_2d(seq), _rows_2d(vals)
    if seq2d.shape[0] != vals2d.shape[0]:
        raise invalid("Leading dim_size of both tensors must match.")
    out = _search_rows(seq2d, vals2d, side).reshape(vals.shape)
    return wrap(out.astype(_dt.numpy_dtype(out_type)))


@traceable("ensure_shape", batch=lambda x, shape, name=None: np.asarray(x))
def ensure_shape(x, shape, name=None):
    """``tf.ensure_shape``: x, checked against a shape with None for any size."""
    a = to_array(x)
    want = None if shape is None else (shape.as_list() if hasattr(shape, "as_list")
                                       else list(shape))
    if want is not None and (len(want) != a.ndim or builtins.any(
            w is not None and w != d for w, d in zip(want, a.shape))):
        raise invalid("Shape of tensor %s %s is not compatible with "
                      "expected shape %s." % (
                          name or "x", _dims(a.shape),
                          "[" + ",".join("?" if w is None else str(w)
                                         for w in want) + "]"))
    return wrap(a)


def is_tensor(x):
    """``tf.is_tensor``: tfnano Tensors (and traced values)."""
    from .._tensor import Tensor
    return isinstance(x, (Tensor, Symbol)) or type(x).__name__ in ("SparseTensor",
                                                                   "RaggedTensor")


def get_static_value(tensor, partial=False):
    """``tf.get_static_value``: the value as numpy (None for a traced value)."""
    if isinstance(tensor, Symbol):
        return None
    a = to_array(tensor)
    return a[()] if a.ndim == 0 else a


def identity_n(input, name=None):  # noqa: A002
    return [identity(x) for x in input]


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True,
           swap_memory=False, infer_shape=True, name=None, fn_output_signature=None):
    """``tf.map_fn``: fn over the first axis of `elems` (a tensor or a structure of
    them), the results stacked."""
    from . import nest as _nest
    leaves = [to_array(e) for e in _nest.flatten(elems)]
    n = leaves[0].shape[0] if leaves else 0
    outs = []
    for i in builtins.range(n):
        item = _nest.pack_sequence_as(elems, [wrap(l[i]) for l in leaves])
        outs.append(fn(item))
    sig = fn_output_signature if fn_output_signature is not None else dtype
    if not outs:
        return wrap(np.zeros((0,), np.float32 if sig is None else _dt.numpy_dtype(
            getattr(sig, "dtype", sig))))
    flat = [_nest.flatten(o) for o in outs]
    sigs = _nest.flatten(sig) if sig is not None else [None] * len(flat[0])
    cols = []
    for c in builtins.range(len(flat[0])):
        col = np.stack([np.asarray(plain(f[c]) if isinstance(f[c], np.ndarray) else f[c])
                        for f in flat])
        s = sigs[c] if c < len(sigs) else None
        if s is not None:
            col = col.astype(_dt.numpy_dtype(getattr(s, "dtype", s)))
        cols.append(wrap(col))
    return _nest.pack_sequence_as(outs[0], cols)


# Ops with static result shapes but no batched form: recorded in a trace (so that
# explain() names them) and run per record.
split = traceable("split", batch=None)(split)
gather_nd = traceable("gather_nd", batch=None)(gather_nd)


def _searchsorted_batch(sorted_sequence, values, side="left", out_type=_dt.int32,
                        name=None):
    # A 1-D sequence (a constant: bucketizing each record's values), or sequence and
    # values both batched (row by row): one search of the whole batch. A constant
    # sequence of higher rank is searched record by record.
    seq, vals = to_array(sorted_sequence), to_array(values)
    if seq.ndim == 1 and vals.ndim <= 1:  # a constant sequence, each record a scalar
        raise invalid("slice index -1 of dimension 0 out of bounds.")
    if seq.ndim == 1:
        out = np.searchsorted(seq, vals, side=side)
    elif seq.ndim == vals.ndim:
        out = _search_rows(_rows_2d(seq), _rows_2d(vals), side).reshape(vals.shape)
    else:
        return wrap(np.stack([np.asarray(_searchsorted.__wrapped__(sorted_sequence, v, side,
                                                                   out_type)) for v in values]))
    return wrap(out.astype(_dt.numpy_dtype(out_type)))


_searchsorted = traceable("searchsorted", batch=_searchsorted_batch)(searchsorted)


def searchsorted(sorted_sequence, values, side="left", out_type=_dt.int32, name=None):  # noqa
    """``tf.searchsorted`` along the last axis (a Python list holding traced values is
    packed first, as TensorFlow converts it)."""
    from .._trace import has_symbol
    if isinstance(values, (list, tuple)) and has_symbol(values):
        values = stack(values)
    if isinstance(sorted_sequence, (list, tuple)) and has_symbol(sorted_sequence):
        sorted_sequence = stack(sorted_sequence)
    return _searchsorted(sorted_sequence, values, side, out_type)

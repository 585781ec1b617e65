"""tfnano.ops against TensorFlow 2.21, op by op, in one process: random shapes, dtypes
and arguments (hypothesis); results must have TensorFlow's values, dtype and shape, and
failures TensorFlow's error class (and, where tfnano copies it, its message)."""
import math
import sys
from pathlib import Path

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
import tfnano as tn  # noqa: E402

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)
NUMERIC = ["float32", "float64", "int32", "int64", "int8", "int16", "uint8"]
ALL = NUMERIC + ["bool"]


def _outcome(fn):
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001 - the class is what we compare
        return "error", e


def _arrays(v):
    if isinstance(v, (list, tuple)):
        return [a for x in v for a in _arrays(x)]
    if "Ragged" in type(v).__name__:
        return [np.asarray(repr(v.to_list()), dtype=object)]
    if hasattr(v, "numpy"):
        v = v.numpy()
    return [np.asarray(v)]


def same(tf_fn, tn_fn, rtol=0.0, message=False):
    """Runs both; asserts equal outcomes. Returns the TensorFlow value (or error)."""
    (k1, a), (k2, b) = _outcome(tf_fn), _outcome(tn_fn)
    if k1 == "error" or k2 == "error":
        assert k1 == k2, "TensorFlow %s %r, tfnano %s %r" % (k1, a, k2, b)
        assert type(a).__name__ == type(b).__name__, (a, b)
        if message:
            core = str(a).split(" [Op:")[0].split("}} ")[-1].strip()
            assert str(b).strip() == core, (str(a), str(b))
        return a
    xs, ys = _arrays(a), _arrays(b)
    assert len(xs) == len(ys)
    for x, y in zip(xs, ys):
        assert x.shape == y.shape, (x.shape, y.shape)
        if x.dtype == object:
            assert y.dtype == object and x.tolist() == y.tolist(), (x, y)
            continue
        assert x.dtype == y.dtype, (x.dtype, y.dtype)
        if x.dtype.kind == "f" and rtol:
            np.testing.assert_allclose(y, x, rtol=rtol, atol=rtol, equal_nan=True)
        else:
            np.testing.assert_array_equal(y, x)
    return a


@st.composite
def arrays(draw, dtypes=NUMERIC, min_dims=0, max_dims=3, max_side=4, shape=None, lo=-50,
           hi=50):
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    if shape is None:
        shape = tuple(draw(st.lists(st.integers(0 if min_dims == 0 else 1, max_side),
                                    min_size=min_dims, max_size=max_dims)))
    n = int(np.prod(shape))
    if dtype.kind == "b":
        vals = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    elif dtype.kind == "u":
        vals = draw(st.lists(st.integers(0, hi), min_size=n, max_size=n))
    elif dtype.kind == "i":
        vals = draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n))
    else:
        # no subnormals: TensorFlow's CPU kernels flush them to zero
        vals = draw(st.lists(st.floats(lo, hi, width=32, allow_subnormal=False), min_size=n,
                             max_size=n))
    return np.asarray(vals, dtype).reshape(shape)


def both(a):
    return tf.constant(a), tn.constant(a)


# ------------------------------------------------------------------ elementwise

BINARY = ["add", "subtract", "multiply", "truediv", "floordiv", "floormod", "maximum",
          "minimum", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
          "squared_difference"]


@SETTINGS
@given(op=st.sampled_from(BINARY), x=arrays(max_dims=2), y=arrays(max_dims=2),
       same_dtype=st.booleans())
def test_binary_ops(op, x, y, same_dtype):
    if same_dtype:
        y = y.astype(x.dtype)
    if op in ("floordiv", "floormod") and x.dtype.kind in "iu":
        y = np.where(y == 0, 1, y).astype(y.dtype) if y.dtype == x.dtype else y
    (tx, nx), (ty, ny) = both(x), both(y)
    same(lambda: getattr(tf.math, op)(tx, ty), lambda: getattr(tn.math, op)(nx, ny),
         rtol=1e-6)


@SETTINGS
@given(x=arrays(dtypes=["int32", "int64", "int8"], max_dims=1))
def test_integer_division_by_zero(x):
    tx, nx = both(x)
    z = np.zeros_like(x)
    same(lambda: tx // tf.constant(z), lambda: nx // tn.constant(z), message=True)
    same(lambda: tx % tf.constant(z), lambda: nx % tn.constant(z), message=True)


OPERATORS = ["__add__", "__sub__", "__mul__", "__truediv__", "__floordiv__", "__mod__",
             "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__and__",
             "__or__", "__xor__", "__radd__", "__rsub__", "__rmul__", "__rtruediv__"]


@SETTINGS
@given(op=st.sampled_from(OPERATORS), x=arrays(dtypes=ALL, min_dims=1, max_dims=2, lo=1),
       other=st.one_of(st.integers(1, 9), st.floats(0.5, 9.5), st.booleans(),
                       arrays(dtypes=ALL, max_dims=2, lo=1)))
def test_operators_with_python_and_numpy_values(op, x, other):
    tx, nx = both(x)
    if isinstance(other, float) and op in ("__and__", "__or__", "__xor__"):
        other = int(other)  # TensorFlow's own operator fails oddly there (AttributeError)
    if isinstance(other, np.ndarray) and other.dtype.kind in "iu" and op in (
            "__floordiv__", "__mod__"):
        other = np.where(other == 0, 1, other).astype(other.dtype)
    same(lambda: getattr(tx, op)(other), lambda: getattr(nx, op)(other), rtol=1e-6)


@SETTINGS
@given(op=st.sampled_from(OPERATORS[:12]), x=arrays(dtypes=ALL, max_dims=2, lo=1),
       y=arrays(dtypes=ALL, max_dims=2, lo=1))
def test_operators_between_tensors(op, x, y):
    (tx, nx), (ty, ny) = both(x), both(y)
    if x.dtype == y.dtype and x.dtype.kind in "iu" and op in ("__floordiv__", "__mod__"):
        y = np.where(y == 0, 1, y).astype(y.dtype)
        (ty, ny) = both(y)
    same(lambda: getattr(tx, op)(ty), lambda: getattr(nx, op)(ny), rtol=1e-6)


UNARY = ["abs", "negative", "sign", "square", "sqrt", "exp", "log", "log1p", "floor",
         "ceil", "round", "sigmoid", "tanh", "sin", "cos", "reciprocal", "is_nan",
         "is_finite", "logical_not", "rsqrt", "softplus", "asin", "acos", "atan", "sinh",
         "cosh", "asinh", "acosh", "atanh", "log_sigmoid", "softsign"]


@SETTINGS
@given(op=st.sampled_from(UNARY), x=arrays(dtypes=ALL, max_dims=2, lo=-5, hi=5))
def test_unary_ops(op, x):
    tx, nx = both(x)
    same(lambda: getattr(tf.math, op)(tx), lambda: getattr(tn.math, op)(nx), rtol=2e-6)


@SETTINGS
@given(x=arrays(dtypes=["int32", "int64", "uint8", "int8"], max_dims=1, lo=-3, hi=3),
       p=st.integers(-2, 3))
def test_pow(x, p):
    tx, nx = both(x)
    same(lambda: tx ** np.asarray(p, x.dtype) if p >= 0 or x.dtype.kind != "u" else tx,
         lambda: nx ** np.asarray(p, x.dtype) if p >= 0 or x.dtype.kind != "u" else nx)


# ------------------------------------------------------------------ reductions

REDUCE = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
          "reduce_any", "reduce_all"]


@SETTINGS
@given(op=st.sampled_from(REDUCE), x=arrays(dtypes=ALL, max_dims=3, lo=-3, hi=3),
       axis=st.one_of(st.none(), st.integers(-4, 3)), keepdims=st.booleans())
def test_reductions(op, x, axis, keepdims):
    tx, nx = both(x)
    same(lambda: getattr(tf.math, op)(tx, axis=axis, keepdims=keepdims),
         lambda: getattr(tn.math, op)(nx, axis=axis, keepdims=keepdims), rtol=1e-5)


@SETTINGS
@given(op=st.sampled_from(["argmax", "argmin", "cumsum", "cumprod"]),
       x=arrays(dtypes=NUMERIC, min_dims=1, max_dims=3, lo=-3, hi=3),
       axis=st.integers(-3, 3), flag=st.booleans())
def test_arg_and_scans(op, x, axis, flag):
    tx, nx = both(x)
    if op.startswith("arg"):
        same(lambda: getattr(tf.math, op)(tx, axis=axis),
             lambda: getattr(tn.math, op)(nx, axis=axis))
    else:
        same(lambda: getattr(tf.math, op)(tx, axis=axis, exclusive=flag, reverse=not flag),
             lambda: getattr(tn.math, op)(nx, axis=axis, exclusive=flag, reverse=not flag),
             rtol=1e-6)


# ------------------------------------------------------------------ array ops

@SETTINGS
@given(x=arrays(dtypes=ALL, max_dims=3), shape=st.lists(st.integers(-1, 6), max_size=3))
def test_reshape(x, shape):
    tx, nx = both(x)
    same(lambda: tf.reshape(tx, shape), lambda: tn.reshape(nx, shape), message=True)


@SETTINGS
@given(x=arrays(dtypes=ALL, max_dims=3), axis=st.integers(-5, 4))
def test_expand_dims_squeeze_shape(x, axis):
    tx, nx = both(x)
    same(lambda: tf.expand_dims(tx, axis), lambda: tn.expand_dims(nx, axis), message=True)
    same(lambda: tf.squeeze(tx), lambda: tn.squeeze(nx))
    same(lambda: tf.squeeze(tx, axis), lambda: tn.squeeze(nx, axis), message=True)
    same(lambda: tf.shape(tx), lambda: tn.shape(nx))
    same(lambda: tf.shape(tx, out_type=tf.int64), lambda: tn.shape(nx, out_type=tn.int64))
    same(lambda: tf.size(tx), lambda: tn.size(nx))
    same(lambda: tf.rank(tx), lambda: tn.rank(nx))


@SETTINGS
@given(xs=st.lists(arrays(dtypes=["int32", "float32"], min_dims=1, max_dims=2, max_side=2),
                   min_size=1, max_size=3), axis=st.integers(-3, 2))
def test_stack_concat_unstack(xs, axis):
    same(lambda: tf.stack([tf.constant(x) for x in xs], axis),
         lambda: tn.stack([tn.constant(x) for x in xs], axis))
    same(lambda: tf.concat([tf.constant(x) for x in xs], axis),
         lambda: tn.concat([tn.constant(x) for x in xs], axis))
    same(lambda: tf.unstack(tf.constant(xs[0]), axis=axis),
         lambda: tn.unstack(tn.constant(xs[0]), axis=axis))


@SETTINGS
@given(x=arrays(dtypes=ALL, min_dims=1, max_dims=3), data=st.data())
def test_transpose_tile_reverse_pad(x, data):
    tx, nx = both(x)
    perm = data.draw(st.permutations(range(x.ndim)))
    same(lambda: tf.transpose(tx, perm), lambda: tn.transpose(nx, perm))
    same(lambda: tf.transpose(tx), lambda: tn.transpose(nx))
    mult = data.draw(st.lists(st.integers(0, 2), min_size=x.ndim, max_size=x.ndim))
    same(lambda: tf.tile(tx, mult), lambda: tn.tile(nx, mult))
    axes = data.draw(st.lists(st.integers(0, x.ndim - 1), max_size=x.ndim, unique=True))
    same(lambda: tf.reverse(tx, axes), lambda: tn.reverse(nx, axes))
    pads = [[data.draw(st.integers(0, 2)), data.draw(st.integers(0, 2))] for _ in x.shape]
    if x.dtype != np.bool_:
        same(lambda: tf.pad(tx, pads, constant_values=1), lambda: tn.pad(nx, pads,
                                                                          constant_values=1))


@SETTINGS
@given(x=arrays(dtypes=ALL, min_dims=1, max_dims=2),
       idx=st.lists(st.integers(-1, 5), max_size=4), axis=st.integers(-2, 1))
def test_gather(x, idx, axis):
    tx, nx = both(x)
    same(lambda: tf.gather(tx, idx, axis=axis), lambda: tn.gather(nx, idx, axis=axis))


@SETTINGS
@given(idx=arrays(dtypes=["int32", "int64"], max_dims=2, lo=-1, hi=4),
       depth=st.integers(0, 4), axis=st.sampled_from([None, -1, 0]))
def test_one_hot(idx, depth, axis):
    same(lambda: tf.one_hot(tf.constant(idx), depth, axis=axis),
         lambda: tn.one_hot(tn.constant(idx), depth, axis=axis))
    same(lambda: tf.one_hot(tf.constant(idx), depth, on_value=5, off_value=-1),
         lambda: tn.one_hot(tn.constant(idx), depth, on_value=5, off_value=-1))


@SETTINGS
@given(c=arrays(dtypes=["bool"], max_dims=2, max_side=3),
       x=arrays(dtypes=NUMERIC, max_dims=2, max_side=3),
       y=arrays(dtypes=NUMERIC, max_dims=2, max_side=3))
def test_where_and_clip(c, x, y):
    tc, nc = both(c)
    same(lambda: tf.where(tc), lambda: tn.where(nc))
    same(lambda: tf.where(tc, tf.constant(x), tf.constant(y)),
         lambda: tn.where(nc, tn.constant(x), tn.constant(y)))
    same(lambda: tf.clip_by_value(tf.constant(x), 0, 10),
         lambda: tn.clip_by_value(tn.constant(x), 0, 10))


@SETTINGS
@given(dims=st.lists(st.integers(-1, 3), max_size=3),
       value=st.one_of(st.integers(-5, 5), st.floats(-5, 5, width=32), st.booleans()),
       dtype=st.sampled_from([None, "int64", "float64", "int32"]))
def test_fills(dims, value, dtype):
    same(lambda: tf.fill(dims, value), lambda: tn.fill(dims, value), message=True)
    if all(d >= 0 for d in dims):
        kw = {} if dtype is None else {"dtype": dtype}
        same(lambda: tf.zeros(dims, **kw), lambda: tn.zeros(dims, **kw))
        same(lambda: tf.ones(dims, **kw), lambda: tn.ones(dims, **kw))


@SETTINGS
@given(start=st.one_of(st.integers(-5, 5), st.floats(-5, 5, width=32)),
       limit=st.one_of(st.none(), st.integers(-5, 8)),
       delta=st.sampled_from([1, 2, -1, 0.5]))
def test_range(start, limit, delta):
    same(lambda: tf.range(start, limit, delta), lambda: tn.range(start, limit, delta),
         rtol=1e-6, message=True)


@SETTINGS
@given(x=arrays(dtypes=ALL, min_dims=1, max_dims=3, max_side=3), data=st.data())
def test_getitem(x, data):
    tx, nx = both(x)
    parts = []
    for _ in range(data.draw(st.integers(1, x.ndim + 1))):
        parts.append(data.draw(st.one_of(
            st.integers(-4, 4), st.just(Ellipsis), st.just(tf.newaxis),
            st.builds(slice, st.one_of(st.none(), st.integers(-3, 3)),
                      st.one_of(st.none(), st.integers(-3, 3)),
                      st.sampled_from([None, 1, 2, -1])))))
    if sum(p is Ellipsis for p in parts) > 1:
        parts = [p for p in parts if p is not Ellipsis]
    key = tuple(parts)
    same(lambda: tx[key], lambda: nx[key])


@SETTINGS
@given(x=arrays(dtypes=["int32", "float32"], min_dims=1, max_dims=2),
       mask_bits=st.lists(st.booleans(), min_size=0, max_size=5))
def test_boolean_mask_split_broadcast(x, mask_bits):
    tx, nx = both(x)
    mask = (mask_bits + [True] * 5)[:x.shape[0]]
    same(lambda: tf.boolean_mask(tx, mask), lambda: tn.boolean_mask(nx, mask))
    n = max(1, len(mask_bits))
    same(lambda: tf.split(tx, n), lambda: tn.split(nx, n), message=True)
    same(lambda: tf.broadcast_to(tx, (2,) + x.shape), lambda: tn.broadcast_to(nx, (2,) +
                                                                               x.shape))


# ------------------------------------------------------------------ strings

words = st.lists(st.text(alphabet="aAbé 1.,\t-", max_size=6), min_size=0, max_size=4)


@SETTINGS
@given(ws=words, pos=st.integers(-4, 4), n=st.integers(0, 4))
def test_string_elementwise(ws, pos, n):
    ts, ns = tf.constant(ws, tf.string), tn.constant(ws, tn.string)
    for op in ("lower", "upper", "strip"):
        same(lambda: getattr(tf.strings, op)(ts), lambda: getattr(tn.strings, op)(ns))
    same(lambda: tf.strings.length(ts), lambda: tn.strings.length(ns))
    same(lambda: tf.strings.length(ts, unit="UTF8_CHAR"),
         lambda: tn.strings.length(ns, unit="UTF8_CHAR"))
    same(lambda: tf.strings.substr(ts, pos, n), lambda: tn.strings.substr(ns, pos, n))
    same(lambda: tf.strings.regex_replace(ts, "[a-z]+", r"<\0>"),
         lambda: tn.strings.regex_replace(ns, "[a-z]+", r"<\0>"))
    same(lambda: tf.strings.regex_full_match(ts, "a.*"),
         lambda: tn.strings.regex_full_match(ns, "a.*"))
    same(lambda: tf.strings.join([ts, "x"], separator="-"),
         lambda: tn.strings.join([ns, "x"], separator="-"))
    same(lambda: tf.strings.reduce_join(ts, separator=","),
         lambda: tn.strings.reduce_join(ns, separator=","))
    for w in ws:
        same(lambda: tf.strings.split(w), lambda: tn.strings.split(w))
        same(lambda: tf.strings.split(w, sep=","), lambda: tn.strings.split(w, sep=","))
        same(lambda: tf.strings.bytes_split(w), lambda: tn.strings.bytes_split(w))
        same(lambda: tf.strings.unicode_decode(w, "UTF-8"),
             lambda: tn.strings.unicode_decode(w, "UTF-8"))
        same(lambda: tf.strings.to_number(w), lambda: tn.strings.to_number(w), message=True)
    same(lambda: tf.strings.split(ts), lambda: tn.strings.split(ns))


@SETTINGS
@given(x=arrays(dtypes=["int32", "int64", "float32", "float64", "bool"], max_dims=2),
       precision=st.sampled_from([-1, 0, 3]), scientific=st.booleans())
def test_as_string_and_format(x, precision, scientific):
    tx, nx = both(x)
    same(lambda: tf.strings.as_string(tx), lambda: tn.strings.as_string(nx))
    if x.dtype.kind == "f":
        same(lambda: tf.strings.as_string(tx, precision=precision, scientific=scientific),
             lambda: tn.strings.as_string(nx, precision=precision, scientific=scientific))
    if x.dtype.kind != "f" and x.size:  # TF prints floats in its own shortest form
        same(lambda: tf.strings.format("v={}", [tx]), lambda: tn.strings.format("v={}", [nx]))


@SETTINGS
@given(nums=st.lists(st.one_of(st.integers(-10 ** 12, 10 ** 12).map(str),
                               st.floats(-1e6, 1e6, allow_nan=False).map(repr),
                               st.sampled_from(["", " 1", "1e3", "x", "0x10", "+5", "-.5",
                                                "inf", "nan", "1.5e", "3."])),
                     max_size=4),
       out=st.sampled_from(["float32", "float64", "int32", "int64"]))
def test_to_number(nums, out):
    same(lambda: tf.strings.to_number(tf.constant(nums, tf.string), out),
         lambda: tn.strings.to_number(tn.constant(nums, tn.string), out), rtol=1e-6)


# tf.cond on a per-record predicate inside a tf.data map: traced, batched with where.
COND_BRANCHES = {
    "scale": lambda lib, x: x * 3,
    "neg": lambda lib, x: -x,
    "const": lambda lib, x: lib.constant(7, lib.int64),
    "fill": lambda lib, x: lib.reduce_sum(lib.fill([2], x)),
    "nested": lambda lib, x: lib.cond(x > 5, lambda: x + 100, lambda: x - 100),
    "gather_oob": lambda lib, x: lib.gather(lib.constant([1, 2], lib.int64), x * 10),
}


@SETTINGS
@given(values=st.lists(st.integers(-20, 20), min_size=0, max_size=9),
       threshold=st.integers(-5, 5), t=st.sampled_from(sorted(COND_BRANCHES)),
       f=st.sampled_from(sorted(COND_BRANCHES)), batch=st.integers(1, 4),
       pair=st.booleans())
def test_cond_in_dataset_map(values, threshold, t, f, batch, pair):
    def make(lib):
        def fn(x):
            tb, fb = COND_BRANCHES[t], COND_BRANCHES[f]
            if pair:  # a tuple of two outputs, one of them a string
                return lib.cond(x > threshold, lambda: (tb(lib, x), lib.strings.as_string(x)),
                                lambda: (fb(lib, x), lib.constant("no")))
            return lib.cond(x > threshold, lambda: tb(lib, x), lambda: fb(lib, x))
        ds = lib.data.Dataset.from_tensor_slices(lib.constant(values, lib.int64)).map(fn)
        return [b for b in ds.batch(batch)]
    same(lambda: make(tf), lambda: make(tn))


@SETTINGS
@given(values=st.lists(st.integers(-20, 20), min_size=0, max_size=9),
       bounds=st.lists(st.integers(-10, 10), min_size=1, max_size=3),
       fns=st.lists(st.sampled_from(sorted(COND_BRANCHES)), min_size=4, max_size=4),
       with_default=st.booleans(), batch=st.integers(1, 4), exclusive=st.booleans())
def test_case_in_dataset_map(values, bounds, fns, with_default, batch, exclusive):
    # traced as nested conds (one batched cond per predicate); exclusive=True: a record
    # with two true predicates fails, as TensorFlow's Assert
    def make(lib):
        def fn(x):
            pairs = [(x < b, (lambda f: lambda: COND_BRANCHES[f](lib, x))(f))
                     for b, f in zip(bounds, fns)]
            default = (lambda: COND_BRANCHES[fns[-1]](lib, x) * 2) if with_default else None
            return lib.case(pairs, default=default, exclusive=exclusive)
        ds = lib.data.Dataset.from_tensor_slices(lib.constant(values, lib.int64)).map(fn)
        return [b for b in ds.batch(batch)]
    same(lambda: make(tf), lambda: make(tn))


@SETTINGS
@given(values=st.lists(st.integers(-3, 6), min_size=0, max_size=9),
       n=st.integers(1, 4), with_default=st.booleans(), batch=st.integers(1, 4))
def test_switch_case_in_dataset_map(values, n, with_default, batch):
    def make(lib):
        def fn(x):
            i = lib.cast(x, lib.int32)
            branches = [(lambda k: lambda: x * (k + 2) + k)(k) for k in range(n)]
            return lib.switch_case(i, branches,
                                   default=(lambda: -x) if with_default else None)
        ds = lib.data.Dataset.from_tensor_slices(lib.constant(values, lib.int64)).map(fn)
        return [b for b in ds.batch(batch)]
    same(lambda: make(tf), lambda: make(tn))


def test_cond_branch_disagreement_errors():
    for t, f in [(lambda lib, x: x, lambda lib, x: 0), (lambda lib, x: (x, x),
                                                        lambda lib, x: x),
                 (lambda lib, x: {"a": x}, lambda lib, x: {"b": x})]:
        def make(lib):
            return lib.data.Dataset.range(3).map(
                lambda x: lib.cond(x > 1, lambda: t(lib, x), lambda: f(lib, x)))
        (k1, a), (k2, b) = _outcome(lambda: make(tf)), _outcome(lambda: make(tn))
        assert k1 == k2 == "error" and type(a).__name__ == type(b).__name__, (a, b)
        if isinstance(a, TypeError):
            first = "true_fn and false_fn arguments to tf.cond must have the same number"
            assert first in str(a) and first in str(b)


# Hashes: FarmHash Fingerprint64 / TensorFlow's Hash64 / SipHash-2-4 of random byte
# strings of every length class (0-16, 17-32, 33-64, the 64-byte loop), bit for bit.
byte_strings = st.lists(st.binary(max_size=200), min_size=0, max_size=12)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(bs=byte_strings, shape2=st.booleans(),
       nb=st.one_of(st.integers(-3, 40), st.integers(1, 2 ** 63 - 1)),
       key=st.tuples(st.integers(-2 ** 63, 2 ** 63 - 1), st.integers(-2 ** 63, 2 ** 63 - 1)))
def test_hash_buckets(bs, shape2, nb, key):
    if shape2 and len(bs) % 2 == 0 and bs:
        bs = [bs[:len(bs) // 2], bs[len(bs) // 2:]]
    for op in ("to_hash_bucket_fast", "to_hash_bucket"):
        same(lambda: getattr(tf.strings, op)(bs, nb), lambda: getattr(tn.strings, op)(bs, nb))
    same(lambda: tf.strings.to_hash_bucket_strong(bs, nb, list(key)),
         lambda: tn.strings.to_hash_bucket_strong(bs, nb, list(key)))


def test_hash_bucket_errors_and_inputs():
    for args in [("a", 0), ("a", -3), ([1, 2], 5), (tf.constant([1, 2]), 5), ("a", 2 ** 63),
                 ([["a", "b"], ["c", "d"]], 5), ([], 5), (["\u00fc", b"\xff"], 9)]:
        targ = args[0]
        narg = tn.constant([1, 2]) if isinstance(targ, tf.Tensor) else targ
        for op in ("to_hash_bucket_fast", "to_hash_bucket"):
            a = same(lambda: getattr(tf.strings, op)(targ, args[1]),
                     lambda: getattr(tn.strings, op)(narg, args[1]))
            if isinstance(a, tf.errors.InvalidArgumentError):
                first = str(a).split(" [Op:")[0].splitlines()[0]
                assert first in str(_outcome(lambda: getattr(tn.strings, op)(narg, args[1]))[1])
    for key in ([1], [1, 2, 3], 7, "ab", [2 ** 64 - 1, 2], [1.5, 2]):
        same(lambda: tf.strings.to_hash_bucket_strong("a", 5, key),
             lambda: tn.strings.to_hash_bucket_strong("a", 5, key))
    rt = tf.ragged.constant([["a"], ["b", "c"]])
    assert tn.strings.to_hash_bucket_fast(tn.ragged.constant([["a"], ["b", "c"]]), 3).to_list() \
        == tf.strings.to_hash_bucket_fast(rt, 3).to_list()


tokens = st.lists(st.sampled_from(["a", "b", "cd", "", "é"]), min_size=0, max_size=6)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(rows=st.lists(tokens, min_size=1, max_size=4), ragged=st.booleans(),
       width=st.one_of(st.integers(1, 5), st.lists(st.integers(1, 4), min_size=1, max_size=3)),
       sep=st.sampled_from([" ", "_", ""]),
       pad=st.sampled_from([None, "#", ("<", ">")]), pad_width=st.sampled_from([None, 1, 2, 3]),
       short=st.booleans())
def test_ngrams(rows, ragged, width, sep, pad, pad_width, short):
    if pad is None:
        pad_width = None
    if ragged:
        t, n = tf.ragged.constant(rows, tf.string), tn.ragged.constant(rows, tn.string)
    else:
        rows = [r[:min(map(len, rows))] for r in rows]
        t, n = tf.constant(rows, tf.string), tn.constant(rows, tn.string)
    kw = dict(separator=sep, pad_values=pad, padding_width=pad_width,
              preserve_short_sequences=short)
    same(lambda: tf.strings.ngrams(t, width, **kw), lambda: tn.strings.ngrams(n, width, **kw))
    if not ragged:  # one row: a 1-D tensor
        same(lambda: tf.strings.ngrams(t[0], width, **kw),
             lambda: tn.strings.ngrams(n[0], width, **kw))


# ------------------------------------------------------------------ nest, specs, random

structures = st.recursive(st.integers(0, 9) | st.none() | st.text(max_size=2),
                          lambda c: st.lists(c, max_size=3) | st.tuples(c, c) |
                          st.dictionaries(st.sampled_from("abc"), c, max_size=3),
                          max_leaves=8)


@SETTINGS
@given(s=structures, t=structures)
def test_nest(s, t):
    assert tn.nest.flatten(s) == tf.nest.flatten(s)
    assert tn.nest.is_nested(s) == tf.nest.is_nested(s)
    assert tn.nest.map_structure(lambda v: repr(v), s) == tf.nest.map_structure(repr, s)
    flat = list(range(len(tf.nest.flatten(s))))
    assert tn.nest.pack_sequence_as(s, flat) == tf.nest.pack_sequence_as(s, flat)
    same(lambda: tf.nest.assert_same_structure(s, t), lambda: tn.nest.assert_same_structure(s, t))


@SETTINGS
@given(shape=st.one_of(st.none(), st.lists(st.one_of(st.none(), st.integers(0, 4)),
                                           max_size=3)),
       dtype=st.sampled_from(["int32", "float32", "string", "bool"]))
def test_specs(shape, dtype):
    assert repr(tn.TensorSpec(shape, dtype)) == repr(tf.TensorSpec(shape, dtype))
    assert str(tn.TensorShape(shape)) == str(tf.TensorShape(shape))
    assert repr(tn.TensorShape(shape)) == repr(tf.TensorShape(shape))


@SETTINGS
@given(x=arrays(dtypes=ALL + ["float16", "uint16", "complex64"], max_dims=3, max_side=4),
       text=st.lists(st.binary(max_size=3), min_size=0, max_size=4))
def test_tensor_dtype_and_text(x, text):
    """t.dtype, print(t), repr(t), t.shape as TensorFlow gives them."""
    for value in (x, np.array(text + [None], dtype=object)[:-1] if text else x):
        t, n = tf.constant(value), tn.constant(value)
        assert str(n.dtype) == str(t.dtype) and repr(n.dtype) == repr(t.dtype)
        assert n.dtype == t.dtype and t.dtype == n.dtype
        assert str(n) == str(t) and repr(n) == repr(t) and format(n) == format(t)
        assert str(n.shape) == str(t.shape) and repr(n.shape) == repr(t.shape)
        if value.ndim and len(value):
            assert repr(n[0]) == repr(t[0])


@SETTINGS
@given(shape=st.lists(st.integers(0, 3), max_size=2),
       dtype=st.sampled_from(["float32", "float64", "int32", "int64"]),
       maxval=st.sampled_from([None, 3]))
def test_random_dtypes_shapes_and_errors(shape, dtype, maxval):
    (k1, a), (k2, b) = (_outcome(lambda: tf.random.uniform(shape, maxval=maxval, dtype=dtype)),
                        _outcome(lambda: tn.random.uniform(shape, maxval=maxval, dtype=dtype)))
    assert k1 == k2
    if k1 == "ok":
        assert a.dtype.name == b.dtype.name and tuple(a.shape) == b.shape
    else:
        assert type(a).__name__ == type(b).__name__ and str(a) == str(b)
    if dtype.startswith("float"):
        n = tn.random.stateless_normal(shape, seed=[1, 2], dtype=dtype)
        m = tf.random.stateless_normal(shape, seed=[1, 2], dtype=dtype)
        assert n.dtype == m.dtype.as_numpy_dtype and n.shape == tuple(m.shape)


def test_value_errors_match_messages():
    cases = [
        (lambda m: m.concat([m.constant([1]), m.constant([[1]])], 0)),
        (lambda m: m.stack([m.constant([1, 2]), m.constant([1, 2, 3])])),
        (lambda m: m.gather(m.constant([1, 2]), 5)),
        (lambda m: m.reduce_sum(m.constant([1]), 3)),
        (lambda m: m.argmax(m.zeros([0]))),
        (lambda m: m.tile(m.constant([1, 2]), [1, 2])),
        (lambda m: m.constant([[1]])[0, 5]),
        (lambda m: m.strings.substr("hello", 9, 3)),
        (lambda m: m.strings.to_number("x")),
        (lambda m: m.strings.join([["a", "b"], ["c", "d", "e"]])),
        (lambda m: m.constant([1, 2]) + m.constant([1, 2], m.int64)),
        (lambda m: m.constant([1, 2]) + 1.5),
        (lambda m: 1.5 * m.constant([1, 2])),
        (lambda m: m.range(5, 0)),
        (lambda m: m.fill([-1], 1)),
    ]
    for case in cases:
        same(lambda: case(tf), lambda: case(tn), message=True)


def test_float_results_are_not_nan_by_accident():
    # guards the comparison helper itself: equal_nan must not hide a real difference
    with pytest.raises(AssertionError):
        same(lambda: tf.constant([math.nan]), lambda: tn.constant([1.0]), rtol=1e-6)


@SETTINGS
@given(x=arrays(dtypes=["float32", "float64", "int32"], min_dims=1, max_dims=2, lo=-4, hi=4),
       data=st.data())
def test_more_array_and_math_ops(x, data):
    tx, nx = both(x)
    axis = data.draw(st.integers(0, x.ndim - 1))
    reps = data.draw(st.integers(0, 3))
    shift = data.draw(st.integers(-3, 3))
    same(lambda: tf.repeat(tx, reps, axis=axis), lambda: tn.repeat(nx, reps, axis=axis))
    same(lambda: tf.repeat(tx, reps), lambda: tn.repeat(nx, reps))
    same(lambda: tf.roll(tx, shift, axis), lambda: tn.roll(nx, shift, axis))
    same(lambda: tf.math.softmax(tx), lambda: tn.math.softmax(nx), rtol=1e-5)
    same(lambda: tf.math.log_softmax(tx, axis=0), lambda: tn.math.log_softmax(nx, axis=0),
         rtol=1e-5)
    same(lambda: tf.map_fn(lambda r: r * 2, tx), lambda: tn.map_fn(lambda r: r * 2, nx))
    n = x.shape[0]
    ids = sorted(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    for op in ("segment_sum", "segment_max", "segment_min"):
        same(lambda: getattr(tf.math, op)(tx, ids), lambda: getattr(tn.math, op)(nx, ids))
    uids = data.draw(st.lists(st.integers(-1, 3), min_size=n, max_size=n))
    for op in ("unsorted_segment_sum", "unsorted_segment_max"):
        same(lambda: getattr(tf.math, op)(tx, uids, 4), lambda: getattr(tn.math, op)(nx, uids, 4))
    same(lambda: tf.ensure_shape(tx, [None] * x.ndim), lambda: tn.ensure_shape(nx, [None] * x.ndim))
    same(lambda: tf.linspace(0.0, float(shift), reps + 1), lambda: tn.linspace(0.0, float(shift),
                                                                                reps + 1), rtol=1e-6)


csv_fields = st.one_of(st.integers(-99, 99).map(str), st.floats(-9, 9, width=32).map(repr),
                       st.sampled_from(["", "x", "1.5", '"a,b"', '"q""q"', " 7", "NA"]))


@SETTINGS
@given(rows=st.lists(st.lists(csv_fields, min_size=1, max_size=3), min_size=1, max_size=3),
       kinds=st.lists(st.sampled_from(["int32", "int64", "float32", "float64", "string",
                                       "required"]), min_size=1, max_size=3),
       na=st.sampled_from(["", "NA"]))
def test_decode_csv(rows, kinds, na):
    lines = [",".join(r) for r in rows]
    defaults_for = {"int32": [0], "int64": [tf.constant(0, tf.int64)], "float32": [0.0],
                    "float64": [tf.constant(0.0, tf.float64)], "string": ["?"]}

    def defaults(m):
        out = []
        for k in kinds:
            if k == "required":
                out.append(m.constant([], m.int32))
            elif k in ("int64", "float64"):
                out.append(m.constant([0], getattr(m, k)))
            else:
                out.append(defaults_for[k])
        return out
    same(lambda: tf.io.decode_csv(lines, defaults(tf), na_value=na),
         lambda: tn.io.decode_csv(lines, defaults(tn), na_value=na), message=True)


# ------------------------------------------------------------------ searchsorted

SEARCH_CASES = [([1, 3, 5], [3, 4]), ([1, 3, 5], [[2]]), ([[1, 3], [2, 4]], [[2], [3]]),
                ([1, 3, 5], 3), (3, [1, 2]), (3, 3), ([[1, 3], [2, 4]], [2, 3]),
                ([], [1]), ([1, 3], []), ([1.0, 2.5], [2.5, 0.0]), ([1, 3, 5], [2.0]),
                ([[1, 3], [2, 4]], [[[2]], [[3]]])]


@pytest.mark.parametrize("seq,values", SEARCH_CASES)
@pytest.mark.parametrize("side", ["left", "right", "middle"])
def test_searchsorted_ranks_dtypes_and_rows(seq, values, side):
    """TensorFlow's checks: rank 0 ('slice index -1 ...'), dtypes ('cannot compute
    LowerBound ... float'), rows ('Leading dim_size ...'), side (ValueError)."""
    same(lambda: tf.searchsorted(seq, values, side=side),
         lambda: tn.searchsorted(seq, values, side=side), message=side != "middle")

"""``tf.random``: TensorFlow's seeding rules over numpy's generators.

What matches TensorFlow: names, signatures, dtypes, shapes, value ranges and
distributions; ``set_seed`` + op seeds make a program repeatable (the same seeds
give the same sequence, repeated calls of one op continue its stream, as eager
TensorFlow does); stateless ops give the same values for the same ``seed`` every time.

What differs, and why: the *numbers themselves*. TensorFlow draws from Philox-4x32-10
with its own key/counter layout and its own float conversion; tfnano draws from
numpy's PCG64 seeded from the same seeds, so a given seed gives other (equally
distributed) values than under TensorFlow. Code that depends on the exact random
values of a TensorFlow run (golden outputs) will see different values.

Inside a traced tf.data map function a random op is always recorded (even with no
traced input, so each record gets fresh values) and draws a whole batch at once when
the map runs vectorized.
"""
import threading

import numpy as np

from .. import dtypes as _dt
from .._trace import traceable
from ..errors import invalid
from ._common import like_symbol, plain, shape_list, to_array, wrap

_LOCK = threading.Lock()
_GLOBAL = {"seed": None, "counter": 0, "streams": {}}


def set_seed(seed):
    """``tf.random.set_seed``: makes every later random op repeatable."""
    with _LOCK:
        _GLOBAL["seed"] = None if seed is None else int(seed)
        _GLOBAL["counter"] = 0
        _GLOBAL["streams"] = {}


def get_global_generator():
    return Generator(seed=_GLOBAL["seed"])


def _stream(op_seed):
    """The generator of one (global seed, op seed) pair, kept so that repeated calls
    continue its sequence; fresh entropy when neither seed is set."""
    with _LOCK:
        g = _GLOBAL["seed"]
        if g is None and op_seed is None:
            return np.random.default_rng()
        if op_seed is None:
            _GLOBAL["counter"] += 1
            key = (g, 0, _GLOBAL["counter"])
        else:
            key = (0x7FFFFFFF if g is None else g, 1, int(op_seed))
        rng = _GLOBAL["streams"].get(key)
        if rng is None:
            rng = _GLOBAL["streams"][key] = np.random.default_rng(
[int(k) % (2 ** 63) for k in key])
        return rng


def _stateless_rng(seed):
    s = np.asarray(plain(seed) if isinstance(seed, np.ndarray) else seed).reshape(-1)
    if s.shape != (2,):
        raise invalid("seed must have shape [2], not %s"
                      % list(np.shape(seed)))
    return np.random.default_rng([int(v) % (2 ** 63) for v in s.tolist()])


def _float_type(dtype):
    t = np.dtype(_dt.as_dtype(dtype).as_numpy_dtype)
    return t


def _uniform(rng, shape, minval, maxval, dtype):
    t = _float_type(dtype)
    if t.kind in "iu":
        if maxval is None:
            raise ValueError("Must specify maxval for integer dtype %r" % _dt.as_dtype(dtype))
        lo, hi = int(plain(minval)), int(plain(maxval))
        if lo >= hi:
            raise invalid("Need minval < maxval, got %d >= %d"
                          % (lo, hi))
        return rng.integers(lo, hi, size=shape, dtype=t)
    if t.kind != "f":
        raise ValueError("Invalid dtype %s" % _dt.as_dtype(dtype))
    lo = float(plain(minval))
    hi = 1.0 if maxval is None else float(plain(maxval))
    u = rng.random(size=shape, dtype=np.float64 if t == np.float64 else np.float32)
    return (lo + u * (hi - lo)).astype(t)


def _normal(rng, shape, mean, stddev, dtype):
    t = _float_type(dtype)
    return (rng.standard_normal(size=shape) * float(plain(stddev)) + float(plain(mean))
            ).astype(t)


def _truncated(rng, shape, mean, stddev, dtype):
    t = _float_type(dtype)
    n = int(np.prod(shape)) if shape else 1
    out = np.empty(0)
    while out.size < n:  # resample values beyond two standard deviations, as TF
        draw = rng.standard_normal(size=max(n, 16) * 2)
        out = np.concatenate([out, draw[np.abs(draw) <= 2.0]])
    return (out[:n].reshape(shape) * float(plain(stddev)) + float(plain(mean))).astype(t)


def _make(tf_name, draw, defaults):
    def eager(shape, a=defaults[0], b=defaults[1], dtype=_dt.float32, seed=None,
              _like=None):
        return wrap(np.asarray(draw(_stream(seed), shape_list(shape), a, b, dtype)))

    def batched(shape, a=defaults[0], b=defaults[1], dtype=_dt.float32, seed=None,
                _like=None):
        n = len(_like)
        return np.asarray(draw(_stream(seed), [n] + shape_list(shape), a, b, dtype))

    traced = traceable(tf_name, batch=batched)(eager)

    def op(shape, a=defaults[0], b=defaults[1], dtype=_dt.float32, seed=None, name=None):
        like = like_symbol()
        if like is not None:
            return traced(shape, a, b, dtype, seed, _like=like)
        return eager(shape, a, b, dtype, seed)
    return op


_uniform_op = _make("random.uniform", _uniform, (0, None))
_normal_op = _make("random.normal", _normal, (0.0, 1.0))
_truncated_op = _make("random.truncated_normal", _truncated, (0.0, 1.0))


def uniform(shape, minval=0, maxval=None, dtype=_dt.float32, seed=None, name=None):
    """``tf.random.uniform``: [minval, maxval) (maxval 1 for floats; required for
    integers)."""
    return _uniform_op(shape, minval, maxval, dtype, seed)


def normal(shape, mean=0.0, stddev=1.0, dtype=_dt.float32, seed=None, name=None):
    """``tf.random.normal``."""
    return _normal_op(shape, mean, stddev, dtype, seed)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=_dt.float32, seed=None, name=None):
    """``tf.random.truncated_normal``: values beyond two stddevs are drawn again."""
    return _truncated_op(shape, mean, stddev, dtype, seed)


def _shuffle_batch(value, seed=None, name=None):
    return _stream(seed).permuted(np.asarray(value), axis=1)


@traceable("random.shuffle", batch=_shuffle_batch)
def shuffle(value, seed=None, name=None):
    """``tf.random.shuffle``: permutes along the first axis."""
    a = to_array(value)
    if a.ndim == 0:
        raise invalid("input must be at least 1-D, got shape []")
    return wrap(a[_stream(seed).permutation(a.shape[0])])


def categorical(logits, num_samples, dtype=_dt.int64, seed=None, name=None):
    """``tf.random.categorical``: [batch, num_samples] class indices."""
    lg = to_array(logits).astype(np.float64)
    rng = _stream(seed)
    p = np.exp(lg - lg.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    out = np.stack([rng.choice(lg.shape[1], size=int(num_samples), p=row) for row in p])
    return wrap(out.astype(_dt.as_dtype(dtype).as_numpy_dtype))


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=_dt.float32, name=None,
                      alg="auto_select"):
    """``tf.random.stateless_uniform``: the same `seed` (shape [2]) gives the same values."""
    return wrap(np.asarray(_uniform(_stateless_rng(seed), shape_list(shape), minval, maxval,
                                    dtype)))


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None,
                     alg="auto_select"):
    """``tf.random.stateless_normal``."""
    return wrap(_normal(_stateless_rng(seed), shape_list(shape), mean, stddev, dtype))


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dt.float32,
                               name=None, alg="auto_select"):
    """``tf.random.stateless_truncated_normal``."""
    return wrap(_truncated(_stateless_rng(seed), shape_list(shape), mean, stddev, dtype))


def stateless_categorical(logits, num_samples, seed, dtype=_dt.int64, name=None):
    lg = to_array(logits).astype(np.float64)
    rng = _stateless_rng(seed)
    p = np.exp(lg - lg.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    out = np.stack([rng.choice(lg.shape[1], size=int(num_samples), p=row) for row in p])
    return wrap(out.astype(_dt.as_dtype(dtype).as_numpy_dtype))


def _split_seed(seed, num=2):
    rng = _stateless_rng(seed)
    return wrap(rng.integers(0, 2 ** 31 - 1, size=(int(num), 2)).astype(np.int64))


def _fold_in(seed, data):
    rng = np.random.default_rng([int(v) % (2 ** 63) for v in
                                 np.asarray(plain(seed)).reshape(-1).tolist()] + [int(data)])
    return wrap(rng.integers(0, 2 ** 31 - 1, size=2).astype(np.int64))


class experimental:  # noqa: N801 - TensorFlow's name
    """``tf.random.experimental``: stateless_split and stateless_fold_in."""
    stateless_split = staticmethod(_split_seed)
    stateless_fold_in = staticmethod(_fold_in)


split = _split_seed
fold_in = _fold_in


class Generator:
    """``tf.random.Generator`` (from_seed / from_non_deterministic_state, uniform,
    normal, truncated_normal, make_seeds, split) over numpy's PCG64."""

    def __init__(self, copy_from=None, state=None, alg=None, seed=None):
        self._rng = np.random.default_rng(seed)

    @classmethod
    def from_seed(cls, seed, alg=None):
        return cls(seed=int(seed))

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        return cls()

    def uniform(self, shape, minval=0, maxval=None, dtype=_dt.float32, name=None):
        return wrap(np.asarray(_uniform(self._rng, shape_list(shape), minval, maxval, dtype)))

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None):
        return wrap(_normal(self._rng, shape_list(shape), mean, stddev, dtype))

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None):
        return wrap(_truncated(self._rng, shape_list(shape), mean, stddev, dtype))

    def make_seeds(self, count=1):
        return wrap(self._rng.integers(0, 2 ** 63 - 1, size=(2, int(count)), dtype=np.int64))

    def split(self, count=1):
        return [Generator(seed=int(s)) for s in self._rng.integers(0, 2 ** 63 - 1,
                                                                   size=int(count))]

"""``tf.random``: TensorFlow's random numbers, bit for bit.

Every op draws from Philox-4x32-10 as TensorFlow's kernels do (``philox``): the
stateless ops (``stateless_uniform`` / ``normal`` / ``truncated_normal``, integer
uniforms) turn their seed pair into a key and counter by TensorFlow's rule, so the same
seed gives TensorFlow's values. The seeded stateful ops (``uniform``, ``normal``,
``truncated_normal``, ``shuffle``) take their two seeds from TensorFlow's rule
(``get_seed``: the global seed of ``set_seed`` and the op seed; an op seed drawn from
Python's ``random.Random(global seed)`` when none is given, as eager TensorFlow does) and
keep one generator per op, dtype and seed pair, advanced by 256 blocks per value, as
TensorFlow's cached kernels are; ``set_seed`` starts them all again. So a program that
seeds its random ops gets TensorFlow's numbers. Without any seed the values are fresh
each run, as in TensorFlow.

Inside a traced tf.data map function TensorFlow derives the op seed from the function's
graph; there tfnano draws from the same kind of stream with seeds taken when the op
runs, so the values are repeatable under ``set_seed`` but not TensorFlow's.
"""
import os
import random as _pyrandom
import threading

import numpy as np

from .. import dtypes as _dt
from .._trace import traceable
from ..errors import InvalidArgumentError
from . import philox as _philox
from ._common import like_symbol, plain, shape_list, to_array, wrap

_LOCK = threading.Lock()
_GLOBAL = {"seed": None, "rng": None, "kernels": {}}
_DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2 ** 31 - 1


def set_seed(seed):
    """``tf.random.set_seed``: makes every later random op repeatable."""
    with _LOCK:
        _GLOBAL["seed"] = None if seed is None else int(seed)
        _GLOBAL["rng"] = None if seed is None else _pyrandom.Random(int(seed))
        _GLOBAL["kernels"] = {}


def get_seed(op_seed):
    """TensorFlow's (global seed, op seed) pair for an op (random_seed.get_seed)."""
    with _LOCK:
        g = _GLOBAL["seed"]
        if g is not None:
            if op_seed is None:
                op_seed = _GLOBAL["rng"].randint(0, _MAXINT32)
            seeds = (g % _MAXINT32, int(op_seed) % _MAXINT32)
        elif op_seed is not None:
            seeds = (_DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32)
        else:
            seeds = (None, None)
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


def fresh_seeds():
    """Two random 64-bit seeds, as TensorFlow's kernels take when given (0, 0)."""
    return tuple(int.from_bytes(os.urandom(8), "little") for _ in range(2))


def kernel_generator(op, dtype, seeds):
    """The Philox of one (op, dtype, seeds) kernel, as eager TensorFlow caches it: the
    same seeds continue the same stream until set_seed."""
    s1, s2 = seeds
    if s1 is None or (s1 == 0 and s2 == 0):
        return _philox.Philox.from_seeds(*fresh_seeds())
    with _LOCK:
        key = (op, str(dtype), s1, s2)
        gen = _GLOBAL["kernels"].get(key)
        if gen is None:
            gen = _GLOBAL["kernels"][key] = _philox.Philox.from_seeds(s1, s2)
        return gen


def _reserve(gen, blocks):
    """A copy of the generator at its counter, which moves on by `blocks`."""
    with _LOCK:
        local = gen.copy()
        gen.skip(blocks)
    return local


def get_global_generator():
    return Generator(seed=_GLOBAL["seed"])


def _stateless_generator(seed):
    s = np.asarray(plain(seed) if isinstance(seed, np.ndarray) else seed).reshape(-1)
    if s.shape != (2,):
        raise InvalidArgumentError(None, None, "seed must have shape [2], not %s"
                                   % list(np.shape(seed)))
    return _philox.Philox.stateless([int(v) for v in s.tolist()])


def _float_type(dtype):
    t = np.dtype(_dt.as_dtype(dtype).as_numpy_dtype)
    return t


def _count(shape):
    return int(np.prod(shape, dtype=np.int64)) if shape else 1


def _uniform(gen, shape, minval, maxval, dtype):
    t = _float_type(dtype)
    n = _count(shape)
    if t.kind in "iu":
        if maxval is None:
            raise ValueError("Must specify maxval for integer dtype %r" % _dt.as_dtype(dtype))
        lo, hi = int(plain(minval)), int(plain(maxval))
        if lo >= hi:
            raise InvalidArgumentError(None, None, "Need minval < maxval, got %d >= %d"
                                       % (lo, hi))
        return _philox.uniform_int(gen, n, lo, hi, t).reshape(shape)
    if t.kind != "f":
        raise ValueError("Invalid dtype %s" % _dt.as_dtype(dtype))
    lo = t.type(plain(minval))
    hi = t.type(1.0 if maxval is None else plain(maxval))
    u = _philox.uniform(gen, n, t).reshape(shape)
    # as TensorFlow's graph: rnd * (maxval - minval) + minval, each step in the dtype
    return np.add(np.multiply(u, t.type(hi - lo), dtype=t), lo, dtype=t)


def _affine(rnd, stddev, mean, t):
    return np.add(np.multiply(rnd, t.type(plain(stddev)), dtype=t), t.type(plain(mean)),
                  dtype=t)


def _normal(gen, shape, mean, stddev, dtype):
    t = _float_type(dtype)
    return _affine(_philox.normal(gen, _count(shape), t).reshape(shape), stddev, mean, t)


def _truncated(gen, shape, mean, stddev, dtype):
    t = _float_type(dtype)
    return _affine(_philox.truncated_normal(gen, _count(shape), t).reshape(shape), stddev,
                   mean, t)


_KERNELS = {_uniform: "RandomUniform", _normal: "RandomStandardNormal",
            _truncated: "TruncatedNormal"}


def _stateful(draw, shape, a, b, dtype, seed):
    """One stateful op call: TensorFlow's seeds, its cached kernel's stream, 256 blocks
    reserved per value."""
    kind = _KERNELS[draw]
    if draw is _uniform and _float_type(dtype).kind in "iu":
        kind = "RandomUniformInt"
    gen = kernel_generator(kind, _dt.as_dtype(dtype).name, get_seed(seed))
    return draw(_reserve(gen, _count(shape) * 256), shape, a, b, dtype)


def _make(tf_name, draw, defaults):
    def eager(shape, a=defaults[0], b=defaults[1], dtype=_dt.float32, seed=None,
              _like=None):
        return wrap(np.asarray(_stateful(draw, shape_list(shape), a, b, dtype, seed)))

    def batched(shape, a=defaults[0], b=defaults[1], dtype=_dt.float32, seed=None,
                _like=None):
        one = shape_list(shape)
        rows = [_stateful(draw, one, a, b, dtype, seed) for _ in range(len(_like))]
        return np.stack(rows) if rows else np.zeros([0] + one, _float_type(dtype))

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


def _permutation(n, seed, dtype):
    """TensorFlow's RandomShuffle: a forward Fisher-Yates over n rows, one word per
    step (word % rows left), n - 1 words reserved from the kernel's stream."""
    gen = kernel_generator("RandomShuffle", dtype, get_seed(seed))
    words = _philox.SingleSample(_reserve(gen, (n - 1 + 3) // 4)).take(max(n - 1, 0))
    perm = list(range(n))
    for i, w in enumerate(words.tolist()):
        j = i + w % (n - i)
        perm[i], perm[j] = perm[j], perm[i]
    return np.asarray(perm, dtype=np.int64)


def _shuffle_batch(value, seed=None, name=None):
    a = np.asarray(value)
    return np.stack([row[_permutation(row.shape[0], seed, row.dtype)] for row in a]) \
        if len(a) else a


@traceable("random.shuffle", batch=_shuffle_batch)
def shuffle(value, seed=None, name=None):
    """``tf.random.shuffle``: permutes along the first axis."""
    a = to_array(value)
    if a.ndim == 0:
        raise InvalidArgumentError(None, None, "input must be at least 1-D, got shape []")
    if a.size <= 1 or a.shape[0] <= 1:
        get_seed(seed)  # TensorFlow's op takes its seeds all the same
        return wrap(a.copy())
    return wrap(a[_permutation(a.shape[0], seed, a.dtype)])


def _multinomial(logits, num_samples, gen, dtype):
    """TensorFlow's multinomial kernel: per row, the cumulative exp(logit - max) over
    the finite logits in double, then per sample a uniform double (two words) times the
    total, located by upper bound. Rows draw one after another from `gen`."""
    lg = to_array(logits)
    if lg.ndim != 2:
        raise InvalidArgumentError(None, None, "logits should be a matrix, got shape %s"
                                   % list(lg.shape))
    ns = int(plain(num_samples))
    single = _philox.SingleSample(gen)
    out = np.empty((lg.shape[0], ns), dtype=np.int64)
    for b, row in enumerate(lg):
        finite = np.isfinite(row)
        top = float(row[finite].max()) if finite.any() else float(np.finfo(row.dtype).min)
        cdf = np.cumsum(np.where(finite, np.exp(row.astype(np.float64) - top), 0.0))
        total = cdf[-1] if len(cdf) else 0.0
        words = single.take(2 * ns).reshape(-1, 2)
        draws = _philox.unit_double(words[:, 0], words[:, 1]) * total
        out[b] = np.searchsorted(cdf, draws, side="right")
    return wrap(out.astype(_dt.as_dtype(dtype).as_numpy_dtype))


def categorical(logits, num_samples, dtype=_dt.int64, seed=None, name=None):
    """``tf.random.categorical``: [batch, num_samples] class indices."""
    lg = to_array(logits)
    ns = int(plain(num_samples))
    gen = kernel_generator("Multinomial", "%s/%s" % (lg.dtype, _dt.as_dtype(dtype).name),
                           get_seed(seed))
    reserve = (lg.shape[0] if lg.ndim else 1) * ((ns + 3) // 4 * 4) * 2 * 256
    return _multinomial(lg, ns, _reserve(gen, reserve), dtype)


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=_dt.float32, name=None,
                      alg="auto_select"):
    """``tf.random.stateless_uniform``: TensorFlow's values for the same `seed` (shape
    [2]); integer dtypes with minval and maxval None give the full range."""
    gen = _stateless_generator(seed)
    t = _float_type(dtype)
    shape = shape_list(shape)
    if t.kind in "iu" and minval is None and maxval is None:
        return wrap(_philox.full_int(gen, _count(shape), t).reshape(shape))
    return wrap(np.asarray(_uniform(gen, shape, 0 if minval is None else minval, maxval,
                                    dtype)))


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None,
                     alg="auto_select"):
    """``tf.random.stateless_normal``."""
    return wrap(_normal(_stateless_generator(seed), shape_list(shape), mean, stddev, dtype))


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dt.float32,
                               name=None, alg="auto_select"):
    """``tf.random.stateless_truncated_normal``."""
    return wrap(_truncated(_stateless_generator(seed), shape_list(shape), mean, stddev, dtype))


def stateless_categorical(logits, num_samples, seed, dtype=_dt.int64, name=None):
    """``tf.random.stateless_categorical``: TensorFlow's values for the same seed."""
    return _multinomial(logits, num_samples, _stateless_generator(seed), dtype)


def _split_seed(seed, num=2, alg="auto_select"):
    """``tf.random.split``: [num, 2] new seeds, the full-range integers of the seed's
    dtype drawn stateless from `seed`, as TensorFlow."""
    dt = to_array(seed).dtype
    return wrap(_philox.full_int(_stateless_generator(seed), 2 * int(num), dt).reshape(
        int(num), 2))


def _fold_in(seed, data, alg="auto_select"):
    """``tf.random.fold_in``: [a full-range integer drawn from `seed`, data]."""
    d = to_array(data)
    first = _philox.full_int(_stateless_generator(seed), 1, d.dtype)
    return wrap(np.stack([first[0], d.reshape(())]))


class experimental:  # noqa: N801 - TensorFlow's name
    """``tf.random.experimental``: stateless_split and stateless_fold_in."""
    stateless_split = staticmethod(_split_seed)
    stateless_fold_in = staticmethod(_fold_in)


split = _split_seed
fold_in = _fold_in


class Generator:
    """``tf.random.Generator`` (from_seed / from_non_deterministic_state, uniform,
    normal, truncated_normal, make_seeds, split): Philox draws keyed from numpy's PCG64
    (not TensorFlow's stream for the same seed)."""

    def __init__(self, copy_from=None, state=None, alg=None, seed=None):
        self._rng = np.random.default_rng(seed)
        # the draws: a Philox stream keyed from numpy's, not TensorFlow's stream for
        # the same seed (documented in docs/compat.md)
        self._gen = _philox.Philox.from_seeds(*(int(v) for v in self._rng.integers(
            0, 2 ** 63 - 1, size=2)))

    @classmethod
    def from_seed(cls, seed, alg=None):
        return cls(seed=int(seed))

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        return cls()

    def uniform(self, shape, minval=0, maxval=None, dtype=_dt.float32, name=None):
        return wrap(np.asarray(_uniform(self._gen, shape_list(shape), minval, maxval, dtype)))

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None):
        return wrap(_normal(self._gen, shape_list(shape), mean, stddev, dtype))

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None):
        return wrap(_truncated(self._gen, shape_list(shape), mean, stddev, dtype))

    def make_seeds(self, count=1):
        return wrap(self._rng.integers(0, 2 ** 63 - 1, size=(2, int(count)), dtype=np.int64))

    def split(self, count=1):
        return [Generator(seed=int(s)) for s in self._rng.integers(0, 2 ** 63 - 1,
                                                                   size=int(count))]

"""TensorFlow's random streams, bit-exact: Philox-4x32-10 (lib/base/philox.c through
tfnano._c.random, and a numpy form for many scattered counters), TensorFlow's seed -> key/counter rules, its
SingleSampleAdapter, and the distributions of core/lib/random/random_distributions.h
(uniform floats from the mantissa bits, biased-modulo integers, Box-Muller normals,
truncated normals drawn per group of outputs from counters 256 blocks apart)."""
import numpy as np

from .._c import random as _cr

_M32 = 0xFFFFFFFF
_M64 = (1 << 64) - 1
_M128 = (1 << 128) - 1
_STATELESS_KEY = (0x3EC8F720, 0x02461E29)  # TF's GenerateKey scrambling key


def philox_blocks(key, counter, n):
    """n blocks (an (n, 4) uint32 array) for the 128-bit counters counter .. counter+n-1."""
    return _cr.philox_blocks(key, counter, n)


def philox_at(key, counters):
    """Blocks for arbitrary counters (an (n, 4) uint32 array of words), vectorized."""
    c = [counters[:, i].astype(np.uint64) for i in range(4)]
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    m0, m1, mask = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57), np.uint64(_M32)
    for _ in range(10):
        p0, p1 = c[0] * m0, c[2] * m1
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ k0, p1 & mask,
             (p0 >> np.uint64(32)) ^ c[3] ^ k1, p0 & mask]
        k0, k1 = (k0 + np.uint64(0x9E3779B9)) & mask, (k1 + np.uint64(0xBB67AE85)) & mask
    return np.stack(c, axis=1).astype(np.uint32)


class Philox:
    """TensorFlow's PhiloxRandom: a key and a 128-bit counter that advances per block."""

    def __init__(self, key, counter):
        self.key, self.counter = (int(key[0]) & _M32, int(key[1]) & _M32), counter & _M128

    @classmethod
    def from_seeds(cls, seed, seed2):
        """PhiloxRandom(seed, seed2): the key from `seed`, the counter's high half from
        `seed2` (both taken as 64-bit)."""
        seed, seed2 = int(seed) & _M64, int(seed2) & _M64
        return cls((seed & _M32, seed >> 32), seed2 << 64)

    @classmethod
    def stateless(cls, seed):
        """The generator of a stateless op's seed pair (TF's GenerateKey: the pair, as the
        counter, goes through one Philox round under a fixed key)."""
        s0, s1 = (int(v) & _M64 for v in seed)
        mix = philox_blocks(_STATELESS_KEY, s0 | (s1 << 64), 1)[0]
        return cls((mix[0], mix[1]), (int(mix[2]) << 64) | (int(mix[3]) << 96))

    def copy(self):
        return Philox(self.key, self.counter)

    def skip(self, n):
        self.counter = (self.counter + int(n)) & _M128

    def blocks(self, n):
        out = philox_blocks(self.key, self.counter, n)
        self.skip(n)
        return out


class SingleSample:
    """TF's SingleSampleAdapter: one 32-bit word at a time from a Philox's blocks."""

    def __init__(self, gen):
        self.gen, self._left = gen, np.zeros(0, dtype=np.uint32)

    def take(self, n):
        if n <= len(self._left):
            out, self._left = self._left[:n], self._left[n:]
            return out
        need = n - len(self._left)
        fresh = self.gen.blocks((need + 3) // 4).reshape(-1)
        out = np.concatenate([self._left, fresh[:need]])
        self._left = fresh[need:]
        return out

    def next(self):
        return int(self.take(1)[0])


# ----------------------------------------------------------------- distributions

def unit_float(words):
    return ((words & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)).view(np.float32) - \
        np.float32(1.0)


def unit_double(hi, lo):
    bits = ((hi.astype(np.uint64) & np.uint64(0xFFFFF)) << np.uint64(32)) | \
        lo.astype(np.uint64) | np.uint64(1023 << 52)
    return bits.view(np.float64) - 1.0


def _unit_half(words):
    bits = ((words & np.uint32(0x3FF)) | np.uint32(15 << 10)).astype(np.uint16)
    return bits.view(np.float16) - np.float16(1.0)


_box_muller_float = _cr.box_muller_float
_box_muller_double = _cr.box_muller_double


def uniform(gen, n, dtype):
    """TF's UniformDistribution over [0, 1) for a float dtype: n values from `gen`."""
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        w = gen.blocks((n + 1) // 2).reshape(-1, 2)
        return unit_double(w[:, 0], w[:, 1])[:n]
    w = gen.blocks((n + 3) // 4).reshape(-1)[:n]
    if dtype == np.float16:
        return _unit_half(w)
    return unit_float(w)


def uniform_int(gen, n, lo, hi, dtype):
    """TF's integer UniformDistribution: lo + bits % (hi - lo), 32 bits per value for
    32-bit types and 64 (two words, low first) for 64-bit ones."""
    dtype = np.dtype(dtype)
    if dtype.itemsize == 8:
        w = gen.blocks((n + 1) // 2).reshape(-1, 2)[:n].astype(np.uint64)
        bits = w[:, 0] | (w[:, 1] << np.uint64(32))
        span = np.uint64((int(hi) - int(lo)) & _M64)
        return (bits % span + np.uint64(int(lo) & _M64)).view(np.int64).astype(dtype)
    w = gen.blocks((n + 3) // 4).reshape(-1)[:n]
    span = np.uint32((int(hi) - int(lo)) & _M32)
    return (w % span + np.uint32(int(lo) & _M32)).view(np.int32).astype(dtype)


def full_int(gen, n, dtype):
    """TF's UniformFullIntDistribution: the raw bits as the integer type."""
    dtype = np.dtype(dtype)
    if dtype.itemsize == 8:
        w = gen.blocks((n + 1) // 2).reshape(-1, 2)[:n].astype(np.uint64)
        return (w[:, 0] | (w[:, 1] << np.uint64(32))).view(dtype)
    return gen.blocks((n + 3) // 4).reshape(-1)[:n].view(dtype)


def normal(gen, n, dtype):
    """TF's NormalDistribution: Box-Muller on each pair of words (floats, halfs) or each
    four words (doubles)."""
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        return _box_muller_double(gen.blocks((n + 1) // 2).reshape(-1))[:n]
    out = _box_muller_float(gen.blocks((n + 3) // 4).reshape(-1))[:n]
    return out.astype(dtype) if dtype != np.float32 else out


def _words_at(base, offsets):
    """The counter words of base + offsets (a uint64 array), 128-bit arithmetic."""
    lo = np.uint64(base & _M64) + offsets
    hi = np.uint64((base >> 64) & _M64) + (lo < offsets).astype(np.uint64)
    m, s32 = np.uint64(_M32), np.uint64(32)
    return np.stack([lo & m, lo >> s32, hi & m, hi >> s32], axis=-1).astype(np.uint32)


def _kept(vals, group):
    """Per row, the first `group` values with |x| < 2, and which rows had that many."""
    ok = np.abs(vals) < 2.0
    rank = np.cumsum(ok, axis=1)
    full = rank[:, -1] >= group
    pick = ok & (rank <= group) & full[:, None]
    return vals[pick].reshape(-1, group), full


def truncated_normal(gen, n, dtype):
    """TF's TruncatedNormalDistribution as FillPhiloxRandom runs it: outputs in groups
    (4 floats or 2 doubles), group g drawing single words from the counter
    base + g * 256 (128 for doubles) blocks on, keeping values with |x| < 2."""
    dtype = np.dtype(dtype)
    double = dtype == np.float64
    group, stride = (2, 128) if double else (4, 256)
    bm = _box_muller_double if double else _box_muller_float
    ngroups = (n + group - 1) // group
    out = np.empty((ngroups, group), dtype=np.float64 if double else np.float32)
    per = 4  # blocks per group at first: 16 floats or 8 doubles, nearly always enough
    offs = np.arange(ngroups, dtype=np.uint64)[:, None] * np.uint64(stride) + \
        np.arange(per, dtype=np.uint64)
    words = philox_at(gen.key, _words_at(gen.counter, offs.reshape(-1)).reshape(-1, 4))
    vals = bm(words.reshape(-1)).reshape(ngroups, -1)
    kept, full = _kept(vals, group)
    out[full] = kept
    for g in np.nonzero(~full)[0].tolist():  # the rare group that needs more draws
        got, more = [], 0
        while len(got) < group:
            blocks = philox_at(gen.key, _words_at(gen.counter, np.arange(
                g * stride + more, g * stride + more + per, dtype=np.uint64)))
            v = bm(blocks.reshape(-1))
            got.extend(v[np.abs(v) < 2.0].tolist())
            more += per
        out[g] = got[:group]
    return out.reshape(-1)[:n].astype(dtype)

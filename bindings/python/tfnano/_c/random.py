"""TensorFlow's random source in C (lib/base/philox.c): Philox-4x32-10 blocks and the
Box-Muller steps of its normal distributions, on numpy arrays."""
import numpy as np

from . import ffi, lib

_M32 = 0xFFFFFFFF


def philox_blocks(key, counter, n):
    """n blocks (an (n, 4) uint32 array) for the 128-bit counters counter .. counter+n-1
    under the two-word `key`."""
    out = np.empty((n, 4), dtype=np.uint32)
    if n:
        words = [(counter >> (32 * i)) & _M32 for i in range(4)]
        lib.tfn_philox4x32(ffi.new("uint32_t[2]", list(key)), ffi.new("uint32_t[4]", words),
                           n, ffi.cast("uint32_t *", ffi.from_buffer(out)))
    return out


def box_muller_float(words):
    """TensorFlow's BoxMullerFloat over consecutive pairs of uint32 words."""
    out = np.empty(len(words), dtype=np.float32)
    if len(words):
        w = np.ascontiguousarray(words, dtype=np.uint32)
        lib.tfn_box_muller_float(ffi.cast("uint32_t *", ffi.from_buffer(w)), len(w) // 2,
                                 ffi.cast("float *", ffi.from_buffer(out)))
    return out


def box_muller_double(words):
    """TensorFlow's BoxMullerDouble over consecutive groups of four uint32 words."""
    out = np.empty(len(words) // 2, dtype=np.float64)
    if len(words):
        w = np.ascontiguousarray(words, dtype=np.uint32)
        lib.tfn_box_muller_double(ffi.cast("uint32_t *", ffi.from_buffer(w)), len(w) // 4,
                                  ffi.cast("double *", ffi.from_buffer(out)))
    return out

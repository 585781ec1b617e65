"""tf.image colour and orientation ops that augmentation maps call: adjust_brightness /
contrast / gamma, their random_* forms, rgb_to_grayscale and rot90. Integer images go
through float32 and back (saturating) as in TensorFlow; the random forms draw their
factor with tfnano's tf.random.uniform (so they follow its streams)."""
import numpy as np

from .._tensor import Tensor
from ._ops import convert_image_dtype

_NATIVE_FLOAT = (np.float16, np.float32)


def _to_float(image):
    a = np.asarray(image)
    if a.dtype in _NATIVE_FLOAT:
        return a, a.dtype
    return np.asarray(convert_image_dtype(a, "float32")), a.dtype


def _back(flt, orig, saturate=True):
    return convert_image_dtype(np.asarray(flt), orig, saturate=saturate).view(Tensor)


def adjust_brightness(image, delta):
    """`delta` added to every value (of the float image: [0, 1] for integer images)."""
    flt, orig = _to_float(image)
    return _back(flt + np.asarray(delta).astype(flt.dtype), orig)


def adjust_contrast(images, contrast_factor):
    """Each channel of each image: (x - mean) * contrast_factor + mean, the mean taken
    over height and width."""
    flt, orig = _to_float(images)
    if flt.ndim < 3:
        raise ValueError("input must be at least 3-D, got shape %s" % (list(flt.shape),))
    mean = flt.mean(axis=(-3, -2), keepdims=True, dtype=np.float32).astype(flt.dtype)
    f = np.asarray(contrast_factor, dtype=flt.dtype)
    return _back((flt - mean) * f + mean, orig)


def adjust_gamma(image, gamma=1, gain=1):
    """gain * image ** gamma (of the float image)."""
    if np.ndim(gamma) == 0 and float(gamma) < 0:
        raise ValueError("Gamma should be a non-negative real number.")
    flt, orig = _to_float(image)
    out = np.asarray(gain, flt.dtype) * flt ** np.asarray(gamma, flt.dtype)
    return _back(out.astype(flt.dtype), orig)


def rgb_to_grayscale(images, name=None):
    """Luma with weights 0.2989, 0.5870, 0.1140; the last axis becomes 1."""
    a = np.asarray(images)
    flt = np.asarray(convert_image_dtype(a, "float32"))
    w = np.array([0.2989, 0.5870, 0.1140], np.float32)
    gray = np.tensordot(flt, w, axes=([-1], [-1]))[..., None].astype(np.float32)
    return _back(gray, a.dtype, saturate=False)


def rot90(image, k=1, name=None):
    """Rotated counter-clockwise by k quarter turns (height/width axes)."""
    a = np.asarray(image)
    if a.ndim not in (3, 4):
        raise ValueError("'image' (shape %s) must have either 3 or 4 dimensions."
                         % (a.shape,))
    axes = (0, 1) if a.ndim == 3 else (1, 2)
    return np.ascontiguousarray(np.rot90(a, int(k) % 4, axes=axes)).view(Tensor)


def _uniform(lo, hi, seed):
    from ..ops.random_ops import uniform
    return uniform([], lo, hi, seed=seed)


def random_brightness(image, max_delta, seed=None):
    """adjust_brightness by a delta drawn uniformly from [-max_delta, max_delta)."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, _uniform(-max_delta, max_delta, seed))


def random_contrast(image, lower, upper, seed=None):
    """adjust_contrast by a factor drawn uniformly from [lower, upper)."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return adjust_contrast(image, _uniform(lower, upper, seed))

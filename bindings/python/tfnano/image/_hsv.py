"""tf.image.adjust_saturation / adjust_hue and their random_* forms, computed as
TensorFlow's CPU kernels compute them (float32, the same branch order and the same
mixed float / double steps), vectorised with numpy."""
import numpy as np

from .. import errors
from .._tensor import Tensor
from ._ops import convert_image_dtype

_F = np.float32


def _float_rgb(image):
    a = np.asarray(image)
    orig = a.dtype
    if a.dtype == np.float32:
        flt = a
    elif a.dtype == np.float16:
        flt = a.astype(_F)
    else:
        flt = np.asarray(convert_image_dtype(a, "float32"))
    if flt.ndim < 3:
        raise errors.InvalidArgumentError(
            None, None, "input must be at least 3-D, got shape[%s]"
            % ",".join(str(d) for d in flt.shape))
    if flt.shape[-1] != 3:
        raise errors.InvalidArgumentError(
            None, None, "input must have 3 channels but instead has %d channels."
            % flt.shape[-1])
    return flt, orig


def _back(rgb, orig):
    if orig == np.float16:
        return rgb.astype(np.float16).view(Tensor)
    return convert_image_dtype(rgb, orig).view(Tensor)


def _wrap_into(x, low, high, step):
    """TensorFlow's `while (x <= low) x += step; while (x >= high) x -= step` loops,
    element by element (each entry moves by whole steps, as the loops do)."""
    x = x.copy()
    below = x <= low if low == 0 and high == 2 else x < low
    while below.any():
        x[below] += _F(step)
        below = x <= low if low == 0 and high == 2 else x < low
    above = x >= high
    while above.any():
        x[above] -= _F(step)
        above = x >= high
    return x


def _saturate(flt, scale):
    r, g, b = flt[..., 0], flt[..., 1], flt[..., 2]
    vmax = np.maximum(r, np.maximum(g, b))
    span = vmax - np.minimum(r, np.minimum(g, b))
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(vmax > 0, span / vmax, _F(0)).astype(_F)
        norm = _F(1) / (_F(6) * span)
        h_r = norm * (g - b)
        h_g = ((norm * (b - r)).astype(np.float64) + 2.0 / 6.0).astype(_F)
        h_b = ((norm * (r - g)).astype(np.float64) + 4.0 / 6.0).astype(_F)
    h = np.where(r == vmax, h_r, np.where(g == vmax, h_g, h_b))
    h = np.where(span <= 0, _F(0), h)
    h = np.where(h < 0, h + _F(1), h).astype(_F)
    s = np.minimum(_F(1), np.maximum(_F(0), s * _F(scale)))
    # back to RGB
    c = s * vmax
    m = vmax - c
    dh = h * _F(6)
    cat = dh.astype(np.int64)
    fm = _wrap_into(dh, 0, 2, 2)
    x = c * (_F(1) - np.abs(fm - _F(1)))
    z = np.zeros_like(c)
    table = {0: (c, x, z), 1: (x, c, z), 2: (z, c, x), 3: (z, x, c), 4: (x, z, c),
             5: (c, z, x)}
    out = np.zeros(flt.shape, _F)
    for k, (rr, gg, bb) in table.items():
        sel = cat == k
        out[..., 0] = np.where(sel, rr + m, out[..., 0])
        out[..., 1] = np.where(sel, gg + m, out[..., 1])
        out[..., 2] = np.where(sel, bb + m, out[..., 2])
    # categories outside 0..5 give (0, 0, 0) + m
    other = (cat < 0) | (cat > 5)
    for ch in range(3):
        out[..., ch] = np.where(other, m, out[..., ch])
    return out


def _shift_hue(flt, delta):
    r, g, b = flt[..., 0], flt[..., 1], flt[..., 2]
    r_lt_g = r < g
    # (v_max, v_mid, v_min, category) for the six orderings, in the kernel's branch order
    cases = [
        (r_lt_g & (b < r), g, r, b, 1),
        (r_lt_g & ~(b < r) & (b > g), b, g, r, 3),
        (r_lt_g & ~(b < r) & ~(b > g), g, b, r, 2),
        (~r_lt_g & (b < g), r, g, b, 0),
        (~r_lt_g & ~(b < g) & (b > r), b, r, g, 4),
        (~r_lt_g & ~(b < g) & ~(b > r), r, b, g, 5),
    ]
    vmax = np.zeros_like(r)
    vmid = np.zeros_like(r)
    vmin = np.zeros_like(r)
    cat = np.zeros(r.shape, np.int64)
    for sel, hi, mid, lo, k in cases:
        vmax = np.where(sel, hi, vmax)
        vmid = np.where(sel, mid, vmid)
        vmin = np.where(sel, lo, vmin)
        cat = np.where(sel, k, cat)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (vmid - vmin) / (vmax - vmin)
    h = (cat.astype(_F) + np.where(cat % 2 == 0, ratio, _F(1) - ratio)).astype(_F)
    h = np.where(vmax == vmin, _F(0), h)
    h = h + _F(delta) * _F(6)
    h = _wrap_into(h.astype(_F), 0, 6, 6)
    cat = h.astype(np.int64)
    ratio = h - cat.astype(_F)
    ratio = np.where(cat % 2 == 1, _F(1) - ratio, ratio)
    vmid = vmin + ratio * (vmax - vmin)
    table = {0: (vmax, vmid, vmin), 1: (vmid, vmax, vmin), 2: (vmin, vmax, vmid),
             3: (vmin, vmid, vmax), 4: (vmid, vmin, vmax)}
    out = np.empty(flt.shape, _F)
    out[..., 0], out[..., 1], out[..., 2] = vmax, vmin, vmid  # category 5 and default
    for k, (rr, gg, bb) in table.items():
        sel = cat == k
        out[..., 0] = np.where(sel, rr, out[..., 0])
        out[..., 1] = np.where(sel, gg, out[..., 1])
        out[..., 2] = np.where(sel, bb, out[..., 2])
    return out


def adjust_saturation(image, saturation_factor, name=None):
    """Saturation (HSV's S) multiplied by `saturation_factor`, clipped to [0, 1]."""
    flt, orig = _float_rgb(image)
    return _back(_saturate(flt, float(np.asarray(saturation_factor))), orig)


def adjust_hue(image, delta, name=None):
    """Hue rotated by `delta` (a fraction of the colour wheel, in [-1, 1])."""
    d = float(np.asarray(delta))
    if d < -1 or d > 1:
        raise ValueError("delta must be in the interval [-1, 1]")
    flt, orig = _float_rgb(image)
    return _back(_shift_hue(flt, d), orig)


def _uniform(lo, hi, seed):
    from ..ops.random_ops import uniform
    return uniform([], lo, hi, seed=seed)


def random_saturation(image, lower, upper, seed=None):
    """adjust_saturation by a factor drawn uniformly from [lower, upper)."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return adjust_saturation(image, _uniform(lower, upper, seed))


def random_hue(image, max_delta, seed=None):
    """adjust_hue by a delta drawn uniformly from [-max_delta, max_delta)."""
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_hue(image, _uniform(-max_delta, max_delta, seed))

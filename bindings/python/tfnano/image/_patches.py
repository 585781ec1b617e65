"""tf.image.crop_and_resize (boxes in normalised coordinates, bilinear or nearest
sampling computed as TensorFlow's CPU kernel computes it) and tf.image.extract_patches
(the patches of a sliding window, VALID or SAME padding, with rates)."""
import numpy as np

from .. import errors
from .._tensor import Tensor

_F = np.float32


def _axis_samples(lo, hi, size, crop):
    """Sample positions along one axis for each box (float32, as the kernel)."""
    if crop > 1:
        scale = (hi - lo) * _F(size - 1) / _F(crop - 1)
        pos = lo[:, None] * _F(size - 1) + np.arange(crop, dtype=_F)[None, :] * scale[:, None]
    else:
        pos = (_F(0.5) * (lo + hi) * _F(size - 1))[:, None] * np.ones((1, crop), _F)
    return pos.astype(_F)


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear",
                    extrapolation_value=0.0, name=None):
    """[num_boxes, crop_height, crop_width, depth] float32 crops of `image` (4-D)."""
    img = np.asarray(image)
    if img.ndim != 4:
        raise errors.invalid("input image must be 4-D, got shape "
                             "[%s]" % ",".join(str(d) for d in img.shape))
    bx = np.asarray(boxes, _F).reshape(-1, 4)
    ind = np.asarray(box_indices).reshape(-1).astype(np.int64)
    ch, cw = [int(v) for v in np.asarray(crop_size).reshape(-1)]
    if method not in ("bilinear", "nearest"):
        raise ValueError("method must be 'bilinear' or 'nearest'")
    if ch <= 0 or cw <= 0:
        raise errors.invalid("crop dimensions must be positive")
    if bx.shape[0] != ind.shape[0]:
        raise errors.invalid("box_index has incompatible shape")
    n, h, w, depth = img.shape
    if np.any((ind < 0) | (ind >= n)):
        raise errors.invalid("box_index has values outside [0, "
                             "batch_size)")
    ys = _axis_samples(bx[:, 0], bx[:, 2], h, ch)
    xs = _axis_samples(bx[:, 1], bx[:, 3], w, cw)
    out = np.full((bx.shape[0], ch, cw, depth), _F(extrapolation_value), _F)
    src = img.astype(_F)
    for b in range(bx.shape[0]):
        im = src[ind[b]]
        y, x = ys[b], xs[b]
        yok = (y >= 0) & (y <= _F(h - 1))
        xok = (x >= 0) & (x <= _F(w - 1))
        if method == "bilinear":
            y0 = np.floor(y)
            x0 = np.floor(x)
            ti = np.clip(y0, 0, h - 1).astype(np.int64)
            bi = np.clip(np.ceil(y), 0, h - 1).astype(np.int64)
            li = np.clip(x0, 0, w - 1).astype(np.int64)
            ri = np.clip(np.ceil(x), 0, w - 1).astype(np.int64)
            ly = (y - y0).astype(_F)[:, None, None]
            lx = (x - x0).astype(_F)[None, :, None]
            tl, tr = im[ti][:, li], im[ti][:, ri]
            bl, br = im[bi][:, li], im[bi][:, ri]
            top = tl + (tr - tl) * lx
            bottom = bl + (br - bl) * lx
            val = top + (bottom - top) * ly
        else:
            yi = np.clip(_round_half_away(y), 0, h - 1).astype(np.int64)
            xi = np.clip(_round_half_away(x), 0, w - 1).astype(np.int64)
            val = im[yi][:, xi]
        ok = yok[:, None] & xok[None, :]
        out[b] = np.where(ok[:, :, None], val, out[b])
    return out.view(Tensor)


def _round_half_away(v):
    low = np.floor(v)
    return np.where(v - low >= 0.5, low + 1, low)


def _four(v, what):
    v = [int(x) for x in np.asarray(v).reshape(-1)]
    if len(v) != 4 or v[0] != 1 or v[3] != 1:
        raise errors.InvalidArgumentError(
            None, None, "%s must be 4-D with the first and last entries equal to 1" % what)
    return v[1], v[2]


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """[batch, out_rows, out_cols, k_rows * k_cols * depth]: each window's pixels in
    row-major order (zeros where SAME padding reaches outside the image)."""
    img = np.asarray(images)
    if img.ndim != 4:
        raise errors.invalid("input must be 4-dimensional")
    kr, kc = _four(sizes, "ksizes")
    sr, sc = _four(strides, "strides")
    rr, rc = _four(rates, "rates")
    pad = padding.upper() if isinstance(padding, str) else padding
    n, h, w, d = img.shape
    er, ec = kr + (kr - 1) * (rr - 1), kc + (kc - 1) * (rc - 1)
    if pad == "VALID":
        out_r = max(0, (h - er) // sr + 1) if h >= er else 0
        out_c = max(0, (w - ec) // sc + 1) if w >= ec else 0
        top = left = 0
    elif pad == "SAME":
        out_r, out_c = -(-h // sr), -(-w // sc)
        top = max((out_r - 1) * sr + er - h, 0) // 2
        left = max((out_c - 1) * sc + ec - w, 0) // 2
    else:
        raise ValueError("padding must be 'VALID' or 'SAME'")
    out = np.zeros((n, out_r, out_c, kr * kc * d), img.dtype)
    for i in range(kr):
        for j in range(kc):
            rows = np.arange(out_r) * sr + i * rr - top
            cols = np.arange(out_c) * sc + j * rc - left
            rv = (rows >= 0) & (rows < h)
            cv = (cols >= 0) & (cols < w)
            block = img[:, np.clip(rows, 0, max(h - 1, 0))][:, :, np.clip(cols, 0, max(w - 1, 0))]
            block = np.where((rv[:, None] & cv[None, :])[None, :, :, None], block, 0)
            k = (i * kc + j) * d
            out[..., k:k + d] = block
    return out.view(Tensor)

"""``tf.compat.v1.image``: TF1's legacy resize (``resize_images``, ``resize_bilinear``,
``resize_nearest_neighbor``: no half-pixel centres, optional align_corners), computed
as TensorFlow's CPU kernels compute them; every other name is tfnano.image's."""
import numpy as np

from ..._tensor import Tensor


class ResizeMethod:
    """TF1's integer resize methods."""
    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


def _scale(in_size, out_size, align_corners):
    if align_corners and out_size > 1:
        return np.float32(in_size - 1) / np.float32(out_size - 1)
    return np.float32(in_size) / np.float32(out_size)


def _bilinear_4d(x, out_h, out_w, align_corners):
    n, h, w, c = x.shape
    x = x.astype(np.float32)

    def weights(in_size, out_size):
        s = _scale(in_size, out_size, align_corners)
        pos = np.arange(out_size, dtype=np.float32) * s
        low_f = np.floor(pos)
        lower = np.maximum(low_f.astype(np.int64), 0)
        upper = np.minimum(np.ceil(pos).astype(np.int64), in_size - 1)
        return lower, upper, (pos - low_f).astype(np.float32)
    y0, y1, ly = weights(h, out_h)
    x0, x1, lx = weights(w, out_w)
    lx = lx[None, None, :, None]
    ly = ly[None, :, None, None]
    tl = x[:, y0][:, :, x0]
    tr = x[:, y0][:, :, x1]
    bl = x[:, y1][:, :, x0]
    br = x[:, y1][:, :, x1]
    top = tl + (tr - tl) * lx
    bottom = bl + (br - bl) * lx
    return (top + (bottom - top) * ly).astype(np.float32)


def _nearest_4d(x, out_h, out_w, align_corners):
    def index(in_size, out_size):
        s = _scale(in_size, out_size, align_corners)
        pos = np.arange(out_size, dtype=np.float32) * s
        # roundf: halves away from zero (numpy's round goes to even)
        low = np.floor(pos)
        idx = np.where(pos - low >= 0.5, low + 1, low) if align_corners else low
        return np.minimum(idx.astype(np.int64), in_size - 1)
    return x[:, index(x.shape[1], out_h)][:, :, index(x.shape[2], out_w)]


def _as_4d(images):
    a = np.asarray(images)
    if a.ndim == 3:
        return a[None], False
    if a.ndim != 4:
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    return a, True


def _size(size):
    try:
        s = np.asarray(size).astype(np.int32, casting="same_kind").reshape(-1)
    except (TypeError, ValueError):
        raise ValueError("'size' must be a 1-D int32 Tensor") from None
    if s.shape != (2,):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    return int(s[0]), int(s[1])


def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """TF1 ResizeBilinear on a 4-D batch: float32 out."""
    if half_pixel_centers:
        from ...image import resize
        return resize(images, size, "bilinear")
    x = np.asarray(images)
    h, w = _size(size)
    return _bilinear_4d(x, h, w, align_corners).view(Tensor)


def resize_nearest_neighbor(images, size, align_corners=False, name=None,
                            half_pixel_centers=False):
    """TF1 ResizeNearestNeighbor on a 4-D batch: the input's dtype."""
    if half_pixel_centers:
        from ...image import resize
        return resize(images, size, "nearest")
    h, w = _size(size)
    return np.ascontiguousarray(_nearest_4d(np.asarray(images), h, w,
                                            align_corners)).view(Tensor)


def resize_images(images, size, method=ResizeMethod.BILINEAR, align_corners=False,
                  preserve_aspect_ratio=False, name=None):
    """TF1's resize_images: the legacy kernels; images already of `size` come back
    unchanged (their dtype kept)."""
    x, batch = _as_4d(images)
    new_h, new_w = _size(size)
    if preserve_aspect_ratio:
        f = min(np.float32(new_h) / np.float32(x.shape[1]),
                np.float32(new_w) / np.float32(x.shape[2]))
        new_h = int(np.round(np.float32(f) * np.float32(x.shape[1])))
        new_w = int(np.round(np.float32(f) * np.float32(x.shape[2])))
    if (new_h, new_w) == x.shape[1:3]:
        out = x
    elif method in (ResizeMethod.BILINEAR, "bilinear"):
        out = _bilinear_4d(x, new_h, new_w, align_corners)
    elif method in (ResizeMethod.NEAREST_NEIGHBOR, "nearest"):
        out = _nearest_4d(x, new_h, new_w, align_corners)
    elif method in (ResizeMethod.BICUBIC, ResizeMethod.AREA, "bicubic", "area"):
        raise NotImplementedError("tfnano: TF1's legacy bicubic and area resize are not "
                                  "implemented; use tf.image.resize (TF2 kernels)")
    else:
        raise ValueError("Resize method is not implemented: {}".format(method))
    out = np.ascontiguousarray(out)
    return (out if batch else out[0]).view(Tensor)


def __getattr__(name):
    from ... import image
    return getattr(image, name)

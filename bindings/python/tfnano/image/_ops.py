"""tf.image / tf.io image ops with TensorFlow's names, arguments and values, each
traceable so that a tf.data map function using them runs batched in C (see
tfnano/_trace.py): decode_* batched gives a DecodedBatch, and resize of a DecodedBatch
is one fused, threaded decode -> resize call."""
import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._trace import Spec, Symbol, traceable
from .._tensor import Tensor, scalar_string
from .._c import image as _codec
from . import _batch

def _channels_dim(channels):
    return None if not channels else channels


# ------------------------------------------------------------------ decoding

def _jpeg_kwargs(channels, ratio, fancy_upscaling, try_recover_truncated, dct_method):
    # (channels=4 is refused for JPEG data only: a PNG or GIF through decode_jpeg has
    # its own channel rules, as in TensorFlow)
    if channels not in (0, 1, 3, 4):
        raise errors.invalid("`channels` must be 0, 1, 3 or 4 but got %s" % channels)
    if ratio not in (1, 2, 4, 8):
        raise errors.invalid("ratio must be 1, 2, 4, or 8, got %s" % ratio)
    return dict(channels=channels, ratio=ratio, fancy_upscaling=fancy_upscaling,
                try_recover_truncated=try_recover_truncated, dct_method=dct_method)


def _decode_jpeg_infer(contents, channels=0, *args, **kwargs):
    return Spec(np.uint8, (None, None, _channels_dim(channels)))


def _decode_jpeg_batch(contents, channels=0, ratio=1, fancy_upscaling=True,
                       try_recover_truncated=False, acceptable_fraction=1, dct_method="",
                       name=None):
    kw = _jpeg_kwargs(channels, ratio, fancy_upscaling, try_recover_truncated, dct_method)
    return _batch.DecodedBatch(contents, dict(kw, gif="still"), op="DecodeJpeg")


@traceable("decode_jpeg", batch=_decode_jpeg_batch, infer=_decode_jpeg_infer)
def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True,
                try_recover_truncated=False, acceptable_fraction=1, dct_method="", name=None):
    """tf.io.decode_jpeg / tf.image.decode_jpeg: uint8 (height, width, channels).
    As in TensorFlow, PNG bytes and one-frame GIFs are decoded too (format from the
    magic bytes)."""
    kw = _jpeg_kwargs(channels, ratio, fancy_upscaling, try_recover_truncated, dct_method)
    data = _codec.contents_bytes(contents, "DecodeJpeg")
    _refuse_bmp(data, "DecodeJpeg")
    _refuse_jpeg_rgba(data, channels)
    return _codec.decode(data, _codec.decode_options(gif="still", **kw))


def _refuse_jpeg_rgba(data, channels):
    if channels == 4 and _codec.format_of(data) == 1:
        raise errors.invalid("JPEG does not support 4 channels")


def _refuse_bmp(data, op):
    if _codec.format_of(data) == 4:
        raise errors.invalid("Trying to decode BMP format using a wrong op. Use `decode_bmp` or "
                              "`decode_image` instead. Op used: %s" % op)


def _decode_and_crop_infer(contents, crop_window, channels=0, *args, **kwargs):
    return Spec(np.uint8, (None, None, _channels_dim(channels)))


@traceable("decode_and_crop_jpeg", infer=_decode_and_crop_infer)
def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="",
                         name=None):
    """tf.io.decode_and_crop_jpeg: decodes only the window [y, x, height, width]."""
    kw = _jpeg_kwargs(channels, ratio, fancy_upscaling, try_recover_truncated, dct_method)
    window = np.asarray(crop_window).reshape(-1)
    if window.shape[0] != 4:
        raise errors.invalid("crop_window must have four elements %s" % (list(window.shape),))
    data = _codec.contents_bytes(contents, "DecodeAndCropJpeg")
    fmt = _codec.format_of(data)
    if fmt in (3, 4):
        raise errors.invalid("DecodeAndCropJpeg operation can run on JPEG only, but detected %s."
                              % ("GIF" if fmt == 3 else "BMP"))
    _refuse_jpeg_rgba(data, channels)
    if fmt == 2:  # PNG through this op: whole image, then the window
        img = _codec.decode(data, _codec.decode_options(channels=channels))
        y, x, h, w = (int(v) for v in window)
        return img[y:y + h, x:x + w]
    return _codec.decode(data, _codec.decode_options(crop=window, **kw))


def _decode_png_infer(contents, channels=0, dtype=_dt.uint8, name=None):
    return Spec(_dt.numpy_dtype(dtype), (None, None, _channels_dim(channels)))


def _png_dtype(dtype):
    d = _dt.numpy_dtype(dtype)
    if d not in (np.uint8, np.uint16):
        raise errors.invalid("`dtype` for `DecodePng` must be unit8, unit16 but got: %s" % d)
    return d


def _decode_png_batch(contents, channels=0, dtype=_dt.uint8, name=None):
    d = _png_dtype(dtype)
    if d != np.uint8:
        return [decode_png(c, channels, dtype) for c in _batch.bytes_list(contents)]
    return _batch.DecodedBatch(contents, dict(channels=channels, gif="still"), op="DecodePng")


@traceable("decode_png", batch=_decode_png_batch, infer=_decode_png_infer)
def decode_png(contents, channels=0, dtype=_dt.uint8, name=None):
    """tf.io.decode_png: uint8 or uint16 (height, width, channels); JPEG bytes and
    one-frame GIFs too."""
    d = _png_dtype(dtype)
    if channels not in (0, 1, 2, 3, 4):
        raise errors.invalid("`channels` must be 0, 1, 3 or 4 but got %s" % channels)
    data = _codec.contents_bytes(contents, "DecodePng")
    _refuse_bmp(data, "DecodePng")
    return _decode_any(data, channels, d, gif="still")


def _decode_bmp_infer(contents, channels=0, name=None):
    return Spec(np.uint8, (None, None, _channels_dim(channels)))


@traceable("decode_bmp", infer=_decode_bmp_infer)
def decode_bmp(contents, channels=0, name=None):
    """tf.io.decode_bmp: uncompressed 8/24/32-bit BMP to uint8 (height, width, channels)."""
    data = _codec.contents_bytes(contents, "DecodeBmp")
    fmt = _codec.format_of(data)
    if fmt != 4:
        name = {1: "JPEG", 2: "PNG", 3: "GIF"}.get(fmt)
        if name is None:
            raise errors.invalid("Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, "
                                  "WebP required.")
        raise errors.invalid("Trying to decode %s format using DecodeBmp op. Use `decode_%s` or "
                              "`decode_image` instead." % (name, name.lower()))
    return _codec.decode(data, _codec.decode_options(channels=channels))


def _decode_any(data, channels, d, jpeg_kw=None, gif="first"):
    fmt = _codec.format_of(data)
    if fmt in (1, 3, 4):  # JPEG, GIF, BMP: 8-bit decode, widened as TensorFlow does
        if channels == 4 and fmt == 1:
            raise errors.invalid("JPEG does not support 4 channels")
        img = _codec.decode(data, _codec.decode_options(channels=channels, gif=gif,
                                                        **(jpeg_kw or {})))
        if d == np.uint16:
            return (img.astype(np.uint16) * np.uint16(256)).view(Tensor)
        if d == np.float32:
            return (img.astype(np.float32) * np.float32(1.0 / 255)).view(Tensor)
        return img
    img = _codec.decode(data, _codec.decode_options(channels=channels,
                                                    uint16=d != np.uint8))
    if d == np.float32:
        return (img.astype(np.float32) * np.float32(1.0 / 65535)).view(Tensor)
    return img


def _decode_image_infer(contents, channels=None, dtype=_dt.uint8, name=None,
                        expand_animations=True):
    # (TensorFlow's shape is unknown with expand_animations=True, as a GIF gives 4-D
    # frames; traced here as 3-D images, and a batched GIF record then fails, saying
    # to pass expand_animations=False.)
    rank = (None, None, _channels_dim(channels))
    return Spec(_dt.numpy_dtype(dtype), rank)


def _decode_image_batch(contents, channels=None, dtype=_dt.uint8, name=None,
                        expand_animations=True):
    d = _dt.numpy_dtype(dtype)
    if d != np.uint8:
        return [decode_image(c, channels, dtype, expand_animations=expand_animations)
                for c in _batch.bytes_list(contents)]
    return _batch.DecodedBatch(contents, dict(channels=channels or 0,
                                              gif="refuse" if expand_animations else "first"))


@traceable("decode_image", batch=_decode_image_batch, infer=_decode_image_infer)
def decode_image(contents, channels=None, dtype=_dt.uint8, name=None, expand_animations=True):
    """tf.io.decode_image: JPEG, PNG, GIF or BMP to (height, width, channels) of uint8,
    uint16 or float32 (scaled to [0, 1]); a GIF gives (frames, height, width, 3), or
    its first frame with expand_animations=False."""
    d = _dt.numpy_dtype(dtype)
    if d not in (np.uint8, np.uint16, np.float32):
        raise errors.invalid("`dtype` for `DecodeImage` must be unit8, unit16, float but "
                             "got: %s" % d)
    ch = channels or 0
    if ch not in (0, 1, 3, 4):
        raise errors.invalid("`channels` must be 0, 1, 3 or 4 but got %s" % ch)
    data = _codec.contents_bytes(contents, "DecodeImage")
    if len(data) == 0:
        raise errors.invalid("Input is empty.")
    return _decode_any(data, ch, d, gif="all" if expand_animations else "first")


def _decode_gif_infer(contents, name=None):
    return Spec(np.uint8, (None, None, None, 3))


@traceable("decode_gif", infer=_decode_gif_infer)
def decode_gif(contents, name=None):
    """tf.io.decode_gif / tf.image.decode_gif: every frame of a GIF as uint8
    (frames, height, width, 3), each composed on the previous one as TensorFlow does
    (a JPEG or PNG gives one RGB frame, as in TensorFlow)."""
    data = _codec.contents_bytes(contents, "DecodeGif")
    if len(data) == 0:
        raise errors.invalid("Input is empty.")
    fmt = _codec.format_of(data)
    if fmt in (1, 2):  # as TensorFlow: a JPEG or PNG is one RGB frame
        return _codec.decode(data, _codec.decode_options(channels=3))[None]
    _refuse_bmp(data, "DecodeGif")
    return _codec.decode(data, _codec.decode_options(gif="all"))


def _shape_infer(contents, output_type=_dt.int32, name=None):
    return Spec(_dt.numpy_dtype(output_type), (3,))


def _extract_shape_batch(contents, output_type=_dt.int32, name=None):
    return np.stack([extract_jpeg_shape(c, output_type) for c in _batch.bytes_list(contents)])


@traceable("extract_jpeg_shape", batch=_extract_shape_batch, infer=_shape_infer)
def extract_jpeg_shape(contents, output_type=_dt.int32, name=None):
    """tf.io.extract_jpeg_shape: [height, width, channels] read from the header only."""
    data = _codec.contents_bytes(contents, "ExtractJpegShape")
    if _codec.format_of(data) != 1:
        raise errors.invalid("Invalid JPEG data, size %d" % len(data))
    info = _codec.probe(data)
    return np.array([info.height, info.width, info.components],
                    _dt.numpy_dtype(output_type)).view(Tensor)


def is_jpeg(contents, name=None):
    """tf.io.is_jpeg."""
    return np.array(_codec.format_of(_codec.contents_bytes(contents)) == 1).view(Tensor)


def _scalar_string_infer(*args, **kwargs):
    return Spec(object, ())


@traceable("encode_jpeg", infer=_scalar_string_infer)
def encode_jpeg(image, format="", quality=95, progressive=False,  # noqa: A002
                optimize_size=False, chroma_downsampling=True, density_unit="in",
                x_density=300, y_density=300, xmp_metadata="", name=None):
    """tf.io.encode_jpeg / tf.image.encode_jpeg: uint8 HWC (1 or 3 channels) to a
    scalar string Tensor of JPEG bytes (``.numpy()`` gives the bytes)."""
    return scalar_string(_codec.encode_jpeg(
        image, format, quality, progressive, optimize_size, chroma_downsampling,
        density_unit, x_density, y_density, xmp_metadata))


@traceable("encode_png", infer=_scalar_string_infer)
def encode_png(image, compression=-1, name=None):
    """tf.io.encode_png / tf.image.encode_png: uint8 or uint16 HWC (1-4 channels) to a
    scalar string Tensor of PNG bytes."""
    return scalar_string(_codec.encode_png(image, compression))


# ------------------------------------------------------------------ resizing

class ResizeMethod:
    """tf.image.ResizeMethod: every method of tf.image.resize."""
    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


def _size_arg(size):
    """tf.image.resize's `size` as TensorFlow converts it to int32: a tensor must be
    int32, a numpy array is cast, Python values must be integers (wrapping to 32 bits);
    then it must have shape [2]."""
    from .._tensor import Tensor
    bad_type = ValueError("'size' must be a 1-D int32 Tensor")
    if isinstance(size, Tensor):
        a = size.view(np.ndarray)
        if a.dtype != np.int32:
            raise bad_type
    elif isinstance(size, np.ndarray):
        try:
            a = size.astype(np.int32)
        except (TypeError, ValueError):
            raise bad_type from None
    else:
        flat = np.asarray(size, dtype=object).reshape(-1).tolist() if np.ndim(size) else [size]
        if not all(isinstance(v, (int, np.integer)) for v in flat):
            raise bad_type
        a = np.asarray([int(v) & 0xFFFFFFFF for v in flat], np.uint32).view(np.int32) \
            .reshape(np.shape(size))
    if a.shape != (2,):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    return int(a[0]), int(a[1])


def _target_size(h, w, size, preserve_aspect_ratio):
    nh, nw = _size_arg(size)
    if preserve_aspect_ratio:
        f = min(np.float32(nh) / np.float32(h), np.float32(nw) / np.float32(w))
        nh = int(np.round(np.float32(f) * np.float32(h)))
        nw = int(np.round(np.float32(f) * np.float32(w)))
    if nh <= 0 or nw <= 0:  # the resize kernels' check
        raise errors.invalid("output dimensions must be positive")
    return nh, nw


def _check_method(method, antialias):
    """TensorFlow's error for a method name it does not know."""
    _batch.method_code(method, antialias)


def _resize_one(img, nh, nw, method, antialias=False):
    h, w, c = img.shape
    if method == "nearest" and img.dtype not in (np.uint8, np.float32):
        ys = np.minimum(np.floor((np.arange(nh, dtype=np.float32) + np.float32(0.5)) *
                                 (np.float32(h) / np.float32(nh))).astype(np.int64), h - 1)
        xs = np.minimum(np.floor((np.arange(nw, dtype=np.float32) + np.float32(0.5)) *
                                 (np.float32(w) / np.float32(nw))).astype(np.int64), w - 1)
        return img[ys][:, xs]
    return _codec.resize(img, nh, nw, _batch.method_code(method, antialias),
                         nearest=method == "nearest")


def _resize_infer(images, size, method="bilinear", preserve_aspect_ratio=False,
                  antialias=False, name=None):
    shape = images.spec.shape if isinstance(images, Symbol) else np.shape(images)
    dtype = images.spec.dtype if isinstance(images, Symbol) else np.asarray(images).dtype
    out_dtype = dtype if method == "nearest" else np.dtype(np.float32)
    if preserve_aspect_ratio:
        hw = (None, None)
    else:
        hw = tuple(int(v) for v in np.asarray(size).reshape(-1)[:2])
    if shape is None:
        return Spec(out_dtype, None)
    return Spec(out_dtype, tuple(shape[:-3]) + hw + (shape[-1],))


def _resize_batch(images, size, method="bilinear", preserve_aspect_ratio=False,
                  antialias=False, name=None):
    method = _method_name(method)
    _check_method(method, antialias)
    if isinstance(images, _batch.DecodedBatch) and not preserve_aspect_ratio \
            and images.post is None and images._images is None:
        ch = images.opt_kwargs.get("channels") or 0
        if ch in (1, 3, 4):
            images.check()
            kw = dict(images.opt_kwargs)
            kw.pop("channels")
            opt = _codec.decode_options(channels=ch, **kw)
            bo = _batch.batch_options(size, ch, method=method,
                                      dtype="uint8" if method == "nearest" else "float32",
                                      decode_opt=opt, dct_scale=_batch.SETTINGS["dct_scaling"],
                                      antialias=antialias)
            return _batch.decode_resize(images.contents, bo)
    if isinstance(images, (list, tuple, _batch.DecodedBatch)):
        imgs = list(images)
        if not imgs:
            return np.empty((0,) + tuple(int(v) for v in size) + (0,), np.float32)
        if not preserve_aspect_ratio and all(isinstance(a, np.ndarray) and a.dtype == np.uint8
                                             and a.ndim == 3 for a in imgs):
            bo = _batch.batch_options(size, imgs[0].shape[2], method=method,
                                      dtype="uint8" if method == "nearest" else "float32",
                                      antialias=antialias)
            return _batch.resize_list(imgs, bo)
        return np.stack([resize(a, size, method, preserve_aspect_ratio, antialias)
                         for a in imgs])
    return resize(images, size, method, preserve_aspect_ratio, antialias)


def _method_name(method):
    return getattr(method, "value", method)


@traceable("resize", batch=_resize_batch, infer=_resize_infer)
def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False,
           antialias=False, name=None):
    """tf.image.resize for 3-D (h, w, c) or 4-D (n, h, w, c) images with TensorFlow's
    arithmetic: bilinear (half-pixel centres), nearest (input dtype), area, bicubic
    (ResizeBicubic), lanczos3 / lanczos5 / gaussian / mitchellcubic and any method with
    antialias=True (ScaleAndTranslate); float32 results but for nearest."""
    method = _method_name(method)
    _check_method(method, antialias)
    a = np.asarray(images)
    if a.ndim not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    batch = a if a.ndim == 4 else a[None]
    n, h, w, c = batch.shape
    if h == 0 or w == 0:
        raise errors.invalid("input image must be of non-zero size")
    nh, nw = _target_size(h, w, size, preserve_aspect_ratio)
    if a.dtype == np.bool_ or a.dtype.kind in "SUO":
        raise TypeError("resize: unsupported dtype %s" % a.dtype)
    if method != "nearest" and a.dtype not in (np.uint8, np.float32):
        batch = batch.astype(np.float32)
    out = np.stack([_resize_one(batch[i], nh, nw, method, antialias)
                    for i in range(n)]) if n else \
        np.empty((0, nh, nw, c), a.dtype if method == "nearest" else np.float32)
    return (out if a.ndim == 4 else out[0]).view(Tensor)


def _image_4d(image, name="image"):
    """(4-D array, was it 4-D): TensorFlow's expand_dims for a 3-D image."""
    a = np.asarray(image)
    if a.ndim not in (3, 4):
        raise ValueError("'%s' (shape %s) must have either 3 or 4 dimensions."
                         % (name, _tf_shape(a.shape)))
    return (a if a.ndim == 4 else a[None]), a.ndim == 4


def _tf_shape(shape):
    return "(%s)" % ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")


def _out(a, is_batch):
    return (a if is_batch else a[0]).view(Tensor)


def _per_image_batch(fn):
    """Batch rule of an op whose output size is fixed by its arguments: a dense 4-D
    batch goes through the op at once, a list (records of different sizes) image by
    image, then stacked."""
    def run(images, *args, **kwargs):
        if isinstance(images, (list, tuple, _batch.DecodedBatch)):
            outs = [np.asarray(fn(a, *args, **kwargs)) for a in images]
            if not outs:
                raise errors.invalid("empty batch")
            return np.stack(outs).view(Tensor)
        return fn(images, *args, **kwargs)
    return run


def _box_infer(image, offset_height, offset_width, target_height, target_width):
    spec = image.spec if isinstance(image, Symbol) else Spec(np.asarray(image).dtype,
                                                             np.shape(image))
    if spec.shape is None:
        return Spec(spec.dtype, None)
    return Spec(spec.dtype, tuple(spec.shape[:-3]) + (int(target_height), int(target_width),
                                                      spec.shape[-1]))


def _pad_to_box(image, offset_height, offset_width, target_height, target_width):
    a, is_batch = _image_4d(image)
    _, h, w, _ = a.shape
    oh, ow, th, tw = (int(v) for v in (offset_height, offset_width, target_height,
                                       target_width))
    if oh < 0:
        raise ValueError("offset_height must be >= 0")
    if ow < 0:
        raise ValueError("offset_width must be >= 0")
    if tw - ow - w < 0:
        raise ValueError("width must be <= target - offset")
    if th - oh - h < 0:
        raise ValueError("height must be <= target - offset")
    out = np.zeros((a.shape[0], th, tw, a.shape[3]), a.dtype)
    out[:, oh:oh + h, ow:ow + w] = a
    return _out(out, is_batch)


@traceable("pad_to_bounding_box", batch=_per_image_batch(_pad_to_box), infer=_box_infer)
def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """tf.image.pad_to_bounding_box: zeros above, left, below and right of the image up
    to target_height x target_width (same dtype)."""
    return _pad_to_box(image, offset_height, offset_width, target_height, target_width)


def _crop_to_box(image, offset_height, offset_width, target_height, target_width):
    a, is_batch = _image_4d(image)
    _, h, w, _ = a.shape
    oh, ow, th, tw = (int(v) for v in (offset_height, offset_width, target_height,
                                       target_width))
    if ow < 0:
        raise ValueError("offset_width must be >= 0.")
    if oh < 0:
        raise ValueError("offset_height must be >= 0.")
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    if w < tw + ow:
        raise ValueError("width must be >= target + offset.")
    if h < th + oh:
        raise ValueError("height must be >= target + offset.")
    return _out(a[:, oh:oh + th, ow:ow + tw], is_batch)


@traceable("crop_to_bounding_box", batch=_per_image_batch(_crop_to_box), infer=_box_infer)
def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """tf.image.crop_to_bounding_box: the window [offset, offset + target) (same dtype)."""
    return _crop_to_box(image, offset_height, offset_width, target_height, target_width)


def _target_infer(image, target_height, target_width, *args, **kwargs):
    return _box_infer(image, 0, 0, target_height, target_width)


def _crop_or_pad(image, target_height, target_width):
    a, is_batch = _image_4d(image)
    th, tw = int(target_height), int(target_width)
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    _, h, w, _ = a.shape
    wd, hd = tw - w, th - h
    cropped = _crop_to_box(a, max(-hd // 2, 0), max(-wd // 2, 0), min(th, h), min(tw, w))
    return _out(np.asarray(_pad_to_box(cropped, max(hd // 2, 0), max(wd // 2, 0), th, tw)),
                is_batch)


@traceable("resize_with_crop_or_pad", batch=_per_image_batch(_crop_or_pad),
           infer=_target_infer)
def resize_with_crop_or_pad(image, target_height, target_width):
    """tf.image.resize_with_crop_or_pad: central crop and / or zero padding (same
    dtype), TensorFlow's offsets."""
    return _crop_or_pad(image, target_height, target_width)


def _with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR,
              antialias=False):
    a, is_batch = _image_4d(image)
    th, tw = int(target_height), int(target_width)
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    f32 = np.float32
    _, h, w, _ = a.shape
    fh, fw, fth, ftw = f32(h), f32(w), f32(th), f32(tw)
    ratio = max(fw / ftw, fh / fth)  # float32 operations, as TensorFlow's graph
    rh_f, rw_f = fh / ratio, fw / ratio
    rh, rw = int(np.floor(rh_f)), int(np.floor(rw_f))
    ph = max(0, int(np.floor((fth - rh_f) / f32(2))))
    pw = max(0, int(np.floor((ftw - rw_f) / f32(2))))
    resized = np.asarray(resize(a, [rh, rw], method, antialias=antialias))
    return _out(np.asarray(_pad_to_box(resized, ph, pw, th, tw)), is_batch)


def _with_pad_infer(image, target_height, target_width, method=ResizeMethod.BILINEAR,
                    antialias=False):
    spec = _target_infer(image, target_height, target_width)
    return Spec(spec.dtype if _method_name(method) == "nearest" else np.float32, spec.shape)


@traceable("resize_with_pad", batch=_per_image_batch(_with_pad), infer=_with_pad_infer)
def resize_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR,
                    antialias=False):
    """tf.image.resize_with_pad: resized (any tf.image.resize method, with TensorFlow's
    float32 size arithmetic) to fit target_height x target_width without distortion,
    then centred and padded with zeros."""
    return _with_pad(image, target_height, target_width, method, antialias)


# ------------------------------------------------------------------ dtype, flips, crops

@traceable("convert_image_dtype", batch="elementwise")
def convert_image_dtype(image, dtype, saturate=False, name=None):
    """tf.image.convert_image_dtype: integer images scale by their maximum (uint8 ->
    float32 multiplies by float32(1/255)), float -> int by (max + 0.5) then cast."""
    a = np.asarray(image)
    d = _dt.numpy_dtype(dtype)
    if a.dtype == d:
        return a.view(Tensor)
    ai, di = a.dtype.kind in "iu", d.kind in "iu"
    if ai and di:
        imax, omax = np.iinfo(a.dtype).max, np.iinfo(d).max
        if imax > omax:
            scaled = a // ((imax + 1) // (omax + 1))
            out = _cast(scaled, d, saturate)
        else:
            out = _cast(a, d, saturate) * d.type((omax + 1) // (imax + 1))
    elif not ai and not di:
        out = a.astype(d)
    elif ai:
        out = a.astype(d) * d.type(1.0 / np.iinfo(a.dtype).max)
    else:
        scaled = a * a.dtype.type(np.iinfo(d).max + 0.5)
        out = _cast(scaled, d, saturate)
    return np.asarray(out, d).view(Tensor)


def _cast(a, d, saturate):
    if saturate:
        info = np.iinfo(d)
        a = np.clip(a, info.min, info.max)
    with np.errstate(invalid="ignore", over="ignore"):
        return a.astype(d)


def _flip(image, axis_from_end, name):
    a = np.asarray(image)
    if a.ndim not in (3, 4):
        raise ValueError("'image' (shape %s) must have either 3 or 4 dimensions." % (a.shape,))
    return np.flip(a, axis=a.ndim - axis_from_end).view(Tensor)


def _flip_batch(axis_from_end):
    def run(image, name=None):
        if isinstance(image, (list, tuple, _batch.DecodedBatch)):
            return [_flip(a, axis_from_end, name) for a in image]
        return np.flip(np.asarray(image), axis=np.ndim(image) - axis_from_end).view(Tensor)
    return run


@traceable("flip_left_right", batch=_flip_batch(2))
def flip_left_right(image, name=None):
    """tf.image.flip_left_right (width axis)."""
    return _flip(image, 2, name)


@traceable("flip_up_down", batch=_flip_batch(3))
def flip_up_down(image, name=None):
    """tf.image.flip_up_down (height axis)."""
    return _flip(image, 3, name)


def _rng(seed):
    return np.random.default_rng(seed)


def random_flip_left_right(image, seed=None):
    """tf.image.random_flip_left_right: each image flipped with probability 1/2. With a
    seed the draws are reproducible (numpy's generator, not TensorFlow's Philox
    stream: the same seed gives other draws than TensorFlow)."""
    a = np.asarray(image)
    rng = _rng(seed)
    if a.ndim == 3:
        return (np.flip(a, 1) if rng.random() < 0.5 else a).view(Tensor)
    if a.ndim != 4:
        raise ValueError("'image' (shape %s) must have either 3 or 4 dimensions." % (a.shape,))
    flips = rng.random(a.shape[0]) < 0.5
    return np.where(flips[:, None, None, None], np.flip(a, 2), a).view(Tensor)


def random_flip_up_down(image, seed=None):
    """tf.image.random_flip_up_down (see random_flip_left_right on seeds)."""
    a = np.asarray(image)
    rng = _rng(seed)
    if a.ndim == 3:
        return (np.flip(a, 0) if rng.random() < 0.5 else a).view(Tensor)
    flips = rng.random(a.shape[0]) < 0.5
    return np.where(flips[:, None, None, None], np.flip(a, 1), a).view(Tensor)


def random_crop(value, size, seed=None, name=None):
    """tf.image.random_crop: a window of `size` at a uniformly random offset
    (reproducible with a seed; not TensorFlow's random stream)."""
    a = np.asarray(value)
    size = [int(s) for s in np.asarray(size).reshape(-1)]
    if len(size) != a.ndim:
        raise ValueError("size must have %d elements, got %d" % (a.ndim, len(size)))
    if any(s > d or s < 0 for s, d in zip(size, a.shape)):
        raise errors.invalid("Need value.shape >= size, got %s >= %s" % (list(a.shape), size))
    rng = _rng(seed)
    offs = [int(rng.integers(0, d - s + 1)) for s, d in zip(size, a.shape)]
    return a[tuple(slice(o, o + s) for o, s in zip(offs, size))].view(Tensor)


@traceable("central_crop")
def central_crop(image, central_fraction):
    """tf.image.central_crop: the central `central_fraction` of height and width."""
    if central_fraction <= 0.0 or central_fraction > 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    a = np.asarray(image)
    if a.ndim not in (3, 4):
        raise ValueError("'image' (shape %s) must have either 3 or 4 dimensions." % (a.shape,))
    if central_fraction == 1.0:
        return a.view(Tensor)
    h, w = a.shape[-3], a.shape[-2]
    top = int((float(h) - float(h) * central_fraction) / 2)
    left = int((float(w) - float(w) * central_fraction) / 2)
    out = a[..., top:h - top, left:w - left, :]
    return out.view(Tensor)


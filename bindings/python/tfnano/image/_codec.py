"""JPEG / PNG / GIF / BMP decoding and JPEG / PNG encoding over lib/image
(tf.io.decode_* / encode_*)."""
import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._ffi import check, ffi, lib, new_error
from .._tensor import Tensor

# Every decoding failure is InvalidArgumentError in TensorFlow.
_AS_INVALID = {lib.TFN_E_CORRUPT: errors.InvalidArgumentError,
               lib.TFN_E_TRUNCATED: errors.InvalidArgumentError,
               lib.TFN_E_LIMIT: errors.InvalidArgumentError}

_DCT = {"": lib.TFN_IMAGE_DCT_FAST, "INTEGER_FAST": lib.TFN_IMAGE_DCT_FAST,
        "INTEGER_ACCURATE": lib.TFN_IMAGE_DCT_ACCURATE}


def contents_bytes(contents, op="DecodeImage"):
    """The encoded bytes of a scalar string tensor (bytes, np.bytes_, 0-d array)."""
    if isinstance(contents, (bytes, bytearray, memoryview)):
        return contents
    if isinstance(contents, np.ndarray):
        if contents.ndim != 0:
            raise errors.InvalidArgumentError(
                None, None, "`contents` must be scalar but got shape%s"
                % (list(contents.shape),))
        contents = contents[()]
        if isinstance(contents, np.ndarray):  # a 0-d Tensor's item
            contents = contents.item()
    if isinstance(contents, np.bytes_):
        return bytes(contents)
    if isinstance(contents, bytes):
        return contents
    if isinstance(contents, str):
        return contents.encode("utf-8")
    raise TypeError("%s: expected a string scalar (bytes), got %s"
                    % (op, type(contents).__name__))


# What a GIF decodes to, by op (tfn_image_gif_frames): "all" frames (decode_gif,
# decode_image), the "first" (expand_animations=False), a "still" one-frame GIF
# (decode_jpeg / decode_png), or "refuse" (a batch of 3-D images).
_GIF = {"first": lib.TFN_GIF_FIRST, "all": lib.TFN_GIF_ALL, "still": lib.TFN_GIF_STILL,
        "refuse": lib.TFN_GIF_REFUSE}


def decode_options(channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
                   dct_method="", crop=None, uint16=False, gif="first"):
    opt = ffi.new("tfn_image_decode_options *")
    opt.gif = _GIF[gif]
    opt.channels = channels or 0
    opt.ratio = ratio
    if dct_method not in _DCT:
        raise errors.InvalidArgumentError(
            None, None, "dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}")
    opt.dct_method = _DCT[dct_method]
    opt.no_fancy_upscaling = 0 if fancy_upscaling else 1
    opt.try_recover_truncated = 1 if try_recover_truncated else 0
    if crop is not None:
        opt.crop = 1
        opt.crop_y, opt.crop_x, opt.crop_height, opt.crop_width = (int(v) for v in crop)
    opt.uint16_output = 1 if uint16 else 0
    return opt


def decode(data, opt):
    """Decodes one image into a new uint8 (or uint16) HWC Tensor; every frame of a GIF
    decoded with gif="all" gives (frames, H, W, 3)."""
    err = new_error()
    info = ffi.new("tfn_image_info *")
    src = ffi.from_buffer(data)
    check(lib.tfn_image_probe(src, len(data), opt, info, err), err, _AS_INVALID)
    dtype = np.uint16 if info.bytes_per_sample == 2 else np.uint8
    shape = (info.out_height, info.out_width, info.out_channels)
    if info.format == lib.TFN_IMAGE_GIF and opt.gif == lib.TFN_GIF_ALL:
        shape = (info.frames,) + shape
    out = np.empty(shape, dtype)
    check(lib.tfn_image_decode(src, len(data), opt, ffi.from_buffer(out), out.nbytes, info,
                               err), err, _AS_INVALID)
    return out.view(Tensor)


def probe(data, opt=None):
    err = new_error()
    info = ffi.new("tfn_image_info *")
    check(lib.tfn_image_probe(ffi.from_buffer(data), len(data),
                              opt if opt is not None else ffi.NULL, info, err), err,
          _AS_INVALID)
    return info


def format_of(data):
    return lib.tfn_image_format_of(ffi.from_buffer(data), len(data))


def _owned_bytes(out, out_len):
    try:
        return bytes(ffi.buffer(out[0], out_len[0]))
    finally:
        lib.tfn_image_free(out[0])


def _image_array(image, op):
    a = np.asarray(image)
    if a.ndim != 3:
        raise errors.InvalidArgumentError(
            None, None, "image must be 3-dimensional%s" % (list(a.shape),))
    return np.ascontiguousarray(a)


def encode_jpeg(image, format="", quality=95, progressive=False,  # noqa: A002
                optimize_size=False, chroma_downsampling=True, density_unit="in",
                x_density=300, y_density=300, xmp_metadata="", name=None):
    """tf.io.encode_jpeg: uint8 HWC (1 or 3 channels) to JPEG bytes."""
    a = _image_array(image, "EncodeJpeg")
    if a.dtype != np.uint8:
        raise TypeError("encode_jpeg: image must be uint8, got %s" % a.dtype)
    if xmp_metadata:
        raise NotImplementedError("encode_jpeg: xmp_metadata is not supported by tfnano")
    channels = a.shape[2]
    if format == "grayscale":
        if channels != 1:
            raise errors.InvalidArgumentError(None, None, "image must have 1 channel for grayscale")
    elif format == "rgb":
        if channels != 3:
            raise errors.InvalidArgumentError(None, None, "image must have 3 channels for rgb")
    elif format != "":
        raise errors.InvalidArgumentError(None, None, "format must be '', grayscale or rgb")
    if channels not in (1, 3):
        raise errors.InvalidArgumentError(
            None, None, "image must have 1 or 3 channels, got %s" % (list(a.shape),))
    if density_unit not in ("in", "cm"):
        raise errors.InvalidArgumentError(None, None, "density_unit must be 'in' or 'cm'")
    opt = ffi.new("tfn_image_jpeg_options *")
    opt.quality = quality
    opt.progressive = bool(progressive)
    opt.optimize_size = bool(optimize_size)
    opt.no_chroma_downsampling = not chroma_downsampling
    opt.density_unit = 2 if density_unit == "cm" else 1
    opt.x_density = x_density
    opt.y_density = y_density
    out = ffi.new("uint8_t **")
    out_len = ffi.new("size_t *")
    err = new_error()
    check(lib.tfn_image_encode_jpeg(ffi.from_buffer(a), a.shape[0], a.shape[1], channels,
                                    opt, out, out_len, err), err)
    return _owned_bytes(out, out_len)


def encode_png(image, compression=-1, name=None):
    """tf.io.encode_png: uint8 or uint16 HWC (1-4 channels) to PNG bytes."""
    a = _image_array(image, "EncodePng")
    if a.dtype not in (np.uint8, np.uint16):
        raise TypeError("encode_png: image must be uint8 or uint16, got %s" % a.dtype)
    if not 1 <= a.shape[2] <= 4:
        raise errors.InvalidArgumentError(
            None, None, "image must have 1, 2, 3, or 4 channels, got %d" % a.shape[2])
    out = ffi.new("uint8_t **")
    out_len = ffi.new("size_t *")
    err = new_error()
    check(lib.tfn_image_encode_png(ffi.from_buffer(a), a.shape[0], a.shape[1], a.shape[2],
                                   16 if a.dtype == np.uint16 else 8, compression, out,
                                   out_len, err), err)
    return _owned_bytes(out, out_len)


def as_np_dtype(dtype):
    return np.dtype(_dt.as_dtype(dtype).as_numpy_dtype) if not isinstance(dtype, np.dtype) \
        else dtype

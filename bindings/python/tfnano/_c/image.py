"""lib/image from Python: JPEG / PNG / GIF / BMP decoding and JPEG / PNG encoding
(tf.io.decode_* / encode_*), and the threaded batch calls (decode a list, resize a
list into one dense array, both fused with normalisation) that tfnano.image and the
traced tf.data stages run on."""
import numpy as np

from .. import errors
from . import check, ffi, lib, new_error
from .outbuf import POOL
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
            raise errors.invalid("image must have 1 channel for grayscale")
    elif format == "rgb":
        if channels != 3:
            raise errors.invalid("image must have 3 channels for rgb")
    elif format != "":
        raise errors.invalid("format must be '', grayscale or rgb")
    if channels not in (1, 3):
        raise errors.InvalidArgumentError(
            None, None, "image must have 1 or 3 channels, got %s" % (list(a.shape),))
    if density_unit not in ("in", "cm"):
        raise errors.invalid("density_unit must be 'in' or 'cm'")
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


def resize(img, nh, nw, method_code, nearest=False):
    """One HWC image (uint8, else float32) resized to (nh, nw) with C resize method
    `method_code`; float32 out, or the input's dtype for nearest."""
    h, w, c = img.shape
    if img.dtype == np.uint8:
        src, kind = np.ascontiguousarray(img), lib.TFN_IMAGE_UINT8
    else:
        src, kind = np.ascontiguousarray(img, np.float32), lib.TFN_IMAGE_FLOAT32
    out = np.empty((nh, nw, c), src.dtype if nearest else np.float32)
    err = new_error()
    check(lib.tfn_image_resize(ffi.from_buffer(src), kind, h, w, c, ffi.from_buffer(out), nh,
                               nw, method_code, err), err)
    return out


# ---- batches (threaded C calls over lists of images)

METHODS = {"bilinear": lib.TFN_RESIZE_BILINEAR, "nearest": lib.TFN_RESIZE_NEAREST,
            "area": lib.TFN_RESIZE_AREA, "bicubic": lib.TFN_RESIZE_BICUBIC,
            "lanczos3": lib.TFN_RESIZE_LANCZOS3, "lanczos5": lib.TFN_RESIZE_LANCZOS5,
            "gaussian": lib.TFN_RESIZE_GAUSSIAN,
            "mitchellcubic": lib.TFN_RESIZE_MITCHELLCUBIC}


def method_code(method, antialias=False):
    """The C resize method of tf.image.resize(method, antialias): nearest and area
    ignore antialias, as TensorFlow does."""
    if method not in METHODS:
        raise ValueError("Resize method is not implemented: %s" % (method,))
    code = METHODS[method]
    if antialias and method not in ("nearest", "area"):
        code |= lib.TFN_RESIZE_ANTIALIAS
    return code


DTYPES = {"float32": (lib.TFN_IMAGE_FLOAT32, np.float32),
           "bfloat16": (lib.TFN_IMAGE_BFLOAT16, np.uint16),
           "uint8": (lib.TFN_IMAGE_UINT8, np.uint8)}


def bytes_list(contents):
    if isinstance(contents, np.ndarray):
        contents = contents.reshape(-1).tolist()
    return [contents_bytes(c) for c in contents]


def _pointers(items):
    """(const void *[n], size_t[n], keep-alive list) for a list of byte strings."""
    bufs = [ffi.from_buffer(b) for b in items]
    ptrs = ffi.new("const void *[]", bufs) if bufs else ffi.NULL
    lens = ffi.new("size_t[]", [len(b) for b in items]) if items else ffi.NULL
    return ptrs, lens, bufs


def decode_list(contents, opt, num_threads=0, on_error="raise"):
    """Decodes every image on worker threads: a list of uint8 HWC Tensors (None for a
    record skipped with on_error="skip")."""
    items = bytes_list(contents)
    n = len(items)
    if n == 0:
        return []
    ptrs, lens, keep = _pointers(items)
    pixels = ffi.new("uint8_t *[]", n)
    infos = ffi.new("tfn_image_info[]", n)
    status = ffi.new("int32_t[]", n)
    err = new_error()
    check(lib.tfn_image_decode_batch(ptrs, lens, n, opt, _policy(on_error), num_threads,
                                     pixels, infos, status, err), err, _AS_INVALID)
    del keep
    out = []
    for i in range(n):
        if pixels[i] == ffi.NULL:
            out.append(None)
            continue
        info = infos[i]
        shape = (info.out_height, info.out_width, info.out_channels)
        block = ffi.gc(pixels[i], lib.tfn_image_free)
        dtype = np.uint16 if info.bytes_per_sample == 2 else np.uint8
        nbytes = shape[0] * shape[1] * shape[2] * info.bytes_per_sample
        out.append(np.frombuffer(ffi.buffer(block, nbytes), dtype).reshape(shape).view(Tensor))
    return out


def _policy(on_error):
    if on_error not in ("raise", "skip"):
        raise ValueError("on_error must be 'raise' or 'skip', got %r" % (on_error,))
    return lib.TFN_IMAGE_SKIP if on_error == "skip" else lib.TFN_IMAGE_RAISE


def batch_options(size, channels, method="bilinear", dtype="float32", layout="NHWC",
                  scale=None, mean=None, std=None, divide_by=None, dct_scale=False,
                  on_error="raise", num_threads=0, decode_opt=None, antialias=False):
    """The C batch options. Values: ((pixel - mean / scale) * scale / std), or
    pixel / divide_by exactly as TensorFlow's x / 255.0."""
    bo = ffi.new("tfn_image_batch_options *")
    if decode_opt is not None:
        bo.decode = decode_opt[0]
    bo.decode.channels = channels
    bo.height, bo.width = (int(v) for v in size)
    bo.method = method_code(method, antialias)
    if dtype not in DTYPES:
        raise ValueError("dtype must be one of %s, got %r" % (sorted(DTYPES), dtype))
    bo.dtype = DTYPES[dtype][0]
    if layout not in ("NHWC", "NCHW"):
        raise ValueError("layout must be 'NHWC' or 'NCHW', got %r" % (layout,))
    bo.nchw = layout == "NCHW"
    bo.dct_scale = bool(dct_scale)
    bo.on_error = _policy(on_error)
    bo.num_threads = num_threads
    if divide_by is not None:
        bo.divide = 1
        for k in range(4):
            bo.mul[k] = divide_by
    elif scale is not None or mean is not None or std is not None:
        s = 1.0 if scale is None else float(scale)
        m = np.broadcast_to(np.asarray(0.0 if mean is None else mean, np.float64), (channels,))
        d = np.broadcast_to(np.asarray(1.0 if std is None else std, np.float64), (channels,))
        for k in range(channels):
            bo.sub[k] = m[k] / s
            bo.mul[k] = s / d[k]
    return bo


def _out_array(n, bo, channels):
    h, w = bo.height, bo.width
    shape = (n, channels, h, w) if bo.nchw else (n, h, w, channels)
    np_dtype = np.dtype({lib.TFN_IMAGE_FLOAT32: np.float32, lib.TFN_IMAGE_BFLOAT16: np.uint16,
                         lib.TFN_IMAGE_UINT8: np.uint8}[bo.dtype])
    nbytes = int(np.prod(shape)) * np_dtype.itemsize
    if nbytes == 0:
        return np.empty(shape, np_dtype)
    # A recycled block: a fresh 38 MB batch costs ~10k page faults.
    return POOL.take(nbytes)[:nbytes].view(np_dtype).reshape(shape)


def _bf16(out, bo):
    if bo.dtype != lib.TFN_IMAGE_BFLOAT16:
        return out
    try:
        import ml_dtypes
        return out.view(ml_dtypes.bfloat16)
    except ImportError:
        return out  # raw bfloat16 bits as uint16 (ml_dtypes not installed)


def decode_resize(contents, bo, status=None):
    """The fused C batch: a dense array (and per-record statuses)."""
    items = bytes_list(contents)
    n = len(items)
    out = _out_array(n, bo, bo.decode.channels)
    ptrs, lens, keep = _pointers(items)
    st = ffi.new("int32_t[]", max(n, 1))
    err = new_error()
    check(lib.tfn_image_decode_resize_batch(ptrs, lens, n, bo, ffi.from_buffer(out) if n else
                                            ffi.NULL, out.nbytes, st, err), err,
          _AS_INVALID)
    del keep
    if status is not None:
        status.extend(int(st[i]) for i in range(n))
    return _bf16(out, bo)


def resize_list(images, bo):
    """uint8 HWC images of any sizes (same channel count) into one dense array."""
    n = len(images)
    arrs = [np.ascontiguousarray(a, np.uint8) for a in images]
    channels = arrs[0].shape[2] if n else bo.decode.channels
    if any(a.ndim != 3 or a.shape[2] != channels for a in arrs):
        raise errors.invalid("images of a batch must be HWC with "
                             "the same number of channels")
    out = _out_array(n, bo, channels)
    if n == 0:
        return out
    bufs = [ffi.from_buffer(a) for a in arrs]
    ptrs = ffi.new("const uint8_t *[]", bufs)
    hs = ffi.new("uint32_t[]", [a.shape[0] for a in arrs])
    ws = ffi.new("uint32_t[]", [a.shape[1] for a in arrs])
    err = new_error()
    check(lib.tfn_image_resize_batch(ptrs, hs, ws, channels, n, bo, ffi.from_buffer(out),
                                     out.nbytes, err), err)
    return _bf16(out, bo)

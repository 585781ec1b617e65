"""Batches of images through lib/image's threaded C functions: decode a list of
encoded images, resize a list of decoded ones into one dense array, or both fused with
normalisation (``decode_batch``, the PyTorch-style entry point), and the batch rules
that let a traced tf.data map function run these stages once per batch."""
import numpy as np

from .. import errors
from .._ffi import check, ffi, lib, new_error
from .._outbuf import POOL
from .._tensor import Tensor
from . import _codec

_METHODS = {"bilinear": lib.TFN_RESIZE_BILINEAR, "nearest": lib.TFN_RESIZE_NEAREST,
            "area": lib.TFN_RESIZE_AREA, "bicubic": lib.TFN_RESIZE_BICUBIC,
            "lanczos3": lib.TFN_RESIZE_LANCZOS3, "lanczos5": lib.TFN_RESIZE_LANCZOS5,
            "gaussian": lib.TFN_RESIZE_GAUSSIAN,
            "mitchellcubic": lib.TFN_RESIZE_MITCHELLCUBIC}


def method_code(method, antialias=False):
    """The C resize method of tf.image.resize(method, antialias): nearest and area
    ignore antialias, as TensorFlow does."""
    if method not in _METHODS:
        raise ValueError("Resize method is not implemented: %s" % (method,))
    code = _METHODS[method]
    if antialias and method not in ("nearest", "area"):
        code |= lib.TFN_RESIZE_ANTIALIAS
    return code
_DTYPES = {"float32": (lib.TFN_IMAGE_FLOAT32, np.float32),
           "bfloat16": (lib.TFN_IMAGE_BFLOAT16, np.uint16),
           "uint8": (lib.TFN_IMAGE_UINT8, np.uint8)}


# Process-wide choices for traced pipelines (set through enable_dct_scaling()).
SETTINGS = {"dct_scaling": False}


def enable_dct_scaling(enabled=True):
    """Lets a traced ``decode_jpeg -> resize`` (tf.data map + batch) decode JPEGs at
    1/2, 1/4 or 1/8 scale in the DCT domain whenever the scaled image is still at
    least the resize target. Faster on large photos; the values then differ slightly
    from TensorFlow's (decode at full size, then resize). Off by default. Returns the
    previous setting."""
    old = SETTINGS["dct_scaling"]
    SETTINGS["dct_scaling"] = bool(enabled)
    return old


def _bytes_list(contents):
    if isinstance(contents, np.ndarray):
        contents = contents.reshape(-1).tolist()
    return [_codec.contents_bytes(c) for c in contents]


def _pointers(items):
    """(const void *[n], size_t[n], keep-alive list) for a list of byte strings."""
    bufs = [ffi.from_buffer(b) for b in items]
    ptrs = ffi.new("const void *[]", bufs) if bufs else ffi.NULL
    lens = ffi.new("size_t[]", [len(b) for b in items]) if items else ffi.NULL
    return ptrs, lens, bufs


def decode_list(contents, opt, num_threads=0, on_error="raise"):
    """Decodes every image on worker threads: a list of uint8 HWC Tensors (None for a
    record skipped with on_error="skip")."""
    items = _bytes_list(contents)
    n = len(items)
    if n == 0:
        return []
    ptrs, lens, keep = _pointers(items)
    pixels = ffi.new("uint8_t *[]", n)
    infos = ffi.new("tfn_image_info[]", n)
    status = ffi.new("int32_t[]", n)
    err = new_error()
    check(lib.tfn_image_decode_batch(ptrs, lens, n, opt, _policy(on_error), num_threads,
                                     pixels, infos, status, err), err, _codec._AS_INVALID)
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
    if dtype not in _DTYPES:
        raise ValueError("dtype must be one of %s, got %r" % (sorted(_DTYPES), dtype))
    bo.dtype = _DTYPES[dtype][0]
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
    items = _bytes_list(contents)
    n = len(items)
    out = _out_array(n, bo, bo.decode.channels)
    ptrs, lens, keep = _pointers(items)
    st = ffi.new("int32_t[]", max(n, 1))
    err = new_error()
    check(lib.tfn_image_decode_resize_batch(ptrs, lens, n, bo, ffi.from_buffer(out) if n else
                                            ffi.NULL, out.nbytes, st, err), err,
          _codec._AS_INVALID)
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
        raise errors.InvalidArgumentError(None, None, "images of a batch must be HWC with "
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


def decode_batch(contents, size=None, channels=3, layout="NHWC", dtype="float32",
                 method="bilinear", scale=1.0 / 255.0, mean=None, std=None, dct_scale=False,
                 on_error="raise", num_threads=0, return_status=False, antialias=False):
    """Decodes (and resizes) a batch of JPEG / PNG / GIF / BMP images on worker threads.

    The entry point for PyTorch users and anyone outside tf.data::

        x = tfnano.image.decode_batch(list_of_jpeg_bytes, size=(224, 224),
                                      layout="NCHW")   # float32 in [0, 1]

    - ``size=None``: a list of uint8 HWC arrays, each its own size.
    - ``size=(h, w)``: one dense array (n, h, w, C) or (n, C, h, w), resized with
      ``method`` (tf.image.resize's names: "bilinear", its default, "nearest",
      "area", "bicubic", "lanczos3", "lanczos5", "gaussian", "mitchellcubic";
      ``antialias=True`` as tf.image.resize's).
    - values: ``(pixel * scale - mean) / std`` per channel (``scale=1/255`` as
      ToTensor; exactly TensorFlow's ``x / 255.0`` when mean and std are None);
      ``dtype`` "float32", "bfloat16" or "uint8" (``scale=None`` keeps 0..255).
    - ``dct_scale=True`` lets JPEG decode at 1/2, 1/4 or 1/8 size when the image
      stays at least ``size`` (several times faster on big photos; values then
      differ slightly from decode-then-resize).
    - ``on_error="skip"`` zero-fills records that fail (corrupt, truncated, not an
      image); with ``return_status=True`` the per-record statuses (0 = ok) come back
      too. "raise" raises InvalidArgumentError naming the first bad record.
    - ``num_threads=0`` uses one thread per CPU; the GIL is released.
    """
    if size is None:
        opt = _codec.decode_options(channels=channels)
        imgs = decode_list(contents, opt, num_threads=num_threads, on_error=on_error)
        return imgs
    divide = None
    if dtype != "uint8" and scale is not None and mean is None and std is None \
            and abs(scale - 1.0 / 255.0) < 1e-15:
        divide, scale = 255.0, None
    bo = batch_options(size, channels, method=method, dtype=dtype, layout=layout,
                       scale=scale, mean=mean, std=std, divide_by=divide,
                       dct_scale=dct_scale, on_error=on_error, num_threads=num_threads,
                       antialias=antialias)
    status = [] if return_status else None
    out = decode_resize(contents, bo, status)
    return (out, np.asarray(status, np.int32)) if return_status else out


def _as_fused_batch(imgs):
    """Images of differing shapes batched as TensorFlow's fused map-and-batch batches
    them (these batches come from traced maps): the first image's shape is the
    batch's; an image with another number of values fails the batch, one with as many
    values in another shape is copied in with the first's shape."""
    from ..data.structure import tf_shape
    want = imgs[0].shape
    out = [imgs[0]]
    for a in imgs[1:]:
        if a.shape != want:
            if a.size != imgs[0].size:
                raise errors.InvalidArgumentError(
                    None, None, "Cannot add tensor to the batch: number of elements does "
                    "not match. Shapes are: [tensor]: %s, [batch]: %s"
                    % (tf_shape(a.shape), tf_shape(want)))
            a = np.reshape(np.asarray(a), want)
        out.append(a)
    return out


class DecodedBatch:
    """The images a batched ``decode_jpeg`` / ``decode_image`` stage produced, decoded
    on first use. A batched ``resize`` of it decodes and resizes in one threaded C call
    without keeping the full-size images. Indexing and iteration give the per-record
    uint8 arrays; ``np.asarray`` stacks them (all must have the same shape)."""

    def __init__(self, contents, opt_kwargs, post=None, op=None):
        self.contents = _bytes_list(contents)
        self.opt_kwargs = opt_kwargs
        self.post = post  # per-image function applied after decoding (dtype changes)
        self.op = op      # DecodeJpeg / DecodePng refuse BMP input, as TensorFlow does
        self._images = None

    def check(self):
        """Raises what the per-record op raises for a BMP record (a wrong op), or for a
        JPEG record with channels=4 through decode_jpeg."""
        if self.op is not None:
            rgba = self.op == "DecodeJpeg" and self.opt_kwargs.get("channels") == 4
            for c in self.contents:
                if c[:2] == b"BM":
                    raise errors.InvalidArgumentError(
                        None, None, "Trying to decode BMP format using a wrong op. Use "
                        "`decode_bmp` or `decode_image` instead. Op used: %s" % self.op)
                if rgba and c[:3] == b"\xff\xd8\xff":
                    raise errors.InvalidArgumentError(None, None,
                                                      "JPEG does not support 4 channels")

    def images(self):
        if self._images is None:
            self.check()
            imgs = decode_list(self.contents, _codec.decode_options(**self.opt_kwargs))
            if self.post is not None:
                imgs = [self.post(a) for a in imgs]
            self._images = imgs
        return self._images

    def __len__(self):
        return len(self.contents)

    def __getitem__(self, i):
        return self.images()[i]

    def __iter__(self):
        return iter(self.images())

    def __array__(self, dtype=None, copy=None):
        imgs = self.images()
        if imgs and len({a.shape for a in imgs}) > 1:
            imgs = _as_fused_batch(imgs)
        out = np.stack([np.asarray(a) for a in imgs]) if imgs else np.empty((0, 0, 0, 0), np.uint8)
        return out if dtype is None else out.astype(dtype)

    @property
    def shape(self):
        return np.asarray(self).shape

    @property
    def dtype(self):
        return np.asarray(self).dtype

    @property
    def ndim(self):
        return 4

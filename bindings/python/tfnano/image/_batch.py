"""Batches of images through lib/image's threaded C functions: decode a list of
encoded images, resize a list of decoded ones into one dense array, or both fused with
normalisation (``decode_batch``, the PyTorch-style entry point), and the batch rules
that let a traced tf.data map function run these stages once per batch."""
import numpy as np

from .. import errors
from .._c import image as _codec
from .._c.image import (DTYPES, METHODS, batch_options, bytes_list, decode_list,  # noqa: F401
                        decode_resize, method_code, resize_list)
from .._tensor import Tensor, tf_shape

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
        self.contents = bytes_list(contents)
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

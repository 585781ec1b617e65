"""tfnano.image against TensorFlow's own image ops, per op and option: decode_jpeg
(dct_method, channels, ratio, fancy_upscaling), decode_and_crop_jpeg, decode_png and
decode_image (channels, uint8/uint16/float32 on PNG kinds L, LA, RGB, RGBA, palette
with tRNS, 16-bit), extract_jpeg_shape, resize (every method, antialias on and off,
uint8 / float32 / float64 / int32, random sizes up and down, preserve_aspect_ratio),
resize_with_pad, resize_with_crop_or_pad, pad / crop_to_bounding_box,
convert_image_dtype, central_crop, flips, encode_jpeg / encode_png (byte-identical),
and the errors for bad input. Every value
comparison is exact: both sides run libjpeg-turbo / libpng with the same settings and
the resize arithmetic is TensorFlow's float order (docs/images.md)."""
import io
import os
import sys
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
tf = pytest.importorskip("tensorflow")
Image = pytest.importorskip("PIL.Image")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
import tfnano.image as tfi  # noqa: E402
from tfnano import errors  # noqa: E402


def scene(h, w, seed=0):
    """A smooth photo-like RGB image (gradients and waves), as JPEG is meant for."""
    y, x = np.mgrid[0:h, 0:w]
    planes = [40 + 150 * x / w + 50 * y / h + 20 * k + 30 * np.sin(x / 7 + k + seed) *
              np.cos(y / 9) for k in range(3)]
    return np.clip(np.stack(planes, -1), 0, 255).astype(np.uint8)


def pil_bytes(arr, fmt, mode=None, **kw):
    img = Image.fromarray(arr)
    if mode:
        img = img.convert(mode)
    buf = io.BytesIO()
    img.save(buf, fmt, **kw)
    return buf.getvalue()


RGB = scene(123, 157)
JPEGS = {
    "q90_420": pil_bytes(RGB, "JPEG", quality=90),
    "q75_444": pil_bytes(RGB, "JPEG", quality=75, subsampling=0),
    "progressive": pil_bytes(RGB, "JPEG", quality=85, progressive=True),
    "gray": pil_bytes(RGB, "JPEG", "L", quality=90),
    "cmyk": pil_bytes(RGB, "JPEG", "CMYK", quality=90),
    "restart": pil_bytes(scene(64, 80, 2), "JPEG", quality=95),
}


def same(a, b):
    """Equal dtype, shape and values; `b` (TensorFlow) may be a callable, and when it
    raises InvalidArgumentError tfnano (callable `a`) must raise it too."""
    if callable(b):
        try:
            b = b()
        except tf.errors.InvalidArgumentError:
            with pytest.raises(errors.InvalidArgumentError):
                a()
            return
        a = a()
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, a.shape, b.dtype, b.shape)
    assert np.array_equal(a, b), "max abs diff %g" % np.abs(a.astype(float) - b).max()


@pytest.mark.parametrize("kind", sorted(JPEGS))
@pytest.mark.parametrize("channels", [0, 1, 3])
@pytest.mark.parametrize("dct", ["", "INTEGER_FAST", "INTEGER_ACCURATE"])
def test_decode_jpeg(kind, channels, dct):
    data = JPEGS[kind]
    same(lambda: tfi.decode_jpeg(data, channels=channels, dct_method=dct),
         lambda: tf.io.decode_jpeg(data, channels=channels, dct_method=dct))


@pytest.mark.parametrize("kind", ["q90_420", "q75_444", "gray"])
@pytest.mark.parametrize("ratio", [1, 2, 4, 8])
@pytest.mark.parametrize("fancy", [True, False])
def test_decode_jpeg_ratio_fancy(kind, ratio, fancy):
    data = JPEGS[kind]
    same(tfi.decode_jpeg(data, ratio=ratio, fancy_upscaling=fancy),
         tf.io.decode_jpeg(data, ratio=ratio, fancy_upscaling=fancy))


@pytest.mark.parametrize("kind", ["q90_420", "q75_444", "cmyk"])
@pytest.mark.parametrize("window", [[0, 0, 123, 157], [5, 9, 40, 50], [17, 33, 100, 100],
                                    [64, 80, 59, 77], [122, 156, 1, 1]])
def test_decode_and_crop_jpeg(kind, window):
    data = JPEGS[kind]
    same(tfi.decode_and_crop_jpeg(data, window), tf.io.decode_and_crop_jpeg(data, window))


@pytest.mark.parametrize("kind", sorted(JPEGS))
def test_extract_jpeg_shape(kind):
    same(tfi.extract_jpeg_shape(JPEGS[kind]), tf.io.extract_jpeg_shape(JPEGS[kind]))
    same(tfi.extract_jpeg_shape(JPEGS[kind], "int64"),
         tf.io.extract_jpeg_shape(JPEGS[kind], tf.int64))


PNG_KINDS = {
    "L": pil_bytes(RGB, "PNG", "L"),
    "LA": pil_bytes(RGB, "PNG", "LA"),
    "RGB": pil_bytes(RGB, "PNG"),
    "RGBA": pil_bytes(np.dstack([RGB, RGB[..., :1]]), "PNG"),
    "P_tRNS": pil_bytes(RGB, "PNG", "P", transparency=0),
    "I16": pil_bytes((RGB[..., 0].astype(np.uint16) * 251), "PNG"),
    "interlaced": pil_bytes(RGB, "PNG", interlace=1),
}


@pytest.mark.parametrize("kind", sorted(PNG_KINDS))
@pytest.mark.parametrize("channels", [0, 1, 3, 4])
@pytest.mark.parametrize("dtype", ["uint8", "uint16"])
def test_decode_png(kind, channels, dtype):
    data = PNG_KINDS[kind]
    same(tfi.decode_png(data, channels=channels, dtype=dtype),
         tf.io.decode_png(data, channels=channels, dtype=getattr(tf, dtype)))


@pytest.mark.parametrize("source", ["jpeg", "png", "png16"])
@pytest.mark.parametrize("dtype", ["uint8", "uint16", "float32"])
@pytest.mark.parametrize("channels", [None, 1, 3])
def test_decode_image(source, dtype, channels):
    data = {"jpeg": JPEGS["q90_420"], "png": PNG_KINDS["RGB"], "png16": PNG_KINDS["I16"]}[source]
    same(tfi.decode_image(data, channels=channels, dtype=dtype),
         tf.io.decode_image(data, channels=channels, dtype=getattr(tf, dtype)))


def test_decode_jpeg_reads_png_and_png_reads_jpeg():
    same(tfi.decode_jpeg(PNG_KINDS["RGB"]), tf.io.decode_jpeg(PNG_KINDS["RGB"]))
    same(tfi.decode_png(JPEGS["q90_420"]), tf.io.decode_png(JPEGS["q90_420"]))
    same(tfi.decode_png(JPEGS["q90_420"], dtype="uint16"),
         tf.io.decode_png(JPEGS["q90_420"], dtype=tf.uint16))


@pytest.mark.parametrize("bad", ["empty", "truncated", "garbage", "magic_only", "bad_scan"])
@pytest.mark.parametrize("op", ["decode_jpeg", "decode_image", "decode_png"])
def test_bad_input_raises_invalid_argument(bad, op):
    j = JPEGS["q90_420"]
    data = {"empty": b"", "truncated": j[: len(j) // 2], "garbage": b"hello world",
            "magic_only": j[:3], "bad_scan": j[:200] + b"\xff\xd9"}[bad]
    with pytest.raises(tf.errors.InvalidArgumentError):
        getattr(tf.io, op)(data)
    with pytest.raises(errors.InvalidArgumentError):
        getattr(tfi, op)(data)


SIZES = [[224, 224], [50, 60], [300, 100], [123, 157], [1, 1], [7, 500]]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("method", ["bilinear", "nearest", "area"])
@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64", "int32"])
def test_resize(size, method, dtype):
    img = tf.io.decode_jpeg(JPEGS["q90_420"]).numpy()
    x = img.astype(dtype) / (255 if dtype.startswith("float") else 1)
    x = x.astype(dtype)
    same(tfi.resize(x, size, method=method), tf.image.resize(x, size, method=method))


@pytest.mark.parametrize("size", [[100, 100], [50, 300], [400, 10]])
def test_resize_preserve_aspect_ratio_and_batches(size):
    img = tf.io.decode_jpeg(JPEGS["q90_420"]).numpy()
    same(tfi.resize(img, size, preserve_aspect_ratio=True),
         tf.image.resize(img, size, preserve_aspect_ratio=True))
    batch = np.stack([img, img[::-1]])
    same(tfi.resize(batch, size), tf.image.resize(batch, size))


def test_resize_method_enum_and_unknown():
    img = RGB
    for name in ("NEAREST_NEIGHBOR", "AREA", "BICUBIC", "LANCZOS3", "LANCZOS5", "GAUSSIAN",
                 "MITCHELLCUBIC", "BILINEAR"):
        same(tfi.resize(img, [30, 40], getattr(tfi.ResizeMethod, name)),
             tf.image.resize(img, [30, 40], getattr(tf.image.ResizeMethod, name)))
    with pytest.raises(ValueError, match="Resize method is not implemented: cubic"):
        tf.image.resize(img, [30, 40], "cubic")
    with pytest.raises(ValueError, match="Resize method is not implemented: cubic"):
        tfi.resize(img, [30, 40], "cubic")
    for size in ([0, 5], [-1, 5]):
        same(lambda: tfi.resize(img, size, "lanczos3"),
             lambda: tf.image.resize(img, size, "lanczos3"))


FILTERS = ["bicubic", "lanczos3", "lanczos5", "gaussian", "mitchellcubic"]
ALL_METHODS = FILTERS + ["bilinear", "nearest", "area"]


def random_image(rng, h, w, c, dtype):
    x = rng.integers(0, 256, (h, w, c))
    if dtype == "uint8":
        return x.astype(np.uint8)
    if dtype == "int32":
        return (x * 37 - 1000).astype(np.int32)
    return (x / 255.0 * (1.7 if dtype == "float64" else 1.0) - 0.2).astype(dtype)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("antialias", [False, True])
def test_resize_methods_random_sizes(seed, method, antialias):
    """Every method and antialias setting on random sizes up and down (1 to 300 pixels,
    ratios up to ~50x), 1 / 3 / 4 channels, uint8 / float32 / float64 / int32 inputs,
    3-D and 4-D: exactly TensorFlow's values (ResizeBicubic's table for bicubic,
    ScaleAndTranslate for the other filters and antialias)."""
    rng = np.random.default_rng(1000 * seed + len(method) + antialias)
    for trial in range(4):
        h, w = (int(v) for v in rng.integers(1, 300 if trial == 0 else 80, 2))
        oh, ow = (int(v) for v in rng.integers(1, 260 if trial == 1 else 90, 2))
        c = int(rng.choice([1, 3, 4]))
        dtype = str(rng.choice(["uint8", "float32", "float64", "int32"]))
        x = random_image(rng, h, w, c, dtype)
        same(tfi.resize(x, [oh, ow], method=method, antialias=antialias),
             tf.image.resize(x, [oh, ow], method=method, antialias=antialias))
    batch = np.stack([x, x[::-1]])
    same(tfi.resize(batch, [oh, ow], method=method, antialias=antialias),
         tf.image.resize(batch, [oh, ow], method=method, antialias=antialias))


@pytest.mark.parametrize("method", FILTERS + ["bilinear"])
@pytest.mark.parametrize("size", [[224, 224], [37, 500], [768, 1024]])
def test_resize_filters_photo(method, size):
    """A decoded photo down to 224 (antialiased and not), to a thin strip, and up."""
    img = tf.io.decode_jpeg(JPEGS["q90_420"]).numpy()
    big = np.asarray(tf.image.resize(img, [512, 700], method="nearest"))
    for aa in (False, True):
        same(tfi.resize(big, size, method=method, antialias=aa),
             tf.image.resize(big, size, method=method, antialias=aa))
    same(tfi.resize(img, size, method=method, preserve_aspect_ratio=True),
         tf.image.resize(img, size, method=method, preserve_aspect_ratio=True))


@pytest.mark.parametrize("method", ["bilinear", "nearest", "bicubic", "lanczos3", "area"])
@pytest.mark.parametrize("antialias", [False, True])
def test_resize_with_pad(method, antialias):
    rng = np.random.default_rng(7 + len(method))
    for _ in range(8):
        h, w = (int(v) for v in rng.integers(3, 90, 2))
        th, tw = (int(v) for v in rng.integers(3, 120, 2))
        x = random_image(rng, h, w, 3, "uint8")
        same(lambda: tfi.resize_with_pad(x, th, tw, method=method, antialias=antialias),
             lambda: tf.image.resize_with_pad(x, th, tw, method=method, antialias=antialias))
        batch = np.stack([x, x[:, ::-1]])
        same(lambda: tfi.resize_with_pad(batch, th, tw, method, antialias),
             lambda: tf.image.resize_with_pad(batch, th, tw, method, antialias))


def test_crop_and_pad_to_bounding_box():
    rng = np.random.default_rng(11)
    for _ in range(20):
        h, w = (int(v) for v in rng.integers(1, 40, 2))
        th, tw = (int(v) for v in rng.integers(1, 50, 2))
        x = random_image(rng, h, w, 2, "float32")
        same(tfi.resize_with_crop_or_pad(x, th, tw), tf.image.resize_with_crop_or_pad(x, th, tw))
        oh, ow = (int(v) for v in rng.integers(0, 5, 2))
        if th >= h + oh and tw >= w + ow:
            same(tfi.pad_to_bounding_box(x, oh, ow, th, tw),
                 tf.image.pad_to_bounding_box(x, oh, ow, th, tw))
        if th + oh <= h and tw + ow <= w:
            same(tfi.crop_to_bounding_box(x, oh, ow, th, tw),
                 tf.image.crop_to_bounding_box(x, oh, ow, th, tw))
    x = np.zeros((5, 6, 1), np.uint8)
    for args in [(0, 0, 4, 6), (-1, 0, 9, 9), (2, 0, 6, 6)]:
        with pytest.raises(ValueError):
            tf.image.pad_to_bounding_box(x, *args)
        with pytest.raises(ValueError):
            tfi.pad_to_bounding_box(x, *args)
    for args in [(0, 0, 6, 6), (0, -1, 2, 2), (0, 0, 0, 2)]:
        with pytest.raises(ValueError):
            tf.image.crop_to_bounding_box(x, *args)
        with pytest.raises(ValueError):
            tfi.crop_to_bounding_box(x, *args)


@pytest.mark.parametrize("src,dst", [("uint8", "float32"), ("uint8", "float64"),
                                     ("uint8", "uint16"), ("uint8", "int32"),
                                     ("float32", "uint8"), ("float32", "uint16"),
                                     ("uint16", "uint8"), ("int32", "uint8"),
                                     ("float32", "float64"), ("uint8", "uint8")])
@pytest.mark.parametrize("saturate", [False, True])
def test_convert_image_dtype(src, dst, saturate):
    img = tf.io.decode_jpeg(JPEGS["q90_420"])
    x = tf.image.convert_image_dtype(img, getattr(tf, src)).numpy()
    same(tfi.convert_image_dtype(x, dst, saturate=saturate),
         tf.image.convert_image_dtype(x, getattr(tf, dst), saturate=saturate))


@pytest.mark.parametrize("fraction", [1.0, 0.5, 0.37, 0.875, 0.01])
def test_central_crop(fraction):
    same(tfi.central_crop(RGB, fraction), tf.image.central_crop(RGB, fraction))
    batch = np.stack([RGB, RGB])
    same(tfi.central_crop(batch, fraction), tf.image.central_crop(batch, fraction))


def test_flips():
    batch = np.stack([RGB, RGB[::-1]])
    for x in (RGB, batch):
        same(tfi.flip_left_right(x), tf.image.flip_left_right(x))
        same(tfi.flip_up_down(x), tf.image.flip_up_down(x))


def test_random_ops_are_seeded_and_shaped_like_tf():
    x = np.stack([RGB] * 8)
    a = tfi.random_flip_left_right(x, seed=3)
    assert np.array_equal(a, tfi.random_flip_left_right(x, seed=3))
    assert a.shape == tf.image.random_flip_left_right(x, seed=3).shape
    for img, orig in zip(a, x):  # each image either kept or mirrored
        assert np.array_equal(img, orig) or np.array_equal(img, orig[:, ::-1])
    c = tfi.random_crop(RGB, [50, 60, 3], seed=5)
    assert c.shape == tuple(tf.image.random_crop(RGB, [50, 60, 3], seed=5).shape)
    assert np.array_equal(c, tfi.random_crop(RGB, [50, 60, 3], seed=5))


@pytest.mark.parametrize("kw", [{}, {"quality": 50}, {"quality": 100}, {"progressive": True},
                                {"optimize_size": True}, {"chroma_downsampling": False},
                                {"density_unit": "cm", "x_density": 72, "y_density": 96}])
def test_encode_jpeg_byte_identical(kw):
    for img in (RGB, RGB[..., :1]):
        assert tfi.encode_jpeg(img, **kw).numpy() == tf.io.encode_jpeg(img, **kw).numpy()


@pytest.mark.parametrize("channels", [1, 2, 3, 4])
@pytest.mark.parametrize("compression", [-1, 0, 1, 9])
def test_encode_png_byte_identical(channels, compression):
    img = np.dstack([RGB, RGB])[..., :channels]
    assert tfi.encode_png(img, compression).numpy() == tf.io.encode_png(img, compression).numpy()
    img16 = img.astype(np.uint16) * 257
    assert tfi.encode_png(img16, compression).numpy() == tf.io.encode_png(img16, compression).numpy()


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("antialias", [False, True])
def test_traced_resize_batches_equal_tf(method, antialias):
    """decode_batch with each method == TF's decode_jpeg -> resize -> / 255 per image."""
    datas = [pil_bytes(scene(90 + 11 * i, 120 - 7 * i, i), "JPEG", quality=85)
             for i in range(4)]
    got = tfi.decode_batch(datas, size=(40, 30), method=method, antialias=antialias,
                           **({"dtype": "uint8", "scale": None} if method == "nearest" else {}))
    want = np.stack([tf.image.resize(tf.io.decode_jpeg(d, channels=3), [40, 30], method,
                                     antialias=antialias) for d in datas])
    if method != "nearest":
        want = (want / np.float32(255.0)).astype(np.float32)
    same(got, want)


def test_fused_batch_equals_tf_pipeline():
    """decode_batch (threaded decode -> resize -> / 255) == TF's per-image ops, exactly."""
    datas = [pil_bytes(scene(100 + 7 * i, 140 - 5 * i, i), "JPEG", quality=90)
             for i in range(6)]
    got = tfi.decode_batch(datas, size=(64, 48))
    want = np.stack([tf.image.resize(tf.io.decode_jpeg(d, channels=3), [64, 48]) / 255.0
                     for d in datas])
    same(got, want.astype(np.float32))


@pytest.mark.parametrize("subsampling", [0, 1, 2])
@pytest.mark.parametrize("fraction", [0.3, 0.5, 0.9, 0.99])
def test_try_recover_truncated(subsampling, fraction):
    """A cut JPEG decoded with try_recover_truncated: same shape, every row equal to
    TensorFlow's except within the MCU rows at the cut (libjpeg-turbo 2.1.5 vs TF's
    2.1.4 zero-fill the partly received MCU row differently): at most 2 MCU rows + 2
    lines, contiguous."""
    y, x = np.mgrid[0:240, 0:200]
    img = np.clip(np.stack([40 + 150 * x / 200 + 50 * y / 240 + 20 * k + 30 * np.sin(x / 7 + k)
                            * np.cos(y / 9) for k in range(3)], -1), 0, 255).astype(np.uint8)
    data = pil_bytes(img, "JPEG", quality=90, subsampling=subsampling)
    data = data[: int(len(data) * fraction)]
    want = tf.io.decode_jpeg(data, try_recover_truncated=True, acceptable_fraction=0.1).numpy()
    got = tfi.decode_jpeg(data, try_recover_truncated=True).numpy()
    assert got.shape == want.shape
    rows = np.nonzero((got != want).any(axis=(1, 2)))[0]
    mcu = 16 if subsampling == 2 else 8
    if len(rows):
        assert len(rows) <= 2 * mcu + 2 and rows.max() - rows.min() + 1 == len(rows)
    with pytest.raises(errors.InvalidArgumentError, match="truncated JPEG"):
        tfi.decode_jpeg(data)


BMPS = {
    "rgb": pil_bytes(RGB[:13, :17], "BMP"),
    "rgb_aligned": pil_bytes(RGB[:8, :8], "BMP"),
    "gray8": pil_bytes(RGB[:9, :10], "BMP", "L"),
    "rgba": pil_bytes(np.dstack([RGB, RGB[..., :1]])[:7, :5], "BMP"),
}


@pytest.mark.parametrize("kind", sorted(BMPS))
@pytest.mark.parametrize("channels", [0, 1, 3, 4])
def test_decode_bmp(kind, channels):
    data = BMPS[kind]
    same(lambda: tfi.decode_bmp(data, channels=channels),
         lambda: tf.io.decode_bmp(data, channels=channels))
    same(lambda: tfi.decode_image(data, channels=channels),
         lambda: tf.io.decode_image(data, channels=channels))
    for dtype in ("uint16", "float32"):
        same(tfi.decode_image(data, dtype=dtype), tf.io.decode_image(data, dtype=getattr(tf, dtype)))


@pytest.mark.parametrize("op", ["decode_jpeg", "decode_png"])
def test_bmp_through_the_wrong_op(op):
    with pytest.raises(tf.errors.InvalidArgumentError, match="wrong op"):
        getattr(tf.io, op)(BMPS["rgb"])
    with pytest.raises(errors.InvalidArgumentError, match="wrong op"):
        getattr(tfi, op)(BMPS["rgb"])
    cut = BMPS["rgb"][:-3]
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.io.decode_bmp(cut)
    with pytest.raises(errors.InvalidArgumentError):
        tfi.decode_bmp(cut)

"""tfnano.image: decoding Pillow-written JPEG/PNG fixtures made here, round trips
through our encoders, errors naming the record, the threaded batch API (layouts,
dtypes, normalisation, skip policy, DCT scaling), and the traced map function that runs
parse -> decode_jpeg -> resize -> / 255 per batch in C with the per-record values."""
import io
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

import tfnano as tf
import tfnano.image as tfi
import tfnano.ops  # noqa: F401 - the operators a traced map function uses
from tfnano import _trace
from tfnano.errors import InvalidArgumentError


def scene(h, w, seed=0):
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


def pil_decode(data, mode="RGB"):
    return np.asarray(Image.open(io.BytesIO(data)).convert(mode))


def test_image_loads_lazily_and_is_the_namespace():
    code = "import sys, tfnano; assert 'tfnano.image' not in sys.modules; tfnano.image.resize"
    subprocess.run([sys.executable, "-c", code], check=True)
    assert tf.image.decode_jpeg is tfi.decode_jpeg


@pytest.mark.parametrize("subsampling", [0, 1, 2])
def test_decode_pillow_jpeg_close_to_pillow(subsampling):
    img = scene(97, 131)
    data = pil_bytes(img, "JPEG", quality=92, subsampling=subsampling)
    got = np.asarray(tfi.decode_jpeg(data, dct_method="INTEGER_ACCURATE"))
    assert got.shape == (97, 131, 3) and got.dtype == np.uint8
    # Pillow's decoder is libjpeg too, with other defaults (ISLOW): within 1 level.
    assert np.abs(got.astype(int) - pil_decode(data)).max() <= 1
    assert np.abs(got.astype(float) - img).mean() < 2.0
    assert tfi.decode_jpeg(data).numpy().shape == (97, 131, 3)


@pytest.mark.parametrize("mode,channels", [("L", 1), ("LA", 2), ("RGB", 3), ("RGBA", 4)])
def test_decode_pillow_png_exact(mode, channels):
    img = scene(33, 45)
    data = pil_bytes(img, "PNG", mode)
    got = tfi.decode_png(data)
    want = np.asarray(Image.open(io.BytesIO(data)))
    assert got.shape == (33, 45, channels)
    assert np.array_equal(got, want.reshape(got.shape))
    assert np.array_equal(tfi.decode_image(data), got)


def test_png_palette_and_16_bit():
    img = scene(20, 30)
    pal = pil_bytes(img, "PNG", "P", transparency=0)
    rgba = tfi.decode_png(pal)
    assert rgba.shape == (20, 30, 4)
    assert np.array_equal(rgba, np.asarray(Image.open(io.BytesIO(pal)).convert("RGBA")))
    deep = (img[..., 0].astype(np.uint16) * 257)[..., None]
    data = tfi.encode_png(deep)
    assert np.array_equal(tfi.decode_png(data, dtype=tf.uint16), deep)
    assert np.array_equal(tfi.decode_png(data), (deep >> 8).astype(np.uint8))


def test_encoders_round_trip_and_pillow_reads_them():
    img = scene(40, 56)
    jpg = tfi.encode_jpeg(img, quality=95).numpy()
    assert np.abs(pil_decode(jpg).astype(float) - img).mean() < 2.0
    assert tfi.is_jpeg(jpg)
    for ch in (1, 2, 3, 4):
        x = np.dstack([img, img])[..., :ch]
        assert np.array_equal(tfi.decode_png(tfi.encode_png(x)), x)
    png = tfi.encode_png(img)  # a scalar string Tensor, as in TensorFlow
    assert isinstance(png, tf.Tensor) and png.shape == () and png.dtype == tf.string
    assert np.array_equal(pil_decode(png.numpy()), img)
    with pytest.raises(InvalidArgumentError):
        tfi.encode_jpeg(np.zeros((4, 4, 2), np.uint8))


def test_shapes_without_decoding_and_dct_ratio():
    data = pil_bytes(scene(101, 203), "JPEG")
    assert tfi.extract_jpeg_shape(data).tolist() == [101, 203, 3]
    for r in (2, 4, 8):
        assert tfi.decode_jpeg(data, ratio=r).shape == (-(-101 // r), -(-203 // r), 3)
    with pytest.raises(InvalidArgumentError, match="ratio must be 1, 2, 4, or 8"):
        tfi.decode_jpeg(data, ratio=3)
    with pytest.raises(InvalidArgumentError, match="JPEG does not support 4 channels"):
        tfi.decode_jpeg(data, channels=4)


def test_crop_window_errors():
    data = pil_bytes(scene(50, 60), "JPEG")
    full = tfi.decode_jpeg(data)
    assert tfi.decode_and_crop_jpeg(data, [10, 20, 30, 40]).shape == (30, 40, 3)
    crop = np.asarray(tfi.decode_and_crop_jpeg(data, [10, 20, 30, 40])).astype(int)
    assert np.abs(crop - np.asarray(full)[10:40, 20:60]).max() <= 2
    with pytest.raises(InvalidArgumentError, match="crop window"):
        tfi.decode_and_crop_jpeg(data, [40, 0, 20, 10])


@pytest.mark.parametrize("bad,match", [(b"", "Input is empty"),
                                       (b"not an image at all", "Unknown image file format"),
                                       (b"GIF89a....", "GIF"),
                                       ("truncated", "truncated JPEG")])
def test_bad_inputs_raise(bad, match):
    if bad == "truncated":
        data = pil_bytes(scene(64, 64), "JPEG")
        bad = data[: len(data) * 2 // 3]
    with pytest.raises(InvalidArgumentError, match=match):
        tfi.decode_image(bad)


def test_resize_matches_a_plain_reference():
    img = scene(37, 53).astype(np.float32)
    out = tfi.resize(img, [10, 21])
    ys = (np.arange(10) + 0.5) * 37 / 10 - 0.5
    xs = (np.arange(21) + 0.5) * 53 / 21 - 0.5
    y0 = np.clip(np.floor(ys), 0, 36).astype(int)
    y1 = np.clip(np.ceil(ys), 0, 36).astype(int)
    x0 = np.clip(np.floor(xs), 0, 52).astype(int)
    x1 = np.clip(np.ceil(xs), 0, 52).astype(int)
    ly = (ys - np.floor(ys))[:, None, None]
    lx = (xs - np.floor(xs))[None, :, None]
    top = img[y0][:, x0] + (img[y0][:, x1] - img[y0][:, x0]) * lx
    bot = img[y1][:, x0] + (img[y1][:, x1] - img[y1][:, x0]) * lx
    assert np.abs(out - (top + (bot - top) * ly)).max() < 1e-3
    assert out.dtype == np.float32
    assert tfi.resize(img.astype(np.uint8), [5, 5], "nearest").dtype == np.uint8
    # area of a 2x downscale by whole cells: the mean of each 2x2 block
    blocks = np.asarray(tfi.resize(img[:36, :52], [18, 26], "area"))
    means = img[:36, :52].reshape(18, 2, 26, 2, 3).mean(axis=(1, 3))
    assert np.abs(blocks - means).max() < 1e-3


def test_convert_dtype_crops_flips():
    img = scene(20, 30)
    f = tfi.convert_image_dtype(img, tf.float32)
    assert f.dtype == np.float32 and np.allclose(f, img / 255.0)
    assert np.array_equal(tfi.convert_image_dtype(f, tf.uint8), img)
    assert tfi.central_crop(img, 0.5).shape == (10, 16, 3)  # TF: start int(7.5), size 30 - 14
    assert np.array_equal(tfi.flip_left_right(img), img[:, ::-1])
    assert np.array_equal(tfi.flip_up_down(img), img[::-1])
    a = tfi.random_crop(img, [5, 6, 3], seed=1)
    assert a.shape == (5, 6, 3) and np.array_equal(a, tfi.random_crop(img, [5, 6, 3], seed=1))


def make_jpegs(n, seed=0):
    return [pil_bytes(scene(60 + 3 * i, 80 + 5 * i, seed + i), "JPEG", quality=90)
            for i in range(n)]


@pytest.mark.parametrize("threads", [0, 1, 3])
def test_decode_batch_equals_per_image_ops(threads):
    datas = make_jpegs(9)
    want = np.stack([np.asarray(tfi.resize(tfi.decode_jpeg(d, channels=3), [32, 24]))
                     / np.float32(255) for d in datas]).astype(np.float32)
    nhwc = tfi.decode_batch(datas, size=(32, 24), num_threads=threads)
    assert nhwc.shape == (9, 32, 24, 3) and nhwc.dtype == np.float32
    assert np.array_equal(nhwc, want)
    nchw = tfi.decode_batch(datas, size=(32, 24), layout="NCHW", num_threads=threads)
    assert np.array_equal(nchw, want.transpose(0, 3, 1, 2))
    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    norm = tfi.decode_batch(datas, size=(32, 24), mean=mean, std=std)
    assert np.allclose(norm, (want - mean) / std, atol=1e-5)
    raw = tfi.decode_batch(datas, size=(32, 24), dtype="uint8", method="nearest", scale=None)
    assert raw.dtype == np.uint8
    assert np.array_equal(raw[0], tfi.resize(tfi.decode_jpeg(datas[0]), [32, 24], "nearest"))
    bf = tfi.decode_batch(datas, size=(32, 24), dtype="bfloat16")
    bits = np.asarray(bf).view(np.uint16).astype(np.uint32) << 16
    assert np.allclose(bits.view(np.float32), want, rtol=1 / 128)
    imgs = tfi.decode_batch(datas, num_threads=threads)
    assert [a.shape for a in imgs] == [tfi.decode_jpeg(d).shape for d in datas]


def test_decode_batch_errors_name_the_record_and_skip():
    datas = make_jpegs(6)
    datas[4] = datas[4][:300]
    datas[2] = b"junk"
    with pytest.raises(InvalidArgumentError, match="record 2: Unknown image file format") as e:
        tfi.decode_batch(datas, size=(16, 16))
    assert e.value.record_index == 2
    out, status = tfi.decode_batch(datas, size=(16, 16), on_error="skip", return_status=True)
    assert status.tolist()[:2] == [0, 0] and status[2] != 0 and status[4] != 0
    assert not out[2].any() and not out[4].any() and out[0].any()


def test_dct_scaling_is_close_and_keeps_the_shape():
    datas = [pil_bytes(scene(512, 512, i), "JPEG", quality=90) for i in range(3)]
    full = tfi.decode_batch(datas, size=(64, 64))
    fast = tfi.decode_batch(datas, size=(64, 64), dct_scale=True)
    assert fast.shape == full.shape
    assert np.abs(fast - full).mean() < 0.02


def example_bytes(jpeg, label):
    ex = tf.train.Example(features=tf.train.Features(feature={
        "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[jpeg])),
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label]))}))
    return ex.SerializeToString()


def test_traced_map_runs_batched_with_per_record_values():
    """The flowers pipeline's map function: traced, run on a whole batch it decodes
    and resizes in one C call and gives exactly the per-record results."""
    records = np.array([example_bytes(d, i) for i, d in enumerate(make_jpegs(5))], object)
    spec = {"image": tf.io.FixedLenFeature([], tf.string),
            "label": tf.io.FixedLenFeature([], tf.int64)}

    def parse(serialized):
        ex = tf.io.parse_single_example(serialized, spec)
        image = tf.image.decode_jpeg(ex["image"], channels=3)
        image = tf.image.resize(image, [40, 30])
        return image / 255.0, ex["label"]

    graph = _trace.trace(parse, _trace.Spec(object, ()), call_args=False)
    assert graph.vectorizable() is None, graph
    names = [n.op.name for n in graph.nodes]
    assert "decode_jpeg" in names and "resize" in names
    images, labels = graph.run(records, batched=True)
    assert images.shape == (5, 40, 30, 3) and images.dtype == np.float32
    for i, r in enumerate(records):
        img, lab = parse(r)
        assert np.array_equal(images[i], img) and labels[i] == lab


def test_traced_pipeline_dct_scaling_switch():
    datas = [pil_bytes(scene(256, 256, i), "JPEG", quality=90) for i in range(3)]
    records = np.array([example_bytes(d, i) for i, d in enumerate(datas)], object)
    spec = {"image": tf.io.FixedLenFeature([], tf.string)}

    def fn(serialized):
        ex = tf.io.parse_single_example(serialized, spec)
        return tf.image.resize(tf.image.decode_jpeg(ex["image"], channels=3), [64, 64])

    graph = _trace.trace(fn, _trace.Spec(object, ()), call_args=False)
    exact = graph.run(records, batched=True)
    old = tfi.enable_dct_scaling(True)
    try:
        fast = graph.run(records, batched=True)
    finally:
        tfi.enable_dct_scaling(old)
    assert fast.shape == exact.shape and not np.array_equal(fast, exact)
    assert np.abs(fast - exact).mean() < 5.0  # 0..255 scale
    assert np.array_equal(graph.run(records, batched=True), exact)


@pytest.mark.parametrize("mode", ["RGB", "RGBA", "L"])
def test_decode_pillow_bmp(mode):
    img = scene(11, 13)
    data = pil_bytes(img, "BMP", mode)
    got = tfi.decode_bmp(data)
    raw = np.asarray(Image.open(io.BytesIO(data)))  # L: 8-bit BMPs are palette indices
    raw = raw.reshape(raw.shape[:2] + (-1,))
    assert got.shape == (11, 13, {"RGB": 3, "RGBA": 4, "L": 1}[mode])
    assert np.array_equal(np.asarray(got)[..., :raw.shape[2]], raw)  # Pillow drops alpha
    assert np.array_equal(tfi.decode_image(data), got)
    with pytest.raises(InvalidArgumentError, match="wrong op"):
        tfi.decode_jpeg(data)
    with pytest.raises(InvalidArgumentError, match="differ by"):
        tfi.decode_bmp(data[:-1])


def test_batched_decode_jpeg_refuses_bmp_like_per_record():
    bmp = pil_bytes(scene(8, 8), "BMP")
    records = np.array([example_bytes(d, 0) for d in (make_jpegs(1)[0], bmp)], object)
    spec = {"image": tf.io.FixedLenFeature([], tf.string)}

    def fn(serialized):
        ex = tf.io.parse_single_example(serialized, spec)
        return tf.image.resize(tf.image.decode_jpeg(ex["image"], channels=3), [8, 8])

    graph = _trace.trace(fn, _trace.Spec(object, ()), call_args=False)
    with pytest.raises(InvalidArgumentError, match="wrong op"):
        graph.run(records, batched=True)
    with pytest.raises(InvalidArgumentError, match="wrong op"):
        fn(records[1])


FILTERS = ["bicubic", "lanczos3", "lanczos5", "gaussian", "mitchellcubic"]


def test_filter_methods_interpolate_and_preserve_constants():
    """Each filter keeps a constant image constant (weights sum to 1), reproduces the
    input at the same size for the interpolating kernels, gives float32, and antialias
    widens the kernel only when downsampling."""
    flat = np.full((23, 31, 3), 77, np.uint8)
    img = scene(40, 50)
    for m in FILTERS + ["bilinear"]:
        for aa in (False, True):
            out = np.asarray(tfi.resize(flat, [9, 60], m, antialias=aa))
            assert out.dtype == np.float32 and out.shape == (9, 60, 3)
            assert np.abs(out - 77).max() < 1e-3, (m, aa)
        up = np.asarray(tfi.resize(img, [80, 100], m))
        assert np.array_equal(up, np.asarray(tfi.resize(img, [80, 100], m, antialias=True)))
        down = np.asarray(tfi.resize(img, [10, 12], m))
        smooth = np.asarray(tfi.resize(img, [10, 12], m, antialias=True))
        assert not np.array_equal(down, smooth)
    for m in ("bicubic", "lanczos3", "lanczos5"):  # interpolating: same size = the pixels
        assert np.abs(np.asarray(tfi.resize(img, [40, 50], m)) - img).max() < 1e-3
    with pytest.raises(ValueError, match="not implemented"):
        tfi.resize(img, [3, 3], "cubic")


@pytest.mark.parametrize("method", FILTERS + ["bilinear"])
def test_decode_batch_filters_equal_decode_then_resize(method):
    datas = make_jpegs(4)
    got = tfi.decode_batch(datas, size=(33, 21), method=method, antialias=True)
    want = np.stack([np.asarray(tfi.resize(tfi.decode_jpeg(d, channels=3), [33, 21], method,
                                           antialias=True)) / np.float32(255) for d in datas])
    assert np.array_equal(got, want.astype(np.float32))


def test_traced_map_with_filters_and_pad_runs_batched_with_per_record_values():
    records = np.array([example_bytes(d, i) for i, d in enumerate(make_jpegs(5))], object)
    spec = {"image": tf.io.FixedLenFeature([], tf.string)}

    def fn(serialized):
        ex = tf.io.parse_single_example(serialized, spec)
        image = tf.image.decode_jpeg(ex["image"], channels=3)
        a = tf.image.resize(image, [24, 20], method="lanczos3", antialias=True)
        b = tf.image.resize_with_pad(image, 30, 30, method="bicubic")
        c = tf.image.resize_with_crop_or_pad(image, 16, 50)
        return a / 255.0, b, c

    graph = _trace.trace(fn, _trace.Spec(object, ()), call_args=False)
    assert graph.vectorizable() is None, graph
    a, b, c = graph.run(records, batched=True)
    assert a.shape == (5, 24, 20, 3) and b.shape == (5, 30, 30, 3) and c.shape == (5, 16, 50, 3)
    for i, r in enumerate(records):
        ra, rb, rc = fn(r)
        assert np.array_equal(a[i], ra) and np.array_equal(b[i], rb) and np.array_equal(c[i], rc)


def test_pad_and_crop_ops():
    img = scene(10, 20)
    padded = np.asarray(tfi.pad_to_bounding_box(img, 2, 3, 15, 30))
    assert padded.shape == (15, 30, 3) and padded.dtype == np.uint8
    assert np.array_equal(padded[2:12, 3:23], img) and padded.sum() == img.astype(int).sum()
    assert np.array_equal(np.asarray(tfi.crop_to_bounding_box(padded, 2, 3, 10, 20)), img)
    # resize_with_pad: aspect kept (10 x 20 into 40 x 40 -> 20 x 40), centred, zeros around
    out = np.asarray(tfi.resize_with_pad(img, 40, 40))
    assert out.shape == (40, 40, 3) and out.dtype == np.float32
    assert not out[:10].any() and not out[30:].any()
    assert np.array_equal(out[10:30], np.asarray(tfi.resize(img, [20, 40])))
    crop = np.asarray(tfi.resize_with_crop_or_pad(img, 6, 26))
    assert np.array_equal(crop[:, 3:23], img[2:8]) and not crop[:, :3].any()
    with pytest.raises(ValueError, match="target_width must be > 0"):
        tfi.resize_with_pad(img, 5, 0)
    with pytest.raises(ValueError, match="must have either 3 or 4 dimensions"):
        tfi.pad_to_bounding_box(img[0], 0, 0, 5, 5)


def test_traced_decode_batches_as_fused_map_and_batch():
    # TensorFlow fuses map(decode).batch(n): an image with as many values in another
    # shape is copied in with the first's shape, one with another count fails the batch
    a = tf.io.encode_png(np.arange(60, dtype=np.uint8).reshape(4, 5, 3)).numpy()
    b = tf.io.encode_png(np.arange(60, dtype=np.uint8).reshape(5, 4, 3)).numpy()
    c = tf.io.encode_png(np.zeros((6, 4, 3), np.uint8)).numpy()

    def batches(recs):
        return list(tf.data.Dataset.from_tensor_slices(recs)
                    .map(lambda x: tf.io.decode_png(x, channels=3)).batch(2))

    (got,) = batches([a, b])
    assert got.shape == (2, 4, 5, 3)
    np.testing.assert_array_equal(np.asarray(got)[1].ravel(), np.arange(60))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Cannot add tensor to the batch: number of elements does not "
                             r"match. Shapes are: \[tensor\]: \[6,4,3\], \[batch\]: \[4,5,3\]"):
        batches([a, c])

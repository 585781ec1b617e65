"""A traced image map in a tf.data pipeline: TFRecordDataset -> map(parse_single_example
-> decode -> resize -> cast / 255) -> batch runs on the C pipeline engine's image stage
(lib/pipeline) with exactly the values of running the function per record, for the
decode ops, resize methods and normalisations the stage takes; the rest falls back to
Python threads with the reason in explain(); decode errors are raised at their batch's
place, naming the file and record, with the per-record op's class and text."""
import io

import numpy as np
import pytest
from PIL import Image

import tfnano as tf
import tfnano.ops  # noqa: F401 - the operators a traced map function uses
from tfnano.data import experimental as exp
from tfnano.errors import InvalidArgumentError


def scene(h, w, seed):
    y, x = np.mgrid[0:h, 0:w]
    planes = [40 + 150 * x / w + 50 * y / h + 20 * k + 30 * np.sin(x / 7 + k + seed) *
              np.cos(y / 9) for k in range(3)]
    return np.clip(np.stack(planes, -1), 0, 255).astype(np.uint8)


def encoded(i, fmt="JPEG"):
    buf = io.BytesIO()
    Image.fromarray(scene(30 + 7 * (i % 5), 41 + 5 * (i % 4), i)).save(buf, fmt)
    return buf.getvalue()


def example(image, label):
    return tf.train.Example(features=tf.train.Features(feature={
        "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[image])),
        "class": tf.train.Feature(int64_list=tf.train.Int64List(value=[label]))})
    ).SerializeToString()


def write(path, images):
    with tf.io.TFRecordWriter(str(path)) as w:
        for i, img in enumerate(images):
            w.write(example(img, i % 7))
    return str(path)


FORMAT = {"image": tf.io.FixedLenFeature([], tf.string),
          "class": tf.io.FixedLenFeature([], tf.int64)}


@pytest.fixture()
def files(tmp_path):
    a = [encoded(i, "PNG" if i % 6 == 5 else "JPEG") for i in range(23)]
    b = [encoded(100 + i) for i in range(9)]
    return [write(tmp_path / "a.tfrec", a), write(tmp_path / "b.tfrec", b)]


@pytest.fixture()
def c_engine(monkeypatch):
    monkeypatch.setenv("TFNANO_C_PIPELINE", "1")


def per_record(make):
    exp.enable_debug_mode()
    try:
        return [tuple(np.asarray(v) for v in e) for e in make()]
    finally:
        exp.disable_debug_mode()


def check_same(make, route=True):
    ds = make()
    text = ds.plan_text()
    assert ("runs on C threads" in text) == route, text
    got = [tuple(np.asarray(v) for v in e) for e in ds]
    want = per_record(make)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        for a, b in zip(g, w):
            assert a.dtype == b.dtype and a.shape == b.shape
            assert np.array_equal(a, b)
    return text


def flowers(files, decode, post, batch=8, **map_kw):
    def read_labeled_tfrecord(example):
        example = tf.io.parse_single_example(example, FORMAT)
        image = post(decode(example["image"]))
        return image, tf.cast(example["class"], tf.int32)

    def make():
        return (tf.data.TFRecordDataset(files, num_parallel_reads=2)
                .map(read_labeled_tfrecord, num_parallel_calls=tf.data.AUTOTUNE, **map_kw)
                .batch(batch).prefetch(tf.data.AUTOTUNE))
    return make


def test_flowers_pipeline_runs_in_the_engine_with_per_record_values(files, c_engine):
    def post(image):
        image = tf.image.resize(image, [24, 20])
        return tf.cast(image, tf.float32) / 255.0
    make = flowers(files, lambda x: tf.image.decode_jpeg(x, channels=3), post)
    text = check_same(make)
    assert "read -> parse -> decode_jpeg -> resize -> normalise -> batch" in text
    img, lab = next(iter(make()))
    assert img.dtype == np.float32 and img.shape == (8, 24, 20, 3) and lab.dtype == np.int32


DECODES = {
    "jpeg3": lambda x: tf.image.decode_jpeg(x, channels=3),
    "jpeg1_accurate": lambda x: tf.io.decode_jpeg(x, channels=1, dct_method="INTEGER_ACCURATE"),
    "jpeg_no_fancy": lambda x: tf.io.decode_jpeg(x, channels=3, fancy_upscaling=False),
    "image3": lambda x: tf.io.decode_image(x, channels=3, expand_animations=False),
    "png1": lambda x: tf.io.decode_png(x, channels=1),
}


@pytest.mark.parametrize("decode", sorted(DECODES))
def test_decode_ops(files, c_engine, decode):
    check_same(flowers(files, DECODES[decode],
                       lambda im: tf.cast(tf.image.resize(im, [16, 17]), tf.float32) / 255.0))


POSTS = {
    "bilinear_raw": lambda im: tf.image.resize(im, [19, 23]),
    "nearest_uint8": lambda im: tf.image.resize(im, [19, 23], "nearest"),
    "nearest_cast_div": lambda im: tf.cast(tf.image.resize(im, [19, 23], "nearest"),
                                           tf.float32) / 255.0,
    "nearest_convert": lambda im: tf.image.convert_image_dtype(
        tf.image.resize(im, [19, 23], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR),
        tf.float32),
    "area_mul": lambda im: tf.image.resize(im, [9, 11], "area") * (1.0 / 255),
    "bicubic_center": lambda im: (tf.image.resize(im, [40, 50], "bicubic") - 127.5) / 127.5,
    "lanczos3_aa": lambda im: tf.image.resize(im, [12, 10], "lanczos3", antialias=True) / 255,
    "gaussian_sub": lambda im: tf.image.resize(im, [12, 10], "gaussian") - 100.0,
    "mitchell_rmul": lambda im: 2.0 * tf.image.resize(im, [30, 10], "mitchellcubic"),
    "bilinear_aa_convert": lambda im: tf.image.convert_image_dtype(
        tf.image.resize(im, [12, 10], antialias=True), tf.float32) / 255.0,
}


@pytest.mark.parametrize("post", sorted(POSTS))
def test_resize_methods_and_normalisations(files, c_engine, post):
    check_same(flowers(files, DECODES["jpeg3"], POSTS[post], batch=5))


FALLBACKS = {
    "preserve_aspect_ratio": (lambda im: tf.image.resize(im, [16, 16],
                                                         preserve_aspect_ratio=True),
                              "preserve_aspect_ratio"),
    "divide_then_subtract": (lambda im: tf.image.resize(im, [16, 16]) / 127.5 - 1.0,
                             "math.subtract() after the image ops"),
    "flip": (lambda im: tf.image.flip_left_right(tf.image.resize(im, [16, 16])),
             "flip_left_right() after the image ops"),
    "no_channels": (lambda im: tf.image.resize(im, [16, 16]), "channels"),
    "four_channels": (lambda im: tf.image.resize(im, [16, 16]), "channels=1 or 3"),
}


@pytest.mark.parametrize("case", sorted(FALLBACKS))
def test_what_the_stage_does_not_take_runs_on_python_threads(files, c_engine, case):
    post, reason = FALLBACKS[case]
    decode = {"no_channels": lambda x: tf.io.decode_jpeg(x),
              "four_channels": lambda x: tf.io.decode_png(x, channels=4)}.get(case,
                                                                            DECODES["jpeg3"])
    if case in ("no_channels", "four_channels", "preserve_aspect_ratio"):
        # per record: an error, or images of other shapes that batch() refuses
        ds = flowers(files, decode, post)()
        assert reason in ds.plan_text()
        return
    text = check_same(flowers(files, decode, post), route=False)
    assert reason in text, text


def test_decoded_image_also_returned_falls_back(files, c_engine):
    def fn(r):
        ex = tf.io.parse_single_example(r, FORMAT)
        image = tf.image.decode_jpeg(ex["image"], channels=3)
        return tf.image.resize(image, [8, 8]), tf.shape(image)

    def make():
        return tf.data.TFRecordDataset(files).map(fn).batch(4)
    text = make().plan_text()
    assert "runs on C threads" not in text and "decode_jpeg() output used" in text


def test_image_bytes_returned_too_and_two_stages(files, c_engine):
    def fn(r):
        ex = tf.io.parse_single_example(r, FORMAT)
        small = tf.image.resize(tf.image.decode_jpeg(ex["image"], channels=1), [6, 6], "area")
        big = tf.image.resize(tf.image.decode_jpeg(ex["image"], channels=3), [20, 20]) / 255.0
        return {"small": small, "big": big, "raw": ex["image"], "label": ex["class"]}

    def make():
        return tf.data.TFRecordDataset(files).map(fn, num_parallel_calls=2).batch(6,
                                                                                 drop_remainder=True)
    ds = make()
    assert "decode_jpeg -> resize -> decode_jpeg -> resize -> normalise" in ds.plan_text()
    got = list(ds)
    exp.enable_debug_mode()
    try:
        want = list(make())
    finally:
        exp.disable_debug_mode()
    assert len(got) == len(want) == 5
    for g, w in zip(got, want):
        for k in w:
            assert np.array_equal(np.asarray(g[k]), np.asarray(w[k])), k
        assert np.asarray(g["raw"]).dtype == object


def test_decode_errors_are_raised_at_their_batch_with_the_per_record_text(tmp_path, c_engine):
    images = [encoded(i) for i in range(12)]
    images[5] = images[5][: len(images[5]) // 2]  # truncated JPEG
    images[9] = b"BM" + b"\0" * 60                # a BMP header: decode_jpeg's wrong op
    path = write(tmp_path / "bad.tfrec", images)

    def fn(r):
        ex = tf.io.parse_single_example(r, FORMAT)
        return tf.cast(tf.image.resize(tf.image.decode_jpeg(ex["image"], channels=3),
                                       [10, 10]), tf.float32) / 255.0

    def run():
        out, errs = [], []
        it = iter(tf.data.TFRecordDataset(path).map(fn).batch(4))
        while True:
            try:
                out.append(np.asarray(next(it)))
            except StopIteration:
                return out, errs
            except InvalidArgumentError as e:
                errs.append(e)
    assert "runs on C threads" in tf.data.TFRecordDataset(path).map(fn).batch(4).plan_text()
    got, errs = run()
    assert len(got) == 1 and len(errs) == 2  # batches [4-7] and [8-11] fail, as TF's
    for e, k in zip(errs, (5, 9)):
        try:
            fn(example(images[k], 0))
        except InvalidArgumentError as want:
            assert e.message.startswith(want.message), (e.message, want.message)
        else:
            raise AssertionError("per record, record %d decodes" % k)
        assert "bad.tfrec" in str(e) and "record %d" % k in str(e)
    assert "wrong op" in errs[1].message


def test_one_core_auto_routes_image_chains_only(files, monkeypatch):
    """TFNANO_C_PIPELINE unset on one core: a function with an image chain still runs
    on the engine, a parse-only one on Python threads."""
    from tfnano.data import autotune
    monkeypatch.delenv("TFNANO_C_PIPELINE", raising=False)
    monkeypatch.setattr(autotune, "cpu_count", lambda: 1)
    image = flowers(files, DECODES["jpeg3"],
                    lambda im: tf.cast(tf.image.resize(im, [8, 8]), tf.float32) / 255.0)
    assert "runs on C threads" in image().plan_text()

    def labels(r):
        return tf.cast(tf.io.parse_single_example(r, FORMAT)["class"], tf.int32)
    text = tf.data.TFRecordDataset(files).map(labels).batch(4).plan_text()
    assert "auto: fewer than 2 cores" in text


# ---- no resize: decode -> cast / 255 -> reshape (the seed notebooks' decoder)

@pytest.fixture()
def same_size(tmp_path):
    """32 images of one size (30 x 41), JPEG (some 4:4:4) and every sixth PNG."""
    def one(i):
        buf = io.BytesIO()
        Image.fromarray(scene(30, 41, i)).save(buf, "PNG" if i % 6 == 5 else "JPEG",
                                               subsampling=0 if i % 4 == 1 else 2)
        return buf.getvalue()
    return [write(tmp_path / "s.tfrec", [one(i) for i in range(32)])]


SEED_DECODERS = {
    "seed004": (lambda x: tf.image.decode_jpeg(x, channels=3),
                lambda im: tf.reshape(tf.cast(im, tf.float32) / 255.0, [30, 41, 3])),
    "reshape_first": (lambda x: tf.io.decode_jpeg(x, channels=3),
                      lambda im: tf.cast(tf.reshape(im, [30 * 41, 3]), tf.float32) / 255.0),
    "uint8": (lambda x: tf.image.decode_jpeg(x, channels=3),
              lambda im: tf.reshape(im, [30, 41, 3])),
    "center": (lambda x: tf.image.decode_jpeg(x, channels=3),
               lambda im: tf.reshape((tf.cast(im, tf.float32) - 127.5) / 127.5, [-0 + 30, 123])),
    "gray_flat_convert": (lambda x: tf.io.decode_png(x, channels=1),
                          lambda im: tf.image.convert_image_dtype(tf.reshape(im, [1230]),
                                                                  tf.float32)),
    "image_still_mul": (lambda x: tf.io.decode_image(x, channels=3, expand_animations=False),
                        lambda im: tf.reshape(tf.cast(im, tf.float32) * (1 / 255.0),
                                              [41, 30, 3])),
}


@pytest.mark.parametrize("case", sorted(SEED_DECODERS))
def test_no_resize_chain_runs_in_the_engine_with_per_record_values(same_size, c_engine, case):
    decode, post = SEED_DECODERS[case]
    text = check_same(flowers(same_size, decode, post, batch=6))
    assert "reshape" in text.split("runs on C threads")[1], text


def test_reshape_of_an_image_of_another_size_fails_at_its_batch(tmp_path, c_engine):
    images = [encoded(0) for _ in range(10)]  # 30 x 41
    images[6] = encoded(1)                     # 37 x 46: reshape's error, per record too
    path = write(tmp_path / "sizes.tfrec", images)
    post = SEED_DECODERS["seed004"][1]

    def fn(r):
        return post(tf.image.decode_jpeg(tf.io.parse_single_example(r, FORMAT)["image"],
                                         channels=3))
    ds = tf.data.TFRecordDataset(path).map(fn).batch(4)
    assert "runs on C threads" in ds.plan_text()
    it = iter(ds)
    assert np.asarray(next(it)).shape == (4, 30, 41, 3)
    with pytest.raises(InvalidArgumentError) as e:
        next(it)
    with pytest.raises(InvalidArgumentError) as want:
        fn(example(images[6], 0))
    assert e.value.message.startswith(want.value.message)
    assert "Input to reshape is a tensor with 5106 values, but the requested shape has " \
           "3690" in e.value.message and "record 6" in str(e.value)


def test_no_resize_without_a_reshape_or_of_an_animation_runs_in_python(same_size, c_engine):
    cases = [(lambda x: tf.image.decode_jpeg(x, channels=3),
              lambda im: tf.cast(im, tf.float32) / 255.0, "or reshape()"),
             (lambda x: tf.io.decode_image(x, channels=3),
              lambda im: tf.reshape(im, [30, 41, 3]), "may be 4-D")]
    for decode, post, reason in cases:
        text = check_same(flowers(same_size, decode, post, batch=6), route=False)
        assert reason in text, text

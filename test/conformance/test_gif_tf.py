"""tfnano's GIF decoding against TensorFlow's: decode_gif, decode_image (with and
without expand_animations, uint8 / uint16 / float32) and decode_jpeg / decode_png on
GIFs, values and error texts, on files Pillow wrote and on files built byte by byte
(frames at offsets and sticking out, transparency, local tables, interlacing, a
logical screen larger than the frames), and on every prefix of an animation (a file
cut short keeps its complete frames in TensorFlow 2.21)."""
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
sys.path.insert(0, str(ROOT / "test" / "python"))
import tfnano.image as tfi  # noqa: E402
from tfnano import errors  # noqa: E402
from gif_files import Frame, gif_bytes  # noqa: E402

PALETTE = np.array([[0, 0, 0], [255, 0, 0], [0, 255, 0], [0, 0, 255], [250, 250, 250],
                    [10, 20, 30], [200, 100, 50], [7, 8, 9]], np.uint8)


def idx(h, w, seed):
    return np.random.default_rng(seed).integers(0, 8, (h, w), dtype=np.uint8)


def pillow_gif(frames, **kw):
    buf = io.BytesIO()
    imgs = [Image.fromarray(f).convert("P", palette=Image.ADAPTIVE, colors=32) for f in frames]
    imgs[0].save(buf, "GIF", save_all=len(imgs) > 1, append_images=imgs[1:], **kw)
    return buf.getvalue()


def _moving(k):
    y, x = np.mgrid[0:40, 0:50]
    img = np.stack([(x * 5 + k * 20) % 256, (y * 6) % 256, ((x + y) * 3) % 256], -1)
    img[10:20, 5 + 8 * k:15 + 8 * k] = 255
    return img.astype(np.uint8)


GIFS = {
    "pillow_one": pillow_gif([_moving(0)]),
    "pillow_anim": pillow_gif([_moving(k) for k in range(4)], duration=50, loop=0),
    "pillow_anim_disposal2": pillow_gif([_moving(k) for k in range(3)], disposal=2),
    "patch_transparent": gif_bytes([Frame(idx(10, 12, 1)), Frame(idx(4, 5, 2), left=3, top=2),
                                    Frame(idx(10, 12, 3), transparent=0)], palette=PALETTE),
    "first_partial": gif_bytes([Frame(idx(6, 7, 4), left=2, top=1, transparent=5),
                                Frame(idx(8, 9, 5))], palette=PALETTE, screen=(9, 8)),
    "screen_larger": gif_bytes([Frame(idx(9, 6, 6)), Frame(idx(4, 11, 7), top=1)],
                               palette=PALETTE, screen=(40, 30)),
    "sticking_out": gif_bytes([Frame(idx(8, 8, 8)), Frame(idx(5, 5, 9), left=6, top=5)],
                              palette=PALETTE),
    "interlaced_local": gif_bytes([Frame(idx(11, 9, 10), interlace=True),
                                   Frame(idx(11, 9, 11), palette=PALETTE[::-1].copy())],
                                  palette=PALETTE),
    "index_outside_table": gif_bytes([Frame(np.full((3, 3), 9, np.uint8))], palette=PALETTE),
    "no_colour_table": gif_bytes([Frame(np.zeros((2, 2), np.uint8))]),
    "no_frames": gif_bytes([Frame(idx(2, 2, 1))], palette=PALETTE)[:13 + 24] + b";",
}


def outcome(fn):
    """The array, or the InvalidArgumentError's message without TensorFlow's op
    decorations."""
    try:
        return np.asarray(fn())
    except (tf.errors.InvalidArgumentError, errors.InvalidArgumentError) as e:
        text = str(e)
        if "}}" in text:
            text = text.split("}}", 1)[1]
        return text.split(" [Op:")[0].strip()


def same(ours, theirs):
    a, b = outcome(ours), outcome(theirs)
    if isinstance(b, str):
        assert a == b
        return
    assert not isinstance(a, str), a
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, a.shape, b.dtype, b.shape)
    assert np.array_equal(a, b)


@pytest.mark.parametrize("kind", sorted(GIFS))
def test_decode_gif_and_decode_image(kind):
    data = GIFS[kind]
    same(lambda: tfi.decode_gif(data), lambda: tf.io.decode_gif(data))
    same(lambda: tfi.decode_image(data), lambda: tf.io.decode_image(data))
    same(lambda: tfi.decode_image(data, expand_animations=False),
         lambda: tf.io.decode_image(data, expand_animations=False))
    for dtype in ("uint16", "float32"):
        same(lambda: tfi.decode_image(data, dtype=dtype),
             lambda: tf.io.decode_image(data, dtype=getattr(tf, dtype)))


@pytest.mark.parametrize("kind", sorted(GIFS))
@pytest.mark.parametrize("op", ["decode_jpeg", "decode_png", "decode_bmp"])
def test_the_other_ops_on_gifs(kind, op):
    data = GIFS[kind]
    same(lambda: getattr(tfi, op)(data), lambda: getattr(tf.io, op)(data))


@pytest.mark.parametrize("channels", [1, 3, 4])
def test_channels(channels):
    data = GIFS["pillow_anim"]
    same(lambda: tfi.decode_image(data, channels=channels),
         lambda: tf.io.decode_image(data, channels=channels))
    same(lambda: tfi.decode_jpeg(GIFS["pillow_one"], channels=channels),
         lambda: tf.io.decode_jpeg(GIFS["pillow_one"], channels=channels))


def test_every_prefix_of_an_animation():
    data = GIFS["patch_transparent"]
    for cut in range(len(data) + 1):
        part = data[:cut]
        same(lambda: tfi.decode_gif(part), lambda: tf.io.decode_gif(part))
        same(lambda: tfi.decode_image(part, expand_animations=False),
             lambda: tf.io.decode_image(part, expand_animations=False))


def test_jpeg_and_png_through_decode_gif():
    rgba = np.arange(48, dtype=np.uint8).reshape(3, 4, 4)
    for data in (tf.io.encode_png(rgba).numpy(), tf.io.encode_png(rgba[..., :1]).numpy(),
                 tf.io.encode_jpeg(np.full((5, 6, 3), 90, np.uint8)).numpy(),
                 b"BM" + bytes(60), b"", b"not an image"):
        same(lambda: tfi.decode_gif(data), lambda: tf.io.decode_gif(data))


def test_traced_pipeline_first_frames_equal_tf(tmp_path):
    import tfnano
    jpeg = tf.io.encode_jpeg(np.full((8, 8, 3), 90, np.uint8)).numpy()
    images = [GIFS["pillow_anim"], jpeg, GIFS["first_partial"], GIFS["pillow_one"]]
    path = str(tmp_path / "g.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for img in images:
            w.write(tf.train.Example(features=tf.train.Features(feature={
                "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[img]))}))
                .SerializeToString())

    def make(t):
        feats = {"image": t.io.FixedLenFeature([], t.string)}

        def fn(rec):
            img = t.io.decode_image(t.io.parse_single_example(rec, feats)["image"],
                                    channels=3, expand_animations=False)
            return t.image.resize(img, (16, 16)) / 255.0
        return t.data.TFRecordDataset(path).map(fn).batch(4)
    (ours,) = [np.asarray(b) for b in make(tfnano)]
    (theirs,) = [b.numpy() for b in make(tf)]
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    assert np.array_equal(ours, theirs)

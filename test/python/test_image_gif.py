"""GIF decoding as TensorFlow's DecodeGif: frame composition, colour tables,
transparency, interlacing, the canvas size, the ops that take GIFs (decode_gif,
decode_image, decode_jpeg / decode_png for one frame) and their errors, and GIF
records in a traced tf.data image pipeline."""
import io

import numpy as np
import pytest

import tfnano as tf
from gif_files import Frame, gif_bytes, tf_frames

PALETTE = np.array([[0, 0, 0], [255, 0, 0], [0, 255, 0], [0, 0, 255], [250, 250, 250],
                    [10, 20, 30], [200, 100, 50], [7, 8, 9]], np.uint8)


def _eq(got, want):
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def _indices(h, w, seed, n=8):
    return np.random.default_rng(seed).integers(0, n, (h, w), dtype=np.uint8)


def _check(frames, **kw):
    data = gif_bytes(frames, palette=kw.pop("palette", PALETTE), **kw)
    got = tf.io.decode_gif(data)
    want = tf_frames(frames, PALETTE)
    assert got.shape == want.shape and np.asarray(got).dtype == np.uint8
    _eq(got, want)
    return data, want


def test_one_frame_is_the_palette_lookup():
    idx = _indices(13, 17, 0)
    data, want = _check([Frame(idx)])
    _eq(want[0], PALETTE[idx])
    # decode_image keeps the frame axis; expand_animations=False and decode_jpeg /
    # decode_png give the frame itself
    assert tf.io.decode_image(data).shape == (1, 13, 17, 3)
    for img in (tf.io.decode_image(data, expand_animations=False), tf.io.decode_jpeg(data),
                tf.io.decode_png(data), tf.image.decode_jpeg(data, channels=3)):
        _eq(img, want[0])


def test_matches_pillow_on_a_file_pillow_wrote():
    from PIL import Image
    rgb = np.random.default_rng(3).integers(0, 255, (21, 34, 3), dtype=np.uint8)
    buf = io.BytesIO()
    Image.fromarray(rgb).convert("P").save(buf, "GIF")
    got = tf.io.decode_image(buf.getvalue(), expand_animations=False)
    want = np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGB"))
    _eq(got, want)


def test_later_frames_draw_on_the_previous_one():
    first = Frame(_indices(10, 12, 1))
    patch = Frame(_indices(4, 5, 2), left=3, top=2)          # covers part of the canvas
    see_through = Frame(_indices(10, 12, 3), transparent=0)  # index 0 keeps what was there
    _check([first, patch, see_through])


def test_first_frame_partial_and_transparent_pixels_are_black():
    a = Frame(_indices(6, 7, 4), left=2, top=1, transparent=5)
    b = Frame(_indices(8, 9, 5))
    data, want = _check([a, b], screen=(9, 8))
    assert (want[0][:1] == 0).all() and (want[0][:, :2] == 0).all()


def test_canvas_is_the_largest_frame_not_the_logical_screen():
    # the header declares 40 x 30; the frames reach 11 wide and 9 high
    frames = [Frame(_indices(9, 6, 6)), Frame(_indices(4, 11, 7), top=1)]
    data, want = _check(frames, screen=(40, 30))
    assert want.shape == (2, 9, 11, 3)


def test_frames_sticking_out_of_the_canvas_are_clipped():
    frames = [Frame(_indices(8, 8, 8)), Frame(_indices(5, 5, 9), left=6, top=5)]
    _check(frames)


def test_local_colour_tables_and_interlacing():
    local = PALETTE[::-1].copy()
    frames = [Frame(_indices(11, 9, 10), interlace=True),
              Frame(_indices(11, 9, 11), palette=local)]
    data = gif_bytes(frames, palette=PALETTE)
    want = tf_frames(frames, PALETTE)
    _eq(tf.io.decode_gif(data), want)


def test_first_frame_only_when_animations_are_not_expanded():
    frames = [Frame(_indices(5, 6, 12)), Frame(_indices(5, 6, 13))]
    data = gif_bytes(frames, palette=PALETTE)
    want = tf_frames(frames, PALETTE)
    _eq(tf.io.decode_image(data, expand_animations=False), want[0])
    _eq(tf.io.decode_image(data), want)
    f = tf.io.decode_image(data, dtype=tf.float32)
    assert np.asarray(f).dtype == np.float32 and f.shape == (2, 5, 6, 3)
    np.testing.assert_allclose(np.asarray(f), want / np.float32(255), rtol=0, atol=1e-7)


def test_errors():
    anim = gif_bytes([Frame(_indices(5, 6, 14)), Frame(_indices(5, 6, 15))], palette=PALETTE)
    err = tf.errors.InvalidArgumentError
    with pytest.raises(err, match="^Got 2 frames, but animated gifs can only be decoded by "
                                  r"tf.io.decode_gif or tf.io.decode_image$"):
        tf.io.decode_jpeg(anim)
    with pytest.raises(err, match="^Got 2 frames"):
        tf.io.decode_png(anim)
    with pytest.raises(err, match="^channels must be 0 or 3 for GIF, got 1$"):
        tf.io.decode_image(anim, channels=1)
    with pytest.raises(err, match="^Trying to decode GIF format using DecodeBmp op"):
        tf.io.decode_bmp(anim)
    bmp = b"BM" + bytes(60)
    with pytest.raises(err, match="^Trying to decode BMP format using a wrong op. Use "
                                  r"`decode_bmp` or `decode_image` instead. Op used: DecodeGif$"):
        tf.io.decode_gif(bmp)
    with pytest.raises(err, match="^Unknown image file format. One of JPEG, JPEG XL, PNG, "
                                  "GIF, BMP, WebP required.$"):
        tf.io.decode_gif(b"not an image")
    with pytest.raises(err, match="^Input is empty.$"):
        tf.io.decode_gif(b"")
    # cut inside the first frame: nothing to return
    cut = anim[:60]
    with pytest.raises(err, match=r"^Invalid GIF data \(size 60\), failed to slurp gif "
                                  "file: Failed to read from given file$"):
        tf.io.decode_gif(cut)
    # an index past the colour table (8 entries)
    bad = gif_bytes([Frame(np.full((3, 3), 9, np.uint8))], palette=PALETTE)
    with pytest.raises(err, match=r"^Invalid GIF data \(size %d\), found color index 9 "
                                  "outside of color map range 8$" % len(bad)):
        tf.io.decode_gif(bad)
    # no colour table at all
    bare = gif_bytes([Frame(np.zeros((2, 2), np.uint8))], palette=None)
    with pytest.raises(err, match=r"missing color map for frame 0$"):
        tf.io.decode_gif(bare)


def test_a_file_cut_short_keeps_its_complete_frames():
    # TensorFlow 2.21 logs giflib's error and returns the frames read in full
    frames = [Frame(_indices(6, 7, 20)), Frame(_indices(6, 7, 21)), Frame(_indices(6, 7, 22))]
    data = gif_bytes(frames, palette=PALETTE)
    want = tf_frames(frames, PALETTE)
    _eq(tf.io.decode_gif(data[:-1]), want)      # no trailer: all three
    _eq(tf.io.decode_gif(data[:-2]), want[:2])  # the last frame's end missing: two
    _eq(tf.io.decode_image(data[:-40], expand_animations=False), want[0])


def test_jpeg_and_png_are_one_rgb_frame():
    png = tf.io.encode_png(np.arange(16, dtype=np.uint8).reshape(2, 2, 4)).numpy()
    got = tf.io.decode_gif(png)
    assert got.shape == (1, 2, 2, 3)
    _eq(got[0], np.arange(16, dtype=np.uint8).reshape(2, 2, 4)[..., :3])
    gray = tf.io.encode_jpeg(np.full((4, 4, 1), 77, np.uint8)).numpy()
    assert tf.io.decode_gif(gray).shape == (1, 4, 4, 3)


def test_a_huge_declared_frame_is_refused_before_any_allocation():
    # 65535 x 65535 in a 40-byte file: giflib would allocate 4 GiB for the raster
    small = gif_bytes([Frame(np.zeros((1, 1), np.uint8))], palette=PALETTE)
    at = small.index(b",") + 5
    huge = small[:at] + b"\xff\xff\xff\xff" + small[at + 4:]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"frames of up to 65535x65535 take 2\^29 bytes"):
        tf.io.decode_gif(huge)


def test_gif_through_the_batch_decoders():
    frames = [Frame(_indices(7, 9, 16))]
    data = gif_bytes(frames, palette=PALETTE)
    want = tf_frames(frames, PALETTE)[0]
    imgs = tf.image.decode_batch([data, data], size=None)
    _eq(imgs[1], want)
    out = tf.image.decode_batch([data], size=(4, 5), dtype="uint8", scale=None)
    _eq(
        out[0], np.asarray(tf.cast(tf.image.resize(want, (4, 5)), tf.uint8)))


def _records(tmp_path, images):
    path = str(tmp_path / "img.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for img in images:
            w.write(tf.train.Example(features=tf.train.Features(feature={
                "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[img]))}))
                .SerializeToString())
    return path


def _pipeline(path, decode):
    feats = {"image": tf.io.FixedLenFeature([], tf.string)}

    def fn(rec):
        img = decode(tf.io.parse_single_example(rec, feats)["image"])
        return tf.image.resize(img, (6, 6)) / 255.0
    return tf.data.TFRecordDataset(path).map(fn).batch(4)


@pytest.mark.parametrize("engine", ["1", "0"], ids=["c-engine", "python-threads"])
def test_gif_records_in_a_traced_pipeline(tmp_path, monkeypatch, engine):
    monkeypatch.setenv("TFNANO_C_PIPELINE", engine)
    still = gif_bytes([Frame(_indices(9, 7, 17))], palette=PALETTE)
    anim = gif_bytes([Frame(_indices(9, 7, 18)), Frame(_indices(9, 7, 19))], palette=PALETTE)
    jpeg = tf.io.encode_jpeg(np.full((8, 8, 3), 90, np.uint8)).numpy()
    path = _records(tmp_path, [still, jpeg, anim])
    # decode_image(expand_animations=False): the first frame of every GIF
    ds = _pipeline(path, lambda b: tf.io.decode_image(b, channels=3, expand_animations=False))
    assert ("runs on C threads" in ds.plan_text()) == (engine == "1"), ds.plan_text()
    (batch,) = list(ds)
    for k, data in enumerate([still, jpeg, anim]):
        one = tf.image.resize(tf.io.decode_image(data, channels=3, expand_animations=False),
                              (6, 6)) / 255.0
        _eq(batch[k], one)
    # decode_jpeg takes the one-frame GIF and fails on the animated one, as per record
    with pytest.raises(tf.errors.InvalidArgumentError, match="Got 2 frames"):
        list(_pipeline(path, lambda b: tf.io.decode_jpeg(b, channels=3)))
    # decode_image with expand_animations=True: 4-D frames cannot join the 3-D batch
    # (the engine says so; on Python threads the record's own run is what fails)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="expand_animations=False" if engine == "1" else
                       r"Cannot add tensor to the batch: .* \[tensor\]: \[2,6,6,3\]"):
        list(_pipeline(path, lambda b: tf.io.decode_image(b, channels=3)))

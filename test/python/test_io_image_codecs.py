"""tf.io's image codecs are the same functions as tf.image's, loaded on first use."""
import subprocess
import sys

import numpy as np

import tfnano as tf


def test_io_codecs_are_image_functions():
    for name in tf.io._IMAGE_CODECS:
        assert getattr(tf.io, name) is getattr(tf.image, name), name


def test_io_png_round_trip():
    img = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3)
    encoded = tf.io.encode_png(img)
    np.testing.assert_array_equal(np.asarray(tf.io.decode_png(encoded)), img)
    assert not bool(np.asarray(tf.io.is_jpeg(encoded)))


def test_importing_io_does_not_load_images():
    code = "import sys, tfnano.io; print('tfnano.image' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"


def test_unknown_io_name_is_an_attribute_error():
    try:
        tf.io.not_a_tensorflow_name
    except AttributeError as e:
        assert "not_a_tensorflow_name" in str(e)
    else:
        raise AssertionError("expected AttributeError")


def test_cast_to_same_dtype_does_not_copy():
    x = tf.constant(np.linspace(0, 1, 8, dtype=np.float32))
    y = tf.cast(x, tf.float32)
    assert np.shares_memory(np.asarray(x), np.asarray(y))
    z = tf.cast(x, tf.float64)
    assert z.dtype == np.float64 and not np.shares_memory(np.asarray(x), np.asarray(z))

"""What a new user met first (issue 16): a directory as a file name, SNAPPY, file
names that are not strings, and the bytes of a scalar string tensor."""
import io
import sys

import numpy as np
import pytest

import tfnano as tf
from tfnano import errors


def _file(tmp_path):
    path = tmp_path / "r.tfrecord"
    with tf.io.TFRecordWriter(str(path)) as w:
        w.write(b"\xff\x00img")
    return path


def test_reading_a_directory_is_failed_precondition(tmp_path):
    for read in (lambda: list(tf.data.TFRecordDataset(str(tmp_path))),
                 lambda: list(tf.io.tf_record_iterator(str(tmp_path))),
                 lambda: list(tf.data.TFRecordDataset("file://" + str(tmp_path)))):
        with pytest.raises(errors.FailedPreconditionError) as e:
            read()
        assert str(e.value) == "%s; Is a directory" % tmp_path
        assert isinstance(e.value, OSError) and isinstance(e.value, IsADirectoryError)


def test_snappy_is_a_clear_unsupported_error(tmp_path):
    path = _file(tmp_path)
    for comp in ("SNAPPY", "snappy", b"SNAPPY"):
        with pytest.raises(errors.UnimplementedError, match="'SNAPPY' is not supported"):
            list(tf.data.TFRecordDataset(str(path), compression_type=comp))
    # TFRecordOptions knows no SNAPPY, as in TensorFlow
    with pytest.raises(ValueError, match='Not a valid compression_type: "SNAPPY"'):
        list(tf.io.tf_record_iterator(str(path), options="SNAPPY"))


def test_file_names_that_are_not_strings_get_tensorflows_texts():
    with pytest.raises(ValueError) as e:
        tf.data.TFRecordDataset(None)
    assert str(e.value) == ("Attempt to convert a value (None) with an unsupported type "
                            "(<class 'NoneType'>) to a Tensor.")
    for bad in ([123], 123, [b"a.tfrecord", 7]):
        with pytest.raises(TypeError) as e:
            tf.data.TFRecordDataset(bad)
        assert str(e.value) == ("The `filenames` argument must contain `tf.string` "
                                "elements. Got `tf.int32` elements.")
    with pytest.raises(TypeError, match="Got `tf.float32` elements"):
        tf.data.TFRecordDataset([1.5])


def test_bytes_of_a_scalar_string_tensor_are_its_bytes(tmp_path):
    rec = next(iter(tf.data.TFRecordDataset(str(_file(tmp_path)))))
    assert bytes(rec) == b"\xff\x00img"
    assert bytes(tf.constant(b"a\x00b")) == b"a\x00b"
    assert bytes(tf.constant("é")) == "é".encode()
    # numeric tensors keep numpy's bytes
    assert bytes(tf.constant([1, 2])) == np.array([1, 2], np.int32).tobytes()
    with pytest.raises(TypeError, match="take one element"):
        bytes(tf.constant([b"a", b"b"]))


@pytest.mark.skipif(sys.version_info < (3, 12),
                    reason="a Python class can define its buffer (__buffer__) from 3.12 "
                           "on; bytes(t) works on every version")
def test_buffer_of_a_scalar_string_tensor_is_its_bytes(tmp_path):
    rec = next(iter(tf.data.TFRecordDataset(str(_file(tmp_path)))))
    assert io.BytesIO(rec).read() == b"\xff\x00img"
    assert np.frombuffer(rec, np.uint8).tolist() == list(b"\xff\x00img")
    assert memoryview(tf.constant([1.5, 2.0])).tolist() == [1.5, 2.0]
    with pytest.raises(TypeError, match="no byte buffer"):
        memoryview(tf.constant([b"a", b"b"]))


def test_parsed_image_bytes_open_with_pil(tmp_path):
    PIL = pytest.importorskip("PIL.Image")
    png = io.BytesIO()
    PIL.new("RGB", (3, 2), (10, 20, 30)).save(png, format="PNG")
    ex = tf.train.Example(features=tf.train.Features(feature={
        "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[png.getvalue()]))}))
    parsed = tf.io.parse_single_example(ex.SerializeToString(),
                                        {"image": tf.io.FixedLenFeature([], tf.string)})
    img = PIL.open(io.BytesIO(bytes(parsed["image"])))
    assert img.size == (3, 2) and img.getpixel((0, 0)) == (10, 20, 30)

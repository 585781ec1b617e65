"""tfnano.data.ops.tfrecord_writer: tf.data.experimental.TFRecordWriter."""
import numpy as np

import tfnano as tf


def vals(ds):
    return [v.tolist() if isinstance(v, np.ndarray) else v for v in ds.as_numpy_iterator()]


def test_a_dataset_of_strings_written_and_read_back(tmp_path):
    path = str(tmp_path / "w.tfrecord")
    records = [b"one", b"", b"three"]
    tf.data.experimental.TFRecordWriter(path).write(tf.data.Dataset.from_tensor_slices(records))
    assert [bytes(r) for r in tf.data.TFRecordDataset(path).as_numpy_iterator()] == records


def test_gzip(tmp_path):
    path = str(tmp_path / "w.tfrecord.gz")
    writer = tf.data.experimental.TFRecordWriter(path, "GZIP")
    writer.write(tf.data.Dataset.from_tensor_slices([b"a"]))
    with open(path, "rb") as f:
        assert f.read(2) == b"\x1f\x8b"
    assert vals(tf.data.TFRecordDataset(path, "GZIP")) == [b"a"]

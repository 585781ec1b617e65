"""Names the census found missing, without TensorFlow (their TF comparisons are in
test/conformance/test_census_names_tf.py)."""
import numpy as np
import pytest

import tfnano as tf


def test_map_and_batch_is_map_then_batch():
    ds = tf.data.Dataset.range(5).apply(tf.data.experimental.map_and_batch(lambda x: x * 3, 2))
    assert [b.tolist() for b in ds] == [[0, 3], [6, 9], [12]]
    with pytest.raises(ValueError, match="allows only one of"):
        tf.data.experimental.map_and_batch(lambda x: x, 2, num_parallel_batches=1,
                                           num_parallel_calls=2)


def test_range_output_type_keeps_padding_values_an_int32_match():
    a = tf.data.Dataset.range(1, 4, output_type=tf.int32).map(lambda x: tf.fill([x], x))
    b = list(a.padded_batch(2, padded_shapes=4, padding_values=-1))
    assert b[0].dtype == np.int32 and b[0].tolist() == [[1, -1, -1, -1], [2, 2, -1, -1]]


def test_int64_list_takes_numpy_bools():
    assert list(tf.train.Int64List(value=[np.bool_(True), np.bool_(False)]).value) == [1, 0]
    assert list(tf.train.Int64List(value=np.array([False, True])).value) == [0, 1]
    with pytest.raises(TypeError, match="Expected an int, got a boolean"):
        tf.train.Int64List(value=[True])


def test_serialize_sparse_round_trips_through_parse_tensor():
    sp = tf.sparse.SparseTensor([[0, 1], [2, 3]], [1.5, 2.5], [3, 4])
    parts = np.asarray(tf.io.serialize_sparse(sp))
    assert parts.shape == (3,)
    assert tf.io.parse_tensor(parts[0], tf.int64).tolist() == [[0, 1], [2, 3]]
    assert tf.io.parse_tensor(parts[1], tf.float32).tolist() == [1.5, 2.5]
    many = np.asarray(tf.io.serialize_many_sparse(sp))
    assert many.shape == (3, 3)
    assert tf.io.parse_tensor(many[2, 0], tf.int64).tolist() == [[3]]
    with pytest.raises(TypeError, match="Input must be a SparseTensor."):
        tf.io.serialize_sparse([1])


def test_set_shape():
    t = tf.constant([1, 2])
    t.set_shape([None])
    with pytest.raises(ValueError, match=r"shape \(2,\) is not compatible with supplied "
                                         r"shape \(3,\)"):
        t.set_shape([3])


def test_image_colour_ops_on_uint8():
    img = np.full((2, 2, 3), 100, np.uint8)
    assert np.asarray(tf.image.adjust_brightness(img, 0.1)).ravel()[0] == 125
    assert np.asarray(tf.image.adjust_contrast(img, 2.0)).tolist() == img.tolist()
    assert np.asarray(tf.image.rgb_to_grayscale(img)).shape == (2, 2, 1)
    assert np.asarray(tf.image.rot90(np.arange(4).reshape(2, 2, 1))).ravel().tolist() == \
        [1, 3, 0, 2]
    with pytest.raises(ValueError, match="max_delta must be non-negative."):
        tf.image.random_brightness(img, -1)


def test_csv_dataset_and_make_csv_dataset(tmp_path):
    import gzip
    (tmp_path / "a.csv").write_bytes(b'n,s,v\n1,"x,y",2.5\r\n2,z,\n')
    (tmp_path / "b.csv.gz").write_bytes(gzip.compress(b"n,s,v\n3,w,1\n"))
    rows = [tuple(np.asarray(v).tolist() for v in r) for r in
            tf.data.experimental.CsvDataset(str(tmp_path / "a.csv"), [[0], [""], [0.0]],
                                            header=True)]
    assert rows == [(1, b"x,y", 2.5), (2, b"z", 0.0)]
    gz = tf.data.experimental.CsvDataset(str(tmp_path / "b.csv.gz"), [tf.int64, [""], [0.0]],
                                         header=True, compression_type="GZIP")
    assert [int(r[0]) for r in gz] == [3]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Field 2 is required but missing in record!"):
        list(tf.data.experimental.CsvDataset(str(tmp_path / "a.csv"),
                                             [[0], [""], tf.float32], header=True))
    ds = tf.data.experimental.make_csv_dataset(str(tmp_path / "*.csv"), 2, label_name="v",
                                               num_epochs=1, shuffle=False)
    (feats, label), = list(ds)
    assert list(feats) == ["n", "s"] and feats["n"].dtype == np.int32
    assert label.dtype == np.float32 and label.tolist() == [2.5, 0.0]

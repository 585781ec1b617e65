"""tf.data additions: window, group_by_window, bucket_by_sequence_length,
assert_cardinality, scan, unique, rebatch, ragged_batch, sample/choose_from_datasets,
counter, save/load, snapshot, AutoShardPolicy, experimental.TFRecordWriter and
from_generator with declared types (values from TensorFlow's documentation)."""
import numpy as np
import pytest

import tfnano as tf
from tfnano.errors import FailedPreconditionError, InvalidArgumentError


def _ints(ds):
    return [np.asarray(x).tolist() for x in ds]


def test_window():
    ds = tf.data.Dataset.range(7).window(3, shift=2)
    assert [_ints(w) for w in ds] == [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6]]
    ds = tf.data.Dataset.range(7).window(3, shift=1, stride=2, drop_remainder=True)
    assert [_ints(w) for w in ds] == [[0, 2, 4], [1, 3, 5], [2, 4, 6]]
    assert int(tf.data.Dataset.range(7).window(2).cardinality()) == 4
    pairs = tf.data.Dataset.from_tensor_slices(([1, 2, 3], ["a", "b", "c"])).window(2)
    first = next(iter(pairs))
    assert isinstance(first, tuple) and _ints(first[0]) == [1, 2]
    flat = tf.data.Dataset.range(5).window(2, drop_remainder=True).flat_map(
        lambda w: w.batch(2))
    assert _ints(flat) == [[0, 1], [2, 3]]
    with pytest.raises(InvalidArgumentError):
        tf.data.Dataset.range(3).window(0)


def test_group_by_window_and_buckets():
    ds = tf.data.Dataset.range(10).group_by_window(
        key_func=lambda x: x % 2, reduce_func=lambda key, d: d.batch(3), window_size=3)
    assert _ints(ds) == [[0, 2, 4], [1, 3, 5], [6, 8], [7, 9]]
    with pytest.raises(ValueError, match="window_size"):
        tf.data.Dataset.range(3).group_by_window(lambda x: x, lambda k, d: d)

    def gen():
        for n in [1, 5, 2, 6, 3, 7, 4]:
            yield [n] * n
    ds = tf.data.Dataset.from_generator(gen, output_types=tf.int64, output_shapes=[None])
    out = _ints(ds.bucket_by_sequence_length(lambda x: tf.shape(x)[0], [3, 5], [2, 2, 2]))
    assert out == [[[1, 0], [2, 2]], [[5, 5, 5, 5, 5, 0], [6, 6, 6, 6, 6, 6]],
                   [[3, 3, 3, 0], [4, 4, 4, 4]], [[7] * 7]]
    padded = _ints(ds.apply(tf.data.experimental.bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], [3, 8], [2, 2, 2], pad_to_bucket_boundary=True)))
    assert [np.shape(b) for b in padded] == [(2, 2), (2, 7), (2, 7), (1, 7)]


def test_assert_cardinality_scan_unique_rebatch():
    ds = tf.data.Dataset.range(3)
    assert int(ds.filter(lambda x: x < 9).assert_cardinality(3).cardinality()) == 3
    with pytest.raises(FailedPreconditionError, match="expected to contain 2 elements but "
                                                      "contained at least 3 elements"):
        list(ds.assert_cardinality(2))
    with pytest.raises(FailedPreconditionError, match="expected to contain 5 elements but "
                                                      "contained only 3 elements"):
        list(ds.assert_cardinality(5))
    sums = tf.data.Dataset.range(5).scan(np.int64(0), lambda s, x: (s + x, s + x))
    assert _ints(sums) == [0, 1, 3, 6, 10]
    assert _ints(tf.data.Dataset.from_tensor_slices([1, 2, 1, 3, 2]).unique()) == [1, 2, 3]
    assert _ints(tf.data.Dataset.range(10).batch(4).rebatch(3)) == [[0, 1, 2], [3, 4, 5],
                                                                     [6, 7, 8], [9]]
    rb = next(iter(tf.data.Dataset.from_tensor_slices([1, 2, 3]).map(
        lambda x: tf.range(x)).ragged_batch(2)))
    assert rb.to_list() == [[0], [0, 1]]


def test_sample_choose_counter():
    a = tf.data.Dataset.from_tensors("a").repeat()
    b = tf.data.Dataset.from_tensors("b").repeat()
    chosen = tf.data.Dataset.choose_from_datasets([a, b], tf.data.Dataset.range(2).repeat(2))
    assert list(chosen.as_numpy_iterator()) == [b"a", b"b", b"a", b"b"]
    mixed = tf.data.Dataset.sample_from_datasets([tf.data.Dataset.range(100),
                                                  tf.data.Dataset.range(100, 200)],
                                                 weights=[0.5, 0.5], seed=1)
    got = _ints(mixed)
    assert sorted(got) == list(range(200))  # every element once, inputs interleaved
    assert got != list(range(200))
    assert _ints(tf.data.Dataset.counter(3, 2).take(3)) == [3, 5, 7]
    assert _ints(tf.data.experimental.Counter().take(2)) == [0, 1]


def test_save_load_snapshot(tmp_path):
    ds = tf.data.Dataset.from_tensor_slices({"x": [1, 2], "s": ["a", "bc"]})
    ds.save(str(tmp_path / "saved"))
    back = tf.data.Dataset.load(str(tmp_path / "saved"))
    assert [(int(e["x"]), e["s"].numpy()) for e in back] == [(1, b"a"), (2, b"bc")]
    assert _ints(tf.data.Dataset.range(3).snapshot(str(tmp_path / "snap"))) == [0, 1, 2]


def test_auto_shard_policy_and_tfrecord_writer(tmp_path):
    policy = tf.data.experimental.AutoShardPolicy
    assert (policy.OFF, policy.AUTO, policy.FILE, policy.DATA) == (-1, 0, 1, 2)
    assert str(policy.DATA) == "2" and policy.DATA.name == "DATA"  # an IntEnum, as TF's
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = policy.DATA
    ds = tf.data.Dataset.range(4).with_options(options)
    assert ds.options().experimental_distribute.auto_shard_policy == policy.DATA
    assert _ints(ds) == [0, 1, 2, 3]
    path = str(tmp_path / "out.tfrecord")
    tf.data.experimental.TFRecordWriter(path).write(
        tf.data.Dataset.from_tensor_slices([b"x", b"yz"]))
    assert [r.numpy() for r in tf.data.TFRecordDataset(path)] == [b"x", b"yz"]
    with pytest.raises(TypeError, match="scalar"):
        tf.data.experimental.TFRecordWriter(path).write(tf.data.Dataset.range(2))


def test_from_generator_declared_types():
    ds = tf.data.Dataset.from_generator(lambda: iter([[1.5, 2.0]]), output_types=tf.float32)
    el = next(iter(ds))
    assert el.dtype == np.float32 and el.tolist() == [1.5, 2.0]
    sig = (tf.TensorSpec([None], tf.int32), tf.TensorSpec([], tf.string))
    ds = tf.data.Dataset.from_generator(lambda: iter([([1, 2], "a")]), output_signature=sig)
    x, s = next(iter(ds))
    assert x.dtype == np.int32 and s.numpy() == b"a"
    assert ds.element_spec[0].shape == (None,)
    bad = tf.data.Dataset.from_generator(lambda: iter([[1, 2, 3]]), output_types=tf.int64,
                                         output_shapes=[2])
    with pytest.raises(InvalidArgumentError, match="yielded an element of shape \\(3,\\) "
                                                   "where an element of shape \\(2,\\)"):
        list(bad)
    bad = tf.data.Dataset.from_generator(lambda: iter([1]),
                                         output_types=(tf.int64, tf.int64))
    with pytest.raises(InvalidArgumentError, match="did not match the expected structure"):
        list(bad)


def test_take_while_and_get_single_element():
    ds = tf.data.Dataset.range(10).take_while(lambda x: x < 4)
    assert _ints(ds) == [0, 1, 2, 3]
    assert int(tf.data.Dataset.range(1).get_single_element()) == 0
    with pytest.raises(InvalidArgumentError, match="Dataset was empty"):
        tf.data.Dataset.range(0).get_single_element()
    with pytest.raises(InvalidArgumentError, match="more than one element"):
        tf.data.experimental.get_single_element(tf.data.Dataset.range(2))

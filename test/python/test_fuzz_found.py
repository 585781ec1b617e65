"""What the differential pipeline fuzzer (test/conformance/test_fuzz_pipelines_tf.py)
found, fixed, each checked here against TensorFlow 2.21's observed behaviour."""
import numpy as np
import pytest

import tfnano as tf


def test_a_list_inside_the_returned_structure_packs_with_the_tensors_dtype():
    ds = tf.data.Dataset.range(3).map(lambda x: (x, [x * 2]))
    assert repr(ds.element_spec[1]) == "TensorSpec(shape=(1,), dtype=tf.int64, name=None)"
    second = list(ds)[1][1]
    assert second.numpy().dtype == np.int64 and second.numpy().tolist() == [2]
    d2 = tf.data.Dataset.range(2).map(lambda x: {"a": [x, 7]})
    assert repr(d2.element_spec["a"]) == "TensorSpec(shape=(2,), dtype=tf.int64, name=None)"
    assert [e["a"].numpy().tolist() for e in d2] == [[0, 7], [1, 7]]


def test_a_list_of_tensors_of_two_dtypes_or_ranks_is_refused_when_the_map_is_made():
    for fn in (lambda x: (x, [x, tf.cast(x, tf.float32)]),
               lambda x: {"y": [tf.stack([x, x]), x]}):
        with pytest.raises(TypeError, match="^Unsupported return value from function "
                                            "passed to Dataset.map\\(\\): "):
            tf.data.Dataset.range(2).map(fn)


def test_unbatch_refuses_scalars_and_unequal_leading_dimensions_when_made():
    with pytest.raises(ValueError, match="^Cannot unbatch an input with scalar components"):
        tf.data.Dataset.range(3).unbatch()
    with pytest.raises(ValueError) as e:
        tf.data.Dataset.from_tensors((np.zeros(3), {"k": np.zeros((2, 1))})).unbatch()
    assert str(e.value) == ("`unbatch()` is only supported for datasets of elements whose "
                            "components have a matching leading dimension. Encountered "
                            "both 3 and 2.")
    ok = tf.data.Dataset.from_tensors((np.zeros(3), np.zeros((3, 2)))).unbatch()
    assert len(list(ok)) == 3


def test_as_string_passes_strings_through():
    assert tf.strings.as_string(tf.constant([b"ab", b"c"])).numpy().tolist() == [b"ab", b"c"]
    assert tf.strings.as_string("x", width=3).numpy() == b"  x"
    ds = tf.data.Dataset.range(2).map(lambda x: tf.strings.as_string(tf.strings.as_string(x)))
    assert [e.numpy() for e in ds] == [b"0", b"1"]


def test_fill_of_a_known_shape_has_that_static_shape():
    ds = tf.data.Dataset.from_tensor_slices(np.zeros((4, 2, 2))).map(
        lambda x: tf.fill(tf.shape(x), 0.5))
    assert repr(ds.element_spec) == "TensorSpec(shape=(2, 2), dtype=tf.float32, name=None)"
    dyn = tf.data.Dataset.range(3).batch(2).map(lambda x: tf.fill(tf.shape(x), 1))
    assert repr(dyn.element_spec) == "TensorSpec(shape=(None,), dtype=tf.int32, name=None)"


def test_interleave_keeps_unknown_sizes_unknown():
    ds = tf.data.Dataset.from_tensor_slices(np.zeros((5, 3))).padded_batch(4)
    out = ds.interleave(lambda x: tf.data.Dataset.from_tensors(x).repeat(2), cycle_length=2)
    assert repr(out.element_spec) == "TensorSpec(shape=(None, 3), dtype=tf.float64, name=None)"
    assert [e.shape[0] for e in out] == [4, 1, 4, 1]


def test_one_string_taken_from_a_string_tensor_in_a_map_is_bytes():
    src = tf.data.Dataset.from_tensor_slices(np.array([[b"ab", b"c"]] * 3, dtype=object))
    for fn in (lambda x: x[0], lambda x: tf.gather(x, 1)):
        got = next(iter(src.map(fn))).numpy()
        assert type(got) is bytes


def test_fill_of_a_partly_known_shape_keeps_the_known_sizes():
    ds = tf.data.Dataset.from_tensor_slices(np.zeros((6, 2, 2), np.int32)).padded_batch(4)
    out = ds.map(lambda x: tf.fill(tf.shape(x), 0.5))
    assert repr(out.element_spec) == \
        "TensorSpec(shape=(None, 2, 2), dtype=tf.float32, name=None)"


def test_shuffle_then_repeat_zero_fails_as_tensorflows_fused_op():
    for ds in (tf.data.Dataset.range(3).shuffle(2).repeat(0),
               tf.data.Dataset.range(3).shuffle(2, seed=1).map(lambda x: x).repeat(-2)):
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="^count must be greater than zero or equal to -1.$"):
            list(ds)
    assert list(tf.data.Dataset.range(3).repeat(0)) == []


def test_expand_dims_keeps_the_known_sizes_in_the_spec():
    ds = tf.data.Dataset.from_tensor_slices(np.zeros((0, 2), np.int32)).batch(1)
    got = [repr(ds.map(lambda x: tf.expand_dims(x, ax)).element_spec.shape)
           for ax in (0, 1, -1)]
    assert got == ["TensorShape([1, None, 2])", "TensorShape([None, 1, 2])",
                   "TensorShape([None, 2, 1])"]


def test_indexing_keeps_the_known_sizes_in_the_spec():
    ds = tf.data.Dataset.from_tensor_slices(np.zeros((5, 2), np.int32)).batch(2)
    cases = [(lambda x: x[0], "[2]"), (lambda x: x[:1], "[None, 2]"),
             (lambda x: x[..., 0], "[None]"), (lambda x: x[:, :1], "[None, 1]"),
             (lambda x: x[-1], "[2]")]
    for fn, want in cases:
        assert repr(ds.map(fn).element_spec.shape) == "TensorShape(%s)" % want


def test_string_case_ops_refuse_numbers_when_the_map_is_made():
    with pytest.raises(TypeError) as e:
        tf.data.Dataset.range(0).map(tf.strings.upper)
    assert str(e.value) == ("Input 'input' of 'StringUpper' Op has type int64 that does not "
                            "match expected type of string.")


def _varlen_records(tmp_path, counts):
    path = str(tmp_path / "varlen.tfrec")
    F = tf.train
    with tf.io.TFRecordWriter(path) as w:
        for k in counts:
            feature = {"f": F.Feature(float_list=F.FloatList(value=[0.0, 0.0])),
                       "i": F.Feature(int64_list=F.Int64List(value=list(range(k))))}
            w.write(F.Example(features=F.Features(feature=feature)).SerializeToString())
    return path


def test_size_and_shape_of_varlen_values_count_each_record(tmp_path):
    # vectorized maps see a VarLenFeature's values padded to the longest record:
    # tf.size and tf.shape must still give each record's own count (found by the
    # pipeline fuzzer once maps ran vectorized without a batch after them)
    path = _varlen_records(tmp_path, [1, 0, 3, 2])
    feats = {"i": tf.io.VarLenFeature(tf.int64), "f": tf.io.FixedLenFeature([2], tf.float32)}

    def parse(r):
        ex = tf.io.parse_single_example(r, feats)
        v = ex["i"].values
        return ex["f"], tf.size(v), tf.shape(v)[0]

    ds = tf.data.TFRecordDataset(path).map(parse)
    assert [(int(s), int(d)) for _, s, d in ds] == [(1, 1), (0, 0), (3, 3), (2, 2)]
    for _, s, d in ds.batch(4):
        assert s.numpy().tolist() == [1, 0, 3, 2] and d.numpy().tolist() == [1, 0, 3, 2]
    got = [(s.numpy().tolist(), d.numpy().tolist()) for _, s, d in ds.padded_batch(2)]
    assert got == [([1, 0], [1, 0]), ([3, 2], [3, 2])]

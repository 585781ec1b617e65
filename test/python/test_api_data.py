"""tf.data machinery through the Python API: nested structures through map / batch /
padded_batch / shuffle / repeat / take / cache / prefetch / interleave, options."""
import threading

import numpy as np
import pytest

import tfnano as tf
from tfnano.errors import InvalidArgumentError


def values(ds):
    return [tf.data.Dataset.from_tensors(0) and _plain(el) for el in ds]


def _plain(el):
    if isinstance(el, dict):
        return {k: _plain(v) for k, v in el.items()}
    if isinstance(el, tuple):
        return tuple(_plain(v) for v in el)
    return el.numpy().tolist() if hasattr(el, "numpy") else el


def test_range_take_skip_repeat():
    ds = tf.data.Dataset.range(5)
    assert values(ds) == [0, 1, 2, 3, 4]
    assert values(ds.take(2)) == [0, 1]
    assert values(ds.skip(3)) == [3, 4]
    assert values(ds.repeat(2)) == [0, 1, 2, 3, 4] * 2
    assert values(ds.repeat().take(7)) == [0, 1, 2, 3, 4, 0, 1]
    assert len(ds.repeat(3)) == 15 and len(ds.batch(2)) == 3
    assert len(ds.batch(2, drop_remainder=True)) == 2


def test_map_with_tuples_and_dicts():
    ds = tf.data.Dataset.from_tensor_slices((np.arange(4), np.arange(4) * 10))
    ds = ds.map(lambda x, y: {"x": x, "y": y + 1})
    assert values(ds) == [{"x": i, "y": i * 10 + 1} for i in range(4)]
    b = next(iter(ds.batch(3)))
    assert b["x"].tolist() == [0, 1, 2] and b["y"].tolist() == [1, 11, 21]
    ds2 = tf.data.Dataset.from_tensor_slices({"a": np.arange(3), "b": [b"p", b"q", b"r"]})
    assert values(ds2.batch(2)) == [{"a": [0, 1], "b": [b"p", b"q"]}, {"a": [2], "b": [b"r"]}]


def test_map_python_values_become_tensors():
    el = next(iter(tf.data.Dataset.range(1).map(lambda x: (1, 2.5, "s"))))
    assert el[0].dtype == np.int32 and el[1].dtype == np.float32 and el[2].numpy() == b"s"


def test_parallel_map_keeps_order_and_uses_threads():
    seen = set()

    def f(x):
        seen.add(threading.get_ident())
        return x * 2
    ds = tf.data.Dataset.range(200).map(f, num_parallel_calls=tf.data.AUTOTUNE)
    assert values(ds) == [2 * i for i in range(200)]
    opts = tf.data.Options()
    opts.experimental_deterministic = False
    ds = tf.data.Dataset.range(100).map(f, num_parallel_calls=4).with_options(opts)
    assert sorted(values(ds)) == [2 * i for i in range(100)]
    assert opts.deterministic is False


def test_batch_shape_error():
    ds = tf.data.Dataset.from_generator(lambda: iter([np.zeros(3), np.zeros(2)]))
    with pytest.raises(InvalidArgumentError) as e:
        list(ds.batch(2))
    assert str(e.value) == ("Cannot batch tensors with different shapes in component 0. "
                            "First element had shape [3] and element 1 had shape [2].")


def test_padded_batch():
    ds = tf.data.Dataset.range(1, 5).map(lambda x: np.arange(int(x)))
    assert values(ds.padded_batch(2)) == [[[0, 0], [0, 1]], [[0, 1, 2, 0], [0, 1, 2, 3]]]
    assert values(ds.padded_batch(2, padded_shapes=[5], padding_values=np.int64(-1)))[0] == \
        [[0, -1, -1, -1, -1], [0, 1, -1, -1, -1]]
    with pytest.raises(tf.errors.DataLossError):  # TensorFlow 2.21's class for it
        list(ds.padded_batch(4, padded_shapes=[2]))


def test_padded_batch_padding_value_types_as_tensorflow():
    # -1 is an int32 tensor for TensorFlow: not the int64 components' type
    msg = ("Invalid `padding_values`. `padding_values` values type <dtype: 'int32'> does "
           "not match type <dtype: 'int64'> of the corresponding input component.")
    known = tf.data.Dataset.range(1, 5).map(lambda x: tf.fill([x], x))  # traced: types known
    with pytest.raises(TypeError) as e:
        known.padded_batch(2, padding_values=-1)  # when the dataset is made, as TF
    assert str(e.value) == msg
    unknown = tf.data.Dataset.range(1, 5).map(lambda x: np.arange(int(x)))  # per record
    ds = unknown.padded_batch(2, padding_values=-1)
    with pytest.raises(TypeError) as e:
        list(ds)  # the types are known at the first batch
    assert str(e.value) == msg
    with pytest.raises(ValueError, match="values should be scalars, but got \\(2,\\)"):
        known.padded_batch(2, padding_values=[0, 1])
    pairs = tf.data.Dataset.from_tensor_slices((np.arange(4, dtype=np.int32),
                                                np.ones(4, np.float32)))
    assert len(list(pairs.padded_batch(2, padding_values=(0, 0.5)))) == 2  # int32, float32
    assert len(list(pairs.padded_batch(2, padding_values=(None, 0.5)))) == 2
    with pytest.raises(TypeError, match="type <dtype: 'float64'> does not match type "
                                        "<dtype: 'float32'>"):
        pairs.padded_batch(2, padding_values=(0, np.float64(0.5)))
    words = tf.data.Dataset.from_tensor_slices([b"a", b"bb"])
    assert len(list(words.padded_batch(2, padding_values=""))) == 1
    with pytest.raises(TypeError, match="type <dtype: 'int32'> does not match type "
                                        "<dtype: 'string'>"):
        words.padded_batch(2, padding_values=0)


def test_shuffle_is_a_permutation_seeded_and_reshuffles():
    ds = tf.data.Dataset.range(100).shuffle(10, seed=3)
    a, b = values(ds), values(ds)
    assert sorted(a) == list(range(100)) and sorted(b) == list(range(100))
    assert a != list(range(100)) and a != b  # reshuffled each iteration
    fixed = tf.data.Dataset.range(100).shuffle(10, seed=3, reshuffle_each_iteration=False)
    assert values(fixed) == values(fixed)
    # buffer semantics: element i can only come out after at most i+buffer inputs
    out = values(tf.data.Dataset.range(100).shuffle(5, seed=1))
    assert all(v <= pos + 4 for pos, v in enumerate(out))


def test_cache_runs_upstream_once():
    calls = []

    def untraceable(x):
        v = int(x)  # a Python conversion: runs per record, untraced
        calls.append(1)
        return v
    ds = tf.data.Dataset.range(3).map(untraceable).cache()
    assert values(ds) == [0, 1, 2] and values(ds) == [0, 1, 2]
    assert len(calls) == 3


def test_traced_function_side_effects_run_once_as_in_tensorflow():
    calls = []
    ds = tf.data.Dataset.range(3).map(lambda x: calls.append(1) or x)
    assert values(ds) == [0, 1, 2] and values(ds) == [0, 1, 2]
    assert len(calls) == 1  # at trace time, as tf.function does


def test_prefetch_and_error_propagation():
    assert values(tf.data.Dataset.range(50).prefetch(tf.data.AUTOTUNE)) == list(range(50))

    def bad(x):
        if int(x) == 3:
            raise tf.errors.InvalidArgumentError(None, None, "boom")
        return x
    it = iter(tf.data.Dataset.range(10).map(bad).prefetch(2))
    assert [int(next(it)) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match="boom"):
        next(it)
    ok = tf.data.Dataset.range(10).map(bad).apply(tf.data.experimental.ignore_errors())
    assert values(ok) == [0, 1, 2, 4, 5, 6, 7, 8, 9]


def test_interleave_order_like_tf_docs():
    ds = tf.data.Dataset.range(1, 6).interleave(
        lambda x: tf.data.Dataset.from_tensors(x).repeat(6), cycle_length=2, block_length=4)
    assert values(ds) == [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3,
                          4, 4, 5, 5, 5, 5, 5, 5]


def test_filter_unbatch_enumerate_zip_numpy_iterator():
    ds = tf.data.Dataset.range(6).filter(lambda x: x % 2 == 0)
    assert values(ds) == [0, 2, 4]
    assert values(ds.batch(2).unbatch()) == [0, 2, 4]
    assert values(ds.enumerate()) == [(0, 0), (1, 2), (2, 4)]
    z = tf.data.Dataset.zip((tf.data.Dataset.range(2), tf.data.Dataset.range(2, 4)))
    assert values(z) == [(0, 2), (1, 3)]
    assert list(tf.data.Dataset.range(2).as_numpy_iterator()) == [0, 1]


def test_autotune_constants():
    assert tf.data.AUTOTUNE == tf.data.experimental.AUTOTUNE == -1


def test_batch_and_padded_batch_of_strings():
    ds = tf.data.Dataset.from_tensor_slices(np.array([b"a", b"bb", b"c\x00"], dtype=object))
    b = next(iter(ds.batch(3)))
    assert b.dtype == object and b.numpy().tolist() == [b"a", b"bb", b"c\x00"]
    assert b[1].numpy() == b"bb"
    pb = next(iter(ds.map(lambda s: (s, tf.constant([1, 2]))).padded_batch(2)))
    assert pb[0].numpy().tolist() == [b"a", b"bb"] and pb[1].tolist() == [[1, 2], [1, 2]]


def test_padded_batch_nested_padding_values():
    ds = tf.data.Dataset.range(1, 4).map(lambda x: ((np.arange(int(x)), x), np.ones(int(x))))
    # the exact component types, as TensorFlow requires (int64 x, float64 ones)
    (a, x), c = next(iter(ds.padded_batch(3, padding_values=((None, np.int64(0)),
                                                               np.float64(-1.0)))))
    assert a.tolist() == [[0, 0, 0], [0, 1, 0], [0, 1, 2]]
    assert c.tolist() == [[1, -1, -1], [1, 1, -1], [1, 1, 1]]


def test_pipeline_elements_are_freed_without_the_garbage_collector(tmp_path):
    """Elements must not sit in reference cycles: a batch held until the collector runs
    keeps its (pooled) output memory from the next batch, which then page-faults."""
    import gc
    path = str(tmp_path / "cyc.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        w.write_columns({"x": np.arange(64 * 3).reshape(64, 3)})
    feats = {"x": tf.io.FixedLenFeature([3], tf.int64)}
    ds = (tf.data.TFRecordDataset([path]).batch(8)
          .map(lambda b: (tf.io.parse_example(b, feats), {"n": b}))
          .map(lambda d, e: {"x": d["x"], "pair": (d["x"], e["n"])}))
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        total = sum(int(el["x"].numpy().sum()) for el in ds)
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        leaked = [type(o).__name__ for o in gc.garbage if type(o).__name__ == "Tensor"]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()
    assert total == int(np.arange(64 * 3).sum())
    assert leaked == []

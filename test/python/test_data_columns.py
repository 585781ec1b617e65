"""A traced map runs vectorized on chunks whatever follows it (data/columns.py), with
the values and order of element-by-element execution (debug mode runs every function
per element, untraced: the reference), whatever structure it returns; explain() says
how each function runs, checked against what ran; AUTOTUNE cycle lengths follow
TensorFlow's rule."""
import collections
import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tfnano as tf
from tfnano.data import autotune, execute
from tfnano.data.ops.map import MapNode

N = 700


def base():
    return tf.data.Dataset.from_tensor_slices(
        (np.arange(N * 4, dtype=np.int64).reshape(N, 4), np.arange(N, dtype=np.int64) % 7))


def f(x, label):
    return {"x": tf.cast(x, tf.int32), "h": tf.one_hot(label, 7)}, [label, label * 2]


def reference(make):
    tf.data.experimental.enable_debug_mode()
    try:
        return list(make().as_numpy_iterator())
    finally:
        tf.data.experimental.disable_debug_mode()


def same(a, b):
    return pickle.dumps(a) == pickle.dumps(b)


SHAPES = {
    "shuffle -> batch": lambda: base().map(f).shuffle(64, seed=5).batch(32),
    "cache -> shuffle -> repeat -> take -> batch":
        lambda: base().map(f).cache().shuffle(100, seed=1).repeat(3).take(2000).batch(64),
    "repeat -> batch": lambda: base().map(f).repeat(2).batch(50, drop_remainder=True),
    "skip -> take": lambda: base().map(f).skip(13).take(300),
    "no batch": lambda: base().map(f),
    "prefetch -> batch": lambda: base().map(f).prefetch(3).batch(16),
    "shard -> batch": lambda: base().map(f).shard(3, 1).batch(16),
    "filter -> batch": lambda: base().map(f).filter(lambda d, t: t[0] > 2).batch(16),
    "shuffle before the map": lambda: base().shuffle(50, seed=2).map(f).batch(8),
    "range source": lambda: tf.data.Dataset.range(300).map(lambda i: (i, [i, i + 1]))
        .shuffle(40, seed=9).batch(7),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_shape_gives_the_per_element_result(name):
    make = SHAPES[name]
    assert same(list(make().as_numpy_iterator()), reference(make))


def test_the_map_runs_on_chunks_and_explain_says_so():
    ds = base().map(f).cache().shuffle(100, seed=1).repeat(2).batch(64)
    text = ds.explain() if isinstance(ds.explain(), str) else None
    fn = map_fns(ds)[0]
    list(ds)
    assert fn.element_runs == 0 and fn.batch_runs == -(-N // 256)
    assert text is None or "per element" not in text


def test_a_listed_result_is_packed_batched_as_tensorflow_does():
    def read(x, label):
        return x, [label, label + 1, label + 2, label + 3]
    ds = base().map(read).batch(64)
    first = next(iter(ds))[1].numpy()
    assert first.shape == (64, 4) and first.dtype == np.int64
    assert "not vectorized" not in explain(ds)
    assert map_fns(ds)[0].vectorized


def test_seeded_shuffle_order_is_unchanged_by_columns():
    """The columns' shuffle draws the same positions as the element stage: the same
    order for a seed with and without a map before it."""
    rows = np.arange(500, dtype=np.int64)
    plain = [int(x) for x in tf.data.Dataset.from_tensor_slices(rows).shuffle(64, seed=3)
             .as_numpy_iterator()]

    def from_gen():  # a generator source hands out elements, not columns
        return tf.data.Dataset.from_generator(
            lambda: iter(rows), output_signature=tf.TensorSpec([], tf.int64))
    elementwise = [int(x) for x in from_gen().shuffle(64, seed=3).as_numpy_iterator()]
    assert plain == elementwise


def test_an_error_keeps_its_place_and_the_rest_follows():
    table = tf.constant(np.arange(0, 1000, 2, dtype=np.int64))

    def g(x):
        return tf.gather(table, (x * 7) % 600)  # out of range for some elements

    make = lambda: tf.data.Dataset.range(600).map(g).ignore_errors()  # noqa: E731
    assert map_fns(make())[0].vectorized
    got = [int(v) for v in make().as_numpy_iterator()]
    assert got == [int(v) for v in reference(make)] and len(got) == 500


# ---- explain() tells the truth

def map_fns(ds):
    out, todo = [], [ds._node]
    while todo:
        n = todo.pop()
        if isinstance(n, MapNode):
            out.append(n.fn)
        todo.extend(n.inputs)
    return out


def explain(ds):
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        r = ds.explain()
    return r if isinstance(r, str) else buf.getvalue()


def claims(text):
    """How the explained plan says its (single) user function runs."""
    if "runs on C threads" in text:
        return "c"
    if "| vectorized: " in text:
        return "vectorized"
    return "per element"


TRUTH_CASES = {
    "map -> shuffle -> batch": lambda: base().map(f).shuffle(30).batch(8),
    "map -> batch": lambda: base().map(f).batch(8),
    "python function": lambda: base().map(lambda x, y: (x.numpy() + 1, y)).shuffle(9),
    "ragged output": lambda: tf.data.Dataset.range(50).map(lambda i: tf.range(i)),
    "batch -> map": lambda: base().batch(9).map(f),
    "map -> filter": lambda: base().map(f).filter(lambda d, t: t[0] > 2),
}


@pytest.mark.parametrize("name", sorted(TRUTH_CASES))
def test_explain_claims_what_runs(name):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = TRUTH_CASES[name]()
    text = explain(ds)
    fn = map_fns(ds)[0]
    for _ in ds:
        pass
    claim = claims(text.split("map")[-1] if "filter" in text else text)
    if claim == "vectorized":
        assert fn.element_runs == 0 and fn.batch_runs > 0, text
    elif claim == "per element":
        assert fn.element_runs > 0 and fn.batch_runs == 0, text
    else:
        assert fn.element_runs == 0, text


# ---- any returned structure stays vectorized

LEAF = st.sampled_from(["x", "y", "x+y", "one", "cast", "list"])


def structures():
    return st.recursive(LEAF, lambda inner: st.one_of(
        st.tuples(inner, inner),
        st.dictionaries(st.sampled_from("abc"), inner, min_size=1, max_size=3),
        st.tuples(inner, inner).map(lambda t: ("nt",) + t)), max_leaves=6)


Pair = collections.namedtuple("Pair", "first second")


def build(shape, x, y):
    if isinstance(shape, str):
        return {"x": x, "y": y, "x+y": x + y, "one": 1.5,
                "cast": tf.cast(x, tf.float32), "list": [x, y, 3]}[shape]
    if isinstance(shape, dict):
        return {k: build(v, x, y) for k, v in shape.items()}
    if shape[0] == "nt":
        return Pair(build(shape[1], x, y), build(shape[2], x, y))
    return tuple(build(v, x, y) for v in shape)


@settings(max_examples=25, deadline=None)
@given(structures(), st.sampled_from(["batch", "shuffle", "none"]))
def test_random_structures_stay_vectorized(shape, after):
    def fn(x, y):
        return build(shape, x, y)

    def make():
        ds = tf.data.Dataset.from_tensor_slices(
            (np.arange(40, dtype=np.int64), np.arange(40, dtype=np.int64) * 3)).map(fn)
        if after == "shuffle":
            ds = ds.shuffle(7, seed=4)
        return ds.batch(6) if after != "none" else ds
    ds = make()
    fn_ = map_fns(ds)[0]
    assert fn_.vectorized, explain(ds)
    assert "per element" not in explain(ds)
    assert same(list(ds.as_numpy_iterator()), reference(make))


# ---- AUTOTUNE cycle lengths (TensorFlow's ComputeCycleLength)

@pytest.mark.parametrize("cores,both_auto,sequential,calls4",
                         [(1, 1, 1, 1), (2, 1, 2, 2), (3, 1, 3, 3), (8, 3, 8, 4),
                          (64, 22, 64, 4)])
def test_cycle_length_rule(cores, both_auto, sequential, calls4):
    A = tf.data.AUTOTUNE
    assert autotune.cycle_length(A, A, cores) == both_auto
    assert autotune.cycle_length(None, A, cores) == both_auto
    assert autotune.cycle_length(None, None, cores) == sequential
    assert autotune.cycle_length(A, 4, cores) == calls4
    assert autotune.cycle_length(5, A, cores) == 5


@pytest.mark.parametrize("cores", [1, 2, 3, 8, 64])
def test_autotune_reads_in_tensorflows_order(tmp_path, monkeypatch, cores):
    files = []
    for s in range(4):
        p = str(tmp_path / ("f%d" % s))
        with tf.io.TFRecordWriter(p) as w:
            for i in range(3):
                w.write(b"%d_%d" % (s, i))
        files.append(p)
    monkeypatch.setattr(autotune, "cpu_count", lambda: cores)
    got = [x.decode() for x in tf.data.TFRecordDataset(
        files, num_parallel_reads=tf.data.AUTOTUNE).as_numpy_iterator()]
    cycle = -(-cores // 3)
    want, slots, pending = [], [], [list(range(3)) and ["%d_%d" % (s, i) for i in range(3)]
                                    for s in range(4)]
    while pending or slots:  # round robin over `cycle` open files, refilled in order
        while pending and len(slots) < cycle:
            slots.append(pending.pop(0))
        k = 0
        while k < len(slots):
            want.append(slots[k].pop(0))
            if not slots[k]:
                slots[k] = pending.pop(0) if pending else None
                if slots[k] is None:
                    slots.pop(k)
                    continue
            k += 1
    assert got == want

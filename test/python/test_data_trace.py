"""tf.data functions traced, vectorized and fused: the results equal per-record Python
execution (debug mode), explain() says what runs how, the fallback warns once with
its reason, and errors keep TensorFlow's per-record texts."""
import io
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st

import tfnano as tf
from tfnano.data import experimental as exp
from tfnano.errors import InvalidArgumentError


@pytest.fixture(params=["c", "python"])
def engine(request, monkeypatch):
    """The fused TFRecordDataset -> map -> batch chain on the C pipeline engine, and
    on Python threads (TFNANO_C_PIPELINE=0)."""
    monkeypatch.setenv("TFNANO_C_PIPELINE", "1" if request.param == "c" else "0")
    return request.param


def example(**feats):
    out = {}
    for k, v in feats.items():
        if isinstance(v, bytes):
            out[k] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[v]))
        elif isinstance(v, float) or (isinstance(v, list) and v and isinstance(v[0], float)):
            out[k] = tf.train.Feature(float_list=tf.train.FloatList(
                value=v if isinstance(v, list) else [v]))
        else:
            out[k] = tf.train.Feature(int64_list=tf.train.Int64List(
                value=v if isinstance(v, list) else [v]))
    return tf.train.Example(features=tf.train.Features(feature=out)).SerializeToString()


def write(path, records):
    with tf.io.TFRecordWriter(str(path)) as w:
        for r in records:
            w.write(r)
    return str(path)


def plain(x):
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, tuple):
        return tuple(plain(v) for v in x)
    a = np.asarray(x)
    return (a.dtype.str if a.dtype != object else "O", a.shape, a.tolist())


def eager(ds_fn):
    """The same pipeline with every function run per record in Python."""
    exp.enable_debug_mode()
    try:
        return [plain(e) for e in ds_fn()]
    finally:
        exp.disable_debug_mode()


FEATS = {
    "ids": tf.io.FixedLenFeature([4], tf.int64),
    "y": tf.io.FixedLenFeature([], tf.float32),
    "name": tf.io.FixedLenFeature([], tf.string),
    "seq": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
}


@pytest.fixture()
def shards(tmp_path):
    rng = np.random.default_rng(3)
    files = []
    k = 0
    for s in range(3):
        recs = []
        for _ in range(17 + 5 * s):
            recs.append(example(ids=[int(v) for v in rng.integers(-9, 2**40, 4)],
                                y=float(k) / 4, name=b"n%d" % k,
                                seq=[int(v) for v in rng.integers(0, 9, k % 5)]))
            k += 1
        files.append(write(tmp_path / ("s%d" % s), recs))
    return files


FIXED = {k: v for k, v in FEATS.items() if k != "seq"}


def quest_fn(r):
    ex = tf.io.parse_single_example(r, FIXED)
    return ({"ids": tf.cast(ex["ids"], tf.int32), "name": ex["name"]}, ex["y"])


def test_quest_form_is_traced_fused_and_equal_to_per_record(shards, engine):
    def make():
        return (tf.data.TFRecordDataset(shards, num_parallel_reads=2)
                .map(quest_fn, num_parallel_calls=tf.data.AUTOTUNE).batch(8).prefetch(2))
    ds = make()
    text = ds.plan_text()
    assert "map_and_batch" in text and "traced: parse_single_example -> cast" in text
    assert "vectorized" in text
    if engine == "c":
        assert "runs on C threads" in text
    else:
        assert "on Python threads (C pipeline not used: TFNANO_C_PIPELINE=0)" in text
    got = [plain(e) for e in ds]
    assert got == eager(make)
    # ids above 2**31 wrap in the int32 cast (as in TensorFlow), also when vectorized
    first = next(iter(make()))[0]["ids"]
    assert first.dtype == np.int32


def test_padded_batch_after_sequence_feature_equals_per_record(shards):
    def make():
        return (tf.data.TFRecordDataset(shards)
                .map(lambda r: tf.io.parse_single_example(r, FEATS))
                .map(lambda d: ((d["name"], d["y"]), d["seq"]))
                .padded_batch(5, padding_values=(None, np.int64(-1))))  # TF: the exact dtype
    assert "vectorized" in make().plan_text()
    assert [plain(e) for e in make()] == eager(make)

    def fixed():
        return (tf.data.TFRecordDataset(shards)
                .map(lambda r: tf.io.parse_single_example(r, FEATS)["seq"])
                .padded_batch(4, padded_shapes=[7], drop_remainder=True))
    assert [plain(e) for e in fixed()] == eager(fixed)


def test_fallback_warns_once_with_the_reason_and_explain_shows_it():
    def f(x):
        return np.int64(int(x) * 2)  # a Python conversion: cannot be traced
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ds = tf.data.Dataset.range(4).map(f)
        tf.data.Dataset.range(4).map(f)  # same function: no second warning
    msgs = [str(x.message) for x in w if issubclass(x.category, exp.TracingFallbackWarning)]
    assert len(msgs) == 1
    assert "runs per record in Python" in msgs[0] and "int()" in msgs[0]
    out = io.StringIO()
    ds.explain(file=out)
    assert "python per record: int() of a traced tensor" in out.getvalue()
    assert [int(x) for x in ds] == [0, 2, 4, 6]


def test_debug_mode_runs_functions_eagerly():
    calls = []
    exp.enable_debug_mode()
    try:
        ds = tf.data.Dataset.range(3).map(lambda x: calls.append(1) or tf.cast(x, tf.int32))
        assert "debug mode" in ds.plan_text()
        assert [int(x) for x in ds] == [0, 1, 2]
    finally:
        exp.disable_debug_mode()
    assert len(calls) == 3


def test_error_in_vectorized_batch_has_the_per_record_text_and_fails_the_batch(tmp_path, engine):
    good = example(a=[1, 2])
    bad = example(a=[1])
    path = write(tmp_path / "e", [good, good, bad, good, good, good])
    feats = {"a": tf.io.FixedLenFeature([2], tf.int64)}
    ds = tf.data.TFRecordDataset(path).map(lambda r: tf.io.parse_single_example(r, feats))
    with pytest.raises(InvalidArgumentError) as per_record:
        list(ds)
    it = iter(ds.batch(2))
    assert next(it)["a"].tolist() == [[1, 2], [1, 2]]
    with pytest.raises(InvalidArgumentError) as batched:
        next(it)
    # TensorFlow's text first; tfnano's context after "; " (the C engine names the file
    # and the record's index in it)
    assert str(batched.value).split("; ")[0] == str(per_record.value).split("; ")[0]
    assert str(batched.value).startswith("Key: a.  Can't parse serialized Example")
    # map-and-batch semantics (TensorFlow's fusion): the failing batch's inputs are gone
    assert next(it)["a"].tolist() == [[1, 2], [1, 2]]
    with pytest.raises(StopIteration):
        next(it)
    kept = list(ds.ignore_errors().batch(2))
    assert [len(b["a"]) for b in kept] == [2, 2, 1]


def test_batch_of_traced_values_with_different_shapes_raises_tf_error(tmp_path):
    path = write(tmp_path / "v", [example(s=[1]), example(s=[1, 2])])
    feats = {"s": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True)}
    ds = tf.data.TFRecordDataset(path).map(lambda r: tf.io.parse_single_example(r, feats)["s"])
    # map + batch is TensorFlow's fused map-and-batch, with its own text
    with pytest.raises(InvalidArgumentError, match="Cannot add tensor to the batch: number "
                       "of elements does not match. Shapes are: \\[tensor\\]: \\[2\\], "
                       "\\[batch\\]: \\[1\\]"):
        list(ds.batch(2))
    # not fused (a prefetch between them): batch's own text
    with pytest.raises(InvalidArgumentError, match="Cannot batch tensors with different "
                       "shapes in component 0. First element had shape \\[1\\] and "
                       "element 1 had shape \\[2\\]."):
        list(ds.prefetch(1).batch(2))


def test_traced_filter_and_map_fusion(shards):
    def make():
        return (tf.data.TFRecordDataset(shards)
                .map(lambda r: tf.io.parse_single_example(r, FEATS))
                .map(lambda d: (d["y"], tf.cast(d["ids"], tf.int32)))
                .filter(lambda y, ids: y > 2.0)
                .batch(4))
    text = make().plan_text()
    assert "then traced" in text  # the two maps run as one function
    assert [plain(e) for e in make()] == eager(make)


def test_element_spec_follows_the_traced_function(shards):
    ds = tf.data.TFRecordDataset(shards).map(quest_fn).batch(4, drop_remainder=True)
    (d, y) = ds.element_spec
    assert d["ids"].dtype == np.int32 and d["ids"].shape == (4, 4)
    assert y.dtype == np.float32 and y.shape == (4,)
    # TensorFlow's spec objects, as TensorFlow prints them
    assert isinstance(y, tf.TensorSpec) and y == tf.TensorSpec([4], tf.float32)
    assert repr(y) == "TensorSpec(shape=(4,), dtype=tf.float32, name=None)"
    assert repr(tf.data.TFRecordDataset(shards).batch(2).element_spec) == \
        "TensorSpec(shape=(None,), dtype=tf.string, name=None)"


def test_element_spec_of_composites():
    f = {"v": tf.io.VarLenFeature(tf.int64), "r": tf.io.RaggedFeature(tf.float32)}
    rec = tf.train.Example(features=tf.train.Features(feature={
        "v": tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 2]))}))
    ds = tf.data.Dataset.from_tensors(rec.SerializeToString()).map(
        lambda r: tf.io.parse_single_example(r, f))
    spec = ds.element_spec
    assert list(spec) == ["v", "r"]  # TensorFlow's order: VarLen, dense, Ragged, Sparse
    assert spec["v"] == tf.SparseTensorSpec([None], tf.int64)
    assert repr(spec["r"]) == "TensorSpec(shape=(None,), dtype=tf.float32, name=None)"
    assert repr(ds.batch(2).element_spec) == (  # TensorFlow 2.21's text
        "{'v': SparseTensorSpec(TensorShape([None, None]), tf.int64), "
        "'r': TensorSpec(shape=(None, None), dtype=tf.float32, name=None)}")
    rt = tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[1, 2], [3]]))
    assert repr(rt.element_spec) == \
        "RaggedTensorSpec(TensorShape([None]), tf.int32, 0, tf.int64)"


OPS = ["cast32", "castf", "add", "mul", "neg", "index", "select"]


@st.composite
def pipelines(draw):
    steps = draw(st.lists(st.sampled_from(OPS), min_size=0, max_size=3))
    batch = draw(st.integers(1, 9))
    drop = draw(st.booleans())
    reads = draw(st.sampled_from([None, 1, 2, 3]))
    parallel = draw(st.sampled_from([None, 2]))
    padded = draw(st.booleans())
    return steps, batch, drop, reads, parallel, padded


def _apply(step, d):
    ids = d["ids"]
    if step == "cast32":
        ids = tf.cast(ids, tf.int32)
    elif step == "castf":
        ids = tf.cast(ids, tf.float32)
    elif step == "add":
        ids = ids + ids
    elif step == "mul":
        ids = ids * tf.cast(2, ids.dtype)
    elif step == "neg":
        ids = -ids
    elif step == "index":
        ids = ids[1:3]
    elif step == "select":
        return {"ids": ids, "y": d["y"], "seq": d["seq"]}
    return dict(d, ids=ids)


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pipelines())
def test_traced_and_per_record_agree_on_random_pipelines(shards, p):
    steps, batch, drop, reads, parallel, padded = p

    def fn(r):
        d = tf.io.parse_single_example(r, FEATS)
        d = {"ids": d["ids"], "y": d["y"], "seq": d["seq"], "name": d["name"]}
        for s in steps:
            d = _apply(s, d)
        return d

    def make():
        ds = tf.data.TFRecordDataset(shards, num_parallel_reads=reads).map(
            fn, num_parallel_calls=parallel)
        if padded:
            return ds.padded_batch(batch, drop_remainder=drop)
        return ds.map(lambda d: {k: v for k, v in d.items() if k != "seq"}).batch(
            batch, drop_remainder=drop)
    assert [plain(e) for e in make()] == eager(make)


def test_batch_then_parse_example_same_on_both_engines(shards, tmp_path, engine):
    def make():
        return (tf.data.TFRecordDataset(shards, num_parallel_reads=2).batch(7)
                .map(lambda b: tf.io.parse_example(b, FEATS)).prefetch(2))
    assert ("batch_and_parse_example" in make().plan_text()) == (engine == "c")
    exp.enable_debug_mode()
    try:
        want = [plain(e) for e in make()]
    finally:
        exp.disable_debug_mode()
    assert [plain(e) for e in make()] == want
    path = write(tmp_path / "bad", [example(a=[1, 2])] * 3 + [example(a=[1])])
    feats = {"a": tf.io.FixedLenFeature([2], tf.int64)}
    with pytest.raises(InvalidArgumentError) as e:
        list(tf.data.TFRecordDataset(path).batch(4).map(lambda b: tf.io.parse_example(b, feats)))
    with pytest.raises(InvalidArgumentError) as eager_error:
        tf.io.parse_example([example(a=[1, 2])] * 3 + [example(a=[1])], feats)
    assert str(e.value).split("; ")[0] == str(eager_error.value).split("; ")[0]


def outcomes(ds, limit=200):
    """Every next(): its value, or the error's class and TensorFlow's text."""
    out = []
    it = iter(ds)
    for _ in range(limit):
        try:
            out.append(("ok", plain(next(it))))
        except StopIteration:
            break
        except Exception as e:  # noqa: BLE001 - the outcome is what we compare
            out.append(("error", type(e).__name__, str(e).split("; ")[0]))
    return out


@pytest.mark.parametrize("batch,drop", [(1, False), (3, False), (4, True), (50, False)])
def test_filter_batch_vectorized_equals_per_element_with_errors(tmp_path, batch, drop):
    recs = []
    for i in range(40):
        bad = i in (5, 17, 18, 33)
        recs.append(example(k=i, v=[i] if bad else [i, -i]))
    path = write(tmp_path / "fb", recs)
    feats = {"k": tf.io.FixedLenFeature([], tf.int64), "v": tf.io.FixedLenFeature([2], tf.int64)}

    def make():
        return (tf.data.TFRecordDataset(path)
                .map(lambda r: tf.io.parse_single_example(r, feats))
                .filter(lambda d: d["k"] % 3 != 1)
                .batch(batch, drop_remainder=drop))
    assert "filter_and_batch" in make().plan_text()
    exp.enable_debug_mode()
    try:
        want = outcomes(make())
    finally:
        exp.disable_debug_mode()
    assert outcomes(make()) == want
    assert any(o[0] == "error" for o in want)


def test_batched_op_returning_per_record_arrays_is_stacked_or_raises():
    """An op whose batched form returns a list of per-record arrays (image decode
    does) is stacked by batch, or raises TensorFlow's error when shapes differ."""
    from tfnano import _trace

    def rows_eager(x):
        return np.arange(int(x) % 3 + 1, dtype=np.int64)

    def rows_batch(x):
        return [np.arange(int(v) % 3 + 1, dtype=np.int64) for v in np.asarray(x)]
    rows = _trace.traceable("test_rows", batch=rows_batch,
                            infer=lambda x: _trace.Spec(np.int64, (None,)))(rows_eager)
    same = tf.data.Dataset.range(0, 12, 3).map(lambda x: rows(x)).batch(4)
    assert "vectorized" in same.plan_text()
    assert [b.tolist() for b in same] == [[[0], [0], [0], [0]]]
    differ = tf.data.Dataset.range(4).map(lambda x: rows(x)).batch(2)
    with pytest.raises(InvalidArgumentError, match="Cannot add tensor to the batch: number "
                       "of elements does not match. Shapes are: \\[tensor\\]: \\[2\\], "
                       "\\[batch\\]: \\[1\\]"):
        list(differ)  # (map + batch: TensorFlow's fused map-and-batch text)


def test_a_returned_list_becomes_a_tuple_as_in_tensorflow():
    traced = tf.data.Dataset.range(3).map(lambda x: [x, tf.cast(x, tf.float32)])
    untraced = tf.data.Dataset.range(3).map(lambda x: [int(x), float(x)])
    for ds in (traced, untraced):
        el = next(iter(ds))
        assert isinstance(el, tuple) and len(el) == 2
    assert isinstance(traced.element_spec, tuple)


def test_sparse_values_pass_through_map(tmp_path):
    path = write(tmp_path / "sp", [example(e=[1, 2, 3]), example(e=[4])])
    feats = {"e": tf.io.VarLenFeature(tf.int64)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = [d["e"] for d in tf.data.TFRecordDataset(path).map(
            lambda r: tf.io.parse_single_example(r, feats))]
    assert [type(s).__name__ for s in got] == ["SparseTensor", "SparseTensor"]
    assert [s.values.tolist() for s in got] == [[1, 2, 3], [4]]


def test_sizes_known_per_record_trace_with_tensorflows_specs():
    # tf.range / zeros / ones whose size is a traced value: traced (no fallback), the
    # size unknown in the spec (zero-filled stand-ins used to say 0), values per record
    with warnings.catch_warnings():
        warnings.simplefilter("error", exp.TracingFallbackWarning)
        ds = tf.data.Dataset.range(4).map(
            lambda x: (tf.range(x), tf.range(2, x + 3, 2), tf.range(3),
                       tf.zeros([x, 2]), tf.ones([2, x], tf.int32)))
        spec = ds.element_spec
        got = [tuple(t.numpy() for t in el) for el in ds]
    assert [tuple(s.shape.as_list()) for s in spec] == \
        [(None,), (None,), (3,), (None, 2), (2, None)]
    assert [s.dtype for s in spec] == [tf.int64, tf.int64, tf.int32, tf.float32, tf.int32]
    for x, (a, b, c, z, o) in enumerate(got):
        assert a.tolist() == list(range(x)) and b.tolist() == list(range(2, x + 3, 2))
        assert c.tolist() == [0, 1, 2]
        assert z.shape == (x, 2) and not z.any() and o.shape == (2, x) and (o == 1).all()
    rb = ds.ragged_batch(3).element_spec
    assert repr(rb[0]) == "RaggedTensorSpec(TensorShape([None, None]), tf.int64, 1, tf.int64)"
    assert repr(rb[2]) == "TensorSpec(shape=(None, 3), dtype=tf.int32, name=None)"
    assert repr(rb[4]) == "RaggedTensorSpec(TensorShape([None, 2, None]), tf.int32, 2, tf.int64)"


def test_interleave_and_group_by_window_learn_their_spec_from_a_stand_in(tmp_path):
    path = str(tmp_path / "x.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for i in range(5):
            w.write(example(v=[i, i + 1]))
    feats = {"v": tf.io.FixedLenFeature([2], tf.int64)}
    calls = []

    def open_file(f):
        calls.append(f)
        return tf.data.TFRecordDataset(f)
    files = tf.data.Dataset.from_tensor_slices([path, path])
    ds = files.interleave(open_file, cycle_length=2)
    assert repr(ds.element_spec) == "TensorSpec(shape=(), dtype=tf.string, name=None)"
    assert len(calls) == 1  # one stand-in call, cached
    with warnings.catch_warnings():
        warnings.simplefilter("error", exp.TracingFallbackWarning)  # the map is traced
        parsed = ds.map(lambda r: tf.io.parse_single_example(r, feats)).batch(4)
        got = [b["v"].numpy().tolist() for b in parsed]
    assert got == [[[0, 1], [0, 1], [1, 2], [1, 2]], [[2, 3], [2, 3], [3, 4], [3, 4]],
                   [[4, 5], [4, 5]]]

    # a function that needs real input: the spec stays unknown, iteration still works
    def needs_value(f):
        if not f.numpy():
            raise ValueError("empty name")
        return tf.data.TFRecordDataset(f)
    ds = files.interleave(needs_value, cycle_length=1)
    assert ds.element_spec is None
    assert len(list(ds)) == 10

    grouped = tf.data.Dataset.range(7).group_by_window(
        lambda x: x % 2, lambda k, w: w.map(lambda x: (k, x)).batch(2), window_size=2)
    assert repr(grouped.element_spec) == (
        "(TensorSpec(shape=(None,), dtype=tf.int64, name=None), "
        "TensorSpec(shape=(None,), dtype=tf.int64, name=None))")
    assert [(a.numpy().tolist(), b.numpy().tolist()) for a, b in grouped] == [
        ([0, 0], [0, 2]), ([1, 1], [1, 3]), ([0, 0], [4, 6]), ([1], [5])]

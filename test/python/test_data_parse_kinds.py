"""VarLen / Sparse / Ragged features in traced tf.data map functions: the fused path
(one batched parse per batch) gives exactly what per-record execution (debug mode)
followed by tf.data's batch / padded_batch gives, errors included; ops users apply
to the parsed values (tf.sparse.to_dense, .values, tf.cast, to_tensor) trace or run
per record with a reason."""
import numpy as np
import pytest

import tfnano as tf
from tfnano.data import structured_function as sf
from tfnano.io import _kinds

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402

KEYS = {"a": "int64", "b": "float", "c": "bytes", "idx": "int64", "val": "float"}


def _feature(kind, values):
    if kind == "int64":
        return tf.train.Feature(int64_list=tf.train.Int64List(value=values))
    if kind == "float":
        return tf.train.Feature(float_list=tf.train.FloatList(value=values))
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=values))


def make_records(rows):
    """rows: [{key: list or None (missing)}] -> serialized Examples."""
    out = []
    for row in rows:
        feats = {"label": _feature("float", [1.5])}
        for k, vals in row.items():
            if vals is not None:
                feats[k] = _feature(KEYS[k], vals)
        out.append(tf.train.Example(features=tf.train.Features(feature=feats))
                   .SerializeToString())
    return out


def random_rows(rng, n, width=4, missing=0.2, equal=None):
    rows = []
    for _ in range(n):
        row = {}
        for k, kind in KEYS.items():
            if rng.random() < missing:
                row[k] = None
                continue
            m = int(rng.integers(0, width + 1)) if equal is None else equal
            if k == "idx":
                m = len(row.get("val") or []) if row.get("val") is not None else m
                row[k] = [int(x) for x in rng.integers(0, 6, m)]
            elif kind == "int64":
                row[k] = [int(x) for x in rng.integers(-5, 1 << 40, m)]
            elif kind == "float":
                row[k] = [float(x) for x in rng.random(m)]
            else:
                row[k] = [b"s%d" % x for x in rng.integers(0, 99, m)]
        # SparseFeature's index list follows its value list (same count)
        row["idx"] = None if row["val"] is None else [
            int(x) for x in rng.integers(0, 6, len(row["val"]))]
        rows.append(row)
    return rows


def flat(x):
    """A comparable form of a pipeline value."""
    name = type(x).__name__
    if name == "SparseTensor":
        return ("sparse", flat(x.indices), flat(x.values), flat(x.dense_shape))
    if name == "RaggedTensor":
        return ("ragged", x.ragged_rank, str(x.row_splits.dtype),
                [flat(s) for s in x.nested_row_splits], flat(x.flat_values),
                x.uniform_row_length is None)
    if isinstance(x, dict):
        return {k: flat(v) for k, v in x.items()}
    if isinstance(x, tuple):
        return tuple(flat(v) for v in x)
    a = np.asarray(x)
    return (str(a.dtype), a.shape, a.tolist())


def outcome(make):
    """Every element of make() (a Dataset), or the error it ends with."""
    out = []
    try:
        for el in make():
            out.append(flat(el))
    except Exception as e:  # the error is part of the behaviour compared
        return out, (type(e).__name__, str(e))
    return out, None


def both(make):
    """(traced, per-record) outcomes of the same pipeline."""
    sf.disable_debug_mode()
    traced = outcome(make)
    sf.enable_debug_mode()
    try:
        per_record = outcome(make)
    finally:
        sf.disable_debug_mode()
    return traced, per_record


class Counter:
    def __init__(self, monkeypatch):
        self.batched = 0
        self.single = 0
        real_b, real_s = _kinds.parse_records_batched, _kinds.parse_single_example

        def batched(*a, **k):
            self.batched += 1
            return real_b(*a, **k)

        def single(*a, **k):
            self.single += 1
            return real_s(*a, **k)
        monkeypatch.setattr(_kinds, "parse_records_batched", batched)
        monkeypatch.setattr(_kinds, "parse_single_example", single)


def spec_of(choice):
    """A features dict from a list of choices (hypothesis draws them)."""
    R = tf.io.RaggedFeature
    table = {
        "var_a": ("va", tf.io.VarLenFeature(tf.int64)),
        "var_b": ("vb", tf.io.VarLenFeature(tf.float32)),
        "var_c": ("vc", tf.io.VarLenFeature(tf.string)),
        "rag_a": ("ra", R(tf.int64, value_key="a")),
        "rag_b64": ("rb", R(tf.float32, value_key="b", row_splits_dtype=tf.int64)),
        "rag_c": ("rc", R(tf.string, value_key="c")),
        "rag_u2": ("ru", R(tf.int64, value_key="a", partitions=[R.UniformRowLength(2)])),
        "sparse": ("sp", tf.io.SparseFeature("idx", "val", tf.float32, 6)),
        "sparse_sorted": ("ss", tf.io.SparseFeature("idx", "val", tf.float32, 6,
                                                    already_sorted=True)),
        "fixed": ("label", tf.io.FixedLenFeature([], tf.float32)),
        "seq": ("b", tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True)),
    }
    spec = {}
    for c in choice:
        key, f = table[c]
        if key in ("va", "vb", "vc"):  # VarLenFeatures read the records' own keys
            key = key[1]
        spec[key] = f
    return spec


KINDS = ["var_a", "var_b", "var_c", "rag_a", "rag_b64", "rag_c", "rag_u2", "sparse",
         "sparse_sorted", "fixed", "seq"]


def _valid(spec):
    # a key may be read by one kind only (VarLen-like keys: one dtype)
    try:
        _kinds.get_plan(spec)
    except Exception:
        return False
    return True


@settings(max_examples=60, deadline=None)
@given(choice=st.lists(st.sampled_from(KINDS), min_size=1, max_size=4, unique=True),
       seed=st.integers(0, 2 ** 16), n=st.integers(1, 9), batch=st.integers(1, 4),
       equal=st.sampled_from([None, None, 2]), missing=st.sampled_from([0.0, 0.3]))
def test_fused_equals_per_record(choice, seed, n, batch, equal, missing):
    spec = spec_of(choice)
    if not _valid(spec):
        return
    rng = np.random.default_rng(seed)
    recs = make_records(random_rows(rng, n, missing=missing, equal=equal))

    def parse(r):
        return tf.io.parse_single_example(r, spec)

    for pipeline in (
            lambda: tf.data.Dataset.from_tensor_slices(recs).map(parse).batch(batch),
            lambda: tf.data.Dataset.from_tensor_slices(recs).map(parse).padded_batch(batch),
            lambda: tf.data.Dataset.from_tensor_slices(recs).batch(batch).map(
                lambda b: tf.io.parse_example(b, spec))):
        traced, per_record = both(pipeline)
        if traced[1] is not None and traced[1][1].startswith("`padded_batch` is only"):
            # refused when padded_batch is called, from the traced spec (as TensorFlow);
            # per record, the first batch made refuses it, after any earlier error
            assert traced[0] == [] and per_record[1] is not None
            continue
        assert traced == per_record


def test_fused_path_runs_one_parse_per_batch(monkeypatch):
    rng = np.random.default_rng(5)
    recs = make_records(random_rows(rng, 10, missing=0.3))
    spec = {"ids": tf.io.VarLenFeature(tf.int64),
            "tok": tf.io.RaggedFeature(tf.float32, value_key="b"),
            "label": tf.io.FixedLenFeature([], tf.float32)}
    spec = {"a": spec["ids"], "tok": spec["tok"], "label": spec["label"]}
    count = Counter(monkeypatch)
    spec_dense = {"tok": spec["tok"], "label": spec["label"]}
    ds = tf.data.Dataset.from_tensor_slices(recs).map(
        lambda r: tf.io.parse_single_example(r, spec_dense)).padded_batch(4)
    count.batched = count.single = 0
    got = list(ds)
    assert (count.batched, count.single) == (3, 0)
    tok = np.asarray(got[0]["tok"])
    assert tok.dtype == np.float32 and tok.shape[0] == 4

    def fn(r):
        ex = tf.io.parse_single_example(r, spec)
        return ex["a"], tf.cast(ex["a"], tf.int32), ex["label"]
    count.batched = count.single = 0
    out = list(tf.data.Dataset.from_tensor_slices(recs).map(fn).batch(4))
    assert (count.batched, count.single) == (3, 0)
    assert type(out[0][0]).__name__ == "SparseTensor"
    assert out[0][1].values.dtype == np.int32
    # padded_batch refuses the SparseTensor when it is called, as TensorFlow (from the
    # traced element spec)
    ds = tf.data.Dataset.from_tensor_slices(recs).map(
        lambda r: tf.io.parse_single_example(r, spec))
    with pytest.raises(TypeError, match=r"padded_batch.*SparseTensorSpec\(TensorShape\("
                                        r"\[None\]\), tf.int64\)"):
        ds.padded_batch(4)


def test_ops_on_parsed_values_trace_or_say_why():
    rng = np.random.default_rng(9)
    recs = make_records(random_rows(rng, 7, missing=0.3))
    var = {"a": tf.io.VarLenFeature(tf.int64)}
    rag = {"r": tf.io.RaggedFeature(tf.int64, value_key="a",
                                    partitions=[tf.io.RaggedFeature.RowLengths("idx")])}
    fns = {
        "to_dense": (var, lambda ex: tf.sparse.to_dense(ex["a"], default_value=-1)),
        "values": (var, lambda ex: ex["a"].values),
        "indices": (var, lambda ex: ex["a"].indices),
        "dense_shape": (var, lambda ex: ex["a"].dense_shape),
        "cast": (var, lambda ex: tf.cast(ex["a"], tf.float32)),
        "ragged_to_tensor": (rag, lambda ex: ex["r"].to_tensor()),
        "ragged_values": (rag, lambda ex: ex["r"].values),
        "ragged_cast": (rag, lambda ex: tf.cast(ex["r"], tf.float32)),
        "ragged_row_lengths": (rag, lambda ex: ex["r"].row_lengths()),
    }
    for name, (spec, op) in fns.items():
        def fn(r, spec=spec, op=op):
            return op(tf.io.parse_single_example(r, spec))
        for batch in ("batch", "padded_batch"):
            def make(batch=batch, fn=fn):
                ds = tf.data.Dataset.from_tensor_slices(recs).map(fn)
                return getattr(ds, batch)(3)
            traced, per_record = both(make)
            if traced[1] is not None and traced[1][1].startswith("`padded_batch` is only"):
                # refused at padded_batch() from the traced spec, as TensorFlow does
                assert batch == "padded_batch" and traced[0] == [] and per_record[1], name
                continue
            assert traced == per_record, (name, batch)
        ds = tf.data.Dataset.from_tensor_slices(recs).map(fn)
        assert ds._node.fn.traced, (name, ds._node.fn.describe())
    # the batched forms: VarLen outputs and what to_dense / values / cast make of them
    for name in ("to_dense", "values", "indices", "cast"):
        ds = tf.data.Dataset.from_tensor_slices(recs).map(
            lambda r, op=fns[name][1]: op(tf.io.parse_single_example(r, var)))
        assert ds._node.fn.vectorized, name
    # row partitions: traced, run per record, and the plan says why
    ds = tf.data.Dataset.from_tensor_slices(recs).map(
        lambda r: tf.io.parse_single_example(r, rag))
    assert ds._node.fn.traced and "row partitions" in ds._node.fn.describe()
    # an op with no traced form for these values: per record, with the reason
    with pytest.warns(sf.TracingFallbackWarning):
        ds = tf.data.Dataset.from_tensor_slices(recs).map(
            lambda r: tf.io.parse_single_example(r, var)["a"] + 1)
    assert not ds._node.fn.traced and "SparseTensor" in ds._node.fn.reason


def test_tfrecord_pipeline_fused(tmp_path, monkeypatch):
    rng = np.random.default_rng(3)
    recs = make_records(random_rows(rng, 40, missing=0.0, equal=3))
    path = str(tmp_path / "a.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for r in recs:
            w.write(r)
    spec = {"a": tf.io.RaggedFeature(tf.int64), "vc": tf.io.VarLenFeature(tf.string),
            "label": tf.io.FixedLenFeature([], tf.float32)}
    spec = {"a": spec["a"], "c": spec["vc"], "label": spec["label"]}
    count = Counter(monkeypatch)

    def make():
        return tf.data.TFRecordDataset(path).map(
            lambda r: tf.io.parse_single_example(r, spec),
            num_parallel_calls=tf.data.AUTOTUNE).batch(16)
    traced, per_record = both(make)
    assert traced == per_record and traced[1] is None
    assert count.batched == 3

"""tfnano.arrow: Examples <-> Arrow for every type of the mapping, nulls, empty
batches, large lists, readers through the Arrow C stream interface."""
import numpy as np
import pyarrow as pa
import pytest

import tfnano as tf
from tfnano import arrow as ta


def example(**features):
    """A reference serialized Example built with tfnano.train (byte-identical to TF)."""
    feats = {}
    for k, v in features.items():
        kind, values = v
        if kind == "int":
            feats[k] = tf.train.Feature(int64_list=tf.train.Int64List(value=values))
        elif kind == "float":
            feats[k] = tf.train.Feature(float_list=tf.train.FloatList(value=values))
        else:
            feats[k] = tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
    return tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString()


def decoded(rec):
    """{key: (kind, list)} of a serialized Example."""
    ex = tf.train.Example.FromString(rec)
    out = {}
    for k, f in ex.features.feature.items():
        kind = f.WhichOneof("kind")
        out[k] = (kind, list(getattr(f, kind).value))
    return out


FEATURES = {
    "id": tf.io.FixedLenFeature([], tf.int64),
    "score": tf.io.FixedLenFeature([], tf.float32),
    "name": tf.io.FixedLenFeature([], tf.string),
    "vec": tf.io.FixedLenFeature([3], tf.float32),
    "grid": tf.io.FixedLenFeature([2, 2], tf.int64),
    "tokens": tf.io.VarLenFeature(tf.int64),
    "weights": tf.io.VarLenFeature(tf.float32),
    "tags": tf.io.VarLenFeature(tf.string),
    "frames": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True),
}


def make_records(n, seed=0):
    rng = np.random.default_rng(seed)
    recs, rows = [], []
    for i in range(n):
        k = int(rng.integers(0, 5))
        row = {
            "id": ("int", [int(rng.integers(-2**62, 2**62))]),
            "score": ("float", [float(np.float32(rng.normal()))]),
            "name": ("bytes", [bytes(rng.integers(0, 256, int(rng.integers(0, 9)),
                                                  dtype=np.uint8))]),
            "vec": ("float", [float(x) for x in rng.normal(size=3).astype(np.float32)]),
            "grid": ("int", [int(x) for x in rng.integers(-9, 9, 4)]),
            "tokens": ("int", [int(x) for x in rng.integers(0, 1000, k)]),
            "weights": ("float", [float(x) for x in rng.random(k).astype(np.float32)]),
            "tags": ("bytes", [b"t%d" % j for j in range(k)]),
            "frames": ("float", [float(x) for x in rng.random(2 * k).astype(np.float32)]),
        }
        rows.append(row)
        recs.append(example(**row))
    return recs, rows


def test_to_arrow_every_layout_matches_the_examples():
    recs, rows = make_records(50)
    batch = ta.to_arrow(recs, FEATURES)
    assert batch.num_rows == 50
    t = batch.schema
    assert t.field("id").type == pa.int64()
    assert t.field("score").type == pa.float32()
    assert t.field("name").type == pa.binary()
    assert t.field("vec").type == pa.list_(pa.float32(), 3)
    assert t.field("grid").type == pa.list_(pa.int64(), 4)
    assert t.field("tokens").type == pa.list_(pa.int64())
    assert t.field("tags").type == pa.list_(pa.binary())
    assert t.field("frames").type == pa.list_(pa.list_(pa.float32(), 2))
    got = batch.to_pylist()
    for row, g in zip(rows, got):
        assert g["id"] == row["id"][1][0]
        assert g["score"] == row["score"][1][0]
        assert g["name"] == row["name"][1][0]
        assert g["vec"] == row["vec"][1]
        assert g["grid"] == row["grid"][1]
        assert g["tokens"] == row["tokens"][1]
        assert g["weights"] == row["weights"][1]
        assert g["tags"] == row["tags"][1]
        flat = row["frames"][1]
        assert g["frames"] == [flat[i:i + 2] for i in range(0, len(flat), 2)]


def test_values_agree_with_parse_example():
    recs, _ = make_records(30, seed=3)
    batch = ta.to_arrow(recs, FEATURES)
    ref = tf.io.parse_example(recs, {k: v for k, v in FEATURES.items()
                                     if type(v).__name__ == "FixedLenFeature"})
    np.testing.assert_array_equal(batch.column("id").to_numpy(), np.asarray(ref["id"]))
    np.testing.assert_array_equal(
        batch.column("vec").flatten().to_numpy().reshape(-1, 3), np.asarray(ref["vec"]))
    np.testing.assert_array_equal(
        batch.column("grid").flatten().to_numpy().reshape(-1, 2, 2), np.asarray(ref["grid"]))


def test_missing_fixed_features_are_null_or_their_default():
    recs = [example(a=("int", [1]), s=("bytes", [b"x"])), example(),
            example(a=("int", [3]), v=("float", [1.0, 2.0]))]
    feats = {"a": tf.io.FixedLenFeature([], tf.int64),
             "s": tf.io.FixedLenFeature([], tf.string),
             "v": tf.io.FixedLenFeature([2], tf.float32),
             "d": tf.io.FixedLenFeature([], tf.int64, default_value=-1),
             "e": tf.io.FixedLenFeature([], tf.string, default_value=b"none")}
    b = ta.to_arrow(recs, feats).to_pydict()
    assert b["a"] == [1, None, 3]
    assert b["s"] == [b"x", None, None]
    assert b["v"] == [None, None, [1.0, 2.0]]
    assert b["d"] == [-1, -1, -1]
    assert b["e"] == [b"none"] * 3


def test_wrong_value_count_is_tensorflows_error():
    recs = [example(v=("float", [1.0, 2.0])), example(v=("float", [1.0]))]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Key: v, Index: 1"):
        ta.to_arrow(recs, {"v": tf.io.FixedLenFeature([2], tf.float32)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Data types don't match"):
        ta.to_arrow(recs, {"v": tf.io.VarLenFeature(tf.int64)})


def test_threads_give_the_same_batch(monkeypatch):
    # big batches are scanned and filled in chunks on several threads, into one buffer
    # per column: the same batch as one thread, and errors name the batch's index
    from tfnano.arrow import _to_arrow
    monkeypatch.setattr(_to_arrow, "THREAD_BYTES", 256)
    recs, _ = make_records(300, seed=21)
    one = ta.to_arrow(recs, FEATURES, num_threads=1)
    cols = ta._features.normalize(FEATURES)
    chunked = _to_arrow._parse_chunks(_to_arrow.records_of(recs), cols, 3)
    for (v1, s1), (v3, s3) in zip(_to_arrow.parse_var_len(_to_arrow.records_of(recs), cols, 1),
                                  chunked):
        np.testing.assert_array_equal(s1, s3)
        if isinstance(v1, pa.Array):
            assert v1.equals(v3)
        else:
            assert v1[0].equals(v3[0]) and np.array_equal(v1[1], v3[1])
    for k in (2, 3, 5):
        assert ta.to_arrow(recs, FEATURES, num_threads=k).equals(one)
    assert ta.to_arrow(recs, num_threads=4).equals(ta.to_arrow(recs, num_threads=1))
    bad = recs[:250] + [example(score=("int", [1]))] + recs[251:]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Index: 250\b"):
        ta.to_arrow(bad, FEATURES, num_threads=4)
    bad = recs[:280] + [example(vec=("float", [1.0]))] + recs[281:]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Key: vec, Index: 280\."):
        ta.to_arrow(bad, FEATURES, num_threads=4)


def test_empty_batches():
    b = ta.to_arrow([], FEATURES)
    assert b.num_rows == 0 and b.schema.names == list(FEATURES)
    assert ta.to_arrow([]).num_rows == 0
    assert ta.from_arrow(b) == []
    empty = pa.record_batch({"x": pa.array([], pa.int64())})
    assert ta.from_arrow(empty) == []
    assert len(ta.from_arrow(empty, as_arrow=True)) == 0


def test_inferred_schema_is_reported_and_reused():
    recs, rows = make_records(20, seed=5)
    feats = ta.infer_features(recs)
    assert feats["id"] == tf.io.FixedLenFeature([], tf.int64)
    assert feats["vec"] == tf.io.FixedLenFeature([3], tf.float32)
    assert feats["tokens"] == tf.io.VarLenFeature(tf.int64)
    b = ta.to_arrow(recs)
    assert b.schema.field("tags").metadata[b"tfnano.feature"]
    assert b.to_pydict()["tokens"] == [r["tokens"][1] for r in rows]
    assert ta.to_arrow(recs, feats).equals(b)


def test_inference_corrects_a_misleading_sample():
    recs = [example(x=("int", [1]))] * 3 + [example(x=("int", [1, 2]))]
    b = ta.to_arrow(recs, sample=2)
    assert b.schema.field("x").type == pa.list_(pa.int64())
    assert b.to_pydict()["x"] == [[1], [1], [1], [1, 2]]


def test_large_lists_and_large_values():
    n = 5
    tokens = [list(range(i * 1000, i * 1000 + 20000)) for i in range(n)]
    recs = [example(t=("int", t), b=("bytes", [b"z" * 300000])) for t in tokens]
    feats = {"t": tf.io.VarLenFeature(tf.int64), "b": tf.io.VarLenFeature(tf.string)}
    b = ta.to_arrow(recs, feats, large_lists=True)
    assert b.schema.field("t").type == pa.large_list(pa.int64())
    assert b.column("t").to_pylist() == tokens
    assert ta.from_arrow(b) == recs
    assert ta.from_arrow(b.cast(pa.schema([("t", pa.list_(pa.int64())),
                                           ("b", pa.list_(pa.large_binary()))]))) == recs


# ----------------------------------------------------------------- from_arrow

PRIMITIVES = [
    (pa.int8(), [-128, 0, 127], "int"), (pa.int16(), [-5, 0, 300], "int"),
    (pa.int32(), [-2**31, 0, 2**31 - 1], "int"), (pa.int64(), [-2**63, 7, 2**63 - 1], "int"),
    (pa.uint8(), [0, 1, 255], "int"), (pa.uint16(), [0, 9, 65535], "int"),
    (pa.uint32(), [0, 1, 2**32 - 1], "int"), (pa.uint64(), [0, 1, 2**63 - 1], "int"),
    (pa.bool_(), [True, False, True], "int"),
    (pa.float16(), [0.5, -2.0, 1024.0], "float"), (pa.float32(), [0.1, -1e30, 3.5], "float"),
    (pa.float64(), [0.1, -1e300, 1e300], "float"),
    (pa.binary(), [b"", b"\x00\xff", b"abc"], "bytes"),
    (pa.large_binary(), [b"q", b"", b"xyz"], "bytes"),
    (pa.string(), ["", "h\u00e9", "abc"], "bytes"),
    (pa.large_string(), ["a", "b", ""], "bytes"),
]


def _ref_values(kind, values):
    if kind == "int":
        return [int(v) for v in values]
    if kind == "float":
        with np.errstate(over="ignore"):
            return [float(np.float32(v)) for v in values]
    return [v.encode("utf-8") if isinstance(v, str) else v for v in values]


@pytest.mark.parametrize("typ,values,kind", PRIMITIVES, ids=lambda x: str(x)[:12])
def test_from_arrow_primitive_types(typ, values, kind):
    arr = pa.array(values, typ)
    got = ta.from_arrow(pa.record_batch({"x": arr}))
    want = [example(x=(kind, _ref_values(kind, [v]))) for v in values]
    assert got == want
    lists = pa.array([values, [], values[:1]], pa.list_(typ))
    got = ta.from_arrow(pa.record_batch({"x": lists}))
    assert got == [example(x=(kind, _ref_values(kind, v)))
                   for v in (values, [], values[:1])]
    fixed = pa.array([values[:2], values[1:]], pa.list_(typ, 2))
    got = ta.from_arrow(pa.record_batch({"x": fixed}))
    assert got == [example(x=(kind, _ref_values(kind, v))) for v in (values[:2], values[1:])]


def test_from_arrow_nested_fixed_lists_and_list_of_fixed_rows():
    grid = pa.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], pa.list_(pa.list_(pa.int64(), 2), 2))
    seq = pa.array([[[1.0, 2.0]], [], [[3.0, 4.0], [5.0, 6.0]]],
                   pa.large_list(pa.list_(pa.float32(), 2)))
    assert ta.from_arrow(pa.record_batch({"g": grid})) == [
        example(g=("int", [1, 2, 3, 4])), example(g=("int", [5, 6, 7, 8]))]
    assert ta.from_arrow(pa.record_batch({"s": seq})) == [
        example(s=("float", [1.0, 2.0])), example(s=("float", [])),
        example(s=("float", [3.0, 4.0, 5.0, 6.0]))]


def test_from_arrow_dictionary_and_timestamps():
    d = pa.array(["a", "b", "a"]).dictionary_encode()
    ts = pa.array([0, 10**9, -5], pa.timestamp("ns"))
    day = pa.array([0, 19000, -1], pa.date32())
    got = ta.from_arrow(pa.record_batch({"d": d, "t": ts, "day": day}))
    assert [decoded(r) for r in got] == [
        {"d": ("bytes_list", [b"a"]), "day": ("int64_list", [0]), "t": ("int64_list", [0])},
        {"d": ("bytes_list", [b"b"]), "day": ("int64_list", [19000]),
         "t": ("int64_list", [10**9])},
        {"d": ("bytes_list", [b"a"]), "day": ("int64_list", [-1]), "t": ("int64_list", [-5])}]


def test_nulls_become_absent_features():
    b = pa.record_batch({
        "a": pa.array([1, None, 3, None], pa.int64()),
        "s": pa.array([None, "x", "y", None]),
        "l": pa.array([[1.0], [2.0, 3.0], None, None], pa.list_(pa.float32())),
        "k": pa.array([5, 6, 7, 8], pa.int64()),
    })
    got = ta.from_arrow(b)
    assert got == [example(a=("int", [1]), l=("float", [1.0]), k=("int", [5])),
                   example(s=("bytes", [b"x"]), l=("float", [2.0, 3.0]), k=("int", [6])),
                   example(a=("int", [3]), s=("bytes", [b"y"]), k=("int", [7])),
                   example(k=("int", [8]))]
    back = ta.to_arrow(got, {"a": tf.io.FixedLenFeature([], tf.int64),
                             "s": tf.io.FixedLenFeature([], tf.string),
                             "k": tf.io.FixedLenFeature([], tf.int64)}).to_pydict()
    assert back == {"a": [1, None, 3, None], "s": [None, b"x", b"y", None], "k": [5, 6, 7, 8]}
    all_null = pa.record_batch({"a": pa.array([None, None], pa.int64())})
    assert ta.from_arrow(all_null) == [b"", b""]


def test_null_inside_a_list_is_refused():
    # a tf.train.Example list cannot hold a null: the error names column and row
    b = pa.record_batch({"k": pa.array([1, 2, 3]),
                         "l": pa.array([[1], None, [1, None]], pa.list_(pa.int64()))})
    with pytest.raises(ValueError, match=r"column 'l', row 2: null values inside lists"):
        ta.from_arrow(b)
    fixed = pa.record_batch({"v": pa.array([[1.0, 2.0], [None, 3.0]], pa.list_(pa.float32(), 2))})
    with pytest.raises(ValueError, match=r"column 'v', row 1: null values inside lists"):
        ta.from_arrow(fixed)
    # rows of a Table are counted from the table's start, not its chunk's
    table = pa.Table.from_batches([b.slice(0, 2), b.slice(0, 2), b.slice(2)])
    with pytest.raises(ValueError, match=r"column 'l', row 4: null values"):
        ta.from_arrow(table)
    odd = table.rename_columns(["row 1", "row 2: x"])
    with pytest.raises(ValueError, match=r"column 'row 2: x', row 4: null values"):
        ta.from_arrow(odd)
    big = pa.table({"n": pa.array([1, 2, 2**64 - 1], pa.uint64())})
    with pytest.raises(ValueError, match=r"column 'n', row 2: uint64 value"):
        ta.from_arrow(pa.Table.from_batches(big.to_batches(max_chunksize=1)))
    # a whole null row is fine (the feature is absent), and so is a null no row uses
    assert ta.from_arrow(b.slice(0, 2)) == [example(k=("int", [1]), l=("int", [1])),
                                            example(k=("int", [2]))]
    b = pa.record_batch({"l": pa.array([[[1]]], pa.list_(pa.list_(pa.int64())))})
    with pytest.raises(TypeError, match="column 'l': lists of variable-length lists"):
        ta.from_arrow(b)


def test_unaligned_arrow_buffers():
    # buffers at odd addresses (pickle-5 out-of-band buffers, IPC bodies): same bytes
    ints = np.arange(-5, 3000, 7, dtype=np.int64)
    floats = np.linspace(-1, 1, len(ints)).astype(np.float64)
    offs = np.arange(0, len(ints) + 1, dtype=np.int32)
    offs[1:] = np.minimum(offs[1:] * 3, len(ints))

    def odd(a):
        raw = np.zeros(a.nbytes + 1, np.uint8)
        raw[1:] = a.view(np.uint8)
        buf = pa.py_buffer(raw)[1:]
        assert buf.address % 8 == 1
        return buf

    n = len(offs) - 1
    aligned = pa.record_batch({
        "i": pa.array(ints), "f": pa.array(floats),
        "l": pa.ListArray.from_arrays(pa.array(offs), pa.array(ints))})
    unaligned = pa.record_batch({
        "i": pa.Array.from_buffers(pa.int64(), len(ints), [None, odd(ints)]),
        "f": pa.Array.from_buffers(pa.float64(), len(floats), [None, odd(floats)]),
        "l": pa.Array.from_buffers(pa.list_(pa.int64()), n, [None, odd(offs)],
                                   children=[pa.Array.from_buffers(
                                       pa.int64(), len(ints), [None, odd(ints)])])})
    assert ta.from_arrow(unaligned) == ta.from_arrow(aligned)


def test_round_trip_arrow_examples_arrow():
    recs, _ = make_records(40, seed=9)
    batch = ta.to_arrow(recs, FEATURES)
    again = ta.from_arrow(batch)
    # the Examples hold the same features; key order in the bytes is sorted by tfnano
    assert [decoded(r) for r in again] == [decoded(r) for r in recs]
    assert ta.to_arrow(again, FEATURES).equals(batch)


def test_slices_tables_and_output_forms():
    recs, _ = make_records(30, seed=11)
    batch = ta.to_arrow(recs, FEATURES)
    sliced = batch.slice(7, 11)
    assert [decoded(r) for r in ta.from_arrow(sliced)] == [decoded(r) for r in recs[7:18]]
    table = pa.Table.from_batches([batch.slice(0, 10), batch.slice(10, 20)])
    want = ta.from_arrow(batch)
    assert ta.from_arrow(table) == want
    data, offsets = ta.from_arrow(table, as_buffer=True)
    assert [bytes(data[offsets[i]:offsets[i + 1]]) for i in range(30)] == want
    arr = ta.from_arrow(table, as_arrow=True)
    assert arr.type == pa.binary() and arr.to_pylist() == want
    # records given as an Arrow array, sliced and chunked
    assert ta.to_arrow(arr.slice(3, 5), FEATURES).equals(batch.slice(3, 5))
    assert ta.to_arrow(pa.chunked_array([arr.slice(0, 4), arr.slice(4)]),
                       FEATURES).equals(batch)


def test_reader_exports_the_arrow_c_stream(tmp_path):
    recs, _ = make_records(25, seed=13)
    paths = []
    for s in range(3):
        p = str(tmp_path / ("part-%d.tfrec" % s))
        with tf.io.TFRecordWriter(p) as w:
            for r in recs[s * 10:(s + 1) * 10]:
                w.write(r)
        paths.append(p)
    reader = ta.TFRecordReader(str(tmp_path / "part-*.tfrec"), FEATURES, batch_size=4)
    table = pa.table(reader)
    assert table.num_rows == 25
    assert table.equals(pa.Table.from_batches([ta.to_arrow(recs, FEATURES)]))
    via_stream = pa.RecordBatchReader.from_stream(
        ta.TFRecordReader(paths, FEATURES)).read_all()
    assert via_stream.equals(table)
    inferred = ta.TFRecordReader(paths)
    assert inferred.features["tokens"] == tf.io.VarLenFeature(tf.int64)
    assert inferred.read_all().num_rows == 25
    df = ta.TFRecordReader(paths, FEATURES).to_pandas()
    assert list(df["id"]) == table.column("id").to_pylist()


def test_gzip_shards(tmp_path):
    recs, _ = make_records(8, seed=17)
    p = str(tmp_path / "z.tfrec.gz")
    with tf.io.TFRecordWriter(p, options="GZIP") as w:
        for r in recs:
            w.write(r)
    t = ta.TFRecordReader(p, FEATURES, compression="GZIP").read_all()
    assert t.equals(pa.Table.from_batches([ta.to_arrow(recs, FEATURES)]))


def test_polars_and_duckdb_read_shards(tmp_path):
    import duckdb
    import polars
    recs, rows = make_records(12, seed=19)
    p = str(tmp_path / "s.tfrec")
    with tf.io.TFRecordWriter(p) as w:
        for r in recs:
            w.write(r)
    df = polars.from_arrow(pa.table(ta.TFRecordReader(p, FEATURES)))
    assert df["id"].to_list() == [r["id"][1][0] for r in rows]
    assert df["tokens"].to_list() == [r["tokens"][1] for r in rows]
    shards = ta.TFRecordReader(p, FEATURES)  # noqa: F841 (DuckDB finds it by name)
    got = duckdb.sql("select id, len(tokens) as n from shards order by id").fetchall()
    assert got == sorted((r["id"][1][0], len(r["tokens"][1])) for r in rows)


def sequence_example(context, lists):
    """A reference serialized SequenceExample (tfnano.train)."""
    f = tf.train
    ctx = {k: f.Feature(int64_list=f.Int64List(value=v)) for k, v in context.items()}
    fl = {}
    for key, (kind, steps) in lists.items():
        feats = []
        for step in steps:
            if kind == "int":
                feats.append(f.Feature(int64_list=f.Int64List(value=step)))
            elif kind == "float":
                feats.append(f.Feature(float_list=f.FloatList(value=step)))
            else:
                feats.append(f.Feature(bytes_list=f.BytesList(value=step)))
        fl[key] = f.FeatureList(feature=feats)
    return f.SequenceExample(context=f.Features(feature=ctx),
                             feature_lists=f.FeatureLists(feature_list=fl)
                             ).SerializeToString()


def test_sequence_examples_become_nested_lists():
    recs = [sequence_example({"id": [1]}, {"tok": ("int", [[1, 2], [], [3]]),
                                           "xy": ("float", [[1.0, 2.0], [3.0, 4.0]]),
                                           "w": ("bytes", [[b"a"], [b"b"]])}),
            sequence_example({"id": [2]}, {"tok": ("int", [[4]]),
                                           "w": ("bytes", [[b"c"]])})]
    b = ta.to_arrow(recs, {"id": tf.io.FixedLenFeature([], tf.int64)},
                    sequence_features={
                        "tok": tf.io.VarLenFeature(tf.int64),
                        "xy": tf.io.FixedLenSequenceFeature([2], tf.float32),
                        "w": tf.io.FixedLenSequenceFeature([], tf.string)})
    assert b.schema.field("tok").type == pa.list_(pa.list_(pa.int64()))
    assert b.schema.field("xy").type == pa.list_(pa.list_(pa.float32(), 2))
    assert b.schema.field("w").type == pa.list_(pa.binary())
    assert b.to_pydict() == {"id": [1, 2], "tok": [[[1, 2], [], [3]], [[4]]],
                             "xy": [[[1.0, 2.0], [3.0, 4.0]], None],
                             "w": [[b"a", b"b"], [b"c"]]}
    ref = tf.io.parse_sequence_example(
        recs, sequence_features={"tok": tf.io.RaggedFeature(tf.int64)})[1]["tok"]
    assert ref.to_list() == b.to_pydict()["tok"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Key: xy, Index: 0"):
        ta.to_arrow(recs, sequence_features={
            "xy": tf.io.FixedLenSequenceFeature([3], tf.float32)})


def _random_table(rng, n):
    """A table of random columns (every mapped type), with nulls in random rows."""
    cols, ref = {}, [dict() for _ in range(n)]
    for j in range(int(rng.integers(1, 6))):
        kind = ["int", "float", "bytes", "intlist", "fixed"][int(rng.integers(0, 5))]
        null = rng.random(n) < rng.choice([0.0, 0.3, 0.9])
        name = "c%d" % j
        if kind == "int":
            vals = rng.integers(-2**40, 2**40, n)
            arr = pa.array(vals, mask=null)
            rows = [("int64_list", [int(v)]) for v in vals]
        elif kind == "float":
            vals = rng.normal(size=n).astype(np.float32)
            arr = pa.array(vals, mask=null)
            rows = [("float_list", [float(v)]) for v in vals]
        elif kind == "bytes":
            vals = [bytes(rng.integers(0, 256, int(rng.integers(0, 6)), dtype=np.uint8))
                    for _ in range(n)]
            arr = pa.array([None if m else v for v, m in zip(vals, null)], pa.binary())
            rows = [("bytes_list", [v]) for v in vals]
        elif kind == "intlist":
            vals = [rng.integers(0, 9, int(rng.integers(0, 4))).tolist() for _ in range(n)]
            arr = pa.array([None if m else v for v, m in zip(vals, null)],
                           pa.large_list(pa.int64()))
            rows = [("int64_list", v) for v in vals]
        else:
            vals = rng.normal(size=(n, 2)).astype(np.float32)
            arr = pa.FixedSizeListArray.from_arrays(pa.array(vals.reshape(-1)), 2,
                                                    mask=pa.array(null))
            rows = [("float_list", [float(x) for x in v]) for v in vals]
        cols[name] = arr
        for i in range(n):
            if not null[i]:
                ref[i][name] = rows[i]
    return pa.table(cols), ref


def test_random_tables_with_nulls_match_examples_row_by_row():
    rng = np.random.default_rng(2024)
    for _ in range(25):
        n = int(rng.integers(0, 40))
        table, ref = _random_table(rng, n)
        chunked = pa.Table.from_batches(table.to_batches(max_chunksize=7)) if n else table
        got = ta.from_arrow(chunked)
        assert [decoded(r) for r in got] == ref
        # and back: nulls where a fixed-length feature is absent, [] for lists
        feats, want = {}, {}
        for name in table.column_names:
            col = table.column(name).combine_chunks()
            t = col.type
            if pa.types.is_large_list(t):
                feats[name] = tf.io.VarLenFeature(tf.int64)
                want[name] = [v or [] for v in col.to_pylist()]
                continue
            if pa.types.is_fixed_size_list(t):
                feats[name] = tf.io.FixedLenFeature([2], tf.float32)
            elif pa.types.is_binary(t):
                feats[name] = tf.io.FixedLenFeature([], tf.string)
            elif pa.types.is_floating(t):
                feats[name] = tf.io.FixedLenFeature([], tf.float32)
            else:
                feats[name] = tf.io.FixedLenFeature([], tf.int64)
            want[name] = col.to_pylist()
        assert ta.to_arrow(got, feats).to_pydict() == want

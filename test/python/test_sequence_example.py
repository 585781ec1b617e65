"""tf.train.SequenceExample / FeatureLists / FeatureList messages and
tf.io.parse_sequence_example / parse_single_sequence_example: wire layout, round trips,
every sequence feature kind, errors, and the SequenceExample files of test/data/interop
(written by TensorFlow and by Apache Beam) read to their expected contents.
(Bytes and outputs equal to TensorFlow's: test/conformance/test_sequence_tf.py.)"""
import gzip
import hashlib
import json
import struct
from pathlib import Path

import numpy as np
import pytest

import tfnano as tf
from tfnano.errors import InvalidArgumentError

ROOT = Path(__file__).resolve().parents[2]
INTEROP = ROOT / "test" / "data" / "interop"


def seq_example(context=None, **lists):
    s = tf.train.SequenceExample()
    for key, values in (context or {}).items():
        s.context.feature[key].int64_list.value.extend(values)
    for key, (kind, steps) in lists.items():
        fl = s.feature_lists.feature_list[key]
        for step in steps:
            if kind == "int64":
                fl.feature.add(int64_list=tf.train.Int64List(value=step))
            elif kind == "float":
                fl.feature.add(float_list=tf.train.FloatList(value=step))
            else:
                fl.feature.add(bytes_list=tf.train.BytesList(value=step))
    return s.SerializeToString()


def test_wire_layout_and_round_trip():
    data = seq_example({"c": [7]}, t=("int64", [[1], []]))
    # context (1) = Features{feature (1) {key "c", value Feature{int64_list (3) {7}}}}
    assert data.startswith(b"\x0a\x0c\x0a\x0a\x0a\x01c\x12\x05\x1a\x03\x0a\x01\x07")
    s = tf.train.SequenceExample.FromString(data)
    assert s.context.feature["c"].int64_list.value == [7]
    steps = s.feature_lists.feature_list["t"].feature
    assert len(steps) == 2 and list(steps[0].int64_list.value) == [1]
    assert s.SerializeToString() == data
    assert s.HasField("context") and s.HasField("feature_lists")
    assert tf.train.SequenceExample().SerializeToString() == b""
    only_lists = tf.train.SequenceExample()
    only_lists.feature_lists.feature_list["k"].feature.add()
    # feature_lists (2) { feature_list (1) { key (1) "k", value (2) { feature (1) {} } } }
    assert only_lists.SerializeToString() == b"\x12\x09\x0a\x07\x0a\x01k\x12\x02\x0a\x00"
    assert not only_lists.HasField("context")


def test_map_keys_sorted_and_later_entries_win():
    s = tf.train.SequenceExample()
    for key in ("zeta", "alpha", "mid"):
        s.feature_lists.feature_list[key].feature.add(int64_list=tf.train.Int64List(value=[1]))
    data = s.SerializeToString()
    assert data.index(b"alpha") < data.index(b"mid") < data.index(b"zeta")
    twice = data + tf.train.SequenceExample(feature_lists=tf.train.FeatureLists(feature_list={
        "mid": tf.train.FeatureList(feature=[tf.train.Feature(
            float_list=tf.train.FloatList(value=[2.5]))])})).SerializeToString()
    back = tf.train.SequenceExample.FromString(twice)
    assert back.feature_lists.feature_list["mid"].feature[0].float_list.value == [2.5]
    assert len(back.feature_lists.feature_list) == 3


RECS = [seq_example({"c": [1]}, ids=("int64", [[1, 2], [3]]), w=("float", [[0.5], [1.5]]),
                    tok=("bytes", [[b"a"]])),
        seq_example({"c": [2]}, ids=("int64", [[4]]), w=("float", [[2.5]]))]


def test_parse_sequence_example_every_kind():
    context, lists, lengths = tf.io.parse_sequence_example(
        RECS, {"c": tf.io.FixedLenFeature([], tf.int64)},
        {"ids": tf.io.VarLenFeature(tf.int64),
         "w": tf.io.FixedLenSequenceFeature([1], tf.float32),
         "tok": tf.io.FixedLenSequenceFeature([], tf.string, allow_missing=True),
         "r": tf.io.RaggedFeature(tf.int64, value_key="r")})
    assert context["c"].tolist() == [1, 2]
    sp = lists["ids"]
    assert sp.indices.tolist() == [[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0]]
    assert sp.values.tolist() == [1, 2, 3, 4] and sp.dense_shape.tolist() == [2, 2, 2]
    assert lists["w"].tolist() == [[[0.5], [1.5]], [[2.5], [0.0]]]
    assert lists["tok"].tolist() == [[b"a"], [b""]]
    assert lengths["w"].tolist() == [2, 1] and lengths["tok"].tolist() == [1, 0]
    assert lists["r"].to_list() == [[], []]
    assert sorted(lengths) == ["tok", "w"]


def test_parse_single_sequence_example():
    context, lists = tf.io.parse_single_sequence_example(
        RECS[0], {"c": tf.io.VarLenFeature(tf.int64)},
        {"ids": tf.io.RaggedFeature(tf.int64, row_splits_dtype=tf.int64),
         "w": tf.io.FixedLenSequenceFeature([], tf.float32)})
    assert context["c"].values.tolist() == [1]
    assert lists["ids"].to_list() == [[1, 2], [3]]
    assert lists["ids"].row_splits.dtype == np.int64
    assert lists["w"].tolist() == [0.5, 1.5]


def test_sequence_errors():
    with pytest.raises(InvalidArgumentError) as e:
        tf.io.parse_sequence_example(RECS, None, {"tok": tf.io.FixedLenSequenceFeature(
            [], tf.string)})
    assert e.value.message == ("Name: <unknown>, Feature list 'tok' is required but could "
                               "not be found.  Did you mean to include it in "
                               "feature_list_dense_missing_assumed_empty or "
                               "feature_list_dense_defaults?")
    with pytest.raises(InvalidArgumentError) as e:
        tf.io.parse_sequence_example(RECS, None, {"ids": tf.io.FixedLenSequenceFeature(
            [1], tf.int64)})
    assert e.value.message == ("Name: <unknown>, Key: ids, Index: 0.  Number of values != "
                               "expected.  values size: 2 but output shape: [1]")
    with pytest.raises(InvalidArgumentError) as e:
        tf.io.parse_sequence_example(RECS, None, {"w": tf.io.VarLenFeature(tf.int64)})
    assert e.value.message == ("Name: <unknown>, Feature list: w, Index: 0.  Data types "
                               "don't match. Expected type: int64")
    with pytest.raises(ValueError, match="Missing features"):
        tf.io.parse_sequence_example(RECS, None, None)


# ------------------------------------------------------------------ interop files

def _payloads(path, compression):
    data = path.read_bytes()
    if compression == "GZIP":
        data = gzip.decompress(data)
    off = 0
    while off + 12 <= len(data):
        (n,) = struct.unpack_from("<Q", data, off)
        yield data[off + 12:off + 12 + n]
        off += 16 + n


def _check_values(values, want, kind):
    values = list(values)
    assert len(values) == want["count"]
    shown = want["values"]
    if want.get("truncated"):
        values_shown = values[:len(shown)]
    else:
        values_shown = values
    if kind == "bytes_list":
        if want.get("encoding") == "utf8":
            assert [v.decode("utf-8") for v in values_shown] == shown
        elif shown and isinstance(shown[0], str):
            assert [v.hex() for v in values_shown] == shown
    elif kind == "float_list":
        assert np.array_equal(np.asarray(values_shown, np.float32),
                              np.asarray(shown, np.float32))
    else:
        assert [int(v) for v in values_shown] == shown


@pytest.mark.parametrize("name", ["tf_pytorchdata_sequence_example.tfrecord",
                                  "beam_tfx_sequence_example_eval.tfrecord.gz"])
def test_interop_sequence_examples(name):
    expected = json.loads((INTEROP / "expected" / (name + ".expected.json")).read_text())
    payloads = list(_payloads(INTEROP / "files" / name, expected["compression"]))
    assert len(payloads) == expected["record_count"]
    full = [r for r in expected["records"] if "feature_lists" in r]
    assert full
    for rec in full:
        data = payloads[rec["index"]]
        assert hashlib.sha256(data).hexdigest() == rec["sha256"]
        msg = tf.train.SequenceExample.FromString(data)
        assert sorted(msg.context.feature) == sorted(rec["context"])
        for key, want in rec["context"].items():
            f = msg.context.feature[key]
            assert f.WhichOneof("kind") == want["kind"]
            if want["kind"]:
                _check_values(getattr(f, want["kind"]).value, want, want["kind"])
        assert sorted(msg.feature_lists.feature_list) == sorted(rec["feature_lists"])
        # the parser: every feature list as ragged (steps x values) of its kind
        kinds = {}
        for key, want in rec["feature_lists"].items():
            steps = msg.feature_lists.feature_list[key].feature
            assert len(steps) == want["num_steps"]
            for step, w in zip(steps, want["steps"]):
                assert step.WhichOneof("kind") == w["kind"]
                if w["kind"]:
                    _check_values(getattr(step, w["kind"]).value, w, w["kind"])
            k = {w["kind"] for w in want["steps"]} - {None}
            kinds[key] = k.pop() if k else "int64_list"
        dtypes = {"int64_list": tf.int64, "float_list": tf.float32, "bytes_list": tf.string}
        _, lists = tf.io.parse_single_sequence_example(
            data, None, {k: tf.io.RaggedFeature(dtypes[v]) for k, v in kinds.items()})
        for key, want in rec["feature_lists"].items():
            rows = lists[key].to_list()
            assert len(rows) == want["num_steps"]
            for row, w in zip(rows, want["steps"]):
                assert len(row) == w["count"]
                if w["kind"]:
                    _check_values(row, w, w["kind"])
    # the whole file in one batch: every record parses, steps add up
    all_keys = sorted({k for r in full for k in r["feature_lists"]})
    dtypes = {}
    for r in full:
        for k, v in r["feature_lists"].items():
            for s in v["steps"]:
                if s["kind"]:
                    dtypes[k] = {"int64_list": tf.int64, "float_list": tf.float32,
                                 "bytes_list": tf.string}[s["kind"]]
    _, lists, _ = tf.io.parse_sequence_example(
        payloads, None, {k: tf.io.RaggedFeature(dtypes.get(k, tf.int64)) for k in all_keys})
    for r in full:
        for k, v in r["feature_lists"].items():
            assert len(lists[k][r["index"]]) == v["num_steps"]


def test_serialize_sequence_columns_matches_messages():
    rng = np.random.default_rng(4)
    for n in (1, 3, 7):
        tok = rng.integers(-(2 ** 40), 2 ** 40, (n, 5))
        scores = rng.random((n, 5, 3), dtype=np.float32)
        ragged = [[list(rng.integers(0, 300, rng.integers(0, 4))) for _ in
                   range(rng.integers(0, 4))] for _ in range(n)]
        tags = [[bytes(rng.integers(0, 256, rng.integers(0, 200)).astype(np.uint8))
                 for _ in range(rng.integers(0, 3))] for _ in range(n)]
        ctx = {"id": np.arange(n, dtype=np.int64), "w": rng.random((n, 2), dtype=np.float32)}
        got = tf.serialize_sequence_columns(ctx, {"tok": tok, "scores": scores,
                                                  "ragged": ragged, "tags": tags})
        for i in range(n):
            s = tf.train.SequenceExample()
            s.context.feature["id"].int64_list.value.append(int(ctx["id"][i]))
            s.context.feature["w"].float_list.value.extend(ctx["w"][i].tolist())
            for t in range(5):
                s.feature_lists.feature_list["tok"].feature.add(
                    int64_list=tf.train.Int64List(value=[int(tok[i, t])]))
                s.feature_lists.feature_list["scores"].feature.add(
                    float_list=tf.train.FloatList(value=scores[i, t].tolist()))
            fl = s.feature_lists.feature_list["ragged"]
            for step in ragged[i]:
                fl.feature.add(int64_list=tf.train.Int64List(value=[int(v) for v in step]))
            fl = s.feature_lists.feature_list["tags"]
            for step in tags[i]:
                fl.feature.add(bytes_list=tf.train.BytesList(value=[step]))
            assert got[i] == s.SerializeToString()
    only_lists = tf.serialize_sequence_columns(None, {"a": np.zeros((2, 0), np.int64)})
    assert only_lists == [b"\x12\x07\x0a\x05\x0a\x01a\x12\x00"] * 2

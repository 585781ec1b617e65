"""serialize_sequence_columns through the C encoder (tfn_encode_sequences): bytes equal
to the messages' SerializeToString for every column layout, keys in byte order, a
round trip through parse_sequence_example, and the errors of bad columns."""
import numpy as np
import pytest

import tfnano as tf


def message(ctx, lists, i):
    s = tf.train.SequenceExample()
    for k, col in ctx.items():
        s.context.feature[k].int64_list.value.extend(np.atleast_1d(col[i]).tolist())
    for k, steps in lists.items():
        fl = s.feature_lists.feature_list[k]
        for step in steps[i]:
            if isinstance(step, bytes):
                fl.feature.add(bytes_list=tf.train.BytesList(value=[step]))
            elif len(step) and isinstance(step[0], (bytes, np.bytes_)):
                fl.feature.add(bytes_list=tf.train.BytesList(value=list(step)))
            elif np.asarray(step).dtype.kind == "f":
                fl.feature.add(float_list=tf.train.FloatList(
                    value=np.asarray(step, np.float32).tolist()))
            else:
                fl.feature.add(int64_list=tf.train.Int64List(
                    value=[int(v) for v in step]))
    return s.SerializeToString()


def test_every_layout_matches_the_messages():
    rng = np.random.default_rng(11)
    n = 9
    lists = {
        # given out of key order: the encoder sorts by key bytes
        "zeta": [[rng.random(rng.integers(1, 4)) for _ in range(rng.integers(0, 4))]
                 for _ in range(n)],
        "alpha": [[[bytes(rng.integers(0, 256, rng.integers(0, 5)).astype(np.uint8))
                    for _ in range(rng.integers(1, 3))] for _ in range(rng.integers(0, 3))]
                  for _ in range(n)],
        "mid": [[list(rng.integers(-2 ** 62, 2 ** 62, rng.integers(1, 5)))
                 for _ in range(rng.integers(0, 3))] for _ in range(n)],
    }
    ctx = {"id": np.arange(n, dtype=np.int64) - 4}
    got = tf.serialize_sequence_columns(ctx, lists)
    assert got == [message(ctx, lists, i) for i in range(n)]
    parsed_ctx, parsed, lengths = tf.io.parse_sequence_example(
        np.array(got, dtype=object), context_features={"id": tf.io.FixedLenFeature([], tf.int64)},
        sequence_features={"mid": tf.io.RaggedFeature(tf.int64)})
    assert np.asarray(parsed_ctx["id"]).tolist() == ctx["id"].tolist()
    assert parsed["mid"].to_list() == [[[int(v) for v in s] for s in ex] for ex in lists["mid"]]


def test_dense_float64_and_int32_steps():
    n = 4
    f64 = np.arange(n * 3 * 2, dtype=np.float64).reshape(n, 3, 2) / 3
    i32 = np.arange(n * 2, dtype=np.int32).reshape(n, 2) - 3
    got = tf.serialize_sequence_columns(None, {"f": f64, "i": i32})
    want = []
    for k in range(n):
        s = tf.train.SequenceExample()
        for t in range(3):
            s.feature_lists.feature_list["f"].feature.add(
                float_list=tf.train.FloatList(value=f64[k, t].astype(np.float32).tolist()))
        for t in range(2):
            s.feature_lists.feature_list["i"].feature.add(
                int64_list=tf.train.Int64List(value=[int(i32[k, t])]))
        want.append(s.SerializeToString())
    assert got == want


def test_context_only_and_no_examples():
    got = tf.serialize_sequence_columns({"c": np.array([5, 6])})
    assert got == [tf.train.SequenceExample(context=tf.train.Features(feature={
        "c": tf.train.Feature(int64_list=tf.train.Int64List(value=[v]))})).SerializeToString()
        for v in (5, 6)]
    assert tf.serialize_sequence_columns(None, {"a": np.zeros((0, 2), np.int64)}) == []


def test_bad_columns_are_refused():
    with pytest.raises(ValueError):
        tf.serialize_sequence_columns(None, {"a": np.zeros(3, np.int64)})
    with pytest.raises(ValueError):
        tf.serialize_sequence_columns(None, {"a": [[[1]], [[2]]]}, n=3)


def test_message_serialization_through_c_equals_the_python_path(monkeypatch):
    from tfnano._c import sequence_columns as _sequence_columns
    rng = np.random.default_rng(5)
    messages = []
    for _ in range(30):
        s = tf.train.SequenceExample()
        s.context.feature["c"].float_list.value.append(0.5)
        for key in ("a", "b\x01", "\u00e9", "z"):
            if rng.random() < 0.3:
                continue
            kind = rng.choice(["int64", "float", "bytes", "mixed"])
            fl = s.feature_lists.feature_list[key]
            for _ in range(rng.integers(0, 4)):
                k = rng.choice(["int64", "float", "bytes", "none"]) if kind == "mixed" else kind
                f = fl.feature.add()
                m = int(rng.integers(0, 3))
                if k == "int64":
                    f.int64_list.value.extend([int(v) for v in rng.integers(-2 ** 62, 2 ** 62, m)])
                elif k == "float":
                    f.float_list.value.extend(rng.random(m).astype(np.float32).tolist())
                elif k == "bytes":
                    f.bytes_list.value.extend([b"a\x00", b"", b"\xff"][:m])
        messages.append(s)
    fast = [m.SerializeToString() for m in messages]
    monkeypatch.setattr(_sequence_columns, "encode_feature_lists", lambda items: None)
    slow = [m.SerializeToString() for m in messages]
    assert fast == slow
    assert [tf.train.SequenceExample.FromString(b) for b in fast] == messages

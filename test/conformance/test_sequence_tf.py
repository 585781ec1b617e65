"""SequenceExample against TensorFlow 2.21, in one process (tfnano from bindings/python):
  - tf.train.SequenceExample / FeatureLists / FeatureList built the same way in both
    serialize to the same bytes (keys chosen so that no key is a prefix of another:
    protobuf implementations disagree on the order of such map keys, see
    docs/parsing.md), and tfnano reads TensorFlow's bytes back to the same bytes;
  - tf.io.parse_sequence_example / parse_single_sequence_example on random
    SequenceExamples (empty and missing lists, kind-less steps, wrong kinds, steps of
    the wrong size, unknown keys) with random context and sequence specs of every
    kind: the same values, dtypes and shapes, or the same error class and text.
"""
import os
import random
import sys
from pathlib import Path

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import tfnano as tn  # noqa: E402
from test_parse_kinds_tf import run  # noqa: E402

KEYS = ["a", "b", "ä", "zz", "c"]
STATS = {"ok": 0, "errors": 0}
SEED = int(os.environ.get("TFN_SEED", "12"))
ROUNDS = int(os.environ.get("TFN_SEQUENCE_ROUNDS", "400"))


def rand_values(rng, kind):
    n = rng.choice([0, 1, 1, 2, 3])
    return {"int64": [rng.choice([0, 1, -5, 2**40]) for _ in range(n)],
            "float": [rng.choice([0.5, -2.0, 1e30]) for _ in range(n)],
            "bytes": [rng.choice([b"", b"ab", b"\x00"]) for _ in range(n)],
            "none": []}[kind]


def rand_plan(rng, kinds=None, steady=False):
    """(context, feature_lists) as plain data; `kinds` biases keys to a kind."""
    def kind_for(key):
        if kinds and key in kinds and rng.random() < 0.95:
            return kinds[key]
        return rng.choice(["int64", "float", "bytes", "none"])
    ctx = None if rng.random() < 0.1 else {
        k: (kd, rand_values(rng, kd)) for k in rng.sample(KEYS, rng.choice([0, 1, 2, 3]))
        for kd in [kind_for(k)]}
    lists = None if rng.random() < 0.1 else {}
    if lists is not None:
        for k in rng.sample(KEYS, rng.choice([1, 2, 3, 4])):
            kd = kind_for(k)
            steps = []
            for _ in range(rng.choice([0, 1, 2, 4])):
                sk = kd if rng.random() < 0.95 else "none"
                v = rand_values(rng, sk)
                if steady and sk != "none":  # one value per step: FixedLen-shaped data
                    v = [rng.choice({"int64": [0, 7, -5], "float": [0.5, -2.0],
                                     "bytes": [b"", b"x"]}[sk])]
                steps.append((sk, v))
            lists[k] = steps
    return ctx, lists


def build(m, plan):
    s = m.train.SequenceExample()
    ctx, lists = plan
    if ctx is not None:
        s.context.CopyFrom(m.train.Features())
        for k, (kind, v) in ctx.items():
            f = s.context.feature[k]
            if kind == "int64":
                f.int64_list.value.extend(v)
            elif kind == "float":
                f.float_list.value.extend(v)
            elif kind == "bytes":
                f.bytes_list.value.extend(v)
            else:
                f.CopyFrom(m.train.Feature())
    if lists is not None:
        s.feature_lists.CopyFrom(m.train.FeatureLists())
        for k, steps in lists.items():
            fl = s.feature_lists.feature_list[k]
            for kind, v in steps:
                if kind == "int64":
                    fl.feature.add(int64_list=m.train.Int64List(value=v))
                elif kind == "float":
                    fl.feature.add(float_list=m.train.FloatList(value=v))
                elif kind == "bytes":
                    fl.feature.add(bytes_list=m.train.BytesList(value=v))
                else:
                    fl.feature.add()
    return s


def test_golden_bytes():
    rng = random.Random(11)
    for _ in range(300):
        plan = rand_plan(rng)
        theirs = build(tf, plan).SerializeToString(deterministic=True)
        ours = build(tn, plan).SerializeToString()
        assert ours == theirs, plan
        assert tn.train.SequenceExample.FromString(theirs).SerializeToString() == theirs


DT = {"int64": "int64", "float": "float32", "bytes": "string"}


def rand_specs(rng, m):
    kinds, ctx, seq = {}, {}, {}
    keys = KEYS[:]
    rng.shuffle(keys)
    for key in keys[:rng.choice([1, 2, 3])]:
        kd = rng.choice(["int64", "float", "bytes"])
        kinds[key] = kd
        dt = getattr(m, DT[kd])
        r = rng.random()
        if r < 0.4:
            seq[key] = m.io.FixedLenSequenceFeature([] if rng.random() < 0.7 else [1], dt,
                                                    allow_missing=rng.random() < 0.7)
        elif r < 0.7:
            seq[key] = m.io.VarLenFeature(dt)
        else:
            seq[key] = m.io.RaggedFeature(dt, row_splits_dtype=rng.choice([m.int32, m.int64]))
    for key in keys[3:3 + rng.choice([0, 1, 2])]:
        kd = rng.choice(["int64", "float", "bytes"])
        kinds[key] = kd
        dt = getattr(m, DT[kd])
        ctx[key] = rng.choice([m.io.VarLenFeature(dt), m.io.RaggedFeature(dt)])
    return ctx, seq, kinds


@pytest.mark.parametrize("single", [False, True], ids=["batch", "single"])
def test_random_sequence_parsing(single):
    rng = random.Random(SEED + single)
    for _ in range(ROUNDS):
        state = rng.getstate()
        _, _, kinds = rand_specs(rng, tf)
        steady = rng.random() < 0.6
        nrec = 1 if single else rng.choice([1, 2, 3])
        records = [build(tf, rand_plan(rng, kinds, steady)).SerializeToString(
            deterministic=True) for _ in range(nrec)]
        r = random.Random()
        r.setstate(state)
        ctf, stf, _ = rand_specs(r, tf)
        r.setstate(state)
        ctn, stn, _ = rand_specs(r, tn)
        if single:
            a = run(lambda: dict(_flat2(tf.io.parse_single_sequence_example(
                records[0], ctf, stf))))
            b = run(lambda: dict(_flat2(tn.io.parse_single_sequence_example(
                records[0], ctn, stn))))
        else:
            a = run(lambda: dict(_flat3(tf.io.parse_sequence_example(
                tf.constant(records), ctf, stf))))
            b = run(lambda: dict(_flat3(tn.io.parse_sequence_example(records, ctn, stn))))
        STATS["ok" if a[0] == "ok" else "errors"] += 1
        assert b == a, (stf, ctf, records)
    print("sequence conformance: %r" % STATS)


def _flat2(pair):
    for i, d in enumerate(pair):
        for k, v in d.items():
            yield "%d/%s" % (i, k), v


def _flat3(triple):
    return _flat2(triple)


def _comparable(result):
    """run()'s result with TensorFlow's 0-d string arrays (bytes dtype) as object."""
    if result[0] != "ok":
        return result
    out = {}
    for k, (kind, (dt, shape, vals)) in result[1].items():
        out[k] = (kind, ("object" if dt.startswith("|S") else dt, shape, vals))
    return ("ok", out)


@pytest.mark.parametrize("single", [False, True], ids=["batch", "single"])
def test_context_fixed_len_features(single):
    """Context FixedLenFeatures (any shape, with and without a default) on random
    SequenceExamples (present Features with no value list among them): TensorFlow's
    sequence parser words its errors its own way ("Inconsistent max number of elements
    ...", "Unexpected number of elements in example ...", "Name: ..., Context feature:
    ...  Data types don't match ...")."""
    rng = random.Random(SEED + 100 + single)
    stats = {"ok": 0, "errors": 0}
    for _ in range(ROUNDS):
        key = rng.choice(["a", "b", "zz"])
        kd = rng.choice(["int64", "float", "bytes"])
        shape = rng.choice([[], [1], [2], [2, 1]])
        count = int(np.prod(shape)) if shape else 1
        default = None
        if rng.random() < 0.4:
            default = {"int64": [7], "float": [0.5], "bytes": [b"d"]}[kd] * count
            default = default if shape else default[0]

        def spec(m):
            dt = {"int64": m.int64, "float": m.float32, "bytes": m.string}[kd]
            return {key: m.io.FixedLenFeature(shape, dt, default_value=default)}
        nrec = 1 if single else rng.choice([1, 2, 3])
        plans = [rand_plan(rng, {key: kd} if rng.random() < 0.7 else None)
                 for _ in range(nrec)]
        records = [build(tf, p).SerializeToString(deterministic=True) for p in plans]
        if single:
            a = run(lambda: dict(_flat2(tf.io.parse_single_sequence_example(
                records[0], spec(tf), {}))))
            b = run(lambda: dict(_flat2(tn.io.parse_single_sequence_example(
                records[0], spec(tn), {}))))
        else:
            a = run(lambda: dict(_flat3(tf.io.parse_sequence_example(
                tf.constant(records), spec(tf), {}))))
            b = run(lambda: dict(_flat3(tn.io.parse_sequence_example(records, spec(tn), {}))))
        stats["ok" if a[0] == "ok" else "errors"] += 1
        assert _comparable(b) == _comparable(a), (shape, default, plans)
    print("context FixedLen conformance: %r" % stats)
    assert stats["ok"] > ROUNDS // 10 and stats["errors"] > ROUNDS // 10

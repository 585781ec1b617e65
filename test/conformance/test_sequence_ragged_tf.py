"""RaggedFeature partitions among sequence features: tfnano's parse_sequence_example /
parse_single_sequence_example against TensorFlow 2.21's, in one process, on seeded
random SequenceExamples (a value list and a partition list per example, the partition
list sometimes missing, partitions often inconsistent with the values) and every
partition kind with both row_splits dtypes. Results must agree value for value and in
their row splits dtypes, or both must fail with the same class and text (the first
check that fails in TensorFlow's order: a static shape check's ValueError, an eager
assertion's InvalidArgumentError with its values)."""
import os
import random
import re
import sys
from pathlib import Path

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
import tfnano as tn  # noqa: E402

ROUNDS = int(os.environ.get("TFN_SEQ_RAGGED_ROUNDS", "150"))
KINDS = ["RowLengths", "RowSplits", "RowStarts", "RowLimits", "ValueRowIds",
         "UniformRowLength"]


def int_feature(v):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=v))


def partition_step(rng, m):
    """A partition step for m values: right for RowLengths, or random, or rowids."""
    kind = rng.randint(0, 2)
    if kind == 0:
        cuts = sorted(rng.randint(0, m) for _ in range(rng.randint(0, 2)))
        return [b - a for a, b in zip([0] + cuts, cuts + [m])]
    if kind == 1:
        return [rng.randint(0, 3) for _ in range(rng.randint(0, 3))]
    return sorted(rng.randint(0, max(m - 1, 0)) for _ in range(m))


def records(rng):
    out = []
    for _ in range(rng.randint(1, 3)):
        steps = [[rng.randint(0, 9) for _ in range(rng.choice([0, 1, 2, 2, 3, 4]))]
                 for _ in range(rng.randint(0, 3))]
        lists = {"v": tf.train.FeatureList(feature=[int_feature(s) for s in steps])}
        if rng.random() < 0.9:
            lists["p"] = tf.train.FeatureList(
                feature=[int_feature(partition_step(rng, len(s))) for s in steps])
        out.append(tf.train.SequenceExample(
            feature_lists=tf.train.FeatureLists(feature_list=lists)).SerializeToString())
    return out


def summary(x):
    if hasattr(x, "nested_row_splits"):
        return x.to_list(), [np.asarray(s).dtype.name for s in x.nested_row_splits]
    return np.asarray(x).tolist(), []


def outcome(fn):
    try:
        return True, summary(fn())
    except Exception as e:  # compared: class and TensorFlow's core message
        text = getattr(e, "message", None) or str(e)
        text = re.sub(r"^\{\{function_node [^}]*\}\} ", "", text)
        text = re.sub(r" \[Op:\w+\]( name: [^\n]*)?$", "", text)
        return False, (type(e).__name__, text)


def spec(lib, kind, length, splits_dtype):
    part = lib.io.RaggedFeature.UniformRowLength(length) if kind == "UniformRowLength" \
        else getattr(lib.io.RaggedFeature, kind)("p")
    return {"r": lib.io.RaggedFeature(lib.int64, value_key="v", partitions=[part],
                                      row_splits_dtype=getattr(lib, splits_dtype),
                                      validate=True)}


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_sequence_ragged_partitions_match_tensorflow(round_):
    rng = random.Random(round_)
    recs = records(rng)
    kind = rng.choice(KINDS)
    length = rng.choice([1, 2])
    splits_dtype = rng.choice(["int32", "int64"])
    t_spec, n_spec = spec(tf, kind, length, splits_dtype), spec(tn, kind, length, splits_dtype)
    t_ok, t = outcome(lambda: tf.io.parse_sequence_example(recs, sequence_features=t_spec)[1]["r"])
    n_ok, n = outcome(lambda: tn.io.parse_sequence_example(
        np.array(recs, dtype=object), sequence_features=n_spec)[1]["r"])
    assert t_ok == n_ok, (t, n)
    assert n == t, (t, n)
    t_ok, t = outcome(lambda: tf.io.parse_single_sequence_example(
        recs[0], sequence_features=t_spec)[1]["r"])
    n_ok, n = outcome(lambda: tn.io.parse_single_sequence_example(
        recs[0], sequence_features=n_spec)[1]["r"])
    assert t_ok == n_ok, (t, n)
    assert n == t, (t, n)

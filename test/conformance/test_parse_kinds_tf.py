"""VarLenFeature, SparseFeature and RaggedFeature: tfnano's tf.io.parse_example /
parse_single_example against TensorFlow 2.21's, in one process (tfnano imported from
bindings/python, whose extension `make python` builds in place).

Seeded random batches of Examples (keys of every kind, empty lists, kind-less and
missing features, duplicate keys, wrong kinds, broken lists, huge claimed lengths)
against random specs mixing every kind (FixedLen with defaults, VarLen, SparseFeature
with one or two index keys, RaggedFeature with each partition, nested partitions and
both row_splits_dtypes). Outputs must agree value for value, dtype for dtype and
shape for shape (SparseTensor: indices, values, dense_shape; RaggedTensor: nested
row splits and flat values), or both must fail: the same class and the same message
(TensorFlow's core message, without its op context).

Partition tensors that disagree with their values give an invalid RaggedTensor in
TensorFlow when `validate=False` (its default: no error, garbage shape); such specs
are built with validate=True, and the failure must be TensorFlow's: the class (a
static shape check's ValueError or an assertion's InvalidArgumentError) and the text
of the first check that fails, values included (eager mode names no graph tensors).
"""
import os
import random
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import tfnano as tn  # noqa: E402
from test_parse_tf import core_message, entry, example, feature  # noqa: E402

SEED = int(os.environ.get("TFN_SEED", "1234"))
ROUNDS = int(os.environ.get("TFN_KINDS_ROUNDS", "400"))
KEYS = ["a", "b", "c", "d", "e", "f"]
EXCLUDE = set(os.environ.get("TFN_KINDS_EXCLUDE", "").split(","))  # to narrow a failure
STATS = {"ok": 0, "errors": 0, "partition_errors": 0}


# ------------------------------------------------------------------ random inputs

def rand_values(rng, kind, n):
    if kind == "int64":
        return [rng.choice([0, 1, 2, 3, 5, 127, 300, -1, 2**40]) for _ in range(n)]
    if kind == "float32":
        return [struct.unpack("<I", struct.pack("<f", rng.choice([0.5, -2.0, 1e30, 0.0])))[0]
                for _ in range(n)]
    return [bytes(rng.choice([b"", b"x", b"hello", b"\x00\xff"])) for _ in range(n)]


def rand_entry(rng, key, partition_like, want=None, clean=False):
    r = 0.5 if clean else rng.random()
    if r < 0.03:
        return entry(key.encode(), b"")  # kind-less Feature
    if r < 0.045 and not partition_like:  # a broken int64 list / huge claimed length
        return entry(key.encode(), rng.choice([b"\x1a\x03\x0a\x05\x01",
                                               b"\x1a\x07\x0a\xff\xff\xff\xff\x0f\x01",
                                               b"\x12\x03\x0a\x05\x01\x02"]))
    if partition_like and r < 0.97:
        kind = "int64"
    elif want is not None and (r < 0.97 or want[1] == "fixed"):
        kind = want[0]
    else:
        kind = rng.choice(["int64", "int64", "float32", "string"])
    n = rng.choice([0, 1, 2, 3, 4, 6])
    if want is not None and want[1] == "fixed" and rng.random() < 0.9:
        n = 1
    vals = rand_values(rng, kind, n)
    if partition_like and kind == "int64":
        # TensorFlow itself crashes (heap corruption) on partition values such as 2**40
        # or -1 in a ValueRowIds key: partitions get small non-negative values
        vals = sorted(rng.randrange(0, 5) for _ in range(n))
    # an unpacked float list longer than a FixedLen float feature is written past
    # TensorFlow's output buffer (see test_parse_tf.py): fixed keys stay packed
    packed = rng.random() < 0.8 or (want is not None and want[1] == "fixed")
    return entry(key.encode(), feature(kind, vals, packed=packed))


def rand_record(rng, partition_keys, kinds=None):
    entries, repeatable = [], []
    clean = rng.random() < 0.6  # records without damage or wrong kinds
    for key in KEYS:
        if rng.random() < 0.8:
            want = (kinds or {}).get(key)
            entries.append(rand_entry(rng, key, key in partition_keys, want, clean))
            if want is None or want[1] != "fixed":
                repeatable.append(entries[-1])
    if rng.random() < 0.1 and repeatable:
        entries.append(rng.choice(repeatable))  # a duplicate key
    rng.shuffle(entries)
    return example(entries)


# ------------------------------------------------------------------ random specs

def rand_spec(rng, m, single=True):
    """A spec using each key at most once (TensorFlow refuses overlaps). In batch mode
    no ValueRowIds partition: TensorFlow 2.21's batched ValueRowIds path corrupts its
    heap (free(): invalid pointer) on some batches; tfnano's is tested in
    test/python/test_parse_kinds.py."""
    keys = KEYS[:]
    rng.shuffle(keys)
    feats, partition_keys, kinds = {}, set(), {}
    names = {m.int64: "int64", m.float32: "float32", m.string: "string"}
    validate = False
    dtypes = {"int64": m.int64, "float32": m.float32, "string": m.string}
    while keys:
        kind = rng.choice(["varlen", "varlen", "sparse", "ragged", "ragged", "fixed"])
        if kind in EXCLUDE:
            kind = "varlen"
        key = keys.pop()
        dt = dtypes[rng.choice(["int64", "int64", "float32", "string"])]
        kinds[key] = (names[dt], kind)
        if kind == "varlen":
            feats[key] = m.io.VarLenFeature(dt)
        elif kind == "fixed":
            feats[key] = m.io.FixedLenFeature([1], dt, default_value=rng.choice(
                [None, [0]] if dt != m.string else [None, [b"z"]]))
        elif kind == "sparse" and len(keys) >= 1:
            idx = keys.pop()
            partition_keys.add(idx)
            feats[key + "_sp"] = m.io.SparseFeature(idx, key, dt, rng.choice([5, 300]),
                                                    already_sorted=rng.random() < 0.3)
        elif kind == "ragged":
            parts = []
            for _ in range(rng.choice([0, 0, 1, 1, 2])):
                pk = rng.choice(["RowLengths", "RowSplits", "RowStarts", "RowLimits",
                                 "ValueRowIds" if single else "RowLengths",
                                 "UniformRowLength"])
                if pk == "UniformRowLength":
                    parts.append(m.io.RaggedFeature.UniformRowLength(rng.choice([1, 2])))
                elif keys:
                    pkey = keys.pop()
                    partition_keys.add(pkey)
                    parts.append(getattr(m.io.RaggedFeature, pk)(pkey))
            if parts:
                validate = True
            feats[key] = m.io.RaggedFeature(
                dt, partitions=parts, validate=bool(parts),
                row_splits_dtype=rng.choice([m.int32, m.int64]))
        else:
            feats[key] = m.io.VarLenFeature(dt)
    return feats, partition_keys, validate, kinds


def rand_spec_replay(state, m, single):
    r = random.Random()
    r.setstate(state)
    return rand_spec(r, m, single)[0]


# ------------------------------------------------------------------ comparison

def flatten(v):
    """A comparable form of an output (both libraries)."""
    name = type(v).__name__
    if name in ("SparseTensor", "SparseTensorValue"):
        return ("sparse", arr(v.indices), arr(v.values), arr(v.dense_shape))
    if name == "RaggedTensor":
        return ("ragged", tuple(arr(s) for s in v.nested_row_splits), arr(v.flat_values))
    return ("dense", arr(v))


def arr(x):
    a = x.numpy() if hasattr(x, "numpy") and not isinstance(x, np.ndarray) else x
    a = np.asarray(a)
    if a.dtype.kind == "f":
        a = a.view(np.uint32 if a.itemsize == 4 else np.uint64)
    return (a.dtype.str if a.dtype != object else "object", a.shape, a.tolist())


def run(call):
    try:
        out = call()
        return ("ok", {k: flatten(v) for k, v in sorted(out.items())})
    except UnicodeDecodeError as e:
        return ("error", "InvalidArgumentError", core_message(bytes(e.object)))
    except Exception as e:  # noqa: BLE001 - the class is what we compare
        msg = getattr(e, "message", None) or str(e)
        return ("error", type(e).__name__, core_message(msg.encode("utf-8", "replace")))


# TensorFlow's texts when a RaggedTensor cannot be built from the partitions: its
# static shape checks (ValueError) or runtime assertions (InvalidArgumentError).
PARTITION_MARKERS = (b"assert", b"Assert", b"valid RaggedTensor", b"reshape", b"aligned",
                     b"incompatible", b"not compatible", b"slice index", b"Condition x",
                     b"must equal")


def compare(records, state, validate, single):
    ftf = rand_spec_replay(state, tf, single)
    ftn = rand_spec_replay(state, tn, single)
    if single:
        a = run(lambda: tf.io.parse_single_example(records[0], ftf))
        b = run(lambda: tn.io.parse_single_example(records[0], ftn))
    else:
        a = run(lambda: tf.io.parse_example(tf.constant(records, dtype=tf.string), ftf))
        b = run(lambda: tn.io.parse_example(records, ftn))
    context = "spec %r, records %r" % (ftf, records)
    if a[0] == "ok":
        STATS["ok"] += 1
        if b != a and b[0] == "ok":
            diff = {k: (a[1][k], b[1].get(k)) for k in a[1] if a[1][k] != b[1].get(k)}
            assert b == a, "%s\ndiffers (tensorflow, tfnano): %r" % (context, diff)
        assert b == a, context
        return
    STATS["errors"] += 1
    assert b[0] == "error", "TF failed (%r) where tfnano did not; %s" % (a, context)
    if validate and any(m in a[2] for m in PARTITION_MARKERS):
        STATS["partition_errors"] += 1
    assert b[1] == a[1], (a, b, context)
    assert b[2] == a[2], (a, b, context)


@pytest.mark.parametrize("single", [False, True], ids=["batch", "single"])
def test_random_kinds_against_tensorflow(single):
    rng = random.Random(SEED + single)
    for _ in range(ROUNDS):
        state = rng.getstate()
        _, partition_keys, validate, kinds = rand_spec(rng, tf, single)
        nrec = 1 if single else rng.choice([1, 2, 3, 5])
        records = [rand_record(rng, partition_keys, kinds) for _ in range(nrec)]
        compare(records, state, validate, single)
    print("kinds conformance (%s): %r" % ("single" if single else "batch", STATS))


def test_config_errors_match():
    cases = [
        lambda m: {"a": m.io.FixedLenFeature([], m.int64), "b": m.io.SparseFeature(
            "a", "c", m.float32, 4)},
        lambda m: {"a": m.io.VarLenFeature(m.int64), "b": m.io.RaggedFeature(
            m.int64, value_key="a")},
        lambda m: {"a": m.io.VarLenFeature(m.int64), "b": m.io.SparseFeature(
            "c", "a", m.float32, 4)},
    ]
    rec = example([entry(b"a", feature("int64", [1]))])
    for make in cases:
        a = run(lambda: tf.io.parse_example([rec], make(tf)))
        b = run(lambda: tn.io.parse_example([rec], make(tn)))
        assert a[0] == b[0] == "error" and a[1] == b[1] and a[2] == b[2], (a, b)

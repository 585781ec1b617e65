"""Example parsing: real TensorFlow (tf.io.parse_single_example / parse_example)
against tfnano's C parser (tfn_spec_new, tfn_parser_scan / fill through
test/conformance/tfn_parse_driver.py; TFN_LIB selects the build).

Both get the same serialized records and the same feature configs; they must give
the same outputs (dtype, shape, values: floats compared bit for bit, NaN payloads and
-0.0 included), or both fail with the same error:
  - class: TensorFlow's InvalidArgumentError is tfnano's TFN_E_INVALID_ARG,
    TFN_E_CORRUPT, TFN_E_TYPE or TFN_E_NOT_FOUND;
  - text: tfnano's message equals TensorFlow's core message (without the
    "{{function_node ...}} " prefix and the " [Op:...]" suffix), compared as bytes:
    "Could not parse example input, value: '...'" holds the raw record, which
    TensorFlow's Python layer cannot even decode when it is not UTF-8 (it raises
    UnicodeDecodeError; the message bytes are its `.object`). tfnano cuts messages to
    1 KiB ending in "..."; such a message must be a prefix of TensorFlow's.
Config errors raised by TensorFlow's Python layer end with a Python repr of the
feature (" Received feature=FixedLenFeature(...)."), which a C config cannot know:
there tfnano's message is TensorFlow's up to that sentence.

Inputs: the spec's parsing edge cases (shared/spec/tensorflow-behaviour.md §6, 8-31),
then seeded random Examples (random keys and kinds, empty lists, kind-less Features,
duplicate keys, unpacked and split lists, concatenated messages, unknown fields,
extreme int64s, NaN / -0.0 floats, arbitrary bytes) against random specs, and
mutated records (bytes flipped, inserted, deleted, cut), in single and batch mode,
with and without example names; int64 features also as int32 outputs.
"""
import os
import random
import re
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from tfn_abi import lib  # noqa: E402
from tfn_parse_driver import Feature, Spec, TfnError  # noqa: E402

PARSE_ERRORS = {lib.TFN_E_INVALID_ARG, lib.TFN_E_CORRUPT, lib.TFN_E_TYPE, lib.TFN_E_NOT_FOUND}
TF_DTYPES = {"int64": tf.int64, "float32": tf.float32, "string": tf.string,
             "int32": tf.int32, "float64": tf.float64, None: None}
STATS = {"records": 0, "comparisons": 0, "tf_errors": 0}

# ------------------------------------------------------------------ wire format


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def ld(field, payload):
    """A length-delimited field."""
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def int64_list(values, packed=True):
    if packed:
        return ld(1, b"".join(varint(v) for v in values)) if values else b""
    return b"".join(b"\x08" + varint(v) for v in values)


def float_list(bits, packed=True):
    raw = [struct.pack("<I", b) for b in bits]
    if packed:
        return ld(1, b"".join(raw)) if raw else b""
    return b"".join(b"\x0d" + r for r in raw)


def bytes_list(values):
    return b"".join(ld(1, v) for v in values)


KIND_FIELD = {"string": 1, "float32": 2, "int64": 3}


def feature(kind, values, packed=True):
    """A serialized Feature holding one list; values: ints, float32 bit patterns, or
    bytes."""
    if kind == "int64":
        body = int64_list(values, packed)
    elif kind == "float32":
        body = float_list(values, packed)
    else:
        body = bytes_list(values)
    return ld(KIND_FIELD[kind], body)


def entry(key, value, swapped=False):
    k, v = ld(1, key), ld(2, value)
    return ld(1, v + k if swapped else k + v)


def example(entries):
    """An Example whose Features hold the given serialized map entries."""
    return ld(1, b"".join(entries))


def f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def ex(**features):
    """An Example built by TensorFlow's own tf.train.Example, deterministic."""
    feats = {}
    for k, (kind, vals) in features.items():
        if kind == "int64":
            feats[k] = tf.train.Feature(int64_list=tf.train.Int64List(value=vals))
        elif kind == "float32":
            feats[k] = tf.train.Feature(float_list=tf.train.FloatList(value=vals))
        elif kind == "string":
            feats[k] = tf.train.Feature(bytes_list=tf.train.BytesList(value=vals))
        else:
            feats[k] = tf.train.Feature()
    return tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString(
        deterministic=True)


# ------------------------------------------------------------------ the two sides


def tf_feature(f):
    dt = TF_DTYPES[f.dtype]
    shape = f.shape
    if f.seq:
        default = None
        if f.default is not None:
            default = f.default[0] if len(f.default) == 1 else list(f.default)
        return tf.io.FixedLenSequenceFeature(shape, dt, allow_missing=f.allow_missing,
                                             default_value=default)
    default = None if f.default is None else list(f.default)
    return tf.io.FixedLenFeature(shape, dt, default_value=default)


_PREFIX = re.compile(rb"^\{\{function_node [^}]*\}\} ")
_SUFFIX = re.compile(rb" \[Op:[A-Za-z0-9_]+\]( name: [^\n]*)?$")


def core_message(raw):
    """TensorFlow's message without its op context, as bytes."""
    raw = _PREFIX.sub(b"", raw, count=1)
    raw = _SUFFIX.sub(b"", raw, count=1)
    return raw.split(b"\n\t; NodeDef: ", 1)[0]


def tf_run(call):
    """("ok", value) or ("error", TensorFlow's class name, core message bytes)."""
    try:
        return ("ok", call())
    except UnicodeDecodeError as e:  # the message held raw record bytes
        STATS["tf_errors"] += 1
        return ("error", "InvalidArgumentError?", core_message(bytes(e.object)))
    except (tf.errors.OpError, ValueError, TypeError) as e:
        STATS["tf_errors"] += 1
        msg = getattr(e, "message", None) or str(e)
        return ("error", type(e).__name__, core_message(msg.encode("utf-8")))


def as_numpy(outputs, features):
    res = {}
    for f in features:
        a = outputs[f.key].numpy()
        a = np.array(a, dtype=object) if isinstance(a, bytes) else np.asarray(a)
        if f.out_int32:
            if a.size and (a.min() < -2**31 or a.max() >= 2**31):
                res[f.key] = "int32 range"
                continue
            a = tf.cast(outputs[f.key], tf.int32).numpy()
        res[f.key] = a
    return res


def tf_parse(records, features, names=None, single=False):
    feats = {f.key: tf_feature(f) for f in features}
    if single:
        return tf_run(lambda: as_numpy(tf.io.parse_single_example(
            records[0], feats, example_names=None if names is None else names[0]), features))
    return tf_run(lambda: as_numpy(tf.io.parse_example(
        tf.constant(records, dtype=tf.string), feats, example_names=names), features))


def tfn_parse(records, features, names=None, single=False):
    try:
        return ("ok", Spec(features).parse(records, names, single))
    except TfnError as e:
        return ("error", e.status, e.message)


def same_arrays(t, n):
    if t.dtype == object or n.dtype == object:
        return t.dtype == n.dtype and t.shape == n.shape and t.tolist() == n.tolist()
    if t.dtype != n.dtype or t.shape != n.shape:
        return False
    if t.dtype == np.float32:
        return np.array_equal(t.view(np.uint32), n.view(np.uint32))
    return np.array_equal(t, n)


def check_same(records, features, names=None, single=False):
    """Parses with both; asserts the same outcome and returns TensorFlow's."""
    STATS["comparisons"] += 1
    STATS["records"] += len(records)
    t = tf_parse(records, features, names, single)
    n = tfn_parse(records, features, names, single)
    where = "records=%r features=%r names=%r single=%r" % (records, features, names, single)
    if t[0] == "ok" and any(isinstance(v, str) for v in t[1].values()):
        # an int64 value outside int32 for an int32 output: tfnano refuses it
        assert n[0] == "error" and n[1] == lib.TFN_E_OUT_OF_RANGE, (where, t, n)
        return t
    if t[0] == "ok":
        assert n[0] == "ok", (where, t, n)
        assert sorted(t[1]) == sorted(n[1]), where
        for k in t[1]:
            assert same_arrays(t[1][k], n[1][k]), (where, k, t[1][k], n[1][k])
        return t
    assert t[1] in ("InvalidArgumentError", "InvalidArgumentError?"), (where, t, n)
    assert n[0] == "error" and n[1] in PARSE_ERRORS, (where, t, n)
    tmsg, nmsg = t[2], n[2]
    if nmsg.endswith(b"...") and len(nmsg) >= 1000:
        assert tmsg.startswith(nmsg[:-3]), (where, tmsg, nmsg)
    else:
        assert nmsg == tmsg, (where, tmsg, nmsg)
    return t


def both_ways(records, features, names=None):
    """Batch mode, and single mode when there is one record."""
    out = [check_same(records, features, names)]
    if len(records) == 1:
        out.append(check_same(records, features, names, single=True))
    return out


def ok_value(outcome, key):
    assert outcome[0] == "ok", outcome
    return outcome[1][key]


def error_text(outcome):
    assert outcome[0] == "error", outcome
    return outcome[2].decode("utf-8", "replace")


# ------------------------------------------------------------------ §6 edge cases

I64 = "int64"
F32 = "float32"
STR = "string"


def test_case_08_unpacked_int64():
    rec = example([entry(b"a", ld(3, int64_list([1, 2], packed=False)))])
    t = check_same([rec], [Feature("a", I64, (), seq=True)], single=True)
    assert ok_value(t, "a").tolist() == [1, 2]
    check_same([rec, rec], [Feature("a", I64, (), seq=True)])


def test_case_09_duplicate_key_last_wins():
    rec = example([entry(b"a", feature(I64, [1])), entry(b"a", feature(I64, [2]))])
    for t in both_ways([rec], [Feature("a", I64, ())]):
        assert ok_value(t, "a").reshape(-1).tolist() == [2]


def test_case_10_concatenated_examples():
    rec = ex(a=(F32, [10, 10])) + ex(a=(F32, [1, 1]))
    for t in both_ways([rec], [Feature("a", F32, (2,))]):
        assert ok_value(t, "a").reshape(-1).tolist() == [1.0, 1.0]


def test_case_11_default_for_missing_and_kindless():
    for rec in [b"", ex(a=(None, None))]:
        for t in both_ways([rec], [Feature("a", I64, (), default=[7])]):
            assert ok_value(t, "a").reshape(-1).tolist() == [7]


def test_case_12_13_empty_list_is_an_error():
    rec = ex(a=(I64, []))
    spec = [Feature("a", I64, (), default=[7])]
    assert error_text(check_same([rec], spec, single=True)) == (
        "Key: a.  Can't parse serialized Example: Some int64_list slice was not parsed.")
    assert error_text(check_same([rec], spec)) == (
        "Name: <unknown>, Key: a, Index: 0.  Number of int64 values != expected.  "
        "Values size: 0 but output shape: []")


def test_case_14_kind_mismatch():
    rec = ex(a=(I64, [1]))
    assert error_text(check_same([rec], [Feature("a", F32, ())], single=True)) == (
        "Key: a.  Data types don't match. Data type: int64 but expected type: float")
    check_same([rec], [Feature("a", F32, ())], names=[b"n0"])


def test_case_15_16_required_missing():
    spec = [Feature("a", F32, (2,))]
    assert error_text(check_same([b""], spec, names=[b"in1"])) == (
        "Name: in1, Feature: a (data type: float) is required but could not be found.")
    assert error_text(check_same([b""], spec, single=True)) == (
        "Feature: a (data type: float) is required but could not be found.")
    check_same([b""], spec)


def test_case_17_batch_count_error_names_the_failing_example():
    recs = [ex(a=(F32, [1, 1, 3])), ex(a=(F32, [-1, -1]))]
    t = check_same(recs, [Feature("a", F32, (1, 3))], names=[b"passing", b"failing"])
    assert error_text(t).startswith(
        "Name: failing, Key: a, Index: 1.  Number of float values != expected.  "
        "Values size: 2 but output shape: [1,3]")


def test_case_18_fixed_len_strings():
    spec = [Feature("a", STR, ())]
    assert error_text(check_same([ex(a=(STR, [b"x", b"y"]))], spec)) == (
        "Name: <unknown>, Key: a, Index: 0.  Can't parse serialized Example.")
    assert error_text(check_same([ex(a=(STR, []))], spec)) == (
        "Name: <unknown>, Key: a, Index: 0.  Number of bytes values != expected.  "
        "Values size: 0 but output shape: []")
    for rec in [ex(a=(STR, [b"x", b"y"])), ex(a=(STR, []))]:
        check_same([rec], spec, single=True)


def test_case_19_scalar_and_one_element_shapes():
    recs = [ex(a=(I64, [5]))] * 2
    t = check_same(recs, [Feature("a", I64, ())])
    assert ok_value(t, "a").shape == (2,)
    t = check_same(recs, [Feature("a", I64, (1,))])
    assert ok_value(t, "a").tolist() == [[5], [5]]


def test_case_20_rank_2():
    spec = [Feature("a", I64, (2, 3), default=[0] * 6)]
    t = check_same([ex(a=(I64, list(range(6))))], spec, single=True)
    assert ok_value(t, "a").tolist() == [[0, 1, 2], [3, 4, 5]]
    t = check_same([b""], spec, single=True)
    assert ok_value(t, "a").tolist() == [[0] * 3] * 2


def test_case_21_sequence_single():
    spec = [Feature("a", F32, (2,), seq=True)]
    t = check_same([ex(a=(F32, [1, 2, 3, 4]))], spec, single=True)
    assert ok_value(t, "a").shape == (2, 2)
    t = check_same([b""], spec, single=True)
    assert ok_value(t, "a").shape == (0, 2)
    t = check_same([ex(a=(F32, [1, 2, 3]))], spec, single=True)
    assert error_text(t) == ("Error while parsing feature with key a: number of elements "
                             "should be divisible by 2, found 3 instead")


def test_case_22_sequence_padding():
    recs = [ex(a=(I64, [1, 2])), b"", ex(a=(I64, [3]))]
    t = check_same(recs, [Feature("a", I64, (), default=[-1], seq=True)])
    assert ok_value(t, "a").tolist() == [[1, 2], [-1, -1], [3, -1]]
    t = check_same(recs, [Feature("a", I64, (), seq=True)])
    assert ok_value(t, "a").tolist() == [[1, 2], [0, 0], [3, 0]]


def test_case_23_sequence_absent_everywhere():
    t = check_same([b""] * 4, [Feature("a", STR, (), seq=True)])
    assert ok_value(t, "a").shape == (4, 0)


def test_case_24_sequence_stride_error():
    recs = [ex(b=(STR, [b"a", b"b"])), b"", ex(b=(STR, [b"z"]))]
    t = check_same(recs, [Feature("b", STR, (2, 1, 1), seq=True)],
                   names=[b"in1", b"in2", b"in3"])
    assert error_text(t) == (
        "Name: in3, Key: b, Index: 2.  Number of bytes values is not a multiple of stride "
        "length. Saw 1 values but output shape is: [?,2,1,1]")


def test_case_28_not_an_example():
    for recs in ([b"\xff"], [ex(a=(I64, [1])), b"\xff"], [b"\x0a\x05\x0a\x03\x0a\x01a"]):
        t = check_same(recs, [Feature("a", I64, ())])
        assert error_text(t).startswith("Could not parse example input, value: '")
    check_same([b"\xff"], [Feature("a", I64, ())], single=True)


def test_case_29_entry_without_value():
    rec = b"\x0a\x05\x0a\x03\x0a\x01a"
    t = check_same([rec], [Feature("a", I64, ())], single=True)
    assert error_text(t) == "Could not parse example input, value: '\n\x05\n\x03\n\x01a'"


def test_case_30_first_kind_wins():
    rec = example([entry(b"a", feature(I64, [1]) + feature(F32, [f32(1.0)]))])
    for t in both_ways([rec], [Feature("a", I64, ())]):
        assert ok_value(t, "a").reshape(-1).tolist() == [1]


def test_case_31_zero_element_shape():
    spec = [Feature("a", I64, (0,), default=[])]
    t = check_same([b""], spec)
    assert error_text(t) == (
        "Name: <unknown>, Feature: a (data type: int64) is required but could not be found.")
    for t in both_ways([ex(a=(I64, []))], spec):
        assert ok_value(t, "a").size == 0


def test_messages_hold_raw_bytes_up_to_a_nul():
    # TF prints the record as a C string: a NUL ends the message, quote included.
    for rec in [b"\x0a\x05\x0a\x03\x0a\x01a\x00zz", b"\x00\x01", b"\x0a\x01\xfe\xfd",
                b"\x0a\x02\x0a\x00" + bytes(range(200, 256)), b"\x0b" + b"x" * 5000]:
        both_ways([rec], [Feature("a", I64, ())])
        both_ways([rec], [Feature("a", I64, ())], names=[b"nm"])


# ------------------------------------------------------------------ config errors


def spec_outcomes(features, single=False):
    """TensorFlow's config error (class, text) and tfnano's (status, text)."""
    feats = {f.key: tf_feature(f) for f in features}
    rec = b""
    if single:
        t = tf_run(lambda: tf.io.parse_single_example(rec, feats))
    else:
        t = tf_run(lambda: tf.io.parse_example([rec], feats))
    try:
        Spec(features)
        n = ("ok",)
    except TfnError as e:
        n = ("error", e.status, e.message)
    return t, n


@pytest.mark.parametrize("features,tf_class,status", [
    ([Feature("a", I64, (), seq=True, allow_missing=False)], "ValueError",
     lib.TFN_E_INVALID_ARG),
    ([Feature("a", I64, None)], "ValueError", lib.TFN_E_INVALID_ARG),
    ([Feature("a", None, ())], "ValueError", lib.TFN_E_INVALID_ARG),
    ([Feature("a", None, (), seq=True)], "ValueError", lib.TFN_E_INVALID_ARG),
    ([Feature("a", I64, (None, 2))], "ValueError", lib.TFN_E_INVALID_ARG),
    ([Feature("a", I64, (None,))], "ValueError", lib.TFN_E_INVALID_ARG),
    ([Feature("a", I64, (1, None))], "ValueError", lib.TFN_E_INVALID_ARG),
    ([Feature("a", I64, (2, 2, None))], "ValueError", lib.TFN_E_INVALID_ARG),
    ([Feature("a", "int32", ())], "InvalidArgumentError", lib.TFN_E_TYPE),
    ([Feature("a", "int32", (), default=[1])], "InvalidArgumentError", lib.TFN_E_TYPE),
    ([Feature("a", "float64", (2,))], "InvalidArgumentError", lib.TFN_E_TYPE),
    ([Feature("a", I64, (2,), default=[1, 2, 3])], "InvalidArgumentError",
     lib.TFN_E_INVALID_ARG),
    ([Feature("a", STR, (2, 2), default=[b"x"])], "InvalidArgumentError",
     lib.TFN_E_INVALID_ARG),
    ([Feature("a", I64, (), default=[], seq=True)], "InvalidArgumentError",
     lib.TFN_E_INVALID_ARG),
    ([Feature("a", F32, (2,), default=[1.0, 2.0], seq=True)], "InvalidArgumentError",
     lib.TFN_E_INVALID_ARG),
    ([Feature("a", I64, (None,), seq=True)], "InvalidArgumentError", lib.TFN_E_INVALID_ARG),
    ([Feature("z", I64, ()), Feature("b", I64, (2, None), seq=True)],
     "InvalidArgumentError", lib.TFN_E_INVALID_ARG),
    # several bad configs: TensorFlow's order (allow_missing first, then shapes and
    # types by sorted key, then defaults, then dtypes, then inner shapes)
    ([Feature("b", I64, None), Feature("a", I64, (None, 2))], "ValueError",
     lib.TFN_E_INVALID_ARG),
    ([Feature("b", I64, (2,), default=[1]), Feature("a", I64, (1, None))], "ValueError",
     lib.TFN_E_INVALID_ARG),
    ([Feature("a", "int32", ()), Feature("b", I64, (2,), default=[1])],
     "InvalidArgumentError", lib.TFN_E_INVALID_ARG),
    ([Feature("c", I64, (None,), seq=True), Feature("a", "float64", ())],
     "InvalidArgumentError", lib.TFN_E_TYPE),
    ([Feature("b", I64, None), Feature("c", I64, (), seq=True, allow_missing=False)],
     "ValueError", lib.TFN_E_INVALID_ARG),
    ([Feature("y", I64, (3, None), seq=True), Feature("x", I64, (None, None), seq=True)],
     "InvalidArgumentError", lib.TFN_E_INVALID_ARG),
])
def test_config_errors(features, tf_class, status):
    for single in (False, True):
        t, n = spec_outcomes(features, single)
        assert t[0] == "error" and t[1] == tf_class, t
        assert n[0] == "error" and n[1] == status, (t, n)
        # TF's Python layer may end with a repr of the feature a C config cannot know
        assert n[2] == t[2] or (t[2].startswith(n[2] + b" Received feature=Fixed")
                                and t[2].endswith(b").")), (t, n)


def test_sequence_without_shape():
    # TensorFlow's Python layer fails before its own check ([None] + list(None));
    # tfnano gives the message TF has for FixedLenFeature(None, ...).
    t, n = spec_outcomes([Feature("a", F32, None, seq=True)])
    assert t[:2] == ("error", "TypeError"), t
    assert n == ("error", lib.TFN_E_INVALID_ARG, b"Missing shape for feature a.")


def test_empty_features():
    t = tf_run(lambda: tf.io.parse_example([b""], {}))
    with pytest.raises(TfnError) as e:
        Spec([])
    assert e.value.status == lib.TFN_E_INVALID_ARG
    assert e.value.message == t[2]  # parse_single_example says "features cannot be empty."


def test_zero_element_sequence_step_crashes_tensorflow():
    # TensorFlow divides by the step size: FixedLenSequenceFeature([0]) kills the
    # process (SIGFPE) even on an empty record. tfnano refuses the config instead.
    code = ("import tensorflow as tf; tf.io.parse_example([b''], {'a': "
            "tf.io.FixedLenSequenceFeature([0], tf.int64, allow_missing=True)})")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True,
                       env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    assert r.returncode != 0
    with pytest.raises(TfnError) as e:
        Spec([Feature("a", I64, (0,), seq=True)])
    assert e.value.status == lib.TFN_E_INVALID_ARG


def test_valid_configs_compile_as_in_tensorflow():
    for features in ([Feature("a", I64, (0,))], [Feature("a", STR, (2, 0, 3))],
                     [Feature("", F32, (1,), default=[-0.0])],
                     [Feature("é", STR, (), default=[b"\xff"])]):
        both_ways([b""], features)
        both_ways([ex(a=(I64, []))], features)

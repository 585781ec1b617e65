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
with and without example names; int64 features also as int32 outputs. Inputs that
crash TensorFlow itself are kept away from it and checked on tfnano alone.
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
STATS = {"records": 0, "comparisons": 0, "tf_errors": 0, "kept_from_tf": 0}

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
        if f.default is not None and f.dtype == F32:
            # not a Python float: TF's eager cache of scalar constants treats 0.0 and
            # -0.0 as one key, so the padding would be whichever came first
            default = np.array(f.default, dtype=np.float32)
        elif f.default is not None:
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


# ------------------------------------------------------------------ inputs that crash TF
#
# TensorFlow's fast parser crashes the process on some inputs (see docs/parsing.md):
# an unpacked FloatList longer than a FixedLen float feature is written past the
# output buffer; a string, or a packed float run of a FixedLenSequence feature, is
# allocated at its claimed length before it is read. Random and mutated records can
# hold such lists, so before TensorFlow sees a batch, the map entries are split the
# way TF splits them (a port of its ParseExample) and every list of a configured key
# is checked, erring on the side of keeping a record from TF.

BIG_CLAIM = 1 << 20


def read_varint(b, pos, end, bits=32):
    """(value keeping `bits` low bits, new pos), or None: up to 10 bytes, as protobuf."""
    v = 0
    for k in range(10):
        if pos >= end:
            return None
        c = b[pos]
        pos += 1
        v |= (c & 0x7F) << (7 * k)
        if c < 0x80:
            return v & ((1 << bits) - 1), pos
    return None


def tf_entries(rec):
    """The (key, Feature) map entries TF's ParseExample finds, or None when it fails."""
    out, pos, end = [], 0, len(rec)
    while pos < end:
        if rec[pos] != 0x0A:  # an unknown top-level field
            r = read_varint(rec, pos, end)
            if r is None:
                return None
            tag, pos = r
            wire = tag & 7
            if wire == 0:
                r = read_varint(rec, pos, end)
            elif wire in (1, 5):
                r = (0, pos + (8 if wire == 1 else 4)) if end - pos >= (8 if wire == 1 else 4) \
                    else None
            elif wire == 2:
                r = read_varint(rec, pos, end)
                if r is not None and r[0] < 2**31:
                    r = (0, min(r[1] + r[0], end))
            else:
                return None
            if r is None:
                return None
            pos = r[1]
            continue
        r = read_varint(rec, pos + 1, end)
        if r is None:
            return None
        n, pos = r
        limit = pos + n if n <= end - pos else end
        while pos < limit:
            if rec[pos] != 0x0A:
                return None
            r = read_varint(rec, pos + 1, limit)
            if r is None:
                return None
            n, pos = r
            elim = pos + n if n <= limit - pos else limit
            fields = {}
            for _ in range(2):
                r = read_varint(rec, pos, elim)
                if r is None or r[0] not in (0x0A, 0x12):
                    return None
                r2 = read_varint(rec, r[1], elim)
                if r2 is None or r2[0] > elim - r2[1]:
                    return None
                fields[r[0]] = rec[r2[1]:r2[1] + r2[0]]
                pos = r2[1] + r2[0]
            if pos != elim:
                return None
            out.append((fields.get(0x0A, b""), fields.get(0x12, b"")))
        pos = limit
    return out


def list_may_crash_tf(f, value):
    kind = {0x0A: STR, 0x12: F32, 0x1A: I64}.get(value[:1][0] if value else None)
    if kind != f.dtype or kind == I64:
        return False
    r = read_varint(value, 1, len(value))
    if r is None:
        return False
    n, pos = r
    end = pos + n if n <= len(value) - pos else len(value)
    if kind == F32:
        if pos < end and value[pos] == 0x0D:
            return not f.seq and (end - pos) // 5 > stride(f)
        r = read_varint(value, pos + 1, end) if pos < end else None
        return f.seq and r is not None and r[0] >= BIG_CLAIM
    while pos < end:  # strings: every length claimed
        r = read_varint(value, pos + 1, end)
        if r is None:
            return False
        if r[0] >= BIG_CLAIM:
            return True
        pos = r[1] + r[0]
    return False


def may_crash_tf(records, features):
    keys = {f.key.encode("utf-8"): f for f in features}
    for rec in records:
        for key, value in tf_entries(rec) or ():
            if key in keys and list_may_crash_tf(keys[key], value):
                return True
    return False


def check_same(records, features, names=None, single=False):
    """Parses with both; asserts the same outcome and returns TensorFlow's."""
    if may_crash_tf(records, features):
        STATS["kept_from_tf"] += 1
        n = tfn_parse(records, features, names, single)
        assert n[0] == "ok" or n[1] in PARSE_ERRORS, n
        return ("skipped",)
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


def test_unknown_top_level_fields():
    body = ex(a=(I64, [1]))
    spec = [Feature("a", I64, (), default=[9])]
    for prefix in [b"\x10\x05", b"\x1d\x01\x02\x03\x04", b"\x21" + bytes(8), b"\x2a\x02xy",
                   b"\x12\x00", b"\x2a\x7f", b"\x2a" + varint(2**31 - 1),
                   b"\x2a" + varint(2**31), b"\x2a" + varint(2**32 - 1),
                   b"\x2a" + varint(2**32 + 1), b"\xaa\xbf\xbd\x95\xd8\xcd\xb6\xe2\x8e\x01\x00",
                   b"\x0b", b"\x0c", b"\x0e", b"\x0f\x00", b"\x80", b"\x00", b"\x08"]:
        for rec in [prefix + body, body + prefix, body + prefix + body]:
            both_ways([rec], spec)
    # a length of 2^31 or more is refused without moving: the Example goes on after it
    t = check_same([b"\x2a" + varint(2**31) + body], spec, single=True)
    assert ok_value(t, "a").tolist() == 1


def test_empty_batch():
    for spec in ([Feature("a", I64, (2, 3))], [Feature("a", F32, (2,), seq=True)],
                 [Feature("a", STR, (), seq=True), Feature("b", I64, (), default=[1])]):
        t = check_same([], spec)
        assert ok_value(t, "a").shape[0] == 0


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


def test_tensorflow_overflows_on_long_unpacked_floats():
    # A FixedLen float feature given an unpacked FloatList longer than its shape:
    # TensorFlow sizes the copy by the list, not by its output buffer, and corrupts
    # the heap (abort). tfnano reports TF's count error instead.
    rec = example([entry(b"x", ld(2, float_list(range(40), packed=False)))])
    code = ("import tensorflow as tf\nfor _ in range(50):\n  try: tf.io.parse_example("
            "[%r], {'x': tf.io.FixedLenFeature([2], tf.float32)})\n  except Exception: "
            "pass\n" % rec)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True,
                       env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    assert r.returncode != 0
    spec = [Feature("x", F32, (2,))]
    assert tfn_parse([rec], spec) == ("error", lib.TFN_E_INVALID_ARG, (
        b"Name: <unknown>, Key: x, Index: 0.  Number of float values != expected.  "
        b"Values size: 40 but output shape: [2]"))
    assert tfn_parse([rec], spec, single=True)[2] == (
        b"Key: x.  Can't parse serialized Example: Some float_list slice was not parsed.")


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


# ------------------------------------------------------------------ random Examples

KEY_POOL = ["a", "b", "ids", "x", "\u00e9", ""]
OTHER_KEYS = [b"c", b"zz", b"\xff\xfe", b"a\x00", b"A", b"ids2", b"b "]
SPECIAL_FLOATS = [0, 0x80000000, 0x7FC00000, 0xFFC00001, 0x7F800001, 0x7F800000,
                  0xFF800000, 1, 0x80000001, 0x7F7FFFFF, f32(1.5), f32(-2.25)]
SPECIAL_INTS = [0, 1, -1, 127, 128, 2**31 - 1, -2**31, 2**31, -2**31 - 1, 2**63 - 1,
                -2**63, 2**32, 300, -300]


def rand_int(rnd, int32=False):
    r = rnd.random()
    if int32:
        return rnd.choice([0, 1, -1, 2**31 - 1, -2**31, rnd.randint(-2**31, 2**31 - 1)])
    if r < 0.5:
        return rnd.randint(0, 300)
    if r < 0.8:
        return rnd.choice(SPECIAL_INTS)
    return rnd.randint(-2**63, 2**63 - 1)


def rand_float_bits(rnd):
    if rnd.random() < 0.4:
        return rnd.choice(SPECIAL_FLOATS)
    if rnd.random() < 0.5:
        return f32(rnd.choice([0.5, 1.0, -3.0, 1e-3, 12345.678, 1e30]))
    return rnd.getrandbits(32)


def rand_bytes(rnd):
    n = rnd.choice([0, 1, 2, 3, 5, 8])
    return bytes(rnd.getrandbits(8) for _ in range(n))


def rand_values(rnd, kind, count):
    if kind == I64:
        return [rand_int(rnd) for _ in range(count)]
    if kind == F32:
        return [rand_float_bits(rnd) for _ in range(count)]
    return [rand_bytes(rnd) for _ in range(count)]


def rand_list(rnd, kind, count, float_cap=None):
    """A serialized Feature of `kind` holding `count` values, in one of the encodings
    a reader meets: packed, unpacked, an empty list with or without an empty packed
    run, a second packed run or a second kind after the first list (ignored by TF),
    a float run with stray bytes after its last value, an unknown first tag.
    float_cap: the size of a FixedLen float feature, which an unpacked list must not
    exceed: TensorFlow writes such a list past its output buffer (heap overflow, the
    process dies; see test_tensorflow_overflows_on_long_unpacked_floats)."""
    vals = rand_values(rnd, kind, count)
    r = rnd.random()
    if kind == F32 and float_cap is not None and count > float_cap and 0.65 <= r < 0.85:
        r = 0.0
    if kind == STR:
        body = bytes_list(vals)
    elif count == 0:
        body = b"" if r < 0.5 else b"\x0a\x00"
    elif r < 0.65:
        body = int64_list(vals) if kind == I64 else float_list(vals)
    elif r < 0.85:
        body = int64_list(vals, False) if kind == I64 else float_list(vals, False)
    elif r < 0.88 and kind == I64:  # arbitrary packed bytes: long or unfinished varints
        body = ld(1, rnd.choice([b"\xff" * rnd.randint(8, 11) + b"\x01",
                                  b"\x80" * 9 + bytes([rnd.randint(0, 255)]),
                                  bytes(rnd.getrandbits(8) for _ in range(rnd.randint(1, 12)))]))
    elif r < 0.92:
        more = rand_values(rnd, kind, rnd.randint(1, 3))
        enc = int64_list if kind == I64 else float_list
        body = enc(vals) + enc(more)
    elif kind == F32 and rnd.random() < 0.5:
        raw = b"".join(struct.pack("<I", b) for b in vals)
        body = ld(1, raw + bytes(rnd.randint(1, 3)))
    elif kind == F32:  # unpacked, then 1-4 stray bytes
        body = float_list(vals[:float_cap], False) + rnd.choice([b"\x0d", b"\x0d\x00", b"\x00" * 4])
    else:
        body = int64_list(vals, False) + int64_list(vals[:1])  # packed after unpacked
    out = ld(KIND_FIELD[kind], body)
    r = rnd.random()
    if r < 0.04:
        other = rnd.choice([I64, F32, STR])
        out += feature(other, rand_values(rnd, other, 1))
    elif r < 0.06:
        out = b"\x22\x00" + out  # an unknown field first: "Unsupported datatype."
    return out


def rand_spec(rnd):
    feats = []
    for key in rnd.sample(KEY_POOL, rnd.choice([1, 1, 2, 2, 3, 4])):
        dtype = rnd.choice([I64, I64, F32, STR])
        seq = rnd.random() < 0.4
        rank = rnd.choice([0, 0, 1, 2] if seq else [0, 0, 1, 1, 2, 3])
        dims = [1, 1, 2, 3] + ([0] if not seq and rnd.random() < 0.1 else [])
        shape = tuple(rnd.choice(dims) for _ in range(rank))
        out_int32 = dtype == I64 and rnd.random() < 0.3
        default = None
        if rnd.random() < 0.5:
            count = 1 if seq else int(np.prod(shape, dtype=np.int64))
            if dtype == I64:
                default = [rand_int(rnd, out_int32) for _ in range(count)]
            else:
                default = rand_values(rnd, dtype, count)
                if dtype == F32:
                    default = [struct.unpack("<f", struct.pack("<I", b))[0] for b in default]
        feats.append(Feature(key, dtype, shape, default, seq, out_int32))
    return feats


def stride(f):
    return int(np.prod(f.shape, dtype=np.int64))


def rand_feature_for(rnd, f):
    s = stride(f)
    if rnd.random() < 0.85:
        count = s if not f.seq else s * rnd.randint(0, 4)
    else:
        count = rnd.choice([0, s + 1, max(s - 1, 0), 2 * s, rnd.randint(0, 9)])
    r = rnd.random()
    if r < 0.05:
        return b""  # no kind: counts as missing
    kind = f.dtype if r < 0.93 else rnd.choice([I64, F32, STR])
    return rand_list(rnd, kind, count, None if f.seq else s)


def odd_entry(rnd, key, value):
    """A map entry with two keys, or two values (no key: TF reads the key as ""), or a
    field TF does not expect."""
    return ld(1, rnd.choice([ld(1, key) + ld(1, value[:3]), ld(2, value) + ld(2, value),
                             ld(1, key) + ld(2, value) + ld(2, value), ld(1, key) + b"\x18\x01",
                             ld(1, key)]))


def rand_example(rnd, spec):
    """A random serialized Example for `spec`, by hand or (sometimes) by TF."""
    if rnd.random() < 0.1:
        feats = {}
        for f in spec:
            if rnd.random() < 0.9:
                count = stride(f) * (rnd.randint(0, 3) if f.seq else 1)
                vals = rand_values(rnd, f.dtype, count)
                if f.dtype == F32:
                    vals = [struct.unpack("<f", struct.pack("<I", b))[0] for b in vals]
                feats[f.key] = (f.dtype, vals)
        return ex(**feats)
    entries = []
    for f in spec:
        if rnd.random() < 0.85:
            entries.append((f.key.encode("utf-8"), rand_feature_for(rnd, f)))
    for _ in range(rnd.choice([0, 0, 1, 2, 3])):
        value = rand_list(rnd, rnd.choice([I64, F32, STR]), rnd.randint(0, 4))
        if rnd.random() < 0.2:
            value = rand_bytes(rnd)  # not a Feature: never looked at
        entries.append((rnd.choice(OTHER_KEYS), value))
    if spec and rnd.random() < 0.2:  # a duplicate key: the last entry wins
        f = rnd.choice(spec)
        entries.append((f.key.encode("utf-8"), rand_feature_for(rnd, f)))
    rnd.shuffle(entries)
    encoded = [odd_entry(rnd, k, v) if rnd.random() < 0.03 else
               entry(k, v, swapped=rnd.random() < 0.05) for k, v in entries]
    pieces = []
    while encoded:  # one Features message, or several (concatenated Examples)
        take = len(encoded) if rnd.random() < 0.8 else rnd.randint(1, len(encoded))
        pieces.append(example(encoded[:take]))
        encoded = encoded[take:]
    if rnd.random() < 0.1:
        unknown = rnd.choice([b"\x10\x05", b"\x1d\x01\x02\x03\x04",
                              b"\x21" + bytes(8), b"\x2a\x02xy", b"\x12\x00"])
        pieces.insert(rnd.randint(0, len(pieces)), unknown)
    return b"".join(pieces)


def rand_names(rnd, n):
    if rnd.random() < 0.5:
        return None
    return [rnd.choice([b"n%d" % i, b"", b"record/%d" % i, b"\xc3\xa9t\xc3\xa9", b"\xff%d" % i])
            for i in range(n)]


def compare_batch(rnd, spec, records):
    """Single mode on every record, then the whole batch, then the batch of the records
    TensorFlow parsed alone (mostly a success: padding and defaults across examples)."""
    names = rand_names(rnd, len(records))
    good = []
    for i, rec in enumerate(records):
        t = check_same([rec], spec, None if names is None else names[i:i + 1], single=True)
        if t[0] == "ok":
            good.append(i)
    check_same(records, spec, names)
    if good and len(good) < len(records):
        check_same([records[i] for i in good], spec,
                   None if names is None else [names[i] for i in good])
    return len(good)


def test_random_examples():
    rnd = random.Random(20261123)
    before = dict(STATS)
    ok = total = 0
    for _ in range(300):
        spec = rand_spec(rnd)
        n = rnd.choice([1, 2, 5, 12, 12, 40])
        records = [rand_example(rnd, spec) for _ in range(n)]
        ok += compare_batch(rnd, spec, records)
        total += n
    print("random: %d records (%d parsed by TF in single mode), %d comparisons, %d kept "
          "from TF" % (total, ok, STATS["comparisons"] - before["comparisons"],
                       STATS["kept_from_tf"] - before["kept_from_tf"]))
    assert total > 3000 and ok > total // 3


def mutate(rnd, rec):
    data = bytearray(rec)
    for _ in range(rnd.choice([1, 1, 1, 2, 3])):
        op = rnd.random()
        pos = rnd.randint(0, len(data))
        if op < 0.35 and data:
            pos = min(pos, len(data) - 1)
            data[pos] ^= 1 << rnd.randint(0, 7) if rnd.random() < 0.7 else rnd.randint(1, 255)
        elif op < 0.55:
            data[pos:pos] = bytes(rnd.getrandbits(8) for _ in range(rnd.randint(1, 3)))
        elif op < 0.75 and data:
            del data[pos:pos + rnd.randint(1, 3)]
        elif op < 0.9:
            del data[pos:]
        else:
            end = rnd.randint(pos, len(data))
            data[pos:pos] = data[pos:end]
    return bytes(data)


def test_mutated_examples():
    rnd = random.Random(7)
    before = dict(STATS)
    total = 0
    for _ in range(330):
        spec = rand_spec(rnd)
        n = rnd.choice([1, 3, 12, 12, 20])
        records = [mutate(rnd, rand_example(rnd, spec)) for _ in range(n)]
        compare_batch(rnd, spec, records)
        total += n
    print("mutated: %d records, %d comparisons, %d TF errors, %d kept from TF"
          % (total, STATS["comparisons"] - before["comparisons"],
             STATS["tf_errors"] - before["tf_errors"],
             STATS["kept_from_tf"] - before["kept_from_tf"]))
    assert total > 3000


# ------------------------------------------------------------------ int32 outputs


def test_int32_outputs_match_a_cast():
    edges = [0, 1, -1, 2**31 - 1, -2**31, 127, 128, 16383, 16384, 2**28 - 1, 2**28]
    recs = [ex(a=(I64, [v]), s=(I64, edges[:k])) for k, v in enumerate(edges)]
    spec = [Feature("a", I64, (), out_int32=True),
            Feature("s", I64, (), default=[-7], seq=True, out_int32=True)]
    t = check_same(recs, spec)
    assert ok_value(t, "a").dtype == np.int32 and ok_value(t, "a").tolist() == edges
    for rec in recs:
        check_same([rec], spec, single=True)
    # unpacked and non-canonical (over-long) varints
    rec = example([entry(b"a", ld(3, b"\x08\xff\xff\xff\xff\x07")),
                   entry(b"s", ld(3, ld(1, b"\x81\x80\x80\x80\x00\x05")))])
    t = check_same([rec], spec)
    assert ok_value(t, "s").tolist() == [[1, 5]]
    for v in [2**31, -2**31 - 1, 2**63 - 1, -2**63]:
        # TensorFlow parses these; tfnano refuses to narrow them (check_same checks it)
        check_same([ex(a=(I64, [v]), s=(I64, []))], spec)
        check_same([ex(a=(I64, [1]), s=(I64, [3, v]))], spec, single=True)


# ------------------------------------------------------------------ minibatches


def test_stride_error_counts_values_of_the_minibatch():
    # parse_example splits a batch into minibatches (by ~50 kB, at least min(8, n));
    # the "not a multiple of stride" count includes the values of earlier examples
    # of the failing example's minibatch.
    spec = [Feature("s", I64, (2,), seq=True), Feature("pad", STR, (), default=[b""])]
    for n, size in [(20, 10), (40, 4000), (30, 30000), (70, 60000)]:
        filler = (STR, [b"z" * size])
        for bad in sorted({1, 5, 7, n // 2, n - 1}):
            recs = [ex(s=(I64, [1, 2] * (i % 3 + 1) + ([3] if i == bad else [])), pad=filler)
                    for i in range(n)]
            t = check_same(recs, spec)
            assert "Index: %d." % bad in error_text(t)


# ------------------------------------------------------------------ lying lengths


def lying(field, claimed, payload):
    """A length-delimited field whose length says `claimed` but holds `payload`."""
    return varint(field << 3 | 2) + varint(claimed) + payload


def test_lengths_past_the_enclosing_message():
    # TensorFlow reads lengths as varint32 (a 10-byte varint keeps its low 32 bits)
    # and clamps a length past the enclosing message to it (protobuf's PushLimit):
    # several of these records parse.
    vals = {I64: ld(1, b"\x01\x02\x03"), F32: ld(1, bytes(8)), STR: ld(1, b"xy")}
    for claimed in [None, 1, 4, 127, 2**31, 2**32, 2**32 + 3, 2**63, 2**64 - 1]:
        for kind in (I64, F32, STR):
            body = vals[kind]
            inner = body[2:]
            lie = (lambda f, p: ld(f, p)) if claimed is None else (
                lambda f, p: lying(f, claimed, p))
            cases = [
                lie(1, ld(1, ld(1, b"a") + ld(2, ld(KIND_FIELD[kind], body)))),
                ld(1, lie(1, ld(1, b"a") + ld(2, ld(KIND_FIELD[kind], body)))),
                ld(1, ld(1, lie(1, b"a") + ld(2, ld(KIND_FIELD[kind], body)))),
                ld(1, ld(1, ld(1, b"a") + lie(2, ld(KIND_FIELD[kind], body)))),
                example([entry(b"a", lie(KIND_FIELD[kind], body))]),
                example([entry(b"a", ld(KIND_FIELD[kind], lie(1, inner)))]),
            ]
            for at, rec in enumerate(cases):
                for f in (Feature("a", kind, (), seq=True), Feature("a", kind, (2,)),
                          Feature("a", kind, (), default=vals_default(kind))):
                    if (at == 5 and (kind == STR or (kind == F32 and f.seq))
                            and claimed is not None and claimed % 2**32 >= 2**20):
                        # TensorFlow sizes a string or a float vector by the claimed
                        # length before reading it and dies (SIGSEGV) on 2 GiB; tfnano
                        # gives the error TF gives for smaller lies
                        for single in (False, True):
                            t = tfn_parse([rec], [f], single=single)
                            assert t[:2] == ("error", lib.TFN_E_CORRUPT), t
                            assert b"Can't parse serialized Example" in t[2], t
                        continue
                    both_ways([rec], [f])


def vals_default(kind):
    return [7] if kind == I64 else [0.5] if kind == F32 else [b"d"]

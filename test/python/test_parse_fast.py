"""The fast paths of parse_example / Parser: records passed as the caller's bytes
objects in place (no joined copy), and specs without FixedLenSequence features parsed
in one tfn_parser_parse call that decodes while it scans. Each is compared with the
path it shortcuts: joined records, and scan + fill."""
import numpy as np
import pytest

import tfnano as tf
from tfnano import _parsing
from tfnano.errors import InvalidArgumentError

FL = tf.io.FixedLenFeature
FLS = tf.io.FixedLenSequenceFeature


def records(n, seed=0, width=64):
    rng = np.random.default_rng(seed)
    ids = np.exp(rng.uniform(np.log(3), np.log(50265), (n, width))).astype(np.int64)
    ids[:, width // 2:] = 1
    big = rng.integers(-2**40, 2**40, (n, 4))
    return tf.serialize_columns({"ids": ids, "big": big,
                                 "x": rng.random((n, 3), dtype=np.float32),
                                 "name": [b"r%d" % i for i in range(n)]})


FEATS = {"ids": FL([64], tf.int64), "big": FL([4], tf.int64), "x": FL([3], tf.float32),
         "name": FL([], tf.string)}


def same(a, b):
    assert sorted(a) == sorted(b)
    for k in a:
        assert a[k].dtype == b[k].dtype and a[k].shape == b[k].shape, k
        assert np.array_equal(np.asarray(a[k]), np.asarray(b[k])), k


def test_in_place_views_give_what_joined_records_give(monkeypatch):
    recs = records(300)
    from tfnano._c import strviews as _strviews
    assert _parsing._bytes_views_of(list(recs), len(recs)) is not None  # the walker
    fast = tf.io.parse_example(recs, FEATS)
    monkeypatch.setattr(_strviews, "WALK", False)  # as where it is not installed
    assert _parsing._bytes_views_of(list(recs), len(recs)) is None
    slow = tf.io.parse_example(recs, FEATS)
    same(fast, slow)
    for i in (0, 17, 299):
        same({k: v[i] for k, v in fast.items()}, tf.io.parse_single_example(recs[i], FEATS))


def test_views_hold_their_records():
    recs = records(40)
    want = tf.io.parse_example(list(recs), FEATS)
    # the caller's list is the only holder of these bytes objects: the parse must
    # keep them alive itself (it copies the list)
    got = tf.io.parse_example([bytes(r) for r in recs], FEATS)
    same(want, got)


def test_other_record_types_still_parse():
    recs = records(20)
    want = tf.io.parse_example(recs, FEATS)
    for form in (np.array(recs, dtype=object), [bytearray(r) for r in recs],
                 [memoryview(r) for r in recs], tuple(recs)):
        same(want, tf.io.parse_example(form, FEATS))


def test_int32_parser_fused_matches_scan_and_fill():
    recs = records(257)
    fused = tf.Parser(FEATS, int32=["ids"]).parse(recs)
    assert fused["ids"].dtype == np.int32
    # a FixedLenSequence feature beside them makes the spec take scan + fill
    feats = dict(FEATS, extra=FLS([], tf.int64, allow_missing=True))
    slow = tf.Parser(feats, int32=["ids"]).parse(recs)
    del slow["extra"]
    same(fused, slow)


def test_errors_name_the_example_in_a_large_batch():
    recs = records(100)
    bad = list(recs)
    bad[57] = tf.train.Example(features=tf.train.Features(feature={
        "ids": tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 2]))})).SerializeToString()
    with pytest.raises(InvalidArgumentError) as e:
        tf.io.parse_example(bad, FEATS)
    assert "Index: 57." in str(e.value)
    # int32 output: a value out of range is reported after the scan's errors
    with pytest.raises(InvalidArgumentError) as e:
        tf.Parser(FEATS, int32=["big"]).parse(recs)
    assert "does not fit the int32 output" in str(e.value)
    bad = list(recs)
    bad[99] = b"\x0a\x03garbage"
    with pytest.raises(InvalidArgumentError) as e:
        tf.Parser(FEATS, int32=["big"]).parse(bad)
    assert "Index: 99" in str(e.value) or "example 99" in str(e.value)


def test_single_record_and_empty_batches():
    recs = records(3)
    one = tf.io.parse_example(recs[1], FEATS)
    same(one, tf.io.parse_single_example(recs[1], FEATS))
    empty = tf.io.parse_example([], FEATS)
    assert empty["ids"].shape == (0, 64) and empty["name"].shape == (0,)

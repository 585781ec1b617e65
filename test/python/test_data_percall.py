"""The per-call path of parse_single_example / parse_example (what a map function
that is not traced runs per record): the features dict recognised by identity must
never give a stale spec, and the one-record shortcuts give exactly what the batch
path gives, errors included."""
import numpy as np
import pytest

import tfnano as tf
from tfnano import _parsing
from tfnano.errors import InvalidArgumentError


def ex(**kw):
    feats = {}
    for k, v in kw.items():
        if isinstance(v, bytes):
            feats[k] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[v]))
        else:
            feats[k] = tf.train.Feature(int64_list=tf.train.Int64List(value=list(v)))
    return tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString()


def same(a, b):
    assert set(a) == set(b)
    for k in a:
        x, y = np.asarray(a[k]), np.asarray(b[k])
        assert x.dtype == y.dtype and x.shape == y.shape and x.tolist() == y.tolist(), k


def test_mutating_the_features_dict_is_seen():
    feats = {"a": tf.io.FixedLenFeature([2], tf.int64)}
    rec = ex(a=[1, 2], b=[3])
    assert tf.io.parse_single_example(rec, feats)["a"].tolist() == [1, 2]
    feats["b"] = tf.io.FixedLenFeature([], tf.int64)  # same dict object, new key
    assert tf.io.parse_single_example(rec, feats)["b"] == 3
    feats["b"] = tf.io.FixedLenFeature([], tf.int64, default_value=7)
    assert tf.io.parse_single_example(ex(a=[1, 2]), feats)["b"] == 7
    del feats["b"]
    assert set(tf.io.parse_example([rec], feats)) == {"a"}


def test_numpy_default_changed_in_place_is_seen():
    default = np.array([5, 6])
    feats = {"a": tf.io.FixedLenFeature([2], tf.int64, default_value=default)}
    assert tf.io.parse_single_example(ex(), feats)["a"].tolist() == [5, 6]
    default[0] = 9
    assert tf.io.parse_single_example(ex(), feats)["a"].tolist() == [9, 6]


def test_one_record_shortcuts_equal_the_batch_path():
    feats = {"a": tf.io.FixedLenFeature([2], tf.int64),
             "s": tf.io.FixedLenFeature([], tf.string),
             "q": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
             "d": tf.io.FixedLenFeature([], tf.string, default_value=b"dflt")}
    rec = ex(a=[1, 2], s=b"x\x00y", q=[4, 5, 6])
    spec = _parsing.get_spec(feats)
    same(tf.io.parse_example([rec], feats), _parsing.run(spec, [rec]))
    same(tf.io.parse_single_example(rec, feats), _parsing.run(spec, [rec], single=True))
    assert tf.io.parse_single_example(rec, feats)["s"].numpy() == b"x\x00y"


def test_one_record_errors_keep_their_wording():
    feats = {"a": tf.io.FixedLenFeature([2], tf.int64)}
    bad = ex(a=[1])
    with pytest.raises(InvalidArgumentError) as batch:
        tf.io.parse_example([bad], feats)
    with pytest.raises(InvalidArgumentError) as batch2:
        tf.io.parse_example([bad, bad], feats)
    with pytest.raises(InvalidArgumentError) as single:
        tf.io.parse_single_example(bad, feats)
    assert str(batch.value).startswith("Name: <unknown>, Key: a, Index: 0.")
    assert str(batch.value).split("; ")[0] == str(batch2.value).split("; ")[0]
    assert str(single.value).startswith("Key: a.  Can't parse serialized Example")

"""tf.train messages built the fast way (numpy rows, Feature / Features / Example
nested in one expression) keep protobuf's copy-on-assign semantics: every test does
the same edits on tfnano's classes and on protobuf's own (test_api_support) and
compares what each side sees and serializes."""
import numpy as np
import pytest

import tfnano as tf

from test_api_support import example_pb2

pb = example_pb2()


def det(msg):
    """protobuf's deterministic bytes (tfnano accepts the argument; its bytes always are)."""
    return msg.SerializeToString(deterministic=True)


def build(m, ids, labels, name=b"x"):
    return m.Example(features=m.Features(feature={
        "ids": m.Feature(int64_list=m.Int64List(value=ids)),
        "labels": m.Feature(float_list=m.FloatList(value=labels)),
        "name": m.Feature(bytes_list=m.BytesList(value=[name])),
    }))


def both(fn):
    """fn(module) -> message or value, for tfnano and protobuf."""
    return fn(tf.train), fn(pb)


def same(a, b):
    """Same deterministic bytes, and tfnano's message equals protobuf's parsed back
    (protobuf's text format orders map keys by hash, so text is not compared)."""
    assert det(a) == det(b)
    assert a == type(a).FromString(det(b))


def rows():
    rng = np.random.default_rng(7)
    return rng.integers(-5, 1 << 40, 16), rng.random(4, dtype=np.float32)


def test_numpy_rows_are_copied_at_construction():
    ids, labels = rows()
    got = {}
    for m in (tf.train, pb):
        a, b = ids.copy(), labels.copy()
        ex = build(m, a, b)
        a[0] = 99  # editing the caller's rows afterwards changes nothing
        b[1] = 5.0
        got[m] = ex
    same(got[tf.train], got[pb])
    assert list(got[tf.train].features.feature["ids"].int64_list.value) == ids.tolist()


def test_editing_the_source_messages_leaves_the_example_alone():
    ids, _ = rows()
    out = {}
    for m in (tf.train, pb):
        lst = m.Int64List(value=ids)
        feat = m.Feature(int64_list=lst)
        d = {"ids": feat, "none": m.Feature()}
        fs = m.Features(feature=d)
        ex = m.Example(features=fs)
        lst.value.append(7)
        feat.int64_list.value[0] = 3
        d["ids"].int64_list.value.extend([1, 2])
        fs.feature["ids"].int64_list.value.append(11)
        fs.feature["new"].float_list.value.append(1.5)
        out[m] = (lst, feat, fs, ex)
    for a, b in zip(out[tf.train], out[pb]):
        same(a, b)
    assert len(out[tf.train][3].features.feature["ids"].int64_list.value) == len(ids)


def test_editing_the_example_leaves_the_sources_alone():
    ids, _ = rows()
    out = {}
    for m in (tf.train, pb):
        feat = m.Feature(bytes_list=m.BytesList(value=[b"a", b"b"]))
        fs = m.Features(feature={"b": feat, "ids": m.Feature(int64_list=m.Int64List(value=ids))})
        ex = m.Example(features=fs)
        ex.features.feature["b"].bytes_list.value.append(b"c")
        ex.features.feature["ids"].int64_list.value[2] = -1
        del ex.features.feature["ids"]
        ex2 = m.Example(features=ex.features)
        ex2.features.feature["z"].int64_list.value.append(4)
        out[m] = (feat, fs, ex, ex2)
    for a, b in zip(out[tf.train], out[pb]):
        same(a, b)


def test_presence_and_clear_follow_protobuf():
    for fn in (lambda m: m.Example(features=m.Features()),
               lambda m: m.Example(features=m.Features(feature={})),
               lambda m: m.Example(features=m.Features(feature={"k": m.Feature()}))):
        a, b = both(fn)
        same(a, b)
        assert a.HasField("features") and b.HasField("features")
        a.Clear()
        b.Clear()
        same(a, b)
        assert not a.HasField("features")
        a.features.feature["k"].int64_list.value.append(1)
        b.features.feature["k"].int64_list.value.append(1)
        assert a.HasField("features") and b.HasField("features")
        same(a, b)


def test_equality_and_round_trip_of_lazy_messages():
    ids, labels = rows()
    a, b = both(lambda m: build(m, ids, labels, b"\xff\x00"))
    same(a, b)
    assert a == tf.train.Example.FromString(det(b))
    assert a.features == build(tf.train, ids, labels, b"\xff\x00").features
    assert a != build(tf.train, ids[:-1], labels)
    f = a.features.feature["ids"]
    assert f.WhichOneof("kind") == "int64_list"
    assert f.SerializeToString() == b.features.feature["ids"].SerializeToString()
    assert a.features.SerializeToString() == b.features.SerializeToString(deterministic=True)


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, ">i8"])
def test_other_integer_rows_take_the_checked_path(dtype):
    ids = np.arange(10).astype(dtype)
    a, b = both(lambda m: build(m, ids, np.arange(3, dtype=np.float64)))
    same(a, b)


def _message_object(o):
    """An object of tfnano.train (the message classes): an instance of one of its
    classes, or one of its functions (closures), from any of its modules."""
    mod = getattr(o, "__module__", None) or getattr(type(o), "__module__", "") or ""
    return mod == "tfnano.train" or mod.startswith("tfnano.train.")


def test_no_reference_cycles_per_example():
    # Only the message classes' objects count: pipelines and threads left by other
    # tests may drop cyclic garbage of their own while this runs.
    import gc
    ids, labels = rows()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for _ in range(5):
            build(tf.train, ids, labels).SerializeToString()
        gc.collect()
        cyclic = [type(o).__name__ for o in gc.garbage if _message_object(o)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert cyclic == []


def test_lists_edited_before_and_after_wrapping():
    out = {}
    for m in (tf.train, pb):
        ints = m.Int64List(value=[1, 2])
        ints.value.append(3)  # values now held as a Python list
        names = [b"a"]
        blist = m.BytesList(value=names)
        names.append(b"b")  # the caller's list is not the message's
        blist.value.append(b"c")
        fs = m.Features(feature={"i": m.Feature(int64_list=ints),
                                 "b": m.Feature(bytes_list=blist)})
        ints.value.append(4)
        ints.value[0] = 9
        blist.value[0] = b"z"
        out[m] = (ints, blist, fs, m.Example(features=fs))
    for a, b in zip(out[tf.train], out[pb]):
        same(a, b)
    assert list(out[tf.train][2].feature["i"].int64_list.value) == [1, 2, 3]

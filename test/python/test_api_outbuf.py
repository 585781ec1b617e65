"""Recycled output memory (tfnano._c.outbuf): arrays handed out stay intact while they
are alive, memory is reused only once they are gone, and the idle limit holds."""
import gc

import numpy as np

import tfnano as tf
from tfnano._c import outbuf as _outbuf

FEATURES = {"ids": tf.io.FixedLenFeature([512], tf.int64),
            "seq": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
            "labels": tf.io.FixedLenFeature([3], tf.float32)}


def _batch(seed, n=256):
    rng = np.random.default_rng(seed)
    ids = rng.integers(-2**40, 2**40, (n, 512))
    seq = [rng.integers(0, 100, rng.integers(0, 40)) for _ in range(n)]
    labels = rng.random((n, 3), dtype=np.float32)
    return tf.serialize_columns({"ids": ids, "seq": seq, "labels": labels}), ids, seq, labels


def _check(out, ids, seq, labels):
    np.testing.assert_array_equal(out["ids"], ids)
    np.testing.assert_array_equal(out["labels"], labels)
    for i, s in enumerate(seq):
        np.testing.assert_array_equal(out["seq"][i, :len(s)], s)
        assert not out["seq"][i, len(s):].any()


def test_live_arrays_are_never_reused():
    parser = tf.Parser(FEATURES)
    kept = []
    for seed in range(6):
        records, ids, seq, labels = _batch(seed)
        kept.append((parser.parse(records), ids, seq, labels))
    for out, ids, seq, labels in kept:
        _check(out, ids, seq, labels)
    # A single surviving array keeps its block out of the pool.
    only_ids = [k[0]["ids"] for k in kept]
    del kept
    gc.collect()
    for seed in range(6, 9):
        records, ids, seq, labels = _batch(seed)
        _check(parser.parse(records), ids, seq, labels)
    for seed, arr in enumerate(only_ids):
        np.testing.assert_array_equal(arr, _batch(seed)[1])


def test_blocks_come_back_and_are_reused():
    parser = tf.Parser(FEATURES)
    records, ids, seq, labels = _batch(42)
    out = parser.parse(records)
    base = out["ids"].__array_interface__["data"][0]
    del out
    gc.collect()
    again = parser.parse(records)
    assert again["ids"].__array_interface__["data"][0] == base
    _check(again, ids, seq, labels)
    assert again["ids"].flags.writeable


def test_small_outputs_use_plain_arrays():
    records, ids, seq, labels = _batch(1, n=4)  # 4 x 512 x 8 bytes < MIN_BYTES
    out = tf.Parser(FEATURES).parse(records)
    assert out["ids"].flags.owndata
    _check(out, ids, seq, labels)


def test_idle_memory_is_bounded():
    pool = _outbuf._Pool(idle_limit=3 << 20)
    blocks = [pool.take(1 << 20) for _ in range(8)]
    del blocks
    gc.collect()
    assert pool.idle_bytes() <= 3 << 20


def test_size_classes_round_up_by_at_most_an_eighth():
    for n in [1, 63, 64, 65, 1000, 4096, 123457, 2_359_296, 10**9]:
        c = _outbuf._size_class(n)
        assert c >= n and c % _outbuf.ALIGN == 0
        assert c - n <= max(n // 8, _outbuf.ALIGN)


def test_serialize_columns_after_a_short_size_guess():
    """Each call guesses its size from the previous one; a much bigger batch after a
    small one takes the retry path and must give the same bytes as tf.train.Example."""
    rng = np.random.default_rng(7)
    for width, n in [(2, 3), (4000, 50), (1, 1), (3000, 200), (0, 5), (10, 0)]:
        ids = rng.integers(-2**62, 2**62, (n, width))
        names = [bytes(rng.integers(0, 256, rng.integers(0, 300), dtype=np.uint8))
                 for _ in range(n)]
        got = tf.serialize_columns({"ids": ids, "name": names})
        want = [tf.train.Example(features=tf.train.Features(feature={
            "ids": tf.train.Feature(int64_list=tf.train.Int64List(value=ids[i])),
            "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[names[i]]))}))
            .SerializeToString() for i in range(n)]
        assert got == want
        data, offsets = tf.serialize_columns({"ids": ids, "name": names}, as_buffer=True)
        assert data == b"".join(want) and offsets[-1] == len(data)


def _epoch(n_batches, n=1024, seed=0):
    rng = np.random.default_rng(seed)
    for b in range(n_batches):
        ids = rng.integers(0, 30000, (n, 128))
        labels = rng.random((n, 30), dtype=np.float32)
        seq = [rng.integers(0, 100, rng.integers(1, 64)) for _ in range(n)]
        yield tf.serialize_columns({"ids": ids, "seq": seq, "labels": labels}), ids, labels


EPOCH_SPEC = {"ids": tf.io.FixedLenFeature([128], tf.int64),
              "seq": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
              "labels": tf.io.FixedLenFeature([30], tf.float32)}


def test_a_kept_small_output_pins_no_block():
    """Collecting one small feature over an epoch keeps only that feature's memory:
    the blocks of the big outputs beside it all go back to the pool."""
    gc.collect()
    live_before = _outbuf.POOL.live_bytes()
    kept, want = [], []
    for records, ids, labels in _epoch(30):
        out = tf.io.parse_example(records, EPOCH_SPEC)
        assert out["ids"].nbytes >= _outbuf.MIN_BYTES  # the batch did use pooled memory
        kept.append(out["labels"])
        want.append(labels)
        del out
    gc.collect()
    assert _outbuf.POOL.live_bytes() - live_before == 0
    np.testing.assert_array_equal(np.concatenate(kept), np.concatenate(want))


def test_a_kept_big_output_pins_only_its_own_size():
    gc.collect()
    live_before = _outbuf.POOL.live_bytes()
    kept, want = [], []
    for records, ids, labels in _epoch(12, seed=1):
        out = tf.io.parse_example(records, EPOCH_SPEC)
        kept.append(out["ids"])
        want.append(ids)
        del out
    gc.collect()
    pinned = _outbuf.POOL.live_bytes() - live_before
    kept_bytes = sum(a.nbytes for a in kept)
    assert kept_bytes <= pinned <= kept_bytes * 9 // 8  # size classes: at most 1/8 more
    np.testing.assert_array_equal(np.concatenate(kept), np.concatenate(want))


def test_big_blocks_are_numpy_memory_kept_by_every_view():
    # blocks of 4 MiB or more come from numpy's allocator (huge pages); a view of an
    # array keeps the block out of the pool after the array itself is gone
    n = _outbuf.HUGE_BYTES + 4096
    a = _outbuf.POOL.take(n)
    assert a.flags.writeable and len(a) >= n
    a[:] = 7
    view = a[100:200]
    address = view.ctypes.data
    del a
    gc.collect()
    b = _outbuf.POOL.take(n)  # the block is still in use by `view`: another one
    assert b.ctypes.data != address - 100
    b[:] = 1
    assert (view == 7).all()
    del view
    gc.collect()
    c = _outbuf.POOL.take(n)  # now it came back, and is handed out again
    assert c.ctypes.data == address - 100
    del b, c

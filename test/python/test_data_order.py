"""Order and completeness: num_parallel_reads interleaves as tf.data does (also when
records are gathered a batch at a time), and many shards through interleave +
shuffle + repeat give every record exactly once per epoch."""
import collections

import numpy as np
from hypothesis import given, settings, strategies as st

import tfnano as tf


def write(path, records):
    with tf.io.TFRecordWriter(str(path)) as w:
        for r in records:
            w.write(r)
    return str(path)


def reference_interleave(files, cycle):
    """tf.data's interleave (block 1): a finished file's slot takes the next file,
    which gets its turn when the cycle comes back to it."""
    pending = [list(f) for f in files]
    slots = [pending.pop(0) for _ in range(min(cycle, len(pending)))]
    out, i = [], 0
    while slots:
        i %= len(slots)
        if slots[i]:
            out.append(slots[i].pop(0))
            i += 1
        elif pending:
            slots[i] = pending.pop(0)
            i += 1
        else:
            slots.pop(i)
    return out


def test_interleave_order_is_tensorflows(tmp_path):
    files = [write(tmp_path / ("f%d" % f), [b"%d-%d" % (f, i) for i in range(f + 2)])
             for f in range(3)]
    got = [r.numpy() for r in tf.data.TFRecordDataset(files, num_parallel_reads=2)]
    # what TensorFlow 2.21 gives for these files
    assert got == [b"0-0", b"1-0", b"0-1", b"1-1", b"1-2", b"2-0", b"2-1", b"2-2", b"2-3"]


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 700), min_size=1, max_size=6), st.integers(1, 5),
       st.integers(1, 300))
def test_batched_reads_keep_the_interleave_order(tmp_path_factory, sizes, cycle, batch):
    tmp = tmp_path_factory.mktemp("il")
    contents = [[b"%d:%d" % (f, i) for i in range(n)] for f, n in enumerate(sizes)]
    files = [write(tmp / ("f%d" % f), c) for f, c in enumerate(contents)]
    want = reference_interleave(contents, cycle)
    ds = tf.data.TFRecordDataset(files, num_parallel_reads=cycle)
    assert [r.numpy() for r in ds] == want
    got = []
    for b in ds.batch(batch):
        got.extend(b.numpy().tolist())
    assert got == want


def test_many_shards_interleave_shuffle_repeat_no_duplicate_no_loss(tmp_path):
    rng = np.random.default_rng(5)
    files, total = [], 0
    for s in range(24):
        n = int(rng.integers(0, 60))
        files.append(write(tmp_path / ("s%02d" % s), [b"%d" % (total + i) for i in range(n)]))
        total += n
    ds = (tf.data.Dataset.from_tensor_slices(files).shuffle(24, seed=1)
          .interleave(lambda f: tf.data.TFRecordDataset(f), cycle_length=5, block_length=3)
          .shuffle(100, seed=2).repeat(3).batch(32).prefetch(2))
    counts = collections.Counter()
    for b in ds:
        counts.update(int(x) for x in b.numpy().tolist())
    assert set(counts) == set(range(total)) and set(counts.values()) == {3}
    ds2 = (tf.data.TFRecordDataset(files, num_parallel_reads=7).shuffle(64, seed=3)
           .repeat(2).map(lambda r: (r, r), num_parallel_calls=3).batch(50))
    counts = collections.Counter()
    for b in ds2:
        assert b[0].numpy().tolist() == b[1].numpy().tolist()
        counts.update(int(x) for x in b[0].numpy().tolist())
    assert set(counts) == set(range(total)) and set(counts.values()) == {2}

"""The text pipeline end to end, on synthetic data it makes itself (`make run`).

Tokenized question/answer pairs -> padded to 512 with attention masks -> Examples with
int64 ids and masks and 30 float labels -> sharded TFRecord files ->
tf.data.TFRecordDataset -> parse_example -> int32 batches, checked against the input.

Written the way a notebook would, with `import tfnano as tf`; the steps marked "fast
path" use tfnano's batch calls (numpy columns in, numpy arrays out).

    python examples/quest_pipeline.py [--examples 10000] [--shards 4] [--batch 256]
"""
import argparse
import os
import shutil
import tempfile
import time

import numpy as np

import tfnano as tf

MAXLEN = 512
PAD_ID = 1


def synthetic_tokens(rng, n):
    """Token-id lists like the QUEST workload: log-uniform ids, lognormal lengths."""
    lengths = np.clip(rng.lognormal(np.log(250), 0.6, n), 8, 700).astype(np.int64)
    lo, hi = np.log(3), np.log(50265)
    return [np.exp(rng.uniform(lo, hi, k)).astype(np.int64) for k in lengths]


class Timer:
    def __init__(self):
        self.rows = []

    def __call__(self, label, count=None, nbytes=None):
        timer = self

        class _T:
            def __enter__(self):
                self.t = time.perf_counter()

            def __exit__(self, *exc):
                dt = time.perf_counter() - self.t
                timer.rows.append((label, dt, count, nbytes))
                rate = "" if not count else "  %10.0f records/s" % (count / dt)
                mb = "" if not nbytes else "  %7.1f MB/s" % (nbytes / dt / 1e6)
                print("  %-52s %8.1f ms%s%s" % (label, dt * 1e3, rate, mb))
        return _T()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=10000)
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--out", default=None, help="folder for the shards (default: a temp dir)")
    args = ap.parse_args(argv)
    n = args.examples
    rng = np.random.default_rng(2024)
    out_dir = args.out or tempfile.mkdtemp(prefix="tfnano-quest-")
    os.makedirs(out_dir, exist_ok=True)
    timer = Timer()
    print("tfnano %s: QUEST text pipeline on %d synthetic examples, %d shards, batches of %d"
          % (tf.__version__, n, args.shards, args.batch))

    questions = synthetic_tokens(rng, n)
    answers = synthetic_tokens(rng, n)
    labels = rng.random((n, 30), dtype=np.float32)
    ntok = sum(map(len, questions)) + sum(map(len, answers))

    # 1. pad to fixed length, with masks (fast path: one vectorized pass per column)
    with timer("pad 2 x %d sequences to %d (tfnano.pad)" % (n, MAXLEN), 2 * n):
        q_ids, q_mask, _ = tf.pad(questions, maxlen=MAXLEN, value=PAD_ID)
        a_ids, a_mask, _ = tf.pad(answers, maxlen=MAXLEN, value=PAD_ID)
    # the keras spelling gives the same ids
    assert np.array_equal(q_ids[:50], tf.keras.preprocessing.sequence.pad_sequences(
        questions[:50], maxlen=MAXLEN, padding="post", truncating="post", value=PAD_ID))

    # 2. Examples -> sharded TFRecord files (fast path: whole numpy columns per shard)
    columns = {"q_input_ids": q_ids, "q_attention_mask": q_mask.astype(np.int32),
               "a_input_ids": a_ids, "a_attention_mask": a_mask.astype(np.int32),
               "labels": labels}
    files = [os.path.join(out_dir, "quest-%05d-of-%05d.tfrecord" % (s, args.shards))
             for s in range(args.shards)]
    bounds = np.linspace(0, n, args.shards + 1).astype(int)
    with timer("serialize + write %d shards (write_columns)" % args.shards, n):
        for s, path in enumerate(files):
            part = slice(bounds[s], bounds[s + 1])
            with tf.io.TFRecordWriter(path) as w:
                w.write_columns({k: v[part] for k, v in columns.items()})
    total_bytes = sum(os.path.getsize(f) for f in files)

    # the same record built the TensorFlow way is byte-identical
    i = 0
    ex = tf.train.Example(features=tf.train.Features(feature={
        k: (tf.train.Feature(float_list=tf.train.FloatList(value=v[i]))
            if v.dtype.kind == "f" else
            tf.train.Feature(int64_list=tf.train.Int64List(value=v[i])))
        for k, v in columns.items()}))
    first = next(iter(tf.data.TFRecordDataset(files[0]))).numpy()
    assert ex.SerializeToString() == first, "column writer and tf.train.Example differ"

    # 3. read back, three ways (each timed on its second pass: the first warms the
    #    page cache and the memory pools)
    features = {
        "q_input_ids": tf.io.FixedLenFeature([MAXLEN], tf.int64),
        "q_attention_mask": tf.io.FixedLenFeature([MAXLEN], tf.int64),
        "a_input_ids": tf.io.FixedLenFeature([MAXLEN], tf.int64),
        "a_attention_mask": tf.io.FixedLenFeature([MAXLEN], tf.int64),
        "labels": tf.io.FixedLenFeature([30], tf.float32),
    }

    def _parse_function(example_proto):  # as the notebooks write it: one record
        example = tf.io.parse_single_example(example_proto, features)
        ids = {k: tf.cast(v, tf.int32) for k, v in example.items() if k != "labels"}
        return ids, example["labels"]

    def as_written():
        return (tf.data.TFRecordDataset(files, num_parallel_reads=args.shards)
                .map(_parse_function, num_parallel_calls=tf.data.AUTOTUNE)
                .batch(args.batch)
                .prefetch(tf.data.AUTOTUNE))

    def read_all(make, label):
        got = {k: [] for k in features}
        for _ in range(2):
            got = {k: [] for k in features}
            with timer(label, n, total_bytes):
                for x, y in make():
                    for k in x:
                        got[k].append(x[k])
                    got["labels"].append(y)
        return got

    def check(got, ordered):
        order = np.argsort(np.concatenate(got["labels"])[:, 0], kind="stable") if \
            not ordered else np.arange(n)
        want_order = np.argsort(columns["labels"][:, 0], kind="stable") if \
            not ordered else np.arange(n)
        for k in features:
            arr = np.concatenate(got[k])[order]
            want = columns[k][want_order]
            assert arr.shape == want.shape and np.array_equal(arr, want), k
            if k != "labels":
                assert arr.dtype == np.int32

    print("  the per-record pipeline as notebooks write it runs as:")
    print("    " + as_written().plan_text().replace("\n", "\n    "))
    tf.data.experimental.enable_debug_mode()  # every function per record, untraced
    try:
        check(read_all(as_written, "as written, per record in Python (debug mode)"), False)
    finally:
        tf.data.experimental.disable_debug_mode()
    check(read_all(as_written, "as written, traced + fused (tf.data API)"), False)

    parser = tf.Parser(features, int32=True)  # fast path: int32 straight from C

    def fast_path():
        for batch in tf.data.TFRecordDataset(files).batch(args.batch).prefetch(2):
            out = parser.parse(batch)
            yield {k: v for k, v in out.items() if k != "labels"}, out["labels"]
    check(read_all(fast_path, "TFRecordDataset.batch -> tfnano.Parser int32 (fast path)"),
          True)

    if args.out is None:
        shutil.rmtree(out_dir)
    where = out_dir if args.out else "a temporary folder, now removed (--out DIR keeps them)"
    print("checked: %d examples, %d tokens, %.1f MB in %s; every value read back equals "
          "what was written" % (n, ntok, total_bytes / 1e6, where))
    return timer.rows


if __name__ == "__main__":
    main()

"""tfnano's Grain and Hugging Face adapters against the same jobs done through
TensorFlow's parser, in one process (issue 27's targets):

  1. Grain: W1 records (4 int64 features of 512 + 30 float labels) from TFRecord
     shards through ``grain.MapDataset.source(...).shuffle().batch(64).map(parse)``
     and an iterator (Grain's read threads), with
       - tfnano: TFRecordDataSource + ParseBatch (one C call per batch);
       - TF, per record: the same source, ``.map`` of tf.io.parse_single_example
         (the Grain-with-TensorFlow recipe), then ``.batch``;
       - TF, per batch: the same source and batch, then tf.io.parse_example of the
         batch (TensorFlow's fastest parse). Target: tfnano >= 3x the TF recipe.
  2. Hugging Face: the W1 shards into a datasets.Dataset, with
       - tfnano.hf.load_tfrecord (parse by tfnano.arrow, one Arrow file written);
       - Dataset.from_generator over a generator that reads the files with
         tf.data.TFRecordDataset and parses each record with tf.train.Example
         (what users write today). Target: >= 5x.

Times are the best of BENCH_RUNS runs after an untimed one; CPU time (user + system of
this process) is shown beside wall time, as the machine is shared. The outputs of the
paths are checked against each other first.

    make venv-bench-frameworks   # build/venv-bench-frameworks: grain, datasets, tensorflow-cpu
    build/venv-bench-frameworks/bin/python test/bench/bench_frameworks.py [--n 4000]

Environment: BENCH_QUICK=1 (1,000 records), BENCH_RUNS. Lines starting with "summary:"
are what test/bench/run.sh collects. Skips what it cannot import.
"""
import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
sys.path.insert(0, str(ROOT / "test" / "bench"))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

QUICK = os.environ.get("BENCH_QUICK", "0") not in ("", "0")
RUNS = int(os.environ.get("BENCH_RUNS", "2" if QUICK else "3"))

try:
    import datasets
    import grain
    import tensorflow as real_tf
except ImportError as e:
    print("bench_frameworks: skipped (%s in %s: make venv-bench-frameworks)"
          % (e, sys.executable))
    sys.exit(0)

import tfnano  # noqa: E402
from bench_scale import INT_KEYS, MAXLEN, w1_columns  # noqa: E402
from tfnano.grain import ParseBatch, TFRecordDataSource  # noqa: E402
from tfnano.hf import hf_features, load_tfrecord  # noqa: E402

BATCH = 64


def features(tf):
    f = {k: tf.io.FixedLenFeature([MAXLEN], tf.int64) for k in INT_KEYS}
    f["labels"] = tf.io.FixedLenFeature([30], tf.float32)
    return f


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def best(fn, runs=RUNS):
    """(best wall seconds, CPU seconds of that run, the last result), after one
    untimed run."""
    out, top = fn(), None
    for _ in range(runs):
        w, c = time.perf_counter(), cpu_seconds()
        out = fn()
        w, c = time.perf_counter() - w, cpu_seconds() - c
        if top is None or w < top[0]:
            top = (w, c)
    return top[0], top[1], out


def row(label, n, wall, cpu, ratio=None):
    """ratio: this path's time over tfnano's (how many times slower it is)."""
    ratio = "" if ratio is None else "%7.2fx" % ratio
    print("  %-52s %9.0f rec/s  wall %6.2fs  cpu %6.2fs %s" % (label, n / wall, wall, cpu,
                                                             ratio))


def write_shards(folder, n, shards):
    cols = w1_columns(n)
    paths = []
    for k in range(shards):
        lo, hi = n * k // shards, n * (k + 1) // shards
        path = os.path.join(folder, "w1-%02d.tfrecord" % k)
        with tfnano.io.TFRecordWriter(path) as w:
            w.write_columns({key: c[lo:hi] for key, c in cols.items()})
        paths.append(path)
    return paths, cols


# ------------------------------------------------------------------ Grain
def grain_epoch(ds):
    """Iterates one epoch; returns (records, checksum of the labels' first column)."""
    n, total = 0, 0.0
    for b in ds.to_iter_dataset():
        n += len(b["labels"])
        total += float(np.asarray(b["labels"])[:, 0].sum())
    return n, round(total, 3)


def bench_grain(paths, n):
    src = TFRecordDataSource(paths)
    feats_tf, feats_nano = features(real_tf), features(tfnano)

    def tf_one(x):
        d = real_tf.io.parse_single_example(x.item(), feats_tf)
        return {k: v.numpy() for k, v in d.items()}

    def tf_batch(b):
        d = real_tf.io.parse_example(list(b), feats_tf)
        return {k: v.numpy() for k, v in d.items()}

    base = grain.MapDataset.source(src).shuffle(seed=1)
    jobs = [
        ("tfnano.grain: source + ParseBatch", lambda: grain_epoch(
            base.batch(BATCH).map(ParseBatch(feats_nano)))),
        ("TF per record: map(parse_single_example).batch", lambda: grain_epoch(
            base.map(tf_one).batch(BATCH))),
        ("TF per batch: batch.map(parse_example)", lambda: grain_epoch(
            base.batch(BATCH).map(tf_batch))),
    ]
    print("== Grain, W1 x %d records, %d shards, batch %d (load %s)"
          % (n, len(paths), BATCH, load()))
    results = [best(fn) for _, fn in jobs]
    outs = {r[2] for r in results}
    assert len(outs) == 1 and next(iter(outs))[0] == n, outs
    ref = results[0][0]
    for (label, _), (w, c, _) in zip(jobs, results):
        row(label, n, w, c, None if w == ref else w / ref)
    print("summary: grain W1 x %d, tfnano.grain vs Grain + TF parse_single_example: %.2fx "
          "wall, %.2fx CPU (target >= 3x); vs Grain + TF parse_example per batch: %.2fx"
          % (n, results[1][0] / ref, results[1][1] / results[0][1], results[2][0] / ref))


# ------------------------------------------------------------------ Hugging Face
def bench_hf(paths, n, folder):
    feats_nano = features(tfnano)
    hf = hf_features(feats_nano)
    keys = list(feats_nano)
    runs = [0]

    def fresh_cache():
        runs[0] += 1
        d = os.path.join(folder, "cache-%d" % runs[0])
        os.makedirs(d)
        return d

    def ours():
        return load_tfrecord(paths, feats_nano, cache_dir=fresh_cache())

    def generator(files):
        for rec in real_tf.data.TFRecordDataset(files).as_numpy_iterator():
            ex = real_tf.train.Example.FromString(rec)
            f = ex.features.feature
            out = {}
            for k in keys:
                kind = f[k].WhichOneof("kind")
                out[k] = list(getattr(f[k], kind).value)
            yield out

    def theirs():
        return datasets.Dataset.from_generator(
            generator, features=hf, gen_kwargs={"files": list(paths)},
            cache_dir=fresh_cache())

    print("== Hugging Face datasets, W1 x %d records -> Dataset (load %s)" % (n, load()))
    a = best(ours)
    b = best(theirs)
    x, y = a[2], b[2]
    assert len(x) == len(y) == n
    for i in (0, n // 2, n - 1):
        assert x[i] == y[i], i
    row("tfnano.hf.load_tfrecord", n, a[0], a[1])
    row("Dataset.from_generator(tf.train.Example)", n, b[0], b[1], b[0] / a[0])
    print("summary: hf W1 x %d, load_tfrecord vs from_generator(tf.train.Example): %.2fx "
          "wall, %.2fx CPU (target >= 5x)" % (n, b[0] / a[0], b[1] / a[1]))


def load():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1000 if QUICK else 4000)
    ap.add_argument("--shards", type=int, default=4)
    args = ap.parse_args()
    datasets.disable_progress_bars()
    folder = tempfile.mkdtemp(prefix="tfnano-bench-frameworks-")
    try:
        paths, _ = write_shards(folder, args.n, args.shards)
        bench_grain(paths, args.n)
        bench_hf(paths, args.n, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

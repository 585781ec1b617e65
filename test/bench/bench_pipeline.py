"""The C pipeline engine (tfnano._c.pipeline.CPipeline, lib/pipeline) on W1-shaped
records: 4 x int64[512] + float[30] per Example, parsed to int32 / float32 batches
of 256, read from 4 shards. Records/s of one epoch (best of --repeat), in one process:

  - tfnano today:  TFRecordDataset(files).batch(256) + tfnano.Parser (one thread)
  - CPipeline:     cycle_length=4, spec = the same Parser's, 1 and 2 worker threads
  - its reading stage alone (raw batches, no spec: the serial part of the engine, what
    one reader sustains), on these records and on 100 KiB records (batches of 32)
  - TensorFlow:    TFRecordDataset(files, num_parallel_reads=4)
                     .map(parse_single_example + four tf.cast(int32), AUTOTUNE).batch(256)
                   (only when tensorflow is importable: run with build/venv-tf's Python,
                   PYTHONPATH=bindings/python TF_CPP_MIN_LOG_LEVEL=2)

Usage: python test/bench/bench_pipeline.py [--n 8192] [--repeat 3]
"""
import argparse
import os
import platform
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))

import tfnano as tf  # noqa: E402
from tfnano._c.pipeline import CPipeline  # noqa: E402

MAXLEN, LABELS, BATCH, SHARDS = 512, 30, 256, 4
INT_KEYS = ("q_input_ids", "q_attention_mask", "a_input_ids", "a_attention_mask")


def w1_columns(n, seed=1):
    """Token ids with a log-uniform vocabulary and lognormal lengths (pad id 1), their
    masks, and 30 float labels, as the W1 workload describes them."""
    rng = np.random.default_rng(seed)
    cols = {}
    for side in ("q", "a"):
        lengths = np.clip(rng.lognormal(np.log(250), 0.6, n), 8, MAXLEN).astype(np.int64)
        ids = np.exp(rng.uniform(np.log(3), np.log(50265), (n, MAXLEN))).astype(np.int64)
        mask = (np.arange(MAXLEN)[None, :] < lengths[:, None]).astype(np.int64)
        ids[mask == 0] = 1
        cols[side + "_input_ids"] = ids
        cols[side + "_attention_mask"] = mask
    cols["labels"] = rng.random((n, LABELS), dtype=np.float32)
    return cols


def write_shards(n, folder):
    cols = w1_columns(n)
    files = []
    bounds = np.linspace(0, n, SHARDS + 1).astype(int)
    for s in range(SHARDS):
        path = os.path.join(folder, "w1-%d-of-%d.tfrecord" % (s, SHARDS))
        with tf.io.TFRecordWriter(path) as w:
            w.write_columns({k: v[bounds[s]:bounds[s + 1]] for k, v in cols.items()})
        files.append(path)
    return files


def write_big_shards(folder, n):
    """n records of 100 KiB (incompressible) in SHARDS files: (paths, records)."""
    rng = np.random.default_rng(2)
    blob = rng.bytes(200 << 10)
    recs = [blob[int(o):int(o) + (100 << 10)] for o in rng.integers(0, 100 << 10, n)]
    files = []
    for s in range(SHARDS):
        path = os.path.join(folder, "big-%d.tfrecord" % s)
        with tf.io.TFRecordWriter(path) as w:
            for r in recs[s::SHARDS]:
                w.write(r)
        files.append(path)
    return files, recs


def features(lib):
    f = {k: lib.io.FixedLenFeature([MAXLEN], lib.int64) for k in INT_KEYS}
    f["labels"] = lib.io.FixedLenFeature([LABELS], lib.float32)
    return f


def epoch(iterable):
    count = 0
    for batch in iterable:
        count += len(batch["labels"])
    return count


def best(fn, repeat, n):
    """Best wall time of an epoch, and the CPU time (every thread of the process) of
    that epoch: on a shared machine the CPU time per record is the steadier figure."""
    runs = []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        got = fn()
        runs.append((time.perf_counter() - t, time.process_time() - c))
        if got != n:
            raise SystemExit("epoch gave %d records, expected %d" % (got, n))
    return min(runs)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=8192, help="W1 records in all shards")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    n = args.n
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        files = write_shards(n, folder)
        size = sum(os.path.getsize(f) for f in files)
        parser = tf.Parser(features(tf), int32=True)

        def tfnano_today():
            ds = tf.data.TFRecordDataset(files).batch(BATCH)
            return epoch(parser.parse(b) for b in ds)

        def cpipeline(threads):
            return lambda: epoch(CPipeline(files, cycle_length=SHARDS, batch_size=BATCH,
                                           spec=parser._spec, num_threads=threads))

        rows.append(("tfnano TFRecordDataset(files).batch(256) + Parser, 1 thread",
                     best(tfnano_today, args.repeat, n)))
        rows.append(("CPipeline(cycle_length=4, batch 256), 1 worker thread",
                     best(cpipeline(1), args.repeat, n)))
        rows.append(("CPipeline(cycle_length=4, batch 256), 2 worker threads",
                     best(cpipeline(2), args.repeat, n)))

        def raw(paths, batch):
            def run():
                return sum(len(b) for b in CPipeline(paths, cycle_length=SHARDS,
                                                     batch_size=batch))
            return run
        reading = [("W1 records", n, size, best(raw(files, BATCH), args.repeat, n))]
        big = write_big_shards(folder, max(1200, n // 4))  # enough batches to reuse memory
        big_n, big_size = len(big[1]), sum(os.path.getsize(f) for f in big[0])
        reading.append(("100 KiB records", big_n, big_size,
                        best(raw(big[0], 32), args.repeat, big_n)))
        try:
            import tensorflow as tfr
        except ImportError:
            tfr = None
        if tfr is not None:
            tf_features = features(tfr)

            def _parse_function(record):
                ex = tfr.io.parse_single_example(record, tf_features)
                for k in INT_KEYS:
                    ex[k] = tfr.cast(ex[k], tfr.int32)
                return ex

            def tensorflow():
                ds = tfr.data.TFRecordDataset(files, num_parallel_reads=4)
                ds = ds.map(_parse_function, num_parallel_calls=tfr.data.AUTOTUNE)
                return epoch(ds.batch(BATCH))

            rows.append(("TensorFlow %s TFRecordDataset(num_parallel_reads=4)"
                         ".map(parse_single_example + cast, AUTOTUNE).batch(256)"
                         % tfr.__version__, best(tensorflow, args.repeat, n)))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("W1 pipeline: %d records (%.1f MB in %d shards), batches of %d; Python %s, "
          "%d CPUs usable; best of %d; peak RSS of the process %.0f MB"
          % (n, size / 1e6, SHARDS, BATCH, platform.python_version(),
             len(os.sched_getaffinity(0)), args.repeat, peak))
    print()
    print("| pipeline | records/s (wall) | CPU us/record | wall vs tfnano today |")
    print("|---|---:|---:|---:|")
    base = rows[0][1][0]
    for name, (wall, cpu) in rows:
        print("| %s | %.0f | %.2f | %.2fx |" % (name, n / wall, cpu / n * 1e6, base / wall))
    print()
    print("The reading stage alone (CPipeline without a spec: one worker, the part of the "
          "engine that runs under its reading lock):")
    print()
    print("| records | records/s (wall) | GB/s | CPU us/record |")
    print("|---|---:|---:|---:|")
    for name, count, nbytes, (wall, cpu) in reading:
        print("| %s | %.0f | %.2f | %.2f |" % (name, count / wall, nbytes / wall / 1e9,
                                             cpu / count * 1e6))
    tf_rows = [t for name, t in rows if name.startswith("TensorFlow")]
    if tf_rows:
        print()
        for name, (wall, cpu) in rows[:3]:
            print("%s: %.2fx TensorFlow's records/s, %.2fx less CPU per record"
                  % (name, tf_rows[0][0] / wall, tf_rows[0][1] / cpu))
    print("load average during the run: %.1f %.1f %.1f" % os.getloadavg())


if __name__ == "__main__":
    main()

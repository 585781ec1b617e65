"""TFRecord shards of W1 Examples into Arrow (issue 17's to_arrow target, >= 5x),
tfnano against the two ways people do it today:

  1. Ray Data's read_tfrecords: TensorFlow's protobuf parses each record, then one
     pyarrow table is built per record from Python lists (ray/data/_internal/
     datasource/tfrecords_datasource.py). Measured end to end on a local Ray with
     2 CPUs (ray.data.read_tfrecords(files).materialize()), beside the same files read
     by tfnano.arrow.TFRecordReader in one process, and, apart from Ray's scheduling,
     Ray's per-file read function called in this process on one shard.
  2. TensorFlow in this process: tf.io.parse_example of the batch, then Arrow arrays
     built on its numpy output (pa.array + FixedSizeListArray), against
     tfnano.arrow.to_arrow of the same batch (records in memory).

W1 "QUEST": 4 int64 features of 512 values + 30 float32 labels, as in
test/bench/bench_scale.py. Times are the best of BENCH_RUNS runs; CPU time (user +
system of this process) is shown beside wall time, as the machine is shared. The
values of every path are checked against each other first.

    make bench-ray             # build/venv-ray: ray[data], tensorflow-cpu, pyarrow
    build/venv-ray/bin/python test/bench/bench_arrow.py [--n 10000] [--shards 4]

Environment: BENCH_QUICK=1 (1,000 records), BENCH_RUNS. Lines starting with
"summary:" are what test/bench/run.sh collects. Skips what it cannot import.
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
os.environ["PYTHONPATH"] = os.pathsep.join(  # the same tfnano in Ray's workers
    [str(ROOT / "bindings" / "python")] + [p for p in os.environ.get(
        "PYTHONPATH", "").split(os.pathsep) if p])

QUICK = os.environ.get("BENCH_QUICK", "0") not in ("", "0")
RUNS = int(os.environ.get("BENCH_RUNS", "2" if QUICK else "5"))

try:
    import pyarrow as pa
except ImportError:
    print("bench_arrow: skipped (no pyarrow in %s: make venv-ray)" % sys.executable)
    sys.exit(0)

import tfnano  # noqa: E402
from tfnano import arrow as ta  # noqa: E402
from bench_scale import INT_KEYS, MAXLEN, w1_columns  # noqa: E402


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def best(fn, runs=RUNS):
    """(best wall seconds, CPU seconds of that run, the last result), after one
    untimed run (imports, first allocations of the memory pools)."""
    out, top = fn(), None
    for _ in range(runs):
        w, c = time.perf_counter(), cpu_seconds()
        out = fn()
        w, c = time.perf_counter() - w, cpu_seconds() - c
        if top is None or w < top[0]:
            top = (w, c)
    return top[0], top[1], out


def load():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def row(label, n, wall, cpu, ref=None):
    ratio = "" if ref is None else "  %6.1fx wall, %5.1fx CPU" % (ref[0] / wall, ref[1] / cpu)
    print("  %-58s %9.1f ms %9.1f ms CPU %10.0f rec/s%s"
          % (label, wall * 1e3, cpu * 1e3, n / wall, ratio))


def features():
    feats = {k: tfnano.io.FixedLenFeature([MAXLEN], tfnano.int64) for k in INT_KEYS}
    feats["labels"] = tfnano.io.FixedLenFeature([30], tfnano.float32)
    return feats


def column_values(table, key):
    """Column `key` of an Arrow table as an (n, width) numpy array."""
    col = table.column(key).combine_chunks()
    return np.asarray(col.flatten().to_numpy(zero_copy_only=False)).reshape(len(col), -1)


def check_same(name, got, want, keys):
    for k in keys:
        a, b = column_values(got, k), column_values(want, k)
        if a.shape != b.shape or not np.array_equal(a, b):
            raise SystemExit("bench_arrow: %s differs from tfnano in column %s" % (name, k))


def bench_in_memory(records, feats):
    n = len(records)
    print("\nW1 x %d records in memory -> one Arrow batch (load %s)" % (n, load()))
    w1, c1, ours = best(lambda: ta.to_arrow(records, feats, num_threads=1))
    wn, cn, _ = best(lambda: ta.to_arrow(records, feats, num_threads=0))
    row("tfnano to_arrow (the default: one thread)", n, w1, c1)
    row("tfnano to_arrow, num_threads=0 (a thread per core)", n, wn, cn)
    try:
        import tensorflow as tf
    except ImportError:
        print("  TensorFlow not importable: no comparison (make venv-ray)")
        return None
    tf_feats = {k: tf.io.FixedLenFeature([MAXLEN], tf.int64) for k in INT_KEYS}
    tf_feats["labels"] = tf.io.FixedLenFeature([30], tf.float32)

    def with_tf():  # as users write it: parse_example, then Arrow arrays on numpy
        parsed = tf.io.parse_example(records, tf_feats)
        arrays = [pa.FixedSizeListArray.from_arrays(pa.array(v.numpy().reshape(-1)),
                                                    v.shape[1]) for v in parsed.values()]
        return pa.RecordBatch.from_arrays(arrays, names=list(parsed))

    check_same("TF parse_example", pa.Table.from_batches([with_tf()]),
               pa.Table.from_batches([ours]), feats)
    wt, ct, _ = best(with_tf)
    row("TensorFlow parse_example + pa.array", n, wt, ct, (wt, ct))
    print("  -> tfnano: %.1fx (one thread) / %.1fx (a thread per core) in wall time, "
          "%.1fx / %.1fx in CPU time" % (wt / w1, wt / wn, ct / c1, ct / cn))
    print("summary: to_arrow W1 x %d vs TF parse_example + pa.array: %.1fx wall "
          "(%.1fx a thread per core), %.1fx CPU (load %s)" % (n, wt / w1, wt / wn, ct / c1,
                                                              load()))
    return wn


def write_shards(tmp, records, shards):
    paths = []
    per = -(-len(records) // shards)
    for s in range(shards):
        p = os.path.join(tmp, "train-%05d-of-%05d.tfrecords" % (s, shards))
        with tfnano.io.TFRecordWriter(p) as w:
            w.write_many(records[s * per:(s + 1) * per])
        paths.append(p)
    return paths


def ray_read_one_file(path):
    """Ray's read_tfrecords path for one file without Ray's scheduler: its datasource's
    _read_stream (TensorFlow's protobuf per record, a pyarrow table per record), then
    the tables concatenated as Ray's block builder does."""
    from ray.data._internal.datasource.tfrecords_datasource import TFRecordDatasource
    src = TFRecordDatasource([path])
    with pa.OSFile(path, "rb") as f:
        tables = list(src._read_stream(f, path))
    return pa.concat_tables(tables, promote_options="default")


def bench_files(records, feats, shards):
    n = len(records)
    tmp = tempfile.mkdtemp(prefix="bench_arrow_")
    try:
        paths = write_shards(tmp, records, shards)
        size = sum(os.path.getsize(p) for p in paths)
        print("\nW1 x %d records in %d TFRecord files (%.0f MB, page cache) -> Arrow "
              "(load %s)" % (n, shards, size / 1e6, load()))
        wf, cf, ours = best(lambda: pa.Table.from_batches(list(ta.TFRecordReader(paths,
                                                                                 feats))))
        row("tfnano TFRecordReader (read, CRCs, parse), one process", n, wf, cf)
        try:
            import ray
            import tensorflow  # noqa: F401  (Ray's read_tfrecords imports it)
        except ImportError as e:
            print("  Ray Data / TensorFlow not importable (%s): no comparison "
                  "(make venv-ray)" % e)
            return
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                 logging_level="ERROR", runtime_env={"env_vars": {
                     "PYTHONPATH": os.environ["PYTHONPATH"],
                     "TF_CPP_MIN_LOG_LEVEL": "2"}})
        try:
            # Ray's per-file function in this process, on the first shard
            w_one, c_one, t_one = best(lambda: ray_read_one_file(paths[0]), min(RUNS, 2))
            check_same("Ray's _read_stream", t_one, ours.slice(0, t_one.num_rows), feats)
            row("Ray's read_tfrecords parse, in this process (1 shard)", t_one.num_rows,
                w_one, c_one)
            ratio_one = (n / wf) / (t_one.num_rows / w_one)
            # end to end on the local Ray (2 CPUs)
            ray.data.DataContext.get_current().enable_progress_bars = False
            # warm the workers (TensorFlow imported there) on one shard, not timed
            ray.data.read_tfrecords(paths[:1]).materialize()
            w_ray, _, ds = best(lambda: ray.data.read_tfrecords(paths).materialize(),
                                min(RUNS, 2))
            got = pa.concat_tables([ray.get(r) for r in ds.to_arrow_refs()],
                                   promote_options="default")
            if got.num_rows != n:
                raise SystemExit("bench_arrow: Ray read %d rows, not %d" % (got.num_rows, n))
            ids = sorted(column_values(got, "q_input_ids")[:, :4].tolist())
            if ids != sorted(column_values(ours, "q_input_ids")[:, :4].tolist()):
                raise SystemExit("bench_arrow: Ray's rows differ from tfnano's")
            row("Ray Data read_tfrecords(...).materialize(), 2 CPUs", n, w_ray, float("nan"))
            # the tfnano recipe on the same Ray: one task per shard
            def read_shard(batch):
                files = batch.column("item").to_pylist()
                return pa.Table.from_batches(list(ta.TFRecordReader(files, feats)))
            ray.data.from_items(paths[:1]).map_batches(
                read_shard, batch_size=1, batch_format="pyarrow").materialize()
            w_rn, _, _ = best(lambda: ray.data.from_items(paths).map_batches(
                read_shard, batch_size=1, batch_format="pyarrow").materialize(), min(RUNS, 2))
            row("tfnano TFRecordReader in Ray map_batches, 2 CPUs", n, w_rn, float("nan"))
        finally:
            ray.shutdown()
        print("  -> tfnano in one process vs Ray end to end: %.1fx; on the same Ray: %.1fx; "
              "per record, tfnano vs Ray's parse in this process: %.0fx"
              % (w_ray / wf, w_ray / w_rn, ratio_one))
        print("summary: W1 x %d TFRecord files -> Arrow, tfnano vs Ray Data read_tfrecords "
              "(2 CPUs): %.1fx in one process, %.1fx on the same Ray (target >= 5x); "
              "per-record parse %.0fx (load %s)"
              % (n, w_ray / wf, w_ray / w_rn, ratio_one, load()))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1000 if QUICK else 10000)
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--skip-ray", action="store_true")
    args = ap.parse_args()
    records = tfnano.serialize_columns(w1_columns(args.n))
    feats = features()
    print("bench_arrow: tfnano %s, pyarrow %s, %d usable cores"
          % (tfnano.__version__, pa.__version__, len(os.sched_getaffinity(0))))
    bench_in_memory(records, feats)
    if not args.skip_ray:
        bench_files(records, feats, args.shards)


if __name__ == "__main__":
    main()

"""The Dask write of issue 17, with TensorFlow in the same processes (to_arrow's
benchmark, against Ray Data and TensorFlow, is test/bench/bench_arrow.py):

  a Dask write of W1 records (4 x int64[512] + float[30]) into 16 shards:
     tfnano.dask.to_tfrecord on a 2-worker LocalCluster (best of 2: the first run in
     fresh workers is cold) vs the same job with tf.train.Example +
     tf.io.TFRecordWriter in map_partitions (one run; target >= 10x), and vs tfnano in
     one process (scheduler="synchronous", in a child process of its own: the scaling
     ratio). Partitions are generated lazily in the workers (a pool of W1 rows, rows
     drawn from it per partition), so no process ever holds the whole frame; the time
     of a generate-only job on the same graph is shown beside each write. Peak RSS of
     every process is reported.

    make venv-bench-scale    # dask + distributed + pyarrow + tensorflow-cpu (bench only)
    build/venv-bench-scale/bin/python test/bench/bench_scale.py              # ~1 minute
    build/venv-bench-scale/bin/python test/bench/bench_scale.py --records 1000000

Without build/venv-bench-scale the interpreter running it must have dask, distributed,
pyarrow and TensorFlow; what is missing is skipped with the reason printed. Lines
starting with "summary:" are what test/bench/run.sh collects.
"""
import argparse
import glob
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
os.environ["PYTHONPATH"] = os.pathsep.join(  # the same tfnano in worker processes
    [str(ROOT / "bindings" / "python")] + [p for p in os.environ.get(
        "PYTHONPATH", "").split(os.pathsep) if p])
try:
    import pyarrow as pa
except ImportError:
    print("bench_scale: skipped (no pyarrow in %s: run make venv-bench-scale)" % sys.executable)
    sys.exit(0)

import tfnano  # noqa: E402

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def _tf():
    """TensorFlow, imported on first use (not by the child processes that do not
    need it), or None."""
    try:
        import tensorflow
    except ImportError:
        return None
    return tensorflow

MAXLEN = 512
INT_KEYS = ("q_input_ids", "q_attention_mask", "a_input_ids", "a_attention_mask")


def w1_columns(n, seed=1):
    """W1 "QUEST": 4 int64 features of 512 (ids + masks, pad id 1) + 30 float labels."""
    rng = np.random.default_rng(seed)
    cols = {}
    for side in ("q", "a"):
        lengths = np.clip(rng.lognormal(np.log(250), 0.6, n), 8, 512).astype(np.int64)
        ids = np.exp(rng.uniform(np.log(3), np.log(50265), (n, MAXLEN))).astype(np.int64)
        mask = (np.arange(MAXLEN)[None, :] < lengths[:, None]).astype(np.int64)
        ids[mask == 0] = 1
        cols[side + "_input_ids"] = ids
        cols[side + "_attention_mask"] = mask
    cols["labels"] = rng.random((n, 30), dtype=np.float32)
    return cols


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def cpu_seconds():
    """User + system CPU seconds of this process so far."""
    import resource
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def best_with_cpu(fn, repeat, client=None):
    """(wall, CPU) of the fastest of `repeat` runs; CPU is this process's plus, with a
    dask client, every worker's (the machine is shared: CPU seconds move less with the
    load than wall time)."""
    def cpu():
        return cpu_seconds() + (sum(client.run(cpu_seconds).values()) if client else 0.0)
    top = None
    for _ in range(repeat):
        c, t = cpu(), time.perf_counter()
        fn()
        t, c = time.perf_counter() - t, cpu() - c
        if top is None or t < top[0]:
            top = (t, c)
    return top


W1_POOL = 1024  # distinct rows a partition's rows are drawn from (made per task)


def w1_partition(part):
    """Partition `part` = (index, rows) of the lazily generated W1 frame: rows drawn
    (seeded by the index) from a pool of W1 rows, as Arrow fixed-size-list columns."""
    import pandas as pd
    index, rows = part
    pool = w1_columns(W1_POOL, seed=1)
    pick = np.random.default_rng(1000 + index).integers(0, W1_POOL, rows)
    return pd.DataFrame({k: pd.Series(pa.FixedSizeListArray.from_arrays(
        pa.array(v[pick].reshape(-1)), v.shape[1]), dtype=pd.ArrowDtype(
            pa.list_(pa.from_numpy_dtype(v.dtype), v.shape[1]))) for k, v in pool.items()})


def w1_frame(n, partitions):
    import dask.dataframe as dd
    sizes = [n // partitions + (i < n % partitions) for i in range(partitions)]
    return dd.from_map(w1_partition, list(enumerate(sizes)),
                       meta=w1_partition((0, 0)), enforce_metadata=False)


def generate_only(ddf):
    """The same graph with no write: what generating the rows costs."""
    return int(ddf.map_partitions(len, meta=(None, "int64")).sum().compute())


def peak_rss_mb():
    """This process's peak RSS (VmHWM: unlike getrusage's ru_maxrss, not inherited
    across exec from the process that started it)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def shard_sizes(out_dir):
    return [os.path.getsize(p) for p in sorted(glob.glob(os.path.join(out_dir, "*.tfrec")))]


def manifest_records(out_dir):
    import json
    with open(os.path.join(out_dir, "train-manifest.json")) as f:
        return json.load(f)["records"]


def tf_write_partition(df, out_dir, partition_info=None):
    """The same shard written the TensorFlow way: one tf.train.Example per row."""
    import pandas as pd
    import pyarrow as pa
    import tensorflow as tf
    path = os.path.join(out_dir, "train-%05d.tfrec" % partition_info["number"])
    cols = {k: pa.array(df[k]).flatten().to_numpy().reshape(len(df), -1) for k in df}
    with tf.io.TFRecordWriter(path) as w:
        for i in range(len(df)):
            feature = {k: tf.train.Feature(int64_list=tf.train.Int64List(value=cols[k][i]))
                       for k in INT_KEYS}
            feature["labels"] = tf.train.Feature(
                float_list=tf.train.FloatList(value=cols["labels"][i]))
            ex = tf.train.Example(features=tf.train.Features(feature=feature))
            w.write(ex.SerializeToString())
    return pd.DataFrame({"records": [len(df)]})


def one_process_job(n, shards, out_dir):
    """tfnano's write in this (child) process with dask's synchronous scheduler:
    (generate-only seconds, best write (wall, CPU) seconds of 2, shard sizes, peak RSS
    MB)."""
    import dask
    from tfnano.dask import to_tfrecord
    ddf = w1_frame(n, shards)
    with dask.config.set(scheduler="synchronous"):
        t_gen = best(lambda: generate_only(ddf), 2)
        t_write = best_with_cpu(
            lambda: to_tfrecord(ddf, os.path.join(out_dir, "train-*.tfrec")), 2)
    assert manifest_records(out_dir) == n
    return t_gen, t_write, shard_sizes(out_dir), peak_rss_mb()


def workers_peak_rss(client):
    return sorted(client.run(peak_rss_mb).values())


def bench_dask(n, shards, tf_n):
    try:
        import dask  # noqa: F401
        import dask.dataframe  # noqa: F401
        import distributed
        import pandas  # noqa: F401
    except ImportError as e:
        print("Dask write: skipped (%s: make venv-bench-scale)" % e)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from tfnano.dask import to_tfrecord
    tmp = tempfile.mkdtemp(prefix="bench_scale_")
    print("Dask write, W1 x %d records into %d shards (load %s)"
          % (n, shards, " ".join(open("/proc/loadavg").read().split()[:3])))
    try:
        # 1. tfnano, one process (a fresh child: its peak RSS is the job's own)
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as ex:
            g1, (t_one, c_one), sizes_one, rss_one = ex.submit(
                one_process_job, n, shards, os.path.join(tmp, "one")).result()
        shutil.rmtree(os.path.join(tmp, "one"))
        print("  tfnano, one process (synchronous): %.2f s (CPU %.2f s), %.0f records/s "
              "(generating alone: %.2f s); peak RSS %.0f MB"
              % (t_one, c_one, n / t_one, g1, rss_one))
        # 2. tfnano, 2-worker LocalCluster
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                           processes=True, dashboard_address=None)
        client = distributed.Client(cluster)
        try:
            # imports in the workers are not counted (tfnano's, pyarrow's, TF's)
            client.run(lambda: __import__("tfnano.dask") and __import__("pyarrow"))
            ddf = w1_frame(n, shards)
            g2 = best(lambda: generate_only(ddf), 2)
            out = os.path.join(tmp, "nano")
            t_nano, c_nano = best_with_cpu(
                lambda: to_tfrecord(ddf, os.path.join(out, "train-*.tfrec")), 2, client)
            sizes_nano = shard_sizes(out)
            assert manifest_records(out) == n
            assert sizes_nano == sizes_one, "1 process and 2 workers wrote different shards"
            rss_nano = workers_peak_rss(client)
            shutil.rmtree(out)
            print("  tfnano, 2-worker LocalCluster: %.2f s (CPU %.2f s, client and "
                  "workers), %.0f records/s (generating alone: %.2f s); workers' peak RSS "
                  "%s MB" % (t_nano, c_nano, n / t_nano, g2,
                            " / ".join("%.0f" % r for r in rss_nano)))
            print("  scaling, 2 workers vs one process: %.2fx (CPU %.2f s vs %.2f s)"
                  % (t_one / t_nano, c_nano, c_one))
            print("summary: Dask write W1 (%d records, %d shards), 2 workers vs one "
                  "process: %.2fx (%.0f vs %.0f records/s)"
                  % (n, shards, t_one / t_nano, n / t_nano, n / t_one))
            if _tf() is None:
                print("  TensorFlow not importable: no comparison (make venv-bench-scale)")
                return
            # 3. TensorFlow in the same job, in fresh workers (their own peak RSS)
            client.restart()
            client.run(lambda: __import__("tensorflow") and __import__("pyarrow"))
            ddf_tf = w1_frame(tf_n, shards)
            out = os.path.join(tmp, "tf")
            os.makedirs(out)
            t_tf, c_tf = best_with_cpu(lambda: ddf_tf.map_partitions(
                tf_write_partition, out, meta={"records": "int64"}).compute(), 1, client)
            rss_tf = workers_peak_rss(client)
            if tf_n == n:  # the same records were written
                assert shard_sizes(out) == sizes_nano, "TF and tfnano shards differ in size"
            shutil.rmtree(out)
            ratio = (n / t_nano) / (tf_n / t_tf)
            cpu_ratio = (c_tf / tf_n) / (c_nano / n)
            print("  same job with tf.train.Example in map_partitions%s: %.2f s (CPU %.2f "
                  "s), %.0f records/s; workers' peak RSS %s MB -> tfnano %.1fx (CPU per "
                  "record %.1fx)"
                  % ("" if tf_n == n else " (%d records)" % tf_n, t_tf, c_tf, tf_n / t_tf,
                     " / ".join("%.0f" % r for r in rss_tf), ratio, cpu_ratio))
            print("summary: Dask write W1 (%d records, %d shards, 2 workers) vs "
                  "tf.train.Example in map_partitions%s: %.1fx in records/s, %.1fx in CPU "
                  "per record (target >= 10x; load %s)"
                  % (n, shards, "" if tf_n == n else " (TF at %d records)" % tf_n, ratio,
                     cpu_ratio, " ".join(open("/proc/loadavg").read().split()[:3])))
        finally:
            client.close()
            cluster.close()
            print("  client process peak RSS %.0f MB" % peak_rss_mb())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=50000,
                    help="W1 records of the Dask write (1000000 for issue 17's run)")
    ap.add_argument("--tf-records", type=int, default=None,
                    help="records of the TensorFlow job (default: --records)")
    ap.add_argument("--shards", type=int, default=16)
    args = ap.parse_args()
    if os.environ.get("BENCH_QUICK"):
        args.records = 2000
    bench_dask(args.records, args.shards, args.tf_records or args.records)


if __name__ == "__main__":
    main()

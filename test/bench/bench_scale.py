"""Scale adapters' benchmarks (issue 17), with TensorFlow in the same process:

  1. to_arrow of W1 records vs tf.io.parse_example + pyarrow arrays (target >= 5x);
  2. a Dask write of W1 into shards on a 2-worker LocalCluster: tfnano.dask.to_tfrecord
     (best of 2: the first run in fresh workers is cold) vs the same job with
     tf.train.Example + tf.io.TFRecordWriter in map_partitions (one run; target >= 10x),
     and tfnano in one process (the scaling ratio).

    PYTHONPATH=bindings/python TF_CPP_MIN_LOG_LEVEL=2 build/venv-tf/bin/python \
        test/bench/bench_scale.py [--n 10000] [--dask-n 20000] [--repeat 3]

pyarrow / dask come from build/venv-scale (make venv-scale) when the interpreter has
none (same Python and numpy as build/venv-tf). Lines starting with "summary:" are
what test/bench/run.sh collects.
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
try:
    import pyarrow as pa
except ImportError:  # borrow the scale venv's packages, after this venv's own
    sys.path.extend(glob.glob(str(ROOT / "build" / "venv-scale" / "lib" / "python*"
                                  / "site-packages")))
    try:
        import pyarrow as pa
    except ImportError:
        print("bench_scale: skipped (no pyarrow: run make venv-scale)")
        sys.exit(0)

import tfnano  # noqa: E402
from tfnano import arrow as ta  # noqa: E402

try:
    import tensorflow as tf
except ImportError:
    tf = None

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


def bench_to_arrow(n, repeat):
    records = tfnano.serialize_columns(w1_columns(n))
    feats = {k: tfnano.io.FixedLenFeature([MAXLEN], tfnano.int64) for k in INT_KEYS}
    feats["labels"] = tfnano.io.FixedLenFeature([30], tfnano.float32)
    t_nano = best(lambda: ta.to_arrow(records, feats), repeat)
    print("to_arrow, W1 x %d: tfnano %.1f ms (%.0f records/s)"
          % (n, t_nano * 1e3, n / t_nano))
    if tf is None:
        print("  TensorFlow not importable: no comparison")
        return
    tf_feats = {k: tf.io.FixedLenFeature([MAXLEN], tf.int64) for k in INT_KEYS}
    tf_feats["labels"] = tf.io.FixedLenFeature([30], tf.float32)

    def with_tf():  # as users write it: parse_example, then Arrow arrays from numpy
        parsed = tf.io.parse_example(records, tf_feats)
        arrays = [pa.FixedSizeListArray.from_arrays(pa.array(v.numpy().reshape(-1)),
                                                    v.shape[1]) for v in parsed.values()]
        return pa.RecordBatch.from_arrays(arrays, names=list(parsed))

    assert with_tf().to_pydict()["labels"][:3] == \
        ta.to_arrow(records, feats).to_pydict()["labels"][:3]
    t_tf = best(with_tf, repeat)
    print("  TensorFlow parse_example + pa.array: %.1f ms -> tfnano %.1fx"
          % (t_tf * 1e3, t_tf / t_nano))
    print("summary: to_arrow W1 vs TF parse_example+pa.array: %.1fx (target >= 5x)"
          % (t_tf / t_nano))


def _tf_write_partition(df, out_dir, partition_info=None):
    """The same shard written the TensorFlow way: one tf.train.Example per row."""
    import pandas as pd
    import pyarrow as pa
    import tensorflow as tf
    path = os.path.join(out_dir, "part-%05d.tfrec" % partition_info["number"])
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


def bench_dask(n, shards):
    try:
        import dask
        import dask.dataframe as dd
        import distributed
        import pandas as pd
    except ImportError:
        print("dask: not importable (make venv-scale): skipped")
        return
    from tfnano.dask import to_tfrecord
    cols = w1_columns(n)
    frame = pd.DataFrame({k: pd.Series(pa.FixedSizeListArray.from_arrays(
        pa.array(v.reshape(-1)), v.shape[1]), dtype=pd.ArrowDtype(
            pa.list_(pa.from_numpy_dtype(v.dtype), v.shape[1]))) for k, v in cols.items()})
    ddf = dd.from_pandas(frame, npartitions=shards)
    tmp = tempfile.mkdtemp(prefix="bench_scale_")
    try:
        with dask.config.set(scheduler="synchronous"):
            ddf_local = dd.from_pandas(frame, npartitions=shards)
            t_one = best(lambda: to_tfrecord(ddf_local, os.path.join(
                tmp, "one", "train-*.tfrec")), 2)  # best of 2: the first run is cold
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                           processes=True, dashboard_address=None)
        with distributed.Client(cluster) as client:
            ddf = ddf.persist()
            distributed.wait(ddf)
            # imports in the workers are not counted (tfnano's, pyarrow's, TF's)
            client.run(lambda: __import__("tfnano.dask") and __import__("pyarrow"))
            if tf is not None:
                client.run(lambda: __import__("tensorflow"))
            t_nano = best(lambda: to_tfrecord(ddf, os.path.join(
                tmp, "nano", "train-*.tfrec")), 2)
            print("Dask write, W1 x %d into %d shards, 2-worker LocalCluster: tfnano %.2f s "
                  "(%.0f records/s); one process (synchronous) %.2f s -> scaling %.2fx"
                  % (n, shards, t_nano, n / t_nano, t_one, t_one / t_nano))
            if tf is None:
                print("  TensorFlow not importable in the workers: no comparison")
            else:
                os.makedirs(os.path.join(tmp, "tf"))
                t0 = time.perf_counter()
                ddf.map_partitions(_tf_write_partition, os.path.join(tmp, "tf"),
                                   meta={"records": "int64"}).compute()
                t_tf = time.perf_counter() - t0
                sizes = [sum(os.path.getsize(p) for p in glob.glob(os.path.join(tmp, d,
                                                                                "*.tfrec")))
                         for d in ("nano", "tf")]
                assert sizes[0] == sizes[1], sizes  # the same records were written
                print("  same job with tf.train.Example in map_partitions: %.2f s "
                      "-> tfnano %.1fx" % (t_tf, t_tf / t_nano))
                print("summary: Dask write W1 (%d records, %d shards, 2 workers) vs "
                      "tf.train.Example in map_partitions: %.1fx (target >= 10x)"
                      % (n, shards, t_tf / t_nano))
            print("summary: Dask write W1 scaling, 2 workers vs one process: %.2fx"
                  % (t_one / t_nano))
        cluster.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--dask-n", type=int, default=20000)
    ap.add_argument("--shards", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    if os.environ.get("BENCH_QUICK"):
        args.n, args.dask_n, args.repeat = 1000, 2000, 1
    bench_to_arrow(args.n, args.repeat)
    bench_dask(args.dask_n, args.shards)


if __name__ == "__main__":
    main()

"""W4 (shared/spec/performance.md): tf.data pipelines as notebooks write them, code
verbatim, TensorFlow 2.21 and tfnano in one process with TensorFlow's default
threading, at 1 and 2 cores (sched_setaffinity), with the peak RSS each case adds.

    python test/bench/bench_w4.py [--quick] [--json]

Run by bench_python.py in a child process (so that its op benchmarks may pin
TensorFlow's op threads without touching tf.data's here).
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import tfnano  # noqa: E402

MAXLEN = 512


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class PeakRSS:
    """Samples the resident set every 5 ms while the case runs."""

    def __enter__(self):
        self.base = self.peak = rss_bytes()
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()
        return self

    def _run(self):
        while not self._stop.wait(0.005):
            self.peak = max(self.peak, rss_bytes())

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join()
        self.peak = max(self.peak, rss_bytes())


# ---------------------------------------------------------------- the pipelines
# Written as the notebooks write them; `tf` is tensorflow or tfnano.

def quest_pipeline(tf, files):
    feature_description = {
        "q_input_ids": tf.io.FixedLenFeature([MAXLEN], tf.int64),
        "q_attention_mask": tf.io.FixedLenFeature([MAXLEN], tf.int64),
        "a_input_ids": tf.io.FixedLenFeature([MAXLEN], tf.int64),
        "a_attention_mask": tf.io.FixedLenFeature([MAXLEN], tf.int64),
        "labels": tf.io.FixedLenFeature([30], tf.float32),
    }

    def _parse_function(example_proto):
        example = tf.io.parse_single_example(example_proto, feature_description)
        q_ids = tf.cast(example["q_input_ids"], tf.int32)
        q_mask = tf.cast(example["q_attention_mask"], tf.int32)
        a_ids = tf.cast(example["a_input_ids"], tf.int32)
        a_mask = tf.cast(example["a_attention_mask"], tf.int32)
        return (q_ids, q_mask, a_ids, a_mask), example["labels"]

    opt = tf.data.Options()
    opt.experimental_deterministic = False
    dataset = tf.data.TFRecordDataset(files, num_parallel_reads=4).with_options(opt)
    dataset = dataset.map(_parse_function, num_parallel_calls=tf.data.AUTOTUNE)
    dataset = dataset.batch(256)
    dataset = dataset.prefetch(tf.data.AUTOTUNE)
    return dataset


def quest_fast_path(files):
    tf = tfnano
    features = {k: tf.io.FixedLenFeature([MAXLEN] if k != "labels" else [30],
                                         tf.int64 if k != "labels" else tf.float32)
                for k in ("q_input_ids", "q_attention_mask", "a_input_ids",
                          "a_attention_mask", "labels")}
    parser = tf.Parser(features, int32=True)
    return (tf.data.TFRecordDataset(files, num_parallel_reads=4).batch(256)
            .map(parser.parse, num_parallel_calls=tf.data.AUTOTUNE)
            .prefetch(tf.data.AUTOTUNE))


def image_pipeline(tf, files):
    def read_tfrecord(example):
        features = {
            "image": tf.io.FixedLenFeature([], tf.string),
            "height": tf.io.FixedLenFeature([], tf.int64),
            "width": tf.io.FixedLenFeature([], tf.int64),
            "depth": tf.io.FixedLenFeature([], tf.int64),
            "label": tf.io.FixedLenFeature([], tf.int64),
            "name": tf.io.FixedLenFeature([], tf.string),
        }
        example = tf.io.parse_single_example(example, features)
        return example["image"], example["label"]

    dataset = tf.data.TFRecordDataset(files)
    dataset = dataset.map(read_tfrecord)
    dataset = dataset.batch(64)
    return dataset


def image_fast_path(files):
    tf = tfnano
    parser = tf.Parser({"image": tf.io.FixedLenFeature([], tf.string),
                        "label": tf.io.FixedLenFeature([], tf.int64)})
    return tf.data.TFRecordDataset(files).batch(64).map(parser.parse).prefetch(2)


def batch_first_pipeline(tf, files):
    features = {k: tf.io.FixedLenFeature([MAXLEN] if k != "labels" else [30],
                                         tf.int64 if k != "labels" else tf.float32)
                for k in ("q_input_ids", "q_attention_mask", "a_input_ids",
                          "a_attention_mask", "labels")}
    return (tf.data.TFRecordDataset(files).batch(256)
            .map(lambda b: tf.io.parse_example(b, features))
            .prefetch(tf.data.AUTOTUNE))


# ---------------------------------------------------------------- data

def write_w1(folder, n):
    from bench_python import w1_columns
    cols = w1_columns(n)
    files = [os.path.join(folder, "w1-%d.tfrecord" % s) for s in range(4)]
    bounds = np.linspace(0, n, 5).astype(int)
    for s, f in enumerate(files):
        with tfnano.io.TFRecordWriter(f) as w:
            w.write_columns({k: v[bounds[s]:bounds[s + 1]] for k, v in cols.items()})
    return files


def write_w2(folder, n):
    """Image records: ~100 KiB of JPEG-like bytes + 4 int64 scalars + a name."""
    rng = np.random.default_rng(2)
    files = [os.path.join(folder, "w2-%d.tfrecord" % s) for s in range(2)]
    half = n // 2
    for s, f in enumerate(files):
        m = half if s == 0 else n - half
        images = np.empty(m, dtype=object)
        images[:] = [rng.bytes(int(rng.integers(90 << 10, 110 << 10))) for _ in range(m)]
        names = np.empty(m, dtype=object)
        names[:] = [b"img_%06d.jpg" % (s * half + i) for i in range(m)]
        with tfnano.io.TFRecordWriter(f) as w:
            w.write_columns({"image": images, "height": np.full(m, 512),
                             "width": np.full(m, 512), "depth": np.full(m, 3),
                             "label": np.arange(m) % 1000, "name": names})
    return files


# ---------------------------------------------------------------- measuring

def consume(ds):
    count = 0
    for el in ds:
        first = el[1] if isinstance(el, tuple) else next(iter(el.values()))
        count += len(first)
    return count


def measure(make, repeat):
    """(records/s of the fastest run, process CPU seconds per record in it, peak RSS
    added). CPU time counts every thread of the process (TensorFlow's pools too)."""
    best = None
    cpu = None
    peak = 0
    count = 0
    for _ in range(repeat):
        ds = make()
        with PeakRSS() as m:
            t, c = time.perf_counter(), time.process_time()
            count = consume(ds)
            dt, dc = time.perf_counter() - t, time.process_time() - c
        del ds
        peak = max(peak, m.peak - m.base)
        if best is None or dt < best:
            best, cpu = dt, dc
    return count / best, cpu / count, peak


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    n1, n2, repeat = (1024, 200, 1) if args.quick else (8192, 1200, args.repeat)
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf_real
    except ImportError:
        tf_real = None
    tmp = tempfile.mkdtemp(prefix="tfnano-w4-")
    rows = []
    try:
        w1 = write_w1(tmp, n1)
        w2 = write_w2(tmp, n2)
        cases = [
            ("QUEST as written", "TensorFlow", lambda: quest_pipeline(tf_real, w1)),
            ("QUEST as written", "tfnano", lambda: quest_pipeline(tfnano, w1)),
            ("QUEST as written", "tfnano fast path (batch + Parser int32)",
             lambda: quest_fast_path(w1)),
            ("image records as written", "TensorFlow", lambda: image_pipeline(tf_real, w2)),
            ("image records as written", "tfnano", lambda: image_pipeline(tfnano, w2)),
            ("image records as written", "tfnano fast path (batch + Parser)",
             lambda: image_fast_path(w2)),
            ("batch, then map(parse_example)", "TensorFlow",
             lambda: batch_first_pipeline(tf_real, w1)),
            ("batch, then map(parse_example)", "tfnano",
             lambda: batch_first_pipeline(tfnano, w1)),
        ]
        all_cores = sorted(os.sched_getaffinity(0))
        for cores in (1, 2):
            if cores > len(all_cores):
                continue
            os.sched_setaffinity(0, all_cores[:cores])
            for work, who, make in cases:
                if who == "TensorFlow" and tf_real is None:
                    continue
                make()  # traces / warms up
                rate, cpu, peak = measure(make, repeat)
                rows.append({"work": work, "who": who, "cores": cores,
                             "records_per_s": rate, "cpu_us_per_record": cpu * 1e6,
                             "peak_rss_mb": peak / 1e6})
                if not args.json:
                    print("  %-32s %-42s %d core(s) %10.0f records/s %7.1f us CPU/record"
                          "  +%6.1f MB RSS" % (work, who, cores, rate, cpu * 1e6,
                                               peak / 1e6), flush=True)
        os.sched_setaffinity(0, all_cores)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps({"tf": None if tf_real is None else tf_real.__version__,
                          "rows": rows}))
    return rows


def table(rows):
    """Markdown table: records/s per core count, ratio to TensorFlow, peak RSS."""
    lines = ["| pipeline | who | 1 core | 2 cores | vs TensorFlow (2 cores) | CPU per record "
             "(2 cores) | peak RSS added |",
             "|---|---|---|---|---|---|---|"]
    index = {(r["work"], r["who"], r["cores"]): r for r in rows}
    seen = []
    for r in rows:
        key = (r["work"], r["who"])
        if key not in seen:
            seen.append(key)
    for work, who in seen:
        one = index.get((work, who, 1))
        two = index.get((work, who, 2))
        ref = index.get((work, "TensorFlow", 2)) or index.get((work, "TensorFlow", 1))
        best = two or one
        ratio = "" if ref is None or who == "TensorFlow" else "%.1fx" % (
            best["records_per_s"] / ref["records_per_s"])
        lines.append("| %s | %s | %s | %s | %s | %.1f us | %.0f MB |" % (
            work, who, "%.0f/s" % one["records_per_s"] if one else "",
            "%.0f/s" % two["records_per_s"] if two else "", ratio,
            best.get("cpu_us_per_record", 0.0),
            max(x["peak_rss_mb"] for x in (one, two) if x)))
    return "\n".join(lines)


def summary(rows):
    targets = {"QUEST as written": 2, "image records as written": 2,
               "batch, then map(parse_example)": 3}
    out = []
    for work, target in targets.items():
        for cores in (2, 1):
            tfr = [r for r in rows if r["work"] == work and r["who"] == "TensorFlow" and
                   r["cores"] == cores]
            us = [r for r in rows if r["work"] == work and r["who"] == "tfnano" and
                  r["cores"] == cores]
            if tfr and us:
                ratio = us[0]["records_per_s"] / tfr[0]["records_per_s"]
                out.append("python W4 %-38s %6.1fx at %d core(s) (target >= %gx: %s)" % (
                    work + " vs TF", ratio, cores, target, "met" if ratio >= target else
                    "NOT met"))
    return out


if __name__ == "__main__":
    main()

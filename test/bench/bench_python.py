"""Python-API benchmarks (shared/spec/performance.md W1, W3), in the same run as
TensorFlow itself (when importable: PyPI tensorflow-cpu, test-only) and as the
protobuf `example_pb2` + numpy way of TensorFlow-free loaders.

    python test/bench/bench_python.py [--n 4096] [--repeat 3] [--docs]

Best of `--repeat` runs per case; ratios are what to read on a shared machine.
`--docs` also writes docs/python-bench.md (table) and docs/python-bench.svg (plot).
"""
import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))

import tfnano  # noqa: E402

MAXLEN = 512
BATCH = 256


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


def w3_sequences(n, seed=3):
    rng = np.random.default_rng(seed)
    lengths = np.clip(rng.lognormal(np.log(120), 0.9, n), 1, 2000).astype(np.int64)
    return [rng.integers(0, 50000, k, dtype=np.int32) for k in lengths]


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def import_time(module, repeat=3):
    code = "import time; t=time.perf_counter(); import %s; print(time.perf_counter()-t)" % module
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3",
               PYTHONPATH=str(ROOT / "bindings" / "python"))
    out = []
    for _ in range(repeat):
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=env)
        if r.returncode != 0:
            return None
        out.append(float(r.stdout.strip().splitlines()[-1]))
    return min(out)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=4096, help="W1 examples")
    ap.add_argument("--w3", type=int, default=100000, help="W3 sequences")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--docs", action="store_true")
    args = ap.parse_args(argv)

    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tfr
        tfr.config.threading.set_intra_op_parallelism_threads(1)
        tfr.config.threading.set_inter_op_parallelism_threads(1)
        from tensorflow.core.example import example_pb2
    except ImportError:
        tfr = None
        try:
            sys.path.insert(0, str(ROOT / "test" / "python"))
            from test_api_support import example_pb2 as _mk
            example_pb2 = _mk()
        except ImportError:
            example_pb2 = None

    tf = tfnano
    n = args.n
    cols = w1_columns(n)
    records = tf.serialize_columns(cols)
    nbatches = n // BATCH
    batches = [records[i * BATCH:(i + 1) * BATCH] for i in range(nbatches)]
    mb = sum(map(len, records)) / 1e6
    feats = {k: tf.io.FixedLenFeature([MAXLEN] if k != "labels" else [30],
                                      tf.int64 if k != "labels" else tf.float32)
             for k in cols}
    rows = []  # (workload, case, seconds, items, baseline key)

    def add(work, case, secs, items):
        rows.append((work, case, secs, items))
        print("  %-10s %-58s %9.2f ms  %10.1f us/item" % (work, case, secs * 1e3,
                                                          secs / items * 1e6), flush=True)

    print("tfnano %s, numpy %s, Python %s, %s; W1 n=%d (%.1f MB), W3 n=%d"
          % (tf.__version__, np.__version__, platform.python_version(), platform.machine(),
             n, mb, args.w3))
    if tfr is not None:
        print("TensorFlow %s (1 intra-op, 1 inter-op thread for the op benchmarks)"
              % tfr.__version__)

    # ---- W1 parse, batches of 256
    parser = tf.Parser(feats, int32=True)
    add("W1 parse", "tfnano Parser, int32 out (1 thread)",
        best(lambda: [parser.parse(b) for b in batches], args.repeat), nbatches * BATCH)
    add("W1 parse", "tfnano tf.io.parse_example (int64 out)",
        best(lambda: [tf.io.parse_example(b, feats) for b in batches], args.repeat),
        nbatches * BATCH)
    if tfr is not None:
        tfeats = {k: tfr.io.FixedLenFeature(v.shape, tfr.int64 if v.dtype == tf.int64
                                            else tfr.float32) for k, v in feats.items()}
        tb = [tfr.constant(b) for b in batches]
        add("W1 parse", "TensorFlow tf.io.parse_example + cast int32",
            best(lambda: [{k: tfr.cast(v, tfr.int32) if v.dtype == tfr.int64 else v
                           for k, v in tfr.io.parse_example(b, tfeats).items()} for b in tb],
                 args.repeat), nbatches * BATCH)
    if example_pb2 is not None:
        few = records[:512]

        def pb_parse():
            out = {k: [] for k in cols}
            for r in few:
                ex = example_pb2.Example.FromString(r)
                f = ex.features.feature
                for k in cols:
                    if k == "labels":
                        out[k].append(np.array(f[k].float_list.value, dtype=np.float32))
                    else:
                        out[k].append(np.array(f[k].int64_list.value, dtype=np.int32))
            return {k: np.stack(v) for k, v in out.items()}
        add("W1 parse", "protobuf example_pb2.FromString + numpy (512 records)",
            best(pb_parse, args.repeat), len(few))

    # ---- W1 serialize
    add("W1 write", "tfnano serialize_columns from numpy",
        best(lambda: tf.serialize_columns(cols), args.repeat), n)
    few = 512

    def tfn_messages():
        for i in range(few):
            tf.train.Example(features=tf.train.Features(feature={
                k: (tf.train.Feature(float_list=tf.train.FloatList(value=v[i]))
                    if k == "labels" else
                    tf.train.Feature(int64_list=tf.train.Int64List(value=v[i])))
                for k, v in cols.items()})).SerializeToString()
    add("W1 write", "tfnano tf.train.Example per record, numpy values (512)",
        best(tfn_messages, args.repeat), few)
    if tfr is not None:
        def tf_messages():
            for i in range(few):
                tfr.train.Example(features=tfr.train.Features(feature={
                    k: (tfr.train.Feature(float_list=tfr.train.FloatList(value=v[i]))
                        if k == "labels" else
                        tfr.train.Feature(int64_list=tfr.train.Int64List(value=v[i])))
                    for k, v in cols.items()})).SerializeToString()
        add("W1 write", "TensorFlow tf.train.Example per record, numpy values (512)",
            best(tf_messages, args.repeat), few)

    # ---- pipeline: read -> parse -> batch
    tmp = tempfile.mkdtemp(prefix="tfnano-bench-")
    files = [os.path.join(tmp, "w1-%d.tfrecord" % s) for s in range(4)]
    bounds = np.linspace(0, n, 5).astype(int)
    for s, f in enumerate(files):
        with tf.io.TFRecordWriter(f) as w:
            w.write_columns({k: v[bounds[s]:bounds[s + 1]] for k, v in cols.items()})

    def tfn_pipeline():
        ds = (tf.data.TFRecordDataset(files).batch(BATCH)
              .map(lambda b: tf.io.parse_example(b, feats)).prefetch(2))
        for _ in ds:
            pass

    def tfn_fast_pipeline():
        for b in tf.data.TFRecordDataset(files).batch(BATCH).prefetch(2):
            parser.parse(b)
    add("pipeline", "tfnano TFRecordDataset.batch.map(parse_example)",
        best(tfn_pipeline, args.repeat), n)
    add("pipeline", "tfnano TFRecordDataset.batch + Parser int32",
        best(tfn_fast_pipeline, args.repeat), n)
    if tfr is not None:
        def tf_pipeline():
            ds = (tfr.data.TFRecordDataset(files).batch(BATCH)
                  .map(lambda b: tfr.io.parse_example(b, tfeats)).prefetch(2))
            for _ in ds:
                pass
        add("pipeline", "TensorFlow TFRecordDataset.batch.map(parse_example)",
            best(tf_pipeline, args.repeat), n)

    # ---- W3 pad
    seqs = w3_sequences(args.w3)
    add("W3 pad", "tfnano pad_sequences (keras API), int32 arrays",
        best(lambda: tf.keras.utils.pad_sequences(seqs, maxlen=MAXLEN), args.repeat), len(seqs))
    add("W3 pad", "tfnano.pad post/post with mask",
        best(lambda: tf.pad(seqs, maxlen=MAXLEN), args.repeat), len(seqs))
    if tfr is not None:
        kpad = tfr.keras.utils.pad_sequences
        add("W3 pad", "keras pad_sequences, int32 arrays",
            best(lambda: kpad(seqs, maxlen=MAXLEN), args.repeat), len(seqs))

    # ---- import time
    t_ours = import_time("tfnano")
    if t_ours is not None:
        add("import", "import tfnano", t_ours, 1)
    if tfr is not None:
        t_tf = import_time("tensorflow", 1)
        if t_tf is not None:
            add("import", "import tensorflow", t_tf, 1)

    table = ratios(rows)
    print()
    print(table)
    if args.docs:
        (ROOT / "docs" / "python-bench.md").write_text(
            "# Python API benchmarks\n\nMeasured by `test/bench/bench_python.py` on a shared "
            "2-core VM (noisy: compare ratios within one run).\n\n" + table + "\n")
        (ROOT / "docs" / "python-bench.svg").write_text(svg(rows))
    return rows


def _get(rows, case_start):
    for r in rows:
        if r[1].startswith(case_start):
            return r[2] / r[3]
    return None


def ratios(rows):
    lines = ["| workload | case | per item | speed-up |", "|---|---|---|---|"]
    base = {"W1 parse": "TensorFlow tf.io.parse_example", "W1 write": "TensorFlow tf.train",
            "pipeline": "TensorFlow TFRecordDataset", "W3 pad": "keras pad_sequences",
            "import": "import tensorflow"}
    for work, case, secs, items in rows:
        per = secs / items
        ref = _get(rows, base.get(work, "?"))
        sp = "" if ref is None else "%.1fx vs TF" % (ref / per)
        if work == "W1 parse" and not case.startswith("protobuf"):
            pb = _get(rows, "protobuf example_pb2")
            if pb is not None:
                sp += ", %.0fx vs example_pb2+numpy" % (pb / per)
        if work == "W1 write" and case.startswith("tfnano serialize_columns"):
            ref2 = _get(rows, "TensorFlow tf.train")
            sp = "" if ref2 is None else "%.0fx vs TF's tf.train.Example" % (ref2 / per)
        unit = "%.1f us" % (per * 1e6) if per < 1 else "%.0f ms" % (per * 1e3)
        lines.append("| %s | %s | %s | %s |" % (work, case, unit, sp))
    return "\n".join(lines)


def svg(rows):
    """A horizontal bar chart of per-item time (log scale) grouped by workload."""
    import math
    h = 22
    width = 900
    left = 430
    items = [(w, c, s / i) for w, c, s, i in rows]
    lo = min(math.log10(p) for _, _, p in items) - 0.2
    hi = max(math.log10(p) for _, _, p in items) + 0.2
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (width, h * len(items) + 40),
           '<text x="10" y="16" font-weight="bold">time per item, log scale '
           '(shorter is faster)</text>']
    for k, (w, c, p) in enumerate(items):
        y = 30 + k * h
        x = (math.log10(p) - lo) / (hi - lo) * (width - left - 80)
        color = "#2a7" if c.startswith("tfnano") or c == "import tfnano" else "#c63"
        out.append('<text x="10" y="%d">%s: %s</text>' % (y + 14, w, c.replace("&", "and")))
        out.append('<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>'
                   % (left, y + 3, max(x, 1), h - 6, color))
        label = "%.1f us" % (p * 1e6) if p < 1e-3 else "%.1f ms" % (p * 1e3)
        out.append('<text x="%.1f" y="%d">%s</text>' % (left + max(x, 1) + 4, y + 14, label))
    out.append("</svg>")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()

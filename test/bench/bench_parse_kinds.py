"""VarLen / Ragged Example parsing and SequenceExample parsing: tfnano against
TensorFlow in the same process (TensorFlow's default threading), code as users write
it. Needs TensorFlow (build/venv-tf):

    PYTHONPATH=bindings/python TF_CPP_MIN_LOG_LEVEL=2 build/venv-tf/bin/python \
        test/bench/bench_parse_kinds.py [--batch 256] [--repeat 5]

Cases (batches of --batch records, best of --repeat, microseconds per record of wall
clock and of process CPU time; TensorFlow parses a batch on its intra-op threads,
tfnano fills big batches on two threads, so on a shared machine the CPU figures are
the steadier ones; the load average is printed first):
  - W1 stored unpadded: q_input_ids / a_input_ids as ragged token lists (log-normal
    lengths around 250, up to 512) and 30 float labels; parsed with VarLenFeature
    (-> SparseTensor) and with RaggedFeature (-> RaggedTensor), labels FixedLen [30];
  - a SequenceExample of 50 steps x 3 features (int64 token, 4 float scores, bytes
    tag per step) and an int64 context feature, parsed with FixedLenSequenceFeature
    sequence features; and the same lists as RaggedFeature.
Each case first checks that both give the same values.
"""
import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # noqa: E402  (the comparison; test-only)
import tfnano as tn  # noqa: E402

MAXLEN = 512


def w1_unpadded(n, seed=1):
    rng = np.random.default_rng(seed)
    cols = {}
    for side in ("q", "a"):
        lengths = np.clip(rng.lognormal(np.log(250), 0.6, n), 8, MAXLEN).astype(np.int64)
        cols[side + "_input_ids"] = [np.exp(rng.uniform(np.log(3), np.log(50265), k)).astype(
            np.int64) for k in lengths]
    cols["labels"] = rng.random((n, 30), dtype=np.float32)
    return tn.serialize_columns(cols)


def sequence_records(n, steps=50, seed=2, tags=False):
    """Per step: an int64 token, 4 float scores and an int64 label (or, with tags=True,
    a bytes tag instead of the label)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        s = tf.train.SequenceExample()
        s.context.feature["length"].int64_list.value.append(steps)
        tok = s.feature_lists.feature_list["tokens"]
        sc = s.feature_lists.feature_list["scores"]
        third = s.feature_lists.feature_list["tags" if tags else "labels"]
        for t in range(steps):
            tok.feature.add().int64_list.value.append(int(rng.integers(0, 50000)))
            sc.feature.add().float_list.value.extend(rng.random(4).tolist())
            if tags:
                third.feature.add().bytes_list.value.append(b"tag%d" % rng.integers(0, 20))
            else:
                third.feature.add().int64_list.value.append(int(rng.integers(0, 10)))
        out.append(s.SerializeToString())
    return out


def timed(fn):
    """(wall, process CPU) seconds of one call."""
    t, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t, time.process_time() - c


def flat(x):
    if hasattr(x, "flat_values"):
        parts = [np.asarray(s) for s in x.nested_row_splits]
        return [np.asarray(x.flat_values)] + parts
    if hasattr(x, "indices"):
        return [np.asarray(x.indices), np.asarray(x.values), np.asarray(x.dense_shape)]
    return [np.asarray(x)]


def same(a, b):
    for k in a:
        for x, y in zip(flat(a[k]), flat(b[k])):
            if x.dtype == object or y.dtype == object:
                assert x.tolist() == y.tolist(), k
            else:
                assert np.array_equal(x, y), k


def run_case(name, records, batch, repeat, tf_fn, tn_fn, check):
    batches = [records[i:i + batch] for i in range(0, len(records), batch)]
    tf_batches = [tf.constant(b) for b in batches]
    check(tf_fn(tf_batches[0]), tn_fn(batches[0]))
    # alternate the two so that load on a shared machine hits both alike
    w_tf = w_tn = c_tf = c_tn = float("inf")
    for _ in range(repeat):
        w, c = timed(lambda: [tf_fn(b) for b in tf_batches])
        w_tf, c_tf = min(w_tf, w), min(c_tf, c)
        w, c = timed(lambda: [tn_fn(b) for b in batches])
        w_tn, c_tn = min(w_tn, w), min(c_tn, c)
    us = 1e6 / len(records)
    print("%-46s %7.2f %7.2f %6.1fx  %7.2f %7.2f %6.1fx"
          % (name, w_tf * us, w_tn * us, w_tf / w_tn, c_tf * us, c_tn * us, c_tf / c_tn))
    return w_tf / w_tn, c_tf / c_tn


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2048)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print("TensorFlow %s, tfnano %s; %d records, batches of %d, best of %d; load average "
          "%.2f" % (tf.__version__, tn.__version__, args.n, args.batch, args.repeat,
                    os.getloadavg()[0]))
    print("%-46s %23s  %23s" % ("", "wall clock", "process CPU"))
    print("%-46s %7s %7s %7s  %7s %7s %7s" % ("case (us per record)", "tf", "tfnano",
                                                "ratio", "tf", "tfnano", "ratio"))
    w1 = w1_unpadded(args.n)
    for kind in ("VarLen", "Ragged"):
        def feats(m, kind=kind):
            make = (lambda: m.io.VarLenFeature(m.int64)) if kind == "VarLen" else \
                (lambda: m.io.RaggedFeature(m.int64))
            return {"q_input_ids": make(), "a_input_ids": make(),
                    "labels": m.io.FixedLenFeature([30], m.float32)}
        ftf, ftn = feats(tf), feats(tn)
        run_case("W1 unpadded, %s, parse_example" % kind, w1, args.batch, args.repeat,
                 lambda b: tf.io.parse_example(b, ftf), lambda b: tn.io.parse_example(b, ftn),
                 same)
    ctx = {"length": tf.io.FixedLenFeature([], tf.int64)}
    ctx_n = {"length": tn.io.FixedLenFeature([], tn.int64)}
    for tags in (False, True):
        seq = sequence_records(args.n, tags=tags)
        third = "tags" if tags else "labels"
        for kind in ("FixedLenSequence", "Ragged"):
            def sfeats(m, kind=kind, third=third, tags=tags):
                dt3 = m.string if tags else m.int64
                if kind == "Ragged":
                    return {"tokens": m.io.RaggedFeature(m.int64),
                            "scores": m.io.RaggedFeature(m.float32),
                            third: m.io.RaggedFeature(dt3)}
                return {"tokens": m.io.FixedLenSequenceFeature([], m.int64),
                        "scores": m.io.FixedLenSequenceFeature([4], m.float32),
                        third: m.io.FixedLenSequenceFeature([], dt3)}
            stf, stn = sfeats(tf), sfeats(tn)

            def check(a, b):
                same(a[0], b[0])
                same(a[1], b[1])
            run_case("SequenceExample 50x3%s, %s" % (" (bytes tag)" if tags else "", kind),
                     seq, args.batch, args.repeat,
                     lambda b: tf.io.parse_sequence_example(b, ctx, stf),
                     lambda b: tn.io.parse_sequence_example(b, ctx_n, stn), check)


if __name__ == "__main__":
    main()

"""Writing SequenceExamples from numpy: tfnano.serialize_sequence_columns (one C call,
tfn_encode_sequences) against building tf.train.SequenceExample messages with
TensorFlow's protobuf classes and SerializeToString(), as users write it, in the same
process. Needs TensorFlow (build/venv-tf):

    PYTHONPATH=bindings/python TF_CPP_MIN_LOG_LEVEL=2 build/venv-tf/bin/python \
        test/bench/bench_sequence_encode.py [--n 1000] [--repeat 5]

Data: n examples of 50 steps x 3 feature lists (an int64 token id, 3 float32 scores,
an int64 mask per step) plus 2 int64 context features. Both sides must produce the
same bytes (checked first). Prints microseconds per example, best of --repeat.
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


def columns(n, seed=3):
    rng = np.random.default_rng(seed)
    ctx = {"id": np.arange(n, dtype=np.int64), "label": rng.integers(0, 5, n)}
    lists = {"tok": rng.integers(0, 30000, (n, 50)),
             "scores": rng.random((n, 50, 3), dtype=np.float32),
             "mask": rng.integers(0, 2, (n, 50))}
    return ctx, lists


def with_tensorflow(ctx, lists):
    out = []
    for i in range(len(ctx["id"])):
        s = tf.train.SequenceExample()
        s.context.feature["id"].int64_list.value.append(int(ctx["id"][i]))
        s.context.feature["label"].int64_list.value.append(int(ctx["label"][i]))
        fls = s.feature_lists.feature_list
        for t in range(50):
            fls["tok"].feature.add().int64_list.value.append(int(lists["tok"][i, t]))
            fls["scores"].feature.add().float_list.value.extend(lists["scores"][i, t].tolist())
            fls["mask"].feature.add().int64_list.value.append(int(lists["mask"][i, t]))
        out.append(s.SerializeToString(deterministic=True))
    return out


def with_tfnano(ctx, lists):
    return tn.serialize_sequence_columns(ctx, lists)


def best(fn, args, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    ctx, lists = columns(a.n)
    assert with_tfnano(ctx, lists) == with_tensorflow(ctx, lists), "bytes differ"
    t_tf = best(with_tensorflow, (ctx, lists), a.repeat) / a.n * 1e6
    t_tn = best(with_tfnano, (ctx, lists), a.repeat) / a.n * 1e6
    print("SequenceExample 50 steps x 3 lists + 2 context, %d examples (us/example, best of %d)"
          % (a.n, a.repeat))
    print("  TensorFlow messages + SerializeToString  %8.1f" % t_tf)
    print("  tfnano.serialize_sequence_columns        %8.1f   %.0fx" % (t_tn, t_tf / t_tn))


if __name__ == "__main__":
    main()

"""Tensor ops in a tf.data map function: TensorFlow against tfnano in one process,
code as users write it (the same lambda for both). tfnano traces the map and runs it
once per batch (vectorized); TensorFlow runs its graph per element.

    PYTHONPATH=bindings/python build/venv-tf/bin/python test/bench/bench_ops_map.py
"""
import time

import numpy as np
import tensorflow as tf

import tfnano as tn

DATA = np.arange(100000, dtype=np.int64).reshape(-1, 4)
STRINGS = np.array([b"1 2 3 4", b"5 6 7 8"] * 5000, dtype=object)


def numeric(m):
    ds = m.data.Dataset.from_tensor_slices(DATA)
    return ds.map(lambda x: m.reduce_sum(m.reshape(m.cast(x, m.float32) * 2.0 + 1.0, [2, 2]),
                                         axis=1)).batch(256)


def strings(m):
    ds = m.data.Dataset.from_tensor_slices(STRINGS)
    return ds.map(lambda s: m.strings.to_number(m.strings.split(s), m.int32)).batch(64)


def best_of(pipeline, runs=3):
    best, n = 1e9, 0
    for _ in range(runs):
        t = time.perf_counter()
        n = sum(int(b.shape[0]) for b in pipeline)
        best = min(best, time.perf_counter() - t)
    return n, best


for label, build in (("cast*2+1 -> reshape -> reduce_sum, batch 256", numeric),
                     ("strings.split -> to_number, batch 64", strings)):
    n, t_tf = best_of(build(tf))
    _, t_tn = best_of(build(tn))
    print("%-46s %6d records  TensorFlow %7.2f us/rec  tfnano %7.2f us/rec  (%.1fx)"
          % (label, n, t_tf / n * 1e6, t_tn / n * 1e6, t_tf / t_tn))

"""Tensor ops in a tf.data map function: TensorFlow against tfnano in one process,
code as users write it (the same lambda for both). tfnano traces the map and runs it
once per batch (vectorized); TensorFlow runs its graph per element.

The strings section (--strings, or everything by default) times string tensors handed
to C: to_hash_bucket_fast, StaticVocabularyTable / StaticHashTable lookups of 200,000
keys, lower / split of a tensor of lines (also beside TensorFlow's op + .numpy(), which
makes the Python bytes tfnano's results hold), and TextLineDataset -> map(lower -> split ->
lookup) -> padded_batch / ragged_batch (and a BERT-style map: split, truncate, [CLS] +
tokens + [SEP], lookup, size). Each case runs TensorFlow and tfnano in
alternating rounds and keeps each one's best round, as process CPU time (all threads)
and wall clock; the load average is printed before and after (the machine is shared).

    PYTHONPATH=bindings/python build/venv-tf/bin/python test/bench/bench_ops_map.py
    ... bench_ops_map.py --strings     # the strings section alone
"""
import os
import sys
import tempfile
import time

import numpy as np

try:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
except ImportError:
    print("bench_ops_map.py: tensorflow missing (the peer of every row); skipped")
    sys.exit(0)

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


def map_section():
    for label, build in (("cast*2+1 -> reshape -> reduce_sum, batch 256", numeric),
                         ("strings.split -> to_number, batch 64", strings)):
        n, t_tf = best_of(build(tf))
        _, t_tn = best_of(build(tn))
        print("%-46s %6d records  TensorFlow %7.2f us/rec  tfnano %7.2f us/rec  (%.1fx)"
              % (label, n, t_tf / n * 1e6, t_tn / n * 1e6, t_tf / t_tn))


# ---------------------------------------------------------------- strings

def _timed(fn):
    c, w = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - c, time.perf_counter() - w


def alternate(cases, rounds=7):
    """{name: fn}: rounds of each in turn; the best CPU and the best wall of each. Each
    round starts after a pause, so that TensorFlow's pool threads, which spin a while
    after an op, are idle again (the CPU time is the whole process's)."""
    best = {k: [1e9, 1e9] for k in cases}
    for _ in range(rounds):
        for k, fn in cases.items():
            time.sleep(0.05)
            cpu, wall = _timed(fn)
            best[k][0] = min(best[k][0], cpu)
            best[k][1] = min(best[k][1], wall)
    return best


def report(label, best, unit, count):
    (c_tf, w_tf), (c_tn, w_tn) = best["tf"], best["tn"]
    scale = 1e3 if unit == "ms" else 1e6 / count
    print("%-52s TF %8.2f / %8.2f  tfnano %8.2f / %8.2f %s  CPU %5.1fx  wall %5.1fx"
          % (label, c_tf * scale, w_tf * scale, c_tn * scale, w_tn * scale,
             unit + " (CPU / wall)", c_tf / max(c_tn, 1e-9), w_tf / max(w_tn, 1e-9)))
    return c_tf / max(c_tn, 1e-9), w_tf / max(w_tn, 1e-9)


def summary(label, ratios):
    print("summary: strings at scale, %s: tfnano / TensorFlow = %.2fx CPU, %.2fx wall "
          "(target >= 1x)" % (label, ratios[0], ratios[1]))


def _load():
    return "load average %.2f %.2f %.2f" % os.getloadavg()


def strings_section(n=200000, vocab_size=30000, lines=20000):
    rng = np.random.default_rng(0)
    words = np.array([b"w%d" % i for i in range(int(vocab_size * 1.3))], dtype=object)
    keys = words[rng.integers(0, len(words), n)]
    ints = rng.integers(0, int(vocab_size * 1.3), n).astype(np.int64)
    vocab = words[:vocab_size]
    t_keys, n_keys = tf.constant(keys), tn.constant(keys)
    t_ints, n_ints = tf.constant(ints), tn.constant(ints)

    def tables(m, oov=100):
        init = m.lookup.KeyValueTensorInitializer(m.constant(vocab),
                                                  m.constant(np.arange(vocab_size), m.int64))
        iinit = m.lookup.KeyValueTensorInitializer(
            m.constant(np.arange(vocab_size, dtype=np.int64)),
            m.constant(np.arange(vocab_size, dtype=np.int64) * 2))
        return (m.lookup.StaticVocabularyTable(init, oov), m.lookup.StaticHashTable(init, -1),
                m.lookup.StaticHashTable(iinit, -1))
    (tv, th, ti), (nv, nh, ni) = tables(tf), tables(tn)
    # allocation order: each string object made after the previous one, as a list
    # comprehension or a file read makes them (keys above point at them shuffled)
    fresh = np.array([b"k%d" % i for i in range(n)], dtype=object)
    t_fresh, n_fresh = tf.constant(fresh), tn.constant(fresh)
    label = "to_hash_bucket_fast of %d strings, allocation order" % n
    summary(label, report(label, alternate(
        {"tf": lambda: tf.strings.to_hash_bucket_fast(t_fresh, 1000),
         "tn": lambda: tn.strings.to_hash_bucket_fast(n_fresh, 1000)}), "ms", n))
    assert np.array_equal(tv.lookup(t_keys).numpy(), np.asarray(nv.lookup(n_keys)))
    assert np.array_equal(ti.lookup(t_ints).numpy(), np.asarray(ni.lookup(n_ints)))
    print("strings: %d keys, vocabulary %d (%s)" % (n, vocab_size, _load()))
    for label, a, b in (
            ("to_hash_bucket_fast of %d strings, shuffled order" % n,
             lambda: tf.strings.to_hash_bucket_fast(t_keys, 1000),
             lambda: tn.strings.to_hash_bucket_fast(n_keys, 1000)),
            ("StaticVocabularyTable.lookup of %d strings" % n,
             lambda: tv.lookup(t_keys), lambda: nv.lookup(n_keys)),
            ("StaticHashTable.lookup of %d strings" % n,
             lambda: th.lookup(t_keys), lambda: nh.lookup(n_keys)),
            ("StaticHashTable.lookup of %d int64 keys" % n,
             lambda: ti.lookup(t_ints), lambda: ni.lookup(n_ints))):
        r = report(label, alternate({"tf": a, "tn": b}), "ms", n)
        if label.startswith("to_hash"):
            summary(label, r)

    text = [b" ".join(words[rng.integers(0, len(words), rng.integers(1, 30))].tolist()).title()
            for _ in range(lines)]
    t_lines, n_lines = tf.constant(text), tn.constant(np.array(text, dtype=object))
    for label, a, b in (
            ("strings.lower of %d lines" % lines,
             lambda: tf.strings.lower(t_lines), lambda: tn.strings.lower(n_lines)),
            ("strings.split of %d lines" % lines,
             lambda: tf.strings.split(t_lines), lambda: tn.strings.split(n_lines)),
            # like with like: tfnano's results are numpy arrays of Python bytes, which
            # TensorFlow makes only in .numpy()
            ("strings.lower of %d lines, TF + .numpy()" % lines,
             lambda: tf.strings.lower(t_lines).numpy(), lambda: tn.strings.lower(n_lines)),
            ("strings.split of %d lines, TF + .values.numpy()" % lines,
             lambda: tf.strings.split(t_lines).values.numpy(),
             lambda: tn.strings.split(n_lines))):
        summary(label, report(label, alternate({"tf": a, "tn": b}), "ms", lines))

    path = os.path.join(tempfile.mkdtemp(), "lines.txt")
    with open(path, "wb") as f:
        f.write(b"\n".join(text) + b"\n")

    def pipeline(m, table, kind):
        ds = m.data.TextLineDataset(path).map(
            lambda line: table.lookup(m.strings.split(m.strings.lower(line))))
        return ds.padded_batch(64) if kind == "padded" else ds.ragged_batch(64)
    def bert_style(m, table, kind):
        # truncate to 30 tokens, wrap in [CLS] ... [SEP], ids, the real length
        ds = m.data.TextLineDataset(path).map(
            lambda line: m.concat([["[CLS]"], m.strings.split(m.strings.lower(line))[:30],
                                   ["[SEP]"]], 0)).map(
            lambda t: (table.lookup(t), m.size(t)))
        return ds.padded_batch(64)
    for kind in ("padded", "ragged", "bert"):
        make = bert_style if kind == "bert" else pipeline
        t_ds, n_ds = make(tf, tv, kind), make(tn, nv, kind)
        if kind != "ragged":
            assert "(vectorized)" in n_ds.plan_text()
        report(("TextLineDataset -> lower, split, [:30], [CLS] + ... + [SEP], lookup, size "
                "-> padded_batch(64)") if kind == "bert" else
               "TextLineDataset -> lower, split, lookup -> %s_batch(64)" % kind,
               alternate({"tf": lambda: sum(1 for _ in t_ds),
                          "tn": lambda: sum(1 for _ in n_ds)}, rounds=3),
               "us/line", lines)
    print("strings: done (%s)" % _load())


if __name__ == "__main__":
    if "--strings" not in sys.argv:
        map_section()
    strings_section()

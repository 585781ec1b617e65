"""W5 (the seeds' pipelines, character for character) and the tutorial shapes, with
TensorFlow 2.21 and tfnano in one process, default threading. The seed code below is
kept verbatim as text and run with `tf` bound to tensorflow or to tfnano; only the
names it takes from its notebook (max_q_len, config, IMAGE_SIZE, decode_image) are
defined around it. Where the order is deterministic the two results are asserted
equal; where it is not (an unseeded shuffle), the same multiset of records.

    python test/bench/bench_w5.py [--quick] [--json] [--repeat N]

Run by bench_python.py --docs in a child process (the TensorFlow venv's python).
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import tfnano  # noqa: E402

# ---------------------------------------------------------------- the seeds' code
SEED_000 = '''
AUTOTUNE = tf.data.experimental.AUTOTUNE

def tfrecord_dataset(filename, batch_size, strategy, is_train: bool = True):
    opt = tf.data.Options()
    opt.experimental_deterministic = False
    features_description = {
        "input_ids_question": tf.io.FixedLenFeature([max_q_len], tf.int64),
        "input_mask_question": tf.io.FixedLenFeature([max_q_len], tf.int64),
        "input_ids_answer": tf.io.FixedLenFeature([max_a_len], tf.int64),
        "input_mask_answer": tf.io.FixedLenFeature([max_a_len], tf.int64),
        "labels": tf.io.FixedLenFeature([30], tf.float32),
    }
    def _parse_function(example_proto):
        example = tf.io.parse_single_example(example_proto, features_description)
        return (
            {
                'input_ids_question': tf.cast(example['input_ids_question'], tf.int32),
                'attention_mask_question': tf.cast(example['input_mask_question'], tf.int32),
                'input_ids_answer': tf.cast(example['input_ids_answer'], tf.int32),
                'attention_mask_answer': tf.cast(example['input_mask_answer'], tf.int32),
            },
            example["labels"]
        )
    raw_dataset = tf.data.TFRecordDataset(filename, num_parallel_reads=4).with_options(opt)
    dataset = raw_dataset.map(_parse_function, num_parallel_calls=AUTOTUNE).cache()
    if is_train:
        dataset = dataset.shuffle(2048, reshuffle_each_iteration=True).repeat()
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(AUTOTUNE)
    return dataset
'''

SEED_004 = '''
def build_decoder(with_labels=True):
    def read_tfrecord(example):
        if with_labels:
            TFREC_FORMAT = {
                'image': tf.io.FixedLenFeature([], tf.string),
                config.base.target_cols[0]: tf.io.FixedLenFeature([], tf.int64),
                config.base.target_cols[1]: tf.io.FixedLenFeature([], tf.int64),
                config.base.target_cols[2]: tf.io.FixedLenFeature([], tf.int64),
                config.base.target_cols[3]: tf.io.FixedLenFeature([], tf.int64),
                'image_name': tf.io.FixedLenFeature([], tf.string),
            }
        else:
            TFREC_FORMAT = {
                'image': tf.io.FixedLenFeature([], tf.string),
                'image_name': tf.io.FixedLenFeature([], tf.string),
            }
        example = tf.io.parse_single_example(example, TFREC_FORMAT)
        image = decode_image(example['image'])
        if with_labels:
            targets = [example[x] for x in config.base.target_cols]
            return image, targets
        else:
            return image
    return read_tfrecord
'''

TARGETS = ["healthy", "multiple_diseases", "rust", "scab"]
IMAGE_SIZE = [128, 128]


def seed_000(tf):
    ns = {"tf": tf, "max_q_len": 512, "max_a_len": 512}
    exec(SEED_000, ns)
    return ns["tfrecord_dataset"]


def seed_004(tf, decode):
    """build_decoder with the seed's decode_image (decode=True: decode_jpeg, cast /
    255, reshape) or without decoding (the image bytes as they are)."""
    def decode_image(image_data):
        image = tf.image.decode_jpeg(image_data, channels=3)
        image = tf.cast(image, tf.float32) / 255.0
        image = tf.reshape(image, [*IMAGE_SIZE, 3])
        return image
    ns = {"tf": tf, "IMAGE_SIZE": IMAGE_SIZE,
          "config": types.SimpleNamespace(base=types.SimpleNamespace(target_cols=TARGETS)),
          "decode_image": decode_image if decode else (lambda image_data: image_data)}
    exec(SEED_004, ns)
    return ns["build_decoder"]


# ---------------------------------------------------------------- data

def write_w1(folder, n):
    from bench_python import w1_columns
    cols = w1_columns(n)
    names = {"q_input_ids": "input_ids_question", "q_attention_mask": "input_mask_question",
             "a_input_ids": "input_ids_answer", "a_attention_mask": "input_mask_answer",
             "labels": "labels"}
    files = [os.path.join(folder, "w1-%d.tfrecord" % s) for s in range(4)]
    bounds = np.linspace(0, n, 5).astype(int)
    for s, f in enumerate(files):
        with tfnano.io.TFRecordWriter(f) as w:
            w.write_columns({names[k]: v[bounds[s]:bounds[s + 1]] for k, v in cols.items()})
    return files


def jpegs(n, seed=4):
    rng = np.random.default_rng(seed)
    base = (np.indices(IMAGE_SIZE).sum(0) % 256).astype(np.uint8)
    out = []
    for i in range(n):
        img = np.stack([base, np.roll(base, i, 0), np.roll(base, 3 * i, 1)], -1)
        img = (img + rng.integers(0, 40, img.shape)).astype(np.uint8)
        out.append(tfnano.io.encode_jpeg(img, quality=90).numpy())
    return out


def write_images(folder, n, shards=2):
    images = jpegs(n)
    files, per = [], -(-n // shards)
    for s in range(shards):
        f = os.path.join(folder, "img-%d.tfrec" % s)
        part = range(s * per, min(n, (s + 1) * per))
        col = np.empty(len(part), object)
        col[:] = [images[i] for i in part]
        name = np.empty(len(part), object)
        name[:] = [b"Train_%d" % i for i in part]
        cols = {"image": col, "image_name": name}
        for j, t in enumerate(TARGETS):
            cols[t] = np.array([(i + j) % 2 for i in part], np.int64)
        with tfnano.io.TFRecordWriter(f) as w:
            w.write_columns(cols)
        files.append(f)
    paths = []
    for i, b in enumerate(images):
        p = os.path.join(folder, "img_%04d.jpg" % i)
        with open(p, "wb") as fh:
            fh.write(b)
        paths.append(p)
    return files, paths


def w3(n):
    rng = np.random.default_rng(3)
    return (rng.integers(0, 1000, (n, 64)).astype(np.int64),
            rng.integers(0, 10, n).astype(np.int64), np.arange(n, dtype=np.int64))


# ---------------------------------------------------------------- the pipelines

def tutorial_shapes(tf, cols):
    def f(x, label, key):
        return {"x": tf.cast(x, tf.float32), "y": tf.one_hot(label, 10)}, key

    def base():
        return tf.data.Dataset.from_tensor_slices(cols)
    return {
        "map -> shuffle(2048) -> batch(32)":
            lambda: base().map(f).shuffle(2048).batch(32),
        "map -> cache -> shuffle(2048) -> batch(32)":
            lambda: base().map(f).cache().shuffle(2048).batch(32),
        "map -> repeat(2) -> batch(32)": lambda: base().map(f).repeat(2).batch(32),
        "map -> filter -> batch(32)":
            lambda: base().map(f).filter(lambda d, k: k % 3 > 0).batch(32),
        "shuffle(2048) -> map -> batch(32)": lambda: base().shuffle(2048).map(f).batch(32),
    }


def paths_pipeline(tf, paths):
    def load_image(path, label):
        image = tf.io.read_file(path)
        image = tf.image.decode_jpeg(image, channels=3)
        image = tf.image.resize(image, [64, 64])
        return image, label
    labels = list(range(len(paths)))
    return (tf.data.Dataset.from_tensor_slices((paths, labels))
            .map(load_image, num_parallel_calls=tf.data.AUTOTUNE).batch(32))


# ---------------------------------------------------------------- measuring

def numpy_of(el):
    return tfnano.nest.map_structure(lambda x: np.asarray(x), el) \
        if hasattr(tfnano, "nest") else el


def flat(el):
    if isinstance(el, dict):
        return [a for k in sorted(el) for a in flat(el[k])]
    if isinstance(el, (tuple, list)):
        return [a for v in el for a in flat(v)]
    return [np.asarray(el)]


def rows_of(batches):
    """Every record of a list of batches, as one tuple of bytes per record."""
    out = []
    for b in batches:
        leaves = flat(b)
        for i in range(len(leaves[0])):
            out.append(tuple(x[i].tobytes() if x.dtype != object else bytes(x[i])
                             for x in leaves))
    return out


def take_batches(it, k):
    out = []
    for _ in range(k):
        out.append(next(it))
    return out


def timed(fn, repeat):
    best, got = None, None
    for _ in range(repeat):
        t = time.perf_counter()
        got = fn()
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return best, got


def same(a, b, ordered):
    ra, rb = rows_of(a), rows_of(b)
    if not ordered:
        ra, rb = sorted(ra), sorted(rb)
    return ra == rb


def table(rows):
    out = ["| pipeline | TensorFlow 2.21 | tfnano | tfnano / TF | TF's values |",
           "|---|---|---|---|---|"]
    for r in rows:
        out.append("| %s | %.0f/s | %.0f/s | %.2fx | %s |" % (
            r["work"], r["tf_per_s"], r["tfnano_per_s"], r["ratio"],
            "equal" if r["equal"] else "**differ**"))
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    n1, n_img, n3 = (2048, 64, 4000) if args.quick else (8192, 256, 24000)
    repeat = 1 if args.quick else args.repeat
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tft
    tmp = tempfile.mkdtemp(prefix="tfnano-w5-")
    rows = []

    def report(work, t_tf, t_nano, items, equal):
        row = {"work": work, "tf_per_s": items / t_tf, "tfnano_per_s": items / t_nano,
               "ratio": t_tf / t_nano, "equal": equal}
        rows.append(row)
        if not args.json:
            print("  %-48s TF %9.0f/s  tfnano %9.0f/s  %5.2fx  %s" % (
                work, row["tf_per_s"], row["tfnano_per_s"], row["ratio"], equal),
                flush=True)

    try:
        w1 = write_w1(tmp, n1)
        img_files, paths = write_images(tmp, n_img)
        steps = n1 // 256

        # seed 000: the first epoch (map + cache fill), then three cached epochs
        def s000(tf):
            it = iter(seed_000(tf)(w1, 256, None, True))
            t = time.perf_counter()
            first = take_batches(it, steps)
            t1 = time.perf_counter() - t
            t = time.perf_counter()
            later = take_batches(it, 3 * steps)
            return t1, time.perf_counter() - t, first, later
        best = {}
        for _ in range(repeat):
            for who, tf in (("tf", tft), ("nano", tfnano)):
                t1, t2, first, later = s000(tf)
                b = best.setdefault(who, [t1, t2, first, later])
                b[0], b[1] = min(b[0], t1), min(b[1], t2)
        eq = same(best["tf"][2], best["nano"][2], False) and all(
            len(rows_of(best[w][3])) == 3 * steps * 256 for w in best)
        report("seed 000 verbatim, first epoch", best["tf"][0], best["nano"][0],
               steps * 256, eq)
        report("seed 000 verbatim, cached epochs", best["tf"][1], best["nano"][1],
               3 * steps * 256, eq)

        # seed 004: read_tfrecord returning (image, targets list), batch(64 / 32)
        for decode, bs in ((False, 64), (True, 32)):
            def s004(tf, decode=decode, bs=bs):
                AUTO = tf.data.experimental.AUTOTUNE
                ds = tf.data.TFRecordDataset(img_files, num_parallel_reads=AUTO).map(
                    seed_004(tf, decode)(), num_parallel_calls=AUTO).batch(bs).prefetch(AUTO)
                return list(ds)
            t_tf, a = timed(lambda: s004(tft), repeat)
            t_nano, b = timed(lambda: s004(tfnano), repeat)
            shape_ok = np.asarray(b[0][1]).shape == (bs, 4) and \
                np.asarray(b[0][1]).dtype == np.int64
            report("seed 004 verbatim, %s" % ("decode_jpeg -> cast/255 -> reshape"
                                              if decode else "no decode"),
                   t_tf, t_nano, n_img, same(a, b, True) and shape_ok)

        # the tutorial shapes
        cols = w3(n3)
        made_tf, made_nano = tutorial_shapes(tft, cols), tutorial_shapes(tfnano, cols)
        for name in made_tf:
            t_tf, a = timed(lambda: list(made_tf[name]()), repeat)
            t_nano, b = timed(lambda: list(made_nano[name]()), repeat)
            items = sum(len(flat(x)[-1]) for x in b)
            report(name, t_tf, t_nano, items, same(a, b, "shuffle" not in name))

        t_tf, a = timed(lambda: list(paths_pipeline(tft, paths)), repeat)
        t_nano, b = timed(lambda: list(paths_pipeline(tfnano, paths)), repeat)
        close = len(a) == len(b) and all(
            np.allclose(np.asarray(x[0]), np.asarray(y[0]), atol=1e-3) and
            np.array_equal(np.asarray(x[1]), np.asarray(y[1])) for x, y in zip(a, b))
        report("paths -> read_file -> decode_jpeg -> resize", t_tf, t_nano, len(paths),
               close)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps({"tf": tft.__version__, "rows": rows}))
    bad = [r["work"] for r in rows if not r["equal"]]
    if bad:
        print("values differ from TensorFlow: %s" % ", ".join(bad), file=sys.stderr)
    return rows


if __name__ == "__main__":
    main()

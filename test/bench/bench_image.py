"""Images (workload W2-real): JPEG decoding and the image input pipeline, in one run.

Data: BENCH_IMAGE_N (default 2000) smooth synthetic photos (colour fields, soft
blobs, fine texture and sensor-like noise), JPEG quality 90, half 512x512 and half
1024x768 (about 100 KiB on average), made reproducibly with Pillow from a fixed seed
and kept in build/bench/w2_real_<n>.tfrecord as tf.train.Examples {image, class}.

Cases (ratios in the same process, same machine, the page cache warm):
1. the seed / flowers pipeline, code verbatim (parse_single_example -> decode_jpeg
   -> resize 224 -> cast / 255 -> batch 64, num_parallel_calls=AUTOTUNE):
   TensorFlow 2.21 with its default threading vs tfnano (`import tfnano as tf`), in
   records/s and in process CPU time per record (the steadier figure on a shared
   machine); target >= 2x;
2. decode only, one image per call: tf.io.decode_jpeg vs tfnano.image.decode_jpeg
   (target >= 1.0x); and tfnano's threaded batch decode;
3. the PyTorch way: PIL decode + resize + ToTensor (uint8 -> float / 255, CHW) per
   image, in a loop and in a pool of worker processes (torchvision's DataLoader with
   num_workers, emulated: torch is not installed here), vs tfnano.image.decode_batch
   with the same number of workers (threads); target >= 3x;
4. the DCT-scaling gain: decode_batch to 224x224 with and without dct_scale=True.

Environment: BENCH_QUICK=1 (200 images), BENCH_IMAGE_N, BENCH_RUNS (best of, 3).
Skips what it cannot import.
"""
import io
import multiprocessing
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))

QUICK = os.environ.get("BENCH_QUICK", "0") not in ("", "0")
N = int(os.environ.get("BENCH_IMAGE_N", "200" if QUICK else "2000"))
RUNS = int(os.environ.get("BENCH_RUNS", "2" if QUICK else "3"))
WORKERS = os.cpu_count() or 1

try:
    from PIL import Image
except ImportError:
    print("bench_image.py: Pillow missing; skipped")
    sys.exit(0)
import tfnano  # noqa: E402
import tfnano.image as tfi  # noqa: E402

try:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
except ImportError:
    tf = None


# ------------------------------------------------------------------ data

def _base_photo(h, w, rng):
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    img = np.empty((h, w, 3), np.float32)
    base = rng.uniform(60, 180, 3)
    for k in range(3):
        img[..., k] = base[k] + 40 * np.sin(x / rng.uniform(30, 90) + rng.uniform(0, 6)) \
            * np.cos(y / rng.uniform(30, 90))
    for _ in range(6):
        cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(20, 150)
        blob = np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * r * r))
        img += blob[..., None] * rng.uniform(-80, 80, 3).astype(np.float32)
    tex = np.sin(x / rng.uniform(2, 5)) * np.sin(y / rng.uniform(2, 5)) * rng.uniform(6, 12)
    return img + tex[..., None]


def make_photos(n, seed=2026):
    """n JPEGs: variants (crop, flip, gain, noise) of 16 base scenes per size."""
    rng = np.random.default_rng(seed)
    sizes = [(512, 512, 5.0), (768, 1024, 2.0)]  # h, w, noise sigma
    bases = {s: [_base_photo(s[0] + 64, s[1] + 64, rng) for _ in range(16)] for s in sizes}
    noise = {s: rng.normal(0, s[2], (s[0] + 64, s[1] + 64, 1)).astype(np.float32)
             for s in sizes}
    out = []
    for i in range(n):
        s = sizes[i % 2]
        h, w = s[0], s[1]
        b = bases[s][rng.integers(16)]
        oy, ox = rng.integers(0, 64, 2)
        img = b[oy:oy + h, ox:ox + w] * rng.uniform(0.8, 1.2) + rng.uniform(-20, 20)
        ny, nx = rng.integers(0, 64, 2)
        img = img + noise[s][ny:ny + h, nx:nx + w]
        if rng.random() < 0.5:
            img = img[:, ::-1]
        buf = io.BytesIO()
        Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).save(buf, "JPEG", quality=90)
        out.append(buf.getvalue())
    return out


def dataset_file(n):
    path = ROOT / "build" / "bench" / ("w2_real_%d.tfrecord" % n)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = str(path) + ".tmp"
        with tfnano.io.TFRecordWriter(tmp) as w:
            for i, jpg in enumerate(make_photos(n)):
                ex = tfnano.train.Example(features=tfnano.train.Features(feature={
                    "image": tfnano.train.Feature(bytes_list=tfnano.train.BytesList(value=[jpg])),
                    "class": tfnano.train.Feature(int64_list=tfnano.train.Int64List(value=[i % 5]))}))
                w.write(ex.SerializeToString())
        os.replace(tmp, path)
    return str(path)


def read_jpegs(path):
    spec = {"image": tfnano.io.FixedLenFeature([], tfnano.string)}
    return [bytes(tfnano.io.parse_single_example(r, spec)["image"].numpy())
            for r in tfnano.data.TFRecordDataset(path).as_numpy_iterator()]


# ------------------------------------------------------------------ timing

CPU = {}  # name of the last timed case -> best CPU seconds of the process


def best(fn, runs=RUNS):
    """Best wall time of `runs` runs; the best process CPU time goes to CPU["last"]
    (on a shared machine CPU time is the steadier measure of single-thread work)."""
    times, cpu = [], []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    CPU["last"] = min(cpu)
    return min(times)


def pipeline(tfm, path):
    """The flowers notebook's input function, verbatim but for IMAGE_SIZE and the
    resize the seed adds; `tfm` is tensorflow or tfnano."""
    tf = tfm  # noqa: F811 - the notebook's name
    AUTO = tf.data.AUTOTUNE
    IMAGE_SIZE = [224, 224]
    BATCH_SIZE = 64

    def decode_image(image_data):
        image = tf.image.decode_jpeg(image_data, channels=3)
        image = tf.image.resize(image, IMAGE_SIZE)
        image = tf.cast(image, tf.float32) / 255.0
        return image

    def read_labeled_tfrecord(example):
        LABELED_TFREC_FORMAT = {
            "image": tf.io.FixedLenFeature([], tf.string),
            "class": tf.io.FixedLenFeature([], tf.int64),
        }
        example = tf.io.parse_single_example(example, LABELED_TFREC_FORMAT)
        image = decode_image(example['image'])
        label = tf.cast(example['class'], tf.int32)
        return image, label

    dataset = tf.data.TFRecordDataset([path])
    dataset = dataset.map(read_labeled_tfrecord, num_parallel_calls=AUTO)
    dataset = dataset.batch(BATCH_SIZE)
    dataset = dataset.prefetch(AUTO)
    return dataset


def run_pipeline(ds):
    n = 0
    for image, label in ds:
        n += int(image.shape[0])
    return n


def pil_to_tensor(jpg):
    """torchvision: Image.open -> convert RGB -> Resize(224) bilinear -> ToTensor."""
    img = Image.open(io.BytesIO(jpg)).convert("RGB").resize((224, 224), Image.BILINEAR)
    return (np.asarray(img, np.float32) / 255.0).transpose(2, 0, 1)


def pil_batch(jpgs):
    return np.stack([pil_to_tensor(j) for j in jpgs])


def main():
    t0 = time.perf_counter()
    path = dataset_file(N)
    jpgs = read_jpegs(path)
    kib = sum(len(j) for j in jpgs) / len(jpgs) / 1024
    print("bench_image: %d JPEGs (512x512 and 1024x768, quality 90, mean %.0f KiB), "
          "%d CPUs, data ready in %.1f s" % (len(jpgs), kib, WORKERS, time.perf_counter() - t0))
    rows = []

    def report(name, seconds, n, unit="image"):
        rows.append((name, seconds, n))
        print("  %-58s %8.1f %ss/s  %7.3f ms/%s wall  %7.3f ms CPU"
              % (name, n / seconds, unit, 1e3 * seconds / n, unit, 1e3 * CPU["last"] / n))
        return n / seconds

    # 1. the pipeline (tfnano as the plan routes it: the C engine's image stage from 2
    # usable cores; explain() below says which)
    print("  " + pipeline(tfnano, path).plan_text().replace("\n", "\n  "))
    tfn_pipe = report("pipeline tfnano (traced, C engine image stage)",
                      best(lambda: run_pipeline(pipeline(tfnano, path))), len(jpgs), "record")
    tfn_pipe_cpu = CPU["last"]
    tfi.enable_dct_scaling(True)
    try:
        tfn_pipe_dct = report("pipeline tfnano, enable_dct_scaling(True)",
                              best(lambda: run_pipeline(pipeline(tfnano, path))), len(jpgs),
                              "record")
        tfn_pipe_dct_cpu = CPU["last"]
    finally:
        tfi.enable_dct_scaling(False)
    if tf is not None:
        tf_pipe = report("pipeline TensorFlow %s (AUTOTUNE)" % tf.__version__,
                         best(lambda: run_pipeline(pipeline(tf, path))), len(jpgs), "record")
        tf_pipe_cpu = CPU["last"]
        print("summary: image pipeline (W2-real, flowers code) tfnano / TensorFlow = "
              "%.2fx records/s, %.2fx CPU per record (target >= 2x); with DCT scaling "
              "%.2fx, %.2fx CPU; load average %.1f" % (
                  tfn_pipe / tf_pipe, tf_pipe_cpu / tfn_pipe_cpu, tfn_pipe_dct / tf_pipe,
                  tf_pipe_cpu / tfn_pipe_dct_cpu, os.getloadavg()[0]))

    # 2. decode only
    sub = jpgs[: min(len(jpgs), 600)]

    def each(decode):
        for j in sub:  # each image used and dropped, as a training loop does
            decode(j)
    tfn_dec = report("decode_jpeg tfnano, one per call",
                     best(lambda: each(tfi.decode_jpeg)), len(sub))
    tfn_dec_cpu = CPU["last"]
    report("decode tfnano decode_batch of 64 (%d threads)" % WORKERS,
           best(lambda: [tfi.decode_batch(sub[i:i + 64]) for i in range(0, len(sub), 64)]),
           len(sub))
    if tf is not None:
        tf_dec = report("decode_jpeg TensorFlow, one per call (eager)",
                        best(lambda: each(tf.io.decode_jpeg)), len(sub))
        print("summary: JPEG decode per image tfnano / TensorFlow = %.2fx wall, %.2fx CPU "
              "(target >= 1.0x)" % (tfn_dec / tf_dec, CPU["last"] / tfn_dec_cpu))

    # 3. PIL + ToTensor, in a loop and with workers
    sub = jpgs[: min(len(jpgs), 400)]
    pil1 = report("PIL + ToTensor loop (1 process)", best(lambda: pil_batch(sub)), len(sub))
    pil1_cpu = CPU["last"]
    tfn1 = report("tfnano decode_batch 224 NCHW /255 (1 thread)",
                  best(lambda: tfi.decode_batch(sub, size=(224, 224), layout="NCHW",
                                                num_threads=1)), len(sub))
    tfn1_cpu = CPU["last"]
    chunks = [sub[i:i + 64] for i in range(0, len(sub), 64)]
    with multiprocessing.get_context("fork").Pool(WORKERS) as pool:
        pool.map(pil_batch, chunks[:WORKERS])  # start the workers
        pilw = report("PIL + ToTensor, %d worker processes (DataLoader-like)" % WORKERS,
                      best(lambda: pool.map(pil_batch, chunks)), len(sub))
    tfnw = report("tfnano decode_batch 224 NCHW /255 (%d threads)" % WORKERS,
                  best(lambda: [tfi.decode_batch(c, size=(224, 224), layout="NCHW",
                                                 num_threads=WORKERS) for c in chunks]),
                  len(sub))
    print("summary: decode+resize+ToTensor tfnano / PIL: %.2fx with 1 worker (%.2fx CPU), "
          "%.2fx with %d (target >= 3x)" % (tfn1 / pil1, pil1_cpu / tfn1_cpu, tfnw / pilw,
                                            WORKERS))

    # 4. DCT scaling
    full = report("decode_batch 224 (%d threads), full-size decode" % WORKERS,
                  best(lambda: [tfi.decode_batch(c, size=(224, 224)) for c in chunks]), len(sub))
    fast = report("decode_batch 224 (%d threads), dct_scale=True" % WORKERS,
                  best(lambda: [tfi.decode_batch(c, size=(224, 224), dct_scale=True)
                                for c in chunks]), len(sub))
    print("summary: DCT-domain scaling gain (decode+resize to 224) = %.2fx" % (fast / full))


if __name__ == "__main__":
    main()

"""Seed 004's image decoder, verbatim, and the flowers variant, beside TensorFlow and
the decode floor, in one run (issue 23 item 5).

Data: BENCH_SEED_IMAGE_N (default 512; 128 with BENCH_QUICK=1) noisy 512x512 photos,
JPEG quality 95 (~150 KiB), made with Pillow from a fixed seed, as Plant Pathology
records {image, healthy, multiple_diseases, rust, scab, image_name} in
build/bench/seed004_<n>.tfrec.

Rows (the files in the page cache; TensorFlow and tfnano interleaved, best of
BENCH_RUNS; records/s and process CPU per image, the steadier figure on a shared
machine):
- floor: libjpeg-turbo's decode of one image with TensorFlow's settings (IFAST DCT,
  fancy upsampling, RGB), one call at a time into a reused buffer on one thread
  (tfn_image_decode; TensorFlow's DecodeJpeg calls the same library the same way);
- seed 004 as published: decode_jpeg(channels=3) -> cast / 255.0 -> reshape([512, 512,
  3]), targets a Python list, TFRecordDataset(num_parallel_reads=AUTO) -> map(AUTO) ->
  batch(32) -> prefetch(AUTO) (target >= 1.3x TensorFlow, CPU per image within 10 % of
  decode + the float conversion);
- the same returning a tuple (the form that vectorizes before lists do);
- the flowers variant: resize(image, [224, 224]) before the cast (target >= 1.3x).
The first batches of each pipeline are compared with TensorFlow's (values and order)
in the same run. Needs tensorflow for the comparison rows; skips what it cannot import.
"""
import io
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))

QUICK = os.environ.get("BENCH_QUICK", "0") not in ("", "0")
N = int(os.environ.get("BENCH_SEED_IMAGE_N", "128" if QUICK else "512"))
RUNS = int(os.environ.get("BENCH_RUNS", "2" if QUICK else "3"))
COLS = ["healthy", "multiple_diseases", "rust", "scab"]

try:
    from PIL import Image
except ImportError:
    print("bench_seed_image.py: Pillow missing; skipped")
    sys.exit(0)
import tfnano  # noqa: E402

try:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow
except ImportError:
    tensorflow = None


def dataset_file(n):
    path = ROOT / "build" / "bench" / ("seed004_%d.tfrec" % n)
    if path.exists():
        return str(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(4)
    y, x = np.mgrid[0:512, 0:512].astype(np.float32)
    tmp = str(path) + ".tmp"
    with tfnano.io.TFRecordWriter(tmp) as w:
        for i in range(n):
            img = 128 + 60 * (np.sin(x / rng.uniform(20, 60)) * np.cos(y / rng.uniform(20, 60))
                              )[..., None] + rng.normal(0, 12, (512, 512, 3))
            buf = io.BytesIO()
            Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).save(buf, "JPEG",
                                                                         quality=95)
            f = {"image": tfnano.train.Feature(
                     bytes_list=tfnano.train.BytesList(value=[buf.getvalue()])),
                 "image_name": tfnano.train.Feature(
                     bytes_list=tfnano.train.BytesList(value=[b"Train_%d" % i]))}
            for c in COLS:
                f[c] = tfnano.train.Feature(
                    int64_list=tfnano.train.Int64List(value=[int(rng.integers(2))]))
            w.write(tfnano.train.Example(
                features=tfnano.train.Features(feature=f)).SerializeToString())
    os.replace(tmp, path)
    return str(path)


def seed004(tf, files, as_list=True, resize=False):
    """Seed 004's build_decoder(with_labels=True) and reader, verbatim but for the
    `as_list` / `resize` switches (config.base.target_cols = COLS)."""
    AUTO = tf.data.experimental.AUTOTUNE
    IMAGE_SIZE = [512, 512]

    def decode_image(image_data):
        image = tf.image.decode_jpeg(image_data, channels=3)
        if resize:  # the flowers variant
            image = tf.image.resize(image, [224, 224])
            return tf.cast(image, tf.float32) / 255.0
        image = tf.cast(image, tf.float32) / 255.0
        image = tf.reshape(image, [*IMAGE_SIZE, 3])
        return image

    def read_tfrecord(example):
        TFREC_FORMAT = {
            'image': tf.io.FixedLenFeature([], tf.string),
            COLS[0]: tf.io.FixedLenFeature([], tf.int64),
            COLS[1]: tf.io.FixedLenFeature([], tf.int64),
            COLS[2]: tf.io.FixedLenFeature([], tf.int64),
            COLS[3]: tf.io.FixedLenFeature([], tf.int64),
            'image_name': tf.io.FixedLenFeature([], tf.string),
        }
        example = tf.io.parse_single_example(example, TFREC_FORMAT)
        image = decode_image(example['image'])
        targets = [example[x] for x in COLS]
        return image, (targets if as_list else tuple(targets))

    ds = tf.data.TFRecordDataset(files, num_parallel_reads=AUTO)
    return ds.map(read_tfrecord, num_parallel_calls=AUTO).batch(32).prefetch(AUTO)


def consume(ds):
    n = 0
    for image, _ in ds:
        n += int(image.shape[0])
    return n


def check_same(make, batches=2):
    """The first batches of tfnano and TensorFlow compared: "values and order equal",
    or what differs."""
    for (a, ta), (b, tb) in zip(list(make(tfnano).take(batches)),
                                list(make(tensorflow).take(batches))):
        a, b = np.asarray(a), b.numpy()
        if a.dtype != b.dtype or a.shape != b.shape:
            return "images DIFFER: %s %s vs TensorFlow's %s %s" % (a.dtype, a.shape, b.dtype,
                                                                   b.shape)
        if not np.array_equal(a.view(np.uint32), b.view(np.uint32)):
            return "image values DIFFER"
        ta = np.stack([np.asarray(t) for t in ta], -1) if isinstance(ta, tuple) else \
            np.asarray(ta)
        tb = np.stack([t.numpy() for t in tb], -1) if isinstance(tb, tuple) else tb.numpy()
        if ta.dtype != tb.dtype or not np.array_equal(ta, tb):
            return "targets DIFFER: %s %s vs TensorFlow's %s %s" % (ta.dtype, ta.shape,
                                                                    tb.dtype, tb.shape)
    return "values and order equal"


def timed(fn, n):
    """(best records/s, best CPU ms per record) of RUNS runs."""
    rate, cpu = 0.0, float("inf")
    for _ in range(RUNS):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        rate = max(rate, n / (time.perf_counter() - t0))
        cpu = min(cpu, 1e3 * (time.process_time() - c0) / n)
    return rate, cpu


def floor_ms(jpgs):
    """libjpeg-turbo's decode per image (CPU ms, one thread, TensorFlow's settings)."""
    from tfnano._c import ffi, lib
    opt = ffi.new("tfn_image_decode_options *")
    opt.channels = 3
    info, err = ffi.new("tfn_image_info *"), ffi.new("tfn_error *")
    buf = ffi.new("uint8_t[]", 512 * 512 * 3)

    def run():
        for j in jpgs:
            if lib.tfn_image_decode(j, len(j), opt, buf, 512 * 512 * 3, info, err) != 0:
                raise RuntimeError(ffi.string(err.msg).decode())
    return timed(run, len(jpgs))[1]


def main():
    path = dataset_file(N)
    spec = {"image": tfnano.io.FixedLenFeature([], tfnano.string)}
    jpgs = [bytes(tfnano.io.parse_single_example(r, spec)["image"].numpy())
            for r in tfnano.data.TFRecordDataset(path).as_numpy_iterator()]
    print("bench_seed_image: %d JPEGs 512x512 q95 (mean %.0f KiB), %d CPUs, load %.1f" % (
        len(jpgs), sum(map(len, jpgs)) / len(jpgs) / 1024, os.cpu_count(), os.getloadavg()[0]))
    floor = floor_ms(jpgs)
    print("  %-52s %8s %9.3f ms CPU/image" % ("floor: libjpeg-turbo decode (TF's settings)", "",
                                               floor))
    cases = [("seed 004 verbatim (list targets)", dict(as_list=True)),
             ("seed 004, tuple targets", dict(as_list=False)),
             ("flowers: + resize 224", dict(as_list=False, resize=True))]
    for name, kw in cases:
        def make(m, kw=kw):
            return seed004(m, [path], **kw)
        same = check_same(make) if tensorflow is not None else ""
        plan = make(tfnano).plan_text()
        engine = "C engine" if "runs on C threads" in plan else "Python threads"
        tfn = timed(lambda: consume(make(tfnano)), len(jpgs))
        print("  %-52s %8.0f img/s %7.3f ms CPU/image (%.2fx floor)" % (
            "tfnano " + name + " [" + engine + "]", tfn[0], tfn[1], tfn[1] / floor))
        if tensorflow is None:
            continue
        tf_ = timed(lambda: consume(make(tensorflow)), len(jpgs))
        print("  %-52s %8.0f img/s %7.3f ms CPU/image (%.2fx floor)" % (
            "TensorFlow " + name, tf_[0], tf_[1], tf_[1] / floor))
        print("summary: %s tfnano / TensorFlow = %.2fx img/s, %.2fx CPU per image "
              "(target >= 1.3x); tfnano CPU %.2fx the decode floor, TensorFlow %.2fx; "
              "%s" % (name, tfn[0] / tf_[0], tf_[1] / tfn[1], tfn[1] / floor,
                      tf_[1] / floor, same))


if __name__ == "__main__":
    main()

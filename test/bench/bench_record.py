"""TFRecord read + CRC check and write from Python, in one run:

- TensorFlow: tf.data.TFRecordDataset iteration (one record at a time, and batched
  by 256) and tf.io.TFRecordWriter;
- the usual TensorFlow-free Python way, reading as PyPI's `tfrecord` package does
  (struct, one f.read per field) plus the CRC checks, with the `crc32c` package (C,
  SSE4.2), the `crcmod` package (its C extension) and a CRC in pure Python;
- tfnano's C library through cffi (test/python/tfn_abi.py; TFN_LIB selects the
  build): next() per record into bytes objects, and read_into() a batch of records
  into one buffer + offsets (what the Python bindings' fast path uses); writes per
  record and as one write_batch() call;
- the per-record forms users write, with tfnano's Python package (bindings/python)
  and with TensorFlow: ``for r in tf.data.TFRecordDataset(path)`` (scalar string
  tensors), the same with ``r.numpy()``, ``tf.compat.v1.io.tf_record_iterator`` and
  tfnano.io.index.TFRecordFile (random-access reader) iteration, each beside the
  struct + crcmod reader, wall clock and process CPU time (all threads).

Files of W1-like (~2.7 KB) and W2-like (~100 KiB incompressible) records, written
once and read from the page cache. Prints per-record times, MB/s and the ratios of the
issue's targets (read + verify >= 2x TensorFlow and >= 20x the Python reader; write
>= 2x TensorFlow). Environment: BENCH_QUICK=1, BENCH_W1_N, BENCH_W2_N, BENCH_RUNS.
Skips what it cannot import.
"""
import os
import random
import struct
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test" / "python"))

QUICK = os.environ.get("BENCH_QUICK", "0") not in ("", "0")
RUNS = int(os.environ.get("BENCH_RUNS", "2" if QUICK else "3"))
W1_N = int(os.environ.get("BENCH_W1_N", "1000" if QUICK else "10000"))
W2_N = int(os.environ.get("BENCH_W2_N", "100" if QUICK else "1000"))

try:
    from tfn_abi import ffi, lib
except Exception as e:  # noqa: BLE001
    print("bench_record.py: tfnano library not loadable (%s); skipped" % e)
    sys.exit(0)
sys.path.insert(0, str(ROOT / "bindings" / "python"))
try:
    import tfnano
    import tfnano.io.index
except ImportError:  # the Python package is not built (make python)
    tfnano = None
try:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
except ImportError:
    tf = None
try:
    import crc32c
except ImportError:
    crc32c = None
try:
    import crcmod.predefined
    crcmod_fn = crcmod.predefined.mkPredefinedCrcFun("crc-32c")
except ImportError:
    crcmod_fn = None


def best_of(fn, runs=RUNS):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        n = fn()
        times.append(time.perf_counter() - t0)
    return min(times), n


def make_records(kind, n, seed):
    rnd = random.Random(seed)
    if kind == "W1":
        # compressible, Example-like bytes of 2.2-3.2 KB
        base = bytes(rnd.getrandbits(7) for _ in range(4096))
        return [base[i % 512:i % 512 + rnd.randint(2200, 3200)] for i in range(n)]
    blob = os.urandom(110 * 1024)
    return [blob[i % 4096:i % 4096 + rnd.randint(95 * 1024, 105 * 1024)] for i in range(n)]


# ---------------------------------------------------------------- readers

def tf_read(path):
    n = 0
    for _ in tf.data.TFRecordDataset(path):
        n += 1
    return n


def tf_read_batched(path):
    n = 0
    for b in tf.data.TFRecordDataset(path).batch(256):
        n += int(b.shape[0])
    return n


def _masked(crc):
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def py_read(path, crc=None):
    """struct + a CRC package (crc32c by default), reading as the `tfrecord` PyPI
    package does, plus the CRC checks it leaves out."""
    crc = crc or crc32c.crc32c
    n = 0
    with open(path, "rb") as f:
        while True:
            head = f.read(8)
            if not head:
                break
            (length,) = struct.unpack("<Q", head)
            (lcrc,) = struct.unpack("<I", f.read(4))
            if _masked(crc(head)) != lcrc:
                raise IOError("length crc")
            data = f.read(length)
            (dcrc,) = struct.unpack("<I", f.read(4))
            if _masked(crc(data)) != dcrc:
                raise IOError("data crc")
            n += 1
    return n


def _reader(path):
    rp = ffi.new("tfn_record_reader **")
    err = ffi.new("tfn_error *")
    if lib.tfn_record_reader_open(path.encode(), ffi.NULL, ffi.NULL, rp, err) != 0:
        raise IOError(ffi.string(err.msg))
    return rp[0], err


def tfn_read(path):
    r, err = _reader(path)
    data = ffi.new("const uint8_t **")
    ln = ffi.new("size_t *")
    n = 0
    nxt, buf = lib.tfn_record_reader_next, ffi.buffer
    while nxt(r, data, ln, err) == 0:
        rec = buf(data[0], ln[0])[:]  # a bytes object per record, as TF hands out
        n += 1
    del rec
    lib.tfn_record_reader_free(r)
    return n


def tfn_read_into(path, cap=8 << 20, batch=4096):
    r, err = _reader(path)
    dst = bytearray(cap)
    cdst = ffi.from_buffer(dst)
    offs = ffi.new("uint64_t[]", batch + 1)
    n = ffi.new("size_t *")
    w = ffi.new("size_t *")
    total = 0
    while True:
        rc = lib.tfn_record_reader_read_into(r, cdst, cap, offs, batch, n, w, err)
        if rc != 0:
            break
        total += n[0]
    lib.tfn_record_reader_free(r)
    assert rc == 1, ffi.string(err.msg)
    return total


def tfn_read_into_bytes(path, cap=8 << 20, batch=4096):
    """read_into, then one bytes object per record (what iteration hands out)."""
    r, err = _reader(path)
    dst = bytearray(cap)
    cdst = ffi.from_buffer(dst)
    mv = memoryview(dst)
    offs = ffi.new("uint64_t[]", batch + 1)
    n = ffi.new("size_t *")
    w = ffi.new("size_t *")
    total = 0
    while lib.tfn_record_reader_read_into(r, cdst, cap, offs, batch, n, w, err) == 0:
        o = ffi.unpack(offs, n[0] + 1)
        for i in range(n[0]):
            rec = bytes(mv[o[i]:o[i + 1]])  # noqa: F841  one bytes object per record
        total += n[0]
    lib.tfn_record_reader_free(r)
    return total


_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _TABLE.append(_c)


def _crc_pure(data):
    """Table-driven CRC-32C in Python: what crcmod does without its C extension."""
    c = 0xFFFFFFFF
    t = _TABLE
    for b in data:
        c = t[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def py_read_pure(path, limit):
    """struct + pure-Python CRC over the first `limit` records."""
    n = 0
    with open(path, "rb") as f:
        while n < limit:
            head = f.read(8)
            if not head:
                break
            (length,) = struct.unpack("<Q", head)
            (lcrc,) = struct.unpack("<I", f.read(4))
            if _masked(_crc_pure(head)) != lcrc:
                raise IOError("length crc")
            data = f.read(length)
            (dcrc,) = struct.unpack("<I", f.read(4))
            if _masked(_crc_pure(data)) != dcrc:
                raise IOError("data crc")
            n += 1
    return n


# ---------------------------------------------------------------- per-record forms

def iterate(records):
    n = 0
    for _ in records:
        n += 1
    return n


def iterate_numpy(records):
    n = 0
    for r in records:
        r.numpy()
        n += 1
    return n


def per_record_forms(mod, path):
    """(name, fn) of the per-record reading forms of tfnano or TensorFlow (`mod`)."""
    forms = [
        ("for r in tf.data.TFRecordDataset(path)",
         lambda: iterate(mod.data.TFRecordDataset(path))),
        ("... r.numpy() per record", lambda: iterate_numpy(mod.data.TFRecordDataset(path))),
        ("tf.compat.v1.io.tf_record_iterator(path)",
         lambda: iterate(mod.compat.v1.io.tf_record_iterator(path))),
    ]
    if mod is tfnano:
        def random_access():
            with tfnano.io.index.TFRecordFile(path, cache_dir=os.path.dirname(path)) as f:
                return iterate(f)
        forms.append(("tfnano.io.index.TFRecordFile(path), iterated", random_access))
    return forms


def best_of_cpu(fn, runs=RUNS):
    """(best wall time, the process CPU time of that run, items)."""
    best = None
    for _ in range(runs):
        c0, t0 = time.process_time(), time.perf_counter()
        n = fn()
        t, c = time.perf_counter() - t0, time.process_time() - c0
        if best is None or t < best[0]:
            best = (t, c, n)
    return best


def bench_per_record(kind, path, n, size):
    """The per-record forms of tfnano and TensorFlow beside struct + crcmod."""
    if tfnano is None and tf is None:
        return
    print("\n== %s: per-record iteration as users write it (read + CRC, an object per record;"
          " wall and process CPU time)" % kind)
    res = {}

    def case(name, fn, runs=RUNS):
        t, c, got = best_of_cpu(fn, runs)
        assert got == n, (name, got, n)
        res[name] = (t, c)
        base = res.get("struct + crcmod")
        rel = "" if base is None else "%7.2fx wall %7.2fx cpu" % (base[0] / t, base[1] / c)
        print("  %-62s %9.1f us %8.1f us cpu %7.0f MB/s %s"
              % (name, t / n * 1e6, c / n * 1e6, size / t / 1e6, rel), flush=True)
    if crcmod_fn is not None:
        case("struct + crcmod", lambda: py_read(path, crcmod_fn), min(RUNS, 2))
    for who, mod in (("tfnano", tfnano), ("TensorFlow", tf)):
        if mod is None:
            continue
        for name, fn in per_record_forms(mod, path):
            case("%s %s" % (who, name), fn)
    for name, _ in per_record_forms(tfnano, path) if tfnano is not None else ():
        ours = res["tfnano " + name]
        if crcmod_fn is not None:
            summary("%s per-record %s vs struct+crcmod" % (kind, name.split("(")[0].strip()),
                    res["struct + crcmod"][0] / ours[0], 10.0 if kind == "W2" else None)
        theirs = res.get("TensorFlow " + name)
        if theirs is not None:
            summary("%s per-record %s vs TensorFlow" % (kind, name.split("(")[0].strip()),
                    theirs[0] / ours[0])


# ---------------------------------------------------------------- writers

def tf_write(path, recs):
    with tf.io.TFRecordWriter(path) as w:
        for r in recs:
            w.write(r)
    return len(recs)


def py_write(path, recs):
    with open(path, "wb") as f:
        for r in recs:
            head = struct.pack("<Q", len(r))
            f.write(head)
            f.write(struct.pack("<I", _masked(crc32c.crc32c(head))))
            f.write(r)
            f.write(struct.pack("<I", _masked(crc32c.crc32c(r))))
    return len(recs)


def _writer(path):
    wp = ffi.new("tfn_record_writer **")
    err = ffi.new("tfn_error *")
    if lib.tfn_record_writer_open(path.encode(), ffi.NULL, ffi.NULL, wp, err) != 0:
        raise IOError(ffi.string(err.msg))
    return wp[0], err


def tfn_write(path, recs):
    w, err = _writer(path)
    wr = lib.tfn_record_writer_write
    for r in recs:
        wr(w, r, len(r), err)
    lib.tfn_record_writer_close(w, err)
    lib.tfn_record_writer_free(w)
    return len(recs)


def tfn_write_batch(path, joined, offsets):
    w, err = _writer(path)
    assert lib.tfn_record_writer_write_batch(w, joined, offsets, len(offsets) - 1, err) == 0
    lib.tfn_record_writer_close(w, err)
    lib.tfn_record_writer_free(w)
    return len(offsets) - 1


# ---------------------------------------------------------------- main

def row(name, t, n, nbytes, base=None):
    rel = "" if base is None else "%8.2fx" % (base / t)
    print("  %-52s %10.2f us %9.0f MB/s %s" % (name, t / n * 1e6, nbytes / t / 1e6, rel))


def summary(what, ratio, need=None):
    if need is None:
        print("summary: %-58s %6.2fx" % (what, ratio))
    else:
        print("summary: TARGET %-51s %6.2fx need >= %.2fx  %s"
              % (what, ratio, need, "MET" if ratio >= need else "NOT MET"))


def main():
    print("bench_record.py: python %s, tensorflow %s, crc32c %s; best of %d runs"
          % (sys.version.split()[0], tf.__version__ if tf else "absent",
             "present" if crc32c else "absent", RUNS))
    tmp = tempfile.mkdtemp(prefix="tfn_bench_record_")
    try:
        for kind, n in (("W1", W1_N), ("W2", W2_N)):
            recs = make_records(kind, n, 7)
            path = os.path.join(tmp, kind + ".tfrecord")
            tfn_write(path, recs)
            size = os.path.getsize(path)
            print("\n== %s: %d records, %.1f MB file; read + CRC check (per record)"
                  % (kind, n, size / 1e6))
            res = {}

            def case(name, fn, *args):
                t, got = best_of(lambda: fn(*args))
                assert got == n, (name, got, n)
                res[name] = t
                row(name, t, n, size, res.get("tfnano read_into (batch buffer + offsets)"))

            case("tfnano read_into (batch buffer + offsets)", tfn_read_into, path)
            case("tfnano read_into + one bytes per record", tfn_read_into_bytes, path)
            case("tfnano next() per record -> bytes", tfn_read, path)
            if tf is not None:
                case("tf.data.TFRecordDataset, per record", tf_read, path)
                case("tf.data.TFRecordDataset.batch(256)", tf_read_batched, path)
            if crc32c is not None:
                case("Python struct + crc32c (tfrecord package way)", py_read, path)
            if crcmod_fn is not None:
                case("Python struct + crcmod", py_read, path, crcmod_fn)
            # pure-Python CRC: too slow for the whole file; timed on a few records
            k = 100 if kind == "W1" else 3
            t, got = best_of(lambda: py_read_pure(path, k), runs=1)
            res["pure"] = t * n / k
            row("Python struct + pure-Python CRC (crcmod w/o C ext.)", res["pure"], n, size,
                res["tfnano read_into (batch buffer + offsets)"])
            ours = res["tfnano read_into + one bytes per record"]
            if tf is not None:
                tf_best = min(res["tf.data.TFRecordDataset, per record"],
                              res["tf.data.TFRecordDataset.batch(256)"])
                summary("%s read+verify vs TF (faster TF variant, bytes/record)" % kind,
                        tf_best / ours, 2.0)
                summary("%s read+verify vs TF per-record iteration" % kind,
                        res["tf.data.TFRecordDataset, per record"] / ours)
            if crc32c is not None:
                summary("%s read+verify vs Python struct+crc32c (C-accelerated CRC)" % kind,
                        res["Python struct + crc32c (tfrecord package way)"] / ours, 20.0)
            if crcmod_fn is not None:
                summary("%s read+verify vs Python struct+crcmod" % kind,
                        res["Python struct + crcmod"] / ours, 20.0)
                summary("%s read_into batch vs Python struct+crcmod" % kind,
                        res["Python struct + crcmod"]
                        / res["tfnano read_into (batch buffer + offsets)"], 20.0)
            summary("%s read+verify vs Python struct+pure-Python CRC" % kind,
                    res["pure"] / ours, 20.0)
            if tf is not None:
                summary("%s read_into batch (no per-record objects) vs TF batch(256)" % kind,
                        res["tf.data.TFRecordDataset.batch(256)"]
                        / res["tfnano read_into (batch buffer + offsets)"])

            bench_per_record(kind, path, n, size)

            print("\n== %s: write %d records (per record)" % (kind, n))
            out = os.path.join(tmp, kind + ".out")
            joined = b"".join(recs)
            offsets = [0]
            for r in recs:
                offsets.append(offsets[-1] + len(r))
            coff = ffi.new("uint64_t[]", offsets)
            wres = {}

            def wcase(name, fn, *args):
                t, got = best_of(lambda: fn(*args))
                assert got == n
                wres[name] = t
                row(name, t, n, size, wres.get("tfnano write() per record"))
                return t

            wcase("tfnano write() per record", tfn_write, out, recs)
            wcase("tfnano write_batch() (joined + offsets)", tfn_write_batch, out, joined, coff)
            if tf is not None:
                wcase("tf.io.TFRecordWriter", tf_write, out, recs)
                with open(out, "rb") as f, open(path, "rb") as g:
                    assert f.read() == g.read(), "TF and tfnano files differ"
                summary("%s write vs tf.io.TFRecordWriter (per-record calls)" % kind,
                        wres["tf.io.TFRecordWriter"] / wres["tfnano write() per record"], 2.0)
            if crc32c is not None:
                wcase("Python struct + crc32c", py_write, out, recs)
    finally:
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)


if __name__ == "__main__":
    main()

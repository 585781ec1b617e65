"""tfnano.torch against vahidk's `tfrecord` package (the PyTorch TFRecord loader users
have), same process, same DataLoader, on W1 (shared/spec/performance.md) in 4 shards.

    build/venv-torch/bin/python test/bench/bench_torch.py [--n 8192] [--repeat 3]

(torch and tfrecord live in build/venv-torch, made by `make venv-torch`; run from any
other interpreter, the script re-runs itself there.) Reports records/s of a full
epoch, the time to the first batch, duplicated / missing records, and random access
(records/s by record number, single process, local uncompressed file).
"""
import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
sys.path.insert(0, str(ROOT / "test" / "torch"))

try:
    import torch
    import tfrecord  # noqa: F401
except ImportError:
    venv = ROOT / "build" / "venv-torch" / "bin" / "python"
    if venv.exists() and Path(sys.executable).resolve() != venv.resolve():
        os.execv(str(venv), [str(venv)] + sys.argv)
    print("bench_torch.py: skipped (torch / tfrecord not importable: make venv-torch)")
    sys.exit(0)

import numpy as np  # noqa: E402
from torch.utils.data import DataLoader, RandomSampler  # noqa: E402

import tfnano  # noqa: E402
from tfnano.io.index import TFRecordFile, build_index  # noqa: E402
from tfnano.torch import TFRecordIterableDataset, TFRecordMapDataset, collate  # noqa: E402

from shards import W1_FEATURES, write_w1_shards  # noqa: E402

BATCH = 256
VAHIDK_DESC = {k: ("float" if k == "labels" else "int") for k in W1_FEATURES}


def epoch(loader, key="labels"):
    """(records, seconds, seconds to the first batch, labels rows seen)."""
    t0 = time.perf_counter()
    first = None
    n = 0
    rows = []
    for b in loader:
        if first is None:
            first = time.perf_counter() - t0
        lab = b[key]
        n += len(lab)
        # a copy: a view would keep the whole batch's memory from being reused
        rows.append(lab.numpy().copy() if hasattr(lab, "numpy") else np.array(lab))
    return n, time.perf_counter() - t0, first, rows


def check(rows, expected):
    got = [r.tobytes() for part in rows for r in part]
    dup = len(got) - len(set(got))
    missing = len(expected - set(got))
    return dup, missing


def vahidk_loader(files, indexes, workers):
    from tfrecord.torch.dataset import TFRecordDataset
    if len(files) == 1:
        ds = TFRecordDataset(files[0], indexes[0] if indexes else None, VAHIDK_DESC)
    else:
        # vahidk's multi-file reader samples files by weight and never ends; the plain
        # reader per file, chained, is what reads an epoch once.
        ds = torch.utils.data.ChainDataset(
            [TFRecordDataset(f, i, VAHIDK_DESC) for f, i in
             zip(files, indexes or [None] * len(files))])
    return DataLoader(ds, batch_size=BATCH, **loader_kw(workers))


def best(make_loader, repeat):
    """Runs epochs of one loader (workers persist between epochs, as in training):
    the first, cold epoch gives the time to the first batch (worker start-up
    included), the best of the next `repeat` the throughput."""
    loader = make_loader()
    cold = epoch(loader)
    runs = [epoch(loader) for _ in range(repeat)]
    n, sec, _, rows = min(runs, key=lambda r: r[1])
    return (n, sec, cold[2], rows), runs


def loader_kw(workers):
    return {"num_workers": workers, "persistent_workers": bool(workers)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=8192, help="W1 records (4 shards)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench_torch_"))
    files, cols = write_w1_shards(tmp, args.n)
    expected = {r.tobytes() for r in cols["labels"]}
    size = sum(os.path.getsize(f) for f in files)
    print("tfnano %s, torch %s, tfrecord (vahidk) %s, numpy %s, Python %s, %s, %d cores"
          % (tfnano.__version__, torch.__version__, _version("tfrecord"), np.__version__,
             platform.python_version(), platform.machine(), os.cpu_count()))
    print("W1: %d records in 4 shards, %.1f MB, batch %d; records/s: best of %d epochs "
          "after a first one (workers persist); first batch: that first epoch"
          % (args.n, size / 1e6, BATCH, args.repeat))

    # Index files: timed once (built on first use otherwise), then shared by both.
    t = time.perf_counter()
    idx_paths = []
    for f in files:
        build_index(f, out=f + ".idx")
        idx_paths.append(f + ".idx")
    t_index = time.perf_counter() - t
    print("\nindex files for the 4 shards: %.1f ms" % (t_index * 1e3))

    rows = []
    summary = []
    for workers in (0, 2):
        ds = TFRecordIterableDataset(files, W1_FEATURES, batch_size=BATCH)
        ours, _ = best(lambda: DataLoader(ds, batch_size=None, **loader_kw(workers)),
                       args.repeat)
        dup, miss = check(ours[3], expected)
        rows.append(("tfnano TFRecordIterableDataset", workers, ours, dup, miss))
        ds32 = TFRecordIterableDataset(files, W1_FEATURES, batch_size=BATCH, int32=True,
                                       shuffle=True)
        o32, _ = best(lambda: DataLoader(ds32, batch_size=None, **loader_kw(workers)),
                      args.repeat)
        rows.append(("tfnano TFRecordIterableDataset int32 shuffle", workers, o32,
                     *check(o32[3], expected)))
        if not workers:
            dsp = TFRecordIterableDataset(files, W1_FEATURES, batch_size=BATCH, prefetch=2)
            op, _ = best(lambda: DataLoader(dsp, batch_size=None), args.repeat)
            rows.append(("tfnano TFRecordIterableDataset prefetch=2", workers, op,
                         *check(op[3], expected)))
        m = TFRecordMapDataset(files, W1_FEATURES)
        om, _ = best(lambda: DataLoader(m, batch_size=BATCH, shuffle=True, collate_fn=collate,
                                        **loader_kw(workers)), args.repeat)
        rows.append(("tfnano TFRecordMapDataset shuffle + collate", workers, om,
                     *check(om[3], expected)))
        # vahidk: without index files every worker reads every record; with them
        # (its documented fix) each worker reads its share.
        theirs, _ = best(lambda: vahidk_loader(files, idx_paths if workers else None, workers),
                         args.repeat)
        vdup, vmiss = check(theirs[3], expected)
        rows.append(("vahidk TFRecordDataset%s + default collate"
                     % (" (index files)" if workers else ""), workers, theirs, vdup, vmiss))
        if workers:
            noidx, _ = best(lambda: vahidk_loader(files, None, workers), 1)
            rows.append(("vahidk TFRecordDataset (no index files)", workers, noidx,
                         *check(noidx[3], expected)))
        ratio = (ours[0] / ours[1]) / (theirs[0] / theirs[1])
        summary.append("summary: torch W1 DataLoader(num_workers=%d): tfnano %.0f rec/s, "
                       "vahidk %.0f rec/s, %.1fx (target >= 5x); first batch %.1f ms vs "
                       "%.1f ms; tfnano duplicated %d missing %d"
                       % (workers, ours[0] / ours[1], theirs[0] / theirs[1], ratio,
                          ours[2] * 1e3, theirs[2] * 1e3, dup, miss))

    print("\n%-50s %7s %12s %10s %12s %5s %7s" % ("epoch over 4 W1 shards", "workers",
                                                  "records/s", "MB/s", "first batch",
                                                  "dup", "missing"))
    for name, workers, (n, sec, first, _), dup, miss in rows:
        print("%-50s %7d %12.0f %10.1f %9.1f ms %5d %7d"
              % (name, workers, n / sec, size * n / args.n / sec / 1e6, first * 1e3, dup, miss))

    # Random access, single process, one local uncompressed file.
    f = TFRecordFile(files[0])
    m1 = TFRecordMapDataset(files[:1], W1_FEATURES)
    rng = np.random.default_rng(0)
    picks = rng.integers(0, len(f), 100_000).tolist()

    def raw():
        t = time.perf_counter()
        for i in picks:
            f[i]
        return len(picks) / (time.perf_counter() - t)

    def parsed():
        t = time.perf_counter()
        for i in picks[:20_000]:
            m1[i]
        return 20_000 / (time.perf_counter() - t)

    def batched():
        dl = DataLoader(m1, batch_size=BATCH, sampler=RandomSampler(m1, replacement=True,
                                                                      num_samples=20_000),
                        collate_fn=collate)
        t = time.perf_counter()
        n = sum(len(b["labels"]) for b in dl)
        return n / (time.perf_counter() - t)

    # The same shard GZIP-compressed: seek points (built on first use), then reads.
    gz = str(tmp / "w1-00000.tfrecord.gz")
    with tfnano.io.TFRecordWriter(gz, "GZIP") as w:
        for i in range(len(f)):
            w.write(f[i])
    t = time.perf_counter()
    fz = TFRecordFile(gz)
    fz[0]
    t_seek = time.perf_counter() - t
    zpicks = picks[:2000]

    def raw_gz():
        t = time.perf_counter()
        for i in zpicks:
            fz[i]
        return len(zpicks) / (time.perf_counter() - t)

    def batched_gz():
        t = time.perf_counter()
        for k in range(0, 20_000, BATCH):
            fz.gather(picks[k:k + BATCH])
        return 20_000 / (time.perf_counter() - t)

    r_gz = max(raw_gz() for _ in range(args.repeat))
    r_gz_batch = max(batched_gz() for _ in range(args.repeat))
    r_raw = max(raw() for _ in range(args.repeat))
    r_parsed = max(parsed() for _ in range(args.repeat))
    r_batched = max(batched() for _ in range(args.repeat))
    print("\nrandom access by record number (1 process, %d records in the file)" % len(f))
    print("%-60s %12.0f records/s" % ("TFRecordFile[i] (bytes, CRC checked)", r_raw))
    print("%-60s %12.0f records/s" % ("TFRecordMapDataset[i] (one record parsed to tensors)",
                                      r_parsed))
    print("%-60s %12.0f records/s" % ("DataLoader(RandomSampler, batch %d, tfnano collate)"
                                      % BATCH, r_batched))
    print("%-60s %12.0f records/s" % ("GZIP file: TFRecordFile[i] (seek points, 1 MiB apart)",
                                      r_gz))
    print("%-60s %12.0f records/s" % ("GZIP file: TFRecordFile.gather(256 random records)",
                                      r_gz_batch))
    print("%-60s %12.1f ms" % ("GZIP file: index + seek points for %.1f MB"
                               % (os.path.getsize(files[0]) / 1e6), t_seek * 1e3))
    summary.append("summary: torch random access: TFRecordFile[i] %.0f rec/s, "
                   "TFRecordMapDataset[i] %.0f rec/s, batched __getitems__ %.0f rec/s "
                   "(target >= 100k)" % (r_raw, r_parsed, r_batched))
    print()
    for line in summary:
        print(line)


def _version(name):
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:
        return "?"


if __name__ == "__main__":
    main()

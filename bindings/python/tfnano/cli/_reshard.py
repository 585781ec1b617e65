"""split, merge and recompress: rewriting shards record by record (payloads are
copied as they are; CRCs are checked on the way in and written anew)."""
import math
import os
import sys

from .._progress import Progress
from ..io.tf_record import TFRecordWriter
from ..io._shards import write_shards
from ._sources import RecordFile, UsageError

_OUT_COMPRESSION = {"NONE": None, "GZIP": "GZIP", "ZLIB": "ZLIB"}


def _records(files, compression, bar=None):
    for name in files:
        with RecordFile(name, compression) as rf:
            for _, _, raw in rf:
                if bar is not None:
                    bar.update(records=1, nbytes=len(raw) + 16)
                yield raw


def _out_compression(args):
    return _OUT_COMPRESSION[args.output_compression.upper()]


def _parse_size(text):
    """"100MB", "64MiB", "1e6", "500k" -> bytes."""
    t = text.strip().upper().replace(" ", "")
    units = [("KIB", 1 << 10), ("MIB", 1 << 20), ("GIB", 1 << 30), ("KB", 10**3),
             ("MB", 10**6), ("GB", 10**9), ("K", 10**3), ("M", 10**6), ("G", 10**9),
             ("B", 1)]
    for suffix, scale in units:
        if t.endswith(suffix):
            return int(float(t[:-len(suffix)]) * scale)
    return int(float(t))


def cmd_split(args, files, out):
    per_records = args.records_per_shard
    per_bytes = _parse_size(args.bytes_per_shard) if args.bytes_per_shard else None
    if args.shards:
        total = sum(1 for _ in _records(files, args.compression))
        per_records = max(1, math.ceil(total / args.shards))
    if sum(x is not None for x in (per_records, per_bytes)) > 1:
        raise UsageError("give one of --shards, --records-per-shard, --bytes-per-shard")
    written = write_shards(_records(files, args.compression), args.output,
                           records_per_shard=per_records, bytes_per_shard=per_bytes,
                           compression=_out_compression(args), progress=args.progress)
    for path in written:
        out.write(path + "\n")
    return 0


def _rewrite(files, target, args):
    tmp = "%s.tmp-%d" % (target, os.getpid())
    n = 0
    try:
        with Progress(args.command, enabled=args.progress) as bar, \
                TFRecordWriter(tmp, options=_out_compression(args)) as w:
            for raw in _records(files, args.compression, bar):
                w.write(raw)
                n += 1
        from ..io.gfile import gfile
        gfile.rename(tmp, target, overwrite=True)
        tmp = None
    finally:
        if tmp is not None:
            from ..io.gfile import gfile
            if gfile.exists(tmp):
                gfile.remove(tmp)
    sys.stderr.write("%d records -> %s\n" % (n, target))
    return 0


def cmd_merge(args, files, out):
    return _rewrite(files, args.output, args)


def cmd_recompress(args, files, out):
    if len(files) != 1:
        raise UsageError("recompress takes one input file (merge joins several)")
    return _rewrite(files, args.output, args)

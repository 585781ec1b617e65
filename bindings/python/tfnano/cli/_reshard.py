"""split, merge and recompress: rewriting shards record by record (payloads are
copied as they are; CRCs are checked on the way in and written anew)."""
import math
import os
import sys

from .._progress import Progress
from ..io.tf_record import TFRecordWriter
from ..io._shards import write_shards
from ._sources import RecordFile, UsageError, parse_size

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


class _Counted:
    """Records whose number is known (len() for the progress line)."""

    def __init__(self, it, n):
        self._it, self._n = it, n

    def __len__(self):
        return self._n

    def __iter__(self):
        return iter(self._it)


def _check_pattern(pattern):
    """The output pattern's mistakes are usage errors (one line, exit 2)."""
    try:
        same = pattern.format(shard=0, num_shards=2) == pattern.format(shard=1, num_shards=2)
    except (KeyError, IndexError, ValueError) as e:
        raise UsageError("-o %s: unknown or bad field %s (use {shard} and {num_shards}, "
                         "e.g. 'out/part-{shard:05d}-of-{num_shards:05d}.tfrec')"
                         % (pattern, e)) from None
    if same:
        raise UsageError("-o %s has no {shard} field: shards would overwrite each other "
                         "(e.g. 'out/part-{shard:05d}-of-{num_shards:05d}.tfrec')" % pattern)


def cmd_split(args, files, out):
    per_records = args.records_per_shard
    try:
        per_bytes = parse_size(args.bytes_per_shard) if args.bytes_per_shard else None
    except ValueError:
        raise UsageError("--bytes-per-shard: not a size: %r (e.g. 100MB, 64MiB)"
                         % args.bytes_per_shard) from None
    for flag, v in (("--shards", args.shards), ("--records-per-shard", per_records),
                    ("--bytes-per-shard", per_bytes)):
        if v is not None and v < 1:
            raise UsageError("%s must be at least 1, got %s" % (flag, v))
    _check_pattern(args.output)
    records = _records(files, args.compression)
    if args.shards:
        total = sum(1 for _ in _records(files, args.compression))
        per_records = max(1, math.ceil(total / args.shards))
        records = _Counted(records, total)  # the progress line shows % and ETA
    if sum(x is not None for x in (per_records, per_bytes)) > 1:
        raise UsageError("give one of --shards, --records-per-shard, --bytes-per-shard")
    written = write_shards(records, args.output,
                           records_per_shard=per_records, bytes_per_shard=per_bytes,
                           compression=_out_compression(args), progress=args.progress,
                           progress_label="split")
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

"""verify and index: the integrity of shards, and the offset index readers seek with."""
import json
import os
import re
import sys

from .. import errors
from ..io import verify_records
from ..io.index import build_index
from ._sources import Damage, RecordFile, UsageError, local_path


def _verify_local(name, compression):
    """tfnano.io.verify_records on a local file: (good, damages, compression)."""
    rep = verify_records(name, None if compression.upper() == "AUTO" else
                         ("" if compression.upper() == "NONE" else compression.upper()))
    damages = [Damage(name, int(d.offset), int(d.length), int(d.record_index), d.reason)
               for d in rep.damaged]
    if rep.error is not None:
        at = re.search(r"\bat (\d+)", rep.error) or re.search(r"offset (\d+)", rep.error)
        damages.append(Damage(name, int(at.group(1)) if at else -1, -1, rep.records,
                              rep.error))
    return rep.records, damages, rep.compression or "NONE"


def verify_file(name, compression="AUTO"):
    """(records with good CRCs, [Damage ...], compression) for one file. Every record's
    length and payload CRC is checked; damaged regions are stepped over so that all of
    them are found (TensorFlow stops at the first)."""
    if "://" not in name or name.startswith("file://"):
        return _verify_local(local_path(name), compression)
    good = 0
    rf = None
    try:
        rf = RecordFile(name, compression, skip_damage=True)
        for _ in rf:
            good += 1
        return good, list(rf.damages), rf.compression
    except errors.OpError as e:
        if isinstance(e, errors.NotFoundError) or rf is None:
            raise
        # damage the reader cannot step over: a torn end, a broken zlib stream
        offset = e.offset if getattr(e, "offset", None) is not None else -1
        text = getattr(e, "detail", None) or str(e)
        return good, list(rf.damages) + [Damage(name, offset, -1, good, text)], rf.compression
    finally:
        if rf is not None:
            rf.close()


def _stray_size(name):
    """The size of a local file (0 when unknown: URLs, devices)."""
    try:
        st = os.stat(local_path(name))
    except OSError:
        return 0
    import stat
    return st.st_size if stat.S_ISREG(st.st_mode) else 0


def cmd_verify(args, files, out):
    bad = 0
    for name in files:
        good, damages, comp = verify_file(name, args.compression)
        bad += bool(damages)
        where = " (offsets in the decompressed stream)" if comp in ("GZIP", "ZLIB") else ""
        if args.json:
            out.write(json.dumps({"file": name, "ok": not damages, "records": good,
                                  "compression": comp,
                                  "damages": [d.as_dict() for d in damages]}) + "\n")
            continue
        stray = _stray_size(name) if not damages and good == 0 else 0
        if stray:
            # TensorFlow's reader ends silently at fewer than 12 bytes; a checking
            # tool says that a non-empty file held no record at all
            bad += 1
            out.write("WARNING  %s: %d bytes but no record (not a TFRecord file?)\n"
                      % (name, stray))
            continue
        if not damages:
            out.write("OK       %s: %d records\n" % (name, good))
            continue
        out.write("DAMAGED  %s: %d good records, %d damaged region%s%s\n"
                  % (name, good, len(damages), "" if len(damages) == 1 else "s", where))
        for d in damages:
            size = "" if d.length < 0 else ", %d bytes" % d.length
            out.write("  %s: offset %d%s, before record %d: %s\n"
                      % (name, d.offset, size, d.record_index, d.reason))
    if len(files) > 1 and not args.json:
        out.write("%d of %d files damaged\n" % (bad, len(files)))
    return 1 if bad else 0


def cmd_index(args, files, out):
    # tfnano.io.index builds it: GZIP / ZLIB files get offsets in the decompressed
    # stream, which tfnano.io.index.TFRecordFile reads them by (through seek points).
    if args.output and len(files) != 1:
        raise UsageError("-o/--output names one index: give one input file")
    for name in files:
        path = local_path(name)
        index = build_index(path)
        target = args.output or path + ".idx"
        if target == "-":
            out.write(index.to_text().decode("ascii"))
            continue
        index.save(target)
        where = " (%s stream offsets)" % index.compression if index.compression else ""
        sys.stderr.write("%s: %d records%s -> %s\n" % (name, len(index), where, target))
    return 0

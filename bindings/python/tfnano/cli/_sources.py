"""Inputs of the CLI: names, globs and URLs expanded to files, and a record reader that
knows each record's offset, detects the compression and can step over damage."""
import glob
import os

from .. import errors
from .._c import record as _crecord
from ..io.tf_record import fsspec_open, is_url

COMPRESSIONS = ("AUTO", "NONE", "", "ZLIB", "GZIP")
# the reader's reason for a skipped range -> the CLI's words for it
_REASONS = {"bad length CRC": "corrupted record (bad length CRC)",
            "bad data CRC": "corrupted record (bad data CRC)",
            "length runs past the end": "truncated record (its length runs past the next records)"}


class UsageError(Exception):
    """A bad command line or a missing input: exit status 2."""


# The CLI's default cap on one record (--max-record-size): far above any real record,
# far below what a damaged or hostile length could make a reader hold.
CLI_MAX_RECORD = 256 << 20
_max_record = [CLI_MAX_RECORD]


def parse_size(text):
    """"100MB", "64MiB", "1e6", "500k" -> bytes."""
    t = text.strip().upper().replace(" ", "")
    units = [("KIB", 1 << 10), ("MIB", 1 << 20), ("GIB", 1 << 30), ("KB", 10**3),
             ("MB", 10**6), ("GB", 10**9), ("K", 10**3), ("M", 10**6), ("G", 10**9),
             ("B", 1)]
    for suffix, scale in units:
        if t.endswith(suffix):
            return int(float(t[:-len(suffix)]) * scale)
    return int(float(t))


def set_max_record_size(text):
    """--max-record-size: bytes, or with a unit (256MiB, 1GB); at most 2 GiB."""
    if text is None:
        return
    try:
        n = parse_size(text)
    except (UsageError, ValueError):
        raise UsageError("--max-record-size: not a size: %r (e.g. 256MiB)" % text) from None
    _max_record[0] = _crecord.max_record_size(n) if n > 0 else CLI_MAX_RECORD


def expand(names):
    """Each name as given, or the files its glob matches (local or, through fsspec, a
    URL) sorted by name (shard order); a pattern that matches nothing is an error."""
    out = []
    for name in names:
        if not any(c in name for c in "*?["):
            out.append(name)
            continue
        from ..io.gfile import gfile
        hits = gfile.glob(name)
        if not hits:
            raise UsageError("no file matches %s" % name)
        if not name.startswith("./"):  # gfile.glob gives "./x" for a bare pattern, as TF
            hits = [h[2:] if h.startswith("./") else h for h in hits]
        out.extend(sorted(hits))
    return out


def local_path(name):
    return name[len("file://"):] if name.startswith("file://") else name


class Damage:
    """One damaged region: where it starts, how long it is, and why."""

    def __init__(self, name, offset, length, record_index, reason):
        self.name = name
        self.offset = offset
        self.length = length
        self.record_index = record_index
        self.reason = reason

    def as_dict(self):
        return {"file": self.name, "offset": self.offset, "length": self.length,
                "before_record": self.record_index, "reason": self.reason}


class RecordFile:
    """The records of one file with the (decompressed) stream offset of each.

    compression: AUTO (detected from the first bytes), NONE, ZLIB or GZIP.
    skip_damage: step over damaged regions (each is added to .damages) instead of
    raising DataLossError as TensorFlow does."""

    def __init__(self, name, compression="AUTO", skip_damage=False, buffer_size=1 << 20):
        self.name = name
        self.damages = []
        self._owned = None
        comp = compression.upper()
        if comp not in COMPRESSIONS:
            raise UsageError("unknown compression %r (AUTO, NONE, ZLIB or GZIP)"
                             % compression)
        comp = "" if comp == "NONE" else comp
        on_damage = "skip" if skip_damage else "raise"
        if is_url(name):
            self._owned = fsspec_open(name, "rb")
            source = self._owned
        else:
            source = local_path(name)
            if os.path.isdir(source):
                raise errors.make(errors.FailedPreconditionError, "%s; Is a directory" % source)
        try:
            # locate: every command's message names the damaged file among several
            self._r = _crecord.Reader(source, comp, buffer_size, on_damage, name=name,
                                      max_record_size=_max_record[0])
        except BaseException:
            self._close_owned()
            raise

    @property
    def compression(self):
        return self._r.compression()

    def __iter__(self):
        """(index, offset, payload bytes) for each record."""
        r = self._r
        seen = 0
        while True:
            start = r.tell()
            rec = r.next_record()
            if rec is None:
                return
            offset = r.tell() - len(rec) - 16
            index = r.index() - 1
            if r.skipped_records != seen:  # one damaged region lies between start and offset
                seen = r.skipped_records
                self.damages.append(Damage(self.name, start, offset - start, index,
                                           _REASONS.get(r.last_damage.reason, "damaged")))
            yield index, offset, rec

    def count(self, progress=None):
        """The number of records, read in batches of views (no copy, no Python object
        per record). self.counted holds the count so far when an error is raised."""
        self.counted = 0
        while True:
            got = self._r.lengths_batch(4096)
            if got is None:
                return self.counted
            got = len(got)
            self.counted += got
            if progress is not None:
                progress.update(records=got)

    def _close_owned(self):
        if self._owned is not None:
            self._owned.close()
            self._owned = None

    def close(self):
        r, self._r = getattr(self, "_r", None), None
        if r is not None:
            r.close()
        self._close_owned()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

"""Inputs of the CLI: names, globs and URLs expanded to files, and a record reader that
knows each record's offset, detects the compression and can step over damage."""
import glob
import os

from .. import _crecord, errors
from .._record import _fsspec_open, _is_url

ffi = _crecord.ffi
lib = _crecord.lib

COMPRESSIONS = {"AUTO": lib.TFN_COMPRESSION_AUTO, "NONE": lib.TFN_COMPRESSION_NONE,
                "": lib.TFN_COMPRESSION_NONE, "ZLIB": lib.TFN_COMPRESSION_ZLIB,
                "GZIP": lib.TFN_COMPRESSION_GZIP}
_NAMES = {lib.TFN_COMPRESSION_NONE: "NONE", lib.TFN_COMPRESSION_ZLIB: "ZLIB",
          lib.TFN_COMPRESSION_GZIP: "GZIP", lib.TFN_COMPRESSION_AUTO: "AUTO"}
_REASONS = {lib.TFN_E_DATA_LOSS_LENGTH: "corrupted record (bad length CRC)",
            lib.TFN_E_DATA_LOSS: "corrupted record (bad data CRC)",
            lib.TFN_E_TRUNCATED: "truncated record (its length runs past the next records)"}


class UsageError(Exception):
    """A bad command line or a missing input: exit status 2."""


# The CLI's default cap on one record (--max-record-size): far above any real record,
# far below what a damaged or hostile length could make a reader hold.
CLI_MAX_RECORD = 256 << 20
_max_record = [CLI_MAX_RECORD]


def set_max_record_size(text):
    """--max-record-size: bytes, or with a unit (256MiB, 1GB); at most 2 GiB."""
    if text is None:
        return
    from ._reshard import _parse_size as parse_size
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
        self._owned = self._keep = None
        opts = ffi.new("tfn_record_reader_options *")
        lib.tfn_record_reader_options_init(opts)
        try:
            opts.compression = COMPRESSIONS[compression.upper()]
        except KeyError:
            raise UsageError("unknown compression %r (AUTO, NONE, ZLIB or GZIP)"
                             % compression) from None
        opts.on_damage = lib.TFN_ON_DAMAGE_SKIP if skip_damage else lib.TFN_ON_DAMAGE_RAISE
        opts.buffer_size = buffer_size
        opts.max_record_size = _max_record[0]
        opts.resync_slice = _crecord.RESYNC_SLICE  # Ctrl-C is seen between slices
        out = ffi.new("tfn_record_reader **")
        err = ffi.new("tfn_error *")
        if _is_url(name):
            self._owned = _fsspec_open(name, "rb")
            self._fio = _crecord._FileIO(self._owned)
            io, self._keep = _crecord._io_table(self._fio, reading=True)
            self._cname = ffi.new("char[]", name.encode("utf-8", "replace"))
            opts.name = self._cname
            rc = lib.tfn_record_reader_open_io(io, opts, ffi.NULL, out, err)
        else:
            self._fio = None
            path = local_path(name)
            if os.path.isdir(path):
                raise errors.FailedPreconditionError(None, None, "%s; Is a directory" % path)
            rc = lib.tfn_record_reader_open(path.encode("utf-8", "surrogateescape"), opts,
                                            ffi.NULL, out, err)
        if rc < 0:
            self._close_owned()
            _crecord._raise(rc, err, self._fio)
        self._r = ffi.gc(out[0], lib.tfn_record_reader_free)
        self._err = err

    @property
    def compression(self):
        return _NAMES.get(lib.tfn_record_reader_compression(self._r), "?")

    def __iter__(self):
        """(index, offset, payload bytes) for each record."""
        progress_hook = getattr(self, "on_scan", None)
        r, err = self._r, self._err
        data = ffi.new("const uint8_t **")
        size = ffi.new("size_t *")
        skipped = ffi.new("uint64_t *")
        seen = 0
        while True:
            start = lib.tfn_record_reader_offset(r)
            rc = lib.tfn_record_reader_next(r, data, size, err)
            while rc == lib.TFN_TIMEOUT:  # a long damaged region: back in Python
                if progress_hook is not None:
                    progress_hook(lib.tfn_record_reader_offset(r))
                rc = lib.tfn_record_reader_next(r, data, size, err)
            if rc == lib.TFN_END:
                return
            if rc < 0:
                _crecord._raise(rc, err, self._fio, self.name, where=True)
            n = size[0]
            offset = lib.tfn_record_reader_offset(r) - n - 16
            index = lib.tfn_record_reader_index(r) - 1
            lib.tfn_record_reader_skipped(r, skipped, ffi.NULL)
            if skipped[0] != seen:  # one damaged region lies between start and offset
                seen = skipped[0]
                self.damages.append(Damage(self.name, int(start), int(offset - start),
                                           int(index), self._skip_reason()))
            yield int(index), int(offset), (ffi.buffer(data[0], n)[:] if n else b"")

    def count(self, progress=None):
        """The number of records, read in batches of views (no copy, no Python object
        per record). self.counted holds the count so far when an error is raised."""
        views = ffi.new("tfn_bytes[]", 4096)
        got = ffi.new("size_t *")
        self.counted = 0
        while True:
            rc = lib.tfn_record_reader_next_batch(self._r, views, 4096, got, self._err)
            if rc == lib.TFN_TIMEOUT:  # a long damaged region: back in Python (Ctrl-C)
                if progress is not None:
                    progress.update()
                continue
            if rc == lib.TFN_END:
                return self.counted
            if rc < 0:
                _crecord._raise(rc, self._err, self._fio, self.name, where=True)
            self.counted += got[0]
            if progress is not None:
                progress.update(records=got[0])

    def _skip_reason(self):
        last_skip = getattr(lib, "tfn_record_reader_last_skip", None)
        if last_skip is None:
            return "corrupted record (CRC mismatch)"
        skip = ffi.new("tfn_record_skip *")
        last_skip(self._r, skip)
        return _REASONS.get(skip.reason, "damaged")

    def _close_owned(self):
        if self._owned is not None:
            self._owned.close()
            self._owned = None

    def close(self):
        r, self._r = getattr(self, "_r", None), None
        if r is not None:
            ffi.release(r)
        self._close_owned()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

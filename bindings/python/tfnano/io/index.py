"""Record indexes and random access to TFRecord files.

An index lists the (offset, framed length) of every record of a file, in the text
format of NVIDIA DALI's ``tfrecord2idx`` and of the ``tfrecord`` PyPI package: one
``"offset length"`` line per record, the length counting the 16 framing bytes. With it
a file has a length, can be split by record across workers without reading it, and
(uncompressed) can be read at any record::

    from tfnano.io.index import TFRecordFile, build_index, load_index
    idx = load_index("train.tfrecord")      # train.tfrecord.idx, a cache, or built
    f = TFRecordFile("train.tfrecord")      # random access over a memory map
    len(f), f[12345]                        # record count, one record's bytes

For GZIP / ZLIB files the index holds offsets in the decompressed stream, and random
access goes through seek points (zlib's zran method, built by one pass over the file
on first use): each read inflates at most about a MiB.

Command line: ``python -m tfnano.io.index FILE... [--out PATH] [--cache-dir DIR]``.
"""
import glob
import hashlib
import mmap
import os
import sys

import numpy as np

from .. import errors
from .._c import index as _cindex
from .._c.record import Reader

SUFFIXES = (".idx", ".index", ".tfindex")
_HEADER = 12   # length (8) + length CRC (4)
_OVERHEAD = 16  # header + payload CRC (4)
_COMPRESSIONS = ("", "ZLIB", "GZIP")


def file_list(files):
    """A path, a glob pattern, or a list of paths -> a list of str paths (a pattern is
    expanded and sorted, so that every worker process sees the same list): the file
    lists of the torch and grain adapters."""
    if isinstance(files, (str, bytes, os.PathLike)):
        p = os.fsdecode(files) if isinstance(files, bytes) else os.fspath(files)
        if any(c in p for c in "*?[") and not os.path.exists(p):
            found = sorted(glob.glob(p))
            if not found:
                raise FileNotFoundError("no file matches %r" % p)
            return found
        return [p]
    out = [os.fsdecode(f) if isinstance(f, bytes) else os.fspath(f) for f in files]
    if not out:
        raise ValueError("no files given")
    return out


def _compression_name(compression):
    if compression is None:
        return None
    if isinstance(compression, bytes):
        compression = compression.decode()
    if isinstance(compression, int) and not isinstance(compression, bool):
        return {0: "", 1: "ZLIB", 2: "GZIP"}[compression]
    c = str(compression).upper()
    if c in ("NONE",):
        c = ""
    if c not in _COMPRESSIONS:
        raise ValueError('Not a valid compression_type: "%s"' % (compression,))
    return c


class RecordIndex:
    """Offsets and framed lengths (``np.int64`` arrays) of a file's records.

    ``compression`` is "" for an uncompressed file (offsets are file offsets) or
    "GZIP" / "ZLIB" (offsets into the decompressed stream)."""

    __slots__ = ("offsets", "lengths", "compression")

    def __init__(self, offsets, lengths, compression=""):
        self.offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        self.lengths = np.ascontiguousarray(lengths, dtype=np.int64)
        if self.offsets.shape != self.lengths.shape or self.offsets.ndim != 1:
            raise ValueError("offsets and lengths must be 1-D arrays of one length")
        self.compression = compression

    def __len__(self):
        return len(self.offsets)

    def __getitem__(self, i):
        return int(self.offsets[i]), int(self.lengths[i])

    def __iter__(self):
        """(offset, length) of each record."""
        return zip(self.offsets.tolist(), self.lengths.tolist())

    def __repr__(self):
        return "RecordIndex(%d records%s)" % (
            len(self), ", %s stream offsets" % self.compression if self.compression else "")

    def __eq__(self, other):
        return (isinstance(other, RecordIndex) and np.array_equal(self.offsets, other.offsets)
                and np.array_equal(self.lengths, other.lengths))

    def __getstate__(self):
        return (self.offsets, self.lengths, self.compression)

    def __setstate__(self, state):
        self.offsets, self.lengths, self.compression = state

    @property
    def end(self):
        """The offset just after the last record (the file size when uncompressed)."""
        return int(self.offsets[-1] + self.lengths[-1]) if len(self) else 0

    def to_text(self):
        """The index file's text (bytes)."""
        if not len(self):
            return b""
        pairs = np.stack([self.offsets, self.lengths], axis=1)
        lines = "\n".join("%d %d" % (o, n) for o, n in pairs.tolist())
        return (lines + "\n").encode("ascii")

    def save(self, path):
        """Writes the index file (atomically: a temporary file renamed over it)."""
        path = os.fspath(path)
        tmp = "%s.tmp-%d" % (path, os.getpid())
        with open(tmp, "wb") as f:
            f.write(self.to_text())
        os.replace(tmp, path)
        return path

    @classmethod
    def from_text(cls, text, name="<index>"):
        """Parses index text ("offset length" per line; the C parser checks it)."""
        if isinstance(text, str):
            text = text.encode("ascii", "replace")
        return cls(*_cindex.parse(text, name))

    @classmethod
    def load(cls, path):
        """Reads an index file written by tfnano, DALI's tfrecord2idx or vahidk's
        tfrecord2idx."""
        path = os.fspath(path)
        with open(path, "rb") as f:
            return cls.from_text(f.read(), path)


def _open_reader(path, compression):
    return Reader(path, compression, 1 << 20, locate=False)


def _stream_index(path, compression):
    """Offsets in the decompressed stream, from the lengths of a batched read."""
    r = _open_reader(path, compression)
    lengths = []
    try:
        while True:
            got = r.lengths_batch(4096)
            if got is None:
                break
            lengths.append(got.astype(np.int64) + _OVERHEAD)
    finally:
        r.close()
    lens = np.concatenate(lengths) if lengths else np.zeros(0, np.int64)
    offs = np.zeros(len(lens), np.int64)
    if len(lens):
        np.cumsum(lens[:-1], out=offs[1:])
    return RecordIndex(offs, lens, compression)


def build_index(path, compression=None, out=None):
    """Reads `path` once and returns its :class:`RecordIndex` (length CRCs checked;
    a damaged record raises DataLossError naming the file and offset).

    compression: None detects it; "", "GZIP" or "ZLIB" say it. out: also write the
    index file there (DALI / vahidk format)."""
    path = os.fspath(path)
    comp = _compression_name(compression)
    if comp in (None, ""):
        r = _open_reader(path, "AUTO" if comp is None else "")
        try:
            arrays = _cindex.build(r, compressed_ok=comp is None)
            detected = r.compression()
        finally:
            r.close()
        if arrays is not None:
            index = RecordIndex(*arrays)
        else:
            index = _stream_index(path, detected)
    else:
        index = _stream_index(path, comp)
    if out is not None:
        index.save(out)
    return index


def default_cache_dir():
    """$TFNANO_INDEX_CACHE, else $XDG_CACHE_HOME/tfnano/index (~/.cache/...)."""
    d = os.environ.get("TFNANO_INDEX_CACHE")
    if d:
        return d
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tfnano", "index")


def cache_path(path, cache_dir=None):
    """Where the index of `path` goes in the cache directory (named by a hash of the
    absolute path, so files of the same name in different folders do not clash)."""
    path = os.path.abspath(os.fspath(path))
    key = hashlib.sha1(path.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return os.path.join(cache_dir or default_cache_dir(),
                        "%s-%s.idx" % (os.path.basename(path)[:64], key))


def _fresh(index_path, data_path, size):
    """An index file is used when it is not older than the data and (for an
    uncompressed file) ends exactly at the end of the file."""
    try:
        if os.stat(index_path).st_mtime < os.stat(data_path).st_mtime:
            return None
        idx = RecordIndex.load(index_path)
    except (OSError, errors.OpError):
        return None
    if size is not None and idx.end != size:
        return None
    return idx


def load_index(path, index=None, cache_dir=None, save=True, compression=None):
    """The index of a TFRecord file: `index` when given (a RecordIndex or an index
    file's path), else an up-to-date index file next to the data (``path + ".idx"``,
    ``".index"`` or ``".tfindex"``) or in the cache directory, else built by reading
    the file once and saved (next to the data when that folder is writable, else in
    the cache; save=False keeps it in memory only)."""
    if isinstance(index, RecordIndex):
        return index
    if index is not None:
        return RecordIndex.load(index)
    path = os.fspath(path)
    comp = _compression_name(compression)
    if comp is None:
        comp = _detect(path)
    size = os.path.getsize(path) if comp == "" else None
    for cand in [path + s for s in SUFFIXES] + [cache_path(path, cache_dir)]:
        if os.path.exists(cand):
            idx = _fresh(cand, path, size)
            if idx is not None:
                idx.compression = comp
                return idx
    idx = build_index(path, comp)
    if save:
        _save_somewhere(idx, path, cache_dir)
    return idx


def _detect(path):
    r = _open_reader(path, "AUTO")
    try:
        r.next_record()
    except errors.OpError:
        pass
    finally:
        c = r.compression()
        r.close()
    return c if c in ("GZIP", "ZLIB") else ""


def _save_somewhere(idx, path, cache_dir):
    for target in (path + SUFFIXES[0], cache_path(path, cache_dir)):
        try:
            os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
            return idx.save(target)
        except OSError:
            continue
    return None


def count_records(files, cache_dir=None, compression=None):
    """Total records of one file or a list of files, from their indexes."""
    if isinstance(files, (str, bytes, os.PathLike)):
        files = [files]
    return sum(len(load_index(f, cache_dir=cache_dir, compression=compression))
               for f in files)


class TFRecordFile:
    """Random access to the records of one local TFRecord file (``len(f)``,
    ``f[i]`` -> bytes, ``f.gather(indices)`` for the batch parser), over the file's
    index: a memory map for an uncompressed file; for GZIP / ZLIB, seek points built
    by one pass over the file on first use (zlib's zran method: a point every
    `seek_spacing` decompressed bytes, ~32 KiB of memory each), each read inflating
    from the point before it. Record CRCs are checked on every read (verify=False
    skips the payload CRC). One thread at a time per object (each process or thread
    opens its own)."""

    def __init__(self, path, index=None, cache_dir=None, verify=True, compression=None,
                 seek_spacing=1 << 20):
        self.path = os.fspath(path)
        self.verify = bool(verify)
        self.index = load_index(self.path, index, cache_dir, compression=compression)
        comp = self.index.compression if compression is None else _compression_name(compression)
        self.compression = comp or ""
        self.seek_spacing = int(seek_spacing)
        self._reset()

    def _reset(self):
        self._mm = None
        self._base = 0
        self._sp = None
        self._last = None

    # Memory maps and seek points are made lazily and not pickled (each process makes
    # its own).
    def __getstate__(self):
        return {"path": self.path, "verify": self.verify, "index": self.index,
                "compression": self.compression, "seek_spacing": self.seek_spacing}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._reset()

    # ------------------------------------------------------------ compressed files
    def _seek_points(self):
        if self._sp is None:
            self._sp = _cindex.SeekPoints(self.path, self.compression, self.seek_spacing)
            if self._sp.total < self.index.end:
                raise errors.DataLossError(
                    None, None, "%s: the stream inflates to %d bytes but its index ends at "
                    "%d (the index is stale: delete it to rebuild)"
                    % (self.path, self._sp.total, self.index.end))
            self._unframer = _cindex.Unframer(self.verify)
        return self._sp

    def _gather_compressed(self, idx):
        """Records idx of a compressed file: records close together in the stream are
        inflated in one read."""
        sp = self._seek_points()
        n = len(idx)
        out = np.empty((n, 2), dtype=np.uint64)
        keep = []
        if not n:
            return out, keep
        offs = self.index.offsets[idx]
        lens = self.index.lengths[idx]
        order = np.argsort(offs, kind="stable")
        so, sl = offs[order].tolist(), lens[order].tolist()
        k = 0
        while k < n:
            start, stop = so[k], so[k] + sl[k]
            e = k + 1
            while e < n and so[e] - stop < (256 << 10) and so[e] + sl[e] - start < (64 << 20):
                stop = max(stop, so[e] + sl[e])
                e += 1
            buf = bytearray(stop - start)
            got = sp.read(start, buf)
            if got != len(buf):
                raise errors.DataLossError(None, None, "%s: the stream ends at %d, before "
                                           "record bytes %d..%d the index names (stale "
                                           "index?)" % (self.path, start + got, start, stop))
            base, cbuf = _cindex.address(buf)
            keep.append((buf, cbuf))
            for q in range(k, e):
                j = int(order[q])
                at = so[q] - start
                got = self._unframer.unframe(base + at, sl[q], so[q], int(idx[j]))
                if got is None:
                    raise errors.DataLossError(
                        None, None, "%s: record %d at stream offset %d is not the %d "
                        "bytes the index says (stale index?)"
                        % (self.path, int(idx[j]), so[q], sl[q]))
                out[j, 0], out[j, 1] = got
            k = e
        return out, keep

    def _indices(self, indices):
        idx = np.asarray(indices, dtype=np.int64).reshape(-1)
        n = len(self)
        if idx.size and (idx.min() < -n or idx.max() >= n):
            raise IndexError("record index out of range (the file has %d records)" % n)
        return np.where(idx < 0, idx + n, idx)

    def gather(self, indices):
        """(views, keep): the payloads of records `indices` (any order) as an (n, 2)
        uint64 array of (address, length), CRCs checked, valid while `keep` is alive."""
        if self.compression:
            return self._gather_compressed(self._indices(indices))
        return self.views(indices), self

    def _map(self):
        if self.compression:
            raise errors.InvalidArgumentError(
                None, None, "%s is %s-compressed: its records are read through seek points "
                "(gather, [i]), not a memory map" % (self.path, self.compression))
        if self._mm is None:
            size = os.path.getsize(self.path)
            if size < self.index.end:
                raise errors.DataLossError(
                    None, None, "%s: the file has %d bytes but its index ends at %d (the "
                    "index is stale: delete it to rebuild)" % (self.path, size, self.index.end))
            self._unframer = _cindex.Unframer(self.verify)
            if size == 0:
                self._mm, self._keep, self._base = b"", None, 0
                return self._mm
            with open(self.path, "rb") as f:
                self._mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            self._base, self._keep = _cindex.address(self._mm)
        return self._mm

    def __len__(self):
        return len(self.index)

    def _frame_span(self, first, last):
        offs, lens = self.index.offsets, self.index.lengths
        return int(offs[first]), int(offs[last] + lens[last] - offs[first])

    def check(self, first, stop):
        """Unframes records [first, stop) in one C call (CRCs checked); returns their
        payload views as a (n, 2) uint64 array of (address, length)."""
        self._map()
        n = stop - first
        if n <= 0:
            return np.empty((0, 2), dtype=np.uint64)
        start, span = self._frame_span(first, stop - 1)
        views = _cindex.check_run(self._base + start, span, n, self.path, self.verify,
                                  first, start)
        done = len(views)
        if done != n:
            raise errors.DataLossError(None, None, "%s: %d records from record %d expected "
                                       "by the index, %d found (stale index?)"
                                       % (self.path, n, first, done))
        got_lens = views[:n, 1].astype(np.int64) + _OVERHEAD
        if not np.array_equal(got_lens, self.index.lengths[first:stop]):
            raise errors.DataLossError(None, None, "%s: records %d..%d do not match the "
                                       "index (stale index?)" % (self.path, first, stop - 1))
        return views[:n]

    def _unframe(self, i):
        """(pointer, length) of record i's payload after one C call checking it."""
        off = int(self.index.offsets[i])
        ln = int(self.index.lengths[i])
        got = self._unframer.unframe(self._base + off, ln, off, i)
        if got is None:
            raise errors.DataLossError(None, None, "%s: record %d at offset %d is not "
                                       "the %d bytes the index says (stale index?)"
                                       % (self.path, i, off, ln))
        return got

    def views(self, indices):
        """Payload views of records `indices` (any order) as an (n, 2) uint64 array of
        (address, length), each record's CRCs checked; valid while this object is alive
        (for a compressed file: until the next views call; gather() gives a keep-alive
        of its own)."""
        if self.compression:
            v, self._last = self.gather(indices)
            return v
        idx = self._indices(indices)
        self._map()
        out = np.empty((idx.size, 2), dtype=np.uint64)
        if not idx.size:
            return out
        # Runs of consecutive records are checked in one C call each, lone records
        # with one unframe call.
        breaks = np.flatnonzero(np.diff(idx) != 1) + 1
        starts = np.concatenate([[0], breaks]).tolist()
        stops = np.concatenate([breaks, [idx.size]]).tolist()
        idl = idx.tolist()
        offs = self.index.offsets
        for s, e in zip(starts, stops):
            if e - s >= 8:
                out[s:e] = self.check(idl[s], idl[e - 1] + 1)
                continue
            for k in range(s, e):
                _, ln = self._unframe(idl[k])
                out[k, 0] = self._base + int(offs[idl[k]]) + _HEADER
                out[k, 1] = ln
        return out

    def views_one(self, i):
        """The (1, 2) views array of record i (0 <= i < len), CRCs checked."""
        if self.compression:
            return self.views([i])
        if self._mm is None:
            self._map()
        _, ln = self._unframe(i)
        return np.array([[self._base + int(self.index.offsets[i]) + _HEADER, ln]],
                        dtype=np.uint64)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        i = int(i)
        n = len(self.index.offsets)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("record index out of range (the file has %d records)" % n)
        if self.compression:
            v, keep = self.gather([i])
            ln = int(v[0, 1])
            return _cindex.bytes_at(int(v[0, 0]), ln)
        if self._mm is None:
            self._map()
        p, ln = self._unframe(i)
        return _cindex.bytes_at(p, ln)

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def close(self):
        self._sp = self._last = None
        mm, self._mm = self._mm, None
        self._keep = None
        if isinstance(mm, mmap.mmap):
            try:
                mm.close()
            except BufferError:  # views still exported: the map closes when they go
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "TFRecordFile(%r, %d records)" % (self.path, len(self))


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(
        prog="python -m tfnano.io.index",
        description="Write DALI / tfrecord-format index files (one 'offset length' line "
                    "per record) for TFRecord files.")
    ap.add_argument("files", nargs="+", help="TFRecord files")
    ap.add_argument("--out", help="index path (one input file only); default FILE.idx")
    ap.add_argument("--cache-dir", help="write into this directory instead of next to "
                    "the data")
    ap.add_argument("--compression", choices=["NONE", "GZIP", "ZLIB"],
                    help="default: detected")
    args = ap.parse_args(argv)
    if args.out and len(args.files) != 1:
        ap.error("--out takes one input file")
    status = 0
    for f in args.files:
        try:
            out = (args.out or (cache_path(f, args.cache_dir) if args.cache_dir
                                else f + SUFFIXES[0]))
            if args.cache_dir:
                os.makedirs(args.cache_dir, exist_ok=True)
            idx = build_index(f, args.compression, out=out)
            print("%s: %d records -> %s" % (f, len(idx), out))
        except (OSError, errors.OpError) as e:
            print("%s: %s" % (f, e), file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())

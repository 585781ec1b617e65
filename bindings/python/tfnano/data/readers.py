"""``tf.data.TFRecordDataset`` and its source stage.

The stage reads each file in chunks of records (one C call per chunk, the GIL
released) and interleaves the open files as tf.data does for ``num_parallel_reads``
(cycle_length files, block_length 1; a finished file's slot takes the next file,
which gets its turn when the cycle comes back). Asked for one element it returns a
scalar string tensor; asked for a batch (``next_records``) it returns a
:class:`RecordViews`: pointers into the chunks, in interleave order, with no Python
object per record, which the parsers read directly.
"""
import os

import numpy as np

from .. import errors
from .._c import ffi
from .._tensor import as_tensor, scalar_string
from . import plan
from .plan import AUTOTUNE

DEFAULT_BUFFER = 1 << 20  # read buffer per open file when buffer_size is not given
READ_AHEAD = True        # files of big records read a chunk ahead on a thread of
AHEAD_MIN_RECORD = 16 << 10  # their own (records of at least this many bytes on average)
CHUNK = 256              # records read ahead per file, at most ...
READ_BYTES = 1 << 20     # ... or this many bytes (at least one record)


class RecordViews:
    """A batch of records as (address, length) pairs into buffers it keeps alive. It
    behaves like the 1-D string tensor TensorFlow gives (len, indexing, iteration,
    ``.numpy()``); tf.io.parse_example and tfnano.Parser read it without copying."""

    __slots__ = ("views", "keep", "_arr")

    def __init__(self, views, keep):
        self.views = views  # uint64 (n, 2): address, length
        self.keep = keep
        self._arr = None

    def _tfn_views(self):
        return self.views, self.keep

    @classmethod
    def join(cls, parts):
        """Several batches as one (their buffers all kept alive)."""
        return cls(np.concatenate([p.views for p in parts]),
                   [k for p in parts for k in p.keep])

    def numpy(self):
        if self._arr is None:
            n = len(self.views)
            arr = np.empty(n, dtype=object)
            v = self.views.tolist()
            arr[:] = [ffi.buffer(ffi.cast("char *", p), ln)[:] if ln else b"" for p, ln in v]
            self._arr = arr
        return self._arr

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def __len__(self):
        return len(self.views)

    def __getitem__(self, i):
        return as_tensor(self.numpy())[i]

    def __iter__(self):
        return iter(as_tensor(self.numpy()))

    @property
    def shape(self):
        return (len(self),)

    @property
    def ndim(self):
        return 1

    @property
    def dtype(self):
        return np.dtype(object)

    def __repr__(self):
        return "RecordViews(%d records)" % len(self)


def join_views(parts):
    """One RecordViews of several, in order."""
    parts = [p for p in parts if len(p)]
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return RecordViews(np.empty((0, 2), dtype=np.uint64), ())
    return RecordViews(np.concatenate([p.views for p in parts]), tuple(p.keep for p in parts))


class _Chunks:
    """A file's records, a chunk at a time (at least CHUNK records or READ_BYTES, or
    to the end): (buffers kept alive, addresses, lengths, count). A read error after
    some records comes at the next call, after those records; then the end."""

    def __init__(self, source, opener):
        self.source, self.opener = source, opener
        self.reader = None
        self.stats = None
        self.pending = None
        self.ended = False

    def __iter__(self):
        return self

    def __next__(self):
        if self.pending is not None:
            e, self.pending = self.pending, None
            raise e
        if self.ended:
            raise StopIteration
        bases, ptrs, lens = [], [], []
        count = nbytes = 0
        try:
            if self.reader is None:
                self.reader = self.opener(self.source)
                self.stats = getattr(self.opener, "stats", None)
            while count < CHUNK and nbytes < READ_BYTES:
                got = self.reader.read_batch(CHUNK - count, pooled=True)
                if got is None:
                    self.close()
                    break
                if len(got) == 3:  # (data, starts, lengths): records need not touch
                    data, starts, lengths = got
                else:  # (data, offsets): records end to end
                    data, offs = got
                    starts, lengths = offs[:-1], np.diff(offs)
                buf = ffi.from_buffer(data) if len(data) else ffi.new("char[]", 1)
                bases.append((data, buf))
                ptrs.append(starts.astype(np.uint64) +
                            np.uint64(int(ffi.cast("uintptr_t", buf))))
                lens.append(lengths.astype(np.uint64))
                count += len(lengths)
                nbytes += len(data)
        except BaseException as e:
            self.close()
            if not count:
                raise
            self.pending = e  # after the records read before it
        if not count:
            raise StopIteration
        return (bases, ptrs[0] if len(ptrs) == 1 else np.concatenate(ptrs),
                lens[0] if len(lens) == 1 else np.concatenate(lens), count)

    def read_one(self):
        """The next record alone, as bytes read straight from the file (one copy, the
        CRC computed during it), with no chunk; None at the end. An error closes the
        file (tf.data then moves on to the next one)."""
        if self.pending is not None:
            e, self.pending = self.pending, None
            raise e
        if self.ended:
            return None
        try:
            if self.reader is None:
                self.reader = self.opener(self.source)
                self.stats = getattr(self.opener, "stats", None)
            rec = self.reader.next_record()
        except BaseException:
            self.close()
            raise
        if rec is None:
            self.close()
        return rec

    def close(self):
        self.ended = True
        r, self.reader = self.reader, None
        if r is not None:
            if self.stats is not None:
                self.stats.add(r)
            r.close()


class _Ahead:
    """A Producer seen as an iterator."""
    __slots__ = ("p",)

    def __init__(self, producer):
        self.p = producer

    def __next__(self):
        return self.p.next()

    def close(self):
        self.p.close()


class _Slot:
    """One file of the cycle: its chunks (read ahead on a thread of their own when
    READ_AHEAD: the C reads release the GIL, so reading overlaps with parsing), and
    the current chunk's records as absolute (address, length) pairs."""
    __slots__ = ("source", "chunks", "done", "base", "pos", "end", "ptrs", "lens")

    def __init__(self, source):
        self.source = source
        self.chunks = None
        self.done = False
        self.pos = self.end = 0
        self.base = None

    def avail(self):
        return self.end - self.pos

    def fill(self, opener):
        """Takes the next chunk; marks the slot done at the end or on an error (which
        is raised: tf.data then moves on to the next file)."""
        first = self.chunks is None
        if first:
            self.chunks = _Chunks(self.source, opener)
        try:
            got = next(self.chunks)
        except StopIteration:
            self.finish()
            return
        except BaseException:
            self.finish()
            raise
        self.base, self.ptrs, self.lens, count = got
        self.pos, self.end = 0, count
        if first and READ_AHEAD and int(self.lens.sum()) >= count * AHEAD_MIN_RECORD:
            # big records: reading is a large share of the work, worth a thread
            from .workers import Producer
            self.chunks = _Ahead(Producer(self.chunks, 2, name="tfnano-read"))

    def next_record(self, opener):
        """The file's next record as bytes, or None when it is finished. Records already
        buffered (a chunk read for next_records, or read ahead) come first; else the
        record is read alone, straight into the bytes object returned."""
        if self.avail():
            return self.take_bytes()
        if self.done:
            return None
        if self.chunks is None:
            self.chunks = _Chunks(self.source, opener)
        if isinstance(self.chunks, _Ahead):  # a read-ahead thread owns the reader
            self.fill(opener)
            return self.take_bytes() if self.avail() else None
        try:
            rec = self.chunks.read_one()
        except BaseException:
            self.finish()
            raise
        if rec is None:
            self.finish()
        return rec

    def take_bytes(self):
        p = self.pos
        self.pos = p + 1
        ln = int(self.lens[p])
        return ffi.buffer(ffi.cast("char *", int(self.ptrs[p])), ln)[:] if ln else b""

    def take_views(self, count):
        p = self.pos
        self.pos = p + count
        return self.ptrs[p:p + count], self.lens[p:p + count], self.base

    def finish(self):
        self.done = True
        c, self.chunks = self.chunks, None
        if c is not None:
            c.close()


class RecordSourceStage(plan.Stage):
    """The records of `files`, `cycle` files interleaved `block` records at a time."""

    def __init__(self, files, opener, cycle, block):
        self._files = list(files)
        self._opener = opener
        self._cycle = max(1, cycle)
        self._block = max(1, block)
        self._slots = None
        self._i = 0
        self._in_block = 0
        self._late = None

    def _start(self):
        self._slots = []
        while self._files and len(self._slots) < self._cycle:
            self._slots.append(_Slot(self._files.pop(0)))

    def _turn(self):
        """The slot whose turn it is, with a record ready; None at the end."""
        slots = self._slots
        while slots:
            self._i %= len(slots)
            s = slots[self._i]
            if s.avail():
                return s
            if not s.done:
                s.fill(self._opener)  # an error leaves the slot done: next call moves on
                if s.avail():
                    return s
            # the file is finished: the next file takes its place and waits a turn
            self._in_block = 0
            if self._files:
                slots[self._i] = _Slot(self._files.pop(0))
                self._i += 1
            else:
                slots.pop(self._i)
        return None

    def _advance(self, count):
        self._in_block += count
        if self._in_block >= self._block:
            self._in_block = 0
            self._i += 1

    def __next__(self):
        """One record (a scalar string tensor): read alone from its file, straight into
        its bytes object (no chunk is copied first), in interleave order."""
        if self._slots is None:
            self._start()
        slots = self._slots
        while slots:
            self._i %= len(slots)
            rec = slots[self._i].next_record(self._opener)  # an error: the slot is done
            if rec is not None:
                self._advance(1)
                return scalar_string(rec)
            # the file is finished: the next file takes its place and waits a turn
            self._in_block = 0
            if self._files:
                slots[self._i] = _Slot(self._files.pop(0))
                self._i += 1
            else:
                slots.pop(self._i)
        raise StopIteration

    partial_records = True  # next_records(n, partial=True) is offered

    def next_records(self, n, partial=False):
        """Up to n records as one RecordViews, None at the end. A read error drops
        what was gathered (as batch does), or with `partial` returns it and is
        raised by the next call (a map hands on the records before it). A raised
        error carries ``_tfn_gathered``: the records read before it (dropped)."""
        if self._late is not None:
            e, self._late = self._late, None
            raise e
        need = [n]
        try:
            return self._next_records(n, need, partial)
        except Exception as e:
            e._tfn_gathered = n - need[0]
            raise

    def _next_records(self, n, need_box, partial):
        if self._slots is None:
            self._start()
        ptrs, lens, keep = [], [], []
        need = n
        block = self._block
        while need > 0:
            slots = self._slots
            k = len(slots)
            if k and self._in_block == 0:
                m = min(s.avail() for s in slots) // block
                m = min(m, need // (k * block))
                if m > 0:  # whole rounds: every slot has its records buffered
                    order = [slots[(self._i + j) % k] for j in range(k)]
                    parts = [s.take_views(m * block) for s in order]
                    ptrs.append(np.stack([p[0].reshape(m, block) for p in parts], 1).ravel())
                    lens.append(np.stack([p[1].reshape(m, block) for p in parts], 1).ravel())
                    keep.extend(p[2] for p in parts)
                    need -= m * k * block
                    need_box[0] = need
                    continue
            try:
                s = self._turn()
            except Exception as e:
                if not partial or need == n:
                    raise
                self._late = e
                break
            if s is None:
                break
            take = min(block - self._in_block, s.avail(), need)
            p, ln, b = s.take_views(take)
            ptrs.append(p)
            lens.append(ln)
            keep.append(b)
            need -= take
            need_box[0] = need
            self._advance(take)
        if need == n:
            return None
        views = np.empty((n - need, 2), dtype=np.uint64)
        views[:, 0] = np.concatenate(ptrs) if len(ptrs) > 1 else ptrs[0]
        views[:, 1] = np.concatenate(lens) if len(lens) > 1 else lens[0]
        return RecordViews(views, keep)

    def close(self):
        for s in self._slots or ():
            s.finish()
        self._slots = []
        self._files = []


class DamageStats:
    """What on_damage="skip"/"warn" readers skipped, summed over the files read so
    far (all passes)."""

    def __init__(self):
        self.skipped_records = 0
        self.skipped_bytes = 0

    def add(self, reader):
        self.skipped_records += int(getattr(reader, "skipped_records", 0) or 0)
        self.skipped_bytes += int(getattr(reader, "skipped_bytes", 0) or 0)

    def __repr__(self):
        return "DamageStats(skipped_records=%d, skipped_bytes=%d)" % (
            self.skipped_records, self.skipped_bytes)


class _Opener:
    def __init__(self, compression, buffer_size, on_damage, stats, max_record_size=None):
        self.args = (compression, buffer_size, on_damage, max_record_size)
        self.stats = stats

    def __call__(self, source):
        from ..io.tf_record import open_reader
        return open_reader(source, *self.args)


class FileSourceNode(plan.Node):
    """A source of scalar strings read from files, `cycle` files interleaved; a
    subclass gives opener(), what turns a file into records (TFRecord, lines,
    fixed-length records)."""

    def __init__(self, files, compression, buffer_size, cycle):
        super().__init__()
        self.files = files
        self.compression, self.buffer_size = compression, buffer_size
        self.cycle = cycle

    def attrs(self):
        a = {"files": len(self.files)}
        if self.compression:
            a["compression"] = self.compression
        if self.cycle != 1:
            a["num_parallel_reads"] = self.cycle
        return a

    def cycle_length(self):
        from .autotune import cycle_length
        return cycle_length(self.cycle, self.cycle)

    def element_spec(self):
        from .._trace import Spec
        return Spec(object, ())

    def stage(self, ctx):
        return RecordSourceStage(self.files, self.opener(), self.cycle_length(), 1)


class TFRecordNode(FileSourceNode):
    op = "TFRecordDataset"

    def __init__(self, files, compression, buffer_size, cycle, on_damage="raise",
                 max_record_size=None):
        super().__init__(files, compression, buffer_size, cycle)
        self.on_damage = on_damage
        self.max_record_size = max_record_size
        self.stats = DamageStats()

    def attrs(self):
        a = super().attrs()
        if self.on_damage != "raise":
            a["on_damage"] = self.on_damage
        return a

    def opener(self):
        return _Opener(self.compression, self.buffer_size, self.on_damage, self.stats,
                       self.max_record_size)


def _filenames(filenames):
    from ..io.tf_record import filename_error, fspath
    from .dataset import Dataset
    if filenames is None or isinstance(filenames, (int, float, np.number)):
        raise filename_error(filenames)
    if isinstance(filenames, Dataset):
        return [fspath(f) for f in filenames]
    if isinstance(filenames, (str, bytes, os.PathLike)) or hasattr(filenames, "read"):
        return [filenames if hasattr(filenames, "read") else fspath(filenames)]
    if isinstance(filenames, np.ndarray):
        return [fspath(f) for f in filenames.reshape(-1).tolist()]
    try:
        items = list(filenames)
    except TypeError:
        raise TypeError("`filenames` must be a `tf.Tensor` of `tf.string` dtype or a "
                        "`tf.data.Dataset` of scalar `tf.string`. Got %s."
                        % type(filenames).__name__) from None
    return [f if hasattr(f, "read") else fspath(f) for f in items]


def TFRecordDataset(filenames, compression_type=None, buffer_size=None,  # noqa: N802
                    num_parallel_reads=None, name=None, *, on_damage="raise",
                    max_record_size=None):
    """``tf.data.TFRecordDataset``: the records of the files, each a scalar string
    tensor. Files are read in order; with `num_parallel_reads` one record is taken
    from each of that many open files in turn (tf.data's interleave). Any Python file
    object open for binary reading may stand in for a file name.

    Beyond TensorFlow: ``on_damage="skip"`` resynchronises after a damaged record and
    goes on with the good ones after it ("warn": the same, with a warning per damaged
    range); ``"raise"`` (the default) is TensorFlow's DataLossError. The dataset's
    ``damage`` attribute counts the records and bytes skipped so far.
    ``max_record_size``: a record header claiming more bytes is a DataLossError
    naming the claim (damage with on_damage="skip"); at most, and by default, 2 GiB."""
    from .dataset import Dataset
    if on_damage not in ("raise", "skip", "warn"):
        raise ValueError('on_damage must be "raise", "skip" or "warn", got %r' % (on_damage,))
    files = _filenames(filenames)
    from ..io.tf_record import tf_compression  # tfnano.io loads on first read
    comp = tf_compression(compression_type)
    if buffer_size is not None and int(buffer_size) < 0 and int(buffer_size) != -1:
        raise errors.InvalidArgumentError(None, None,
                                          "`buffer_size` must be >= 0 (0 == no buffering)")
    # TensorFlow's default is 256 KiB; 1 MiB per open file reads big records (images)
    # with fewer calls and moves (measured: 12 % less CPU per 100 KiB record)
    bufsize = DEFAULT_BUFFER if buffer_size in (None, -1) else int(buffer_size)
    cycle = 1 if num_parallel_reads is None else int(num_parallel_reads)
    if cycle == 0 or cycle < AUTOTUNE:
        raise errors.invalid("`num_parallel_reads` must be "
                             "positive or AUTOTUNE, got %d" % cycle)
    from .._c.record import max_record_size as _max_record
    node = TFRecordNode(files, comp, bufsize, cycle, on_damage, _max_record(max_record_size))
    ds = Dataset(node)
    ds.damage = node.stats
    return ds


__all__ = ["TFRecordDataset", "RecordViews"]

"""``tf.data.TextLineDataset`` and ``tf.data.FixedLengthRecordDataset``.

Both read their files through the record source of TFRecordDataset (readers.py:
tf.data's interleave order for ``num_parallel_reads``, chunks of records as views into
read buffers, traced maps run on whole batches of them). Their readers hand out a
chunk of records at a time as (buffer, starts, lengths), found with numpy: no Python
object per line until one is asked for.

TensorFlow's rules, checked against TensorFlow 2.21:
- a line ends at "\\n"; every "\\r" in it is dropped (BufferedInputStream::ReadLine),
  so "\\r\\n" ends a line and a lone "\\r" vanishes; a last line without "\\n" counts
  when something is left of it;
- fixed-length records: `header_bytes` skipped, `footer_bytes` left at the end;
  uncompressed, a body that is not a whole number of records is InvalidArgumentError
  before the file's first record; compressed (ZLIB / GZIP, streamed), DataLossError
  after its last whole record.
"""
import os
import zlib

import numpy as np

from .. import errors
from . import plan
from .plan import AUTOTUNE
from .readers import FileSourceNode, _filenames

DEFAULT_BUFFER = 256 << 10   # TensorFlow's read buffer when buffer_size is not given
READ_BYTES = 1 << 20         # bytes read per chunk of records


def _compression(compression_type):
    from ..io.tf_record import tf_compression  # tfnano.io loads on first read
    comp = tf_compression(compression_type)
    if comp not in ("", "ZLIB", "GZIP"):
        raise errors.invalid("Unsupported compression_type.")
    return comp


class _Stream:
    """A file's bytes, decompressed when asked (ZLIB or GZIP, as TensorFlow's
    ZlibInputStream; concatenated GZIP members follow each other), `size` bytes per
    read; b"" at the end."""

    def __init__(self, source, compression, size):
        self.size = max(int(size), 1 << 12)
        self.own = not hasattr(source, "read")
        self.f = _open(source) if self.own else source
        self.gzip = compression == "GZIP"
        self.z = self._inflater() if compression else None

    def _inflater(self):
        return zlib.decompressobj(zlib.MAX_WBITS | (16 if self.gzip else 0))

    def read(self):
        if self.z is None:
            return self.f.read(self.size)
        while True:
            if self.z.eof:  # a member ended: GZIP may go on with another
                pending = self.z.unused_data or (self.f.read(self.size) if self.gzip
                                                 else b"")
                if not (self.gzip and pending):
                    return b""
                self.z = self._inflater()
            else:
                pending = self.z.unconsumed_tail or self.f.read(self.size)
                if not pending:  # a stream cut short ends there, as TensorFlow reads it
                    return b""
            try:  # bounded output: a highly compressed file does not fill memory
                out = self.z.decompress(pending, 4 * self.size)
            except zlib.error as e:
                raise errors.make(errors.DataLossError, _inflate_text(e)) from None
            if out:
                return out

    def close(self):
        f, self.f = self.f, None
        if f is not None and self.own:
            f.close()


def _inflate_text(e):
    """TensorFlow's text for a zlib failure ("inflate() failed with error -3: ...")."""
    msg = str(e)
    code = -3 if "-3" in msg else -5 if "-5" in msg else -2
    detail = msg.split(": ", 1)[-1] if ": " in msg else msg
    return "inflate() failed with error %d: %s" % (code, detail)


def _open(source):
    from .. import _fserrors
    from ..io.tf_record import fsspec_open, is_url
    if is_url(source):
        return fsspec_open(source, "rb")
    path = source[len("file://"):] if source.startswith("file://") else source
    if os.path.isdir(path):
        raise _fserrors.is_a_directory(source)
    try:
        return open(path, "rb")
    except OSError as e:
        raise _fserrors.from_oserror(e, source) from None


def _size(source):
    """The size of a local file (TensorFlow's GetFileSize), with its errors."""
    from .. import _fserrors
    from ..io.tf_record import is_url
    if hasattr(source, "seek"):
        pos = source.tell()
        size = source.seek(0, os.SEEK_END)
        source.seek(pos)
        return size
    if is_url(source):
        import fsspec
        return fsspec.filesystem(source.split("://", 1)[0]).size(source)
    path = source[len("file://"):] if source.startswith("file://") else source
    try:
        return os.path.getsize(path)
    except OSError as e:
        raise _fserrors.from_oserror(e, source) from None


class _OneAtATime:
    """next_record() over read_batch(): what tf.data's per-record iteration asks of a
    file's reader (TFRecord readers read each record alone; lines and fixed-length
    records come from the chunk already read)."""

    _chunk = None
    _at = 0

    def next_record(self):
        while self._chunk is None or self._at >= len(self._chunk[1]):
            got = self.read_batch(0)
            if got is None:
                self._chunk = None
                return None
            self._chunk, self._at = got, 0
        data, starts, lengths = self._chunk
        i, self._at = self._at, self._at + 1
        return data[int(starts[i]):int(starts[i]) + int(lengths[i])]


class _LineReader(_OneAtATime):
    """One file's lines, a chunk at a time."""

    def __init__(self, source, compression, buffer_size):
        self.s = _Stream(source, compression, max(buffer_size, READ_BYTES))
        self.pending = b""
        self.ended = False

    def read_batch(self, n, pooled=False):
        while not self.ended:
            data = self.s.read()
            if not data:
                self.ended = True
                last = self.pending.replace(b"\r", b"")
                self.pending = b""
                if last:
                    return last, np.zeros(1, np.int64), np.array([len(last)], np.int64)
                return None
            cut = data.rfind(b"\n")
            if cut < 0:
                self.pending += data
                continue
            lines = self.pending + data[:cut + 1] if self.pending else data[:cut + 1]
            self.pending = data[cut + 1:]
            if b"\r" in lines:
                lines = lines.replace(b"\r", b"")
            ends = np.flatnonzero(np.frombuffer(lines, np.uint8) == 10)
            starts = np.empty(len(ends), np.int64)
            starts[0] = 0
            starts[1:] = ends[:-1] + 1
            return lines, starts, ends - starts
        return None

    def close(self):
        self.s.close()


class _FixedReader(_OneAtATime):
    """One file's fixed-length records, a chunk at a time."""

    def __init__(self, source, compression, buffer_size, header, record, footer):
        self.h, self.r, self.f = header, record, footer
        self.source, self.compression = source, compression
        self.name = getattr(source, "name", source)
        self.left = None  # uncompressed: records still to read
        if not compression:
            size = _size(source)
            body = (size - header - footer) % (1 << 64)  # TensorFlow's uint64
            if body % record:
                raise errors.invalid(_body_text(
                    header, footer, self.name, body, record))
            if size < header:
                raise _out_of_range("Read less bytes than requested")
            self.left = body // record if size >= header + footer else 0
        self.s = _Stream(source, compression, max(buffer_size, READ_BYTES))
        self.buf = b""
        self.done = 0  # records handed out
        self.skipped = False
        self.ended = False

    def _fill(self, need):
        while len(self.buf) < need:
            data = self.s.read()
            if not data:
                return False
            self.buf += data
        return True

    def read_batch(self, n, pooled=False):
        if self.ended:
            return None
        r = self.r
        if not self.skipped:  # the header (and, compressed, the footer's look-ahead)
            self.skipped = True
            if not self._fill(self.h + (self.f if self.compression else 0)) and \
                    self.compression:
                self.ended = True
                raise _out_of_range("EOF reached")
            self.buf = self.buf[self.h:]
        want = max(1, READ_BYTES // r)
        if self.left is not None:  # uncompressed: the count is known
            k = min(want, self.left)
            if k == 0:
                self.ended = True
                return None
            self._fill(k * r)
            k = min(k, len(self.buf) // r)
            if k == 0:
                self.ended = True
                return None
            self.left -= k
        else:
            more = self._fill(self.f + want * r)
            k = (len(self.buf) - self.f) // r
            if k > want:
                k = want
            if k == 0:
                self.ended = True
                partial = len(self.buf) - self.f
                if partial > 0 and not more:
                    raise errors.make(errors.DataLossError, _body_text(
                        self.h, self.f, self.name, self.done * r + partial, r))
                return None
        self.done += k
        data, self.buf = self.buf[:k * r], self.buf[k * r:]
        return data, np.arange(k, dtype=np.int64) * r, np.full(k, r, np.int64)

    def close(self):
        self.s.close()


def _out_of_range(original):
    """TensorFlow's InternalError for a file shorter than its header (and, compressed,
    its footer): the kernel's OutOfRange reaches the iterator."""
    return errors.InternalError(
        None, None, "Iterator \"FixedLengthRecordDataset\" returned `OutOfRange`. This "
        "indicates an implementation error as `OutOfRange` errors are not expected to be "
        "returned here. Original message: %s" % original)


def _body_text(header, footer, name, body, record):
    return ("Excluding the header (%d bytes) and footer (%d bytes), input file \"%s\" has "
            "body length %d bytes, which is not an exact multiple of the record length "
            "(%d bytes)." % (header, footer, name, body, record))


class _LineOpener:
    def __init__(self, compression, buffer_size):
        self.args = (compression, buffer_size)

    def __call__(self, source):
        comp, size = self.args
        return _LineReader(source, _compression(comp), size)


class _FixedOpener:
    def __init__(self, compression, buffer_size, header, record, footer):
        self.args = (compression, buffer_size, header, record, footer)

    def __call__(self, source):
        comp, size, h, r, f = self.args
        return _FixedReader(source, _compression(comp), size, h, r, f)


class TextLineNode(FileSourceNode):
    op = "TextLineDataset"

    def opener(self):
        return _LineOpener(self.compression, self.buffer_size)


class FixedLengthNode(FileSourceNode):
    op = "FixedLengthRecordDataset"

    def __init__(self, files, compression, buffer_size, cycle, header, record, footer):
        super().__init__(files, compression, buffer_size, cycle)
        self.header, self.record, self.footer = header, record, footer

    def attrs(self):
        a = {"files": len(self.files), "record_bytes": self.record}
        if self.header:
            a["header_bytes"] = self.header
        if self.footer:
            a["footer_bytes"] = self.footer
        a.update((k, v) for k, v in super().attrs().items() if k != "files")
        return a

    def opener(self):
        return _FixedOpener(self.compression, self.buffer_size, self.header, self.record,
                            self.footer)


class _Failing(plan.Node):
    """A dataset whose iteration raises `error` (TensorFlow checks these arguments in
    the dataset kernel, so the error comes when iterating)."""
    op = "error"

    def __init__(self, error, op):
        super().__init__()
        self.error, self.op = error, op

    def element_spec(self):
        from .._trace import Spec
        return Spec(object, ())

    def stage(self, ctx):
        error = self.error

        class _Raise(plan.Stage):
            def __next__(self):
                raise error
        return _Raise()


def _cycle(num_parallel_reads):
    cycle = 1 if num_parallel_reads is None else int(num_parallel_reads)
    if cycle == 0 or cycle < AUTOTUNE:
        raise errors.invalid("`num_parallel_reads` must be "
                             "positive or AUTOTUNE, got %d" % cycle)
    return cycle


def _int(value):
    return int(np.asarray(value).reshape(()))


def TextLineDataset(filenames, compression_type=None, buffer_size=None,  # noqa: N802
                    num_parallel_reads=None, name=None):
    """``tf.data.TextLineDataset``: each line of the files (without its "\\n" and any
    "\\r"), a scalar string tensor; files read in order, or `num_parallel_reads` at a
    time in tf.data's interleave order. ZLIB and GZIP files are streamed."""
    from .dataset import Dataset
    files = _filenames(filenames)
    cycle = _cycle(num_parallel_reads)
    size = 0 if buffer_size is None else _int(buffer_size)
    if size < 0:
        return Dataset(_Failing(errors.InvalidArgumentError(
            None, None, "`buffer_size` must be >= 0 (0 == default)"), "TextLineDataset"))
    from ..io.tf_record import tf_compression  # tfnano.io loads on first read
    comp = tf_compression(compression_type)
    if comp not in ("", "ZLIB", "GZIP"):
        return Dataset(_Failing(errors.InvalidArgumentError(
            None, None, "Unsupported compression_type."), "TextLineDataset"))
    return Dataset(TextLineNode(files, comp, size or DEFAULT_BUFFER, cycle))


def FixedLengthRecordDataset(filenames, record_bytes, header_bytes=None,  # noqa: N802
                             footer_bytes=None, buffer_size=None, compression_type=None,
                             num_parallel_reads=None, name=None):
    """``tf.data.FixedLengthRecordDataset``: the files cut into records of
    `record_bytes` bytes each (a scalar string tensor), after `header_bytes` and
    before `footer_bytes`; ZLIB and GZIP files are streamed."""
    from .dataset import Dataset
    files = _filenames(filenames)
    cycle = _cycle(num_parallel_reads)
    record = _int(record_bytes)
    header = 0 if header_bytes is None else _int(header_bytes)
    footer = 0 if footer_bytes is None else _int(footer_bytes)
    size = 0 if buffer_size is None else _int(buffer_size)
    for ok, text in ((header >= 0, "`header_bytes` must be >= 0"),
                     (record > 0, "`record_bytes` must be > 0"),
                     (footer >= 0, "`footer_bytes` must be >= 0"),
                     (size >= 0, "`buffer_size` must be >= 0")):
        if not ok:
            return Dataset(_Failing(errors.invalid(text),
                                    "FixedLengthRecordDataset"))
    from ..io.tf_record import tf_compression  # tfnano.io loads on first read
    comp = tf_compression(compression_type)
    if comp not in ("", "ZLIB", "GZIP"):
        return Dataset(_Failing(errors.InvalidArgumentError(
            None, None, "Unsupported compression_type."), "FixedLengthRecordDataset"))
    return Dataset(FixedLengthNode(files, comp, size or DEFAULT_BUFFER, cycle, header,
                                   record, footer))


__all__ = ["TextLineDataset", "FixedLengthRecordDataset"]

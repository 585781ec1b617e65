"""ReadExamples: TFRecord files read by a splittable DoFn, so that one large file is
read by several workers at once.

A file's restriction is an OffsetRange of its bytes, and a record belongs to the range
that holds its first byte. A reader of [start, stop) finds its first record by
resynchronising from `start` (the first offset where a complete record with a valid
length CRC and payload CRC begins: tfnano's skip-mode reader), then follows the record
lengths, claiming record starts, until it has read a record starting at or after its
(possibly moved) stop. Reading that one record too means the chain of records from the
file's start to its end is checked without a gap (each range checks the record the
next one starts with), and the next range's resync lands on that record: the only
earlier place it could land is inside the record straddling the cut, where bytes would
have to form a whole record with both CRCs right (about 2^-64 for random bytes; for
records that hold TFRecord data themselves, read with split_bytes=None). Compressed
files have no record boundaries in their bytes: one restriction each, never split.
"""
import numpy as np

try:
    import apache_beam as beam
    from apache_beam.io import fileio
    from apache_beam.io.filesystem import CompressionTypes
    from apache_beam.io.restriction_trackers import (OffsetRange, OffsetRestrictionTracker,
                                                     UnsplittableRestrictionTracker)
except ImportError:  # pragma: no cover - the message names the extra
    raise ImportError("tfnano.beam needs Apache Beam: pip install 'tfnano[beam]'") from None

from .. import _c, errors

_FRAMING = 16            # length (8) + length CRC (4) + payload CRC (4)
SPLIT_BYTES = 64 << 20   # as Beam's file sources: 64 MiB per initial split
_BUFFER = 1 << 20


def file_compression(path, compression):
    """The compression of one file: the one given, else by extension (.gz GZIP,
    .zlib ZLIB, anything else none)."""
    if compression is not None:
        c = str(compression).upper()
        return "" if c in ("", "NONE", "UNCOMPRESSED") else c
    if path.endswith(".gz"):
        return "GZIP"
    if path.endswith(".zlib"):
        return "ZLIB"
    return ""


class WholeFile(OffsetRange):
    """The restriction of a compressed file: all of it, read by one worker."""


class RecordRanges(beam.transforms.core.RestrictionProvider):
    """Byte ranges of a file (fileio.ReadableFile): split_bytes each for an uncompressed
    file (or one range when split_bytes is None), the whole file when compressed."""

    def __init__(self, split_bytes=SPLIT_BYTES, compression=None):
        self.split_bytes = None if split_bytes is None else max(1, int(split_bytes))
        self.compression = compression

    def initial_restriction(self, readable_file):
        size = int(readable_file.metadata.size_in_bytes)
        if file_compression(readable_file.metadata.path, self.compression) \
                or self.split_bytes is None:
            return WholeFile(0, size)
        return OffsetRange(0, size)

    def split(self, readable_file, restriction):
        if isinstance(restriction, WholeFile):
            yield restriction
            return
        yield from restriction.split(self.split_bytes, max(1, self.split_bytes // 4))

    def create_tracker(self, restriction):
        tracker = OffsetRestrictionTracker(restriction)
        if isinstance(restriction, WholeFile):
            return UnsplittableRestrictionTracker(tracker)
        return tracker

    def restriction_size(self, readable_file, restriction):
        return restriction.size()


def first_record_at(fh, start):
    """Offset of the first complete valid record (length CRC and payload CRC) starting
    at or after `start` in a seekable uncompressed file, or None when there is none."""
    from .._c.record import Reader
    fh.seek(start)
    r = Reader(fh, "", _BUFFER, on_damage="skip")
    try:
        rec = r.next_record()
        end = r.tell()
    except errors.DataLossError:
        # a length running past the end with nothing valid after it: a torn last
        # record is reported by the range before (it reads the first record after
        # its stop), or bytes inside a record that merely look like a header
        return None
    finally:
        r.close()
    if rec is None:
        return None
    return start + end - len(rec) - _FRAMING


def read_range(fh, tracker, batch_size):
    """Yields RecordBatches of the records whose first byte lies in the tracker's range
    (an uncompressed, seekable file), claiming the start of the last record of each
    batch (claims only move forward, and no split lands at or before a claimed
    position, so every record up to it belongs to this range)."""
    from .._c.record import Reader
    from ..io.tf_record import RecordBatch
    rng = tracker.current_restriction()
    if rng.start >= rng.stop:
        return
    at = rng.start if rng.start == 0 else first_record_at(fh, rng.start)
    if at is None:
        tracker.try_claim(rng.stop)  # nothing starts here: done
        return
    fh.seek(at)
    r = Reader(fh, "", _BUFFER)
    try:
        while True:
            got = r.read_batch(batch_size)
            if got is None:  # end of file: claim past the range to finish it
                tracker.try_claim(max(at, tracker.current_restriction().stop))
                return
            data, offsets = got
            starts = at + offsets[:-1] + _FRAMING * np.arange(len(offsets) - 1)
            at = int(starts[-1]) + int(offsets[-1] - offsets[-2]) + _FRAMING
            stop = tracker.current_restriction().stop
            k = int(np.searchsorted(starts, stop))  # records starting before stop
            if k == 0:
                tracker.try_claim(int(starts[0]))  # fails: the range ends here
                return
            if not tracker.try_claim(int(starts[k - 1])):
                # split concurrently below that record: ours are those before the new stop
                k = int(np.searchsorted(starts, tracker.current_restriction().stop))
                done = True
            else:
                done = k < len(starts)
                if done:
                    tracker.try_claim(int(starts[k]))  # fails: marks the range finished
            if k:
                yield RecordBatch(data, offsets[:k + 1])
            if done:
                return
    finally:
        r.close()


def read_whole(fh, compression, tracker, batch_size):
    """Yields RecordBatches of a whole (compressed) file: one claim at its start."""
    from ..arrow._reader import read_record_batches
    rng = tracker.current_restriction()
    if not tracker.try_claim(rng.start):
        return
    yield from read_record_batches(fh, compression, batch_size)
    tracker.try_claim(max(rng.stop, rng.start + 1))


def convert(records, features, output):
    """One RecordBatch as the ReadExamples output kind (a generator of elements)."""
    if output == "arrow":
        from ..arrow import to_arrow
        yield to_arrow(records, features)
    elif output == "numpy":
        from .._parsing import parse_example
        yield {k: np.asarray(v) for k, v in parse_example(records, features).items()}
    else:
        yield from (bytes(r) for r in records.numpy())


class ReadRanges(beam.DoFn, beam.transforms.core.RestrictionProvider):
    """fileio.ReadableFile -> parsed batches of the records in each restriction (the
    DoFn is its own RestrictionProvider: RecordRanges')."""

    def __init__(self, ranges, features, batch_size, output, compression):
        super().__init__()
        self._ranges = ranges
        self._args = (features, batch_size, output, compression)
        self._count = beam.metrics.Metrics.counter("tfnano.beam", "ranges_read")

    def initial_restriction(self, readable_file):
        return self._ranges.initial_restriction(readable_file)

    def split(self, readable_file, restriction):
        return self._ranges.split(readable_file, restriction)

    def create_tracker(self, restriction):
        return self._ranges.create_tracker(restriction)

    def restriction_size(self, readable_file, restriction):
        return self._ranges.restriction_size(readable_file, restriction)

    def process(self, readable_file, tracker=beam.DoFn.RestrictionParam()):
        features, batch_size, output, compression = self._args
        comp = file_compression(readable_file.metadata.path, compression)
        self._count.inc()
        with readable_file.open(compression_type=CompressionTypes.UNCOMPRESSED) as fh:
            if comp or isinstance(tracker.current_restriction(), WholeFile):
                batches = read_whole(fh, comp, tracker, batch_size)
            else:
                batches = read_range(fh, tracker, batch_size)
            for records in batches:
                yield from convert(records, features, output)


class ReadExamples(beam.PTransform):
    """Reads TFRecord files of tf.train.Examples, a batch of records at a time.

    features: {key: tf.io.FixedLenFeature / VarLenFeature / ...}. output: "arrow"
    (default: pyarrow RecordBatches, as tfnano.arrow.to_arrow), "numpy" (dicts of
    numpy arrays, as tf.io.parse_example; FixedLen features only) or "bytes" (the
    serialized records). Files are matched with fileio.MatchFiles; compression None
    means by extension (.gz GZIP, .zlib ZLIB).

    An uncompressed file is split into byte ranges of split_bytes (64 MiB; the
    runner may split them further while they run), each read by one worker, every
    record exactly once: a range starts at the first valid record (length and data
    CRCs) at or after its first byte. split_bytes=None reads each file whole: use it
    for files whose records hold TFRecord files themselves (a range could then
    resynchronise inside a record). A compressed file is always read whole."""

    def __init__(self, file_pattern, features=None, batch_size=4096, output="arrow",
                 compression=None, split_bytes=SPLIT_BYTES):
        super().__init__()
        if output not in ("arrow", "numpy", "bytes"):
            raise ValueError("output must be 'arrow', 'numpy' or 'bytes', got %r" % output)
        if output == "numpy" and not features:
            raise ValueError("output='numpy' needs features")
        if split_bytes is not None and int(split_bytes) < 1:
            raise ValueError("split_bytes must be >= 1 or None, got %r" % (split_bytes,))
        self._pattern = file_pattern
        self._ranges = RecordRanges(split_bytes, compression)
        self._args = (features, int(batch_size), output, compression)

    def expand(self, pbegin):
        return (pbegin
                | "Match" >> fileio.MatchFiles(self._pattern)
                | "Open" >> fileio.ReadMatches()
                | "Reshuffle" >> beam.Reshuffle()
                | "Read" >> beam.ParDo(ReadRanges(self._ranges, *self._args)))

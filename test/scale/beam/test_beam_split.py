"""ReadExamples splits an uncompressed TFRecord file into byte ranges: every record is
read exactly once whatever the split points (initial or made while a range runs),
damage is still reported, and a compressed file is one range."""
import gzip
import os
import random

import apache_beam as beam
import numpy as np
import pytest
from apache_beam.io import fileio
from apache_beam.io.filesystem import FileMetadata
from apache_beam.io.restriction_trackers import OffsetRange, OffsetRestrictionTracker
from apache_beam.options.pipeline_options import PipelineOptions

import tfnano as tf
from tfnano.beam import ReadExamples
from tfnano.beam._read import RecordRanges, ReadRanges, WholeFile, read_range


def payloads(n, seed):
    """Records of random bytes and lengths (some empty, some longer than a batch of
    the others), so split points fall in headers, payloads and footers alike."""
    rng = np.random.default_rng(seed)
    sizes = rng.choice([0, 1, 7, 40, 300, 5000], size=n, p=[.05, .1, .2, .35, .25, .05])
    return [rng.integers(0, 256, s, dtype=np.uint8).tobytes() for s in sizes]


def write(path, records, compression=None):
    with tf.io.TFRecordWriter(str(path), compression) as w:
        for r in records:
            w.write(r)
    return str(path)


def read_ranges(path, cuts, batch_size):
    """The records of each range [cuts[i], cuts[i+1]) read by read_range, each range's
    tracker checked done."""
    out = []
    with open(path, "rb") as fh:
        for a, b in zip(cuts[:-1], cuts[1:]):
            tracker = OffsetRestrictionTracker(OffsetRange(a, b))
            for batch in read_range(fh, tracker, batch_size):
                out.extend(bytes(r) for r in batch.numpy())
            tracker.check_done()
    return out


def test_random_split_points_read_every_record_once(tmp_path):
    recs = payloads(400, seed=1)
    path = write(tmp_path / "r.tfrec", recs)
    size = os.path.getsize(path)
    rnd = random.Random(5)
    for trial in range(200):
        k = rnd.choice([1, 2, 3, 8, 40, 200])
        cuts = sorted({0, size, *(rnd.randrange(1, size) for _ in range(k))})
        got = read_ranges(path, cuts, batch_size=rnd.choice([1, 3, 64, 4096]))
        assert got == recs, "trial %d, cuts %s" % (trial, cuts)


def test_every_single_split_point(tmp_path):
    """Two ranges cut at each byte of a small file: headers, payloads, CRCs."""
    recs = payloads(12, seed=2)[:12]
    path = write(tmp_path / "s.tfrec", recs)
    size = os.path.getsize(path)
    for cut in range(1, size):
        assert read_ranges(path, [0, cut, size], batch_size=5) == recs, cut


def test_cuts_at_record_starts_and_inside_the_last_record(tmp_path):
    recs = payloads(30, seed=3)
    path = write(tmp_path / "b.tfrec", recs)
    starts = np.concatenate([[0], np.cumsum([len(r) + 16 for r in recs])]).tolist()
    size = starts[-1]
    assert read_ranges(path, starts, batch_size=4) == recs  # one range per record
    assert read_ranges(path, [0, size - 1, size], batch_size=4) == recs
    assert read_ranges(path, [0, starts[-2] + 1, size], batch_size=4) == recs


def test_tiny_files(tmp_path):
    # an empty file: no range at all, or an empty one read as nothing
    empty = write(tmp_path / "e.tfrec", [])
    assert os.path.getsize(empty) == 0
    ranges = RecordRanges(split_bytes=4)
    assert list(ranges.split(readable(empty), ranges.initial_restriction(readable(empty)))) == []
    assert read_ranges(empty, [0, 0], batch_size=3) == []
    # one empty record (16 bytes) and one 1-byte record, cut at every byte
    for recs in ([b""], [b"x"], [b"", b""]):
        path = write(tmp_path / "one.tfrec", recs)
        size = os.path.getsize(path)
        for cut in range(1, size):
            assert read_ranges(path, [0, cut, size], batch_size=1) == recs, (recs, cut)
        assert read_ranges(path, list(range(size + 1)), batch_size=2) == recs
    # a range larger than the file: one range
    big = RecordRanges(split_bytes=1 << 20)
    assert list(big.split(readable(path), big.initial_restriction(readable(path)))) == [
        OffsetRange(0, size)]
    assert len(list(ranges.split(readable(path), OffsetRange(0, size)))) > 1
    # 1 to 11 bytes after the last record (a partial header) are a clean end, as for
    # TensorFlow's reader and tfnano's unsplit one, wherever the file is cut
    whole = open(path, "rb").read()
    for tail in (5, 11):
        with open(tmp_path / "h.tfrec", "wb") as f:
            f.write(whole[:tail])
        for cuts in ([0, tail], [0, 2, tail], [0, 1, 4, tail]):
            assert read_ranges(str(tmp_path / "h.tfrec"), cuts, batch_size=1) == []
        with open(tmp_path / "h.tfrec", "wb") as f:
            f.write(whole + whole[:tail])
        n = len(whole) + tail
        assert [bytes(r) for r in tf.data.TFRecordDataset(str(tmp_path / "h.tfrec"))] == recs
        for cut in range(1, n):
            assert read_ranges(str(tmp_path / "h.tfrec"), [0, cut, n], batch_size=1) == recs


class SplittingTracker(OffsetRestrictionTracker):
    """A tracker the 'runner' splits while it runs: after some claims it gives away a
    random fraction of what remains (kept in `residuals`)."""

    def __init__(self, rng, residuals, rnd):
        super().__init__(rng)
        self.rnd, self.residuals = rnd, residuals

    def try_claim(self, position):
        if self.rnd.random() < 0.3:
            split = self.try_split(self.rnd.choice([0.0, 0.1, 0.5, 0.9]))
            if split:
                self.residuals.append(split[1])
        return super().try_claim(position)


def test_splits_while_reading_read_every_record_once(tmp_path):
    recs = payloads(300, seed=4)
    path = write(tmp_path / "d.tfrec", recs)
    size = os.path.getsize(path)
    rnd = random.Random(9)
    for trial in range(60):
        pending, got = [OffsetRange(0, size)], {}
        with open(path, "rb") as fh:
            while pending:
                rng = pending.pop()
                tracker = SplittingTracker(rng, pending, rnd)
                got[rng.start] = [bytes(r) for b in read_range(fh, tracker, rnd.choice([1, 2, 7]))
                                  for r in b.numpy()]
                tracker.check_done()
        # the ranges in file order hold the records in file order
        assert [r for s in sorted(got) for r in got[s]] == recs, trial
        assert len(got) > 1


def test_damage_is_reported_whatever_the_split(tmp_path):
    recs = payloads(40, seed=6)
    path = write(tmp_path / "x.tfrec", recs)
    starts = np.cumsum([0] + [len(r) + 16 for r in recs]).tolist()
    j = next(i for i in range(20, 40) if len(recs[i]) > 4)
    data = bytearray(open(path, "rb").read())
    data[starts[j] + 12 + 2] ^= 0x40  # a payload byte of record j: its data CRC fails
    open(path, "wb").write(bytes(data))
    size = len(data)
    for cut in [starts[j] - 1, starts[j], starts[j] + 1, starts[j] + 13, starts[j + 1],
                starts[j - 1] + 3, size // 2]:
        with pytest.raises(tf.errors.DataLossError):
            read_ranges(path, [0, cut, size], batch_size=3)


def test_torn_last_record_is_reported_whatever_the_split(tmp_path):
    recs = payloads(30, seed=10)
    recs[-1] = bytes(range(200))
    path = write(tmp_path / "t.tfrec", recs)
    data = open(path, "rb").read()
    torn = len(data) - 100  # the last record loses its end
    open(path, "wb").write(data[:torn])
    last = torn - (200 + 16 - 100)
    for cut in [1, last - 5, last, last + 1, last + 12, torn - 1]:
        with pytest.raises(tf.errors.DataLossError):
            read_ranges(path, [0, cut, torn], batch_size=4)


def readable(path):
    return fileio.ReadableFile(FileMetadata(path, os.path.getsize(path)))


def test_gzip_file_is_one_range_never_split(tmp_path):
    recs = payloads(200, seed=7)
    path = write(tmp_path / "g.tfrec.gz", recs, "GZIP")
    ranges = RecordRanges(split_bytes=100)
    f = readable(path)
    r0 = ranges.initial_restriction(f)
    assert isinstance(r0, WholeFile) and (r0.start, r0.stop) == (0, os.path.getsize(path))
    assert list(ranges.split(f, r0)) == [r0]
    tracker = ranges.create_tracker(r0)
    assert not tracker.try_split(0.5)
    fn = ReadRanges(ranges, None, 16, "bytes", None)
    assert list(fn.process(f, tracker)) == recs
    tracker.check_done()
    # uncompressed: split into ranges of about split_bytes
    plain = readable(write(tmp_path / "p.tfrec", recs))
    parts = list(ranges.split(plain, ranges.initial_restriction(plain)))
    assert len(parts) > 10 and parts[0].start == 0
    assert all(a.stop == b.start for a, b in zip(parts, parts[1:]))
    assert not any(isinstance(p, WholeFile) for p in parts)


def test_split_bytes_none_reads_whole_files(tmp_path):
    path = write(tmp_path / "w.tfrec", payloads(50, seed=8))
    ranges = RecordRanges(split_bytes=None)
    r0 = ranges.initial_restriction(readable(path))
    assert isinstance(r0, WholeFile)
    with pytest.raises(ValueError, match="split_bytes"):
        ReadExamples(path, split_bytes=0)


def test_direct_runner_multiprocess_reads_one_file_in_many_ranges(tmp_path):
    n = 3000
    recs = tf.serialize_columns({"id": np.arange(n, dtype=np.int64),
                                 "pad": np.zeros((n, 20), np.int64)})
    (tmp_path / "data").mkdir()
    write(tmp_path / "data" / "big.tfrec", recs)
    with gzip.open(tmp_path / "data" / "small.tfrec.gz", "wb") as f:
        pass  # an empty GZIP file: no record
    write(tmp_path / "data" / "more.tfrec.gz", tf.serialize_columns(
        {"id": np.arange(n, n + 500, dtype=np.int64), "pad": np.zeros((500, 20), np.int64)}),
        "GZIP")
    out = str(tmp_path / "ids")
    opts = PipelineOptions(["--runner=DirectRunner", "--direct_num_workers=2",
                            "--direct_running_mode=multi_processing"])
    feats = {"id": tf.io.FixedLenFeature([], tf.int64)}
    p = beam.Pipeline(options=opts)
    (p | ReadExamples(str(tmp_path / "data" / "*"), feats, batch_size=100,
                      split_bytes=8192)
       | beam.FlatMap(lambda b: b.column("id").to_pylist())
       | beam.combiners.ToList()
       | beam.Map(sorted)
       | beam.io.WriteToText(out, shard_name_template=""))
    result = p.run()
    result.wait_until_finish()
    with open(out) as f:
        assert f.read().strip() == str(list(range(n + 500)))
    size = os.path.getsize(tmp_path / "data" / "big.tfrec")
    counters = result.metrics().query(beam.metrics.MetricsFilter().with_name(
        "ranges_read"))["counters"]
    ranges_read = sum(c.committed or c.attempted or 0 for c in counters)
    # the big file in ~size/8192 ranges, plus one for each GZIP file
    assert ranges_read >= size // 8192 + 2 - 1 > 10

"""tf.data.TextLineDataset and FixedLengthRecordDataset: TensorFlow 2.21's lines and
records for the same files (values taken from TensorFlow; test/conformance compares
random files), errors, compression, parallel reads, traced maps over lines."""
import gzip
import zlib

import numpy as np
import pytest

import tfnano as tf
from tfnano.errors import (DataLossError, FailedPreconditionError, InternalError,
                           InvalidArgumentError, NotFoundError)


def _write(path, data):
    path.write_bytes(data)
    return str(path)


def _lines(ds):
    return [x.numpy() for x in ds]


def test_line_splitting_follows_tensorflow(tmp_path):
    a = _write(tmp_path / "a.txt", b"l1\nl2\r\nl3\rx\n\nl5\r")
    assert _lines(tf.data.TextLineDataset(a)) == [b"l1", b"l2", b"l3x", b"", b"l5"]
    assert _lines(tf.data.TextLineDataset(_write(tmp_path / "d", b"\r\n\r\n\r"))) == [b"", b""]
    assert _lines(tf.data.TextLineDataset(_write(tmp_path / "e", b"only"))) == [b"only"]
    assert _lines(tf.data.TextLineDataset(_write(tmp_path / "c", b""))) == []
    b = _write(tmp_path / "b.txt", b"b1\nb2\nb3\n")
    e = str(tmp_path / "e")
    assert _lines(tf.data.TextLineDataset([a, b, e], num_parallel_reads=2)) == \
        [b"l1", b"b1", b"l2", b"b2", b"l3x", b"b3", b"", b"l5", b"only"]
    line = next(iter(tf.data.TextLineDataset(a)))
    assert line.dtype == tf.string and line.shape == ()


def test_compressed_and_long_lines(tmp_path):
    text = b"".join(b"line %d\r\n" % i for i in range(50000)) + b"x" * 3000000 + b"\n"
    want = [b"line %d" % i for i in range(50000)] + [b"x" * 3000000]
    g = _write(tmp_path / "t.gz", gzip.compress(text))
    z = _write(tmp_path / "t.z", zlib.compress(text))
    assert _lines(tf.data.TextLineDataset(g, compression_type="GZIP")) == want
    assert _lines(tf.data.TextLineDataset(z, compression_type="ZLIB", buffer_size=7)) == want
    two = _write(tmp_path / "two.gz", gzip.compress(b"a\n") + gzip.compress(b"b\n"))
    assert _lines(tf.data.TextLineDataset(two, compression_type="GZIP")) == [b"a", b"b"]


def test_text_line_errors(tmp_path):
    plain = _write(tmp_path / "p", b"x\n")
    with pytest.raises(NotFoundError, match="missing; No such file or directory"):
        _lines(tf.data.TextLineDataset(str(tmp_path / "missing")))
    with pytest.raises(FailedPreconditionError, match="Is a directory"):
        _lines(tf.data.TextLineDataset(str(tmp_path)))
    bogus = tf.data.TextLineDataset(plain, compression_type="BOGUS")  # raises when read
    with pytest.raises(InvalidArgumentError, match="Unsupported compression_type."):
        _lines(bogus)
    with pytest.raises(InvalidArgumentError, match=r"`buffer_size` must be >= 0 \(0 == "):
        _lines(tf.data.TextLineDataset(plain, buffer_size=-5))
    with pytest.raises(DataLossError, match="incorrect header check"):
        _lines(tf.data.TextLineDataset(plain, compression_type="GZIP"))


def test_fixed_length_records(tmp_path):
    f = _write(tmp_path / "f.bin", bytes(range(26)))
    recs = _lines(tf.data.FixedLengthRecordDataset(f, 4, header_bytes=2, footer_bytes=4))
    assert recs == [bytes(range(i, i + 4)) for i in range(2, 22, 4)]
    assert _lines(tf.data.FixedLengthRecordDataset(f, 5, header_bytes=1)) == \
        [bytes(range(i, i + 5)) for i in range(1, 26, 5)]
    assert _lines(tf.data.FixedLengthRecordDataset([f, f], 13, num_parallel_reads=2)) == \
        [bytes(range(13)), bytes(range(13)), bytes(range(13, 26)), bytes(range(13, 26))]
    gz = _write(tmp_path / "f.gz", gzip.compress(bytes(range(26))))
    assert _lines(tf.data.FixedLengthRecordDataset(
        gz, 4, header_bytes=2, footer_bytes=4, compression_type="GZIP")) == recs
    assert tf.data.FixedLengthRecordDataset(f, 4).element_spec == \
        tf.TensorSpec([], tf.string)


def test_fixed_length_errors(tmp_path):
    f = _write(tmp_path / "f.bin", bytes(range(26)))
    with pytest.raises(InvalidArgumentError, match=r'Excluding the header \(0 bytes\) and '
                       r'footer \(0 bytes\), input file ".*f.bin" has body length 26 bytes, '
                       r"which is not an exact multiple of the record length \(5 bytes\)."):
        _lines(tf.data.FixedLengthRecordDataset(f, 5))
    for kw, text in (({"record_bytes": 0}, "`record_bytes` must be > 0"),
                     ({"record_bytes": 4, "header_bytes": -1}, "`header_bytes` must be >= 0"),
                     ({"record_bytes": 4, "footer_bytes": -1}, "`footer_bytes` must be >= 0"),
                     ({"record_bytes": 4, "buffer_size": -1}, "`buffer_size` must be >= 0"),
                     ({"record_bytes": 4, "compression_type": "X"},
                      "Unsupported compression_type.")):
        with pytest.raises(InvalidArgumentError, match=text):
            _lines(tf.data.FixedLengthRecordDataset(f, **kw))
    gz = _write(tmp_path / "f.gz", gzip.compress(bytes(range(26))))
    recs = []
    with pytest.raises(DataLossError, match="has body length 20 bytes"):
        for r in tf.data.FixedLengthRecordDataset(gz, 7, header_bytes=2, footer_bytes=4,
                                                  compression_type="GZIP"):
            recs.append(r.numpy())  # the whole records come first, then the error
    assert recs == [bytes(range(2, 9)), bytes(range(9, 16))]
    with pytest.raises(InternalError, match="EOF reached"):
        _lines(tf.data.FixedLengthRecordDataset(gz, 5, header_bytes=30,
                                                compression_type="GZIP"))
    with pytest.raises(InternalError, match="Read less bytes than requested"):
        _lines(tf.data.FixedLengthRecordDataset(_write(tmp_path / "s", b"abc"), 2,
                                                header_bytes=5))


def test_traced_text_pipeline_runs_batched(tmp_path):
    path = _write(tmp_path / "t.txt", b"".join(b"Word%d x\n" % (i % 5) for i in range(100)))
    ds = tf.data.TextLineDataset(path).map(
        lambda s: tf.strings.to_hash_bucket_fast(tf.strings.lower(s), 50)).batch(16)
    assert "to_hash_bucket_fast (vectorized)" in ds.plan_text()
    got = np.concatenate([b.numpy() for b in ds])
    want = tf.strings.to_hash_bucket_fast(
        [b"word%d x" % (i % 5) for i in range(100)], 50).numpy()
    assert got.tolist() == want.tolist()

"""tf.data.TextLineDataset and FixedLengthRecordDataset against TensorFlow 2.21: random
file contents (every mix of "\\n", "\\r\\n", lone "\\r", empty lines, no final newline),
uncompressed, ZLIB and GZIP, several files with num_parallel_reads, random header /
record / footer sizes; the same records in the same order, or the same error class
and text."""
import gzip
import re
import sys
import zlib
from pathlib import Path

import pytest

tf = pytest.importorskip("tensorflow")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
import tfnano as tn  # noqa: E402

SETTINGS = settings(max_examples=80, deadline=None, derandomize=True)


def _plain(v):
    return v.tolist() if hasattr(v, "tolist") else v


def _outcome(make):
    try:
        return "ok", [_plain(r.numpy()) for r in make()]
    except Exception as e:  # noqa: BLE001 - class and text compared
        text = str(e).split(" [Op:")[0].split("}} ")[-1].split("\n")[0]
        text = re.sub(r"^.*Iterator::\S+: ", "", text)
        # the iterator's name in this text is the pipeline's, not the reader's
        return "error", (type(e).__name__, re.sub(r'^Iterator "[^"]*"', "Iterator", text))


def same(make):
    a, b = _outcome(lambda: make(tf)), _outcome(lambda: make(tn))
    assert a == b
    return a


def _write(path, data, compression):
    if compression == "GZIP":
        data = gzip.compress(data)
    elif compression == "ZLIB":
        data = zlib.compress(data)
    with open(path, "wb") as f:
        f.write(data)
    return str(path)


text = st.lists(st.sampled_from([b"a", b"bc", b"\n", b"\r", b"\r\n", b" ", b"\xc3\xa9", b""]),
                max_size=30).map(b"".join)


@SETTINGS
@given(contents=st.lists(text, min_size=1, max_size=4),
       compression=st.sampled_from(["", "ZLIB", "GZIP"]),
       parallel=st.sampled_from([None, 1, 2, 3]))
def test_text_lines(tmp_path_factory, contents, compression, parallel):
    d = tmp_path_factory.mktemp("lines")
    files = [_write(d / ("f%d" % i), c, compression) for i, c in enumerate(contents)]
    same(lambda lib: lib.data.TextLineDataset(files, compression_type=compression or None,
                                              num_parallel_reads=parallel))


def test_text_line_edges_and_errors(tmp_path):
    big = b"".join(b"line %d\r\n" % i for i in range(100000)) + b"tail\r"
    paths = {
        "big": _write(tmp_path / "big", big, ""),
        "big.gz": _write(tmp_path / "big.gz", big, "GZIP"),
        "crlf": _write(tmp_path / "crlf", b"\r\n\r\n\r", ""),
        "empty": _write(tmp_path / "empty", b"", ""),
        "plain": _write(tmp_path / "plain", b"x\ny\n", ""),
    }
    for name in ("big", "crlf", "empty"):
        same(lambda lib: lib.data.TextLineDataset(paths[name]))
    same(lambda lib: lib.data.TextLineDataset(paths["big.gz"], compression_type="GZIP"))
    same(lambda lib: lib.data.TextLineDataset(paths["big"], buffer_size=7))
    same(lambda lib: lib.data.TextLineDataset(str(tmp_path / "missing")))
    same(lambda lib: lib.data.TextLineDataset(str(tmp_path)))
    same(lambda lib: lib.data.TextLineDataset(paths["plain"], compression_type="BOGUS"))
    same(lambda lib: lib.data.TextLineDataset(paths["plain"], buffer_size=-5))
    same(lambda lib: lib.data.TextLineDataset(paths["plain"], compression_type="GZIP"))
    truncated = _write(tmp_path / "cut.gz", b"", "")
    with open(truncated, "wb") as f:
        f.write(gzip.compress(big)[:5000])
    same(lambda lib: lib.data.TextLineDataset(truncated, compression_type="GZIP"))


@SETTINGS
@given(size=st.integers(0, 70), record=st.integers(-1, 9), header=st.integers(-1, 12),
       footer=st.integers(-1, 12), compression=st.sampled_from(["", "ZLIB", "GZIP"]),
       files=st.integers(1, 3), parallel=st.sampled_from([None, 2]))
def test_fixed_length_records(tmp_path_factory, size, record, header, footer, compression,
                              files, parallel):
    d = tmp_path_factory.mktemp("fixed")
    paths = [_write(d / ("f%d" % i), bytes((i * 31 + j) % 256 for j in range(size)),
                    compression) for i in range(files)]
    same(lambda lib: lib.data.FixedLengthRecordDataset(
        paths, record, header_bytes=header, footer_bytes=footer,
        compression_type=compression or None, num_parallel_reads=parallel))


def test_fixed_length_errors(tmp_path):
    path = _write(tmp_path / "f", bytes(range(26)), "")
    same(lambda lib: lib.data.FixedLengthRecordDataset(str(tmp_path / "missing"), 4))
    same(lambda lib: lib.data.FixedLengthRecordDataset(path, 4, buffer_size=-1))
    same(lambda lib: lib.data.FixedLengthRecordDataset(path, 4, compression_type="X"))
    same(lambda lib: lib.data.FixedLengthRecordDataset(path, 4, buffer_size=3,
                                                       header_bytes=2, footer_bytes=4))


def test_traced_map_over_lines(tmp_path):
    lines = b"".join(b"Word%d other %d\n" % (i % 7, i) for i in range(300))
    path = _write(tmp_path / "t.txt", lines, "")

    def make(lib):
        return lib.data.TextLineDataset(path).map(
            lambda s: lib.strings.to_hash_bucket_fast(lib.strings.lower(s), 50)).batch(32)
    assert same(make)[0] == "ok"
    assert tn.data.TextLineDataset(path).element_spec == tn.TensorSpec([], tn.string)

"""Damage matrix: tfnano's skip mode against TensorFlow's ignore_errors().

For every damage kind x position x compression, the records tfnano's C reader
returns with TFN_ON_DAMAGE_SKIP must be
  - a superset of those TensorFlow's `TFRecordDataset(...).ignore_errors()` keeps
    (TensorFlow's records appear, in order, among tfnano's), and
  - each byte-identical to an original record, in the original order (nothing
    invented, nothing reordered).
The C library is loaded through test/python/tfn_abi.py (TFN_LIB selects the build).
A summary (records kept by TensorFlow vs recovered by tfnano, per kind) is printed
with `pytest -s`.
"""
import collections
import gzip
import os
import random
import struct
import sys
import zlib
from pathlib import Path

import pytest

tf = pytest.importorskip("tensorflow")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test" / "python"))
from tfn_abi import ffi, lib  # noqa: E402

N = 24
RNG = random.Random(15)
RECORDS = [bytes(RNG.getrandbits(8) for _ in range(n))
           for n in [RNG.choice((0, 1, 7, 40, 300, 2000)) for _ in range(N)]]
RECORDS[9] = bytes(range(256)) * 40  # one long record: a torn one runs past the end


def frames():
    out = []
    for r in RECORDS:
        f = ffi.new("uint8_t[]", lib.tfn_record_frame_size(len(r)))
        w = ffi.new("size_t *")
        assert lib.tfn_record_frame(f, len(f), r, len(r), w, ffi.NULL) == lib.TFN_OK
        out.append(bytes(ffi.buffer(f, w[0])))
    return out


FRAMES = frames()
STARTS = [sum(len(f) for f in FRAMES[:i]) for i in range(N + 1)]
PLAIN = b"".join(FRAMES)
POSITIONS = {"first": 0, "middle": 9, "last": N - 1}


def damage(kind, k):
    """The uncompressed stream with record k damaged by `kind`."""
    d = bytearray(PLAIN)
    s, e = STARTS[k], STARTS[k + 1]
    if kind == "flip_length":
        d[s + 1] ^= 0x20
    elif kind == "flip_length_crc":
        d[s + 9] ^= 0x01
    elif kind == "flip_payload":
        if e - s == 16:
            d[s + 12] ^= 0x01  # empty payload: its CRC
        else:
            d[s + 12 + (e - s - 16) // 2] ^= 0x04
    elif kind == "flip_payload_crc":
        d[e - 2] ^= 0x80
    elif kind == "torn":  # the writer died mid-record; later records whole
        del d[s + (e - s) // 2:e]
    elif kind == "truncated_tail":  # the file ends inside record k
        del d[s + (e - s) // 2:]
    elif kind == "delete_byte":
        del d[s + 5]
    elif kind == "insert_byte":
        d[s + 3:s + 3] = b"\r"
    elif kind == "garbage_before":
        d[s:s] = bytes(RNG.getrandbits(8) for _ in range(37))
    elif kind == "zeroed_block":  # a lost disk block: 512 zero bytes from inside record k
        a = s + 4
        d[a:a + 512] = bytes(min(512, len(d) - a))
    else:
        raise AssertionError(kind)
    return bytes(d)


KINDS = ["flip_length", "flip_length_crc", "flip_payload", "flip_payload_crc", "torn",
         "truncated_tail", "delete_byte", "insert_byte", "garbage_before", "zeroed_block"]


def compress(data, compression):
    if compression == "ZLIB":
        return zlib.compress(data)
    if compression == "GZIP":
        return gzip.compress(data, mtime=0)
    return data


def tfn_skip(path, compression):
    opts = ffi.new("tfn_record_reader_options *")
    lib.tfn_record_reader_options_init(opts)
    opts.compression = {"": lib.TFN_COMPRESSION_NONE, "ZLIB": lib.TFN_COMPRESSION_ZLIB,
                        "GZIP": lib.TFN_COMPRESSION_GZIP}[compression]
    opts.on_damage = lib.TFN_ON_DAMAGE_SKIP
    rp = ffi.new("tfn_record_reader **")
    err = ffi.new("tfn_error *")
    assert lib.tfn_record_reader_open(str(path).encode(), opts, ffi.NULL, rp, err) == 0
    data = ffi.new("const uint8_t **")
    n = ffi.new("size_t *")
    out = []
    try:
        for _ in range(10 * N):
            rc = lib.tfn_record_reader_next(rp[0], data, n, err)
            if rc != lib.TFN_OK:
                break  # TFN_END, or the truncated tail / a broken compressed stream
            out.append(bytes(ffi.buffer(data[0], n[0])))
        else:
            raise AssertionError("the reader does not stop")
    finally:
        lib.tfn_record_reader_free(rp[0])
    return out


def tf_ignore_errors(path, compression):
    ds = tf.data.TFRecordDataset([str(path)], compression_type=compression)
    ds = ds.ignore_errors()
    return [t.numpy() for t in ds.take(10 * N)]


def is_subsequence(small, big):
    it = iter(big)
    return all(any(x == y for y in it) for x in small)


TOTALS = collections.defaultdict(lambda: [0, 0, 0])  # kind -> [cases, TF kept, tfn kept]


@pytest.mark.parametrize("compression", ["", "ZLIB", "GZIP"])
@pytest.mark.parametrize("position", sorted(POSITIONS))
@pytest.mark.parametrize("kind", KINDS)
def test_skip_recovers_a_superset_of_ignore_errors(tmp_path, kind, position, compression):
    p = tmp_path / "d.tfrecord"
    p.write_bytes(compress(damage(kind, POSITIONS[position]), compression))
    ours = tfn_skip(p, compression)
    theirs = tf_ignore_errors(p, compression)
    assert is_subsequence(ours, RECORDS), "a record that is not an original, or reordered"
    assert is_subsequence(theirs, ours), (len(theirs), len(ours))
    t = TOTALS[kind]
    t[0] += 1
    t[1] += len(theirs)
    t[2] += len(ours)


@pytest.mark.parametrize("compression", ["ZLIB", "GZIP"])
def test_damaged_compressed_bytes(tmp_path, compression):
    """Damage to the compressed bytes themselves: zlib stops there, in both readers;
    tfnano returns at least TensorFlow's records, all of them originals."""
    z = compress(PLAIN, compression)
    rng = random.Random(7)
    for pos in sorted(rng.sample(range(len(z)), 40)):
        d = bytearray(z)
        d[pos] ^= 1 << rng.randrange(8)
        p = tmp_path / "z.tfrecord"
        p.write_bytes(bytes(d))
        ours = tfn_skip(p, compression)
        theirs = tf_ignore_errors(p, compression)
        assert is_subsequence(ours, RECORDS), pos
        assert is_subsequence(theirs, ours), (pos, len(theirs), len(ours))
        t = TOTALS["compressed_bytes_flip_" + compression]
        t[0] += 1
        t[1] += len(theirs)
        t[2] += len(ours)


def test_zz_summary():
    """Prints records kept per damage kind (run last: names sort after the others)."""
    lines = ["%-28s %5s %9s %9s" % ("damage", "cases", "TF kept", "tfn kept")]
    for kind, (cases, theirs, ours) in sorted(TOTALS.items()):
        lines.append("%-28s %5d %9d %9d" % (kind, cases, theirs, ours))
        assert ours >= theirs
    print("\n" + "\n".join(lines))
    out = os.environ.get("TFN_DAMAGE_SUMMARY")
    if out:
        Path(out).write_text("\n".join(lines) + "\n")

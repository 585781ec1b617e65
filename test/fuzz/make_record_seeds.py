#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_record_read into test/fuzz/corpus/record_read/.

Each seed is two control bytes (see fuzz_record_read.c) followed by a stream:
small real files from test/data/interop/files (or prefixes of larger ones) and
synthetic records in each compression, damaged, truncated or with absurd lengths.
Run from the repository root: python3 test/fuzz/make_record_seeds.py
"""
import gzip
import os
import struct
import zlib

OUT = "test/fuzz/corpus/record_read"
INTEROP = "test/data/interop/files"
NONE, ZLIB, GZIP, AUTO = 0, 1, 2, 3
SKIP, NO_PAYLOAD_CRC, IO, INDEX = 4, 8, 0x40, 0x80


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def masked(data):
    c = crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def frame(payload, length=None):
    head = struct.pack("<Q", len(payload) if length is None else length)
    return head + struct.pack("<I", masked(head)) + payload + struct.pack("<I", masked(payload))


def seed(name, ctl0, ctl1, stream):
    with open(os.path.join(OUT, "seed-" + name), "wb") as f:
        f.write(bytes([ctl0, ctl1]) + stream)


def main():
    os.makedirs(OUT, exist_ok=True)
    recs = [b"", b"a", b"hello world" * 3, bytes(range(200))]
    plain = b"".join(frame(r) for r in recs)
    seed("synthetic-none", NONE | INDEX, 0x00, plain)
    seed("synthetic-none-batch-io", NONE | IO | 0x20, 0x61, plain)
    seed("synthetic-zlib", ZLIB, 0x02, zlib.compress(plain))
    seed("synthetic-gzip", GZIP | IO | 0x10, 0x83, gzip.compress(plain, mtime=0))
    seed("synthetic-auto-zlib", AUTO, 0x01, zlib.compress(plain, 1))
    seed("synthetic-gzip-two-members", AUTO | SKIP, 0x40,
         gzip.compress(plain[:40], mtime=0) + gzip.compress(plain[40:], mtime=0))
    seed("synthetic-zlib-trailing", ZLIB | IO, 0x05, zlib.compress(plain) + b"junk")
    damaged = bytearray(plain)
    damaged[16 + 17 + 12 + 3] ^= 0x40  # inside the third record's payload
    seed("synthetic-damaged-skip", NONE | SKIP | INDEX, 0x00, bytes(damaged))
    seed("synthetic-damaged-raise", NONE | 0x30, 0x02, bytes(damaged))
    seed("synthetic-damaged-nocrc", AUTO | SKIP | NO_PAYLOAD_CRC, 0x03, bytes(damaged))
    seed("synthetic-truncated", NONE | IO, 0x08, plain[:-7])
    seed("synthetic-truncated-gzip", GZIP, 0x00, gzip.compress(plain, mtime=0)[:-30])
    huge = frame(b"x" * 8)[:12]
    for shift in (60, 63):
        head = struct.pack("<Q", 1 << shift)
        seed("synthetic-length-2^%d" % shift, NONE | SKIP | INDEX, 0x00,
             frame(b"ok") + head + struct.pack("<I", masked(head)) + b"tail" + frame(b"end"))
    seed("synthetic-stray-bytes", AUTO, 0x00, plain + huge[:7])
    seed("synthetic-index-text", NONE | INDEX, 0x00, b"0 16\n16 17\n  33\t27\r\n")
    # real files written by TensorFlow and friends: small ones whole, large ones cut
    files = [
        ("tf_beam_golden_foo_bar.tfrecord", NONE | INDEX, 0x00, None),
        ("java_ecosystem_hadoop_part-m-00000.tfrecord", AUTO | IO, 0x21, None),
        ("tf_pytorchdata_example.tfrecord", NONE | 0x10, 0x42, None),
        ("tf_ydf_toy_nocompress-00000-of-00002.tfrecord", NONE | IO | INDEX, 0x0E, None),
        ("derived_zlib_pytorchdata_example.tfrecord.zlib", ZLIB, 0x03, None),
        ("tf_ydf_toy_gzip-00000-of-00002.tfrecord.gz", GZIP, 0x01, None),
        ("beam_tfx_tfjs_next_page_gzip_fname.tfrecord.gz", AUTO | IO, 0x12, None),
        ("tf_pytorchdata_sequence_example.tfrecord", NONE | 0x20, 0xE1, 1500),
        ("tf_paxml_bert_pretraining_10.tfrecord", AUTO | 0x10, 0x00, 1200),
        ("tf_trax_tfds_squad_train_10.tfrecord", NONE | IO | 0x10, 0x2A, 1000),
        ("corrupt_tfmodels_pets_examples_crlf_damaged.record", NONE | SKIP, 0x00, 1500),
        ("tf_tfmodels_deeplab_voc_val_3_large_records.tfrecord", NONE | IO, 0x10, 600),
    ]
    for name, c0, c1, cut in files:
        path = os.path.join(INTEROP, name)
        if not os.path.exists(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        seed(name.split(".")[0], c0, c1, data[:cut] if cut else data)


if __name__ == "__main__":
    main()

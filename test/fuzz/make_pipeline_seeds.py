#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_pipeline into test/fuzz/corpus/pipeline/.

Each seed is three control bytes (see fuzz_pipeline.c) and TFRecord data that the
harness cuts into 1-3 inputs: Examples with the harness's features ("a" int64, "s"
float pairs, "b" bytes, "i" an image: small PNGs made here, some broken), some that
fail to parse, and damaged framing. Standalone
(no tfnano needed). Run from the repository root: python3 test/fuzz/make_pipeline_seeds.py
"""
import os
import struct
import zlib

OUT = "test/fuzz/corpus/pipeline"


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


def frame(payload):
    head = struct.pack("<Q", len(payload))
    return (head + struct.pack("<I", masked(head)) + payload
            + struct.pack("<I", masked(payload)))


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def field(num, payload):
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def png(h, w, seed):
    """A small RGB PNG, written by hand (zlib + CRC-32)."""
    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
    rows = b"".join(b"\x00" + bytes((x * 37 + y * 11 + k * 70 + seed) & 0xFF
                                     for x in range(w) for k in range(3)) for y in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def example(a=None, s=(), b=(), i=None):
    feats = b""
    if i is not None:
        feats += field(1, field(1, b"i") + field(2, field(1, field(1, i))))
    if a is not None:
        ints = b"".join(varint(x & 0xFFFFFFFFFFFFFFFF) for x in [a])
        feats += field(1, field(1, b"a") + field(2, field(3, field(1, ints))))
    if s:
        floats = b"".join(struct.pack("<f", x) for x in s)
        feats += field(1, field(1, b"s") + field(2, field(2, field(1, floats))))
    if b:
        feats += field(1, field(1, b"b") + field(2, field(1, b"".join(field(1, x) for x in b))))
    return field(1, feats)


def stream(n, start=0):
    return b"".join(frame(example(a=start + i, s=[0.5 * i, -1.0] * (i % 3),
                                  b=[b"x" * (i % 4)] * (i % 2)))
                    for i in range(n))


def main():
    os.makedirs(OUT, exist_ok=True)
    clean = stream(12)
    damaged = bytearray(stream(9))
    damaged[60] ^= 0x10
    bad_parse = stream(3) + frame(b"\x0a\x7f") + frame(example(a=1) + b"\x12") + stream(4, 50)
    torn = stream(5)[:-7]
    pictures = [png(3 + k % 4, 2 + k % 5, k) for k in range(10)]
    pictures[6] = pictures[6][:40]  # cut short
    pictures[8] = b"not an image"
    images = b"".join(frame(example(a=k, i=p)) for k, p in enumerate(pictures))
    seeds = {
        "raw_one_input": bytes([0x00, 0x03, 0x00]) + clean,
        "raw_cycle3_block2": bytes([0x06, 0x14, 0x02]) + clean + stream(5, 20),
        "raw_drop_remainder": bytes([0x01, 0x44, 0x01]) + clean,
        "raw_damage_raise": bytes([0x01, 0x02, 0x01]) + bytes(damaged) + clean,
        "raw_damage_skip": bytes([0x11, 0x02, 0x01]) + bytes(damaged) + clean,
        "raw_torn_tail_skip": bytes([0x10, 0x01, 0x00]) + torn,
        "parse_clean": bytes([0x41, 0x13, 0x01]) + clean,
        "parse_errors_raise": bytes([0x40, 0x21, 0x00]) + bad_parse,
        "parse_errors_skip": bytes([0x60, 0x21, 0x00]) + bad_parse,
        "parse_not_deterministic": bytes([0xC3, 0x31, 0x02]) + clean + bad_parse,
        "raw_zlib_auto": bytes([0x00, 0x83, 0x00]) + zlib.compress(clean),
        "empty": bytes([0x03, 0x00, 0x02]),
        "images_raise": bytes([0x40, 0x13, 0x08]) + images,
        "images_skip_bicubic": bytes([0x40, 0x23, 0xB8]) + images,
        "images_lanczos_two_inputs": bytes([0x41, 0x12, 0x49]) + images + images,
    }
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()

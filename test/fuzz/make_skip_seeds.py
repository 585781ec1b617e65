#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_record_skip into test/fuzz/corpus/record_skip/.

Each seed is one control byte (see fuzz_record_skip.c) and a TFRecord stream with
damage of one kind: flipped bytes, torn records (a long one running past the end of
the file), deleted and inserted bytes, garbage between records, a zeroed block, a
truncated tail. Run from the repository root: python3 test/fuzz/make_skip_seeds.py
"""
import os
import struct

OUT = "test/fuzz/corpus/record_skip"


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
    return head + struct.pack("<I", masked(head)) + payload + struct.pack("<I", masked(payload))


RECS = [bytes([i]) * n for i, n in enumerate([3, 0, 20, 300, 1, 9, 40])]
FR = [frame(r) for r in RECS]
GOOD = b"".join(FR)
S = [sum(len(f) for f in FR[:i]) for i in range(len(FR) + 1)]


def damaged():
    yield "good", GOOD
    d = bytearray(GOOD); d[S[2] + 3] ^= 1; yield "flip-length", bytes(d)
    d = bytearray(GOOD); d[S[2] + 15] ^= 1; yield "flip-payload", bytes(d)
    yield "torn-long", GOOD[:S[3] + 100] + GOOD[S[4]:]
    yield "torn-short", GOOD[:S[2] + 14] + GOOD[S[3]:]
    yield "delete", GOOD[:S[4] + 4] + GOOD[S[4] + 5:]
    yield "insert", GOOD[:S[1] + 2] + b"\r" + GOOD[S[1] + 2:]
    yield "garbage", GOOD[:S[5]] + bytes(range(50)) + GOOD[S[5]:]
    yield "zeroed", GOOD[:S[3] + 20] + bytes(200) + GOOD[S[3] + 220:]
    yield "tail", GOOD[:S[6] + 20]
    yield "torn-then-tail", GOOD[:S[3] + 50] + GOOD[S[4]:S[6] + 30]


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, stream in damaged():
        for ctl, tag in ((0x00, "mem"), (0x1C | 0x80, "io-mix"), (0x2A, "zlib-batch"),
                         (0x55, "gzip-into")):
            with open(os.path.join(OUT, "seed-%s-%s" % (name, tag)), "wb") as f:
                f.write(bytes([ctl]) + stream)


if __name__ == "__main__":
    main()

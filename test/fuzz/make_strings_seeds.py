#!/usr/bin/env python3
"""Writes the seed corpora of fuzz_hash_strings and fuzz_table into
test/fuzz/corpus/hash_strings/ and test/fuzz/corpus/table/ (formats: the harnesses'
headers). Strings of every length class of the hashes (0, 1-3, 4-7, 8-16, 17-32,
33-64, longer), repeated keys, empty keys, NUL bytes, int64 extremes. Run from the
repository root: python3 test/fuzz/make_strings_seeds.py
"""
import os
import struct


def strings(items):
    out = b""
    for s in items:
        out += bytes([len(s)]) + s
    return out


LENGTHS = [b"", b"a", b"ab", b"abc", b"abcd", b"abcdefg", b"abcdefgh", b"x" * 16, b"y" * 17,
           b"z" * 32, b"w" * 33, b"v" * 64, b"u" * 65, bytes(range(200)), b"\0\0", b"\xff" * 9]
KEY = struct.pack("<QQ", 0x0706050403020100, 0x0f0e0d0c0b0a0908)


def write(folder, name, data):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def main():
    hs = "test/fuzz/corpus/hash_strings"
    for kind, name in ((0, "siphash"), (1, "fingerprint"), (2, "tf_hash64")):
        write(hs, name, bytes([kind]) + KEY + strings(LENGTHS))
        write(hs, name + "_buckets", bytes([kind | (37 << 2)]) + KEY + strings(LENGTHS[::-1]))
    write(hs, "truncated", bytes([1]) + KEY + b"\x40short")

    tb = "test/fuzz/corpus/table"
    words = [b"the", b"cat", b"", b"the", b"sat", b"\0", b"\0\0", b"cat", b"x" * 40]
    queries = [b"the", b"dog", b"", b"\0", b"x" * 40, b"x" * 39, b"SAT"]
    write(tb, "strings", bytes([len(words) << 1, 4]) + strings(words + queries))
    write(tb, "strings_all_keys", bytes([127 << 1, 0]) + strings(LENGTHS + words))
    small = bytes([64, 65, 63, 64, 200 - 128 + 128]) + struct.pack("<q", -2 ** 63) + \
        bytes([128]) + struct.pack("<q", 2 ** 63 - 1) + bytes([65, 90])
    write(tb, "ints", bytes([(6 << 1) | 1, 9]) + small)
    write(tb, "ints_queries_only", bytes([1, 255]) + small)


if __name__ == "__main__":
    main()

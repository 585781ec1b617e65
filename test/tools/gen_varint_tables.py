#!/usr/bin/env python3
"""Writes lib/example/varint_tables.h: the tables of the SSSE3 varint decoder
(lib/example/varint_x86.c). test/unit/test_varint.c recomputes them in C and compares.

The decoder walks a packed run in windows of 4 bytes, b .. b+3, with the 16 bytes from
b - 4 in a vector register. A table index holds the final-byte bits (byte below 0x80)
of the 7 bytes b-3 .. b+3: bits 0-2 for b-3 .. b-1 (how many bytes of a varint started
before the window), bits 3-6 for the window. For each index:
  tfn__varint_win_count[idx]  values that end in the window (0..4), or 0xff when a
                              varint of those bytes is longer than 3 bytes (or the
                              window has no final byte): the caller decodes it another way;
  tfn__varint_win_shuffle[idx] a pshufb control putting the bytes of value k (1 to 3,
                              least significant first) into bytes 4k .. 4k+2 of the
                              result, zero elsewhere (indices relative to b - 4).

    python3 test/tools/gen_varint_tables.py > lib/example/varint_tables.h
"""


def entry(idx):
    final = [(idx >> k) & 1 for k in range(7)]  # bytes b-3 .. b+3
    carry = 0
    for k in (2, 1, 0):  # continuation bytes right before b
        if final[k]:
            break
        carry += 1
    if carry == 3:
        return 0xff, [0x80] * 16
    lanes = []
    length = carry
    for j in range(4):
        length += 1
        if final[3 + j]:
            if length > 3:
                return 0xff, [0x80] * 16
            end = 4 + j  # index of the final byte from b - 4
            lanes.append(list(range(end - length + 1, end + 1)))
            length = 0
    if not lanes:
        return 0xff, [0x80] * 16
    shuffle = [0x80] * 16
    for k, src in enumerate(lanes):
        for t, s in enumerate(src):
            shuffle[4 * k + t] = s
    return len(lanes), shuffle


def main():
    counts, shuffles = zip(*(entry(i) for i in range(128)))
    out = ["/*",
           " * varint_tables.h - tables of the SSSE3 varint decoder (varint_x86.c), generated",
           " * by test/tools/gen_varint_tables.py (which explains them) and committed;",
           " * test/unit/test_varint.c recomputes them and compares.",
           " */",
           "#ifndef TFN_VARINT_TABLES_H",
           "#define TFN_VARINT_TABLES_H",
           "",
           "#include <stdint.h>",
           "",
           "static const uint8_t tfn__varint_win_count[128] = {"]
    for r in range(0, 128, 16):
        out.append("    " + " ".join("%d," % c if c != 0xff else "0xff," for c in counts[r:r + 16]))
    out.append("};")
    out.append("")
    out.append("static const uint8_t tfn__varint_win_shuffle[128][16] = {")
    for s in shuffles:
        out.append("    {" + ", ".join("0x%02x" % b for b in s) + "},")
    out.append("};")
    out.append("")
    out.append("#endif /* TFN_VARINT_TABLES_H */")
    print("\n".join(out))


if __name__ == "__main__":
    main()

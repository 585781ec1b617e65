/* varint_neon.c - counting and decoding packed varint runs with AArch64's Advanced SIMD
 * (NEON, in every AArch64 CPU: no run-time check). The method and the tables are
 * those of the SSSE3 decoder (varint_x86.c explains them; varint_internal.h has the
 * contract): NEON has no movemask, so the final-byte bits of 16 bytes are gathered
 * with a per-lane shift and two horizontal adds, and tbl plays pshufb (an index of
 * 16 or more gives a zero byte, as pshufb's 0x80 does). Compiled on every machine;
 * empty where TFN_VARINT_NEON is 0. test/unit/test_varint.c compares it with the
 * portable code (make test-aarch64 runs it under qemu).
 */
#include "varint_internal.h"

#if TFN_VARINT_NEON

#    include "varint_tables.h"

#    include <arm_neon.h>

/* Bit i of the result = the top bit of byte i (x86's _mm_movemask_epi8). */
static inline unsigned movemask(uint8x16_t v)
{
    static const int8_t shifts[16] = {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7};
    uint8x16_t bits = vshlq_u8(vshrq_n_u8(v, 7), vld1q_s8(shifts));
    return (unsigned)vaddv_u8(vget_low_u8(bits)) |
           ((unsigned)vaddv_u8(vget_high_u8(bits)) << 8);
}

/* Whether a 32-bit lane (relative to the run's start) holds 4 continuation bytes. */
static inline uint32x4_t whole_groups(uint8x16_t v)
{
    uint32x4_t w = vreinterpretq_u32_u8(v), cont4 = vdupq_n_u32(0x80808080u);
    return vceqq_u32(vandq_u32(w, cont4), cont4);
}

bool tfn__count_varints_neon(const uint8_t *p, const uint8_t *end, size_t *count)
{
    if (end - p < 16)
        return tfn__count_varints(p, end, count);
    const uint8_t *start = p;
    uint32x4_t groups = vdupq_n_u32(0);
    size_t n = 0;
    while (end - p >= 16) {
        uint8x16_t v = vld1q_u8(p);
        n += 16 - (size_t)__builtin_popcount(movemask(v));
        groups = vorrq_u32(groups, whole_groups(v));
        p += 16;
    }
    if (p < end) {
        /* the tail, from the last 16 bytes of the run (see TFN_COUNT_TAIL in varint_x86.c) */
        size_t t = (size_t)(end - p);
        uint8x16_t v = vld1q_u8(end - 16);
        n += t - (size_t)__builtin_popcount(movemask(v) >> (16 - t));
        groups = vorrq_u32(groups, whole_groups(v));
    }
    if (vmaxvq_u32(groups) != 0)
        return tfn__count_varints(start, end, count);
    *count = n;
    return end[-1] < 0x80; /* the run ends with a whole varint */
}

/* 32-bit lanes holding the bytes of one varint each (1 to 3, continuation bits still
 * set, zeros above): the values, b0 | b1 << 7 | b2 << 14 with the top bits dropped. */
static inline uint32x4_t join_groups(uint8x16_t x)
{
    uint16x8_t h = vreinterpretq_u16_u8(x);
    uint16x8_t lo = vandq_u16(h, vdupq_n_u16(0x7f));
    uint16x8_t hi = vandq_u16(vshrq_n_u16(h, 1), vdupq_n_u16(0x3f80));
    uint32x4_t t = vreinterpretq_u32_u16(vorrq_u16(lo, hi));
    return vaddq_u32(vandq_u32(t, vdupq_n_u32(0xffff)), vshlq_n_u32(vshrq_n_u32(t, 16), 14));
}

static inline void put4(void *out, size_t i, uint32x4_t values, bool wide)
{
    if (wide) {
        uint64_t *o = (uint64_t *)out + i;
        vst1q_u64(o, vmovl_u32(vget_low_u32(values)));
        vst1q_u64(o + 2, vmovl_u32(vget_high_u32(values)));
    } else {
        vst1q_u32((uint32_t *)out + i, values);
    }
}

/* 16 one-byte varints: their values. */
static inline void put16_bytes(void *out, size_t i, uint8x16_t v, bool wide)
{
    uint16x8_t h[2] = {vmovl_u8(vget_low_u8(v)), vmovl_u8(vget_high_u8(v))};
    for (int k = 0; k < 2; k++) {
        uint32x4_t a = vmovl_u16(vget_low_u16(h[k])), b = vmovl_u16(vget_high_u16(h[k]));
        if (wide) {
            uint64_t *o = (uint64_t *)out + i + 8 * (size_t)k;
            vst1q_u64(o, vmovl_u32(vget_low_u32(a)));
            vst1q_u64(o + 2, vmovl_u32(vget_high_u32(a)));
            vst1q_u64(o + 4, vmovl_u32(vget_low_u32(b)));
            vst1q_u64(o + 6, vmovl_u32(vget_high_u32(b)));
        } else {
            uint32_t *o = (uint32_t *)out + i + 8 * (size_t)k;
            vst1q_u32(o, a);
            vst1q_u32(o + 4, b);
        }
    }
}

/* The values of one window (see window() in varint_x86.c): how many, or more than 4
 * when the window holds a varint over 3 bytes. */
static inline unsigned window(uint8x16_t v, unsigned fin, uint8x16_t shift, void *out, size_t i,
                              bool wide)
{
    unsigned idx = fin & 0x7f;
    unsigned n = tfn__varint_win_count[idx];
    if (n <= 4) {
        uint8x16_t ctl = vaddq_u8(vld1q_u8(tfn__varint_win_shuffle[idx]), shift);
        put4(out, i, join_groups(vqtbl1q_u8(v, ctl)), wide);
    }
    return n;
}

static inline size_t decode_windows(const uint8_t **qp, const uint8_t *end, void *out, size_t max,
                                    bool wide)
{
    const uint8_t *q = *qp, *b = q;
    size_t i = 0;
    if (end - q < 16 || max < 4)
        return 0;
    const uint8x16_t none = vdupq_n_u8(0), next4 = vdupq_n_u8(4);
    /* v holds b - 4 .. b + 11; the first time the 4 bytes before q are zeros (final) */
    uint8x16_t v = vextq_u8(none, vld1q_u8(q), 12);
    unsigned fin = ~movemask(v) >> 1;
    for (;;) {
        if ((fin & 0x7ff) == 0x7ff && end - b >= 16 && max - i >= 16) {
            uint8x16_t w = vld1q_u8(b);
            if (vmaxvq_u8(w) < 0x80) {
                put16_bytes(out, i, w, wide);
                i += 16;
                b += 16;
                goto next;
            }
        }
        unsigned n = window(v, fin, none, out, i, wide);
        if (n > 4)
            break;
        i += n;
        b += 4;
        if (max - i < 4)
            break;
        n = window(v, fin >> 4, next4, out, i, wide);
        if (n > 4)
            break;
        i += n;
        b += 4;
    next:
        if (end - b < 12 || max - i < 4)
            break;
        v = vld1q_u8(b - 4);
        fin = ~movemask(v) >> 1;
    }
    size_t back = 0;
    if (b != q)
        back = b[-1] < 0x80 ? 0 : b[-2] < 0x80 ? 1 : b[-3] < 0x80 ? 2 : 3;
    *qp = b - back;
    return i;
}

size_t tfn__decode_varints32_neon(const uint8_t **qp, const uint8_t *end, int32_t *out,
                                  size_t max)
{
    return decode_windows(qp, end, out, max, false);
}

size_t tfn__decode_varints64_neon(const uint8_t **qp, const uint8_t *end, int64_t *out,
                                  size_t max)
{
    return decode_windows(qp, end, out, max, true);
}

void tfn__widen_bytes32_neon(const uint8_t *src, int32_t *out, size_t n)
{
    size_t i = 0;
    for (; n - i >= 16; i += 16)
        put16_bytes(out, i, vld1q_u8(src + i), false);
    for (; i < n; i++)
        out[i] = src[i];
}

void tfn__widen_bytes64_neon(const uint8_t *src, int64_t *out, size_t n)
{
    size_t i = 0;
    for (; n - i >= 16; i += 16)
        put16_bytes(out, i, vld1q_u8(src + i), true);
    for (; i < n; i++)
        out[i] = src[i];
}

#else
typedef int tfn__varint_neon_unused; /* ISO C: a translation unit is not empty */
#endif

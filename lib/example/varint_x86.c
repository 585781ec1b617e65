/* varint_x86.c - counting and decoding packed varint runs with SSSE3 / SSE4.1 and
 * POPCNT (see varint_internal.h for the contract). Compiled on every machine; empty
 * where TFN_VARINT_SIMD is 0. The functions carry target attributes, so the rest of
 * the library keeps the baseline instruction set and runs on any x86-64.
 *
 * Counting: a byte below 0x80 ends a varint, so a run of 16 bytes holds
 * 16 - popcount(movemask) ends. A varint over 10 bytes needs 10 continuation bytes in
 * a row, hence a whole 4-byte group of them (relative to the run's start); such a
 * group anywhere hands the run to the exact portable loop.
 *
 * Decoding: the run is walked in windows of 4 bytes at a fixed stride, so no step
 * waits on the length of the previous value. For the window b .. b+3, the 16 bytes
 * from b - 4 are loaded; the final-byte bits of b-3 .. b+3 say how many bytes of a
 * varint began before b and where every varint that ends in the window lies. A
 * 128-entry table (varint_tables.h) turns those 7 bits into the number of values and
 * a pshufb control that puts each value's bytes into a 32-bit lane; two shifts join
 * the 7-bit groups. 16 one-byte values in a row (padding, masks) are widened at once.
 * Varints longer than 3 bytes are left to the portable decoder.
 */
#include "varint_internal.h"

#if TFN_VARINT_SIMD

#    include "varint_tables.h"

#    include <immintrin.h>

#    define TFN_SIMD_TARGET __attribute__((target("ssse3,sse4.1,popcnt")))

int tfn__simd_level(void)
{
    if (!__builtin_cpu_supports("popcnt"))
        return TFN__SIMD_NONE;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("bmi2") &&
        __builtin_cpu_supports("avx2"))
        return TFN__SIMD_AVX512;
    if (__builtin_cpu_supports("avx2"))
        return TFN__SIMD_AVX2;
    if (__builtin_cpu_supports("ssse3") && __builtin_cpu_supports("sse4.1"))
        return TFN__SIMD_SSE41;
    return TFN__SIMD_NONE;
}

TFN_SIMD_TARGET static inline __m128i load16(const uint8_t *p)
{
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}

TFN_SIMD_TARGET static inline void store16(void *p, __m128i v)
{
    _mm_storeu_si128((__m128i *)p, v);
}

/* The part of the count both widths share: n final bytes counted in [start, p), the
 * tail [p, end) (under one load) still to count, `groups` set when a whole group of 4
 * continuation bytes was seen. The tail is counted from the last `width` bytes of the
 * run, whose groups (aligned on the run's end) are checked too: a varint over 10
 * bytes that crosses p has at most 3 bytes before p (else the last group before p was
 * seen), so at least 7 after it, which hold a whole group. */
#    define TFN_COUNT_TAIL(width, load, movemask, popcnt, test_groups)                      \
        do {                                                                                \
            if (p < end) {                                                                  \
                size_t t = (size_t)(end - p);                                               \
                load(end - (width));                                                        \
                n += t - (size_t)popcnt((movemask) >> ((width) - t));               \
                test_groups;                                                                \
            }                                                                               \
        } while (0)

TFN_SIMD_TARGET bool tfn__count_varints_sse41(const uint8_t *p, const uint8_t *end, size_t *count)
{
    if (end - p < 16)
        return tfn__count_varints(p, end, count);
    const uint8_t *start = p;
    const __m128i cont4 = _mm_set1_epi32((int)0x80808080u);
    __m128i groups = _mm_setzero_si128(), v;
    size_t n = 0;
    while (end - p >= 16) {
        v = load16(p);
        n += 16 - (size_t)_mm_popcnt_u32((unsigned)_mm_movemask_epi8(v));
        groups = _mm_or_si128(groups, _mm_cmpeq_epi32(_mm_and_si128(v, cont4), cont4));
        p += 16;
    }
#    define TFN_LOAD16(at) v = load16(at)
    TFN_COUNT_TAIL(16, TFN_LOAD16, (unsigned)_mm_movemask_epi8(v), _mm_popcnt_u32,
                   groups = _mm_or_si128(groups,
                                         _mm_cmpeq_epi32(_mm_and_si128(v, cont4), cont4)));
    if (!_mm_testz_si128(groups, groups))
        return tfn__count_varints(start, end, count);
    *count = n;
    return end[-1] < 0x80; /* the run ends with a whole varint */
}

/* 32-bit lanes holding the bytes of one varint each (1 to 3, continuation bits still
 * set, zeros above): the values. In 16-bit halves, the low one becomes
 * b0 | b1 << 7 (b0's continuation bit dropped) and the high one b2; one multiply-add
 * then gives low + high * 2^14. */
TFN_SIMD_TARGET static inline __m128i join_groups(__m128i x)
{
    __m128i lo = _mm_and_si128(x, _mm_set1_epi16(0x7f));
    __m128i hi = _mm_and_si128(_mm_srli_epi16(x, 1), _mm_set1_epi16(0x3f80));
    return _mm_madd_epi16(_mm_or_si128(lo, hi), _mm_set1_epi32(0x40000001));
}

TFN_SIMD_TARGET static inline void put4(void *out, size_t i, __m128i values, bool wide)
{
    if (wide) {
        int64_t *o = (int64_t *)out + i;
        store16(o, _mm_cvtepu32_epi64(values));
        store16(o + 2, _mm_cvtepu32_epi64(_mm_srli_si128(values, 8)));
    } else {
        store16((int32_t *)out + i, values);
    }
}

/* 16 one-byte varints: their values. */
TFN_SIMD_TARGET static inline void put16_bytes(void *out, size_t i, __m128i v, bool wide)
{
    if (wide) {
        int64_t *o = (int64_t *)out + i;
        store16(o, _mm_cvtepu8_epi64(v));
        store16(o + 2, _mm_cvtepu8_epi64(_mm_srli_si128(v, 2)));
        store16(o + 4, _mm_cvtepu8_epi64(_mm_srli_si128(v, 4)));
        store16(o + 6, _mm_cvtepu8_epi64(_mm_srli_si128(v, 6)));
        store16(o + 8, _mm_cvtepu8_epi64(_mm_srli_si128(v, 8)));
        store16(o + 10, _mm_cvtepu8_epi64(_mm_srli_si128(v, 10)));
        store16(o + 12, _mm_cvtepu8_epi64(_mm_srli_si128(v, 12)));
        store16(o + 14, _mm_cvtepu8_epi64(_mm_srli_si128(v, 14)));
    } else {
        int32_t *o = (int32_t *)out + i;
        store16(o, _mm_cvtepu8_epi32(v));
        store16(o + 4, _mm_cvtepu8_epi32(_mm_srli_si128(v, 4)));
        store16(o + 8, _mm_cvtepu8_epi32(_mm_srli_si128(v, 8)));
        store16(o + 12, _mm_cvtepu8_epi32(_mm_srli_si128(v, 12)));
    }
}

/* The values of one window (bytes b .. b+3, v holding b - 4 .. b + 11, fin its
 * final-byte bits shifted so that bit 0 is b - 3): how many, or more than 4 when the
 * window holds a varint over 3 bytes. `shift` moves the shuffle to a window 4 bytes
 * further in v. */
TFN_SIMD_TARGET static inline unsigned window(__m128i v, unsigned fin, __m128i shift,
                                              void *out, size_t i, bool wide)
{
    unsigned idx = fin & 0x7f;
    unsigned n = tfn__varint_win_count[idx];
    if (n <= 4) {
        __m128i ctl = _mm_add_epi8(load16(tfn__varint_win_shuffle[idx]), shift);
        put4(out, i, join_groups(_mm_shuffle_epi8(v, ctl)), wide);
    }
    return n;
}

__attribute__((always_inline)) TFN_SIMD_TARGET static inline size_t
decode_windows(const uint8_t **qp, const uint8_t *end, void *out, size_t max, bool wide)
{
    const uint8_t *q = *qp, *b = q;
    size_t i = 0;
    if (end - q < 16 || max < 4)
        return 0;
    const __m128i none = _mm_setzero_si128(), next4 = _mm_set1_epi8(4);
    /* v holds b - 4 .. b + 11, fin its final-byte bits from b - 3 on. The first time the
     * 4 bytes before q count as final (a varint starts at q). */
    __m128i v = _mm_slli_si128(load16(q), 4);
    unsigned fin = ~(unsigned)_mm_movemask_epi8(v) >> 1;
    for (;;) {
        /* 16 one-byte varints from b on (padding, masks): widened at once */
        if ((fin & 0x7ff) == 0x7ff && end - b >= 16 && max - i >= 16) {
            __m128i w = load16(b);
            if (_mm_movemask_epi8(w) == 0) {
                put16_bytes(out, i, w, wide);
                i += 16;
                b += 16;
                goto next;
            }
        }
        /* two windows from one load: b .. b+3, then b+4 .. b+7 */
        unsigned n = window(v, fin, none, out, i, wide);
        if (n > 4)
            break; /* a varint of 4 bytes or more */
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
        v = load16(b - 4);
        fin = ~(unsigned)_mm_movemask_epi8(v) >> 1;
    }
    /* b starts a window not decoded: back up to the start of the varint it is in
     * (b > q here, so b - 4 .. b - 1 lie in the run; b - 4 is final when the three
     * after it are not, since the window before b held a final byte) */
    size_t back = 0;
    if (b != q)
        back = b[-1] < 0x80 ? 0 : b[-2] < 0x80 ? 1 : b[-3] < 0x80 ? 2 : 3;
    *qp = b - back;
    return i;
}

TFN_SIMD_TARGET size_t tfn__decode_varints32_sse41(const uint8_t **qp, const uint8_t *end,
                                                   int32_t *out, size_t max)
{
    return decode_windows(qp, end, out, max, false);
}

TFN_SIMD_TARGET size_t tfn__decode_varints64_sse41(const uint8_t **qp, const uint8_t *end,
                                                   int64_t *out, size_t max)
{
    return decode_windows(qp, end, out, max, true);
}

TFN_SIMD_TARGET void tfn__widen_bytes32_sse41(const uint8_t *src, int32_t *out, size_t n)
{
    size_t i = 0;
    for (; n - i >= 16; i += 16)
        put16_bytes(out, i, load16(src + i), false);
    for (; i < n; i++)
        out[i] = src[i];
}

TFN_SIMD_TARGET void tfn__widen_bytes64_sse41(const uint8_t *src, int64_t *out, size_t n)
{
    size_t i = 0;
    for (; n - i >= 16; i += 16)
        put16_bytes(out, i, load16(src + i), true);
    for (; i < n; i++)
        out[i] = src[i];
}

/* ---------------------------------------------------------------- AVX2 */

#    define TFN_AVX2_TARGET __attribute__((target("avx2,popcnt")))

TFN_AVX2_TARGET bool tfn__count_varints_avx2(const uint8_t *p, const uint8_t *end, size_t *count)
{
    if (end - p < 32)
        return tfn__count_varints_sse41(p, end, count);
    const uint8_t *start = p;
    const __m256i cont4 = _mm256_set1_epi32((int)0x80808080u);
    __m256i groups = _mm256_setzero_si256(), v;
    size_t n = 0;
    while (end - p >= 32) {
        v = _mm256_loadu_si256((const __m256i *)(const void *)p);
        n += 32 - (size_t)_mm_popcnt_u32((unsigned)_mm256_movemask_epi8(v));
        groups = _mm256_or_si256(groups, _mm256_cmpeq_epi32(_mm256_and_si256(v, cont4), cont4));
        p += 32;
    }
#    define TFN_LOAD32(at) v = _mm256_loadu_si256((const __m256i *)(const void *)(at))
    TFN_COUNT_TAIL(32, TFN_LOAD32, (unsigned)_mm256_movemask_epi8(v), _mm_popcnt_u32,
                   groups = _mm256_or_si256(
                       groups, _mm256_cmpeq_epi32(_mm256_and_si256(v, cont4), cont4)));
    if (!_mm256_testz_si256(groups, groups))
        return tfn__count_varints(start, end, count);
    *count = n;
    return end[-1] < 0x80; /* the run ends with a whole varint */
}

/* n one-byte varints (a run without continuation bytes) widened to int32 / int64. */
TFN_AVX2_TARGET void tfn__widen_bytes32_avx2(const uint8_t *src, int32_t *out, size_t n)
{
    size_t i = 0;
    for (; n - i >= 8; i += 8) {
        __m128i b = _mm_loadl_epi64((const __m128i *)(const void *)(src + i));
        _mm256_storeu_si256((__m256i *)(void *)(out + i), _mm256_cvtepu8_epi32(b));
    }
    for (; i < n; i++)
        out[i] = src[i];
}

TFN_AVX2_TARGET void tfn__widen_bytes64_avx2(const uint8_t *src, int64_t *out, size_t n)
{
    size_t i = 0;
    for (; n - i >= 8; i += 8) {
        __m128i b = _mm_loadl_epi64((const __m128i *)(const void *)(src + i));
        _mm256_storeu_si256((__m256i *)(void *)(out + i), _mm256_cvtepu8_epi64(b));
        _mm256_storeu_si256((__m256i *)(void *)(out + i + 4),
                            _mm256_cvtepu8_epi64(_mm_srli_si128(b, 4)));
    }
    for (; i < n; i++)
        out[i] = src[i];
}

/* The values of 4 windows from b on, when each holds only varints of 1 to 3 bytes and
 * 16 values fit: v holds b - 4 .. b + 11 in its low half and b + 4 .. b + 19 in its
 * high half, fin the final-byte bits of those two halves (bit 0: b - 4, bit 16: b + 4).
 * Returns the values decoded, or 0 (nothing written) when a window holds a varint of
 * 4 bytes or more. */
__attribute__((always_inline)) TFN_AVX2_TARGET static inline size_t
four_windows(__m256i v, unsigned fin, void *out, size_t i, bool wide)
{
    unsigned i0 = (fin >> 1) & 0x7f, i1 = (fin >> 5) & 0x7f;   /* b, b + 4 */
    unsigned i2 = (fin >> 17) & 0x7f, i3 = (fin >> 21) & 0x7f; /* b + 8, b + 12 */
    unsigned n0 = tfn__varint_win_count[i0], n1 = tfn__varint_win_count[i1];
    unsigned n2 = tfn__varint_win_count[i2], n3 = tfn__varint_win_count[i3];
    if ((n0 | n1 | n2 | n3) & 0xf8) /* a count of 0xff: not a valid window */
        return 0;
    /* windows b and b + 8 sit 4 bytes into their halves, b + 4 and b + 12 8 bytes in */
    __m256i ctl_a = _mm256_inserti128_si256(
        _mm256_castsi128_si256(load16(tfn__varint_win_shuffle[i0])),
        load16(tfn__varint_win_shuffle[i2]), 1);
    __m256i ctl_b = _mm256_inserti128_si256(
        _mm256_castsi128_si256(load16(tfn__varint_win_shuffle[i1])),
        load16(tfn__varint_win_shuffle[i3]), 1);
    ctl_b = _mm256_add_epi8(ctl_b, _mm256_set1_epi8(4));
    const __m256i low7 = _mm256_set1_epi16(0x7f), mid7 = _mm256_set1_epi16(0x3f80);
    const __m256i join = _mm256_set1_epi32(0x40000001);
    __m256i xa = _mm256_shuffle_epi8(v, ctl_a), xb = _mm256_shuffle_epi8(v, ctl_b);
    xa = _mm256_madd_epi16(_mm256_or_si256(_mm256_and_si256(xa, low7),
                                           _mm256_and_si256(_mm256_srli_epi16(xa, 1), mid7)),
                           join);
    xb = _mm256_madd_epi16(_mm256_or_si256(_mm256_and_si256(xb, low7),
                                           _mm256_and_si256(_mm256_srli_epi16(xb, 1), mid7)),
                           join);
    __m128i w0 = _mm256_castsi256_si128(xa), w1 = _mm256_castsi256_si128(xb);
    __m128i w2 = _mm256_extracti128_si256(xa, 1), w3 = _mm256_extracti128_si256(xb, 1);
    size_t a1 = i + n0, a2 = a1 + n1, a3 = a2 + n2;
    if (wide) {
        int64_t *o = out;
        _mm256_storeu_si256((__m256i *)(void *)(o + i), _mm256_cvtepu32_epi64(w0));
        _mm256_storeu_si256((__m256i *)(void *)(o + a1), _mm256_cvtepu32_epi64(w1));
        _mm256_storeu_si256((__m256i *)(void *)(o + a2), _mm256_cvtepu32_epi64(w2));
        _mm256_storeu_si256((__m256i *)(void *)(o + a3), _mm256_cvtepu32_epi64(w3));
    } else {
        int32_t *o = out;
        store16(o + i, w0);
        store16(o + a1, w1);
        store16(o + a2, w2);
        store16(o + a3, w3);
    }
    return n0 + n1 + n2 + n3;
}

/* 16 one-byte varints at p: their values. */
__attribute__((always_inline)) TFN_AVX2_TARGET static inline void
put16_bytes_avx2(void *out, size_t i, const uint8_t *p, bool wide)
{
    __m128i v = load16(p);
    if (wide) {
        __m256i *o = (__m256i *)(void *)((int64_t *)out + i);
        _mm256_storeu_si256(o, _mm256_cvtepu8_epi64(v));
        _mm256_storeu_si256(o + 1, _mm256_cvtepu8_epi64(_mm_srli_si128(v, 4)));
        _mm256_storeu_si256(o + 2, _mm256_cvtepu8_epi64(_mm_srli_si128(v, 8)));
        _mm256_storeu_si256(o + 3, _mm256_cvtepu8_epi64(_mm_srli_si128(v, 12)));
    } else {
        __m256i *o = (__m256i *)(void *)((int32_t *)out + i);
        _mm256_storeu_si256(o, _mm256_cvtepu8_epi32(v));
        _mm256_storeu_si256(o + 1, _mm256_cvtepu8_epi32(_mm_srli_si128(v, 8)));
    }
}

/* 16 bytes (4 windows) per step while 20 bytes of the run and 16 outputs are left, then
 * the SSE loop for what remains. A step's values never outnumber its bytes, so one
 * bound on b keeps both conditions. */
__attribute__((always_inline)) TFN_AVX2_TARGET static inline size_t
decode_avx2(const uint8_t **qp, const uint8_t *end, void *out, size_t max, bool wide)
{
    const uint8_t *q = *qp, *b = q;
    size_t i = 0;
    if (end - q >= 20 && max >= 16) {
        const uint8_t *last = q; /* the last b where a step may start */
        /* the first step: the 4 bytes before q count as final (a varint starts at q) */
        __m128i lo = _mm_slli_si128(load16(q), 4);
        for (;;) {
            __m256i v = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), load16(b + 4), 1);
            unsigned fin = ~(unsigned)_mm256_movemask_epi8(v);
            if ((fin & 0x0f00fff8u) == 0x0f00fff8u) {
                /* b - 1 .. b + 15 (bits 3-15 and 24-27) are final bytes: 16 values */
                put16_bytes_avx2(out, i, b, wide);
                i += 16;
            } else {
                size_t n = four_windows(v, fin, out, i, wide);
                if (!n)
                    break;
                i += n;
            }
            b += 16;
            if (b > last) {
                /* values never outnumber their bytes: from b, steps up to this bound
                 * keep 20 bytes of the run and 16 outputs */
                size_t room = end - b >= 20 ? (size_t)(end - b) - 20 : 0;
                size_t fit = max - i >= 16 ? max - i - 16 : 0;
                last = b + (room < fit ? room : fit);
                if ((end - b < 20) | (max - i < 16))
                    break;
            }
            lo = load16(b - 4);
        }
    }
    /* b is at a window not decoded, and after a final byte unless a varint of 4
     * bytes or more is there: start the SSE loop at that varint */
    if (b != q && b[-1] >= 0x80) {
        const uint8_t *s = b - 1;
        while (s > q && s[-1] >= 0x80)
            s--;
        b = s;
    }
    *qp = b;
    return i + decode_windows(qp, end, (uint8_t *)out + i * (wide ? 8 : 4), max - i, wide);
}

TFN_AVX2_TARGET size_t tfn__decode_varints32_avx2(const uint8_t **qp, const uint8_t *end,
                                                  int32_t *out, size_t max)
{
    return decode_avx2(qp, end, out, max, false);
}

TFN_AVX2_TARGET size_t tfn__decode_varints64_avx2(const uint8_t **qp, const uint8_t *end,
                                                  int64_t *out, size_t max)
{
    return decode_avx2(qp, end, out, max, true);
}

/* ---------------------------------------------------------------- AVX-512 */

/* AVX-512 BW + VBMI2 with BMI2 (Intel since 2019, AMD since 2022): 16 varints per step.
 * From the continuation bits C of 64 bytes, the 16th final byte gives the bytes the 16
 * varints take; pext gathers, for each varint, whether its first and second bytes
 * continue (its length), pdep spreads that to one nibble per 32-bit lane, and
 * vpexpandb moves each varint's bytes into its lane in one instruction. */
/* clang 18+ also wants evex512 named for 512-bit vectors (older compilers refuse it) */
#    if defined(__clang__) && __clang_major__ >= 18
#        define TFN_AVX512_TARGET                                                          \
            __attribute__((target("avx512f,avx512bw,avx512vbmi2,bmi,bmi2,popcnt,avx2,evex512")))
#    else
#        define TFN_AVX512_TARGET                                                          \
            __attribute__((target("avx512f,avx512bw,avx512vbmi2,bmi,bmi2,popcnt,avx2")))
#    endif

TFN_AVX512_TARGET bool tfn__count_varints_avx512(const uint8_t *p, const uint8_t *end,
                                                 size_t *count)
{
    if (end - p < 64)
        return tfn__count_varints_avx2(p, end, count);
    const uint8_t *start = p;
    const uint64_t group = 0x1111111111111111ull; /* the first byte of each group of 4 */
    uint64_t groups = 0, c;
    size_t n = 0;
    while (end - p >= 64) {
        c = _mm512_movepi8_mask(_mm512_loadu_si512((const void *)p));
        n += 64 - (size_t)_mm_popcnt_u64(c);
        groups |= c & (c >> 1) & (c >> 2) & (c >> 3) & group;
        p += 64;
    }
#    define TFN_LOAD64(at) c = _mm512_movepi8_mask(_mm512_loadu_si512((const void *)(at)))
    TFN_COUNT_TAIL(64, TFN_LOAD64, c, _mm_popcnt_u64,
                   groups |= c & (c >> 1) & (c >> 2) & (c >> 3) & group);
    if (groups)
        return tfn__count_varints(start, end, count);
    *count = n;
    return end[-1] < 0x80; /* the run ends with a whole varint */
}

__attribute__((always_inline)) TFN_AVX512_TARGET static inline size_t
decode_avx512(const uint8_t **qp, const uint8_t *end, void *out, size_t max, bool wide)
{
    const uint8_t *q = *qp;
    size_t i = 0;
    const uint64_t lanes = 0x1111111111111111ull; /* byte 0 of each 32-bit lane */
    const __m512i low7 = _mm512_set1_epi16(0x7f), mid7 = _mm512_set1_epi16(0x3f80);
    const __m512i join = _mm512_set1_epi32(0x40000001);
    while (end - q >= 64 && max - i >= 16) {
        __m512i v = _mm512_loadu_si512((const void *)q);
        uint64_t c = _mm512_movepi8_mask(v);
        if (c == 0 && max - i >= 64) {
            /* 64 one-byte varints */
            if (wide) {
                int64_t *o = (int64_t *)out + i;
                for (int k = 0; k < 8; k++)
                    _mm512_storeu_si512((void *)(o + 8 * k),
                                        _mm512_cvtepu8_epi64(_mm_loadl_epi64(
                                            (const __m128i *)(const void *)(q + 8 * k))));
            } else {
                int32_t *o = (int32_t *)out + i;
                for (int k = 0; k < 4; k++)
                    _mm512_storeu_si512((void *)(o + 16 * k),
                                        _mm512_cvtepu8_epi32(load16(q + 16 * k)));
            }
            q += 64;
            i += 64;
            continue;
        }
        uint64_t last = _pdep_u64(1ull << 15, ~c); /* the 16th final byte, if any */
        if (!last)
            break; /* 16 varints take more than 64 bytes */
        uint64_t span = (last << 1) - 1;           /* their bytes (all 64: ~0) */
        if (c & (c >> 1) & (c >> 2) & span)
            break; /* one of them has 4 bytes or more */
        uint64_t starts = ((~c << 1) | 1) & span;
        uint64_t len2 = _pdep_u64(_pext_u64(c, starts), lanes);      /* 2 bytes or more */
        uint64_t len3 = _pdep_u64(_pext_u64(c & (c >> 1), starts), lanes); /* 3 bytes */
        __m512i x = _mm512_maskz_expand_epi8(lanes | (len2 << 1) | (len3 << 2), v);
        x = _mm512_madd_epi16(_mm512_or_si512(_mm512_and_si512(x, low7),
                                              _mm512_and_si512(_mm512_srli_epi16(x, 1), mid7)),
                              join);
        if (wide) {
            int64_t *o = (int64_t *)out + i;
            _mm512_storeu_si512((void *)o, _mm512_cvtepu32_epi64(_mm512_castsi512_si256(x)));
            _mm512_storeu_si512((void *)(o + 8),
                                _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(x, 1)));
        } else {
            _mm512_storeu_si512((void *)((int32_t *)out + i), x);
        }
        q += _tzcnt_u64(last) + 1;
        i += 16;
    }
    *qp = q;
    return i + decode_avx2(qp, end, (uint8_t *)out + i * (wide ? 8 : 4), max - i, wide);
}

TFN_AVX512_TARGET size_t tfn__decode_varints32_avx512(const uint8_t **qp, const uint8_t *end,
                                                      int32_t *out, size_t max)
{
    return decode_avx512(qp, end, out, max, false);
}

TFN_AVX512_TARGET size_t tfn__decode_varints64_avx512(const uint8_t **qp, const uint8_t *end,
                                                      int64_t *out, size_t max)
{
    return decode_avx512(qp, end, out, max, true);
}

TFN_AVX512_TARGET void tfn__widen_bytes32_avx512(const uint8_t *src, int32_t *out, size_t n)
{
    size_t i = 0;
    for (; n - i >= 16; i += 16)
        _mm512_storeu_si512((void *)(out + i), _mm512_cvtepu8_epi32(load16(src + i)));
    for (; i < n; i++)
        out[i] = src[i];
}

TFN_AVX512_TARGET void tfn__widen_bytes64_avx512(const uint8_t *src, int64_t *out, size_t n)
{
    size_t i = 0;
    for (; n - i >= 8; i += 8)
        _mm512_storeu_si512((void *)(out + i),
                            _mm512_cvtepu8_epi64(
                                _mm_loadl_epi64((const __m128i *)(const void *)(src + i))));
    for (; i < n; i++)
        out[i] = src[i];
}

/* Packed varints of int64 values, 16 per step: the values are narrowed to 32-bit
 * lanes, their 7-bit groups spread over the lane's bytes with the continuation bits
 * (from three compares), and vpcompressb packs the bytes each value takes. Steps are
 * taken while every value is below 2^28 and 80 or more values are left: a step
 * stores 64 bytes, of which the bytes past its own are overwritten by the following
 * values (64 at least, one byte each), so nothing is written past the run. */
TFN_AVX512_TARGET uint8_t *tfn__put_varints64_avx512(uint8_t *p, const void *values, size_t n,
                                                     size_t *done)
{
    const uint8_t *v = values; /* caller arrays at any alignment: byte offsets */
    size_t i = 0;
    const __m512i high = _mm512_set1_epi64((long long)~0x0fffffffull);
    const __m512i m7 = _mm512_set1_epi32(0x7f), cont1 = _mm512_set1_epi32(0x80);
    const __m512i cont2 = _mm512_set1_epi32(0x8000), cont3 = _mm512_set1_epi32(0x800000);
    const __m512i conts = _mm512_set1_epi32(0x808080), first = _mm512_set1_epi32(1);
    while (n - i >= 80) {
        __m512i a = _mm512_loadu_si512((const void *)(v + 8 * i));
        __m512i b = _mm512_loadu_si512((const void *)(v + 8 * (i + 8)));
        if (_mm512_test_epi64_mask(_mm512_or_si512(a, b), high))
            break; /* a value of 2^28 or more, or negative */
        __m512i x = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(a)),
                                       _mm512_cvtepi64_epi32(b), 1);
        __m512i w = _mm512_or_si512(
            _mm512_or_si512(_mm512_and_si512(x, m7),
                            _mm512_and_si512(_mm512_slli_epi32(x, 1), _mm512_slli_epi32(m7, 8))),
            _mm512_or_si512(
                _mm512_and_si512(_mm512_slli_epi32(x, 2), _mm512_slli_epi32(m7, 16)),
                _mm512_and_si512(_mm512_slli_epi32(x, 3), _mm512_slli_epi32(m7, 24))));
        w = _mm512_mask_or_epi32(w, _mm512_cmpgt_epu32_mask(x, m7), w, cont1);
        w = _mm512_mask_or_epi32(w, _mm512_cmpgt_epu32_mask(x, _mm512_set1_epi32(0x3fff)), w,
                                 cont2);
        w = _mm512_mask_or_epi32(w, _mm512_cmpgt_epu32_mask(x, _mm512_set1_epi32(0x1fffff)),
                                 w, cont3);
        /* a value's bytes: its first, and each after one with a continuation bit */
        __m512i q = _mm512_or_si512(_mm512_slli_epi32(_mm512_and_si512(w, conts), 1), first);
        __mmask64 keep = _mm512_test_epi8_mask(q, _mm512_set1_epi8(1));
        _mm512_storeu_si512((void *)p, _mm512_maskz_compress_epi8(keep, w));
        p += _mm_popcnt_u64(keep);
        i += 16;
    }
    *done = i;
    return p;
}

#else

/* ISO C forbids an empty translation unit. */
typedef int tfn__varint_x86_unused;

#endif

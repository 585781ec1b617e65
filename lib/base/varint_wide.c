/*
 * varint_wide.c - packed varint runs, 64 bytes at a time (AVX2).
 *
 * Token ids are a random mix of 1- to 3-byte varints, so a loop that finds where
 * each varint ends before it can start the next one is bound by that chain and by
 * mispredicted length branches (about 2.3 ns per value). Here nothing waits on the
 * previous value:
 *
 * 1. the final bytes (below 0x80) of 64 bytes form one bit mask; the varints that
 *    start in the block are those right after a final byte (and the first byte);
 * 2. for 8 byte positions at a time, the 4 bytes from that position are gathered into
 *    a 32-bit lane with one shuffle, cut after their first final byte and decoded as
 *    if a varint started there (7-bit groups joined with a shift and a multiply-add);
 * 3. the lanes where a varint does start are packed together with a permute chosen by
 *    their 4-bit masks, widened to int64 and stored.
 *
 * A block holding a varint of 5 bytes or more (values of 2^28 or more, negative
 * numbers) decodes its varints one at a time. About 0.7 ns per value on W1's ids.
 */
#include "varint_wide.h"

#include "tfn_internal.h"

#if defined(__x86_64__) && defined(__GNUC__) && defined(__BYTE_ORDER__) &&                  \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#    define TFN_VARINT_WIDE 1
#    include <immintrin.h>
#endif

#ifdef TFN_VARINT_WIDE

bool tfn__varints_wide_available(void)
{
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
}

/* For each 4-bit mask of the lanes to keep, the int32 pairs of the kept int64 lanes
 * first (the rest repeats lane 0: written past the count, overwritten later). */
#    define KEEP(a, b, c, d) {2 * (a), 2 * (a) + 1, 2 * (b), 2 * (b) + 1, 2 * (c), 2 * (c) + 1, \
                              2 * (d), 2 * (d) + 1}
static const int32_t keep_lanes[16][8] = {
    KEEP(0, 0, 0, 0), KEEP(0, 0, 0, 0), KEEP(1, 0, 0, 0), KEEP(0, 1, 0, 0),
    KEEP(2, 0, 0, 0), KEEP(0, 2, 0, 0), KEEP(1, 2, 0, 0), KEEP(0, 1, 2, 0),
    KEEP(3, 0, 0, 0), KEEP(0, 3, 0, 0), KEEP(1, 3, 0, 0), KEEP(0, 1, 3, 0),
    KEEP(2, 3, 0, 0), KEEP(0, 2, 3, 0), KEEP(1, 2, 3, 0), KEEP(0, 1, 2, 3)};
#    undef KEEP
static const uint8_t kept_count[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

/* Bytes needed from the start of a block: 64 for its mask, 16 loaded at its last
 * 8-byte step (offset 56). */
#    define BLOCK_READ 72

__attribute__((target("avx2,popcnt"))) static size_t wide_avx2(const uint8_t **p,
                                                                 const uint8_t *end,
                                                                 int64_t *out, size_t max)
{
    const uint8_t *q = *p;
    size_t i = 0;
    /* lane j (of 8) gets bytes j..j+3 of a 16-byte load */
    const __m256i gather = _mm256_setr_epi8(0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6, 4,
                                            5, 6, 7, 5, 6, 7, 8, 6, 7, 8, 9, 7, 8, 9, 10);
    const __m256i top_bits = _mm256_set1_epi32((int)0x80808080u);
    const __m256i ones = _mm256_set1_epi32(1);
    const __m256i low7 = _mm256_set1_epi16(0x007f);
    const __m256i next7 = _mm256_set1_epi16(0x3f80);
    const __m256i join14 = _mm256_set1_epi32(0x40000001); /* low half + high half << 14 */
    while (end - q >= BLOCK_READ) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)q);
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(q + 32));
        uint64_t cont = (uint64_t)(uint32_t)_mm256_movemask_epi8(a) |
                        (uint64_t)(uint32_t)_mm256_movemask_epi8(b) << 32;
        uint64_t finals = ~cont;
        if (!finals) /* 64 continuation bytes: not a valid run, left to the caller */
            break;
        unsigned last = 63u - (unsigned)__builtin_clzll(finals);
        uint64_t upto = last == 63 ? ~0ull : (2ull << last) - 1; /* bytes 0..last */
        size_t count = (size_t)__builtin_popcountll(finals);      /* varints ending here */
        if (max - i < count + 8)
            break;
        if (cont & (cont >> 1) & (cont >> 2) & (cont >> 3) & upto) {
            /* a varint of 5+ bytes ends in this block: one at a time */
            for (size_t k = 0; k < count; k++) {
                uint64_t v = 0;
                const uint8_t *next = tfn__get_varint(q, end, &v);
                if (!next) { /* longer than 10 bytes: the caller's reader decides */
                    *p = q;
                    return i;
                }
                out[i++] = (int64_t)v;
                q = next;
            }
            continue;
        }
        uint64_t starts = ((finals << 1) | 1) & upto;
        for (unsigned k = 0; k < 8; k++) {
            unsigned m = (unsigned)(starts >> (8 * k)) & 0xffu;
            __m128i raw = _mm_loadu_si128((const __m128i *)(const void *)(q + 8 * k));
            __m256i w = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(raw), gather);
            /* keep the bytes up to the lane's first final byte */
            __m256i fin = _mm256_andnot_si256(w, top_bits);
            __m256i first = _mm256_and_si256(fin, _mm256_sub_epi32(_mm256_setzero_si256(), fin));
            __m256i x = _mm256_and_si256(w, _mm256_or_si256(first, _mm256_sub_epi32(first, ones)));
            /* two 7-bit groups per 16-bit half, then the halves */
            __m256i pairs = _mm256_or_si256(_mm256_and_si256(x, low7),
                                            _mm256_and_si256(_mm256_srli_epi16(x, 1), next7));
            __m256i v = _mm256_madd_epi16(pairs, join14);
            __m256i lo = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(v));
            __m256i hi = _mm256_cvtepu32_epi64(_mm256_extracti128_si256(v, 1));
            unsigned m0 = m & 15u, m1 = m >> 4;
            lo = _mm256_permutevar8x32_epi32(
                lo, _mm256_loadu_si256((const __m256i *)(const void *)keep_lanes[m0]));
            _mm256_storeu_si256((__m256i *)(void *)(out + i), lo);
            i += kept_count[m0];
            hi = _mm256_permutevar8x32_epi32(
                hi, _mm256_loadu_si256((const __m256i *)(const void *)keep_lanes[m1]));
            _mm256_storeu_si256((__m256i *)(void *)(out + i), hi);
            i += kept_count[m1];
        }
        q += last + 1;
    }
    *p = q;
    return i;
}

size_t tfn__varints_wide(const uint8_t **p, const uint8_t *end, int64_t *out, size_t max)
{
    if (end - *p < BLOCK_READ || max < 16 || !tfn__varints_wide_available())
        return 0;
    return wide_avx2(p, end, out, max);
}

#else

bool tfn__varints_wide_available(void)
{
    return false;
}

size_t tfn__varints_wide(const uint8_t **p, const uint8_t *end, int64_t *out, size_t max)
{
    (void)p;
    (void)end;
    (void)out;
    (void)max;
    return 0;
}

#endif

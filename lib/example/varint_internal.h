/*
 * varint_internal.h - counting and decoding packed varint runs with SIMD (x86-64:
 * SSSE3 + SSE4.1 + POPCNT, or AVX2 + POPCNT, chosen at run time from the CPU's feature
 * bits; AArch64: NEON, varint_neon.c), beside the portable code of tfn_internal.h and
 * parse_fill.c that every machine runs (varint_x86.c explains the method).
 *
 * The SIMD functions work on a run the caller may not read past (`end`): every load
 * stays inside [p, end). They give exactly what the portable code gives; where they
 * cannot (a varint longer than 3 bytes in the decoder, a run of 4 continuation bytes
 * in the counter), they stop or hand the run to the portable loop.
 * test/unit/test_varint.c compares every level with the portable code.
 */
#ifndef TFN_VARINT_INTERNAL_H
#define TFN_VARINT_INTERNAL_H

#include "example_internal.h"

/* Instruction-set levels, in order. On AArch64 the one level above NONE is NEON. */
enum { TFN__SIMD_NONE = 0, TFN__SIMD_SSE41 = 1, TFN__SIMD_AVX2 = 2, TFN__SIMD_AVX512 = 3 };
enum { TFN__SIMD_NEON = 1 };

/* The SIMD code exists on x86-64 with GCC or clang, unless TFN_NO_SIMD is defined
 * (a portable build, which the tests also run). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(TFN_NO_SIMD)
#    define TFN_VARINT_SIMD 1

/* The best level this CPU runs: SSE41 needs SSSE3, SSE4.1 and POPCNT (x86-64 CPUs since
 * 2008-2011), AVX2 needs AVX2 and POPCNT (since 2013-2015), AVX512 needs AVX-512 F, BW
 * and VBMI2 with BMI2 (Intel since 2019, AMD since 2022). */
int tfn__simd_level(void);

/* As tfn__count_varints (the same count, false for the same runs). */
bool tfn__count_varints_sse41(const uint8_t *p, const uint8_t *end, size_t *count);
bool tfn__count_varints_avx2(const uint8_t *p, const uint8_t *end, size_t *count);
bool tfn__count_varints_avx512(const uint8_t *p, const uint8_t *end, size_t *count);

/* Decodes the varints of a valid packed run (one that tfn__count_varints accepts) from
 * *qp, which must be the start of a varint, into out[0 ..]: at most `max` values,
 * stopping early where fewer than 16 bytes of the run are left, at a varint longer
 * than 3 bytes (a value of 2^21 or more), or when fewer than 4 outputs are left. *qp
 * is advanced to the start of the first varint not decoded; returns the values
 * decoded. Values below 2^21 always fit int32. */
size_t tfn__decode_varints32_sse41(const uint8_t **qp, const uint8_t *end, int32_t *out,
                                   size_t max);
size_t tfn__decode_varints64_sse41(const uint8_t **qp, const uint8_t *end, int64_t *out,
                                   size_t max);
size_t tfn__decode_varints32_avx2(const uint8_t **qp, const uint8_t *end, int32_t *out,
                                  size_t max);
size_t tfn__decode_varints64_avx2(const uint8_t **qp, const uint8_t *end, int64_t *out,
                                  size_t max);
size_t tfn__decode_varints32_avx512(const uint8_t **qp, const uint8_t *end, int32_t *out,
                                    size_t max);
size_t tfn__decode_varints64_avx512(const uint8_t **qp, const uint8_t *end, int64_t *out,
                                    size_t max);

/* n one-byte varints (bytes below 0x80) widened. */
void tfn__widen_bytes32_sse41(const uint8_t *src, int32_t *out, size_t n);
void tfn__widen_bytes64_sse41(const uint8_t *src, int64_t *out, size_t n);
void tfn__widen_bytes32_avx2(const uint8_t *src, int32_t *out, size_t n);
void tfn__widen_bytes64_avx2(const uint8_t *src, int64_t *out, size_t n);
void tfn__widen_bytes32_avx512(const uint8_t *src, int32_t *out, size_t n);
void tfn__widen_bytes64_avx512(const uint8_t *src, int64_t *out, size_t n);

/* Packed varints of v[0 ..] at p while values are below 2^28 and 80 or more are left
 * (bytes past the end returned may be written, which the remaining values overwrite);
 * *done gets the values written. */
uint8_t *tfn__put_varints64_avx512(uint8_t *p, const void *v, size_t n, size_t *done);
#else
#    define TFN_VARINT_SIMD 0
#endif

/* NEON on AArch64 with GCC or clang (every AArch64 CPU has it), unless TFN_NO_SIMD. */
#if defined(__aarch64__) && defined(__GNUC__) && !defined(TFN_NO_SIMD)
#    define TFN_VARINT_NEON 1
static inline int tfn__simd_level(void)
{
    return TFN__SIMD_NEON;
}

/* As the SSE4.1 functions above, same contract. */
bool tfn__count_varints_neon(const uint8_t *p, const uint8_t *end, size_t *count);
size_t tfn__decode_varints32_neon(const uint8_t **qp, const uint8_t *end, int32_t *out,
                                  size_t max);
size_t tfn__decode_varints64_neon(const uint8_t **qp, const uint8_t *end, int64_t *out,
                                  size_t max);
void tfn__widen_bytes32_neon(const uint8_t *src, int32_t *out, size_t n);
void tfn__widen_bytes64_neon(const uint8_t *src, int64_t *out, size_t n);
#else
#    define TFN_VARINT_NEON 0
#endif

#if !TFN_VARINT_SIMD && !TFN_VARINT_NEON
static inline int tfn__simd_level(void)
{
    return TFN__SIMD_NONE;
}
#endif

/* n one-byte varints widened at a level (the portable loop at TFN__SIMD_NONE). */
static inline void tfn__widen_bytes32_at(int level, const uint8_t *src, int32_t *out, size_t n)
{
#if TFN_VARINT_SIMD
    if (level >= TFN__SIMD_AVX512) {
        tfn__widen_bytes32_avx512(src, out, n);
        return;
    }
    if (level == TFN__SIMD_AVX2) {
        tfn__widen_bytes32_avx2(src, out, n);
        return;
    }
    if (level == TFN__SIMD_SSE41) {
        tfn__widen_bytes32_sse41(src, out, n);
        return;
    }
#endif
#if TFN_VARINT_NEON
    if (level >= TFN__SIMD_NEON) {
        tfn__widen_bytes32_neon(src, out, n);
        return;
    }
#endif
    (void)level;
    size_t i = 0;
    for (; n - i >= 16; i += 16)
        for (size_t k = 0; k < 16; k++)
            out[i + k] = src[i + k];
    for (; i < n; i++)
        out[i] = src[i];
}

static inline void tfn__widen_bytes64_at(int level, const uint8_t *src, int64_t *out, size_t n)
{
#if TFN_VARINT_SIMD
    if (level >= TFN__SIMD_AVX512) {
        tfn__widen_bytes64_avx512(src, out, n);
        return;
    }
    if (level == TFN__SIMD_AVX2) {
        tfn__widen_bytes64_avx2(src, out, n);
        return;
    }
    if (level == TFN__SIMD_SSE41) {
        tfn__widen_bytes64_sse41(src, out, n);
        return;
    }
#endif
#if TFN_VARINT_NEON
    if (level >= TFN__SIMD_NEON) {
        tfn__widen_bytes64_neon(src, out, n);
        return;
    }
#endif
    (void)level;
    size_t i = 0;
    for (; n - i >= 16; i += 16)
        for (size_t k = 0; k < 16; k++)
            out[i + k] = src[i + k];
    for (; i < n; i++)
        out[i] = src[i];
}

/* tfn__put_int64s at a level: the same bytes. */
static inline uint8_t *tfn__put_int64s_at(int level, uint8_t *p, const void *v, size_t n)
{
#if TFN_VARINT_SIMD
    if (level >= TFN__SIMD_AVX512 && n >= 80) {
        size_t done;
        p = tfn__put_varints64_avx512(p, v, n, &done);
        v = tfn__elem(v, done, 8);
        n -= done;
    }
#endif
    (void)level;
    return tfn__put_int64s(p, v, n);
}

/* tfn__count_varints at a level (any level up to tfn__simd_level()). */
static inline bool tfn__count_varints_at(int level, const uint8_t *p, const uint8_t *end,
                                         size_t *count)
{
#if TFN_VARINT_SIMD
    if (level >= TFN__SIMD_AVX512)
        return tfn__count_varints_avx512(p, end, count);
    if (level == TFN__SIMD_AVX2)
        return tfn__count_varints_avx2(p, end, count);
    if (level == TFN__SIMD_SSE41)
        return tfn__count_varints_sse41(p, end, count);
#endif
#if TFN_VARINT_NEON
    if (level >= TFN__SIMD_NEON)
        return tfn__count_varints_neon(p, end, count);
#endif
    (void)level;
    return tfn__count_varints(p, end, count);
}

/* The decoders above at a level; at TFN__SIMD_NONE nothing is decoded (0). */
static inline size_t tfn__decode_varints32_at(int level, const uint8_t **qp,
                                              const uint8_t *end, int32_t *out, size_t max)
{
#if TFN_VARINT_SIMD
    if (level >= TFN__SIMD_AVX512)
        return tfn__decode_varints32_avx512(qp, end, out, max);
    if (level == TFN__SIMD_AVX2)
        return tfn__decode_varints32_avx2(qp, end, out, max);
    if (level == TFN__SIMD_SSE41)
        return tfn__decode_varints32_sse41(qp, end, out, max);
#endif
#if TFN_VARINT_NEON
    if (level >= TFN__SIMD_NEON)
        return tfn__decode_varints32_neon(qp, end, out, max);
#endif
    (void)level, (void)qp, (void)end, (void)out, (void)max;
    return 0;
}

static inline size_t tfn__decode_varints64_at(int level, const uint8_t **qp,
                                              const uint8_t *end, int64_t *out, size_t max)
{
#if TFN_VARINT_SIMD
    if (level >= TFN__SIMD_AVX512)
        return tfn__decode_varints64_avx512(qp, end, out, max);
    if (level == TFN__SIMD_AVX2)
        return tfn__decode_varints64_avx2(qp, end, out, max);
    if (level == TFN__SIMD_SSE41)
        return tfn__decode_varints64_sse41(qp, end, out, max);
#endif
#if TFN_VARINT_NEON
    if (level >= TFN__SIMD_NEON)
        return tfn__decode_varints64_neon(qp, end, out, max);
#endif
    (void)level, (void)qp, (void)end, (void)out, (void)max;
    return 0;
}

#endif /* TFN_VARINT_INTERNAL_H */

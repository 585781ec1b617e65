/*
 * tfn_internal.h - private helpers shared by the files of lib/: error reporting,
 * the allocator, the bump arena, little-endian loads/stores and varints.
 * Nothing here is part of the public API; cross-file helpers are named tfn__*.
 */
#ifndef TFN_INTERNAL_H
#define TFN_INTERNAL_H

#include "tfnano.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__)
#    define TFN_LIKELY(x)        __builtin_expect(!!(x), 1)
#    define TFN_UNLIKELY(x)      __builtin_expect(!!(x), 0)
#    define TFN_PRINTF(fmt, arg) __attribute__((format(printf, fmt, arg)))
#else
#    define TFN_LIKELY(x)        (x)
#    define TFN_UNLIKELY(x)      (x)
#    define TFN_PRINTF(fmt, arg)
#endif

/* Unrolls the next loop of a fixed, small trip count (-O2 leaves it rolled). */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 8)
#    define TFN_UNROLL8 _Pragma("GCC unroll 8")
#else
#    define TFN_UNROLL8
#endif

/* ---------------------------------------------------------------- errors */

/* Fills `err` (when not NULL) and returns `code`, so callers can write
 * `return tfn__fail(err, TFN_E_X, "...", ...);`. The message is truncated to fit. */
int tfn__fail(tfn_error *err, int code, const char *fmt, ...) TFN_PRINTF(3, 4);

/* As tfn__fail, also recording the byte offset and record index. */
int tfn__fail_at(tfn_error *err, int code, uint64_t offset, uint64_t record_index,
                 const char *fmt, ...) TFN_PRINTF(5, 6);

/* Resets `err` to "no error" (when not NULL). */
void tfn__clear_error(tfn_error *err);

/* Appends to err->msg (keeps what is there; truncates to fit). */
void tfn__append(tfn_error *err, const char *fmt, ...) TFN_PRINTF(2, 3);

/* Writes `len` bytes as a C-escaped string into out (at most cap-1 chars + NUL), the
 * way TensorFlow's absl::CEscape prints bytes in messages. Returns chars written. */
size_t tfn__escape(char *out, size_t cap, const uint8_t *data, size_t len);

/* ---------------------------------------------------------------- memory */

/* The allocator in use by a handle: a copy of the user's, or libc's. */
typedef struct tfn__alloc {
    tfn_alloc a;
} tfn__alloc;

void tfn__alloc_init(tfn__alloc *dst, const tfn_alloc *user);
void *tfn__malloc(const tfn__alloc *a, size_t size);
void *tfn__realloc(const tfn__alloc *a, void *p, size_t old_size, size_t new_size);
void tfn__free(const tfn__alloc *a, void *p);

/* Grows a typed array held in (*ptr, *cap) to at least `need` elements of `elem`
 * bytes, geometrically. Returns false when out of memory or on size overflow; the old
 * array is then kept. */
bool tfn__grow(const tfn__alloc *a, void **ptr, size_t *cap, size_t need, size_t elem);

/* Bump arena made of chunks; reset keeps the largest chunk for reuse. */
typedef struct tfn__arena_chunk tfn__arena_chunk;
typedef struct tfn__arena {
    const tfn__alloc *alloc;
    tfn__arena_chunk *head; /* current chunk, older ones chained behind it */
    size_t used;            /* bytes used in head */
} tfn__arena;

void tfn__arena_init(tfn__arena *ar, const tfn__alloc *alloc);
/* 8-byte aligned block of `size` bytes, or NULL when out of memory. */
void *tfn__arena_alloc(tfn__arena *ar, size_t size);
void tfn__arena_reset(tfn__arena *ar);
void tfn__arena_free(tfn__arena *ar);

/* Checked size arithmetic: false on overflow. */
static inline bool tfn__mul_size(size_t a, size_t b, size_t *out)
{
    if (b != 0 && a > SIZE_MAX / b)
        return false;
    *out = a * b;
    return true;
}

static inline bool tfn__add_size(size_t a, size_t b, size_t *out)
{
    if (a > SIZE_MAX - b)
        return false;
    *out = a + b;
    return true;
}

/* ---------------------------------------------------------------- caller arrays
 *
 * Element k of a caller's array whose alignment is not known (tfn_column values,
 * Arrow buffers: pickle-5 out-of-band buffers, IPC bodies and mapped files need not be
 * aligned for their type). Reading through a misaligned typed pointer, or even making
 * one, is undefined behaviour; memcpy into a local is not, and compilers turn it into
 * the one plain load of an aligned read wherever the CPU allows unaligned loads. */
#define TFN__DEFINE_LOAD(name, type)                                           \
    static inline type name(const void *base, size_t k)                       \
    {                                                                          \
        type v;                                                                \
        memcpy(&v, (const uint8_t *)base + k * sizeof v, sizeof v);            \
        return v;                                                              \
    }
TFN__DEFINE_LOAD(tfn__ld_i16, int16_t)
TFN__DEFINE_LOAD(tfn__ld_u16, uint16_t)
TFN__DEFINE_LOAD(tfn__ld_i32, int32_t)
TFN__DEFINE_LOAD(tfn__ld_u32, uint32_t)
TFN__DEFINE_LOAD(tfn__ld_i64, int64_t)
TFN__DEFINE_LOAD(tfn__ld_u64, uint64_t)
TFN__DEFINE_LOAD(tfn__ld_f32, float)
TFN__DEFINE_LOAD(tfn__ld_f64, double)
#undef TFN__DEFINE_LOAD

/* The address of element k of `size` bytes (no typed pointer is made). */
static inline const void *tfn__elem(const void *base, size_t k, size_t size)
{
    return (const uint8_t *)base + k * size;
}

/* ---------------------------------------------------------------- bytes on the wire */

static inline uint32_t tfn__load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static inline uint64_t tfn__load_le64(const uint8_t *p)
{
    return (uint64_t)tfn__load_le32(p) | ((uint64_t)tfn__load_le32(p + 4) << 32);
}

static inline void tfn__store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void tfn__store_le64(uint8_t *p, uint64_t v)
{
    tfn__store_le32(p, (uint32_t)v);
    tfn__store_le32(p + 4, (uint32_t)(v >> 32));
}

static inline uint32_t tfn__float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float tfn__bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Number of bytes of the varint encoding of v (1..10). */
static inline size_t tfn__varint_size(uint64_t v)
{
    /* 1 + floor(bits/7); bits of 0 counts as 1 */
    int bits = 64 - __builtin_clzll(v | 1);
    return (size_t)((bits * 9 + 64) / 64);
}

/* Writes the varint of v at p; returns the byte after it. The caller ensures room. */
static inline uint8_t *tfn__put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* Reads a varint from [p, end). Returns the byte after it, or NULL when the input
 * ends inside it or it is longer than 10 bytes (as protobuf, bits past 64 are
 * dropped from a 10th byte). */
static inline const uint8_t *tfn__get_varint(const uint8_t *p, const uint8_t *end,
                                             uint64_t *out)
{
    if (TFN_LIKELY(p < end && *p < 0x80)) {
        *out = *p;
        return p + 1;
    }
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (p >= end)
            return NULL;
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80) {
            *out = v;
            return p;
        }
    }
    return NULL;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
#    define TFN_WORD_VARINTS 1
/* Final bytes (below 0x80) in `words` 8-byte words at p, for the common case where no
 * varint can be longer than 10 bytes: returns false, having counted nothing, when one
 * might be (then the exact loop decides). Such a varint has 10 continuation bytes in
 * a row: a word without a final byte, or a word ending in 3 or more continuation
 * bytes followed by one starting with 3 or more. Per word this is two rarely taken
 * branches and one add: the counts of the 8 byte lanes are summed in one word and
 * folded every 255 words, before a lane can overflow. *last gets the last word's
 * final-byte mask. */
static inline bool tfn__count_finals_fast(const uint8_t *p, size_t words, size_t *count,
                                          uint64_t *last)
{
    size_t n = 0;
    uint64_t finals = 0, top3 = 1; /* top3: final bits of the previous word's top 3 bytes */
    while (words) {
        size_t k = words < 255 ? words : 255;
        words -= k;
        uint64_t lanes = 0;
        for (; k; k--, p += 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            /* the input streams from memory: ask for what the scan reaches next (no
             * pointer arithmetic past the run: the address is computed as an integer) */
            __builtin_prefetch((const void *)((uintptr_t)p + 1024));
            finals = ~w & 0x8080808080808080ull;
            lanes += finals >> 7;
            if (TFN_UNLIKELY(finals == 0 || (top3 | (finals & 0x808080u)) == 0))
                return false;
            top3 = finals >> 40;
        }
        lanes = (lanes & 0x00ff00ff00ff00ffull) + ((lanes >> 8) & 0x00ff00ff00ff00ffull);
        n += (size_t)((lanes * 0x0001000100010001ull) >> 48);
    }
    *count = n;
    *last = finals;
    return true;
}
#endif

/* Counts the varints of a packed run [p, end): every byte below 0x80 ends one. Fails
 * (false) when one is longer than 10 bytes or the run ends inside one. Reads 8 bytes
 * at a time: this count is on the hot path of every numeric feature parsed. */
static inline bool tfn__count_varints(const uint8_t *p, const uint8_t *end, size_t *count)
{
    size_t n = 0, run = 0; /* run: continuation bytes since the last final byte */
#ifdef TFN_WORD_VARINTS
    size_t words = (size_t)(end - p) / 8;
    uint64_t last;
    if (words && tfn__count_finals_fast(p, words, &n, &last)) {
        p += words * 8;
        run = (size_t)__builtin_clzll(last) >> 3; /* last != 0: checked */
    }
    for (; end - p >= 8; p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t finals = ~w & 0x8080808080808080ull;
        if (finals == 0) {
            run += 8;
            if (run >= 10)
                return false;
            continue;
        }
        if (run + ((size_t)__builtin_ctzll(finals) >> 3) >= 10)
            return false;
        /* popcount without libgcc's __popcountdi2 (no -mpopcnt in a portable build):
         * the set bits are the top bit of bytes, so bring them to the bottom and let
         * a multiply add the 8 bytes up into the top one */
        n += (size_t)(((finals >> 7) * 0x0101010101010101ull) >> 56);
        run = (size_t)__builtin_clzll(finals) >> 3;
    }
#endif
    for (; p < end; p++) {
        if (*p < 0x80) {
            n++;
            run = 0;
        } else if (++run >= 10) {
            return false;
        }
    }
    *count = n;
    return run == 0;
}

/* Protobuf wire types. */
enum { TFN_WT_VARINT = 0, TFN_WT_FIXED64 = 1, TFN_WT_LEN = 2, TFN_WT_FIXED32 = 5 };

/* Largest message protobuf serializes (2 GiB - 1). */
#define TFN_MAX_MESSAGE_SIZE ((uint64_t)INT32_MAX)

/* Name of a dtype in TensorFlow's messages ("int64", "float", "string"). */
const char *tfn__dtype_tf_name(int dtype);

#endif /* TFN_INTERNAL_H */

/*
 * hash.c - the string hashes behind tf.strings.to_hash_bucket*, bit-exact with
 * TensorFlow:
 *   - FarmHash's Fingerprint64 (the farmhashna 64-bit hash, which Google promises
 *     never to change): to_hash_bucket_fast and tf.lookup's out-of-vocabulary buckets;
 *   - TensorFlow's own Hash64 (a MurmurHash64A variant, seed 0xDECAFCAFFE):
 *     to_hash_bucket (the StringToHashBucket op);
 *   - SipHash-2-4 with a 128-bit key given as two uint64 words: to_hash_bucket_strong.
 * All words are read little-endian, byte by byte, so the values are the same on every
 * machine and no load is unaligned.
 */
#include "tfn_internal.h"

#include <inttypes.h>

/* ---------------------------------------------------------------- FarmHash (na) */

static const uint64_t FP_K0 = 0xc3a5c85c97cb3127ull;
static const uint64_t FP_K1 = 0xb492b66fbe98f273ull;
static const uint64_t FP_K2 = 0x9ae16a3b2f90404full;

/* FarmHash rotates right; every shift used here is 1..63. */
static inline uint64_t rotr64(uint64_t v, unsigned s)
{
    return (v >> s) | (v << (64u - s));
}

static inline uint64_t shift_mix(uint64_t v)
{
    return v ^ (v >> 47);
}

/* Murmur-style combination of two words with a length-dependent multiplier. */
static inline uint64_t mix16(uint64_t u, uint64_t v, uint64_t mul)
{
    uint64_t a = (u ^ v) * mul;
    a ^= a >> 47;
    uint64_t b = (v ^ a) * mul;
    b ^= b >> 47;
    return b * mul;
}

static uint64_t fp_len_0_to_16(const uint8_t *s, size_t len)
{
    if (len >= 8) {
        uint64_t mul = FP_K2 + (uint64_t)len * 2;
        uint64_t a = tfn__load_le64(s) + FP_K2;
        uint64_t b = tfn__load_le64(s + len - 8);
        uint64_t c = rotr64(b, 37) * mul + a;
        uint64_t d = (rotr64(a, 25) + b) * mul;
        return mix16(c, d, mul);
    }
    if (len >= 4) {
        uint64_t mul = FP_K2 + (uint64_t)len * 2;
        uint64_t a = tfn__load_le32(s);
        return mix16((uint64_t)len + (a << 3), tfn__load_le32(s + len - 4), mul);
    }
    if (len > 0) {
        uint32_t y = (uint32_t)s[0] + ((uint32_t)s[len >> 1] << 8);
        uint32_t z = (uint32_t)len + ((uint32_t)s[len - 1] << 2);
        return shift_mix((uint64_t)y * FP_K2 ^ (uint64_t)z * FP_K0) * FP_K2;
    }
    return FP_K2;
}

static uint64_t fp_len_17_to_32(const uint8_t *s, size_t len)
{
    uint64_t mul = FP_K2 + (uint64_t)len * 2;
    uint64_t a = tfn__load_le64(s) * FP_K1;
    uint64_t b = tfn__load_le64(s + 8);
    uint64_t c = tfn__load_le64(s + len - 8) * mul;
    uint64_t d = tfn__load_le64(s + len - 16) * FP_K2;
    return mix16(rotr64(a + b, 43) + rotr64(c, 30) + d, a + rotr64(b + FP_K2, 18) + c, mul);
}

static uint64_t fp_len_33_to_64(const uint8_t *s, size_t len)
{
    uint64_t mul = FP_K2 + (uint64_t)len * 2;
    uint64_t a = tfn__load_le64(s) * FP_K2;
    uint64_t b = tfn__load_le64(s + 8);
    uint64_t c = tfn__load_le64(s + len - 8) * mul;
    uint64_t d = tfn__load_le64(s + len - 16) * FP_K2;
    uint64_t y = rotr64(a + b, 43) + rotr64(c, 30) + d;
    uint64_t z = mix16(y, a + rotr64(b + FP_K2, 18) + c, mul);
    uint64_t e = tfn__load_le64(s + 16) * mul;
    uint64_t f = tfn__load_le64(s + 24);
    uint64_t g = (y + tfn__load_le64(s + len - 32)) * mul;
    uint64_t h = (z + tfn__load_le64(s + len - 24)) * mul;
    return mix16(rotr64(e + f, 43) + rotr64(g, 30) + h, e + rotr64(f + a, 18) + g, mul);
}

/* Two running words fed with 32 bytes of input and two seeds. */
typedef struct fp_pair {
    uint64_t first, second;
} fp_pair;

static inline fp_pair fp_weak32(const uint8_t *s, uint64_t a, uint64_t b)
{
    uint64_t w = tfn__load_le64(s), x = tfn__load_le64(s + 8);
    uint64_t y = tfn__load_le64(s + 16), z = tfn__load_le64(s + 24);
    a += w;
    b = rotr64(b + a + z, 21);
    uint64_t c = a;
    a += x;
    a += y;
    b += rotr64(a, 44);
    fp_pair r = {a + z, b + c};
    return r;
}

uint64_t tfn_fingerprint64(const void *data, size_t len)
{
    const uint8_t *s = data;
    if (len <= 16)
        return fp_len_0_to_16(s, len);
    if (len <= 32)
        return fp_len_17_to_32(s, len);
    if (len <= 64)
        return fp_len_33_to_64(s, len);

    /* Longer inputs: 64-byte blocks into a 56-byte state (v, w, x, y, z), then the
     * last 64 bytes of the input (overlapping the last block) finish it. */
    const uint64_t seed = 81;
    uint64_t x = seed * FP_K2 + tfn__load_le64(s);
    uint64_t y = seed * FP_K1 + 113;
    uint64_t z = shift_mix(y * FP_K2 + 113) * FP_K2;
    fp_pair v = {0, 0}, w = {0, 0};
    const uint8_t *end = s + ((len - 1) / 64) * 64;
    const uint8_t *last64 = s + len - 64;
    do {
        x = rotr64(x + y + v.first + tfn__load_le64(s + 8), 37) * FP_K1;
        y = rotr64(y + v.second + tfn__load_le64(s + 48), 42) * FP_K1;
        x ^= w.second;
        y += v.first + tfn__load_le64(s + 40);
        z = rotr64(z + w.first, 33) * FP_K1;
        v = fp_weak32(s, v.second * FP_K1, x + w.first);
        w = fp_weak32(s + 32, z + w.second, y + tfn__load_le64(s + 16));
        uint64_t t = z;
        z = x;
        x = t;
        s += 64;
    } while (s != end);
    uint64_t mul = FP_K1 + ((z & 0xff) << 1);
    s = last64;
    w.first += (uint64_t)((len - 1) & 63);
    v.first += w.first;
    w.first += v.first;
    x = rotr64(x + y + v.first + tfn__load_le64(s + 8), 37) * mul;
    y = rotr64(y + v.second + tfn__load_le64(s + 48), 42) * mul;
    x ^= w.second * 9;
    y += v.first * 9 + tfn__load_le64(s + 40);
    z = rotr64(z + w.first, 33) * mul;
    v = fp_weak32(s, v.second * mul, x + w.first);
    w = fp_weak32(s + 32, z + w.second, y + tfn__load_le64(s + 16));
    uint64_t t = z;
    z = x;
    x = t;
    return mix16(mix16(v.first, w.first, mul) + shift_mix(y) * FP_K0 + z,
                 mix16(v.second, w.second, mul) + x, mul);
}

/* ---------------------------------------------------------------- TensorFlow Hash64 */

uint64_t tfn_tf_hash64(const void *data, size_t len, uint64_t seed)
{
    const uint64_t m = 0xc6a4a7935bd1e995ull;
    const unsigned r = 47;
    const uint8_t *p = data;
    uint64_t h = seed ^ ((uint64_t)len * m);
    while (len >= 8) {
        uint64_t k = tfn__load_le64(p) * m;
        k ^= k >> r;
        h = (h ^ (k * m)) * m;
        p += 8;
        len -= 8;
    }
    if (len > 0) {
        /* The 1..7 tail bytes, first byte lowest. */
        uint64_t tail = 0;
        for (size_t i = len; i-- > 0;)
            tail = (tail << 8) | p[i];
        h = (h ^ tail) * m;
    }
    h ^= h >> r;
    h *= m;
    h ^= h >> r;
    return h;
}

/* ---------------------------------------------------------------- SipHash-2-4 */

static inline uint64_t rotl64(uint64_t v, unsigned s)
{
    return (v << s) | (v >> (64u - s));
}

typedef struct sip_state {
    uint64_t v0, v1, v2, v3;
} sip_state;

static inline void sip_rounds(sip_state *st, int rounds)
{
    for (int i = 0; i < rounds; i++) {
        st->v0 += st->v1;
        st->v2 += st->v3;
        st->v1 = rotl64(st->v1, 13) ^ st->v0;
        st->v3 = rotl64(st->v3, 16) ^ st->v2;
        st->v0 = rotl64(st->v0, 32);
        st->v2 += st->v1;
        st->v0 += st->v3;
        st->v1 = rotl64(st->v1, 17) ^ st->v2;
        st->v3 = rotl64(st->v3, 21) ^ st->v0;
        st->v2 = rotl64(st->v2, 32);
    }
}

static inline void sip_absorb(sip_state *st, uint64_t m)
{
    st->v3 ^= m;
    sip_rounds(st, 2);
    st->v0 ^= m;
}

uint64_t tfn_siphash24(const uint64_t key[2], const void *data, size_t len)
{
    sip_state st = {0x736f6d6570736575ull ^ key[0], 0x646f72616e646f6dull ^ key[1],
                    0x6c7967656e657261ull ^ key[0], 0x7465646279746573ull ^ key[1]};
    const uint8_t *p = data;
    size_t left = len;
    while (left >= 8) {
        sip_absorb(&st, tfn__load_le64(p));
        p += 8;
        left -= 8;
    }
    /* The last word: the 0..7 remaining bytes, the length's low byte on top. */
    uint64_t last = (uint64_t)(len & 0xff) << 56;
    for (size_t i = left; i-- > 0;)
        last |= (uint64_t)p[i] << (8 * i);
    sip_absorb(&st, last);
    st.v2 ^= 0xff;
    sip_rounds(&st, 4);
    return st.v0 ^ st.v1 ^ st.v2 ^ st.v3;
}

/* ---------------------------------------------------------------- many strings */

static inline uint64_t hash_one(int kind, const uint64_t *key, const uint8_t *s, size_t len)
{
    return kind == TFN_HASH_FINGERPRINT64 ? tfn_fingerprint64(s, len)
           : kind == TFN_HASH_TF_HASH64   ? tfn_tf_hash64(s, len, TFN_TF_HASH64_SEED)
                                          : tfn_siphash24(key, s, len);
}

static int check_kind(int kind, const uint64_t *key, const char *fn, tfn_error *err)
{
    if (kind != TFN_HASH_FINGERPRINT64 && kind != TFN_HASH_TF_HASH64 &&
        kind != TFN_HASH_SIPHASH24)
        return tfn__fail(err, TFN_E_INVALID_ARG, "%s: unknown hash kind %d", fn, kind);
    if (kind == TFN_HASH_SIPHASH24 && key == NULL)
        return tfn__fail(err, TFN_E_INVALID_ARG, "%s: SipHash needs a key", fn);
    return TFN_OK;
}

int tfn_hash_strings(int kind, const uint8_t *data, const int64_t *offsets, size_t n,
                             const uint64_t *key, uint64_t num_buckets, uint64_t *out,
                             tfn_error *err)
{
    int rc = check_kind(kind, key, "tfn_hash_strings", err);
    if (rc != TFN_OK)
        return rc;
    if (n > 0 && (offsets == NULL || out == NULL))
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_hash_strings: NULL offsets or out");
    for (size_t i = 0; i < n; i++) {
        if (offsets[i] < 0 || offsets[i + 1] < offsets[i] || (data == NULL && offsets[i + 1] > 0))
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i,
                                "tfn_hash_strings: offsets[%zu..%zu] = %" PRId64 "..%" PRId64
                                " is not a range",
                                i, i + 1, offsets[i], offsets[i + 1]);
    }
    for (size_t i = 0; i < n; i++) {
        const uint8_t *s = data == NULL ? (const uint8_t *)"" : data + offsets[i];
        uint64_t h = hash_one(kind, key, s, (size_t)(offsets[i + 1] - offsets[i]));
        out[i] = num_buckets == 0 ? h : h % num_buckets;
    }
    return TFN_OK;
}

int tfn_hash_views(int kind, const tfn_bytes *strs, size_t n, const uint64_t *key,
                   uint64_t num_buckets, uint64_t *out, tfn_error *err)
{
    int rc = check_kind(kind, key, "tfn_hash_views", err);
    if (rc != TFN_OK)
        return rc;
    if (n > 0 && (strs == NULL || out == NULL))
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_hash_views: NULL strs or out");
    for (size_t i = 0; i < n; i++) {
        if (strs[i].data == NULL && strs[i].len > 0)
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i,
                                "tfn_hash_views: strs[%zu] is NULL with length %zu", i,
                                strs[i].len);
    }
    for (size_t i = 0; i < n; i++) {
        const uint8_t *s = strs[i].data == NULL ? (const uint8_t *)"" : strs[i].data;
        uint64_t h = hash_one(kind, key, s, strs[i].len);
        out[i] = num_buckets == 0 ? h : h % num_buckets;
    }
    return TFN_OK;
}

/*
 * fuzz_hash_strings.c - libFuzzer harness for tfn_hash_views and tfn_hash_strings.
 *
 * Input: a control byte, a 16-byte SipHash key, then strings, each a length byte L and
 * L bytes (the last one cut short by the end of the input).
 *   byte 0: bits 0-1 the hash kind (0 and 3: SipHash-2-4, 1: Fingerprint64, 2:
 *           TensorFlow's Hash64); bits 2-7 num_buckets (0: the hash itself).
 * Each string lies at the end of its own heap block (odd lengths at odd addresses), so
 * a read past a string is an ASan report.
 * Invariants (a failure aborts): tfn_hash_views gives, for every string, what a simple
 * reference gives (SipHash-2-4 and Hash64 written out here byte by byte from their
 * definitions; Fingerprint64 against tfn_fingerprint64 of the string alone), modulo
 * num_buckets; tfn_hash_strings over the strings laid end to end gives the same.
 * Seeds (test/fuzz/corpus/hash_strings): test/fuzz/make_strings_seeds.py.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tfnano.h"

#define CHECK(cond)                                                                         \
    do {                                                                                    \
        if (!(cond))                                                                        \
            abort();                                                                        \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t le64(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;)
        v = (v << 8) | p[i];
    return v;
}

static uint64_t rotl(uint64_t v, unsigned s)
{
    return (v << s) | (v >> (64u - s));
}

/* SipHash-2-4 as the paper defines it. */
static uint64_t ref_siphash(const uint64_t k[2], const uint8_t *m, size_t len)
{
    uint64_t v0 = k[0] ^ 0x736f6d6570736575ull, v1 = k[1] ^ 0x646f72616e646f6dull;
    uint64_t v2 = k[0] ^ 0x6c7967656e657261ull, v3 = k[1] ^ 0x7465646279746573ull;
    size_t words = len / 8 + 1;
    for (size_t w = 0; w < words; w++) {
        size_t left = len - w * 8 < 8 ? len - w * 8 : 8;
        uint64_t mi = w + 1 < words ? le64(m + w * 8, 8)
                                    : le64(m + w * 8, left) | ((uint64_t)(len & 0xff) << 56);
        v3 ^= mi;
        for (int r = 0; r < 2; r++) {
            v0 += v1, v1 = rotl(v1, 13), v1 ^= v0, v0 = rotl(v0, 32);
            v2 += v3, v3 = rotl(v3, 16), v3 ^= v2;
            v0 += v3, v3 = rotl(v3, 21), v3 ^= v0;
            v2 += v1, v1 = rotl(v1, 17), v1 ^= v2, v2 = rotl(v2, 32);
        }
        v0 ^= mi;
    }
    v2 ^= 0xff;
    for (int r = 0; r < 4; r++) {
        v0 += v1, v1 = rotl(v1, 13), v1 ^= v0, v0 = rotl(v0, 32);
        v2 += v3, v3 = rotl(v3, 16), v3 ^= v2;
        v0 += v3, v3 = rotl(v3, 21), v3 ^= v0;
        v2 += v1, v1 = rotl(v1, 17), v1 ^= v2, v2 = rotl(v2, 32);
    }
    return v0 ^ v1 ^ v2 ^ v3;
}

/* TensorFlow's Hash64 (MurmurHash64A with its tail), seed 0xDECAFCAFFE. */
static uint64_t ref_tf_hash64(const uint8_t *p, size_t len)
{
    const uint64_t m = 0xc6a4a7935bd1e995ull;
    uint64_t h = TFN_TF_HASH64_SEED ^ (len * m);
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t k = le64(p + i, 8) * m;
        k ^= k >> 47;
        h = (h ^ (k * m)) * m;
    }
    if (len - i) {
        h ^= le64(p + i, len - i);
        h *= m;
    }
    h ^= h >> 47;
    h *= m;
    return h ^ (h >> 47);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 17)
        return 0;
    static const int kinds[4] = {TFN_HASH_SIPHASH24, TFN_HASH_FINGERPRINT64,
                                 TFN_HASH_TF_HASH64, TFN_HASH_SIPHASH24};
    int kind = kinds[data[0] & 3];
    uint64_t buckets = data[0] >> 2;
    uint64_t key[2] = {le64(data + 1, 8), le64(data + 9, 8)};
    const uint8_t *p = data + 17, *end = data + size;

    enum { MAX_STRINGS = 4096 };
    tfn_bytes views[MAX_STRINGS];
    uint8_t *blocks[MAX_STRINGS];
    int64_t offsets[MAX_STRINGS + 1];
    uint8_t joined[65536];
    size_t n = 0;
    offsets[0] = 0;
    while (p < end && n < MAX_STRINGS) {
        size_t len = *p++;
        if (len > (size_t)(end - p))
            len = (size_t)(end - p);
        if ((size_t)offsets[n] + len > sizeof joined)
            break;
        /* each string ends where its block ends; odd lengths start at an odd address */
        size_t lead = len & 1;
        uint8_t *b = malloc(len + lead ? len + lead : 1);
        CHECK(b != NULL);
        uint8_t *s = len ? b + lead : NULL;
        if (len)
            memcpy(s, p, len);
        blocks[n] = b;
        views[n] = (tfn_bytes){s, len};
        memcpy(joined + offsets[n], p, len);
        offsets[n + 1] = offsets[n] + (int64_t)len;
        p += len;
        n++;
    }
    uint64_t *got = malloc((n ? n : 1) * sizeof *got);
    uint64_t *again = malloc((n ? n : 1) * sizeof *again);
    CHECK(got && again);
    tfn_error err;
    CHECK(tfn_hash_views(kind, views, n, key, buckets, got, &err) == TFN_OK);
    CHECK(tfn_hash_strings(kind, offsets[n] ? joined : NULL, offsets, n, key, buckets, again,
                           &err) == TFN_OK);
    for (size_t i = 0; i < n; i++) {
        const uint8_t *s = views[i].data ? views[i].data : (const uint8_t *)"";
        size_t len = views[i].len;
        uint64_t want = kind == TFN_HASH_SIPHASH24   ? ref_siphash(key, s, len)
                        : kind == TFN_HASH_TF_HASH64 ? ref_tf_hash64(s, len)
                                                     : tfn_fingerprint64(s, len);
        if (buckets)
            want %= buckets;
        CHECK(got[i] == want);
        CHECK(again[i] == want);
    }
    for (size_t i = 0; i < n; i++)
        free(blocks[i]);
    free(got);
    free(again);
    return 0;
}

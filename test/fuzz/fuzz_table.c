/*
 * fuzz_table.c - libFuzzer harness for the lookup tables (tfn_table_*).
 *
 * Input: two control bytes, then items. byte 0: bit 0 int64 keys (else strings), bits
 * 1-7 how many of the items are table keys (the rest are queries; keys at most
 * 127); byte 1: the OOV bucket count - 1.
 *   string items: a length byte L and L bytes (the last cut short by the input's end),
 *     each at the end of its own heap block (odd lengths at odd addresses);
 *   int64 items: a byte b; b < 128: the small key b - 64 (keys repeat); else the next
 *     8 bytes, little-endian.
 * Key i's value is i, or -1 when i % 3 == 2 (a vocabulary key TensorFlow hashes).
 * Invariants (a failure aborts), against a linear search over the keys: first[] is each
 * key's first occurrence; the size counts distinct keys; every key and query finds
 * its first occurrence's row or `missing`; the vocabulary ids are the value, or size +
 * Fingerprint64(key, or the key's "%lld" text) % buckets; with no table (strings) the
 * hash alone.
 * Seeds (test/fuzz/corpus/table): test/fuzz/make_strings_seeds.py.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfnano.h"

#define CHECK(cond)                                                                         \
    do {                                                                                    \
        if (!(cond))                                                                        \
            abort();                                                                        \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_ITEMS = 2048 };

static int same_key(int ints, const tfn_bytes *s, const int64_t *k, size_t a, size_t b)
{
    if (ints)
        return k[a] == k[b];
    return s[a].len == s[b].len && (s[a].len == 0 || memcmp(s[a].data, s[b].data, s[a].len) == 0);
}

static uint64_t key_hash(int ints, const tfn_bytes *s, const int64_t *k, size_t i)
{
    if (!ints)
        return tfn_fingerprint64(s[i].data, s[i].len);
    char text[32];
    int len = snprintf(text, sizeof text, "%" PRId64, k[i]);
    CHECK(len > 0 && (size_t)len < sizeof text);
    return tfn_fingerprint64(text, (size_t)len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    int ints = data[0] & 1;
    size_t nkeys = data[0] >> 1;
    uint64_t buckets = (uint64_t)data[1] + 1;
    const uint8_t *p = data + 2, *end = data + size;

    tfn_bytes *s = calloc(MAX_ITEMS, sizeof *s);
    uint8_t **blocks = calloc(MAX_ITEMS, sizeof *blocks);
    int64_t *k = calloc(MAX_ITEMS, sizeof *k);
    CHECK(s && blocks && k);
    size_t n = 0;
    while (p < end && n < MAX_ITEMS) {
        if (ints) {
            uint8_t b = *p++;
            if (b < 128) {
                k[n] = (int64_t)b - 64;
            } else {
                uint64_t u = 0;
                for (int j = 7; j >= 0; j--)
                    u = (u << 8) | (p + j < end ? p[j] : 0);
                p = (size_t)(end - p) < 8 ? end : p + 8;
                memcpy(&k[n], &u, sizeof u);
            }
        } else {
            size_t len = *p++;
            if (len > (size_t)(end - p))
                len = (size_t)(end - p);
            size_t lead = len & 1;
            blocks[n] = malloc(len + lead ? len + lead : 1);
            CHECK(blocks[n] != NULL);
            if (len)
                memcpy(blocks[n] + lead, p, len);
            s[n] = (tfn_bytes){len ? blocks[n] + lead : NULL, len};
            p += len;
        }
        n++;
    }
    if (nkeys > n)
        nkeys = n;
    size_t nq = n - nkeys;

    int64_t *values = malloc((nkeys ? nkeys : 1) * sizeof *values);
    int64_t *first = malloc((nkeys ? nkeys : 1) * sizeof *first);
    int64_t *rows = malloc((n ? n : 1) * sizeof *rows);
    int64_t *ids = malloc((n ? n : 1) * sizeof *ids);
    CHECK(values && first && rows && ids);
    for (size_t i = 0; i < nkeys; i++)
        values[i] = i % 3 == 2 ? -1 : (int64_t)i;

    tfn_table *t = NULL;
    tfn_error err;
    int rc = ints ? tfn_table_new_int64(k, nkeys, first, NULL, &t, &err)
                  : tfn_table_new_strings(s, nkeys, first, NULL, &t, &err);
    CHECK(rc == TFN_OK && t != NULL);

    /* the reference: first occurrences by linear search */
    size_t distinct = 0;
    for (size_t i = 0; i < nkeys; i++) {
        size_t f = 0;
        while (!same_key(ints, s, k, f, i))
            f++;
        CHECK(first[i] == (int64_t)f);
        distinct += f == i;
    }
    CHECK(tfn_table_size(t) == distinct);

    /* every item (keys and queries) looked up */
    const int64_t missing = -12345;
    rc = ints ? tfn_table_find_int64(t, k, n, missing, rows, &err)
              : tfn_table_find_strings(t, s, n, missing, rows, &err);
    CHECK(rc == TFN_OK);
    rc = ints ? tfn_table_vocab_int64(t, values, k, n, buckets, ids, &err)
              : tfn_table_vocab_strings(t, values, s, n, buckets, ids, &err);
    CHECK(rc == TFN_OK);
    for (size_t i = 0; i < n; i++) {
        int64_t want = missing;
        for (size_t j = 0; j < nkeys && want == missing; j++)
            if (same_key(ints, s, k, j, i))
                want = (int64_t)j;
        CHECK(rows[i] == want);
        int64_t id = want == missing ? -1 : values[want];
        if (id == -1)
            id = (int64_t)(distinct + key_hash(ints, s, k, i) % buckets);
        CHECK(ids[i] == id);
    }
    if (!ints) { /* no vocabulary: the bucket alone */
        CHECK(tfn_table_vocab_strings(NULL, NULL, s + nkeys, nq, buckets, ids, &err) == TFN_OK);
        for (size_t i = 0; i < nq; i++)
            CHECK(ids[i] == (int64_t)(key_hash(0, s, k, nkeys + i) % buckets));
    }
    tfn_table_free(t);
    for (size_t i = 0; i < n; i++)
        free(blocks[i]);
    free(s), free(blocks), free(k), free(values), free(first), free(rows), free(ids);
    return 0;
}

/* test_table.c - the lookup tables behind tf.lookup (tfn_table_*): rows of first
 * occurrences, lookups of present and missing keys compared with a linear search,
 * string keys that differ only in length or in bytes after a NUL, int64 extremes,
 * the vocabulary ids (values, -1 values hashed, out-of-vocabulary buckets of strings
 * and of integers' decimal text), argument errors, and allocation failures. */
#include "harness.h"
#include "tfnano.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static tfn_bytes B(const char *s)
{
    return (tfn_bytes){(const uint8_t *)s, strlen(s)};
}

static void test_string_table(void)
{
    /* "a" twice, "" twice (one as a NULL view), a NUL-bearing key and its prefix */
    static const uint8_t nul[3] = {'x', 0, 'y'};
    tfn_bytes keys[7] = {B("a"), B("ab"), {NULL, 0}, B("a"), {nul, 3}, {nul, 1}, B("")};
    int64_t first[7];
    tfn_table *t = NULL;
    tfn_error err;
    REQUIRE(tfn_table_new_strings(keys, 7, first, NULL, &t, &err) == TFN_OK);
    CHECK_EQ_INT(tfn_table_size(t), 5);
    const int64_t want_first[7] = {0, 1, 2, 0, 4, 5, 2};
    for (int i = 0; i < 7; i++)
        CHECK_EQ_INT(first[i], want_first[i]);

    tfn_bytes q[8] = {B("ab"), B("b"), B(""), {nul, 3}, {nul, 2}, B("x"), B("a"), B("abc")};
    int64_t rows[8];
    CHECK_EQ_INT(tfn_table_find_strings(t, q, 8, -7, rows, &err), TFN_OK);
    const int64_t want[8] = {1, -7, 2, 4, -7, 5, 0, -7};
    for (int i = 0; i < 8; i++)
        CHECK_EQ_INT(rows[i], want[i]);
    CHECK_EQ_INT(tfn_table_find_strings(t, NULL, 0, 0, NULL, &err), TFN_OK);

    /* the other key type, NULL views of non-empty keys */
    int64_t k = 1;
    CHECK_EQ_INT(tfn_table_find_int64(t, &k, 1, 0, rows, &err), TFN_E_INVALID_ARG);
    CHECK_STR(err.msg, "tfn_table_find_int64: the table's keys are strings");
    tfn_bytes bad[2] = {B("a"), {NULL, 3}};
    CHECK_EQ_INT(tfn_table_find_strings(t, bad, 2, 0, rows, &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(err.record_index, 1);
    tfn_table *none = t;
    CHECK_EQ_INT(tfn_table_new_strings(bad, 2, NULL, NULL, &none, &err), TFN_E_INVALID_ARG);
    CHECK(none == NULL);
    CHECK_EQ_INT(tfn_table_find_strings(NULL, q, 1, 0, rows, &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_table_new_strings(NULL, 1, NULL, NULL, &none, &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_table_new_strings(keys, 1, NULL, NULL, NULL, &err), TFN_E_INVALID_ARG);
    tfn_table_free(t);
    tfn_table_free(NULL);
    CHECK_EQ_INT(tfn_table_size(NULL), 0);

    /* an empty table finds nothing */
    REQUIRE(tfn_table_new_strings(NULL, 0, NULL, NULL, &t, &err) == TFN_OK);
    CHECK_EQ_INT(tfn_table_size(t), 0);
    CHECK_EQ_INT(tfn_table_find_strings(t, q, 8, 3, rows, &err), TFN_OK);
    for (int i = 0; i < 8; i++)
        CHECK_EQ_INT(rows[i], 3);
    tfn_table_free(t);
}

/* Many keys (the table grows to thousands of slots, probes run long), short and long
 * (past what a slot holds, sharing their first 4 bytes): every lookup agrees with a
 * linear search over the keys. */
static void test_many_keys(void)
{
    enum { N = 5000, Q = 12000 };
    char (*text)[24] = malloc(sizeof(*text) * N);
    tfn_bytes *keys = malloc(sizeof *keys * N);
    int64_t *ikeys = malloc(sizeof *ikeys * N), *first = malloc(sizeof *first * N);
    REQUIRE(text && keys && ikeys && first);
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t v = (int64_t)(x % 3000) - 1500; /* repeats */
        /* short keys (in the slot) and long ones sharing their first bytes */
        snprintf(text[i], sizeof text[i], v % 2 ? "w%" PRId64 : "wwww shared %" PRId64, v);
        keys[i] = B(text[i]);
        ikeys[i] = v * 1000003;
    }
    tfn_table *ts = NULL, *ti = NULL;
    tfn_error err;
    REQUIRE(tfn_table_new_strings(keys, N, first, NULL, &ts, &err) == TFN_OK);
    size_t distinct = 0;
    for (int i = 0; i < N; i++) {
        int64_t f = -1;
        for (int j = 0; j <= i && f < 0; j++)
            if (ikeys[j] == ikeys[i])
                f = j;
        CHECK_EQ_INT(first[i], f);
        distinct += f == i;
    }
    CHECK_EQ_INT(tfn_table_size(ts), distinct);
    REQUIRE(tfn_table_new_int64(ikeys, N, first, NULL, &ti, &err) == TFN_OK);
    CHECK_EQ_INT(tfn_table_size(ti), distinct);

    char (*qtext)[24] = malloc(sizeof(*qtext) * Q);
    tfn_bytes *q = malloc(sizeof *q * Q);
    int64_t *qi = malloc(sizeof *qi * Q), *rows = malloc(sizeof *rows * Q),
            *irows = malloc(sizeof *irows * Q);
    REQUIRE(qtext && q && qi && rows && irows);
    for (int i = 0; i < Q; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t v = (int64_t)(x % 4000) - 2000;
        snprintf(qtext[i], sizeof qtext[i], v % 2 ? "w%" PRId64 : "wwww shared %" PRId64, v);
        q[i] = B(qtext[i]);
        qi[i] = v * 1000003;
    }
    CHECK_EQ_INT(tfn_table_find_strings(ts, q, Q, -1, rows, &err), TFN_OK);
    CHECK_EQ_INT(tfn_table_find_int64(ti, qi, Q, -1, irows, &err), TFN_OK);
    int bad = 0;
    for (int i = 0; i < Q; i++) {
        int64_t f = -1;
        for (int j = 0; j < N && f < 0; j++)
            if (ikeys[j] == qi[i])
                f = j;
        bad += rows[i] != f || irows[i] != f;
    }
    CHECK_EQ_INT(bad, 0);
    tfn_table_free(ts);
    tfn_table_free(ti);
    free(text), free(keys), free(ikeys), free(first);
    free(qtext), free(q), free(qi), free(rows), free(irows);
}

static void test_int64_table(void)
{
    const int64_t keys[6] = {INT64_MIN, 0, -1, INT64_MAX, 0, INT64_MIN};
    int64_t first[6];
    tfn_table *t = NULL;
    tfn_error err;
    REQUIRE(tfn_table_new_int64(keys, 6, first, NULL, &t, &err) == TFN_OK);
    CHECK_EQ_INT(tfn_table_size(t), 4);
    const int64_t want_first[6] = {0, 1, 2, 3, 1, 0};
    for (int i = 0; i < 6; i++)
        CHECK_EQ_INT(first[i], want_first[i]);
    const int64_t q[5] = {INT64_MAX, 1, INT64_MIN, -1, INT64_MIN + 1};
    int64_t rows[5];
    CHECK_EQ_INT(tfn_table_find_int64(t, q, 5, 99, rows, &err), TFN_OK);
    const int64_t want[5] = {3, 99, 0, 2, 99};
    for (int i = 0; i < 5; i++)
        CHECK_EQ_INT(rows[i], want[i]);
    tfn_bytes s = B("0");
    CHECK_EQ_INT(tfn_table_find_strings(t, &s, 1, 0, rows, &err), TFN_E_INVALID_ARG);
    CHECK_STR(err.msg, "tfn_table_find_strings: the table's keys are int64");
    tfn_table *none = t;
    CHECK_EQ_INT(tfn_table_new_int64(NULL, 2, NULL, NULL, &none, &err), TFN_E_INVALID_ARG);
    CHECK(none == NULL);
    tfn_table_free(t);
}

static uint64_t fp(const char *s)
{
    return tfn_fingerprint64(s, strlen(s));
}

static void test_vocab(void)
{
    tfn_bytes keys[4] = {B("the"), B("cat"), B("sat"), B("the")};
    const int64_t values[4] = {10, -1, 12, 10}; /* "cat" -> -1: hashed, as in TF */
    tfn_table *t = NULL;
    tfn_error err;
    REQUIRE(tfn_table_new_strings(keys, 4, NULL, NULL, &t, &err) == TFN_OK);
    tfn_bytes q[4] = {B("sat"), B("cat"), B("dog"), B("the")};
    int64_t ids[5];
    CHECK_EQ_INT(tfn_table_vocab_strings(t, values, q, 4, 5, ids, &err), TFN_OK);
    CHECK_EQ_INT(ids[0], 12);
    CHECK_EQ_INT(ids[1], (int64_t)(3 + fp("cat") % 5));
    CHECK_EQ_INT(ids[2], (int64_t)(3 + fp("dog") % 5));
    CHECK_EQ_INT(ids[3], 10);
    /* no table: every key hashed, from 0 */
    CHECK_EQ_INT(tfn_table_vocab_strings(NULL, NULL, q, 4, 7, ids, &err), TFN_OK);
    for (int i = 0; i < 4; i++)
        CHECK_EQ_INT(ids[i], (int64_t)(tfn_fingerprint64(q[i].data, q[i].len) % 7));
    /* big bucket counts: the sum wraps as TensorFlow's int64 addition does */
    CHECK_EQ_INT(tfn_table_vocab_strings(t, values, q + 2, 1, (uint64_t)INT64_MAX, ids, &err),
                 TFN_OK);
    uint64_t sum = 3 + fp("dog") % (uint64_t)INT64_MAX;
    int64_t wrapped;
    memcpy(&wrapped, &sum, sizeof wrapped);
    CHECK_EQ_INT(ids[0], wrapped);
    CHECK_EQ_INT(tfn_table_vocab_strings(t, values, q, 4, 0, ids, &err), TFN_E_INVALID_ARG);
    CHECK_STR(err.msg, "tfn_table_vocab_strings: oov_buckets must be > 0");
    CHECK_EQ_INT(tfn_table_vocab_strings(t, NULL, q, 4, 3, ids, &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_table_vocab_int64(t, values, values, 4, 3, ids, &err), TFN_E_INVALID_ARG);
    tfn_table_free(t);

    /* integer keys: out-of-vocabulary ids from the decimal text */
    const int64_t ikeys[3] = {7, -3, 100};
    const int64_t ivalues[3] = {0, 1, 2};
    REQUIRE(tfn_table_new_int64(ikeys, 3, NULL, NULL, &t, &err) == TFN_OK);
    const int64_t iq[5] = {-3, 8, INT64_MIN, INT64_MAX, 0};
    CHECK_EQ_INT(tfn_table_vocab_int64(t, ivalues, iq, 5, 9, ids, &err), TFN_OK);
    CHECK_EQ_INT(ids[0], 1);
    CHECK_EQ_INT(ids[1], (int64_t)(3 + fp("8") % 9));
    CHECK_EQ_INT(ids[2], (int64_t)(3 + fp("-9223372036854775808") % 9));
    CHECK_EQ_INT(ids[3], (int64_t)(3 + fp("9223372036854775807") % 9));
    CHECK_EQ_INT(ids[4], (int64_t)(3 + fp("0") % 9));
    CHECK_EQ_INT(tfn_table_vocab_int64(NULL, ivalues, iq, 5, 9, ids, &err), TFN_E_INVALID_ARG);
    tfn_table_free(t);
}

/* An allocator that fails from the k-th call on. */
typedef struct budget {
    int left;
} budget;

static void *budget_malloc(void *ctx, size_t size)
{
    budget *b = ctx;
    return b->left-- > 0 ? malloc(size) : NULL;
}

static void budget_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

static void test_out_of_memory(void)
{
    /* keys longer than a slot holds: their bytes are a third allocation */
    tfn_bytes keys[3] = {B("a key of 20 bytes..."), B("b"), B("c")};
    const int64_t ikeys[3] = {1, 2, 3};
    int ok_strings = 0, ok_ints = 0;
    for (int k = 0; k < 8; k++) {
        budget b = {k};
        tfn_alloc a = {budget_malloc, NULL, budget_free, &b};
        tfn_table *t = NULL;
        tfn_error err;
        int rc = tfn_table_new_strings(keys, 3, NULL, &a, &t, &err);
        CHECK(rc == TFN_OK || (rc == TFN_E_NOMEM && t == NULL));
        ok_strings += rc == TFN_OK;
        tfn_table_free(t);
        b.left = k;
        rc = tfn_table_new_int64(ikeys, 3, NULL, &a, &t, &err);
        CHECK(rc == TFN_OK || (rc == TFN_E_NOMEM && t == NULL));
        ok_ints += rc == TFN_OK;
        tfn_table_free(t);
    }
    CHECK_EQ_INT(ok_strings, 5); /* three allocations: from k = 3 on */
    CHECK_EQ_INT(ok_ints, 6);    /* two allocations */
}

int main(void)
{
    RUN(test_string_table);
    RUN(test_many_keys);
    RUN(test_int64_table);
    RUN(test_vocab);
    RUN(test_out_of_memory);
    return harness_finish();
}

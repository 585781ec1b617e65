/* test_columns.c - columnar batch encoding gives exactly the builder's bytes. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "harness.h"
#include "tfnano.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int64_t random_int64(void)
{
    switch (rnd() % 4) {
    case 0: return (int64_t)(rnd() % 128);
    case 1: return (int64_t)(rnd() % 50000);
    case 2: return -(int64_t)(rnd() % 1000);
    default: return (int64_t)rnd();
    }
}

enum { N = 40, WIDTH = 7 };

static void test_random_columns_match_builder(void)
{
    int64_t dense[N * WIDTH];
    int32_t dense32[N * 3];
    float floats[N * 2];
    double doubles[N];
    int64_t ragged_vals[N * 10];
    int64_t splits[N + 1];
    uint8_t blob[N * 40];
    int64_t byte_offsets[N * 4 + 1];
    int64_t bytes_splits[N + 1];
    for (size_t i = 0; i < N * WIDTH; i++)
        dense[i] = random_int64();
    for (size_t i = 0; i < N * 3; i++)
        dense32[i] = (int32_t)random_int64();
    for (size_t i = 0; i < N * 2; i++)
        floats[i] = (float)(int64_t)(rnd() % 2000) / 7.0f;
    floats[3] = -0.0f;
    floats[5] = NAN;
    for (size_t i = 0; i < N; i++)
        doubles[i] = (double)(rnd() % 1000) / 3.0;
    doubles[0] = 1e300; /* becomes +inf, as protobuf stores it */
    splits[0] = 0;
    for (size_t i = 0; i < N; i++)
        splits[i + 1] = splits[i] + (int64_t)(rnd() % 11);
    for (int64_t k = 0; k < splits[N]; k++)
        ragged_vals[k] = random_int64();
    size_t nstr = 0, at = 0;
    byte_offsets[0] = 0;
    bytes_splits[0] = 0;
    for (size_t i = 0; i < N; i++) {
        size_t m = rnd() % 4;
        for (size_t k = 0; k < m; k++) {
            size_t len = rnd() % 10;
            for (size_t b = 0; b < len; b++)
                blob[at++] = (uint8_t)rnd();
            byte_offsets[++nstr] = (int64_t)at;
        }
        bytes_splits[i + 1] = (int64_t)nstr;
    }
    tfn_column cols[6] = {
        {"zz_dense", 8, TFN_INT64, dense, WIDTH, NULL, NULL},
        {"ids32", 5, TFN_INT32, dense32, 3, NULL, NULL},
        {"labels", 6, TFN_FLOAT32, floats, 2, NULL, NULL},
        {"d", 1, TFN_FLOAT64, doubles, 1, NULL, NULL},
        {"ragged", 6, TFN_INT64, ragged_vals, 0, splits, NULL},
        {"names", 5, TFN_BYTES, blob, 0, bytes_splits, byte_offsets},
    };
    uint64_t sizes[N], total = 0;
    tfn_error err;
    REQUIRE(tfn_encode_columns_size(cols, 6, N, sizes, &total, &err) == TFN_OK);
    uint8_t *out = malloc(total);
    uint64_t offsets[N + 1];
    size_t written = 0;
    REQUIRE(tfn_encode_columns(cols, 6, N, out, total, offsets, &written, &err) == TFN_OK);
    CHECK_EQ_INT(written, total);
    tfn_example *ex = tfn_example_new(NULL);
    for (size_t i = 0; i < N; i++) {
        tfn_example_clear(ex);
        tfn_example_set_int64s(ex, "zz_dense", 8, dense + i * WIDTH, WIDTH, NULL);
        tfn_example_set_int32s(ex, "ids32", 5, dense32 + i * 3, 3, NULL);
        tfn_example_set_floats(ex, "labels", 6, floats + i * 2, 2, NULL);
        float df = isinf(doubles[i]) || doubles[i] > 3.4e38 ? INFINITY : (float)doubles[i];
        tfn_example_set_floats(ex, "d", 1, &df, 1, NULL);
        tfn_example_set_int64s(ex, "ragged", 6, ragged_vals + splits[i],
                               (size_t)(splits[i + 1] - splits[i]), NULL);
        tfn_bytes strs[4];
        size_t m = 0;
        for (int64_t k = bytes_splits[i]; k < bytes_splits[i + 1]; k++, m++) {
            strs[m].data = blob + byte_offsets[k];
            strs[m].len = (size_t)(byte_offsets[k + 1] - byte_offsets[k]);
        }
        tfn_example_set_bytes(ex, "names", 5, strs, m, NULL);
        const uint8_t *want;
        size_t want_len;
        REQUIRE(tfn_example_serialize_owned(ex, &want, &want_len, NULL) == TFN_OK);
        CHECK_EQ_INT(sizes[i], want_len);
        CHECK_MEM(out + offsets[i], offsets[i + 1] - offsets[i], want, want_len);
    }
    tfn_example_free(ex);
    /* too small a buffer reports the size needed */
    CHECK_EQ_INT(tfn_encode_columns(cols, 6, N, out, total - 1, offsets, &written, &err),
                 TFN_E_BUF_TOO_SMALL);
    CHECK_EQ_INT(written, total);
    free(out);
}

static void test_column_errors(void)
{
    int64_t v[4] = {1, 2, 3, 4};
    int64_t bad_splits[3] = {0, 3, 2};
    tfn_error err;
    uint64_t total;
    tfn_column dup[2] = {{"a", 1, TFN_INT64, v, 2, NULL, NULL}, {"a", 1, TFN_INT64, v, 2, NULL, NULL}};
    CHECK_EQ_INT(tfn_encode_columns_size(dup, 2, 2, NULL, &total, &err), TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "appears twice") != NULL);
    tfn_column dec = {"r", 1, TFN_INT64, v, 0, bad_splits, NULL};
    CHECK_EQ_INT(tfn_encode_columns_size(&dec, 1, 2, NULL, &total, &err), TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "decrease at example 1") != NULL);
    CHECK_EQ_INT(err.record_index, 1);
    tfn_column typ = {"t", 1, 99, v, 1, NULL, NULL};
    CHECK_EQ_INT(tfn_encode_columns_size(&typ, 1, 2, NULL, &total, &err), TFN_E_TYPE);
    tfn_column nob = {"b", 1, TFN_BYTES, "xy", 1, NULL, NULL};
    CHECK_EQ_INT(tfn_encode_columns_size(&nob, 1, 2, NULL, &total, &err), TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "byte_offsets") != NULL);
    /* zero columns: every example is Example() = 0 bytes */
    uint8_t buf[1];
    uint64_t offs[3];
    size_t written = 9;
    CHECK_EQ_INT(tfn_encode_columns(NULL, 0, 2, buf, 0, offs, &written, &err), TFN_OK);
    CHECK_EQ_INT(written, 0);
    CHECK_EQ_INT(offs[2], 0);
}

/* ---- the staging area's fallback, running out of room, random batches, limits ---- */

/* lib/example/encode_columns.c stages a column's rows when its longest row fits in what is
 * left of 256 KiB at 10 bytes a value (columns in key order): 26214 values alone. */
enum { STAGE_ROW_MAX = 256 * 1024 / 10, GUARD = 64 };

/* A generated column and the arrays it owns. */
typedef struct gen_col {
    tfn_column c;
    void *values;
    int64_t *splits;
    int64_t *offsets;
} gen_col;

static void gen_col_free(gen_col *g)
{
    free(g->values);
    free(g->splits);
    free(g->offsets);
}

/* int64 values in runs of one class, so that whole blocks of eight take each of the
 * encoder's paths: one byte, up to four, ten (negative), and any. */
static void fill_int64s(int64_t *v, size_t n)
{
    size_t k = 0;
    while (k < n) {
        size_t run = 1 + (size_t)(rnd() % 24);
        uint64_t cls = rnd() % 6;
        for (size_t r = 0; r < run && k < n; r++, k++) {
            switch (cls) {
            case 0: v[k] = (int64_t)(rnd() % 128); break;
            case 1: v[k] = (int64_t)(rnd() % (1u << 28)); break;
            case 2: v[k] = -1 - (int64_t)(rnd() % 100000); break;
            case 3: v[k] = (int64_t)(rnd() >> 1); break;
            case 4: v[k] = rnd() % 2 ? INT64_MIN : INT64_MAX; break;
            default: v[k] = random_int64(); break;
            }
        }
    }
}

/* Column `key` of n examples: ragged with row_lens[i] items when row_lens is not
 * NULL, else dense of `width`. Float values are exact in float32 (so the builder's
 * float list is the same numbers); strings are 0-12 bytes, some 130 (2-byte length). */
static void gen_col_make(gen_col *g, const char *key, int dtype, size_t n,
                         const size_t *row_lens, size_t width)
{
    memset(g, 0, sizeof *g);
    size_t items = 0;
    if (row_lens) {
        g->splits = malloc((n + 1) * sizeof *g->splits);
        g->splits[0] = 0;
        for (size_t i = 0; i < n; i++) {
            items += row_lens[i];
            g->splits[i + 1] = (int64_t)items;
        }
    } else {
        items = n * width;
    }
    size_t alloc = items ? items : 1;
    if (dtype == TFN_INT64) {
        int64_t *v = malloc(alloc * sizeof *v);
        fill_int64s(v, items);
        g->values = v;
    } else if (dtype == TFN_INT32) {
        int64_t *wide = malloc(alloc * sizeof *wide);
        int32_t *v = malloc(alloc * sizeof *v);
        fill_int64s(wide, items);
        for (size_t k = 0; k < items; k++)
            v[k] = (int32_t)(wide[k] % 2147483647);
        free(wide);
        g->values = v;
    } else if (dtype == TFN_FLOAT32) {
        float *v = malloc(alloc * sizeof *v);
        for (size_t k = 0; k < items; k++)
            v[k] = (float)((int64_t)(rnd() % 4001) - 2000) / 8.0f;
        g->values = v;
    } else if (dtype == TFN_FLOAT64) {
        double *v = malloc(alloc * sizeof *v);
        for (size_t k = 0; k < items; k++)
            v[k] = (double)((int64_t)(rnd() % 4001) - 2000) / 16.0;
        g->values = v;
    } else {
        g->offsets = malloc((items + 1) * sizeof *g->offsets);
        size_t bytes = 0;
        g->offsets[0] = 0;
        for (size_t k = 0; k < items; k++) {
            bytes += rnd() % 16 == 0 ? 130 : (size_t)(rnd() % 13);
            g->offsets[k + 1] = (int64_t)bytes;
        }
        uint8_t *blob = malloc(bytes ? bytes : 1);
        for (size_t b = 0; b < bytes; b++)
            blob[b] = (uint8_t)rnd();
        g->values = blob;
    }
    g->c = (tfn_column){key, strlen(key), dtype, g->values, row_lens ? 0 : width, g->splits,
                        g->offsets};
}

static void row_of(const tfn_column *c, size_t i, size_t *begin, size_t *end)
{
    *begin = c->row_splits ? (size_t)c->row_splits[i] : i * c->width;
    *end = c->row_splits ? (size_t)c->row_splits[i + 1] : *begin + c->width;
}

/* Example i built one feature at a time with the tfn_example API: the reference. */
static int reference_example(tfn_example *ex, const tfn_column *cols, size_t ncols, size_t i,
                             const uint8_t **out, size_t *len)
{
    tfn_example_clear(ex);
    for (size_t k = 0; k < ncols; k++) {
        const tfn_column *c = &cols[k];
        size_t b, e;
        row_of(c, i, &b, &e);
        size_t m = e - b;
        int rc = TFN_OK;
        /* values may be NULL when the column has none: no pointer arithmetic on it */
        if (c->dtype == TFN_INT64) {
            rc = tfn_example_set_int64s(ex, c->key, c->key_len,
                                        m ? (const int64_t *)c->values + b : NULL, m, NULL);
        } else if (c->dtype == TFN_INT32) {
            rc = tfn_example_set_int32s(ex, c->key, c->key_len,
                                        m ? (const int32_t *)c->values + b : NULL, m, NULL);
        } else if (c->dtype == TFN_FLOAT32) {
            rc = tfn_example_set_floats(ex, c->key, c->key_len,
                                        m ? (const float *)c->values + b : NULL, m, NULL);
        } else if (c->dtype == TFN_FLOAT64) {
            float *f = malloc((m ? m : 1) * sizeof *f);
            for (size_t k2 = 0; k2 < m; k2++)
                f[k2] = (float)((const double *)c->values)[b + k2];
            rc = tfn_example_set_floats(ex, c->key, c->key_len, f, m, NULL);
            free(f);
        } else {
            tfn_bytes *s = malloc((m ? m : 1) * sizeof *s);
            for (size_t k2 = 0; k2 < m; k2++) {
                const int64_t *o = c->byte_offsets + b + k2;
                s[k2].data = (const uint8_t *)c->values + o[0];
                s[k2].len = (size_t)(o[1] - o[0]);
            }
            rc = tfn_example_set_bytes(ex, c->key, c->key_len, s, m, NULL);
            free(s);
        }
        if (rc)
            return rc;
    }
    return tfn_example_serialize_owned(ex, out, len, NULL);
}

static bool guard_intact(const uint8_t *guard, uint8_t canary)
{
    for (size_t k = 0; k < GUARD; k++)
        if (guard[k] != canary)
            return false;
    return true;
}

/* Encodes the batch into exactly its total size (a canary-filled guard behind it) and
 * compares sizes, offsets and every example with the builder's. Returns the total. */
static size_t check_batch(const tfn_column *cols, size_t ncols, size_t n)
{
    tfn_error err;
    uint64_t *sizes = malloc((n ? n : 1) * sizeof *sizes);
    uint64_t *offsets = malloc((n + 1) * sizeof *offsets);
    uint64_t total = 0;
    int rc = tfn_encode_columns_size(cols, ncols, n, sizes, &total, &err);
    CHECK_EQ_INT(rc, TFN_OK);
    uint8_t *buf = malloc((size_t)total + GUARD);
    memset(buf, 0xa5, (size_t)total + GUARD);
    size_t written = 0;
    if (rc == TFN_OK)
        rc = tfn_encode_columns(cols, ncols, n, buf, (size_t)total, offsets, &written, &err);
    CHECK_EQ_INT(rc, TFN_OK);
    if (rc == TFN_OK) {
        CHECK_EQ_INT(written, total);
        CHECK(guard_intact(buf + total, 0xa5));
        CHECK_EQ_INT(offsets[0], 0);
        CHECK_EQ_INT(offsets[n], total);
        tfn_example *ex = tfn_example_new(NULL);
        for (size_t i = 0; i < n; i++) {
            const uint8_t *want;
            size_t want_len;
            CHECK_EQ_INT(offsets[i + 1] - offsets[i], sizes[i]);
            if (offsets[i + 1] < offsets[i] || offsets[i + 1] > total)
                break;
            int built = reference_example(ex, cols, ncols, i, &want, &want_len);
            CHECK_EQ_INT(built, TFN_OK);
            if (built != TFN_OK)
                break;
            CHECK_EQ_INT(sizes[i], want_len);
            CHECK_MEM(buf + offsets[i], offsets[i + 1] - offsets[i], want, want_len);
        }
        tfn_example_free(ex);
    }
    free(buf);
    free(offsets);
    free(sizes);
    return (size_t)total;
}

/* dst of `cap` bytes (guard behind it filled with `canary`): TFN_E_BUF_TOO_SMALL,
 * *written == total, and nothing written at or past cap. */
static void check_cap_too_small(const tfn_column *cols, size_t ncols, size_t n, size_t cap,
                                size_t total, uint8_t canary)
{
    uint8_t *buf = malloc(cap + GUARD);
    uint64_t *offsets = malloc((n + 1) * sizeof *offsets);
    memset(buf, canary, cap + GUARD);
    size_t written = 12345;
    tfn_error err;
    int rc = tfn_encode_columns(cols, ncols, n, buf, cap, offsets, &written, &err);
    if (rc != TFN_E_BUF_TOO_SMALL || written != total || !guard_intact(buf + cap, canary)) {
        fprintf(stderr, "  cap %zu of %zu: rc %d, written %zu\n", cap, total, rc, written);
        CHECK_EQ_INT(rc, TFN_E_BUF_TOO_SMALL);
        CHECK_EQ_INT(written, total);
        CHECK(guard_intact(buf + cap, canary));
    }
    free(offsets);
    free(buf);
}

static void free_cols(gen_col *g, size_t ncols)
{
    for (size_t k = 0; k < ncols; k++)
        gen_col_free(&g[k]);
}

/* Rows too wide for the staging area (100k+ int64 values, 10-byte negatives) are sized
 * and written in place, next to staged, float, bytes and ragged columns. */
static void test_wide_rows_match_builder(void)
{
    enum { WN = 6 };
    static const size_t wide_rows[WN] = {3, 120000, 0, STAGE_ROW_MAX + 1, 7, 100001};
    static const size_t ids_rows[WN] = {40000, 1, 0, 2, 3, 27000};
    static const size_t name_rows[WN] = {2, 0, 5, 1, 3, 4};
    static const size_t float_rows[WN] = {0, 9, 1, 30000, 2, 3};
    gen_col g[6];
    gen_col_make(&g[0], "wide", TFN_INT64, WN, wide_rows, 0);
    gen_col_make(&g[1], "wide_neg", TFN_INT64, WN, NULL, 30000);
    int64_t *neg = g[1].values;
    for (size_t k = 0; k < WN * 30000; k++)
        neg[k] = -1 - (int64_t)(rnd() % 1000000); /* every value a 10-byte varint */
    gen_col_make(&g[2], "ids", TFN_INT32, WN, ids_rows, 0);
    gen_col_make(&g[3], "small", TFN_INT64, WN, NULL, 5);
    gen_col_make(&g[4], "names", TFN_BYTES, WN, name_rows, 0);
    gen_col_make(&g[5], "floats", TFN_FLOAT32, WN, float_rows, 0);
    tfn_column cols[6];
    for (size_t k = 0; k < 6; k++)
        cols[k] = g[k].c;
    size_t total = check_batch(cols, 6, WN);
    CHECK(total > (size_t)WN * 30000 * 10);
    /* the wide rows alone, and the widest row as the only example */
    check_batch(cols, 1, WN);
    check_batch(&cols[1], 1, 1);
    free_cols(g, 6);
}

/* The staging area is shared in key order: a column that fits alone falls back when
 * the columns before it took the room; the longest row that fits is staged. */
static void test_stage_budget_edges_match_builder(void)
{
    enum { BN = 4 };
    static const size_t a_rows[BN] = {20000, 5, 0, 19999};
    static const size_t b_rows[BN] = {1, 10000, 3, 0};
    static const size_t c_rows[BN] = {6000, 0, 2, 6000};
    static const size_t d_rows[BN] = {300, 1, 299, 0};
    gen_col g[4];
    /* bytes of the staging area reserved, in key order: 200000; 100000 wanted but
     * 62144 left, in place; 60000 (2144 left); 3000 wanted, in place */
    gen_col_make(&g[0], "a_first", TFN_INT64, BN, a_rows, 0);
    gen_col_make(&g[1], "b_second", TFN_INT64, BN, b_rows, 0);
    gen_col_make(&g[2], "c_third", TFN_INT64, BN, c_rows, 0);
    gen_col_make(&g[3], "d_int32", TFN_INT32, BN, d_rows, 0);
    tfn_column cols[4];
    for (size_t k = 0; k < 4; k++)
        cols[k] = g[k].c;
    check_batch(cols, 4, BN);
    free_cols(g, 4);

    static const size_t edge_rows[2] = {STAGE_ROW_MAX, 2};
    static const size_t over_rows[2] = {1, STAGE_ROW_MAX + 1};
    gen_col_make(&g[0], "edge", TFN_INT64, 2, edge_rows, 0);
    gen_col_make(&g[1], "over", TFN_INT64, 2, over_rows, 0);
    gen_col_make(&g[2], "edge32", TFN_INT32, 2, NULL, STAGE_ROW_MAX);
    for (size_t k = 0; k < 3; k++)
        cols[k] = g[k].c;
    check_batch(&cols[0], 1, 2); /* exactly fills the staging area */
    check_batch(&cols[1], 1, 2); /* one value more: written in place */
    check_batch(&cols[2], 1, 2);
    check_batch(cols, 3, 2);
    free_cols(g, 3);
}

/* A small batch of every column kind: every cap below the total is too small, reports
 * the total and writes nothing at or past cap; cap == total succeeds. */
static void test_every_short_cap_reports_total(void)
{
    enum { SN = 5 };
    static const size_t ragged_rows[SN] = {3, 0, 9, 1, 2};
    static const size_t name_rows[SN] = {1, 2, 0, 3, 1};
    gen_col g[5];
    gen_col_make(&g[0], "ids", TFN_INT64, SN, ragged_rows, 0);
    gen_col_make(&g[1], "dense32", TFN_INT32, SN, NULL, 3);
    gen_col_make(&g[2], "names", TFN_BYTES, SN, name_rows, 0);
    gen_col_make(&g[3], "f", TFN_FLOAT32, SN, NULL, 2);
    gen_col_make(&g[4], "d", TFN_FLOAT64, SN, NULL, 1);
    tfn_column cols[5];
    for (size_t k = 0; k < 5; k++)
        cols[k] = g[k].c;
    size_t total = check_batch(cols, 5, SN);
    REQUIRE(total > 0);
    int before = harness_failed_checks;
    for (size_t cap = 0; cap < total && harness_failed_checks == before; cap++) {
        check_cap_too_small(cols, 5, SN, cap, total, 0xa5);
        check_cap_too_small(cols, 5, SN, cap, total, 0x5a);
    }
    /* no buffer at all: the sizing call */
    size_t written = 0;
    tfn_error err;
    CHECK_EQ_INT(tfn_encode_columns(cols, 5, SN, NULL, 0, NULL, &written, &err),
                 TFN_E_BUF_TOO_SMALL);
    CHECK_EQ_INT(written, total);
    free_cols(g, 5);
}

/* As above with rows written in place: caps around every example's start and end and
 * a stride through the rest (every cap would encode megabytes each time). */
static void test_short_caps_with_wide_rows(void)
{
    enum { WN = 4 };
    static const size_t wide_rows[WN] = {2, STAGE_ROW_MAX + 5, 1, 30000};
    static const size_t small_rows[WN] = {1, 0, 4, 2};
    gen_col g[3];
    gen_col_make(&g[0], "wide", TFN_INT64, WN, wide_rows, 0);
    gen_col_make(&g[1], "small", TFN_INT64, WN, small_rows, 0);
    gen_col_make(&g[2], "names", TFN_BYTES, WN, small_rows, 0);
    tfn_column cols[3];
    for (size_t k = 0; k < 3; k++)
        cols[k] = g[k].c;
    size_t total = check_batch(cols, 3, WN);
    uint64_t sizes[WN];
    tfn_error err;
    REQUIRE(tfn_encode_columns_size(cols, 3, WN, sizes, NULL, &err) == TFN_OK);
    size_t start = 0;
    for (size_t i = 0; i <= WN; i++) {
        for (size_t d = 0; d < 3; d++) {
            if (start >= d && start - d < total)
                check_cap_too_small(cols, 3, WN, start - d, total, 0xa5);
            if (start + d + 1 < total)
                check_cap_too_small(cols, 3, WN, start + d + 1, total, 0x5a);
        }
        if (i < WN)
            start += (size_t)sizes[i];
    }
    for (size_t cap = 0; cap < total; cap += 9973)
        check_cap_too_small(cols, 3, WN, cap, total, 0xa5);
    free_cols(g, 3);
}

/* Random batches: random keys (the empty one, shared prefixes, bytes >= 0x80), kinds,
 * dense and ragged columns, empty rows and now and then a row wider than the staging
 * area. */
static void test_random_batches_match_builder(void)
{
    static const char *const keys[] = {"", "a", "ab", "abc", "b", "label", "tokens",
                                       "z\xff", "\x01", "tokens_2", "img"};
    static const int dtypes[] = {TFN_INT64, TFN_INT32, TFN_FLOAT32, TFN_FLOAT64, TFN_BYTES};
    enum { NKEYS = sizeof keys / sizeof keys[0], MAXN = 12 };
    for (int round = 0; round < 40; round++) {
        size_t n = (size_t)(rnd() % MAXN);
        size_t ncols = 1 + (size_t)(rnd() % 6);
        /* distinct keys: a shuffled prefix of the pool */
        size_t order[NKEYS];
        for (size_t k = 0; k < NKEYS; k++)
            order[k] = k;
        for (size_t k = NKEYS - 1; k > 0; k--) {
            size_t j = (size_t)(rnd() % (k + 1)), t = order[k];
            order[k] = order[j];
            order[j] = t;
        }
        gen_col g[6];
        tfn_column cols[6];
        for (size_t k = 0; k < ncols; k++) {
            int dtype = dtypes[rnd() % 5];
            size_t rows[MAXN];
            bool ragged = rnd() % 2;
            bool wide = (dtype == TFN_INT64 || dtype == TFN_INT32) && rnd() % 5 == 0;
            for (size_t i = 0; i < n; i++)
                rows[i] = rnd() % 4 == 0 ? 0 : (size_t)(rnd() % 12);
            if (wide && n) {
                ragged = true;
                rows[rnd() % n] = STAGE_ROW_MAX + (size_t)(rnd() % 90000);
            }
            gen_col_make(&g[k], keys[order[k]], dtype, n, ragged ? rows : NULL,
                         (size_t)(rnd() % 6));
            cols[k] = g[k].c;
        }
        int before = harness_failed_checks;
        check_batch(cols, ncols, n);
        if (harness_failed_checks != before)
            fprintf(stderr, "  round %d: %zu examples, %zu columns\n", round, n, ncols);
        free_cols(g, ncols);
    }
}

/* A column with no values at all may leave `values` NULL (the Python bindings pass
 * NULL for an empty array): no pointer is formed from it, staged or not. Also dst NULL
 * with nothing to write. (NULL + 0 is undefined in C; clang's UBSan reports it.) */
static void test_empty_columns_with_null_values(void)
{
    enum { EN = 3 };
    static const size_t staged_rows[EN] = {2, 0, 1};
    int64_t empty_splits[EN + 1] = {0, 0, 0, 0};
    gen_col g;
    gen_col_make(&g, "staged", TFN_INT64, EN, staged_rows, 0);
    tfn_column cols[6] = {
        g.c,
        {"e64", 3, TFN_INT64, NULL, 0, empty_splits, NULL},
        {"e32", 3, TFN_INT32, NULL, 0, NULL, NULL},
        {"ef", 2, TFN_FLOAT32, NULL, 0, NULL, NULL},
        {"ed", 2, TFN_FLOAT64, NULL, 0, empty_splits, NULL},
        {"eb", 2, TFN_BYTES, NULL, 0, empty_splits, empty_splits},
    };
    check_batch(cols, 6, EN);
    check_batch(&cols[1], 5, EN);
    gen_col_free(&g);
    /* nothing to write: no columns, or no examples */
    uint64_t offsets[EN + 1] = {9, 9, 9, 9};
    size_t written = 9;
    tfn_error err;
    CHECK_EQ_INT(tfn_encode_columns(NULL, 0, EN, NULL, 0, offsets, &written, &err), TFN_OK);
    CHECK_EQ_INT(written, 0);
    CHECK_EQ_INT(offsets[0], 0);
    CHECK_EQ_INT(offsets[EN], 0);
    written = 9;
    CHECK_EQ_INT(tfn_encode_columns(&cols[1], 1, 0, NULL, 0, offsets, &written, &err), TFN_OK);
    CHECK_EQ_INT(written, 0);
}

/* Address space for `count` elements of `size` bytes that faults on any access: a
 * column over it is a real array of that length, and reading it would crash. */
static void *reserve_unreadable(size_t count, size_t size)
{
#if defined(MAP_ANONYMOUS) && SIZE_MAX > UINT32_MAX
    void *p = mmap(NULL, count * size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
#else
    (void)count;
    (void)size;
    return NULL;
#endif
}

static void release(void *p, size_t count, size_t size)
{
#if defined(MAP_ANONYMOUS) && SIZE_MAX > UINT32_MAX
    if (p)
        munmap(p, count * size);
#else
    (void)p;
    (void)count;
    (void)size;
#endif
}

/* Both calls refuse the batch with TFN_E_LIMIT naming the column and the example. */
static void check_limit(const tfn_column *cols, size_t ncols, size_t n, size_t example)
{
    tfn_error err;
    uint64_t total = 0;
    CHECK_EQ_INT(tfn_encode_columns_size(cols, ncols, n, NULL, &total, &err), TFN_E_LIMIT);
    CHECK(strstr(err.msg, "'huge'") != NULL);
    CHECK(strstr(err.msg, "2 GiB") != NULL);
    CHECK_EQ_INT(err.record_index, example);
    uint8_t buf[16];
    size_t written = 7;
    CHECK_EQ_INT(tfn_encode_columns(cols, ncols, n, buf, sizeof buf, NULL, &written, &err),
                 TFN_E_LIMIT);
    CHECK_EQ_INT(written, 0);
    CHECK_EQ_INT(err.record_index, example);
    CHECK_EQ_INT(tfn_encode_columns(cols, ncols, n, NULL, 0, NULL, &written, &err),
                 TFN_E_LIMIT);
}

/* A row with more values than fit in protobuf's 2 GiB (a value takes at least 1 byte
 * as an integer, 4 as a float, 2 as a string) is TFN_E_LIMIT, found from the widths
 * and splits alone: the values lie in memory that cannot be read. */
static void test_rows_over_2gib_are_limit(void)
{
    const size_t int_row = (size_t)INT32_MAX + 1;
    const size_t float_row = (size_t)INT32_MAX / 4 + 1;
    const size_t bytes_row = (size_t)INT32_MAX / 2 + 1;
    void *ints = reserve_unreadable(int_row + 2, sizeof(int64_t));
    void *floats = reserve_unreadable(float_row, sizeof(double));
    int64_t *offsets = reserve_unreadable(bytes_row + 1, sizeof(int64_t));
    if (!ints || !floats || !offsets) {
        printf("  skipped: cannot reserve the address space of a 2 GiB row\n");
        release(ints, int_row + 2, sizeof(int64_t));
        release(floats, float_row, sizeof(double));
        release(offsets, bytes_row + 1, sizeof(int64_t));
        return;
    }
    int64_t small[3] = {1, -2, 3};
    uint8_t blob[1];
    tfn_column cols[2] = {{"ok", 2, TFN_INT64, small, 3, NULL, NULL},
                          {"huge", 4, TFN_INT64, ints, int_row, NULL, NULL}};
    check_limit(cols, 2, 1, 0);
    cols[1].dtype = TFN_INT32;
    check_limit(cols, 2, 1, 0);
    /* ragged: example 1 of 3 is the long one */
    int64_t splits[4] = {0, 1, 1 + (int64_t)int_row, 2 + (int64_t)int_row};
    cols[0].width = 1;
    cols[1] = (tfn_column){"huge", 4, TFN_INT64, ints, 0, splits, NULL};
    check_limit(cols, 2, 3, 1);
    cols[1] = (tfn_column){"huge", 4, TFN_FLOAT32, floats, float_row, NULL, NULL};
    check_limit(&cols[1], 1, 1, 0);
    cols[1].dtype = TFN_FLOAT64;
    check_limit(&cols[1], 1, 1, 0);
    /* 2^30 strings: at least 2 bytes each, even when empty */
    cols[1] = (tfn_column){"huge", 4, TFN_BYTES, blob, bytes_row, NULL, offsets};
    check_limit(&cols[1], 1, 1, 0);
    release(ints, int_row + 2, sizeof(int64_t));
    release(floats, float_row, sizeof(double));
    release(offsets, bytes_row + 1, sizeof(int64_t));
}

/* `values` may sit at any address (numpy views at odd offsets, Arrow buffers): the
 * same bytes as aligned copies, and no misaligned load (checked by the UBSan build). */
static void test_unaligned_values_match_aligned(void)
{
    enum { R = 6, W64 = 37 };
    int64_t i64[R * W64];
    int32_t i32[R * 5];
    float f32[R * 3];
    double f64[R * 2];
    for (size_t k = 0; k < R * W64; k++)
        i64[k] = k % 3 ? random_int64() : (int64_t)(k % 100);
    for (size_t k = 0; k < R * 5; k++)
        i32[k] = (int32_t)random_int64();
    for (size_t k = 0; k < R * 3; k++)
        f32[k] = (float)k / 3.0f;
    for (size_t k = 0; k < R * 2; k++)
        f64[k] = (double)k * 1e37;
    static _Alignas(16) uint8_t store[4][sizeof i64 + 8];
    uint8_t want[16384], got[16384];
    uint64_t want_off[R + 1], got_off[R + 1];
    size_t want_len = 0, got_len = 0;
    for (size_t shift = 0; shift < 8; shift += 3) {
        memcpy(store[0] + shift, i64, sizeof i64);
        memcpy(store[1] + shift, i32, sizeof i32);
        memcpy(store[2] + shift, f32, sizeof f32);
        memcpy(store[3] + shift, f64, sizeof f64);
        tfn_column cols[4] = {
            {"a", 1, TFN_INT64, store[0] + shift, W64, NULL, NULL},
            {"b", 1, TFN_INT32, store[1] + shift, 5, NULL, NULL},
            {"c", 1, TFN_FLOAT32, store[2] + shift, 3, NULL, NULL},
            {"d", 1, TFN_FLOAT64, store[3] + shift, 2, NULL, NULL},
        };
        tfn_error err;
        uint64_t total = 0;
        REQUIRE(tfn_encode_columns_size(cols, 4, R, NULL, &total, &err) == TFN_OK);
        REQUIRE(total <= sizeof want);
        size_t *len = shift ? &got_len : &want_len;
        REQUIRE(tfn_encode_columns(cols, 4, R, shift ? got : want, sizeof want,
                                   shift ? got_off : want_off, len, &err) == TFN_OK);
        CHECK_EQ_INT(*len, total);
        if (shift) {
            CHECK_MEM(got, got_len, want, want_len);
            for (size_t i = 0; i <= R; i++)
                CHECK_EQ_INT(got_off[i], want_off[i]);
        }
    }
    /* and the aligned bytes are the builder's */
    tfn_example *ex = tfn_example_new(NULL);
    for (size_t i = 0; i < R; i++) {
        tfn_example_clear(ex);
        tfn_example_set_int64s(ex, "a", 1, i64 + i * W64, W64, NULL);
        tfn_example_set_int32s(ex, "b", 1, i32 + i * 5, 5, NULL);
        tfn_example_set_floats(ex, "c", 1, f32 + i * 3, 3, NULL);
        float d[2] = {(float)f64[2 * i], f64[2 * i + 1] > 3.4e38 ? INFINITY : (float)f64[2 * i + 1]};
        if (f64[2 * i] > 3.4e38)
            d[0] = INFINITY;
        tfn_example_set_floats(ex, "d", 1, d, 2, NULL);
        const uint8_t *bytes;
        size_t n;
        REQUIRE(tfn_example_serialize_owned(ex, &bytes, &n, NULL) == TFN_OK);
        CHECK_MEM(want + want_off[i], want_off[i + 1] - want_off[i], bytes, n);
    }
    tfn_example_free(ex);
}

int main(void)
{
    RUN(test_random_columns_match_builder);
    RUN(test_column_errors);
    RUN(test_wide_rows_match_builder);
    RUN(test_stage_budget_edges_match_builder);
    RUN(test_every_short_cap_reports_total);
    RUN(test_short_caps_with_wide_rows);
    RUN(test_random_batches_match_builder);
    RUN(test_rows_over_2gib_are_limit);
    RUN(test_empty_columns_with_null_values);
    RUN(test_unaligned_values_match_aligned);
    return harness_finish();
}

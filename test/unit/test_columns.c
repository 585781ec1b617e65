/* test_columns.c - columnar batch encoding gives exactly the builder's bytes. */
#include "harness.h"
#include "tfnano.h"

#include <math.h>
#include <stdlib.h>

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

int main(void)
{
    RUN(test_random_columns_match_builder);
    RUN(test_column_errors);
    return harness_finish();
}

/* test_parse_kinds.c - TFN_VAR_LEN features (tf.io.VarLenFeature and the keys that
 * SparseFeature / RaggedFeature read): values back to back with row splits, next to
 * FixedLen features in one scan, and TensorFlow's sparse-path rules and error texts
 * (checked against TF 2.21: kind-less Features, duplicate keys, type mismatches,
 * broken lists in single and batch mode). */
#include "harness.h"
#include "tfnano.h"

#include <stdbool.h>
#include <stdlib.h>

static uint8_t bufs[16][512];
static size_t buf_next;

static tfn_bytes serialize(tfn_example *ex)
{
    uint8_t *dst = bufs[buf_next++ % 16];
    size_t n = 0;
    int rc = tfn_example_serialize(ex, dst, 512, &n, NULL);
    CHECK_EQ_INT(rc, TFN_OK);
    tfn_example_free(ex);
    return (tfn_bytes){dst, n};
}

static tfn_bytes ex_int64(const char *key, const int64_t *v, size_t n)
{
    tfn_example *ex = tfn_example_new(NULL);
    tfn_example_set_int64s(ex, key, strlen(key), v, n, NULL);
    return serialize(ex);
}

static tfn_bytes ex_float(const char *key, const float *v, size_t n)
{
    tfn_example *ex = tfn_example_new(NULL);
    tfn_example_set_floats(ex, key, strlen(key), v, n, NULL);
    return serialize(ex);
}

static tfn_bytes raw(const char *hex)
{
    uint8_t *dst = bufs[buf_next++ % 16];
    return (tfn_bytes){dst, harness_hex(hex, dst, 512)};
}

static tfn_feature_config var_len(const char *key, int dtype)
{
    tfn_feature_config c;
    memset(&c, 0, sizeof c);
    c.key = key;
    c.key_len = strlen(key);
    c.type = TFN_VAR_LEN;
    c.dtype = dtype;
    return c;
}

typedef struct result {
    int rc;
    tfn_error err;
    size_t total, max_rows;
    int64_t i64[64];
    int32_t i32[64];
    float f32[64];
    tfn_bytes b[64];
    int64_t lengths[16];
    int64_t splits[17];
} result;

static result parse1(tfn_feature_config cfg, const tfn_bytes *recs, size_t n, unsigned flags)
{
    result r;
    memset(&r, 0, sizeof r);
    tfn_spec *spec = NULL;
    r.rc = tfn_spec_new(&cfg, 1, NULL, &spec, &r.err);
    if (r.rc)
        return r;
    tfn_parser *p = tfn_parser_new(spec, NULL);
    r.rc = tfn_parser_scan(p, recs, n, NULL, flags, &r.err);
    if (r.rc == TFN_OK) {
        r.total = tfn_parser_total(p, 0);
        r.max_rows = tfn_parser_max_rows(p, 0);
        tfn_output o;
        memset(&o, 0, sizeof o);
        o.capacity = 64;
        o.lengths = r.lengths;
        CHECK_EQ_INT(tfn_parser_row_splits(p, 0, r.splits, NULL), TFN_OK);
        int out = cfg.out_dtype ? cfg.out_dtype : cfg.dtype;
        o.values = out == TFN_INT64 ? (void *)r.i64 : out == TFN_INT32 ? (void *)r.i32
                   : out == TFN_FLOAT32 ? (void *)r.f32 : (void *)r.b;
        r.rc = tfn_parser_fill(p, &o, &r.err);
    }
    tfn_parser_free(p);
    tfn_spec_free(spec);
    return r;
}

static void test_int64_batch_values_and_splits(void)
{
    const int64_t a[] = {1, -2, 300, INT64_MIN};
    const int64_t b[] = {7};
    tfn_bytes recs[] = {ex_int64("x", a, 4), ex_int64("y", b, 1), ex_int64("x", b, 1),
                        ex_int64("x", a, 0)};
    result r = parse1(var_len("x", TFN_INT64), recs, 4, TFN_PARSE_BATCH);
    REQUIRE(r.rc == TFN_OK);
    CHECK_EQ_INT(r.total, 5);
    CHECK_EQ_INT(r.max_rows, 4);
    const int64_t want[] = {1, -2, 300, INT64_MIN, 7};
    CHECK_MEM(r.i64, sizeof want, want, sizeof want);
    const int64_t splits[] = {0, 4, 4, 5, 5};
    CHECK_MEM(r.splits, sizeof splits, splits, sizeof splits);
    const int64_t lengths[] = {4, 0, 1, 0};
    CHECK_MEM(r.lengths, sizeof lengths, lengths, sizeof lengths);
}

static void test_int32_output_and_range(void)
{
    const int64_t a[] = {5, -5, 70000};
    tfn_bytes rec = ex_int64("x", a, 3);
    tfn_feature_config c = var_len("x", TFN_INT64);
    c.out_dtype = TFN_INT32;
    result r = parse1(c, &rec, 1, TFN_PARSE_SINGLE);
    REQUIRE(r.rc == TFN_OK);
    CHECK_EQ_INT(r.i32[0], 5);
    CHECK_EQ_INT(r.i32[1], -5);
    CHECK_EQ_INT(r.i32[2], 70000);
    const int64_t big[] = {1, (int64_t)1 << 40};
    rec = ex_int64("x", big, 2);
    r = parse1(c, &rec, 1, TFN_PARSE_SINGLE);
    CHECK_EQ_INT(r.rc, TFN_E_OUT_OF_RANGE);
}

static void test_float_and_bytes(void)
{
    const float f[] = {1.5f, -0.0f, 3e38f};
    tfn_bytes recs[] = {ex_float("x", f, 3), ex_float("x", f, 1)};
    result r = parse1(var_len("x", TFN_FLOAT32), recs, 2, TFN_PARSE_BATCH);
    REQUIRE(r.rc == TFN_OK);
    CHECK_EQ_INT(r.total, 4);
    const float want[] = {1.5f, -0.0f, 3e38f, 1.5f};
    CHECK_MEM(r.f32, sizeof want, want, sizeof want);
    /* a packed float list with 2 stray bytes: TF keeps the whole values */
    recs[0] = raw("0a 15 0a 13 0a 01 78 12 0e 12 0c 0a 0a 0000c03f 00002040 0102");
    r = parse1(var_len("x", TFN_FLOAT32), recs, 1, TFN_PARSE_BATCH);
    REQUIRE(r.rc == TFN_OK);
    CHECK_EQ_INT(r.total, 2);
    CHECK(r.f32[0] == 1.5f && r.f32[1] == 2.5f);
    /* bytes: any number of strings (no FixedLen capacity) */
    recs[0] = raw("0a 15 0a 13 0a 01 78 12 0e 0a 0c 0a 02 6869 0a 00 0a 04 74686572");
    r = parse1(var_len("x", TFN_BYTES), recs, 1, TFN_PARSE_SINGLE);
    REQUIRE(r.rc == TFN_OK);
    CHECK_EQ_INT(r.total, 3);
    CHECK_MEM(r.b[0].data, r.b[0].len, "hi", 2);
    CHECK_EQ_INT(r.b[1].len, 0);
    CHECK_MEM(r.b[2].data, r.b[2].len, "ther", 4);
}

static void test_kindless_and_duplicates(void)
{
    /* x: [1, 2] then a kind-less x: batch mode ignores the earlier entry, single mode
     * takes it (as TF 2.21 does) */
    tfn_bytes rec = raw("0a 14 0a 0b 0a 01 78 12 06 1a 04 0a 02 01 02 0a 05 0a 01 78 12 00");
    result r = parse1(var_len("x", TFN_INT64), &rec, 1, TFN_PARSE_BATCH);
    REQUIRE(r.rc == TFN_OK);
    CHECK_EQ_INT(r.total, 0);
    r = parse1(var_len("x", TFN_INT64), &rec, 1, TFN_PARSE_SINGLE);
    REQUIRE(r.rc == TFN_OK);
    CHECK_EQ_INT(r.total, 2);
    /* a float x then an int64 x: the last wins, the earlier is never checked */
    rec = raw("0a 1b 0a 0d 0a 01 78 12 08 12 06 0a 04 00 00 00 00 0a 0a 0a 01 78 12 05 1a 03 0a "
              "01 05");
    r = parse1(var_len("x", TFN_INT64), &rec, 1, TFN_PARSE_BATCH);
    REQUIRE(r.rc == TFN_OK);
    CHECK_EQ_INT(r.total, 1);
    CHECK_EQ_INT(r.i64[0], 5);
}

static void test_errors_follow_tf(void)
{
    const float f[] = {1.0f};
    tfn_bytes recs[] = {ex_float("y", f, 1), ex_float("x", f, 1)};
    result r = parse1(var_len("x", TFN_INT64), recs, 2, TFN_PARSE_BATCH);
    CHECK_EQ_INT(r.rc, TFN_E_TYPE);
    CHECK_STR(r.err.msg, "Name: <unknown>, Key: x, Index: 1.  Data types don't match. "
                         "Expected type: int64, Actual type: float");
    CHECK_EQ_INT(r.err.record_index, 1);
    r = parse1(var_len("x", TFN_BYTES), &recs[1], 1, TFN_PARSE_SINGLE);
    CHECK_STR(r.err.msg, "Key: x.  Data types don't match. Expected type: string, Actual "
                         "type: float");
    /* a broken list */
    tfn_bytes bad = raw("0a 0c 0a 0a 0a 01 78 12 05 0a 03 0a 05 61");
    r = parse1(var_len("x", TFN_BYTES), &bad, 1, TFN_PARSE_SINGLE);
    CHECK_EQ_INT(r.rc, TFN_E_CORRUPT);
    CHECK_STR(r.err.msg, "Key: x.  Can't parse serialized Example: Could not get num elements "
                         "in bytes_list.");
    r = parse1(var_len("x", TFN_BYTES), &bad, 1, TFN_PARSE_BATCH);
    CHECK_STR(r.err.msg, "Name: <unknown>, Key: x, Index: 0.  Can't parse serialized Example.");
    bad = raw("0a 0c 0a 0a 0a 01 78 12 05 12 03 0a 05 61");
    r = parse1(var_len("x", TFN_FLOAT32), &bad, 1, TFN_PARSE_SINGLE);
    CHECK_STR(r.err.msg, "Key: x.  Can't parse serialized Example: Parsing float_list failed.");
    /* a packed run claiming 4 GiB: TF keeps the enclosing limit and reads [1] */
    bad = raw("0a 10 0a 0e 0a 01 78 12 09 1a 07 0a ff ff ff ff 0f 01");
    r = parse1(var_len("x", TFN_INT64), &bad, 1, TFN_PARSE_BATCH);
    CHECK_EQ_INT(r.rc, TFN_OK);
    CHECK_EQ_INT(r.total, 1);
    CHECK_EQ_INT(r.i64[0], 1);
    /* an unknown kind */
    bad = raw("0a 09 0a 07 0a 01 78 12 02 22 00");
    r = parse1(var_len("x", TFN_INT64), &bad, 1, TFN_PARSE_BATCH);
    CHECK_EQ_INT(r.rc, TFN_E_CORRUPT);
    CHECK_STR(r.err.msg, "Unsupported datatype.");
}

static void test_mixed_with_fixed_len_in_one_scan(void)
{
    tfn_example *ex = tfn_example_new(NULL);
    const int64_t ids[] = {4, 5, 6};
    const float w[] = {0.5f};
    tfn_example_set_int64s(ex, "ids", 3, ids, 3, NULL);
    tfn_example_set_floats(ex, "w", 1, w, 1, NULL);
    tfn_bytes recs[2];
    recs[0] = serialize(ex);
    ex = tfn_example_new(NULL);
    tfn_example_set_floats(ex, "w", 1, w, 1, NULL);
    recs[1] = serialize(ex);
    tfn_feature_config cfg[2];
    cfg[0] = var_len("ids", TFN_INT64);
    memset(&cfg[1], 0, sizeof cfg[1]);
    cfg[1].key = "w";
    cfg[1].key_len = 1;
    cfg[1].type = TFN_FIXED_LEN;
    cfg[1].dtype = TFN_FLOAT32;
    tfn_spec *spec = NULL;
    REQUIRE(tfn_spec_new(cfg, 2, NULL, &spec, NULL) == TFN_OK);
    tfn_parser *p = tfn_parser_new(spec, NULL);
    REQUIRE(tfn_parser_scan(p, recs, 2, NULL, TFN_PARSE_BATCH, NULL) == TFN_OK);
    CHECK_EQ_INT(tfn_parser_total(p, 0), 3);
    CHECK_EQ_INT(tfn_parser_total(p, 1), 2);
    CHECK_EQ_INT(tfn_parser_rows(p, 0, 0), 3);
    CHECK_EQ_INT(tfn_parser_rows(p, 0, 1), 0);
    int64_t vals[3], splits[3];
    float dense[2];
    tfn_output o[2];
    memset(o, 0, sizeof o);
    o[0].values = vals;
    o[0].capacity = 2; /* one short */
    CHECK_EQ_INT(tfn_parser_row_splits(p, 1, splits, NULL), TFN_E_INVALID_ARG);
    REQUIRE(tfn_parser_row_splits(p, 0, splits, NULL) == TFN_OK);
    o[1].values = dense;
    o[1].capacity = 2;
    o[1].max_rows = -1;
    tfn_error err;
    CHECK_EQ_INT(tfn_parser_fill(p, o, &err), TFN_E_BUF_TOO_SMALL);
    o[0].capacity = 3;
    REQUIRE(tfn_parser_fill(p, o, &err) == TFN_OK);
    CHECK(vals[0] == 4 && vals[1] == 5 && vals[2] == 6);
    CHECK(splits[0] == 0 && splits[1] == 3 && splits[2] == 3);
    CHECK(dense[0] == 0.5f && dense[1] == 0.5f);
    tfn_parser_free(p);
    tfn_spec_free(spec);
}

static void test_spec_errors(void)
{
    tfn_feature_config c = var_len("x", TFN_INT64);
    const int64_t shape[] = {2};
    c.shape = shape;
    c.rank = 1;
    tfn_spec *spec = NULL;
    tfn_error err;
    CHECK_EQ_INT(tfn_spec_new(&c, 1, NULL, &spec, &err), TFN_E_INVALID_ARG);
    c = var_len("x", TFN_FLOAT64);
    CHECK_EQ_INT(tfn_spec_new(&c, 1, NULL, &spec, &err), TFN_E_TYPE);
    CHECK_STR(err.msg, "Value for attr 'sparse_types' of double is not in the list of allowed "
                       "values: float, int64, string");
    c = var_len("x", TFN_FLOAT32);
    c.out_dtype = TFN_INT32;
    CHECK_EQ_INT(tfn_spec_new(&c, 1, NULL, &spec, &err), TFN_E_TYPE);
    CHECK(spec == NULL);
}

int main(void)
{
    RUN(test_int64_batch_values_and_splits);
    RUN(test_int32_output_and_range);
    RUN(test_float_and_bytes);
    RUN(test_kindless_and_duplicates);
    RUN(test_errors_follow_tf);
    RUN(test_mixed_with_fixed_len_in_one_scan);
    RUN(test_spec_errors);
    return harness_finish();
}

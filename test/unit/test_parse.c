/* test_parse.c - FixedLenFeature / FixedLenSequenceFeature parsing (spec §2, §6 cases
 * 9-31), outputs (int32, truncation, masks, lengths, bytes views) and spec errors. */
#include "harness.h"
#include "tfnano.h"

#include <stdbool.h>
#include <stdlib.h>

#define KEY(s) (s), (sizeof(s) - 1)

/* ---- building inputs ---- */

static uint8_t bufs[16][256];
static size_t buf_next;

static tfn_bytes serialize(tfn_example *ex)
{
    uint8_t *dst = bufs[buf_next++ % 16];
    size_t n = 0;
    int rc = tfn_example_serialize(ex, dst, 256, &n, NULL);
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

static tfn_bytes ex_bytes(const char *key, const char *const *v, size_t n)
{
    tfn_bytes b[8];
    for (size_t i = 0; i < n; i++)
        b[i] = (tfn_bytes){(const uint8_t *)v[i], strlen(v[i])};
    tfn_example *ex = tfn_example_new(NULL);
    tfn_example_set_bytes(ex, key, strlen(key), b, n, NULL);
    return serialize(ex);
}

static tfn_bytes raw(const char *hex)
{
    uint8_t *dst = bufs[buf_next++ % 16];
    return (tfn_bytes){dst, harness_hex(hex, dst, 256)};
}

static const tfn_bytes EMPTY = {(const uint8_t *)"", 0};

/* ---- one-feature parsing ---- */

typedef struct result {
    int rc;
    tfn_error err;
    int64_t i64[64];
    int32_t i32[64];
    float f32[64];
    tfn_bytes b[64];
    int64_t lengths[16];
    uint8_t mask[64];
    size_t rows;
} result;

static result parse1(tfn_feature_config cfg, const tfn_bytes *recs, size_t n, unsigned flags,
                     const tfn_bytes *names)
{
    result r;
    memset(&r, 0, sizeof r);
    tfn_spec *spec = NULL;
    r.rc = tfn_spec_new(&cfg, 1, NULL, &spec, &r.err);
    if (r.rc)
        return r;
    tfn_parser *p = tfn_parser_new(spec, NULL);
    r.rc = tfn_parser_scan(p, recs, n, names, flags, &r.err);
    if (r.rc == TFN_OK) {
        r.rows = tfn_parser_max_rows(p, 0);
        tfn_output o = {NULL, 64, -1, r.lengths, r.mask};
        int out = cfg.out_dtype ? cfg.out_dtype : cfg.dtype;
        o.values = out == TFN_INT64 ? (void *)r.i64 : out == TFN_INT32 ? (void *)r.i32
                   : out == TFN_FLOAT32 ? (void *)r.f32 : (void *)r.b;
        r.rc = tfn_parser_fill(p, &o, &r.err);
    }
    tfn_parser_free(p);
    tfn_spec_free(spec);
    return r;
}

static tfn_feature_config fixed(const char *key, int dtype, const int64_t *shape, size_t rank)
{
    tfn_feature_config c;
    memset(&c, 0, sizeof c);
    c.key = key;
    c.key_len = strlen(key);
    c.type = TFN_FIXED_LEN;
    c.dtype = dtype;
    c.shape = shape;
    c.rank = rank;
    return c;
}

static tfn_feature_config seq(const char *key, int dtype, const int64_t *shape, size_t rank)
{
    tfn_feature_config c = fixed(key, dtype, shape, rank);
    c.type = TFN_FIXED_LEN_SEQUENCE;
    c.allow_missing = 1;
    return c;
}

static const int64_t SCALAR[1] = {0};

static void test_case9_duplicate_key_last_wins(void)
{
    /* "a": [1] then "a": [2] in one Features */
    tfn_bytes rec = raw("0a 18 0a 0a 0a 01 61 12 05 1a 03 0a 01 01 0a 0a 0a 01 61 12 05 1a 03 0a 01 02");
    result r = parse1(fixed("a", TFN_INT64, SCALAR, 0), &rec, 1, TFN_PARSE_SINGLE, NULL);
    CHECK_EQ_INT(r.rc, TFN_OK);
    CHECK_EQ_INT(r.i64[0], 2);
}

static void test_case10_concatenated_examples(void)
{
    float ten[2] = {10, 10}, one[2] = {1, 1};
    tfn_bytes a = ex_float("a", ten, 2), b = ex_float("a", one, 2);
    uint8_t cat[128];
    memcpy(cat, a.data, a.len);
    memcpy(cat + a.len, b.data, b.len);
    tfn_bytes rec = {cat, a.len + b.len};
    int64_t shape[1] = {2};
    result r = parse1(fixed("a", TFN_FLOAT32, shape, 1), &rec, 1, TFN_PARSE_SINGLE, NULL);
    CHECK_EQ_INT(r.rc, TFN_OK);
    CHECK(r.f32[0] == 1.0f && r.f32[1] == 1.0f);
}

static void test_case11_12_13_defaults_and_empty_lists(void)
{
    int64_t seven = 7;
    tfn_feature_config c = fixed("a", TFN_INT64, SCALAR, 0);
    c.default_value = &seven;
    c.default_count = 1;
    result r = parse1(c, &EMPTY, 1, TFN_PARSE_SINGLE, NULL);
    CHECK(r.rc == TFN_OK && r.i64[0] == 7);
    tfn_bytes kindless = raw("0a 07 0a 05 0a 01 61 12 00");
    r = parse1(c, &kindless, 1, TFN_PARSE_SINGLE, NULL);
    CHECK(r.rc == TFN_OK && r.i64[0] == 7);
    tfn_bytes empty_list = ex_int64("a", NULL, 0);
    r = parse1(c, &empty_list, 1, TFN_PARSE_SINGLE, NULL);
    CHECK_EQ_INT(r.rc, TFN_E_INVALID_ARG);
    CHECK_STR(r.err.msg, "Key: a.  Can't parse serialized Example: Some int64_list slice was not parsed.");
    r = parse1(c, &empty_list, 1, TFN_PARSE_BATCH, NULL);
    CHECK_STR(r.err.msg, "Name: <unknown>, Key: a, Index: 0.  Number of int64 values != expected.  Values size: 0 but output shape: []");
    CHECK_EQ_INT(r.err.record_index, 0);
}

static void test_case14_type_mismatch(void)
{
    int64_t one = 1;
    tfn_bytes rec = ex_int64("a", &one, 1);
    result r = parse1(fixed("a", TFN_FLOAT32, SCALAR, 0), &rec, 1, TFN_PARSE_SINGLE, NULL);
    CHECK_EQ_INT(r.rc, TFN_E_TYPE);
    CHECK_STR(r.err.msg, "Key: a.  Data types don't match. Data type: int64 but expected type: float");
}

static void test_case15_16_required_missing(void)
{
    int64_t shape[1] = {2};
    tfn_bytes name = {(const uint8_t *)"in1", 3};
    result r = parse1(fixed("a", TFN_FLOAT32, shape, 1), &EMPTY, 1, TFN_PARSE_BATCH, &name);
    CHECK_EQ_INT(r.rc, TFN_E_NOT_FOUND);
    CHECK_STR(r.err.msg, "Name: in1, Feature: a (data type: float) is required but could not be found.");
    r = parse1(fixed("a", TFN_FLOAT32, shape, 1), &EMPTY, 1, TFN_PARSE_SINGLE, NULL);
    CHECK_STR(r.err.msg, "Feature: a (data type: float) is required but could not be found.");
}

static void test_case17_batch_reports_failing_example(void)
{
    float good[3] = {1, 1, 3}, bad[2] = {-1, -1};
    tfn_bytes recs[2] = {ex_float("a", good, 3), ex_float("a", bad, 2)};
    tfn_bytes names[2] = {{(const uint8_t *)"passing", 7}, {(const uint8_t *)"failing", 7}};
    int64_t shape[2] = {1, 3};
    result r = parse1(fixed("a", TFN_FLOAT32, shape, 2), recs, 2, TFN_PARSE_BATCH, names);
    CHECK_STR(r.err.msg, "Name: failing, Key: a, Index: 1.  Number of float values != expected.  Values size: 2 but output shape: [1,3]");
    CHECK_EQ_INT(r.err.record_index, 1);
}

static void test_case18_string_counts(void)
{
    const char *xy[2] = {"x", "y"};
    tfn_bytes rec = ex_bytes("a", xy, 2);
    result r = parse1(fixed("a", TFN_BYTES, SCALAR, 0), &rec, 1, TFN_PARSE_BATCH, NULL);
    CHECK_STR(r.err.msg, "Name: <unknown>, Key: a, Index: 0.  Can't parse serialized Example.");
    r = parse1(fixed("a", TFN_BYTES, SCALAR, 0), &rec, 1, TFN_PARSE_SINGLE, NULL);
    CHECK_STR(r.err.msg, "Key: a.  Can't parse serialized Example: Parsing bytes_list failed.");
    tfn_bytes none = ex_bytes("a", NULL, 0);
    r = parse1(fixed("a", TFN_BYTES, SCALAR, 0), &none, 1, TFN_PARSE_BATCH, NULL);
    CHECK_STR(r.err.msg, "Name: <unknown>, Key: a, Index: 0.  Number of bytes values != expected.  Values size: 0 but output shape: []");
}

static void test_case19_20_shapes(void)
{
    int64_t five = 5;
    tfn_bytes recs[2] = {ex_int64("a", &five, 1), ex_int64("a", &five, 1)};
    int64_t one[1] = {1};
    result r = parse1(fixed("a", TFN_INT64, one, 1), recs, 2, TFN_PARSE_BATCH, NULL);
    CHECK(r.rc == TFN_OK && r.i64[0] == 5 && r.i64[1] == 5);
    int64_t six[6] = {0, 1, 2, 3, 4, 5}, zeros[6] = {0};
    tfn_bytes rec = ex_int64("a", six, 6);
    int64_t shape[2] = {2, 3};
    r = parse1(fixed("a", TFN_INT64, shape, 2), &rec, 1, TFN_PARSE_SINGLE, NULL);
    CHECK(r.rc == TFN_OK && r.i64[0] == 0 && r.i64[5] == 5);
    tfn_feature_config c = fixed("a", TFN_INT64, shape, 2);
    c.default_value = zeros;
    c.default_count = 6;
    r = parse1(c, &EMPTY, 1, TFN_PARSE_SINGLE, NULL);
    CHECK_EQ_INT(r.rc, TFN_OK);
}

static void test_case21_sequence_single(void)
{
    float four[4] = {1, 2, 3, 4};
    int64_t two[1] = {2};
    tfn_bytes rec = ex_float("a", four, 4);
    result r = parse1(seq("a", TFN_FLOAT32, two, 1), &rec, 1, TFN_PARSE_SINGLE, NULL);
    CHECK(r.rc == TFN_OK && r.rows == 2 && r.f32[3] == 4.0f);
    r = parse1(seq("a", TFN_FLOAT32, two, 1), &EMPTY, 1, TFN_PARSE_SINGLE, NULL);
    CHECK(r.rc == TFN_OK && r.rows == 0);
    tfn_bytes three = ex_float("a", four, 3);
    r = parse1(seq("a", TFN_FLOAT32, two, 1), &three, 1, TFN_PARSE_SINGLE, NULL);
    CHECK_STR(r.err.msg, "Error while parsing feature with key a: number of elements should be divisible by 2, found 3 instead");
}

static void test_case22_sequence_padding(void)
{
    int64_t v12[2] = {1, 2}, v3 = 3, minus1 = -1;
    tfn_bytes recs[3] = {ex_int64("a", v12, 2), EMPTY, ex_int64("a", &v3, 1)};
    tfn_feature_config c = seq("a", TFN_INT64, SCALAR, 0);
    c.default_value = &minus1;
    c.default_count = 1;
    result r = parse1(c, recs, 3, TFN_PARSE_BATCH, NULL);
    REQUIRE(r.rc == TFN_OK);
    CHECK_EQ_INT(r.rows, 2);
    int64_t want[6] = {1, 2, -1, -1, 3, -1};
    CHECK(memcmp(r.i64, want, sizeof want) == 0);
    CHECK(r.lengths[0] == 2 && r.lengths[1] == 0 && r.lengths[2] == 1);
    uint8_t mask[6] = {1, 1, 0, 0, 1, 0};
    CHECK(memcmp(r.mask, mask, 6) == 0);
    r = parse1(seq("a", TFN_INT64, SCALAR, 0), recs, 3, TFN_PARSE_BATCH, NULL);
    int64_t want0[6] = {1, 2, 0, 0, 3, 0};
    CHECK(r.rc == TFN_OK && memcmp(r.i64, want0, sizeof want0) == 0);
}

static void test_case23_24_sequence_strings(void)
{
    tfn_bytes recs[4] = {EMPTY, EMPTY, EMPTY, EMPTY};
    result r = parse1(seq("a", TFN_BYTES, SCALAR, 0), recs, 4, TFN_PARSE_BATCH, NULL);
    CHECK(r.rc == TFN_OK && r.rows == 0);
    const char *ab[2] = {"a", "b"};
    tfn_bytes rb[3] = {ex_bytes("b", ab, 2), ex_bytes("b", ab, 2), ex_bytes("b", ab, 1)};
    tfn_bytes names[3] = {{(const uint8_t *)"in1", 3}, {(const uint8_t *)"in2", 3},
                          {(const uint8_t *)"in3", 3}};
    int64_t shape[3] = {2, 1, 1};
    r = parse1(seq("b", TFN_BYTES, shape, 3), rb, 3, TFN_PARSE_BATCH, names);
    CHECK_STR(r.err.msg, "Name: in3, Key: b, Index: 2.  Number of bytes values is not a multiple of stride length. Saw 1 values but output shape is: [?,2,1,1]");
}

static void test_case25_26_27_config_errors(void)
{
    tfn_spec *spec = NULL;
    tfn_error err;
    tfn_feature_config c = seq("a", TFN_INT64, SCALAR, 0);
    c.allow_missing = 0;
    CHECK_EQ_INT(tfn_spec_new(&c, 1, NULL, &spec, &err), TFN_E_INVALID_ARG);
    CHECK_STR(err.msg, "Unsupported: FixedLenSequenceFeature requires allow_missing to be True.");
    int64_t none_first[2] = {-1, 2}, none_second[2] = {1, -1};
    c = fixed("a", TFN_FLOAT32, none_first, 2);
    tfn_spec_new(&c, 1, NULL, &spec, &err);
    CHECK_STR(err.msg, "First dimension of shape for feature a unknown. Consider using FixedLenSequenceFeature.");
    c = fixed("a", TFN_FLOAT32, none_second, 2);
    tfn_spec_new(&c, 1, NULL, &spec, &err);
    CHECK_STR(err.msg, "All dimensions of shape for feature a need to be known but received (1, None).");
    c = fixed("a", TFN_FLOAT32, NULL, 1);
    tfn_spec_new(&c, 1, NULL, &spec, &err);
    CHECK_STR(err.msg, "Missing shape for feature a.");
    c = fixed("a", TFN_INT32, SCALAR, 0);
    CHECK_EQ_INT(tfn_spec_new(&c, 1, NULL, &spec, &err), TFN_E_TYPE);
    CHECK_STR(err.msg, "Value for attr 'Tdense' of int32 is not in the list of allowed values: float, int64, string");
    CHECK_EQ_INT(tfn_spec_new(&c, 0, NULL, &spec, &err), TFN_E_INVALID_ARG);
    CHECK_STR(err.msg, "Argument `features` cannot be None or falsy. Got {}");
    float defaults[3] = {1, 2, 3};
    int64_t two[1] = {2};
    c = fixed("a", TFN_FLOAT32, two, 1);
    c.default_value = defaults;
    c.default_count = 3;
    CHECK_EQ_INT(tfn_spec_new(&c, 1, NULL, &spec, &err), TFN_E_INVALID_ARG);
    CHECK_STR(err.msg, "Input to reshape is a tensor with 3 values, but the requested shape has 2");
    /* a non-NULL default with no element is TF's default_value=[]: reshaped too */
    c.default_count = 0;
    CHECK_EQ_INT(tfn_spec_new(&c, 1, NULL, &spec, &err), TFN_E_INVALID_ARG);
    CHECK_STR(err.msg, "Input to reshape is a tensor with 0 values, but the requested shape has 2");
    c = seq("a", TFN_FLOAT32, SCALAR, 0);
    c.default_value = defaults;
    CHECK_EQ_INT(tfn_spec_new(&c, 1, NULL, &spec, &err), TFN_E_INVALID_ARG);
    CHECK_STR(err.msg, "Input to reshape is a tensor with 0 values, but the requested shape has 1");
    int64_t unknown_inner[2] = {3, -1};
    c = seq("a", TFN_FLOAT32, unknown_inner, 2);
    CHECK_EQ_INT(tfn_spec_new(&c, 1, NULL, &spec, &err), TFN_E_INVALID_ARG);
    CHECK_STR(err.msg, "dense_shapes[0] has unknown rank or unknown inner dimensions: [?,3,?]");
    tfn_feature_config dup[2] = {fixed("k", TFN_INT64, SCALAR, 0), fixed("k", TFN_INT64, SCALAR, 0)};
    CHECK_EQ_INT(tfn_spec_new(dup, 2, NULL, &spec, &err), TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "Duplicate feature key k") != NULL);
    c = fixed("a", TFN_FLOAT32, SCALAR, 0);
    c.out_dtype = TFN_INT32;
    CHECK_EQ_INT(tfn_spec_new(&c, 1, NULL, &spec, &err), TFN_E_TYPE);
    int64_t zero[1] = {0};
    c = seq("a", TFN_FLOAT32, zero, 1);
    CHECK_EQ_INT(tfn_spec_new(&c, 1, NULL, &spec, &err), TFN_E_INVALID_ARG);
    CHECK(spec == NULL);
}

/* With several bad configs TF reports by stage (allow_missing; type and shape; defaults;
 * dtypes; inner shapes), within a stage the smallest key: found by the conformance
 * test (tfnano used to report the first bad config in config order). */
static void test_config_errors_in_tensorflow_order(void)
{
    tfn_spec *spec = NULL;
    tfn_error err;
    int64_t none_first[2] = {-1, 2}, two[1] = {2}, none[1] = {-1};
    int64_t one = 1;
    tfn_feature_config c[3] = {fixed("b", TFN_INT64, NULL, 1), fixed("a", TFN_INT64, none_first, 2),
                               seq("c", TFN_INT64, SCALAR, 0)};
    CHECK_EQ_INT(tfn_spec_new(c, 2, NULL, &spec, &err), TFN_E_INVALID_ARG);
    CHECK_STR(err.msg, "First dimension of shape for feature a unknown. Consider using FixedLenSequenceFeature.");
    CHECK_EQ_INT(err.record_index, 1);
    c[2].allow_missing = 0;
    CHECK_EQ_INT(tfn_spec_new(c, 3, NULL, &spec, &err), TFN_E_INVALID_ARG);
    CHECK_STR(err.msg, "Unsupported: FixedLenSequenceFeature requires allow_missing to be True.");
    /* defaults before dtypes */
    c[0] = fixed("a", TFN_INT32, SCALAR, 0);
    c[1] = fixed("b", TFN_INT64, two, 1);
    c[1].default_value = &one;
    c[1].default_count = 1;
    CHECK_EQ_INT(tfn_spec_new(c, 2, NULL, &spec, &err), TFN_E_INVALID_ARG);
    CHECK_STR(err.msg, "Input to reshape is a tensor with 1 values, but the requested shape has 2");
    /* dtypes before inner shapes, whose message names the sorted position */
    c[0] = seq("c", TFN_INT64, none, 1);
    c[1] = fixed("a", TFN_FLOAT64, SCALAR, 0);
    CHECK_EQ_INT(tfn_spec_new(c, 2, NULL, &spec, &err), TFN_E_TYPE);
    CHECK_STR(err.msg, "Value for attr 'Tdense' of double is not in the list of allowed values: float, int64, string");
    c[1] = fixed("a", TFN_FLOAT32, SCALAR, 0);
    CHECK_EQ_INT(tfn_spec_new(c, 2, NULL, &spec, &err), TFN_E_INVALID_ARG);
    CHECK_STR(err.msg, "dense_shapes[1] has unknown rank or unknown inner dimensions: [?,?]");
    CHECK_EQ_INT(err.record_index, 0);
    /* an int32 output refuses a default it cannot hold */
    int64_t big = INT64_C(1) << 33;
    c[0] = fixed("a", TFN_INT64, SCALAR, 0);
    c[0].out_dtype = TFN_INT32;
    c[0].default_value = &big;
    c[0].default_count = 1;
    CHECK_EQ_INT(tfn_spec_new(c, 1, NULL, &spec, &err), TFN_E_OUT_OF_RANGE);
    CHECK(strstr(err.msg, "8589934592") != NULL);
    CHECK(spec == NULL);
}

/* Disagreements with TensorFlow 2.21 found by test/conformance/test_parse_tf.py. */
static void test_conformance_findings(void)
{
    /* an unpacked FloatList with 1-4 bytes after its last whole value is an error */
    int64_t two[1] = {2};
    tfn_bytes stray = raw("0a 15 0a 13 0a 01 61 12 0e 12 0c 0d 00 00 80 3f 0d 00 00 00 40 0d 00");
    result r = parse1(fixed("a", TFN_FLOAT32, two, 1), &stray, 1, TFN_PARSE_SINGLE, NULL);
    CHECK_EQ_INT(r.rc, TFN_E_CORRUPT);
    CHECK_STR(r.err.msg, "Key: a.  Can't parse serialized Example: Parsing float_list failed.");
    r = parse1(seq("a", TFN_FLOAT32, SCALAR, 0), &stray, 1, TFN_PARSE_BATCH, NULL);
    CHECK_STR(r.err.msg, "Name: <unknown>, Key: a, Index: 0.  Can't parse serialized Example.");
    /* a malformed BytesList of a FixedLenSequence feature, single path: TF counts the
     * strings first, with its own message */
    tfn_bytes bad_bytes = raw("0a 10 0a 0e 0a 01 61 12 09 0a 07 0a 01 78 12 02 79 79");
    r = parse1(seq("a", TFN_BYTES, SCALAR, 0), &bad_bytes, 1, TFN_PARSE_SINGLE, NULL);
    CHECK_EQ_INT(r.rc, TFN_E_CORRUPT);
    CHECK_STR(r.err.msg, "Key: a.  Can't parse serialized Example: Could not get num elements in bytes_list.");
    r = parse1(fixed("a", TFN_BYTES, SCALAR, 0), &bad_bytes, 1, TFN_PARSE_SINGLE, NULL);
    CHECK_STR(r.err.msg, "Key: a.  Can't parse serialized Example: Parsing bytes_list failed.");
    /* an unknown top-level field claiming 2^31 bytes or more: TF's Skip(int) refuses
     * it without moving and the Example goes on right after the length */
    tfn_bytes huge_skip = raw("2a 80 80 80 80 08 0a 0c 0a 0a 0a 01 61 12 05 1a 03 0a 01 05");
    int64_t seven = 7;
    tfn_feature_config c = fixed("a", TFN_INT64, SCALAR, 0);
    c.default_value = &seven;
    c.default_count = 1;
    r = parse1(c, &huge_skip, 1, TFN_PARSE_SINGLE, NULL);
    CHECK(r.rc == TFN_OK && r.i64[0] == 5);
    /* 2^31 - 1 runs past the end: the input ends there */
    tfn_bytes long_skip = raw("2a ff ff ff ff 07 0a 0c 0a 0a 0a 01 61 12 05 1a 03 0a 01 05");
    r = parse1(c, &long_skip, 1, TFN_PARSE_SINGLE, NULL);
    CHECK(r.rc == TFN_OK && r.i64[0] == 7);
    /* refused, then what follows is not a valid field: not an Example */
    tfn_bytes then_bad = raw("2a 80 80 80 80 08 ff ff ff ff 07");
    r = parse1(c, &then_bad, 1, TFN_PARSE_BATCH, NULL);
    CHECK_EQ_INT(r.rc, TFN_E_CORRUPT);
}

static void test_case28_29_not_an_example(void)
{
    tfn_bytes ff = raw("ff");
    result r = parse1(fixed("a", TFN_INT64, SCALAR, 0), &ff, 1, TFN_PARSE_BATCH, NULL);
    CHECK_EQ_INT(r.rc, TFN_E_CORRUPT);
    CHECK_STR(r.err.msg, "Could not parse example input, value: '\xff'");
    tfn_bytes no_value = raw("0a 05 0a 03 0a 01 61");
    r = parse1(fixed("a", TFN_INT64, SCALAR, 0), &no_value, 1, TFN_PARSE_SINGLE, NULL);
    CHECK_STR(r.err.msg, "Could not parse example input, value: '\n\x05\n\x03\n\x01" "a'");
    /* a NUL byte ends TF's message, closing quote included */
    tfn_bytes nul = raw("01 02 00 03 0a");
    r = parse1(fixed("a", TFN_INT64, SCALAR, 0), &nul, 1, TFN_PARSE_SINGLE, NULL);
    CHECK_STR(r.err.msg, "Could not parse example input, value: '\x01\x02");
}

static void test_case30_first_kind_wins(void)
{
    tfn_bytes rec = raw("0a 13 0a 11 0a 01 61 12 0c 1a 03 0a 01 01 12 05 0a 03 00 00 80");
    result r = parse1(fixed("a", TFN_INT64, SCALAR, 0), &rec, 1, TFN_PARSE_SINGLE, NULL);
    CHECK(r.rc == TFN_OK && r.i64[0] == 1);
}

static void test_case31_zero_sized_fixed_len(void)
{
    int64_t zero[1] = {0};
    result r = parse1(fixed("a", TFN_INT64, zero, 1), &EMPTY, 1, TFN_PARSE_SINGLE, NULL);
    CHECK_EQ_INT(r.rc, TFN_E_NOT_FOUND);
    tfn_bytes empty_list = ex_int64("a", NULL, 0);
    r = parse1(fixed("a", TFN_INT64, zero, 1), &empty_list, 1, TFN_PARSE_SINGLE, NULL);
    CHECK_EQ_INT(r.rc, TFN_OK);
}

static void test_unpacked_and_quirks(void)
{
    /* case 8 through the TF path: unpacked 08 01 08 02 */
    tfn_bytes rec = raw("0a 0d 0a 0b 0a 01 61 12 06 1a 04 08 01 08 02");
    result r = parse1(seq("a", TFN_INT64, SCALAR, 0), &rec, 1, TFN_PARSE_SINGLE, NULL);
    CHECK(r.rc == TFN_OK && r.rows == 2 && r.i64[0] == 1 && r.i64[1] == 2);
    /* two packed runs: TF reads only the first */
    rec = raw("0a 0f 0a 0d 0a 01 61 12 08 1a 06 0a 01 01 0a 01 02");
    r = parse1(seq("a", TFN_INT64, SCALAR, 0), &rec, 1, TFN_PARSE_SINGLE, NULL);
    CHECK(r.rc == TFN_OK && r.rows == 1 && r.i64[0] == 1);
    /* unsupported first byte of a requested Feature */
    rec = raw("0a 09 0a 07 0a 01 61 12 02 22 00");
    r = parse1(fixed("a", TFN_INT64, SCALAR, 0), &rec, 1, TFN_PARSE_SINGLE, NULL);
    CHECK_STR(r.err.msg, "Unsupported datatype.");
    /* packed floats with 6 bytes: one float, the rest ignored */
    rec = raw("0a 0f 0a 0d 0a 01 61 12 08 12 06 0a 04 00 00 80 3f");
    r = parse1(seq("a", TFN_FLOAT32, SCALAR, 0), &rec, 1, TFN_PARSE_SINGLE, NULL);
    CHECK(r.rc == TFN_OK && r.rows == 1 && r.f32[0] == 1.0f);
    /* an unknown top-level field whose length runs past the end is skipped */
    rec = raw("12 05 01");
    int64_t seven = 7;
    tfn_feature_config c = fixed("a", TFN_INT64, SCALAR, 0);
    c.default_value = &seven;
    c.default_count = 1;
    r = parse1(c, &rec, 1, TFN_PARSE_SINGLE, NULL);
    CHECK(r.rc == TFN_OK && r.i64[0] == 7);
}

static void test_int32_output_and_truncation(void)
{
    int64_t v[5] = {1, 2, 3, 4, 5};
    tfn_bytes recs[2] = {ex_int64("ids", v, 5), ex_int64("ids", v, 2)};
    tfn_feature_config c = seq("ids", TFN_INT64, SCALAR, 0);
    c.out_dtype = TFN_INT32;
    tfn_spec *spec;
    REQUIRE(tfn_spec_new(&c, 1, NULL, &spec, NULL) == TFN_OK);
    tfn_parser *p = tfn_parser_new(spec, NULL);
    int32_t out[8];
    int64_t lengths[2];
    uint8_t mask[8];
    tfn_output o = {out, 8, 4, lengths, mask};
    REQUIRE(tfn_parser_parse(p, recs, 2, NULL, TFN_PARSE_BATCH, &o, NULL) == TFN_OK);
    int32_t want[8] = {1, 2, 3, 4, 1, 2, 0, 0};
    CHECK(memcmp(out, want, sizeof want) == 0);
    CHECK(lengths[0] == 5 && lengths[1] == 2);
    uint8_t wmask[8] = {1, 1, 1, 1, 1, 1, 0, 0};
    CHECK(memcmp(mask, wmask, 8) == 0);
    CHECK_EQ_INT(tfn_parser_rows(p, 0, 0), 5);
    /* too small an output */
    tfn_error err;
    o.capacity = 7;
    CHECK_EQ_INT(tfn_parser_parse(p, recs, 2, NULL, TFN_PARSE_BATCH, &o, &err), TFN_E_BUF_TOO_SMALL);
    CHECK(strstr(err.msg, "ids") && strstr(err.msg, "8 are needed"));
    /* a value outside int32 */
    int64_t big = (int64_t)1 << 40;
    tfn_bytes bad = ex_int64("ids", &big, 1);
    o.capacity = 8;
    CHECK_EQ_INT(tfn_parser_parse(p, &bad, 1, NULL, TFN_PARSE_BATCH, &o, &err), TFN_E_OUT_OF_RANGE);
    CHECK(strstr(err.msg, "1099511627776") != NULL);
    tfn_parser_free(p);
    tfn_spec_free(spec);
}

static void test_bytes_views_and_copy_out(void)
{
    const char *words[3] = {"alpha", "", "gamma"};
    tfn_bytes rec = ex_bytes("w", words, 3);
    int64_t three[1] = {3};
    result r = parse1(fixed("w", TFN_BYTES, three, 1), &rec, 1, TFN_PARSE_SINGLE, NULL);
    REQUIRE(r.rc == TFN_OK);
    /* zero-copy: the views point into the record */
    CHECK(r.b[0].data >= rec.data && r.b[0].data < rec.data + rec.len);
    char flat[16];
    uint64_t offsets[4];
    size_t need;
    tfn_error err;
    CHECK_EQ_INT(tfn_bytes_copy_out(r.b, 3, flat, 4, offsets, &need, &err), TFN_E_BUF_TOO_SMALL);
    CHECK_EQ_INT(need, 10);
    REQUIRE(tfn_bytes_copy_out(r.b, 3, flat, sizeof flat, offsets, &need, &err) == TFN_OK);
    CHECK(memcmp(flat, "alphagamma", 10) == 0);
    CHECK(offsets[0] == 0 && offsets[1] == 5 && offsets[2] == 5 && offsets[3] == 10);
}

static void test_multi_feature_error_order(void)
{
    /* required features missing: the first in key order is reported */
    tfn_feature_config cfg[2] = {fixed("zeta", TFN_INT64, SCALAR, 0), fixed("alpha", TFN_INT64, SCALAR, 0)};
    tfn_spec *spec;
    REQUIRE(tfn_spec_new(cfg, 2, NULL, &spec, NULL) == TFN_OK);
    tfn_parser *p = tfn_parser_new(spec, NULL);
    tfn_error err;
    CHECK_EQ_INT(tfn_parser_scan(p, &EMPTY, 1, NULL, TFN_PARSE_SINGLE, &err), TFN_E_NOT_FOUND);
    CHECK_STR(err.msg, "Feature: alpha (data type: int64) is required but could not be found.");
    CHECK_EQ_INT(tfn_parser_fill(p, NULL, &err), TFN_E_INVALID_ARG);
    tfn_parser_free(p);
    tfn_spec_free(spec);
}

/* Random packed lists of every varint length, decoded through the bulk and the
 * one-at-a-time paths into int64 and int32 outputs, truncated or not. */
static uint64_t rng = 12345;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_random_varint_lists(void)
{
    enum { LEN = 300 };
    static int64_t vals[LEN], got64[LEN];
    static int32_t got32[LEN];
    static uint8_t buf[LEN * 12 + 64];
    tfn_feature_config c64 = seq("v", TFN_INT64, SCALAR, 0);
    tfn_feature_config c32 = c64;
    c32.out_dtype = TFN_INT32;
    tfn_spec *s64, *s32;
    REQUIRE(tfn_spec_new(&c64, 1, NULL, &s64, NULL) == TFN_OK);
    REQUIRE(tfn_spec_new(&c32, 1, NULL, &s32, NULL) == TFN_OK);
    tfn_parser *p64 = tfn_parser_new(s64, NULL), *p32 = tfn_parser_new(s32, NULL);
    for (int round = 0; round < 300; round++) {
        size_t n = next_rand() % LEN;
        bool fits32 = true;
        for (size_t i = 0; i < n; i++) {
            unsigned bits = (unsigned)(next_rand() % (round % 3 == 0 ? 64 : 29));
            int64_t v = (int64_t)(next_rand() & ((bits == 63 ? 0 : (UINT64_C(1) << bits)) - 1));
            if (round % 5 == 0 && next_rand() % 7 == 0)
                v = -v;
            vals[i] = v;
            fits32 &= v >= INT32_MIN && v <= INT32_MAX;
        }
        tfn_example *ex = tfn_example_new(NULL);
        tfn_example_set_int64s(ex, "v", 1, vals, n, NULL);
        size_t len = 0;
        REQUIRE(tfn_example_serialize(ex, buf, sizeof buf, &len, NULL) == TFN_OK);
        tfn_example_free(ex);
        tfn_bytes rec = {buf, len};
        int64_t keep = (int64_t)(round % 4 == 0 ? n / 2 : n);
        tfn_output o64 = {got64, LEN, keep, NULL, NULL};
        REQUIRE(tfn_parser_parse(p64, &rec, 1, NULL, TFN_PARSE_SINGLE, &o64, NULL) == TFN_OK);
        CHECK(memcmp(got64, vals, (size_t)keep * sizeof(int64_t)) == 0);
        tfn_output o32 = {got32, LEN, keep, NULL, NULL};
        tfn_error err;
        int rc = tfn_parser_parse(p32, &rec, 1, NULL, TFN_PARSE_SINGLE, &o32, &err);
        bool kept_fit = true;
        for (int64_t i = 0; i < keep; i++)
            kept_fit &= vals[i] >= INT32_MIN && vals[i] <= INT32_MAX;
        CHECK_EQ_INT(rc, kept_fit ? TFN_OK : TFN_E_OUT_OF_RANGE);
        for (int64_t i = 0; kept_fit && i < keep; i++)
            CHECK_EQ_INT(got32[i], vals[i]);
        (void)fits32;
    }
    tfn_parser_free(p64);
    tfn_parser_free(p32);
    tfn_spec_free(s64);
    tfn_spec_free(s32);
}

int main(void)
{
    RUN(test_case9_duplicate_key_last_wins);
    RUN(test_case10_concatenated_examples);
    RUN(test_case11_12_13_defaults_and_empty_lists);
    RUN(test_case14_type_mismatch);
    RUN(test_case15_16_required_missing);
    RUN(test_case17_batch_reports_failing_example);
    RUN(test_case18_string_counts);
    RUN(test_case19_20_shapes);
    RUN(test_case21_sequence_single);
    RUN(test_case22_sequence_padding);
    RUN(test_case23_24_sequence_strings);
    RUN(test_case25_26_27_config_errors);
    RUN(test_config_errors_in_tensorflow_order);
    RUN(test_conformance_findings);
    RUN(test_case28_29_not_an_example);
    RUN(test_case30_first_kind_wins);
    RUN(test_case31_zero_sized_fixed_len);
    RUN(test_unpacked_and_quirks);
    RUN(test_int32_output_and_truncation);
    RUN(test_bytes_views_and_copy_out);
    RUN(test_multi_feature_error_order);
    RUN(test_random_varint_lists);
    return harness_finish();
}

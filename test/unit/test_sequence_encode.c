/* test_sequence_encode.c - tfn_encode_sequences: golden bytes (written by TensorFlow
 * 2.21's SequenceExample.SerializeToString(deterministic=True) for the same values),
 * key order, dense and ragged steps, a round trip through tfn_sequence_lists and the
 * Example decoder, and the errors (bad splits, duplicate keys, short buffers). */
#include "harness.h"
#include "tfnano.h"

#include <stdlib.h>

/* The two golden SequenceExamples:
 *   0: context c=[7];  a: [1,2] [300];  b: [1.5] [];  s: ["x","yz"]
 *   1: context c=[-1]; a: (no steps);   b: [2.0];     s: [] ["q"] */
static const char *const GOLDEN[2] = {
    "0a 0c 0a 0a 0a 01 63 12 05 1a 03 0a 01 07 12 3e 0a 15 0a 01 61 12 10 0a 06 1a 04 0a 02 "
    "01 02 0a 06 1a 04 0a 02 ac 02 0a 13 0a 01 62 12 0e 0a 08 12 06 0a 04 00 00 c0 3f 0a 02 "
    "12 00 0a 10 0a 01 73 12 0b 0a 09 0a 07 0a 01 78 0a 02 79 7a",
    "0a 15 0a 13 0a 01 63 12 0e 1a 0c 0a 0a ff ff ff ff ff ff ff ff ff 01 12 2a 0a 05 0a 01 "
    "61 12 00 0a 0f 0a 01 62 12 0a 0a 08 12 06 0a 04 00 00 00 40 0a 10 0a 01 73 12 0b 0a 02 "
    "0a 00 0a 05 0a 03 0a 01 71",
};

/* The golden values as columns (lists given out of key order on purpose). */
static const int64_t CTX_C[] = {7, -1};
static const int64_t A_VALUES[] = {1, 2, 300};
static const int64_t A_STEP_SPLITS[] = {0, 2, 3};
static const int64_t A_EXAMPLE_SPLITS[] = {0, 2, 2};
static const float B_VALUES[] = {1.5f, 2.0f};
static const int64_t B_STEP_SPLITS[] = {0, 1, 1, 2};
static const int64_t B_EXAMPLE_SPLITS[] = {0, 2, 3};
static const char S_BYTES[] = "xyzq";
static const int64_t S_OFFSETS[] = {0, 1, 3, 4};
static const int64_t S_STEP_SPLITS[] = {0, 2, 2, 3};
static const int64_t S_EXAMPLE_SPLITS[] = {0, 1, 3};

static tfn_column context_c(void)
{
    return (tfn_column){"c", 1, TFN_INT64, CTX_C, 1, NULL, NULL};
}

static void golden_lists(tfn_list_column lists[3])
{
    lists[0] = (tfn_list_column){{"s", 1, TFN_BYTES, S_BYTES, 0, S_STEP_SPLITS, S_OFFSETS},
                                 S_EXAMPLE_SPLITS};
    lists[1] = (tfn_list_column){{"b", 1, TFN_FLOAT32, B_VALUES, 0, B_STEP_SPLITS, NULL},
                                 B_EXAMPLE_SPLITS};
    lists[2] = (tfn_list_column){{"a", 1, TFN_INT64, A_VALUES, 0, A_STEP_SPLITS, NULL},
                                 A_EXAMPLE_SPLITS};
}

static void test_golden_bytes(void)
{
    tfn_column ctx = context_c();
    tfn_list_column lists[3];
    golden_lists(lists);
    unsigned char want[2][256];
    size_t want_len[2];
    for (int i = 0; i < 2; i++)
        want_len[i] = harness_hex(GOLDEN[i], want[i], sizeof want[i]);
    uint64_t sizes[2], total = 0;
    tfn_error err;
    REQUIRE(tfn_encode_sequences_size(&ctx, 1, lists, 3, 2, sizes, &total, &err) == TFN_OK);
    CHECK_EQ_INT(sizes[0], want_len[0]);
    CHECK_EQ_INT(sizes[1], want_len[1]);
    CHECK_EQ_INT(total, want_len[0] + want_len[1]);
    unsigned char buf[512];
    uint64_t offsets[3];
    size_t written = 0;
    REQUIRE(tfn_encode_sequences(&ctx, 1, lists, 3, 2, buf, sizeof buf, offsets, &written,
                                 &err) == TFN_OK);
    CHECK_EQ_INT(written, total);
    CHECK_EQ_INT(offsets[0], 0);
    CHECK_EQ_INT(offsets[1], want_len[0]);
    CHECK_EQ_INT(offsets[2], total);
    CHECK_MEM(buf, (size_t)offsets[1], want[0], want_len[0]);
    CHECK_MEM(buf + offsets[1], (size_t)(offsets[2] - offsets[1]), want[1], want_len[1]);
}

static void test_round_trip_through_the_decoders(void)
{
    tfn_column ctx = context_c();
    tfn_list_column lists[3];
    golden_lists(lists);
    unsigned char buf[512];
    uint64_t offsets[3];
    size_t written = 0;
    tfn_error err;
    REQUIRE(tfn_encode_sequences(&ctx, 1, lists, 3, 2, buf, sizeof buf, offsets, &written,
                                 &err) == TFN_OK);
    tfn_bytes recs[2] = {{buf, (size_t)offsets[1]},
                         {buf + offsets[1], (size_t)(offsets[2] - offsets[1])}};
    /* feature list a: the same steps and values back */
    tfn_list_config cfg[2] = {{"a", 1, TFN_INT64}, {"s", 1, TFN_BYTES}};
    tfn_list_output out[2];
    memset(out, 0, sizeof out);
    REQUIRE(tfn_sequence_lists(recs, 2, NULL, cfg, 2, out, &err) == TFN_OK);
    CHECK_EQ_INT(out[0].steps, 2);
    CHECK_EQ_INT(out[0].values, 3);
    CHECK_EQ_INT(out[1].steps, 3);
    CHECK_EQ_INT(out[1].values, 3);
    int64_t ex_a[3], st_a[3], v_a[3], ex_s[3], st_s[4];
    tfn_bytes v_s[3];
    uint8_t present[2];
    out[0] = (tfn_list_output){2, 3, ex_a, st_a, v_a, present};
    out[1] = (tfn_list_output){3, 3, ex_s, st_s, v_s, NULL};
    REQUIRE(tfn_sequence_lists(recs, 2, NULL, cfg, 2, out, &err) == TFN_OK);
    CHECK_MEM(ex_a, sizeof ex_a, A_EXAMPLE_SPLITS, sizeof A_EXAMPLE_SPLITS);
    CHECK_MEM(st_a, sizeof st_a, A_STEP_SPLITS, sizeof A_STEP_SPLITS);
    CHECK_MEM(v_a, sizeof v_a, A_VALUES, sizeof A_VALUES);
    CHECK(present[0] == 1 && present[1] == 1); /* an empty FeatureList is present */
    CHECK_MEM(ex_s, sizeof ex_s, S_EXAMPLE_SPLITS, sizeof S_EXAMPLE_SPLITS);
    CHECK_MEM(st_s, sizeof st_s, S_STEP_SPLITS, sizeof S_STEP_SPLITS);
    CHECK(v_s[0].len == 1 && memcmp(v_s[0].data, "x", 1) == 0);
    CHECK(v_s[1].len == 2 && memcmp(v_s[1].data, "yz", 2) == 0);
    CHECK(v_s[2].len == 1 && memcmp(v_s[2].data, "q", 1) == 0);
    /* the context field is an Example's features: the Example decoder reads it */
    tfn_example *ex = tfn_example_new(NULL);
    REQUIRE(ex != NULL);
    REQUIRE(tfn_example_decode(ex, recs[1].data, recs[1].len, 0, &err) == TFN_OK);
    tfn_feature f;
    REQUIRE(tfn_example_find(ex, "c", 1, &f) == TFN_OK);
    CHECK(f.kind == TFN_KIND_INT64 && f.count == 1 && f.int64s[0] == -1);
    tfn_example_free(ex);
}

static void test_dense_steps_no_context_and_float64(void)
{
    /* 2 examples x 2 steps x 2 values, float64 narrowed to float32 */
    const double v[8] = {1, 2, 3, 4, 5, 6, 1e300, -0.0};
    const int64_t ex_splits[3] = {0, 2, 4};
    tfn_list_column l = {{"x", 1, TFN_FLOAT64, v, 2, NULL, NULL}, ex_splits};
    unsigned char buf[256];
    uint64_t offsets[3];
    size_t written;
    tfn_error err;
    REQUIRE(tfn_encode_sequences(NULL, 0, &l, 1, 2, buf, sizeof buf, offsets, &written,
                                 &err) == TFN_OK);
    /* feature_lists { "x": FeatureList { Feature{float_list{[1, 2]}},
     *                                      Feature{float_list{[3, 4]}} } } */
    unsigned char want[64];
    size_t want_len = harness_hex("12 23 0a 21 0a 01 78 12 1c 0a 0c 12 0a 0a 08 00 00 80 3f 00 "
                                  "00 00 40 0a 0c 12 0a 0a 08 00 00 40 40 00 00 80 40",
                                  want, sizeof want);
    CHECK_MEM(buf, (size_t)offsets[1], want, want_len);
    CHECK_EQ_INT(written, offsets[2]);
    tfn_bytes rec1 = {buf + offsets[1], (size_t)(offsets[2] - offsets[1])};
    tfn_list_config cfg = {"x", 1, TFN_FLOAT32};
    tfn_list_output out;
    float vals[4];
    int64_t exs[2], sts[3];
    memset(&out, 0, sizeof out);
    out = (tfn_list_output){2, 4, exs, sts, vals, NULL};
    REQUIRE(tfn_sequence_lists(&rec1, 1, NULL, &cfg, 1, &out, &err) == TFN_OK);
    CHECK(vals[0] == 5.0f && vals[1] == 6.0f);
    CHECK(vals[2] > 3.4e38f); /* 1e300 -> +inf */
    CHECK(vals[3] == 0.0f);
}

static void test_errors(void)
{
    tfn_error err;
    unsigned char buf[256];
    size_t written = 7;
    const int64_t v[2] = {1, 2};
    const int64_t bad_ex[3] = {0, 2, 1};
    tfn_list_column l = {{"a", 1, TFN_INT64, v, 1, NULL, NULL}, bad_ex};
    CHECK_EQ_INT(tfn_encode_sequences(NULL, 0, &l, 1, 2, buf, sizeof buf, NULL, &written, &err),
                 TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "example_splits decrease") != NULL);
    CHECK_EQ_INT(written, 0);
    const int64_t ex[3] = {0, 1, 2};
    const int64_t bad_steps[3] = {0, 2, 1};
    tfn_list_column r = {{"r", 1, TFN_INT64, v, 0, bad_steps, NULL}, ex};
    CHECK_EQ_INT(tfn_encode_sequences_size(NULL, 0, &r, 1, 2, NULL, NULL, &err),
                 TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "'r': row_splits decrease at step 1") != NULL);
    tfn_list_column twice[2] = {{{"k", 1, TFN_INT64, v, 1, NULL, NULL}, ex},
                                {{"k", 1, TFN_INT64, v, 1, NULL, NULL}, ex}};
    CHECK_EQ_INT(tfn_encode_sequences_size(NULL, 0, twice, 2, 2, NULL, NULL, &err),
                 TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "appears twice") != NULL);
    tfn_list_column odd = {{"t", 1, 99, v, 1, NULL, NULL}, ex};
    CHECK_EQ_INT(tfn_encode_sequences_size(NULL, 0, &odd, 1, 2, NULL, NULL, &err), TFN_E_TYPE);
    tfn_list_column ok = {{"a", 1, TFN_INT64, v, 1, NULL, NULL}, ex};
    uint64_t total = 0;
    REQUIRE(tfn_encode_sequences_size(NULL, 0, &ok, 1, 2, NULL, &total, &err) == TFN_OK);
    CHECK_EQ_INT(tfn_encode_sequences(NULL, 0, &ok, 1, 2, buf, (size_t)total - 1, NULL,
                                      &written, &err),
                 TFN_E_BUF_TOO_SMALL);
    CHECK_EQ_INT(written, total);
    /* nothing to write: n == 0, and no field at all */
    CHECK_EQ_INT(tfn_encode_sequences(NULL, 0, NULL, 0, 0, NULL, 0, NULL, &written, &err),
                 TFN_OK);
    CHECK_EQ_INT(written, 0);
    uint64_t offs[3];
    CHECK_EQ_INT(tfn_encode_sequences(NULL, 0, NULL, 0, 2, NULL, 0, offs, &written, &err),
                 TFN_OK);
    CHECK(offs[0] == 0 && offs[1] == 0 && offs[2] == 0);
}

int main(void)
{
    RUN(test_golden_bytes);
    RUN(test_round_trip_through_the_decoders);
    RUN(test_dense_steps_no_context_and_float64);
    RUN(test_errors);
    return harness_finish();
}

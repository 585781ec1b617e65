/* test_sequence_example.c - tfn_sequence_lists: the feature lists of SequenceExamples
 * (counting call, then filling), last map entry winning, kind-less steps, unknown
 * fields, TensorFlow's type-mismatch text, malformed input, short buffers. */
#include "harness.h"
#include "tfnano.h"

#include <stdlib.h>

/* SequenceExample bytes (hex, spaces allowed) of the tests, built by hand:
 *   feature_lists (12) { feature_list (0a) { key (0a) "a", value (12) FeatureList } }
 *   FeatureList: feature (0a) Feature; Feature: int64_list (1a) { packed (0a) } */
static tfn_bytes rec(const char *hex, unsigned char *buf)
{
    return (tfn_bytes){buf, harness_hex(hex, buf, 256)};
}

static const tfn_list_config A_INT64 = {"a", 1, TFN_INT64};

static void test_two_examples_count_then_fill(void)
{
    unsigned char b0[256], b1[256];
    tfn_bytes recs[2];
    /* a: steps [1, 2] and [3]; plus a context field (skipped) */
    recs[0] = rec("0a 00 12 16 0a 14 0a 01 61 12 0f 0a 06 1a 04 0a 02 01 02 0a 05 1a 03 0a 01 "
                  "03",
                  b0);
    /* a: one kind-less step, then [300] */
    recs[1] = rec("12 12 0a 10 0a 01 61 12 0b 0a 00 0a 07 1a 05 0a 03 ac 02 00", b1);
    tfn_list_output out;
    memset(&out, 0, sizeof out);
    tfn_error err;
    REQUIRE(tfn_sequence_lists(recs, 2, NULL, &A_INT64, 1, &out, &err) == TFN_OK);
    CHECK_EQ_INT(out.steps, 4);
    CHECK_EQ_INT(out.values, 5);
    int64_t ex[3], st[5], vals[5];
    uint8_t present[2];
    out.example_splits = ex;
    out.step_splits = st;
    out.values_out = vals;
    out.present = present;
    REQUIRE(tfn_sequence_lists(recs, 2, NULL, &A_INT64, 1, &out, &err) == TFN_OK);
    const int64_t want_ex[] = {0, 2, 4}, want_st[] = {0, 2, 3, 3, 5}, want_v[] = {1, 2, 3, 300, 0};
    CHECK_MEM(ex, sizeof ex, want_ex, sizeof want_ex);
    CHECK_MEM(st, sizeof st, want_st, sizeof want_st);
    CHECK_MEM(vals, sizeof vals, want_v, sizeof want_v);
    CHECK(present[0] == 1 && present[1] == 1);
}

static void test_last_entry_wins_and_missing(void)
{
    unsigned char b0[256], b1[256];
    tfn_bytes recs[2];
    /* a twice: [9] then [] (one kind-less step): the second wins */
    recs[0] = rec("12 17 0a 0c 0a 01 61 12 07 0a 05 1a 03 0a 01 09 0a 07 0a 01 61 12 02 0a 00",
                  b0);
    recs[1] = rec("", b1);
    tfn_list_output out;
    memset(&out, 0, sizeof out);
    REQUIRE(tfn_sequence_lists(recs, 2, NULL, &A_INT64, 1, &out, NULL) == TFN_OK);
    CHECK_EQ_INT(out.steps, 1);
    CHECK_EQ_INT(out.values, 0);
    int64_t ex[3], st[2], vals[1];
    uint8_t present[2];
    out.example_splits = ex;
    out.step_splits = st;
    out.values_out = vals;
    out.present = present;
    REQUIRE(tfn_sequence_lists(recs, 2, NULL, &A_INT64, 1, &out, NULL) == TFN_OK);
    CHECK(present[0] == 1 && present[1] == 0);
    CHECK(ex[1] == 1 && ex[2] == 1 && st[1] == 0);
}

static void test_errors(void)
{
    unsigned char b0[256];
    tfn_list_output out;
    tfn_error err;
    /* a float step for an int64 list */
    tfn_bytes r = rec("12 11 0a 0f 0a 01 61 12 0a 0a 08 12 06 0a 04 00 00 00 00", b0);
    memset(&out, 0, sizeof out);
    CHECK_EQ_INT(tfn_sequence_lists(&r, 1, NULL, &A_INT64, 1, &out, &err), TFN_E_TYPE);
    CHECK_STR(err.msg, "Name: <unknown>, Feature list: a, Index: 0.  Data types don't match. "
                       "Expected type: int64");
    /* a truncated top-level field */
    r = rec("12 30 0a", b0);
    CHECK_EQ_INT(tfn_sequence_lists(&r, 1, NULL, &A_INT64, 1, &out, &err), TFN_E_CORRUPT);
    CHECK(strncmp(err.msg, "Could not parse example input, value: '", 39) == 0);
    /* a packed run claiming more bytes than there are */
    r = rec("12 0e 0a 0c 0a 01 61 12 07 0a 05 1a 03 0a 09 01", b0);
    CHECK_EQ_INT(tfn_sequence_lists(&r, 1, NULL, &A_INT64, 1, &out, &err), TFN_OK);
    /* duplicate keys and bad dtypes are refused */
    tfn_list_config two[2] = {A_INT64, A_INT64};
    tfn_list_output outs[2];
    memset(outs, 0, sizeof outs);
    CHECK_EQ_INT(tfn_sequence_lists(&r, 1, NULL, two, 2, outs, &err), TFN_E_INVALID_ARG);
    two[1].dtype = TFN_INT32;
    two[1].key = "b";
    CHECK_EQ_INT(tfn_sequence_lists(&r, 1, NULL, two, 2, outs, &err), TFN_E_INVALID_ARG);
}

static void test_short_buffers_are_refused(void)
{
    unsigned char b0[256];
    tfn_bytes r = rec("12 16 0a 14 0a 01 61 12 0f 0a 06 1a 04 0a 02 01 02 0a 05 1a 03 0a 01 03",
                      b0);
    tfn_list_output out;
    memset(&out, 0, sizeof out);
    int64_t ex[2], st[3], vals[3];
    out.example_splits = ex;
    out.step_splits = st;
    out.values_out = vals;
    out.steps = 1; /* as if the counting call had seen fewer steps */
    out.values = 3;
    tfn_error err;
    CHECK_EQ_INT(tfn_sequence_lists(&r, 1, NULL, &A_INT64, 1, &out, &err), TFN_E_BUF_TOO_SMALL);
}

int main(void)
{
    RUN(test_two_examples_count_then_fill);
    RUN(test_last_entry_wins_and_missing);
    RUN(test_errors);
    RUN(test_short_buffers_are_refused);
    return harness_finish();
}

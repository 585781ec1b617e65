/* test_example.c - building, serializing and decoding tf.train.Example (spec §1, §6
 * cases 1-8 and the decode column of §1.5). */
#include "harness.h"
#include "tfnano.h"

#include <math.h>
#include <stdlib.h>

#define KEY(s) (s), (sizeof(s) - 1)

static void check_serialized(tfn_example *ex, const char *hex)
{
    unsigned char want[512], got[512];
    size_t want_len = harness_hex(hex, want, sizeof want);
    size_t written = 0;
    tfn_error err;
    int rc = tfn_example_serialize(ex, got, sizeof got, &written, &err);
    CHECK_EQ_INT(rc, TFN_OK);
    CHECK_MEM(got, written, want, want_len);
    CHECK_EQ_INT(tfn_example_serialized_size(ex), want_len);
}

static void test_case1_int64(void)
{
    tfn_example *ex = tfn_example_new(NULL);
    int64_t v = 1;
    CHECK_EQ_INT(tfn_example_set_int64s(ex, KEY("a"), &v, 1, NULL), TFN_OK);
    check_serialized(ex, "0a 0c 0a 0a 0a 01 61 12 05 1a 03 0a 01 01");
    tfn_example_free(ex);
}

static void test_case2_negative_int64(void)
{
    tfn_example *ex = tfn_example_new(NULL);
    int64_t v = -1;
    tfn_example_set_int64s(ex, KEY("a"), &v, 1, NULL);
    check_serialized(ex, "0a 15 0a 13 0a 01 61 12 0e 1a 0c 0a 0a ff ff ff ff ff ff ff ff ff 01");
    tfn_example_free(ex);
}

static void test_varint_extremes(void)
{
    static const struct {
        int64_t v;
        const char *hex;
    } cases[] = {
        {0, "00"},
        {127, "7f"},
        {128, "80 01"},
        {300, "ac 02"},
        {INT64_MAX, "ff ff ff ff ff ff ff ff 7f"},
        {INT64_MIN, "80 80 80 80 80 80 80 80 80 01"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tfn_example *ex = tfn_example_new(NULL);
        tfn_example_set_int64s(ex, KEY("a"), &cases[i].v, 1, NULL);
        const uint8_t *out;
        size_t len;
        REQUIRE(tfn_example_serialize_owned(ex, &out, &len, NULL) == TFN_OK);
        unsigned char want[16];
        size_t wl = harness_hex(cases[i].hex, want, sizeof want);
        /* the varint is the tail of the message */
        REQUIRE(len > wl);
        CHECK_MEM(out + len - wl, wl, want, wl);
        CHECK_EQ_INT(out[len - wl - 1], wl);
        tfn_example_free(ex);
    }
}

static void test_case3_floats(void)
{
    tfn_example *ex = tfn_example_new(NULL);
    float v[2] = {1.0f, 2.5f};
    tfn_example_set_floats(ex, KEY("a"), v, 2, NULL);
    check_serialized(ex, "0a 13 0a 11 0a 01 61 12 0c 12 0a 0a 08 00 00 80 3f 00 00 20 40");
    tfn_example_free(ex);
}

static void test_bytes_list(void)
{
    tfn_example *ex = tfn_example_new(NULL);
    tfn_bytes v[2] = {{(const uint8_t *)"hi", 2}, {NULL, 0}};
    tfn_example_set_bytes(ex, KEY("a"), v, 2, NULL);
    check_serialized(ex, "0a 0f 0a 0d 0a 01 61 12 08 0a 06 0a 02 68 69 0a 00");
    tfn_example_free(ex);
}

static void test_case4_empty_lists(void)
{
    tfn_example *ex = tfn_example_new(NULL);
    tfn_example_set_int64s(ex, KEY("a"), NULL, 0, NULL);
    check_serialized(ex, "0a 09 0a 07 0a 01 61 12 02 1a 00");
    tfn_example_set_floats(ex, KEY("a"), NULL, 0, NULL);
    check_serialized(ex, "0a 09 0a 07 0a 01 61 12 02 12 00");
    tfn_example_set_bytes(ex, KEY("a"), NULL, 0, NULL);
    check_serialized(ex, "0a 09 0a 07 0a 01 61 12 02 0a 00");
    tfn_example_free(ex);
}

static void test_case5_kindless_feature(void)
{
    tfn_example *ex = tfn_example_new(NULL);
    tfn_example_set_none(ex, KEY("a"), NULL);
    check_serialized(ex, "0a 07 0a 05 0a 01 61 12 00");
    tfn_example_free(ex);
}

static void test_case6_empty_examples(void)
{
    tfn_example *ex = tfn_example_new(NULL);
    check_serialized(ex, "");
    tfn_example_mark_features(ex);
    check_serialized(ex, "0a 00");
    tfn_example_clear(ex);
    check_serialized(ex, "");
    int64_t zero = 0;
    tfn_example_set_int64s(ex, "", 0, &zero, 1, NULL);
    check_serialized(ex, "0a 0b 0a 09 0a 00 12 05 1a 03 0a 01 00");
    tfn_example_free(ex);
}

static void test_case7_sorted_keys(void)
{
    tfn_example *ex = tfn_example_new(NULL);
    const char *keys[] = {"zeta", "alpha", "mid", "b", "a"};
    for (int i = 0; i < 5; i++) {
        int64_t v = i;
        tfn_example_set_int64s(ex, keys[i], strlen(keys[i]), &v, 1, NULL);
    }
    const uint8_t *out;
    size_t len;
    REQUIRE(tfn_example_serialize_owned(ex, &out, &len, NULL) == TFN_OK);
    /* entries must appear in the order a, alpha, b, mid, zeta */
    const char *order[] = {"a", "alpha", "b", "mid", "zeta"};
    size_t pos = 2; /* skip 0a <len> */
    for (int i = 0; i < 5; i++) {
        REQUIRE(pos + 5 < len);
        size_t klen = out[pos + 3]; /* 0a <entry len> 0a <key len> key... */
        CHECK_EQ_INT(klen, strlen(order[i]));
        CHECK(memcmp(out + pos + 4, order[i], klen) == 0);
        pos += 2 + out[pos + 1];
    }
    CHECK_EQ_INT(pos, len);
    /* insertion order is what tfn_example_at reports */
    tfn_feature f;
    REQUIRE(tfn_example_at(ex, 0, &f) == TFN_OK);
    CHECK(f.key_len == 4 && memcmp(f.key, "zeta", 4) == 0);
    tfn_example_free(ex);
}

static void test_replace_and_remove(void)
{
    tfn_example *ex = tfn_example_new(NULL);
    int64_t a = 5;
    float b = 1.5f;
    tfn_example_set_int64s(ex, KEY("k"), &a, 1, NULL);
    tfn_example_set_floats(ex, KEY("k"), &b, 1, NULL);
    CHECK_EQ_INT(tfn_example_size(ex), 1);
    tfn_feature f;
    REQUIRE(tfn_example_find(ex, KEY("k"), &f) == TFN_OK);
    CHECK_EQ_INT(f.kind, TFN_KIND_FLOAT);
    CHECK(f.floats && f.floats[0] == 1.5f);
    CHECK_EQ_INT(tfn_example_find(ex, KEY("nope"), &f), TFN_E_NOT_FOUND);
    tfn_error err;
    CHECK_EQ_INT(tfn_example_remove(ex, KEY("nope"), &err), TFN_E_NOT_FOUND);
    CHECK(strstr(err.msg, "nope") != NULL);
    CHECK_EQ_INT(tfn_example_remove(ex, KEY("k"), &err), TFN_OK);
    CHECK_EQ_INT(tfn_example_size(ex), 0);
    check_serialized(ex, "0a 00");
    tfn_example_free(ex);
}

static void test_many_keys_hash_index(void)
{
    tfn_example *ex = tfn_example_new(NULL);
    char key[32];
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 1000; i++) {
            int n = snprintf(key, sizeof key, "feature_%d", i);
            int64_t v = i + round;
            REQUIRE(tfn_example_set_int64s(ex, key, (size_t)n, &v, 1, NULL) == TFN_OK);
        }
        CHECK_EQ_INT(tfn_example_size(ex), 1000);
        for (int i = 0; i < 1000; i += 37) {
            int n = snprintf(key, sizeof key, "feature_%d", i);
            tfn_feature f;
            REQUIRE(tfn_example_find(ex, key, (size_t)n, &f) == TFN_OK);
            CHECK_EQ_INT(f.int64s[0], i + round);
        }
        tfn_example_clear(ex);
    }
    tfn_example_free(ex);
}

static void test_buffer_too_small(void)
{
    tfn_example *ex = tfn_example_new(NULL);
    int64_t v = 1;
    tfn_example_set_int64s(ex, KEY("a"), &v, 1, NULL);
    unsigned char buf[4];
    size_t written = 0;
    tfn_error err;
    CHECK_EQ_INT(tfn_example_serialize(ex, buf, sizeof buf, &written, &err), TFN_E_BUF_TOO_SMALL);
    CHECK_EQ_INT(written, 14);
    CHECK_EQ_INT(err.code, TFN_E_BUF_TOO_SMALL);
    CHECK(strstr(err.msg, "14") != NULL);
    CHECK_EQ_INT(tfn_example_serialize(NULL, buf, 4, &written, &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_example_set_int64s(ex, NULL, 1, &v, 1, &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_example_set_int64s(ex, KEY("a"), NULL, 3, &err), TFN_E_INVALID_ARG);
    tfn_example_free(ex);
}

/* ---- decoding (protobuf semantics) ---- */

static tfn_example *decode_hex(const char *hex, int expect_rc)
{
    static unsigned char buf[1024];
    size_t n = harness_hex(hex, buf, sizeof buf);
    tfn_example *ex = tfn_example_new(NULL);
    tfn_error err;
    int rc = tfn_example_decode(ex, buf, n, 0, &err);
    CHECK_EQ_INT(rc, expect_rc);
    if (rc != expect_rc)
        fprintf(stderr, "  decode message: %s\n", err.msg);
    return ex;
}

static void test_decode_round_trip(void)
{
    tfn_example *ex = tfn_example_new(NULL);
    int64_t iv[3] = {-1, 0, INT64_MAX};
    float fv[3] = {0.1f, -0.0f, INFINITY};
    tfn_bytes bv[2] = {{(const uint8_t *)"x\0y", 3}, {NULL, 0}};
    tfn_example_set_int64s(ex, KEY("i"), iv, 3, NULL);
    tfn_example_set_floats(ex, KEY("f"), fv, 3, NULL);
    tfn_example_set_bytes(ex, KEY("b"), bv, 2, NULL);
    tfn_example_set_none(ex, KEY("n"), NULL);
    const uint8_t *out;
    size_t len;
    REQUIRE(tfn_example_serialize_owned(ex, &out, &len, NULL) == TFN_OK);
    tfn_example *back = tfn_example_new(NULL);
    REQUIRE(tfn_example_decode(back, out, len, 0, NULL) == TFN_OK);
    CHECK_EQ_INT(tfn_example_size(back), 4);
    tfn_feature f;
    REQUIRE(tfn_example_find(back, KEY("i"), &f) == TFN_OK);
    CHECK(f.count == 3 && f.int64s[0] == -1 && f.int64s[2] == INT64_MAX);
    REQUIRE(tfn_example_find(back, KEY("f"), &f) == TFN_OK);
    CHECK(f.count == 3 && f.floats[0] == 0.1f && signbit(f.floats[1]) && isinf(f.floats[2]));
    REQUIRE(tfn_example_find(back, KEY("b"), &f) == TFN_OK);
    CHECK(f.count == 2 && f.bytes[0].len == 3 && memcmp(f.bytes[0].data, "x\0y", 3) == 0);
    CHECK(f.bytes[1].len == 0);
    REQUIRE(tfn_example_find(back, KEY("n"), &f) == TFN_OK);
    CHECK_EQ_INT(f.kind, TFN_KIND_NONE);
    /* re-serializing gives the same bytes */
    const uint8_t *again;
    size_t again_len;
    REQUIRE(tfn_example_serialize_owned(back, &again, &again_len, NULL) == TFN_OK);
    CHECK_MEM(again, again_len, out, len);
    tfn_example_free(back);
    tfn_example_free(ex);
}

static void test_case8_unpacked_int64(void)
{
    /* Example{a: Int64List with unpacked 08 01 08 02} */
    tfn_example *ex = decode_hex("0a 0d 0a 0b 0a 01 61 12 06 1a 04 08 01 08 02", TFN_OK);
    tfn_feature f;
    REQUIRE(tfn_example_find(ex, KEY("a"), &f) == TFN_OK);
    CHECK(f.kind == TFN_KIND_INT64 && f.count == 2 && f.int64s[0] == 1 && f.int64s[1] == 2);
    tfn_example_free(ex);
}

static void test_decode_protobuf_merges(void)
{
    /* two packed runs merge; packed after unpacked merges too */
    tfn_example *ex = decode_hex("0a 11 0a 0f 0a 01 61 12 0a 1a 08 0a 01 01 08 05 0a 01 02", TFN_OK);
    tfn_feature f;
    REQUIRE(tfn_example_find(ex, KEY("a"), &f) == TFN_OK);
    CHECK(f.count == 3 && f.int64s[0] == 1 && f.int64s[1] == 5 && f.int64s[2] == 2);
    tfn_example_free(ex);
    /* a Feature with int64 then float: protobuf's oneof keeps the last kind */
    ex = decode_hex("0a 13 0a 11 0a 01 61 12 0c 1a 03 0a 01 01 12 05 0a 03 00 00 80", TFN_E_CORRUPT);
    tfn_example_free(ex);
    ex = decode_hex("0a 13 0a 11 0a 01 61 12 0c 1a 03 0a 01 01 12 05 0d 00 00 80 3f", TFN_OK);
    REQUIRE(tfn_example_find(ex, KEY("a"), &f) == TFN_OK);
    CHECK(f.kind == TFN_KIND_FLOAT && f.count == 1 && f.floats[0] == 1.0f);
    tfn_example_free(ex);
    /* the same key twice: the last entry wins */
    ex = decode_hex("0a 18 0a 0a 0a 01 61 12 05 1a 03 0a 01 01 0a 0a 0a 01 61 12 05 1a 03 0a 01 02",
                    TFN_OK);
    REQUIRE(tfn_example_find(ex, KEY("a"), &f) == TFN_OK);
    CHECK(f.count == 1 && f.int64s[0] == 2);
    CHECK_EQ_INT(tfn_example_size(ex), 1);
    tfn_example_free(ex);
    /* two concatenated Examples merge their maps */
    ex = decode_hex("0a 0c 0a 0a 0a 01 61 12 05 1a 03 0a 01 01 0a 0c 0a 0a 0a 01 62 12 05 1a 03 0a 01 07",
                    TFN_OK);
    CHECK_EQ_INT(tfn_example_size(ex), 2);
    REQUIRE(tfn_example_find(ex, KEY("b"), &f) == TFN_OK);
    CHECK(f.int64s[0] == 7);
    tfn_example_free(ex);
}

static void test_decode_entry_defaults_and_unknowns(void)
{
    /* entry without value: key "a" with no kind (case 29, protobuf side) */
    tfn_example *ex = decode_hex("0a 05 0a 03 0a 01 61", TFN_OK);
    tfn_feature f;
    REQUIRE(tfn_example_find(ex, KEY("a"), &f) == TFN_OK);
    CHECK_EQ_INT(f.kind, TFN_KIND_NONE);
    tfn_example_free(ex);
    /* entry with value before key, and an unknown varint field at the top level */
    ex = decode_hex("10 05 0a 0c 0a 0a 12 05 1a 03 0a 01 03 0a 01 61", TFN_OK);
    REQUIRE(tfn_example_find(ex, KEY("a"), &f) == TFN_OK);
    CHECK(f.count == 1 && f.int64s[0] == 3);
    tfn_example_free(ex);
    /* empty input: an empty example with no features */
    ex = decode_hex("", TFN_OK);
    CHECK_EQ_INT(tfn_example_size(ex), 0);
    CHECK_EQ_INT(tfn_example_serialized_size(ex), 0);
    tfn_example_free(ex);
    /* an unknown group field is skipped */
    ex = decode_hex("1b 08 01 1c 0a 00", TFN_OK);
    CHECK_EQ_INT(tfn_example_serialized_size(ex), 2);
    tfn_example_free(ex);
}

static void test_decode_errors(void)
{
    const char *bad[] = {
        "ff",                                   /* truncated varint tag */
        "0a 05 0a 03",                          /* length beyond the input */
        "0a 07 0a 05 0a 01 ff 12 00",           /* invalid UTF-8 key */
        "0a 09 0a 07 0a 01 61 12 02 1a 05",     /* nested length beyond parent */
        "0a 0b 0a 09 0a 01 61 12 04 1a 02 0a 01", /* packed list ends early */
        "0a 0a 0a 08 0a 01 61 12 03 1a 01 80",  /* varint cut at end of packed run */
        "0c",                                    /* end-group without start */
        "00",                                    /* field number 0 */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unsigned char buf[64];
        size_t n = harness_hex(bad[i], buf, sizeof buf);
        tfn_example *ex = tfn_example_new(NULL);
        tfn_error err;
        int rc = tfn_example_decode(ex, buf, n, 0, &err);
        CHECK(rc == TFN_E_CORRUPT);
        if (rc != TFN_E_CORRUPT)
            fprintf(stderr, "  input %zu (%s) gave %d\n", i, bad[i], rc);
        CHECK(strncmp(err.msg, "Could not decode Example", 24) == 0);
        CHECK_EQ_INT(tfn_example_size(ex), 0);
        tfn_example_free(ex);
    }
}

static void test_decode_borrow(void)
{
    unsigned char buf[64];
    size_t n = harness_hex("0a 0f 0a 0d 0a 01 61 12 08 0a 06 0a 02 68 69 0a 00", buf, sizeof buf);
    tfn_example *ex = tfn_example_new(NULL);
    REQUIRE(tfn_example_decode(ex, buf, n, TFN_DECODE_BORROW, NULL) == TFN_OK);
    tfn_feature f;
    REQUIRE(tfn_example_find(ex, KEY("a"), &f) == TFN_OK);
    CHECK(f.count == 2 && f.bytes[0].data == buf + 13 && f.bytes[0].len == 2);
    CHECK(f.key == (const char *)buf + 6);
    tfn_example_free(ex);
}

/* A warm loop of clear / set / serialize allocates nothing. */
static size_t counted_allocs;
static void *count_malloc(void *ctx, size_t n)
{
    (void)ctx;
    counted_allocs++;
    return malloc(n);
}
static void *count_realloc(void *ctx, void *p, size_t o, size_t n)
{
    (void)ctx;
    (void)o;
    counted_allocs++;
    return realloc(p, n);
}
static void count_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

static void test_warm_loop_allocates_nothing(void)
{
    tfn_alloc alc = {count_malloc, count_realloc, count_free, NULL};
    tfn_example *ex = tfn_example_new(&alc);
    int64_t ids[512];
    for (int i = 0; i < 512; i++)
        ids[i] = i * 7;
    float labels[30] = {0};
    size_t after_warmup = 0;
    for (int round = 0; round < 50; round++) {
        if (round == 5)
            after_warmup = counted_allocs;
        tfn_example_clear(ex);
        tfn_example_set_int64s(ex, KEY("q_input_ids"), ids, 512, NULL);
        tfn_example_set_int64s(ex, KEY("a_input_ids"), ids, 512, NULL);
        tfn_example_set_floats(ex, KEY("labels"), labels, 30, NULL);
        const uint8_t *out;
        size_t len;
        REQUIRE(tfn_example_serialize_owned(ex, &out, &len, NULL) == TFN_OK);
    }
    CHECK_EQ_INT(counted_allocs, after_warmup);
    tfn_example_free(ex);
}

/* Fails the k-th allocation: every path must report TFN_E_NOMEM and leak nothing
 * (the sanitizer build checks for leaks). */
static size_t fail_at, alloc_calls;
static void *failing_malloc(void *ctx, size_t n)
{
    (void)ctx;
    return ++alloc_calls == fail_at ? NULL : malloc(n);
}
static void *failing_realloc(void *ctx, void *p, size_t o, size_t n)
{
    (void)ctx;
    (void)o;
    return ++alloc_calls == fail_at ? NULL : realloc(p, n);
}

static void test_allocation_failures(void)
{
    tfn_alloc alc = {failing_malloc, failing_realloc, count_free, NULL};
    int64_t ids[100] = {0};
    for (fail_at = 1; fail_at < 40; fail_at++) {
        alloc_calls = 0;
        tfn_example *ex = tfn_example_new(&alc);
        if (!ex)
            continue;
        int rc = TFN_OK;
        char key[16];
        for (int i = 0; i < 20 && rc == TFN_OK; i++) {
            int n = snprintf(key, sizeof key, "k%d", i);
            rc = tfn_example_set_int64s(ex, key, (size_t)n, ids, 100, NULL);
        }
        const uint8_t *out;
        size_t len;
        if (rc == TFN_OK)
            rc = tfn_example_serialize_owned(ex, &out, &len, NULL);
        CHECK(rc == TFN_OK || rc == TFN_E_NOMEM);
        tfn_example_free(ex);
    }
}

int main(void)
{
    RUN(test_case1_int64);
    RUN(test_case2_negative_int64);
    RUN(test_varint_extremes);
    RUN(test_case3_floats);
    RUN(test_bytes_list);
    RUN(test_case4_empty_lists);
    RUN(test_case5_kindless_feature);
    RUN(test_case6_empty_examples);
    RUN(test_case7_sorted_keys);
    RUN(test_replace_and_remove);
    RUN(test_many_keys_hash_index);
    RUN(test_buffer_too_small);
    RUN(test_decode_round_trip);
    RUN(test_case8_unpacked_int64);
    RUN(test_decode_protobuf_merges);
    RUN(test_decode_entry_defaults_and_unknowns);
    RUN(test_decode_errors);
    RUN(test_decode_borrow);
    RUN(test_warm_loop_allocates_nothing);
    RUN(test_allocation_failures);
    return harness_finish();
}

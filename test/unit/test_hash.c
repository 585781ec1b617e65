/* test_hash.c - the string hashes of tf.strings.to_hash_bucket*: FarmHash's
 * Fingerprint64 (values from TensorFlow 2.21's tf.fingerprint(..., "farmhash64")),
 * TensorFlow's Hash64 (values checked against tf.strings.to_hash_bucket), SipHash-2-4
 * (the reference vectors of the SipHash paper), and tfn_hash_strings / tfn_hash_views
 * over many strings and their argument errors. Inputs are read from unaligned addresses too. */
#include "harness.h"
#include "tfnano.h"

#include <stdint.h>
#include <stdlib.h>

/* The test pattern: byte i is (i * 7 + 3) % 251. */
static uint8_t pattern[300 + 8];

static const struct {
    size_t len;
    uint64_t fingerprint, tf_hash64;
} VECTORS[] = {
    {0, 0x9ae16a3b2f90404full, 0x81769421199f9e3bull},
    {1, 0xbec09cc447469d8bull, 0x612b480967b3345full},
    {3, 0x40b4412e33eefd64ull, 0x4939d71657f711abull},
    {4, 0xf3c7ee05197a7b92ull, 0x507b0c7f2f38bf71ull},
    {7, 0x4fef0b39c12aa9a4ull, 0x8fda9cc8df3271beull},
    {8, 0x0c97ecbc1e9d2626ull, 0x055690e40e1ac5a2ull},
    {16, 0x7eda0ed8c837a168ull, 0x4731411ded888858ull},
    {17, 0xc9518fe63ebf6127ull, 0x61aa75b820c066d5ull},
    {32, 0xa53f806f23a314e8ull, 0x143e2ad4723b4aafull},
    {33, 0xc24f9d7ce864f0e9ull, 0x23bc00672f93019bull},
    {64, 0xbc179a6e5c246189ull, 0xb257023d3f87c481ull},
    {65, 0x10cf54ce409ce3aeull, 0x4530b2b3ab067476ull},
    {128, 0xcff790cfbe753e03ull, 0xd62763770b2c9ef5ull},
    {129, 0x1f409e355940ee0aull, 0x8c3bb346004d65a1ull},
    {300, 0x14f70970fa09b910ull, 0x9c4e2aaf1a2939f9ull},
};
#define NVEC (sizeof VECTORS / sizeof VECTORS[0])

static void fill_pattern(uint8_t *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (uint8_t)((i * 7 + 3) % 251);
}

static void test_fingerprint64(void)
{
    uint8_t *shifted = malloc(sizeof pattern + 3);
    REQUIRE(shifted != NULL);
    for (size_t i = 0; i < NVEC; i++) {
        CHECK(tfn_fingerprint64(pattern, VECTORS[i].len) == VECTORS[i].fingerprint);
        /* the same bytes at an odd address */
        fill_pattern(shifted + 3, VECTORS[i].len);
        CHECK(tfn_fingerprint64(shifted + 3, VECTORS[i].len) == VECTORS[i].fingerprint);
    }
    CHECK(tfn_fingerprint64(NULL, 0) == 0x9ae16a3b2f90404full);
    free(shifted);
}

static void test_tf_hash64(void)
{
    for (size_t i = 0; i < NVEC; i++)
        CHECK(tfn_tf_hash64(pattern, VECTORS[i].len, TFN_TF_HASH64_SEED) == VECTORS[i].tf_hash64);
    /* another seed gives another value */
    CHECK(tfn_tf_hash64(pattern, 5, 1) != tfn_tf_hash64(pattern, 5, TFN_TF_HASH64_SEED));
}

static void test_siphash24(void)
{
    /* The paper's key 00 01 .. 0f is the words below (little-endian). */
    const uint64_t key[2] = {0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};
    uint8_t msg[64];
    for (int i = 0; i < 64; i++)
        msg[i] = (uint8_t)i;
    CHECK(tfn_siphash24(key, msg, 0) == 0x726fdb47dd0e0e31ull);
    CHECK(tfn_siphash24(key, msg, 1) == 0x74f839c593dc67fdull);
    CHECK(tfn_siphash24(key, msg, 7) == 0xab0200f58b01d137ull);
    CHECK(tfn_siphash24(key, msg, 8) == 0x93f5f5799a932462ull);
    CHECK(tfn_siphash24(key, msg, 15) == 0xa129ca6149be45e5ull);
    CHECK(tfn_siphash24(key, msg, 63) == 0x958a324ceb064572ull);
    CHECK(tfn_siphash24(key, NULL, 0) == 0x726fdb47dd0e0e31ull);
}

static void test_hash_strings(void)
{
    /* The vectors' strings are prefixes of the pattern: lay them end to end. */
    size_t total = 0;
    for (size_t i = 0; i < NVEC; i++)
        total += VECTORS[i].len;
    uint8_t *data = malloc(total);
    REQUIRE(data != NULL);
    int64_t offsets[NVEC + 1];
    offsets[0] = 0;
    for (size_t i = 0; i < NVEC; i++) {
        fill_pattern(data + offsets[i], VECTORS[i].len);
        offsets[i + 1] = offsets[i] + (int64_t)VECTORS[i].len;
    }
    uint64_t out[NVEC];
    tfn_error err;
    CHECK_EQ_INT(tfn_hash_strings(TFN_HASH_FINGERPRINT64, data, offsets, NVEC, NULL, 0, out,
                                  &err), TFN_OK);
    for (size_t i = 0; i < NVEC; i++)
        CHECK(out[i] == VECTORS[i].fingerprint);
    CHECK_EQ_INT(tfn_hash_strings(TFN_HASH_TF_HASH64, data, offsets, NVEC, NULL, 1000, out,
                                  &err), TFN_OK);
    for (size_t i = 0; i < NVEC; i++)
        CHECK(out[i] == VECTORS[i].tf_hash64 % 1000);
    const uint64_t key[2] = {1, 2};
    CHECK_EQ_INT(tfn_hash_strings(TFN_HASH_SIPHASH24, data, offsets, NVEC, key, 7, out, &err),
                 TFN_OK);
    for (size_t i = 0; i < NVEC; i++)
        CHECK(out[i] == tfn_siphash24(key, pattern, VECTORS[i].len) % 7);

    /* Empty strings need no data. */
    int64_t zeros[3] = {0, 0, 0};
    CHECK_EQ_INT(tfn_hash_strings(TFN_HASH_FINGERPRINT64, NULL, zeros, 2, NULL, 0, out, &err),
                 TFN_OK);
    CHECK(out[0] == 0x9ae16a3b2f90404full && out[1] == out[0]);
    CHECK_EQ_INT(tfn_hash_strings(TFN_HASH_FINGERPRINT64, NULL, NULL, 0, NULL, 0, NULL, &err),
                 TFN_OK);

    /* Errors. */
    CHECK_EQ_INT(tfn_hash_strings(9, data, offsets, NVEC, NULL, 0, out, &err),
                 TFN_E_INVALID_ARG);
    CHECK_STR(err.msg, "tfn_hash_strings: unknown hash kind 9");
    CHECK_EQ_INT(tfn_hash_strings(TFN_HASH_SIPHASH24, data, offsets, NVEC, NULL, 0, out, &err),
                 TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_hash_strings(TFN_HASH_FINGERPRINT64, data, NULL, 1, NULL, 0, out, &err),
                 TFN_E_INVALID_ARG);
    int64_t backwards[3] = {0, 5, 2};
    CHECK_EQ_INT(tfn_hash_strings(TFN_HASH_FINGERPRINT64, data, backwards, 2, NULL, 0, out,
                                  &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(err.record_index, 1);
    int64_t negative[2] = {-1, 2};
    CHECK_EQ_INT(tfn_hash_strings(TFN_HASH_FINGERPRINT64, data, negative, 1, NULL, 0, out,
                                  NULL), TFN_E_INVALID_ARG);
    int64_t some[2] = {0, 3};
    CHECK_EQ_INT(tfn_hash_strings(TFN_HASH_FINGERPRINT64, NULL, some, 1, NULL, 0, out, &err),
                 TFN_E_INVALID_ARG);
    free(data);
}

static void test_hash_views(void)
{
    /* Each vector's string at its own (odd) address, not laid end to end. */
    uint8_t *copies[NVEC];
    tfn_bytes views[NVEC];
    for (size_t i = 0; i < NVEC; i++) {
        copies[i] = malloc(VECTORS[i].len + 1);
        REQUIRE(copies[i] != NULL);
        fill_pattern(copies[i] + 1, VECTORS[i].len);
        views[i] = (tfn_bytes){copies[i] + 1, VECTORS[i].len};
    }
    uint64_t out[NVEC];
    tfn_error err;
    CHECK_EQ_INT(tfn_hash_views(TFN_HASH_FINGERPRINT64, views, NVEC, NULL, 0, out, &err),
                 TFN_OK);
    for (size_t i = 0; i < NVEC; i++)
        CHECK(out[i] == VECTORS[i].fingerprint);
    CHECK_EQ_INT(tfn_hash_views(TFN_HASH_TF_HASH64, views, NVEC, NULL, 1000, out, &err),
                 TFN_OK);
    for (size_t i = 0; i < NVEC; i++)
        CHECK(out[i] == VECTORS[i].tf_hash64 % 1000);
    const uint64_t key[2] = {3, 4};
    CHECK_EQ_INT(tfn_hash_views(TFN_HASH_SIPHASH24, views, NVEC, key, 11, out, &err), TFN_OK);
    for (size_t i = 0; i < NVEC; i++)
        CHECK(out[i] == tfn_siphash24(key, pattern, VECTORS[i].len) % 11);

    /* An empty string may be a NULL view; no strings need no arrays. */
    tfn_bytes empty[2] = {{NULL, 0}, {pattern, 0}};
    CHECK_EQ_INT(tfn_hash_views(TFN_HASH_FINGERPRINT64, empty, 2, NULL, 0, out, &err), TFN_OK);
    CHECK(out[0] == 0x9ae16a3b2f90404full && out[1] == out[0]);
    CHECK_EQ_INT(tfn_hash_views(TFN_HASH_FINGERPRINT64, NULL, 0, NULL, 0, NULL, &err), TFN_OK);

    /* Errors. */
    CHECK_EQ_INT(tfn_hash_views(0, views, NVEC, NULL, 0, out, &err), TFN_E_INVALID_ARG);
    CHECK_STR(err.msg, "tfn_hash_views: unknown hash kind 0");
    CHECK_EQ_INT(tfn_hash_views(TFN_HASH_SIPHASH24, views, NVEC, NULL, 0, out, &err),
                 TFN_E_INVALID_ARG);
    CHECK_STR(err.msg, "tfn_hash_views: SipHash needs a key");
    CHECK_EQ_INT(tfn_hash_views(TFN_HASH_FINGERPRINT64, NULL, 1, NULL, 0, out, &err),
                 TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_hash_views(TFN_HASH_FINGERPRINT64, views, 1, NULL, 0, NULL, NULL),
                 TFN_E_INVALID_ARG);
    tfn_bytes bad[3] = {{pattern, 2}, {NULL, 0}, {NULL, 4}};
    CHECK_EQ_INT(tfn_hash_views(TFN_HASH_FINGERPRINT64, bad, 3, NULL, 0, out, &err),
                 TFN_E_INVALID_ARG);
    CHECK_EQ_INT(err.record_index, 2);
    CHECK_STR(err.msg, "tfn_hash_views: strs[2] is NULL with length 4");
    for (size_t i = 0; i < NVEC; i++)
        free(copies[i]);
}

int main(void)
{
    fill_pattern(pattern, sizeof pattern);
    RUN(test_fingerprint64);
    RUN(test_tf_hash64);
    RUN(test_siphash24);
    RUN(test_hash_strings);
    RUN(test_hash_views);
    return harness_finish();
}

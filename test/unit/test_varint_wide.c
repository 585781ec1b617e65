/* test_varint_wide.c - the block varint decoder (lib/base/varint_wide.c) against a
 * byte-at-a-time reference: runs of 1- to 10-byte varints in random mixes and at
 * every length around the block size, output buffers of exactly `max` values (so
 * AddressSanitizer sees any write past them), inputs copied to buffers that end where
 * the run ends (any read past it), runs that no block can take. */
#include "harness.h"
#include "tfn_internal.h"
#include "varint_wide.h"

#include <stdint.h>
#include <stdlib.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A value whose varint has `len` bytes (1..10). */
static uint64_t value_of_len(unsigned len)
{
    if (len >= 10)
        return (uint64_t)1 << 63 | next_rand();
    uint64_t lo = len == 1 ? 0 : (uint64_t)1 << (7 * (len - 1));
    uint64_t span = ((uint64_t)1 << (7 * len)) - lo;
    return lo + next_rand() % span;
}

/* Lengths drawn from `mix`: 0 token ids (1-3 bytes), 1 any 1-4, 2 mostly short with
 * a few 5-10, 3 one byte only, 4 exactly 4 bytes. */
static unsigned draw_len(int mix)
{
    uint64_t r = next_rand() % 100;
    switch (mix) {
    case 0: return r < 38 ? 1 : r < 88 ? 2 : 3;
    case 1: return 1 + (unsigned)(r % 4);
    case 2: return r < 3 ? 5 + (unsigned)(next_rand() % 6) : 1 + (unsigned)(r % 3);
    case 3: return 1;
    default: return 4;
    }
}

/* Decodes with the block decoder and then the reference for the rest; checks every
 * value and where the pointer stopped. */
static void check_run(const uint64_t *vals, size_t n, size_t max)
{
    uint8_t *enc = malloc(n * 10 + 1);
    REQUIRE(enc);
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len = (size_t)(tfn__put_varint(enc + len, vals[i]) - enc);
    uint8_t *run = malloc(len ? len : 1); /* ends exactly where the run ends */
    int64_t *out = malloc((max ? max : 1) * sizeof *out);
    if (!run || !out) {
        free(enc);
        free(run);
        free(out);
        REQUIRE(0);
    }
    memcpy(run, enc, len);
    const uint8_t *p = run, *end = run + len;
    size_t done = tfn__varints_wide(&p, end, out, max);
    CHECK(done <= max);
    /* p must sit right after the done-th varint */
    const uint8_t *ref = run;
    for (size_t i = 0; i < done && ref; i++) {
        uint64_t v = 0;
        ref = tfn__get_varint(ref, end, &v);
        if ((uint64_t)out[i] != v) {
            CHECK_EQ_INT(out[i], (int64_t)v);
            break;
        }
    }
    CHECK(ref == p);
    for (size_t i = done; i < max && p; i++) {
        uint64_t v = 0;
        p = tfn__get_varint(p, end, &v);
        out[i] = (int64_t)v;
    }
    for (size_t i = 0; i < max; i++)
        if ((uint64_t)out[i] != vals[i]) {
            CHECK_EQ_INT(out[i], (int64_t)vals[i]);
            break;
        }
    free(enc);
    free(run);
    free(out);
}

static void test_mixes(void)
{
    uint64_t *vals = malloc(4000 * sizeof *vals);
    REQUIRE(vals);
    for (int mix = 0; mix <= 4; mix++)
        for (int round = 0; round < 40; round++) {
            size_t n = (size_t)(next_rand() % 4000);
            for (size_t i = 0; i < n; i++)
                vals[i] = value_of_len(draw_len(mix));
            check_run(vals, n, n);
            if (n)
                check_run(vals, n, (size_t)(next_rand() % n)); /* fewer wanted than held */
        }
    free(vals);
}

/* Every run length from 0 to 300 values (1 to 3 bytes), and 1-byte runs around the
 * block size, with max equal to the count. */
static void test_lengths(void)
{
    uint64_t vals[400] = {0};
    for (size_t n = 0; n <= 300; n++) {
        for (size_t i = 0; i < n; i++)
            vals[i] = value_of_len(draw_len(0));
        check_run(vals, n, n);
    }
    for (size_t n = 60; n <= 160; n++) {
        for (size_t i = 0; i < n; i++)
            vals[i] = value_of_len(1);
        check_run(vals, n, n);
    }
}

/* Inputs no block takes: 64 continuation bytes, a varint of 11 bytes. The decoder
 * stops before them, reading nothing past the end. */
static void test_invalid(void)
{
    uint8_t buf[200];
    int64_t out[200];
    memset(buf, 0x81, sizeof buf);
    const uint8_t *p = buf;
    CHECK_EQ_INT(tfn__varints_wide(&p, buf + sizeof buf, out, 200), 0);
    CHECK(p == buf);
    /* 40 one-byte values, then 11 continuation bytes and a final one, then more */
    memset(buf, 1, sizeof buf);
    memset(buf + 40, 0x80, 11);
    p = buf;
    size_t done = tfn__varints_wide(&p, buf + sizeof buf, out, 200);
    CHECK(done <= 40);
    CHECK(p == buf + done);
    for (size_t i = 0; i < done; i++)
        CHECK_EQ_INT(out[i], 1);
}

int main(void)
{
    printf("block varint decoder %s on this CPU\n",
           tfn__varints_wide_available() ? "available" : "not available (scalar only)");
    RUN(test_mixes);
    RUN(test_lengths);
    RUN(test_invalid);
    return harness_finish();
}

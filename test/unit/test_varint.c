/* test_varint.c - the SIMD varint code (lib/example/varint_x86.c) against the portable
 * code and a naive reference, at every level this CPU runs: the committed tables
 * (recomputed here), counts of random, truncated and overlong runs of every length,
 * decoding of valid runs (values, where decoding stops, nothing written past `max`),
 * and whole parses giving the same outputs and errors at every level. Inputs sit at
 * the very end of malloc'ed blocks, so that a read past them fails under ASan. */
#include "harness.h"
#include "tfnano.h"

#include "../../lib/example/parse_internal.h"
#include "../../lib/example/varint_internal.h"
#include "../../lib/example/varint_tables.h"

#include <stdbool.h>
#include <stdlib.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    /* splitmix64 */
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static size_t below(size_t n)
{
    return n ? (size_t)(rnd() % n) : 0;
}

/* ---- references ---- */

static bool ref_count(const uint8_t *p, size_t n, size_t *count)
{
    size_t c = 0, run = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < 0x80) {
            c++;
            run = 0;
        } else if (++run >= 10) {
            return false;
        }
    }
    *count = c;
    return run == 0;
}

/* Values and end offsets of the varints of a valid run (bits past 64 dropped). */
static void ref_decode(const uint8_t *p, size_t n, uint64_t *vals, size_t *ends)
{
    size_t k = 0;
    uint64_t v = 0;
    unsigned shift = 0;
    for (size_t i = 0; i < n; i++) {
        if (shift < 64)
            v |= (uint64_t)(p[i] & 0x7f) << shift;
        shift += 7;
        if (p[i] < 0x80) {
            vals[k] = v;
            ends[k++] = i + 1;
            v = 0;
            shift = 0;
        }
    }
}

static int levels(void)
{
    return tfn__simd_level();
}

/* ---- runs ---- */

/* A value whose varint has `len` bytes (1..10). */
static uint64_t value_of_len(size_t len)
{
    if (len >= 10)
        return (1ull << 63) | rnd();
    uint64_t lo = len == 1 ? 0 : 1ull << (7 * (len - 1));
    uint64_t span = (1ull << (7 * len)) - lo;
    return lo + rnd() % span;
}

/* Writes `count` varints into buf (at most cap bytes); the length mix depends on
 * `mode`: 0 token ids (1-3 bytes), 1 one-byte runs with a few longer, 2 any length
 * 1-10, 3 mostly 3-5 bytes, 4 two-byte values. Returns the bytes written. */
static size_t gen_run(uint8_t *buf, size_t cap, size_t count, int mode)
{
    size_t n = 0;
    for (size_t k = 0; k < count && n + 10 <= cap; k++) {
        size_t len;
        switch (mode) {
        case 0: len = 1 + below(3); break;
        case 1: len = below(16) ? 1 : 1 + below(3); break;
        case 2: len = 1 + below(10); break;
        case 3: len = 3 + below(3); break;
        default: len = 2; break;
        }
        n = (size_t)(tfn__put_varint(buf + n, value_of_len(len)) - buf);
    }
    return n;
}

/* A copy of bytes at the end of a block of exactly their size. */
static uint8_t *at_end(const uint8_t *src, size_t n)
{
    uint8_t *p = malloc(n ? n : 1);
    if (n)
        memcpy(p, src, n);
    return p;
}

/* ---- tables ---- */

static void test_tables(void)
{
    for (unsigned idx = 0; idx < 128; idx++) {
        int fin[7];
        for (int k = 0; k < 7; k++)
            fin[k] = (idx >> k) & 1;
        int carry = fin[2] ? 0 : fin[1] ? 1 : fin[0] ? 2 : 3;
        uint8_t shuffle[16];
        memset(shuffle, 0x80, 16);
        unsigned count = 0;
        bool valid = carry < 3;
        int len = carry;
        for (int j = 0; j < 4 && valid; j++) {
            len++;
            if (!fin[3 + j])
                continue;
            if (len > 3) {
                valid = false;
                break;
            }
            for (int t = 0; t < len; t++)
                shuffle[4 * count + (unsigned)t] = (uint8_t)(4 + j - len + 1 + t);
            count++;
            len = 0;
        }
        if (!count)
            valid = false;
        if (!valid) {
            CHECK_EQ_INT(tfn__varint_win_count[idx], 0xff);
            continue;
        }
        CHECK_EQ_INT(tfn__varint_win_count[idx], count);
        CHECK_MEM(tfn__varint_win_shuffle[idx], 16, shuffle, 16);
    }
}

/* ---- counting ---- */

static void check_count(const uint8_t *src, size_t n)
{
    uint8_t *p = at_end(src, n);
    size_t want = 0, got = 0;
    bool ok = ref_count(p, n, &want);
    for (int level = 0; level <= levels(); level++) {
        got = 12345;
        bool r = tfn__count_varints_at(level, p, p + n, &got);
        CHECK_EQ_INT(r, ok);
        if (r && ok)
            CHECK_EQ_INT(got, want);
    }
    free(p);
}

static void test_count(void)
{
    uint8_t buf[1200];
    /* every length 0..300 of valid runs of each mix, then damaged copies */
    for (size_t len = 0; len <= 300; len++) {
        for (int mode = 0; mode < 5; mode++) {
            size_t n = gen_run(buf, sizeof buf, 400, mode);
            if (n > len)
                n = len; /* often ends inside a varint: truncated */
            check_count(buf, n);
            if (!n)
                continue;
            uint8_t keep = buf[n - 1];
            buf[n - 1] &= 0x7f; /* a whole run */
            check_count(buf, n);
            size_t at = below(n);
            uint8_t old = buf[at];
            buf[at] ^= 0x80; /* one byte's continuation bit flipped */
            check_count(buf, n);
            buf[at] = old;
            buf[n - 1] = keep;
        }
    }
    /* runs of continuation bytes (overlong varints: 10 is the limit) of every length at
     * every position of runs that cross 16- and 32-byte blocks */
    for (size_t len = 1; len <= 100; len++) {
        for (size_t run = 1; run <= 14 && run <= len; run++) {
            for (size_t at = 0; at + run <= len; at += 1 + below(3)) {
                for (size_t i = 0; i < len; i++)
                    buf[i] = (uint8_t)below(0x80);
                memset(buf + at, 0x80 | (int)below(0x80), run);
                for (size_t i = at; i < at + run; i++)
                    buf[i] |= 0x80;
                check_count(buf, len);
            }
        }
    }
    /* random bytes */
    for (int t = 0; t < 3000; t++) {
        size_t n = below(200);
        unsigned bias = (unsigned)below(4);
        for (size_t i = 0; i < n; i++)
            buf[i] = (uint8_t)(below(4) < bias ? 0x80 | rnd() : rnd());
        check_count(buf, n);
    }
}

/* ---- decoding ---- */

/* Decodes a valid run with the SIMD decoder at `level` into an output of exactly `max`
 * values, then checks values, the stop position and the count. */
static void check_decode_level(int level, const uint8_t *p, size_t n, const uint64_t *vals,
                               const size_t *ends, size_t count, size_t max, bool wide)
{
    void *out = malloc((max ? max : 1) * (wide ? 8 : 4));
    const uint8_t *q = p;
    size_t got = wide ? tfn__decode_varints64_at(level, &q, p + n, out, max)
                      : tfn__decode_varints32_at(level, &q, p + n, out, max);
    CHECK(got <= max);
    CHECK(got <= count);
    size_t at = got ? ends[got - 1] : 0;
    CHECK_EQ_INT(q - p, at);
    for (size_t i = 0; i < got; i++) {
        uint64_t v = wide ? (uint64_t)((int64_t *)out)[i] : (uint64_t)(uint32_t)((int32_t *)out)[i];
        if (v != vals[i]) {
            fprintf(stderr, "level %d wide %d value %zu of %zu: %llu, want %llu\n", level, wide,
                    i, count, (unsigned long long)v, (unsigned long long)vals[i]);
            CHECK(v == vals[i]);
            break;
        }
    }
    /* it went on while it could: at least 16 bytes and 16 outputs left mean the next
     * varint is one it does not take (4 bytes or more) */
    if (level && got < max && max - got >= 16 && n - at >= 16 + 16)
        CHECK(ends[got] - at >= 4);
    free(out);
}

static void check_decode(const uint8_t *src, size_t n)
{
    uint8_t *p = at_end(src, n);
    size_t count;
    if (!ref_count(p, n, &count)) {
        free(p);
        return;
    }
    uint64_t *vals = malloc((count + 1) * sizeof *vals);
    size_t *ends = malloc((count + 1) * sizeof *ends);
    ref_decode(p, n, vals, ends);
    for (int level = 1; level <= levels(); level++) {
        size_t maxes[4] = {count, count ? below(count + 1) : 0, count > 3 ? count - 3 : 0,
                           count / 2};
        for (int m = 0; m < 4; m++) {
            check_decode_level(level, p, n, vals, ends, count, maxes[m], false);
            check_decode_level(level, p, n, vals, ends, count, maxes[m], true);
        }
    }
    free(vals);
    free(ends);
    free(p);
}

static void test_decode(void)
{
    uint8_t buf[4200];
    for (size_t count = 0; count <= 200; count++)
        for (int mode = 0; mode < 5; mode++)
            check_decode(buf, gen_run(buf, sizeof buf, count, mode));
    /* long runs: ids then padding, as W1 rows */
    for (int t = 0; t < 200; t++) {
        size_t n = gen_run(buf, 2048, below(600), (int)below(2));
        size_t pad = below(400);
        memset(buf + n, 1, pad);
        check_decode(buf, n + pad);
        /* a long varint somewhere in it */
        if (n + pad > 8) {
            size_t at = below(n + pad - 8);
            uint8_t save[6];
            memcpy(save, buf + at, 6);
            /* replace whole varints from `at` on: find the next start */
            while (at > 0 && buf[at - 1] >= 0x80)
                at--;
            size_t len = 4 + below(3);
            tfn__put_varint(buf + at, value_of_len(len));
            /* what followed may now be cut: keep it a valid run by re-terminating */
            size_t total = n + pad;
            if (at + len <= total) {
                check_decode(buf, at + len);
                check_decode(buf, total);
            }
            memcpy(buf + at, save, 6);
        }
    }
}

/* ---- encoding ---- */

/* tfn__put_int64s_at at every level writes the portable bytes, into a block of exactly
 * their size (a store past it fails under ASan). */
static void test_encode(void)
{
    static int64_t v[1200];
    for (int t = 0; t < 3000; t++) {
        size_t n = t < 300 ? (size_t)t : below(1200);
        int mode = (int)below(6);
        for (size_t i = 0; i < n; i++) {
            size_t len = mode == 0   ? 1 + below(3)
                         : mode == 1 ? (below(8) ? 1 : 1 + below(4))
                         : mode == 2 ? 1 + below(10)
                         : mode == 3 ? 4
                                     : 1 + below(4);
            v[i] = (int64_t)value_of_len(len);
            if (mode == 5 && below(50) == 0)
                v[i] = -(int64_t)below(1000) - 1; /* negative: 10 bytes */
        }
        size_t size = (size_t)tfn__int64s_payload(v, n);
        uint8_t *want = malloc(size ? size : 1);
        CHECK_EQ_INT(tfn__put_int64s(want, v, n) - want, size);
        for (int level = 1; level <= levels(); level++) {
            uint8_t *got = malloc(size ? size : 1);
            CHECK_EQ_INT(tfn__put_int64s_at(level, got, v, n) - got, size);
            if (memcmp(got, want, size) != 0) {
                fprintf(stderr, "level %d, %zu values (mode %d): bytes differ\n", level, n, mode);
                CHECK(false);
            }
            free(got);
        }
        free(want);
    }
}

/* ---- whole parses at every level ---- */

static size_t put_len_field(uint8_t *p, uint8_t tag, const uint8_t *data, size_t len)
{
    uint8_t *q = p;
    *q++ = tag;
    q = tfn__put_varint(q, len);
    memcpy(q, data, len);
    return (size_t)(q - p) + len;
}

/* An Example with int64 features "a" (packed) and "b" (packed or unpacked) of random
 * values. Returns its size. */
static size_t gen_example(uint8_t *out, size_t count_a, size_t count_b, int mode, bool unpacked_b)
{
    static uint8_t run[8192], list[8300], feat[8400], entry[8500], feats[17200];
    size_t nf = 0;
    for (int f = 0; f < 2; f++) {
        size_t count = f ? count_b : count_a;
        size_t n = 0;
        if (f && unpacked_b) {
            for (size_t k = 0; k < count && n + 11 <= 4000; k++) {
                run[n++] = 0x08;
                n = (size_t)(tfn__put_varint(run + n, value_of_len(1 + below(10))) - run);
            }
            memcpy(list, run, n);
        } else {
            n = gen_run(run, 4000, count, mode);
            n = put_len_field(list, 0x0a, run, n);
        }
        size_t nl = put_len_field(feat, 0x1a, list, n);
        const char *key = f ? "b" : "a";
        size_t ne = put_len_field(entry, 0x0a, (const uint8_t *)key, 1);
        ne += put_len_field(entry + ne, 0x12, feat, nl);
        nf += put_len_field(feats + nf, 0x0a, entry, ne);
    }
    return put_len_field(out, 0x0a, feats, nf);
}

static void parse_at(int level, const tfn_spec *spec, const tfn_bytes *recs, size_t n, int *rc,
                     tfn_error *err, int64_t *a64, int32_t *b32, size_t cap, size_t *rows)
{
    tfn_parser *p = tfn_parser_new(spec, NULL);
    p->simd = level;
    tfn_output o[2];
    memset(o, 0, sizeof o);
    o[0] = (tfn_output){.values = a64, .capacity = cap, .max_rows = -1};
    o[1] = (tfn_output){.values = b32, .capacity = cap, .max_rows = -1};
    memset(err, 0, sizeof *err);
    *rc = tfn_parser_scan(p, recs, n, NULL, TFN_PARSE_BATCH, err);
    if (*rc == TFN_OK) {
        rows[0] = tfn_parser_max_rows(p, 0);
        rows[1] = tfn_parser_max_rows(p, 1);
        *rc = tfn_parser_fill(p, o, err);
    }
    tfn_parser_free(p);
}

static void test_parse_levels(void)
{
    int64_t shape[1] = {1};
    int64_t zero = 0;
    tfn_feature_config cfg[2] = {
        {.key = "a", .key_len = 1, .type = TFN_FIXED_LEN_SEQUENCE, .dtype = TFN_INT64,
         .shape = shape, .rank = 1, .allow_missing = 1, .default_value = &zero, .default_count = 1},
        {.key = "b", .key_len = 1, .type = TFN_FIXED_LEN_SEQUENCE, .dtype = TFN_INT64,
         .out_dtype = TFN_INT32, .shape = shape, .rank = 1, .allow_missing = 1},
    };
    tfn_spec *spec;
    tfn_error err;
    REQUIRE(tfn_spec_new(cfg, 2, NULL, &spec, &err) == TFN_OK);
    enum { N = 8, CAP = N * 700 };
    static uint8_t data[N][17400];
    static int64_t a_ref[CAP], a_got[CAP];
    static int32_t b_ref[CAP], b_got[CAP];
    for (int t = 0; t < 400; t++) {
        tfn_bytes recs[N];
        for (size_t i = 0; i < N; i++) {
            int mode = (int)below(5);
            size_t len = gen_example(data[i], below(600), below(600), mode, below(6) == 0);
            if (below(8) == 0 && len > 4) /* damage: a byte flipped or the record cut */
                data[i][4 + below(len - 4)] ^= (uint8_t)(below(2) ? 0x80 : rnd());
            if (below(12) == 0)
                len = below(len + 1);
            recs[i] = (tfn_bytes){data[i], len};
        }
        int rc_ref, rc;
        tfn_error err_ref;
        size_t rows_ref[2] = {0, 0}, rows[2] = {0, 0};
        memset(a_ref, 0, sizeof a_ref);
        memset(b_ref, 0, sizeof b_ref);
        parse_at(TFN__SIMD_NONE, spec, recs, N, &rc_ref, &err_ref, a_ref, b_ref, CAP, rows_ref);
        for (int level = 1; level <= levels(); level++) {
            memset(a_got, 0, sizeof a_got);
            memset(b_got, 0, sizeof b_got);
            parse_at(level, spec, recs, N, &rc, &err, a_got, b_got, CAP, rows);
            CHECK_EQ_INT(rc, rc_ref);
            CHECK_STR(err.msg, err_ref.msg);
            if (rc == TFN_OK && rc_ref == TFN_OK) {
                CHECK_EQ_INT(rows[0], rows_ref[0]);
                CHECK_EQ_INT(rows[1], rows_ref[1]);
                CHECK(memcmp(a_got, a_ref, sizeof a_ref) == 0);
                CHECK(memcmp(b_got, b_ref, sizeof b_ref) == 0);
            }
        }
    }
    tfn_spec_free(spec);
}

/* FixedLen features through tfn_parser_parse (which decodes them during the scan)
 * against scan + fill (which count first), at every level: same status, message and
 * values, including out-of-range int32 values, damaged runs and wrong counts. */
static void test_parse_fused(void)
{
    enum { N = 6, STRIDE_MAX = 300 };
    static uint8_t data[N][17400];
    static int64_t a_ref[N * STRIDE_MAX], a_got[N * STRIDE_MAX];
    static int32_t b_ref[N * STRIDE_MAX], b_got[N * STRIDE_MAX];
    for (int t = 0; t < 600; t++) {
        int64_t shape[1] = {(int64_t)(1 + below(STRIDE_MAX))};
        size_t stride = (size_t)shape[0];
        int64_t defaults[STRIDE_MAX];
        for (size_t k = 0; k < stride; k++)
            defaults[k] = (int64_t)k - 5;
        tfn_feature_config cfg[2] = {
            {.key = "a", .key_len = 1, .type = TFN_FIXED_LEN, .dtype = TFN_INT64,
             .shape = shape, .rank = 1},
            {.key = "b", .key_len = 1, .type = TFN_FIXED_LEN, .dtype = TFN_INT64,
             .out_dtype = TFN_INT32, .shape = shape, .rank = 1},
        };
        if (below(3) == 0) { /* "b" may be missing: its default */
            cfg[1].default_value = defaults;
            cfg[1].default_count = stride;
        }
        tfn_spec *spec;
        tfn_error err;
        REQUIRE(tfn_spec_new(cfg, 2, NULL, &spec, &err) == TFN_OK);
        tfn_bytes recs[N];
        for (size_t i = 0; i < N; i++) {
            int mode = (int)below(5);
            size_t ca = below(10) ? stride : below(STRIDE_MAX + 1);
            size_t cb = below(10) ? stride : below(STRIDE_MAX + 1);
            size_t len = gen_example(data[i], ca, cb, mode, below(8) == 0);
            if (below(10) == 0 && len > 4)
                data[i][4 + below(len - 4)] ^= (uint8_t)(below(2) ? 0x80 : rnd());
            if (below(20) == 0)
                len = below(len + 1);
            recs[i] = (tfn_bytes){data[i], len};
        }
        size_t n = 1 + below(N);
        for (int level = 0; level <= levels(); level++) {
            tfn_parser *p = tfn_parser_new(spec, NULL);
            p->simd = level;
            tfn_output o[2] = {{.values = a_ref, .capacity = n * stride, .max_rows = -1},
                               {.values = b_ref, .capacity = n * stride, .max_rows = -1}};
            tfn_error err_ref;
            int rc_ref = tfn_parser_scan(p, recs, n, NULL, TFN_PARSE_BATCH, &err_ref);
            if (rc_ref == TFN_OK)
                rc_ref = tfn_parser_fill(p, o, &err_ref);
            o[0].values = a_got;
            o[1].values = b_got;
            int rc = tfn_parser_parse(p, recs, n, NULL, TFN_PARSE_BATCH, o, &err);
            CHECK_EQ_INT(rc, rc_ref);
            CHECK_STR(err.msg, rc_ref ? err_ref.msg : err.msg);
            if (rc == TFN_OK && rc_ref == TFN_OK) {
                CHECK(memcmp(a_got, a_ref, n * stride * sizeof *a_ref) == 0);
                CHECK(memcmp(b_got, b_ref, n * stride * sizeof *b_ref) == 0);
            }
            /* an output too small for the batch is not decoded into during the scan */
            o[0].capacity = n * stride - 1;
            rc = tfn_parser_parse(p, recs, n, NULL, TFN_PARSE_BATCH, o, &err);
            CHECK(rc != TFN_OK);
            tfn_parser_free(p);
        }
        tfn_spec_free(spec);
    }
}

int main(void)
{
    printf("SIMD level of this CPU: %d\n", levels());
    RUN(test_tables);
    RUN(test_count);
    RUN(test_decode);
    RUN(test_encode);
    RUN(test_parse_levels);
    RUN(test_parse_fused);
    return harness_finish();
}

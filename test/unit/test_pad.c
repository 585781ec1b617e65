/* test_pad.c - tfn_pad against a per-element reference (every side combination, every
 * value/output type pair, many seeds), the spec's §6 cases 42-50 that apply to numeric
 * ragged input, edge shapes, masks and lengths, and every bad input's error. */
#include "harness.h"
#include "tfnano.h"

#include <math.h>
#include <stdlib.h>

static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static const int dtypes[3] = {TFN_INT32, TFN_INT64, TFN_FLOAT32};

static size_t esize(int dtype)
{
    return dtype == TFN_INT64 ? 8 : 4;
}

/* Element i of a typed buffer as a double (exact for the test's values). */
static double load(const void *p, int dtype, size_t i)
{
    switch (dtype) {
    case TFN_INT32: return ((const int32_t *)p)[i];
    case TFN_INT64: return (double)((const int64_t *)p)[i];
    default: return ((const float *)p)[i];
    }
}

/* Stores v converted as numpy would (truncation toward zero for integers). */
static void store(void *p, int dtype, size_t i, double v)
{
    switch (dtype) {
    case TFN_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case TFN_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
    default: ((float *)p)[i] = (float)v; break;
    }
}

/* The straightforward algorithm: fill everything, then write each kept element. */
static void reference(const tfn_ragged *in, const tfn_pad_options *o, int out_dtype,
                      size_t width, void *out, uint8_t *mask, int64_t *lengths)
{
    size_t limit = o->maxlen < 0 ? (size_t)-1 : (size_t)o->maxlen;
    for (size_t i = 0; i < in->nrows * width; i++) {
        store(out, out_dtype, i, o->value);
        mask[i] = 0;
    }
    for (size_t r = 0; r < in->nrows; r++) {
        size_t a = (size_t)in->offsets[r], len = (size_t)in->offsets[r + 1] - a;
        size_t keep = len < limit ? len : limit;
        lengths[r] = (int64_t)keep;
        for (size_t j = 0; j < keep; j++) {
            size_t src = o->truncating == TFN_PAD_PRE ? a + len - keep + j : a + j;
            size_t col = o->padding == TFN_PAD_PRE ? width - keep + j : j;
            store(out, out_dtype, r * width + col, load(in->values, in->dtype, src));
            mask[r * width + col] = 1;
        }
    }
}

/* Random ragged input: nrows rows of 0..maxrow values (some empty), values that fit
 * every output type, offsets starting at `base` (rows need not start at 0). */
typedef struct ragged_buf {
    tfn_ragged in;
    void *values;
    int64_t *offsets;
} ragged_buf;

static void make_ragged(ragged_buf *b, int dtype, size_t nrows, size_t maxrow, size_t base)
{
    b->offsets = malloc((nrows + 1) * sizeof(int64_t));
    size_t total = base;
    b->offsets[0] = (int64_t)base;
    for (size_t r = 0; r < nrows; r++) {
        total += rnd() % 5 == 0 ? 0 : (size_t)(rnd() % (maxrow + 1));
        b->offsets[r + 1] = (int64_t)total;
    }
    b->values = malloc(total * esize(dtype) + 8);
    for (size_t i = 0; i < total; i++) {
        int64_t v = (int64_t)(rnd() % 100000) - 50000;
        if (dtype == TFN_FLOAT32)
            store(b->values, dtype, i, (double)v / 8.0); /* exact in float32 */
        else
            store(b->values, dtype, i, (double)v);
    }
    b->in = (tfn_ragged){b->values, dtype, total, b->offsets, nrows};
}

static void free_ragged(ragged_buf *b)
{
    free(b->values);
    free(b->offsets);
}

/* Pads with tfn_pad and with the reference; 1 when everything matches. */
static int pad_matches(const tfn_ragged *in, const tfn_pad_options *o, int out_dtype)
{
    tfn_error err;
    size_t width = 0;
    if (tfn_pad_width(in, o, &width, &err) != TFN_OK) {
        fprintf(stderr, "tfn_pad_width: %s\n", err.msg);
        return 0;
    }
    size_t cells = in->nrows * width, es = esize(out_dtype);
    void *got = malloc(cells * es + 8), *want = malloc(cells * es + 8);
    uint8_t *gm = malloc(cells + 1), *wm = malloc(cells + 1);
    int64_t *gl = malloc(in->nrows * 8 + 8), *wl = malloc(in->nrows * 8 + 8);
    memset(got, 0xAB, cells * es);
    memset(gm, 0xAB, cells);
    int rc = tfn_pad(in, o, got, out_dtype, width, gm, gl, &err);
    reference(in, o, out_dtype, width, want, wm, wl);
    int ok = rc == TFN_OK && memcmp(got, want, cells * es) == 0 &&
             memcmp(gm, wm, cells) == 0 && memcmp(gl, wl, in->nrows * 8) == 0;
    if (!ok)
        fprintf(stderr, "mismatch: rc %d (%s), %zu rows, width %zu, in %d out %d, pad %d "
                "trunc %d maxlen %lld multiple %lld value %g\n", rc, rc ? err.msg : "",
                in->nrows, width, in->dtype, out_dtype, o->padding, o->truncating,
                (long long)o->maxlen, (long long)o->pad_to_multiple_of, o->value);
    /* Without mask and lengths: the same values. */
    if (ok && cells) {
        memset(got, 0xCD, cells * es);
        ok = tfn_pad(in, o, got, out_dtype, width, NULL, NULL, &err) == TFN_OK &&
             memcmp(got, want, cells * es) == 0;
    }
    free(got);
    free(want);
    free(gm);
    free(wm);
    free(gl);
    free(wl);
    return ok;
}

static void test_random_against_reference(void)
{
    const int64_t maxlens[] = {TFN_PAD_MAXLEN_UNSET, 0, 1, 3, 17, 64, 200};
    const int64_t multiples[] = {0, 1, 8};
    const double values[] = {0.0, -1.0, 7.75, -0.0};
    int cases = 0, failures = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        rng_state = seed * 7919;
        for (int di = 0; di < 3; di++) {
            ragged_buf b;
            make_ragged(&b, dtypes[di], (size_t)(rnd() % 60), 80, (size_t)(rnd() % 3));
            for (int oi = 0; oi < 3; oi++)
                for (int pad = 0; pad < 2; pad++)
                    for (int trunc = 0; trunc < 2; trunc++)
                        for (size_t m = 0; m < sizeof maxlens / sizeof *maxlens; m++) {
                            tfn_pad_options o;
                            tfn_pad_options_init(&o);
                            o.padding = pad;
                            o.truncating = trunc;
                            o.maxlen = maxlens[m];
                            o.pad_to_multiple_of = multiples[rnd() % 3];
                            o.value = values[rnd() % 4];
                            cases++;
                            if (!pad_matches(&b.in, &o, dtypes[oi]))
                                failures++;
                        }
            free_ragged(&b);
        }
    }
    CHECK(cases == 12 * 3 * 3 * 4 * 7);
    CHECK_EQ_INT(failures, 0);
}

/* Pads int32 rows with the given options into an int32 output; returns the width. */
static size_t pad_i32(const int32_t *values, size_t count, const int64_t *offsets, size_t n,
                      const tfn_pad_options *o, int32_t *out, uint8_t *mask, int64_t *lens)
{
    tfn_ragged in = {values, TFN_INT32, count, offsets, n};
    tfn_error err;
    size_t width = 999;
    if (tfn_pad_width(&in, o, &width, &err) != TFN_OK) {
        fprintf(stderr, "width: %s\n", err.msg);
        return 999;
    }
    if (tfn_pad(&in, o, out, TFN_INT32, width, mask, lens, &err) != TFN_OK) {
        fprintf(stderr, "pad: %s\n", err.msg);
        return 999;
    }
    return width;
}

/* Case 42: [[1],[2,3],[4,5,6]] with keras defaults and maxlen 2. */
static void test_case42_keras_defaults(void)
{
    const int32_t v[] = {1, 2, 3, 4, 5, 6};
    const int64_t off[] = {0, 1, 3, 6};
    int32_t out[9];
    tfn_pad_options o;
    tfn_pad_options_init(&o);
    CHECK_EQ_INT(pad_i32(v, 6, off, 3, &o, out, NULL, NULL), 3);
    const int32_t want[] = {0, 0, 1, 0, 2, 3, 4, 5, 6};
    CHECK_MEM(out, sizeof want, want, sizeof want);
    o.padding = TFN_PAD_POST;
    CHECK_EQ_INT(pad_i32(v, 6, off, 3, &o, out, NULL, NULL), 3);
    const int32_t post[] = {1, 0, 0, 2, 3, 0, 4, 5, 6};
    CHECK_MEM(out, sizeof post, post, sizeof post);
    tfn_pad_options_init(&o);
    o.maxlen = 2;
    CHECK_EQ_INT(pad_i32(v, 6, off, 3, &o, out, NULL, NULL), 2);
    const int32_t m2[] = {0, 1, 2, 3, 5, 6};
    CHECK_MEM(out, sizeof m2, m2, sizeof m2);
    o.truncating = TFN_PAD_POST;
    pad_i32(v, 6, off, 3, &o, out, NULL, NULL);
    const int32_t m2t[] = {0, 1, 2, 3, 4, 5};
    CHECK_MEM(out, sizeof m2t, m2t, sizeof m2t);
    o.padding = TFN_PAD_POST;
    pad_i32(v, 6, off, 3, &o, out, NULL, NULL);
    const int32_t m2tp[] = {1, 0, 2, 3, 4, 5};
    CHECK_MEM(out, sizeof m2tp, m2tp, sizeof m2tp);
}

/* Case 43: zero rows with maxlen 3 -> (0, 3); two empty rows -> (2, 0);
 * [[],[1,2]] with maxlen 3 -> [[0,0,0],[0,1,2]]. */
static void test_case43_empty(void)
{
    tfn_pad_options o;
    tfn_pad_options_init(&o);
    o.maxlen = 3;
    tfn_ragged none = {NULL, TFN_INT32, 0, NULL, 0};
    size_t width = 0;
    tfn_error err;
    CHECK_EQ_INT(tfn_pad_width(&none, &o, &width, &err), TFN_OK);
    CHECK_EQ_INT(width, 3);
    CHECK_EQ_INT(tfn_pad(&none, &o, NULL, TFN_INT32, 3, NULL, NULL, &err), TFN_OK);
    /* Zero rows, maxlen unset: width 0 (keras raises; documented difference). */
    CHECK_EQ_INT(tfn_pad_width(&none, NULL, &width, &err), TFN_OK);
    CHECK_EQ_INT(width, 0);

    const int64_t off2[] = {0, 0, 0};
    tfn_ragged empty = {NULL, TFN_INT64, 0, off2, 2};
    CHECK_EQ_INT(tfn_pad_width(&empty, NULL, &width, &err), TFN_OK);
    CHECK_EQ_INT(width, 0);
    int64_t lens[2] = {9, 9};
    CHECK_EQ_INT(tfn_pad(&empty, NULL, NULL, TFN_INT64, 0, NULL, lens, &err), TFN_OK);
    CHECK(lens[0] == 0 && lens[1] == 0);

    const int32_t v[] = {1, 2};
    const int64_t off[] = {0, 0, 2};
    int32_t out[6];
    uint8_t mask[6];
    CHECK_EQ_INT(pad_i32(v, 2, off, 2, &o, out, mask, lens), 3);
    const int32_t want[] = {0, 0, 0, 0, 1, 2};
    const uint8_t wmask[] = {0, 0, 0, 0, 1, 1};
    CHECK_MEM(out, sizeof want, want, sizeof want);
    CHECK_MEM(mask, 6, wmask, 6);
    CHECK(lens[0] == 0 && lens[1] == 2);
}

/* Case 44: floats into int32 truncate toward zero; a fill value 0.5 becomes 0. */
static void test_case44_conversions(void)
{
    const float v[] = {1.7f, -1.7f, 2.5f};
    const int64_t off[] = {0, 3};
    tfn_ragged in = {v, TFN_FLOAT32, 3, off, 1};
    int32_t out[3];
    tfn_error err;
    CHECK_EQ_INT(tfn_pad(&in, NULL, out, TFN_INT32, 3, NULL, NULL, &err), TFN_OK);
    CHECK(out[0] == 1 && out[1] == -1 && out[2] == 2);
    int64_t out64[3];
    CHECK_EQ_INT(tfn_pad(&in, NULL, out64, TFN_INT64, 3, NULL, NULL, &err), TFN_OK);
    CHECK(out64[0] == 1 && out64[1] == -1 && out64[2] == 2);

    const int32_t iv[] = {1, 2, 3};
    const int64_t ioff[] = {0, 1, 3};
    tfn_pad_options o;
    tfn_pad_options_init(&o);
    o.value = 0.5;
    int32_t o2[4];
    CHECK_EQ_INT(pad_i32(iv, 3, ioff, 2, &o, o2, NULL, NULL), 2);
    const int32_t want[] = {0, 1, 2, 3};
    CHECK_MEM(o2, sizeof want, want, sizeof want);
    /* float output keeps the fraction of the fill value */
    tfn_ragged iin = {iv, TFN_INT32, 3, ioff, 2};
    float f[4];
    CHECK_EQ_INT(tfn_pad(&iin, &o, f, TFN_FLOAT32, 2, NULL, NULL, &err), TFN_OK);
    CHECK(f[0] == 0.5f && f[1] == 1.0f && f[2] == 2.0f && f[3] == 3.0f);
    /* int64 values beyond 2^24 round to nearest float32 as numpy does */
    const int64_t big[] = {16777217, -16777219};
    const int64_t boff[] = {0, 2};
    tfn_ragged bin = {big, TFN_INT64, 2, boff, 1};
    CHECK_EQ_INT(tfn_pad(&bin, NULL, f, TFN_FLOAT32, 2, NULL, NULL, &err), TFN_OK);
    CHECK(f[0] == 16777216.0f && f[1] == -16777220.0f);
}

/* Case 47: an unknown padding side is an error (in C, even when every row is empty);
 * the names parse as keras, HuggingFace and torch spell them. */
static void test_case47_sides(void)
{
    int side = -5;
    tfn_error err;
    CHECK_EQ_INT(tfn_pad_side_parse("pre", 3, "Padding", &side, &err), TFN_OK);
    CHECK_EQ_INT(side, TFN_PAD_PRE);
    CHECK_EQ_INT(tfn_pad_side_parse("left", 4, "Padding", &side, &err), TFN_OK);
    CHECK_EQ_INT(side, TFN_PAD_PRE);
    CHECK_EQ_INT(tfn_pad_side_parse("post", 4, "Padding", &side, &err), TFN_OK);
    CHECK_EQ_INT(side, TFN_PAD_POST);
    CHECK_EQ_INT(tfn_pad_side_parse("rightx", 5, "Padding", &side, &err), TFN_OK);
    CHECK_EQ_INT(side, TFN_PAD_POST);
    CHECK_EQ_INT(tfn_pad_side_parse("middle", 6, "Padding", &side, &err), TFN_E_INVALID_ARG);
    CHECK_STR(err.msg, "Padding type \"middle\" not understood; expected \"pre\", \"post\", "
                       "\"left\" or \"right\"");
    CHECK_EQ_INT(tfn_pad_side_parse("Pre", 3, "Truncating", &side, &err), TFN_E_INVALID_ARG);
    CHECK(strncmp(err.msg, "Truncating type \"Pre\" not understood", 36) == 0);
    CHECK_EQ_INT(tfn_pad_side_parse(NULL, 2, NULL, &side, &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_pad_side_parse("", 0, NULL, &side, &err), TFN_E_INVALID_ARG);

    const int64_t off[] = {0, 0, 0};
    tfn_ragged empty = {NULL, TFN_INT32, 0, off, 2};
    tfn_pad_options o;
    tfn_pad_options_init(&o);
    o.maxlen = 2;
    o.padding = 2; /* "middle" */
    int32_t out[4];
    CHECK_EQ_INT(tfn_pad(&empty, &o, out, TFN_INT32, 2, NULL, NULL, &err), TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "padding side 2 not understood") != NULL);
}

/* Case 48: maxlen 0 gives an [n, 0] output with either truncating side. */
static void test_case48_maxlen_zero(void)
{
    const int32_t v[] = {1, 2, 3};
    const int64_t off[] = {0, 2, 3};
    tfn_pad_options o;
    tfn_pad_options_init(&o);
    o.maxlen = 0;
    int64_t lens[2];
    for (int t = 0; t < 2; t++) {
        o.truncating = t;
        CHECK_EQ_INT(pad_i32(v, 3, off, 2, &o, NULL, NULL, lens), 0);
        CHECK(lens[0] == 0 && lens[1] == 0);
    }
    /* ... also with rounding: 0 stays 0 */
    o.pad_to_multiple_of = 8;
    CHECK_EQ_INT(pad_i32(v, 3, off, 2, &o, NULL, NULL, lens), 0);
}

/* Case 50: torch pad_sequence([t(3), t(5)], padding_value=-1, padding_side="left"). */
static void test_case50_torch_left(void)
{
    const int64_t v[] = {10, 11, 12, 20, 21, 22, 23, 24};
    const int64_t off[] = {0, 3, 8};
    tfn_ragged in = {v, TFN_INT64, 8, off, 2};
    tfn_pad_options o;
    tfn_pad_options_init(&o);
    o.padding = TFN_PAD_LEFT;
    o.value = -1;
    int64_t out[10];
    uint8_t mask[10];
    tfn_error err;
    CHECK_EQ_INT(tfn_pad(&in, &o, out, TFN_INT64, 5, mask, NULL, &err), TFN_OK);
    const int64_t want[] = {-1, -1, 10, 11, 12, 20, 21, 22, 23, 24};
    CHECK_MEM(out, sizeof want, want, sizeof want);
    const uint8_t wm[] = {0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
    CHECK_MEM(mask, 10, wm, 10);
}

/* pad_to_multiple_of rounds the width up; maxlen still limits the values kept. */
static void test_multiple_and_maxlen(void)
{
    const int32_t v[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    const int64_t off[] = {0, 3, 10};
    tfn_pad_options o;
    tfn_pad_options_init(&o);
    o.padding = TFN_PAD_POST;
    o.truncating = TFN_PAD_POST;
    o.pad_to_multiple_of = 4;
    int32_t out[16];
    int64_t lens[2];
    CHECK_EQ_INT(pad_i32(v, 10, off, 2, &o, out, NULL, lens), 8); /* longest 7 -> 8 */
    CHECK(lens[0] == 3 && lens[1] == 7);
    CHECK(out[7] == 0 && out[8] == 4 && out[14] == 10 && out[15] == 0);
    o.maxlen = 5; /* keeps 5 values, width 8 */
    CHECK_EQ_INT(pad_i32(v, 10, off, 2, &o, out, NULL, lens), 8);
    CHECK(lens[0] == 3 && lens[1] == 5);
    const int32_t row1[] = {4, 5, 6, 7, 8, 0, 0, 0};
    CHECK_MEM(out + 8, sizeof row1, row1, sizeof row1);
    o.maxlen = 8; /* already a multiple */
    CHECK_EQ_INT(pad_i32(v, 10, off, 2, &o, out, NULL, lens), 8);
}

/* Rows longer than maxlen, in every side combination, with the mask and lengths. */
static void test_long_rows_every_side(void)
{
    const int32_t v[] = {1, 2, 3, 4, 5, 6};
    const int64_t off[] = {0, 6};
    const int32_t want[4][3] = {{4, 5, 6}, {1, 2, 3}, {4, 5, 6}, {1, 2, 3}};
    tfn_pad_options o;
    tfn_pad_options_init(&o);
    o.maxlen = 3;
    for (int p = 0; p < 2; p++)
        for (int t = 0; t < 2; t++) {
            o.padding = p;
            o.truncating = t;
            int32_t out[3];
            uint8_t mask[3];
            int64_t len;
            CHECK_EQ_INT(pad_i32(v, 6, off, 1, &o, out, mask, &len), 3);
            CHECK_MEM(out, sizeof out, want[p * 2 + t], sizeof out);
            CHECK(mask[0] && mask[1] && mask[2] && len == 3);
        }
}

/* Out-of-range values: refused with the row, the position and the value named. */
static void test_out_of_range(void)
{
    tfn_error err;
    const int64_t v[] = {1, 2, 3, 4, (int64_t)1 << 40, 6};
    const int64_t off[] = {0, 2, 3, 6};
    tfn_ragged in = {v, TFN_INT64, 6, off, 3};
    int32_t out[9];
    CHECK_EQ_INT(tfn_pad(&in, NULL, out, TFN_INT32, 3, NULL, NULL, &err), TFN_E_OUT_OF_RANGE);
    CHECK_EQ_INT(err.code, TFN_E_OUT_OF_RANGE);
    CHECK_EQ_INT(err.record_index, 2);
    CHECK_STR(err.msg, "tfn_pad: row 2, position 1: value 1099511627776 does not fit int32 "
                       "output (keras would wrap it; tfnano refuses)");
    /* truncated away: not checked, fine */
    tfn_pad_options o;
    tfn_pad_options_init(&o);
    o.maxlen = 1;
    CHECK_EQ_INT(tfn_pad(&in, &o, out, TFN_INT32, 1, NULL, NULL, &err), TFN_OK);
    CHECK(out[0] == 2 && out[1] == 3 && out[2] == 6);
    const int64_t edge[] = {INT32_MIN, INT32_MAX, (int64_t)INT32_MIN - 1};
    const int64_t eoff[] = {0, 2, 3};
    tfn_ragged ein = {edge, TFN_INT64, 3, eoff, 2};
    CHECK_EQ_INT(tfn_pad(&ein, NULL, out, TFN_INT32, 2, NULL, NULL, &err), TFN_E_OUT_OF_RANGE);
    CHECK_EQ_INT(err.record_index, 1);
    CHECK(strstr(err.msg, "value -2147483649") != NULL);

    const float fv[] = {1.0f, NAN, INFINITY, 3e9f, -2147483648.0f, 2147483520.0f};
    for (int k = 1; k <= 3; k++) {
        float two[2] = {fv[0], fv[k]};
        const int64_t o2[] = {0, 2};
        tfn_ragged fin = {two, TFN_FLOAT32, 2, o2, 1};
        CHECK_EQ_INT(tfn_pad(&fin, NULL, out, TFN_INT32, 2, NULL, NULL, &err),
                     TFN_E_OUT_OF_RANGE);
        CHECK(strstr(err.msg, "row 0, position 1") != NULL);
    }
    const int64_t okoff[] = {0, 2};
    tfn_ragged fok = {fv + 4, TFN_FLOAT32, 2, okoff, 1};
    CHECK_EQ_INT(tfn_pad(&fok, NULL, out, TFN_INT32, 2, NULL, NULL, &err), TFN_OK);
    CHECK(out[0] == INT32_MIN && out[1] == 2147483520);
    const float f64[] = {INFINITY, -9.3e18f};
    tfn_ragged fin64 = {f64, TFN_FLOAT32, 2, okoff, 1};
    int64_t out64[2];
    CHECK_EQ_INT(tfn_pad(&fin64, NULL, out64, TFN_INT64, 2, NULL, NULL, &err),
                 TFN_E_OUT_OF_RANGE);
    const float f64ok[] = {-9.2e18f, 9.2e18f};
    tfn_ragged fin64c = {f64ok, TFN_FLOAT32, 2, okoff, 1};
    CHECK_EQ_INT(tfn_pad(&fin64c, NULL, out64, TFN_INT64, 2, NULL, NULL, &err), TFN_OK);
    CHECK(out64[0] == (int64_t)-9.2e18f);

    /* fill values */
    const int32_t iv[] = {1};
    const int64_t ioff[] = {0, 1};
    tfn_ragged iin = {iv, TFN_INT32, 1, ioff, 1};
    tfn_pad_options_init(&o);
    o.maxlen = 2;
    o.value = 3e9;
    CHECK_EQ_INT(tfn_pad(&iin, &o, out, TFN_INT32, 2, NULL, NULL, &err), TFN_E_OUT_OF_RANGE);
    CHECK(strstr(err.msg, "fill value 3000000000 does not fit int32") != NULL);
    o.value = NAN;
    CHECK_EQ_INT(tfn_pad(&iin, &o, out64, TFN_INT64, 2, NULL, NULL, &err), TFN_E_OUT_OF_RANGE);
    float fo[2];
    CHECK_EQ_INT(tfn_pad(&iin, &o, fo, TFN_FLOAT32, 2, NULL, NULL, &err), TFN_OK);
    CHECK(isnan(fo[0]) && fo[1] == 1.0f);
    o.value = 1e300;
    CHECK_EQ_INT(tfn_pad(&iin, &o, fo, TFN_FLOAT32, 2, NULL, NULL, &err), TFN_E_OUT_OF_RANGE);
    o.value = 3e9; /* fits int64 */
    CHECK_EQ_INT(tfn_pad(&iin, &o, out64, TFN_INT64, 2, NULL, NULL, &err), TFN_OK);
    CHECK(out64[0] == 3000000000 && out64[1] == 1);
}

/* Every bad argument: TFN_E_INVALID_ARG with a message naming what was expected. */
static void test_bad_input(void)
{
    tfn_error err;
    int32_t v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int32_t out[64];
    size_t width;
    struct {
        int64_t off[4];
        size_t count;
        const char *needle;
        uint64_t row;
    } bad_offsets[] = {
        {{-1, 2, 3, 4}, 8, "row 0: offsets[0] = -1 is negative; expected offsets >= 0", 0},
        {{0, 3, 2, 4}, 8, "row 1: offsets[1] = 3 > offsets[2] = 2; expected non-decreasing", 1},
        {{0, 2, 4, 9}, 8, "row 2: offsets[3] = 9 is beyond the 8 values; expected offsets <= "
                          "count", 2},
        {{0, 2, 4, 6}, 5, "row 2: offsets[3] = 6 is beyond the 5 values", 2},
    };
    for (size_t i = 0; i < sizeof bad_offsets / sizeof *bad_offsets; i++) {
        tfn_ragged in = {v, TFN_INT32, bad_offsets[i].count, bad_offsets[i].off, 3};
        CHECK_EQ_INT(tfn_pad_width(&in, NULL, &width, &err), TFN_E_INVALID_ARG);
        CHECK(strstr(err.msg, bad_offsets[i].needle) != NULL);
        CHECK_EQ_INT(err.record_index, bad_offsets[i].row);
        CHECK_EQ_INT(tfn_pad(&in, NULL, out, TFN_INT32, 4, NULL, NULL, &err),
                     TFN_E_INVALID_ARG);
        CHECK(strstr(err.msg, bad_offsets[i].needle) != NULL);
        /* ... also when maxlen is set (the width does not need the rows) */
        tfn_pad_options o;
        tfn_pad_options_init(&o);
        o.maxlen = 2;
        CHECK_EQ_INT(tfn_pad(&in, &o, out, TFN_INT32, 2, NULL, NULL, &err), TFN_E_INVALID_ARG);
    }

    const int64_t off[] = {0, 2, 5};
    tfn_ragged good = {v, TFN_INT32, 8, off, 2};
    tfn_pad_options o;
    struct {
        int64_t maxlen, multiple;
        int padding, truncating;
        const char *needle;
    } bad_opts[] = {
        {-2, 0, 0, 0, "maxlen -2 is negative; expected >= 0 or TFN_PAD_MAXLEN_UNSET (-1)"},
        {INT64_MIN, 0, 0, 0, "is negative"},
        {3, -8, 0, 0, "pad_to_multiple_of -8 is negative; expected >= 0"},
        {3, 0, 2, 0, "padding side 2 not understood; expected TFN_PAD_PRE (0) or "
                     "TFN_PAD_POST (1)"},
        {3, 0, 0, -1, "truncating side -1 not understood"},
    };
    for (size_t i = 0; i < sizeof bad_opts / sizeof *bad_opts; i++) {
        tfn_pad_options_init(&o);
        o.maxlen = bad_opts[i].maxlen;
        o.pad_to_multiple_of = bad_opts[i].multiple;
        o.padding = bad_opts[i].padding;
        o.truncating = bad_opts[i].truncating;
        CHECK_EQ_INT(tfn_pad_width(&good, &o, &width, &err), TFN_E_INVALID_ARG);
        CHECK(strstr(err.msg, bad_opts[i].needle) != NULL);
        CHECK_EQ_INT(tfn_pad(&good, &o, out, TFN_INT32, 3, NULL, NULL, &err),
                     TFN_E_INVALID_ARG);
        CHECK(strstr(err.msg, bad_opts[i].needle) != NULL);
    }

    /* NULL pointers with non-zero sizes, unknown dtypes, misalignment */
    tfn_ragged in = good;
    in.values = NULL;
    CHECK_EQ_INT(tfn_pad(&in, NULL, out, TFN_INT32, 3, NULL, NULL, &err), TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "values is NULL but count is 8") != NULL);
    in = good;
    in.offsets = NULL;
    CHECK_EQ_INT(tfn_pad(&in, NULL, out, TFN_INT32, 3, NULL, NULL, &err), TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "offsets is NULL but nrows is 2") != NULL);
    CHECK_EQ_INT(tfn_pad(NULL, NULL, out, TFN_INT32, 3, NULL, NULL, &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_pad_width(&good, NULL, NULL, &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_pad(&good, NULL, NULL, TFN_INT32, 3, NULL, NULL, &err), TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "out is NULL but nrows * width is 6") != NULL);
    CHECK_EQ_INT(tfn_pad(&good, NULL, out, TFN_FLOAT64, 3, NULL, NULL, &err),
                 TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "out dtype 5 is not supported") != NULL);
    in = good;
    in.dtype = TFN_BYTES;
    CHECK_EQ_INT(tfn_pad(&in, NULL, out, TFN_INT32, 3, NULL, NULL, &err), TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "values dtype 3 is not supported") != NULL);
    in = good;
    in.values = (const char *)v + 1;
    in.count = 4;
    CHECK_EQ_INT(tfn_pad(&in, NULL, out, TFN_INT32, 3, NULL, NULL, &err), TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "values is not aligned for int32") != NULL);
    CHECK_EQ_INT(tfn_pad(&good, NULL, (char *)out + 2, TFN_INT32, 3, NULL, NULL, &err),
                 TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "out is not aligned") != NULL);
    in = good;
    in.count = SIZE_MAX / 2;
    CHECK_EQ_INT(tfn_pad(&in, NULL, out, TFN_INT32, 3, NULL, NULL, &err), TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "overflows size_t") != NULL);

    /* width not the one the options give */
    CHECK_EQ_INT(tfn_pad(&good, NULL, out, TFN_INT32, 4, NULL, NULL, &err), TFN_E_INVALID_ARG);
    CHECK_STR(err.msg, "tfn_pad: width 4 does not match the 3 these rows and options give "
                       "(see tfn_pad_width)");

    /* nrows * width overflowing size_t (no buffer is touched before the check) */
    const int64_t zeros[] = {0, 0, 0, 0};
    tfn_ragged three = {NULL, TFN_INT32, 0, zeros, 3};
    tfn_pad_options_init(&o);
    o.maxlen = (int64_t)(SIZE_MAX / 2);
    CHECK_EQ_INT(tfn_pad_width(&three, &o, &width, &err), TFN_OK);
    CHECK_EQ_INT(tfn_pad(&three, &o, out, TFN_INT32, width, NULL, NULL, &err),
                 TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "nrows 3 * width") != NULL && strstr(err.msg, "overflows") != NULL);
    o.maxlen = INT64_MAX; /* rounded up to 2^63 + 1 */
    o.pad_to_multiple_of = 3;
    CHECK_EQ_INT(tfn_pad_width(&three, &o, &width, &err), TFN_OK);
    CHECK(width == (size_t)INT64_MAX + 2);
    CHECK_EQ_INT(tfn_pad(&three, &o, out, TFN_INT32, width, NULL, NULL, &err),
                 TFN_E_INVALID_ARG);

    /* a NULL err is fine */
    CHECK_EQ_INT(tfn_pad(&good, NULL, out, TFN_INT32, 4, NULL, NULL, NULL), TFN_E_INVALID_ARG);
}

/* Rows that start past offset 0 (a slice of a bigger buffer) and NULL options. */
static void test_offsets_not_from_zero(void)
{
    const float v[] = {9, 9, 1, 2, 3, 9};
    const int64_t off[] = {2, 3, 5};
    tfn_ragged in = {v, TFN_FLOAT32, 6, off, 2};
    float out[4];
    tfn_error err;
    size_t width;
    CHECK_EQ_INT(tfn_pad_width(&in, NULL, &width, &err), TFN_OK);
    CHECK_EQ_INT(width, 2);
    CHECK_EQ_INT(tfn_pad(&in, NULL, out, TFN_FLOAT32, 2, NULL, NULL, &err), TFN_OK);
    CHECK(out[0] == 0 && out[1] == 1 && out[2] == 2 && out[3] == 3);
}

/* tfn_pad_rows: the same bytes as tfn_pad over row views of the same data, rows of
 * mixed dtypes as each row padded alone, and its own errors. */
static void test_pad_rows(void)
{
    const int64_t maxlens[] = {TFN_PAD_MAXLEN_UNSET, 0, 3, 40};
    int failures = 0;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        rng_state = seed * 104729;
        for (int di = 0; di < 3; di++) {
            ragged_buf b;
            make_ragged(&b, dtypes[di], (size_t)(rnd() % 50), 70, (size_t)(rnd() % 3));
            size_t n = b.in.nrows, es = esize(dtypes[di]);
            tfn_pad_row *rows = malloc(n * sizeof *rows + 1);
            for (size_t r = 0; r < n; r++)
                rows[r] = (tfn_pad_row){(const char *)b.values + (size_t)b.offsets[r] * es,
                                        (size_t)(b.offsets[r + 1] - b.offsets[r]), dtypes[di]};
            for (int oi = 0; oi < 3; oi++)
                for (size_t m = 0; m < sizeof maxlens / sizeof *maxlens; m++) {
                    tfn_pad_options o;
                    tfn_pad_options_init(&o);
                    o.padding = (int)(rnd() % 2);
                    o.truncating = (int)(rnd() % 2);
                    o.maxlen = maxlens[m];
                    o.pad_to_multiple_of = (int64_t)(rnd() % 3) * 4;
                    o.value = rnd() % 2 ? 0.0 : -2.0;
                    tfn_error err;
                    size_t width;
                    CHECK_EQ_INT(tfn_pad_width(&b.in, &o, &width, &err), TFN_OK);
                    size_t cells = n * width, oes = esize(dtypes[oi]);
                    char *want = malloc(cells * oes + 8), *got = malloc(cells * oes + 8);
                    uint8_t *wm = malloc(cells + 1), *gm = malloc(cells + 1);
                    int64_t *wl = malloc(n * 8 + 8), *gl = malloc(n * 8 + 8);
                    memset(got, 0xAB, cells * oes);
                    int rc1 = tfn_pad(&b.in, &o, want, dtypes[oi], width, wm, wl, &err);
                    int rc2 = tfn_pad_rows(rows, n, &o, got, dtypes[oi], width, gm, gl, &err);
                    if (rc1 != TFN_OK || rc2 != TFN_OK || memcmp(want, got, cells * oes) ||
                        memcmp(wm, gm, cells) || memcmp(wl, gl, n * 8))
                        failures++;
                    /* the rows in two pieces, the width of the whole as maxlen */
                    size_t half = n / 2;
                    tfn_pad_options o2 = o;
                    if (o2.maxlen == TFN_PAD_MAXLEN_UNSET) {
                        size_t longest = 0;
                        for (size_t r = 0; r < n; r++)
                            longest = rows[r].count > longest ? rows[r].count : longest;
                        o2.maxlen = (int64_t)longest;
                    }
                    memset(got, 0xAB, cells * oes);
                    rc1 = tfn_pad_rows(rows, half, &o2, got, dtypes[oi], width, NULL, NULL,
                                       &err);
                    rc2 = tfn_pad_rows(rows + half, n - half, &o2, got + half * width * oes,
                                       dtypes[oi], width, NULL, NULL, &err);
                    if (rc1 != TFN_OK || rc2 != TFN_OK || memcmp(want, got, cells * oes))
                        failures++;
                    free(want);
                    free(got);
                    free(wm);
                    free(gm);
                    free(wl);
                    free(gl);
                }
            free(rows);
            free_ragged(&b);
        }
    }
    CHECK_EQ_INT(failures, 0);

    /* mixed dtypes: each row as that row padded alone */
    const int32_t a[] = {1, 2, 3};
    const int64_t bv[] = {40, 50, 60, 70};
    const float c[] = {7.5f, -8.5f};
    tfn_pad_row mixed[4] = {{a, 3, TFN_INT32}, {bv, 4, TFN_INT64}, {NULL, 0, TFN_INT32},
                            {c, 2, TFN_FLOAT32}};
    int64_t out[4 * 3], lengths[4];
    uint8_t mask[4 * 3];
    tfn_pad_options o;
    tfn_pad_options_init(&o);
    o.maxlen = 3;
    o.value = -1;
    tfn_error err;
    CHECK_EQ_INT(tfn_pad_rows(mixed, 4, &o, out, TFN_INT64, 3, mask, lengths, &err), TFN_OK);
    const int64_t want[] = {1, 2, 3, 50, 60, 70, -1, -1, -1, -1, 7, -8};
    const uint8_t wmask[] = {1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1};
    CHECK(memcmp(out, want, sizeof want) == 0);
    CHECK(memcmp(mask, wmask, sizeof wmask) == 0);
    CHECK(lengths[0] == 3 && lengths[1] == 3 && lengths[2] == 0 && lengths[3] == 2);
    CHECK_EQ_INT(tfn_pad_rows(NULL, 0, NULL, NULL, TFN_INT32, 0, NULL, NULL, &err), TFN_OK);

    /* errors */
    int32_t o32[12];
    CHECK_EQ_INT(tfn_pad_rows(mixed, 4, &o, o32, TFN_INT32, 3, NULL, NULL, &err), TFN_OK);
    const int64_t big[] = {5, (int64_t)1 << 40};
    tfn_pad_row withbig[2] = {{a, 1, TFN_INT32}, {big, 2, TFN_INT64}};
    CHECK_EQ_INT(tfn_pad_rows(withbig, 2, &o, o32, TFN_INT32, 3, NULL, NULL, &err),
                 TFN_E_OUT_OF_RANGE);
    CHECK_EQ_INT(err.record_index, 1);
    CHECK_STR(err.msg, "tfn_pad_rows: row 1, position 1: value 1099511627776 does not fit "
                       "int32 output (keras would wrap it; tfnano refuses)");
    CHECK_EQ_INT(tfn_pad_rows(NULL, 2, &o, o32, TFN_INT32, 3, NULL, NULL, &err),
                 TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "rows is NULL but nrows is 2") != NULL);
    tfn_pad_row bad[2] = {{a, 1, TFN_INT32}, {a, 1, 9}};
    CHECK_EQ_INT(tfn_pad_rows(bad, 2, &o, o32, TFN_INT32, 3, NULL, NULL, &err),
                 TFN_E_INVALID_ARG);
    CHECK_EQ_INT(err.record_index, 1);
    CHECK(strstr(err.msg, "row 1: dtype 9 is not supported") != NULL);
    bad[1] = (tfn_pad_row){NULL, 2, TFN_INT32};
    CHECK_EQ_INT(tfn_pad_rows(bad, 2, &o, o32, TFN_INT32, 3, NULL, NULL, &err),
                 TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "row 1: values is NULL but count is 2") != NULL);
    bad[1] = (tfn_pad_row){(const char *)bv + 2, 1, TFN_INT64};
    CHECK_EQ_INT(tfn_pad_rows(bad, 2, &o, o32, TFN_INT32, 3, NULL, NULL, &err),
                 TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "row 1: values is not aligned for int64") != NULL);
    CHECK_EQ_INT(tfn_pad_rows(mixed, 4, &o, o32, TFN_INT32, 4, NULL, NULL, &err),
                 TFN_E_INVALID_ARG);
    CHECK_STR(err.msg, "tfn_pad_rows: width 4 does not match the 3 these rows and options "
                       "give");
    o.maxlen = TFN_PAD_MAXLEN_UNSET;
    o.pad_to_multiple_of = 8;
    CHECK_EQ_INT(tfn_pad_rows(mixed, 4, &o, o32, TFN_INT32, 4, NULL, NULL, &err),
                 TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "does not match the 8") != NULL);
    o.pad_to_multiple_of = 0;
    o.padding = 5;
    CHECK_EQ_INT(tfn_pad_rows(mixed, 4, &o, o32, TFN_INT32, 4, NULL, NULL, &err),
                 TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "padding side 5 not understood") != NULL);
}

int main(void)
{
    RUN(test_random_against_reference);
    RUN(test_case42_keras_defaults);
    RUN(test_case43_empty);
    RUN(test_case44_conversions);
    RUN(test_case47_sides);
    RUN(test_case48_maxlen_zero);
    RUN(test_case50_torch_left);
    RUN(test_multiple_and_maxlen);
    RUN(test_long_rows_every_side);
    RUN(test_out_of_range);
    RUN(test_bad_input);
    RUN(test_offsets_not_from_zero);
    RUN(test_pad_rows);
    return harness_finish();
}

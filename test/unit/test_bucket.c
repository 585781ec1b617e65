/* test_bucket.c - the length-bucketing plan's invariants (every row exactly once, no
 * batch over its width or batch_size, one bucket per batch, seeded determinism),
 * padding a planned batch, errors, and allocation failures. */
#include "harness.h"
#include "tfnano.h"

#include <stdlib.h>

static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static size_t ref_bucket(const int64_t *b, size_t nb, int64_t len)
{
    size_t i = 0;
    while (i < nb && b[i] <= len)
        i++;
    return i;
}

static size_t round_up(size_t x, int64_t m)
{
    return m > 1 ? (x + (size_t)m - 1) / (size_t)m * (size_t)m : x;
}

/* Checks every invariant of a plan made from `lengths` with `opt`. */
static void check_plan(const tfn_bucket_plan *p, const int64_t *lengths, size_t n,
                       const tfn_bucket_options *opt)
{
    const int64_t *ids = tfn_bucket_plan_bucket_ids(p);
    for (size_t r = 0; r < n; r++)
        CHECK_EQ_INT(ids[r], ref_bucket(opt->boundaries, opt->nboundaries, lengths[r]));
    size_t nrows, nb = tfn_bucket_plan_batch_count(p);
    const int64_t *rows = tfn_bucket_plan_rows(p, &nrows);
    const tfn_batch *b = tfn_bucket_plan_batches(p);
    int *seen = calloc(n + 1, sizeof(int));
    uint64_t padded = 0;
    size_t covered = 0;
    size_t cap = opt->maxlen < 0 ? (size_t)-1 : (size_t)opt->maxlen;
    int bad = 0;
    for (size_t k = 0; k < nb; k++) {
        bad += b[k].count == 0 || b[k].count > opt->batch_size;
        bad += opt->drop_remainder && b[k].count != opt->batch_size;
        bad += b[k].start + b[k].count > nrows;
        size_t longest = 0;
        for (size_t i = 0; i < b[k].count && b[k].start + i < nrows; i++) {
            int64_t r = rows[b[k].start + i];
            bad += r < 0 || (size_t)r >= n;
            if (r < 0 || (size_t)r >= n)
                continue;
            seen[r]++;
            bad += (size_t)ids[r] != b[k].bucket; /* one bucket per batch */
            longest = (size_t)lengths[r] > longest ? (size_t)lengths[r] : longest;
        }
        size_t want = round_up(longest < cap ? longest : cap, opt->pad_to_multiple_of);
        bad += b[k].width != want; /* no row over it; no wider than needed */
        bad += opt->pad_to_multiple_of > 1 && b[k].width % (size_t)opt->pad_to_multiple_of;
        padded += (uint64_t)b[k].count * b[k].width;
        covered += b[k].count;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(covered, nrows);
    CHECK(padded == tfn_bucket_plan_padded_size(p));
    /* every row exactly once, or, with drop_remainder, at most once and fewer than
     * batch_size dropped per bucket */
    size_t nbuckets = opt->nboundaries + 1;
    size_t *dropped = calloc(nbuckets, sizeof(size_t));
    int twice = 0;
    for (size_t r = 0; r < n; r++) {
        twice += seen[r] > 1;
        if (seen[r] == 0)
            dropped[ids[r]]++;
    }
    CHECK_EQ_INT(twice, 0);
    for (size_t i = 0; i < nbuckets; i++) {
        if (opt->drop_remainder)
            CHECK(dropped[i] < opt->batch_size);
        else
            CHECK_EQ_INT(dropped[i], 0);
    }
    free(dropped);
    free(seen);
}

static int64_t *random_lengths(size_t n)
{
    int64_t *l = malloc(n * sizeof(int64_t) + 8);
    for (size_t i = 0; i < n; i++)
        l[i] = (int64_t)(rnd() % 600); /* includes 0 and > 512 */
    return l;
}

static void test_invariants_many_seeds(void)
{
    int64_t bounds[16];
    for (int i = 0; i < 16; i++)
        bounds[i] = 32 * (i + 1); /* every 32 up to 512 */
    rng_state = 42;
    for (int trial = 0; trial < 40; trial++) {
        size_t n = (size_t)(rnd() % 3000);
        int64_t *lengths = random_lengths(n);
        tfn_bucket_options opt = {bounds, (size_t)(rnd() % 17), 1 + (size_t)(rnd() % 64),
                                  trial % 3 ? 512 : TFN_PAD_MAXLEN_UNSET,
                                  (int64_t)(rnd() % 3) * 4, trial % 4 == 1, trial % 2,
                                  rnd()};
        tfn_bucket_plan *p = NULL;
        tfn_error err;
        REQUIRE(tfn_bucket_plan_new(lengths, n, &opt, NULL, &p, &err) == TFN_OK);
        check_plan(p, lengths, n, &opt);
        tfn_bucket_plan_free(p);
        free(lengths);
    }
}

static int same_plan(const tfn_bucket_plan *a, const tfn_bucket_plan *b)
{
    size_t na, nb;
    const int64_t *ra = tfn_bucket_plan_rows(a, &na), *rb = tfn_bucket_plan_rows(b, &nb);
    size_t ka = tfn_bucket_plan_batch_count(a), kb = tfn_bucket_plan_batch_count(b);
    return na == nb && ka == kb && memcmp(ra, rb, na * sizeof(int64_t)) == 0 &&
           memcmp(tfn_bucket_plan_batches(a), tfn_bucket_plan_batches(b),
                  ka * sizeof(tfn_batch)) == 0;
}

static void test_seeds(void)
{
    rng_state = 7;
    size_t n = 1000;
    int64_t *lengths = random_lengths(n);
    const int64_t bounds[] = {64, 128, 256};
    tfn_bucket_options opt = {bounds, 3, 16, 512, 8, 0, 1, 1234};
    tfn_bucket_plan *a, *b, *c, *d;
    tfn_error err;
    REQUIRE(tfn_bucket_plan_new(lengths, n, &opt, NULL, &a, &err) == TFN_OK);
    REQUIRE(tfn_bucket_plan_new(lengths, n, &opt, NULL, &b, &err) == TFN_OK);
    opt.seed = 1235;
    REQUIRE(tfn_bucket_plan_new(lengths, n, &opt, NULL, &c, &err) == TFN_OK);
    opt.shuffle = 0;
    REQUIRE(tfn_bucket_plan_new(lengths, n, &opt, NULL, &d, &err) == TFN_OK);
    CHECK(same_plan(a, b));  /* same seed, same plan */
    CHECK(!same_plan(a, c)); /* another seed, another order */
    check_plan(c, lengths, n, &opt);
    /* the same batches' contents up to order: same padded total */
    CHECK(tfn_bucket_plan_padded_size(a) > 0);
    /* no shuffle: buckets in order, rows ascending within each */
    size_t nrows;
    const int64_t *rows = tfn_bucket_plan_rows(d, &nrows);
    const tfn_batch *bt = tfn_bucket_plan_batches(d);
    int unordered = 0;
    for (size_t k = 0; k < tfn_bucket_plan_batch_count(d); k++) {
        if (k > 0)
            unordered += bt[k].bucket < bt[k - 1].bucket || bt[k].start < bt[k - 1].start;
        for (size_t i = 1; i < bt[k].count; i++)
            unordered += rows[bt[k].start + i] <= rows[bt[k].start + i - 1];
    }
    CHECK_EQ_INT(unordered, 0);
    /* a shuffled plan actually moves rows and batches */
    size_t moved = 0;
    const int64_t *ra = tfn_bucket_plan_rows(a, NULL);
    for (size_t i = 0; i < nrows; i++)
        moved += ra[i] != rows[i];
    CHECK(moved > nrows / 2);
    tfn_bucket_plan_free(a);
    tfn_bucket_plan_free(b);
    tfn_bucket_plan_free(c);
    tfn_bucket_plan_free(d);
    free(lengths);
}

/* Hand-checked: lengths with boundaries {3, 6}, batch 2, no shuffle. */
static void test_small_plan_by_hand(void)
{
    const int64_t lengths[] = {1, 7, 4, 2, 9, 5, 0};
    const int64_t bounds[] = {3, 6};
    tfn_bucket_options opt = {bounds, 2, 2, 8, 4, 0, 0, 0};
    tfn_bucket_plan *p;
    tfn_error err;
    REQUIRE(tfn_bucket_plan_new(lengths, 7, &opt, NULL, &p, &err) == TFN_OK);
    const int64_t *ids = tfn_bucket_plan_bucket_ids(p);
    const int64_t want_ids[] = {0, 2, 1, 0, 2, 1, 0};
    CHECK_MEM(ids, sizeof want_ids, want_ids, sizeof want_ids);
    /* bucket 0: rows 0,3 | 6; bucket 1: rows 2,5; bucket 2: rows 1,4 */
    const int64_t want_rows[] = {0, 3, 6, 2, 5, 1, 4};
    size_t nrows;
    const int64_t *rows = tfn_bucket_plan_rows(p, &nrows);
    CHECK_EQ_INT(nrows, 7);
    CHECK_MEM(rows, sizeof want_rows, want_rows, sizeof want_rows);
    REQUIRE(tfn_bucket_plan_batch_count(p) == 4);
    const tfn_batch *b = tfn_bucket_plan_batches(p);
    /* widths: max(1,2)=2 -> 4; 0 -> 0; max(4,5)=5 -> 8; max(7,9) capped 8 -> 8 */
    const size_t widths[] = {4, 0, 8, 8}, counts[] = {2, 1, 2, 2};
    for (size_t k = 0; k < 4; k++) {
        CHECK_EQ_INT(b[k].width, widths[k]);
        CHECK_EQ_INT(b[k].count, counts[k]);
    }
    CHECK_EQ_INT(tfn_bucket_plan_padded_size(p), 8 + 0 + 16 + 16);
    tfn_bucket_plan_free(p);

    /* drop_remainder drops row 6 (bucket 0's short batch) */
    opt.drop_remainder = 1;
    REQUIRE(tfn_bucket_plan_new(lengths, 7, &opt, NULL, &p, &err) == TFN_OK);
    rows = tfn_bucket_plan_rows(p, &nrows);
    CHECK_EQ_INT(nrows, 6);
    const int64_t kept[] = {0, 3, 2, 5, 1, 4};
    CHECK_MEM(rows, sizeof kept, kept, sizeof kept);
    CHECK_EQ_INT(tfn_bucket_plan_batch_count(p), 3);
    CHECK_EQ_INT(tfn_bucket_plan_bucket_ids(p)[6], 0);
    tfn_bucket_plan_free(p);

    /* no rows at all, no boundaries */
    tfn_bucket_options none = {NULL, 0, 4, TFN_PAD_MAXLEN_UNSET, 0, 0, 1, 9};
    REQUIRE(tfn_bucket_plan_new(NULL, 0, &none, NULL, &p, &err) == TFN_OK);
    CHECK_EQ_INT(tfn_bucket_plan_batch_count(p), 0);
    CHECK_EQ_INT(tfn_bucket_plan_padded_size(p), 0);
    tfn_bucket_plan_free(p);
}

/* tfn_bucket_plan_pad_batch gathers the batch's rows into [count, width]. */
static void test_pad_batch(void)
{
    rng_state = 99;
    size_t n = 500;
    int64_t *lengths = random_lengths(n);
    int64_t *offsets = malloc((n + 1) * sizeof(int64_t));
    offsets[0] = 0;
    for (size_t r = 0; r < n; r++)
        offsets[r + 1] = offsets[r] + lengths[r];
    size_t total = (size_t)offsets[n];
    int32_t *values = malloc(total * sizeof(int32_t) + 4);
    for (size_t i = 0; i < total; i++)
        values[i] = (int32_t)i;
    const int64_t bounds[] = {100, 200, 300};
    tfn_bucket_options opt = {bounds, 3, 24, 256, 8, 0, 1, 5};
    tfn_bucket_plan *p;
    tfn_error err;
    REQUIRE(tfn_bucket_plan_new(lengths, n, &opt, NULL, &p, &err) == TFN_OK);
    tfn_ragged in = {values, TFN_INT32, total, offsets, n};
    const tfn_batch *b = tfn_bucket_plan_batches(p);
    const int64_t *rows = tfn_bucket_plan_rows(p, NULL);
    int bad = 0;
    for (size_t k = 0; k < tfn_bucket_plan_batch_count(p); k++) {
        int padding = (int)(k % 2), truncating = (int)(k / 2 % 2);
        size_t cells = b[k].count * b[k].width;
        int64_t *out = malloc(cells * sizeof(int64_t) + 8);
        uint8_t *mask = malloc(cells + 1);
        int64_t lens[24];
        REQUIRE(tfn_bucket_plan_pad_batch(p, k, &in, padding, truncating, -1, out, TFN_INT64,
                                          mask, lens, &err) == TFN_OK);
        for (size_t i = 0; i < b[k].count; i++) {
            int64_t r = rows[b[k].start + i];
            size_t len = (size_t)lengths[r], keep = len < 256 ? len : 256;
            bad += (size_t)lens[i] != keep;
            size_t pad = b[k].width - keep;
            for (size_t j = 0; j < b[k].width; j++) {
                size_t col = padding == TFN_PAD_PRE ? j - pad : j;
                int is_val = padding == TFN_PAD_PRE ? j >= pad : j < keep;
                int64_t want = -1;
                if (is_val)
                    want = offsets[r] + (int64_t)(truncating == TFN_PAD_PRE ? len - keep : 0) +
                           (int64_t)col;
                bad += out[i * b[k].width + j] != want || mask[i * b[k].width + j] != is_val;
            }
        }
        free(out);
        free(mask);
    }
    CHECK_EQ_INT(bad, 0);

    /* errors */
    int32_t o32[8];
    CHECK_EQ_INT(tfn_bucket_plan_pad_batch(p, tfn_bucket_plan_batch_count(p), &in, 0, 0, 0,
                                           o32, TFN_INT32, NULL, NULL, &err),
                 TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "out of range") != NULL);
    tfn_ragged fewer = in;
    fewer.nrows = n - 1;
    CHECK_EQ_INT(tfn_bucket_plan_pad_batch(p, 0, &fewer, 0, 0, 0, o32, TFN_INT32, NULL, NULL,
                                           &err),
                 TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "the input has 499 rows but the plan was made for 500") != NULL);
    /* a gathered row with broken offsets */
    int64_t saved = offsets[rows[b[0].start] + 1];
    offsets[rows[b[0].start] + 1] = (int64_t)total + 5;
    CHECK_EQ_INT(tfn_bucket_plan_pad_batch(p, 0, &in, 0, 0, 0, o32, TFN_INT32, NULL, NULL,
                                           &err),
                 TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "is beyond the") != NULL);
    offsets[rows[b[0].start] + 1] = saved;
    CHECK_EQ_INT(tfn_bucket_plan_pad_batch(p, 0, &in, 3, 0, 0, o32, TFN_INT32, NULL, NULL,
                                           &err),
                 TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_bucket_plan_pad_batch(NULL, 0, &in, 0, 0, 0, o32, TFN_INT32, NULL, NULL,
                                           &err),
                 TFN_E_INVALID_ARG);
    tfn_bucket_plan_free(p);
    free(values);
    free(offsets);
    free(lengths);
}

static void test_bad_options(void)
{
    const int64_t lengths[] = {3, 5, -2};
    const int64_t bounds[] = {4, 4};
    const int64_t ok_bounds[] = {4, 8};
    tfn_bucket_plan *p = (tfn_bucket_plan *)&p;
    tfn_error err;
    tfn_bucket_options opt = {ok_bounds, 2, 0, TFN_PAD_MAXLEN_UNSET, 0, 0, 0, 0};
    CHECK_EQ_INT(tfn_bucket_plan_new(lengths, 2, &opt, NULL, &p, &err), TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "batch_size is 0; expected > 0") != NULL);
    CHECK(p == NULL || p == (tfn_bucket_plan *)&p);
    opt.batch_size = 2;
    opt.boundaries = bounds;
    CHECK_EQ_INT(tfn_bucket_plan_new(lengths, 2, &opt, NULL, &p, &err), TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "boundaries[1] = 4 <= boundaries[0] = 4; expected strictly "
                          "increasing") != NULL);
    opt.boundaries = ok_bounds;
    CHECK_EQ_INT(tfn_bucket_plan_new(lengths, 3, &opt, NULL, &p, &err), TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "lengths[2] = -2 is negative") != NULL);
    CHECK_EQ_INT(err.record_index, 2);
    CHECK_EQ_INT(tfn_bucket_plan_new(NULL, 3, &opt, NULL, &p, &err), TFN_E_INVALID_ARG);
    opt.maxlen = -3;
    CHECK_EQ_INT(tfn_bucket_plan_new(lengths, 2, &opt, NULL, &p, &err), TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "maxlen -3 is negative") != NULL);
    opt.maxlen = 10;
    opt.pad_to_multiple_of = -1;
    CHECK_EQ_INT(tfn_bucket_plan_new(lengths, 2, &opt, NULL, &p, &err), TFN_E_INVALID_ARG);
    opt.pad_to_multiple_of = 0;
    opt.boundaries = NULL;
    CHECK_EQ_INT(tfn_bucket_plan_new(lengths, 2, &opt, NULL, &p, &err), TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "boundaries is NULL but nboundaries is 2") != NULL);
    CHECK_EQ_INT(tfn_bucket_plan_new(lengths, 2, NULL, NULL, &p, &err), TFN_E_INVALID_ARG);
    opt.boundaries = ok_bounds;
    CHECK_EQ_INT(tfn_bucket_plan_new(lengths, 2, &opt, NULL, NULL, &err), TFN_E_INVALID_ARG);
    tfn_bucket_plan_free(NULL);
    CHECK_EQ_INT(tfn_bucket_plan_batch_count(NULL), 0);
}

/* An allocator failing the k-th allocation: every failure is TFN_E_NOMEM, nothing
 * leaks (ASan's leak checker runs at exit). */
typedef struct failing {
    int left;
} failing;

static void *f_malloc(void *ctx, size_t size)
{
    failing *f = ctx;
    if (f->left-- <= 0)
        return NULL;
    return malloc(size);
}

static void f_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

static void test_alloc_failures(void)
{
    const int64_t lengths[] = {1, 7, 4, 2, 9, 5, 0};
    const int64_t bounds[] = {3, 6};
    tfn_bucket_options opt = {bounds, 2, 2, 8, 4, 0, 1, 3};
    int nomem = 0, ok = 0;
    for (int k = 0; k < 8; k++) {
        failing f = {k};
        tfn_alloc a = {f_malloc, NULL, f_free, &f};
        tfn_bucket_plan *p = NULL;
        tfn_error err;
        int rc = tfn_bucket_plan_new(lengths, 7, &opt, &a, &p, &err);
        if (rc == TFN_E_NOMEM) {
            nomem++;
            CHECK(p == NULL);
        } else if (rc == TFN_OK) {
            ok++;
            check_plan(p, lengths, 7, &opt);
            tfn_bucket_plan_free(p);
        }
    }
    CHECK(nomem >= 4 && ok >= 1);
}

int main(void)
{
    RUN(test_invariants_many_seeds);
    RUN(test_seeds);
    RUN(test_small_plan_by_hand);
    RUN(test_pad_batch);
    RUN(test_bad_options);
    RUN(test_alloc_failures);
    return harness_finish();
}

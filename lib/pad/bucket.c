/* bucket.c - length bucketing (tf.data bucket_by_sequence_length's rule): bucket ids,
 * a batch plan with per-batch widths and a seeded shuffle, and padding one planned
 * batch. */
#include "pad_internal.h"

#include <inttypes.h>

struct tfn_bucket_plan {
    tfn__alloc alloc;
    size_t n;           /* rows given */
    int64_t *bucket_ids; /* [n] */
    int64_t *rows;       /* [nrows]: planned rows, bucket by bucket */
    size_t nrows;
    tfn_batch *batches; /* [nbatches], in the order to use them */
    size_t nbatches;
    size_t keep_limit; /* maxlen, or SIZE_MAX */
    uint64_t padded_size;
};

/* ---------------------------------------------------------------- PRNG */

/* xoshiro256** seeded through splitmix64: small, fast, and the same everywhere. */
typedef struct rng {
    uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void rng_seed(rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Uniform in [0, bound), bound > 0, without modulo bias (rejection). */
static uint64_t rng_below(rng *r, uint64_t bound)
{
    uint64_t threshold = (0 - bound) % bound; /* 2^64 mod bound */
    for (;;) {
        uint64_t x = rng_next(r);
        if (x >= threshold)
            return x % bound;
    }
}

/* Fisher-Yates. */
static void shuffle_rows(rng *r, int64_t *a, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)rng_below(r, i);
        int64_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

static void shuffle_batches(rng *r, tfn_batch *a, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)rng_below(r, i);
        tfn_batch t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

/* ---------------------------------------------------------------- planning */

static int check_options(const int64_t *lengths, size_t n, const tfn_bucket_options *opt,
                         tfn_bucket_plan **out, tfn_error *err)
{
    const char *fn = "tfn_bucket_plan_new";
    if (!opt || !out)
        return tfn__fail(err, TFN_E_INVALID_ARG, "%s: %s is NULL", fn, opt ? "out" : "opt");
    if (!lengths && n)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "%s: lengths is NULL but n is %zu; expected n lengths", fn, n);
    if (!opt->boundaries && opt->nboundaries)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "%s: boundaries is NULL but nboundaries is %zu", fn, opt->nboundaries);
    if (opt->nboundaries >= SIZE_MAX / sizeof(size_t) - 2)
        return tfn__fail(err, TFN_E_INVALID_ARG, "%s: nboundaries %zu is too large", fn,
                         opt->nboundaries);
    if (opt->batch_size == 0)
        return tfn__fail(err, TFN_E_INVALID_ARG, "%s: batch_size is 0; expected > 0", fn);
    if (opt->maxlen < 0 && opt->maxlen != TFN_PAD_MAXLEN_UNSET)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "%s: maxlen %" PRId64
                         " is negative; expected >= 0 or TFN_PAD_MAXLEN_UNSET (-1)",
                         fn, opt->maxlen);
    if (opt->pad_to_multiple_of < 0)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "%s: pad_to_multiple_of %" PRId64 " is negative; expected >= 0", fn,
                         opt->pad_to_multiple_of);
    for (size_t i = 1; i < opt->nboundaries; i++)
        if (opt->boundaries[i] <= opt->boundaries[i - 1])
            return tfn__fail(err, TFN_E_INVALID_ARG,
                             "%s: boundaries[%zu] = %" PRId64 " <= boundaries[%zu] = %" PRId64
                             "; expected strictly increasing boundaries",
                             fn, i, opt->boundaries[i], i - 1, opt->boundaries[i - 1]);
    for (size_t r = 0; r < n; r++)
        if (lengths[r] < 0)
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, r,
                                "%s: lengths[%zu] = %" PRId64 " is negative; expected >= 0",
                                fn, r, lengths[r]);
    return TFN_OK;
}

/* The number of boundaries <= len (upper bound). */
static size_t bucket_of(const int64_t *b, size_t nb, int64_t len)
{
    size_t lo = 0, hi = nb;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b[mid] <= len)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void *alloc_array(const tfn__alloc *a, size_t n, size_t elem)
{
    size_t bytes;
    return tfn__mul_size(n, elem, &bytes) ? tfn__malloc(a, bytes) : NULL;
}

void tfn_bucket_plan_free(tfn_bucket_plan *plan)
{
    if (!plan)
        return;
    tfn__alloc a = plan->alloc;
    tfn__free(&a, plan->bucket_ids);
    tfn__free(&a, plan->rows);
    tfn__free(&a, plan->batches);
    tfn__free(&a, plan);
}

/* Cuts each bucket's slice of plan->rows into batches and sizes them. */
static int make_batches(tfn_bucket_plan *plan, const int64_t *lengths, const size_t *starts,
                        size_t nbuckets, const tfn_bucket_options *opt, tfn_error *err)
{
    size_t bs = opt->batch_size, nb = 0;
    for (size_t b = 0; b < nbuckets; b++) {
        size_t count = starts[b + 1] - starts[b];
        nb += opt->drop_remainder ? count / bs : count / bs + (count % bs != 0);
    }
    plan->batches = alloc_array(&plan->alloc, nb, sizeof(tfn_batch));
    if (!plan->batches)
        return tfn__fail(err, TFN_E_NOMEM, "tfn_bucket_plan_new: out of memory (%zu batches)",
                         nb);
    /* Keep the planned rows contiguous: dropped remainders are squeezed out. */
    size_t w = 0, k = 0;
    for (size_t b = 0; b < nbuckets; b++) {
        size_t begin = starts[b], end = starts[b + 1];
        for (size_t s = begin; s < end; s += bs) {
            size_t count = end - s < bs ? end - s : bs;
            if (count < bs && opt->drop_remainder)
                break;
            size_t longest = 0;
            for (size_t i = 0; i < count; i++) {
                int64_t row = plan->rows[s + i];
                plan->rows[w + i] = row;
                size_t len = (size_t)lengths[row];
                longest = len > longest ? len : longest;
            }
            if (longest > plan->keep_limit)
                longest = plan->keep_limit;
            size_t width;
            if (!tfn__round_up(longest, opt->pad_to_multiple_of, &width))
                return tfn__fail(err, TFN_E_INVALID_ARG,
                                 "tfn_bucket_plan_new: width %zu rounded up to a multiple of "
                                 "%" PRId64 " overflows size_t",
                                 longest, opt->pad_to_multiple_of);
            plan->batches[k].start = w;
            plan->batches[k].count = count;
            plan->batches[k].width = width;
            plan->batches[k].bucket = b;
            plan->padded_size += (uint64_t)count * (uint64_t)width;
            k++;
            w += count;
        }
    }
    plan->nbatches = k;
    plan->nrows = w;
    return TFN_OK;
}

int tfn_bucket_plan_new(const int64_t *lengths, size_t n, const tfn_bucket_options *opt,
                        const tfn_alloc *alc, tfn_bucket_plan **out, tfn_error *err)
{
    int rc = check_options(lengths, n, opt, out, err);
    if (rc)
        return rc;
    *out = NULL;
    tfn__alloc a;
    tfn__alloc_init(&a, alc);
    tfn_bucket_plan *plan = tfn__malloc(&a, sizeof *plan);
    if (!plan)
        return tfn__fail(err, TFN_E_NOMEM, "tfn_bucket_plan_new: out of memory");
    memset(plan, 0, sizeof *plan);
    plan->alloc = a;
    plan->n = n;
    plan->keep_limit = opt->maxlen == TFN_PAD_MAXLEN_UNSET || (uint64_t)opt->maxlen > SIZE_MAX
                           ? SIZE_MAX
                           : (size_t)opt->maxlen;
    size_t nbuckets = opt->nboundaries + 1;
    /* starts[b] .. starts[b+1]: bucket b's slice of rows (a counting sort, stable). */
    size_t *starts = alloc_array(&a, nbuckets + 1, sizeof(size_t));
    plan->bucket_ids = alloc_array(&a, n, sizeof(int64_t));
    plan->rows = alloc_array(&a, n, sizeof(int64_t));
    if (!starts || !plan->bucket_ids || !plan->rows) {
        tfn__free(&a, starts);
        tfn_bucket_plan_free(plan);
        return tfn__fail(err, TFN_E_NOMEM, "tfn_bucket_plan_new: out of memory (%zu rows)", n);
    }
    memset(starts, 0, (nbuckets + 1) * sizeof(size_t));
    for (size_t r = 0; r < n; r++) {
        size_t b = bucket_of(opt->boundaries, opt->nboundaries, lengths[r]);
        plan->bucket_ids[r] = (int64_t)b;
        starts[b + 1]++;
    }
    for (size_t b = 0; b < nbuckets; b++)
        starts[b + 1] += starts[b];
    /* Place rows using starts[b] as a cursor, then shift the cursors back. */
    for (size_t r = 0; r < n; r++)
        plan->rows[starts[plan->bucket_ids[r]]++] = (int64_t)r;
    for (size_t b = nbuckets; b > 0; b--)
        starts[b] = starts[b - 1];
    starts[0] = 0;
    rng g;
    rng_seed(&g, opt->seed);
    if (opt->shuffle)
        for (size_t b = 0; b < nbuckets; b++)
            shuffle_rows(&g, plan->rows + starts[b], starts[b + 1] - starts[b]);
    rc = make_batches(plan, lengths, starts, nbuckets, opt, err);
    tfn__free(&a, starts);
    if (rc) {
        tfn_bucket_plan_free(plan);
        return rc;
    }
    if (opt->shuffle)
        shuffle_batches(&g, plan->batches, plan->nbatches);
    *out = plan;
    return TFN_OK;
}

size_t tfn_bucket_plan_batch_count(const tfn_bucket_plan *plan)
{
    return plan ? plan->nbatches : 0;
}

const tfn_batch *tfn_bucket_plan_batches(const tfn_bucket_plan *plan)
{
    return plan ? plan->batches : NULL;
}

const int64_t *tfn_bucket_plan_rows(const tfn_bucket_plan *plan, size_t *count)
{
    if (count)
        *count = plan ? plan->nrows : 0;
    return plan ? plan->rows : NULL;
}

const int64_t *tfn_bucket_plan_bucket_ids(const tfn_bucket_plan *plan)
{
    return plan ? plan->bucket_ids : NULL;
}

uint64_t tfn_bucket_plan_padded_size(const tfn_bucket_plan *plan)
{
    return plan ? plan->padded_size : 0;
}

/* ---------------------------------------------------------------- padding a batch */

int tfn_bucket_plan_pad_batch(const tfn_bucket_plan *plan, size_t batch, const tfn_ragged *in,
                              int padding, int truncating, double value, void *out,
                              int out_dtype, uint8_t *mask, int64_t *lengths, tfn_error *err)
{
    const char *fn = "tfn_bucket_plan_pad_batch";
    if (!plan)
        return tfn__fail(err, TFN_E_INVALID_ARG, "%s: plan is NULL", fn);
    if (batch >= plan->nbatches)
        return tfn__fail(err, TFN_E_INVALID_ARG, "%s: batch %zu out of range; the plan has %zu",
                         fn, batch, plan->nbatches);
    int rc = tfn__pad_check_input(in, fn, err);
    if (rc)
        return rc;
    if (in->nrows != plan->n)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "%s: the input has %zu rows but the plan was made for %zu", fn,
                         in->nrows, plan->n);
    const tfn_batch *b = &plan->batches[batch];
    const int64_t *rows = plan->rows + b->start;
    for (size_t i = 0; i < b->count; i++) {
        rc = tfn__pad_check_row(in, (size_t)rows[i], fn, err);
        if (rc)
            return rc;
    }
    tfn__pad_job job = {
        .in = in,
        .rows = rows,
        .nrows = b->count,
        .width = b->width,
        .keep_limit = plan->keep_limit,
        .padding = padding,
        .truncating = truncating,
        .value = value,
        .out = out,
        .out_dtype = out_dtype,
        .mask = mask,
        .lengths = lengths,
    };
    return tfn__pad_run(&job, fn, err);
}

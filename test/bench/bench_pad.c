/*
 * bench_pad.c - W3 "padding" of shared/spec/performance.md: 100,000 ragged int32 token
 * sequences (lengths lognormal, median 120, sigma 0.9, clipped 1..2000) padded and
 * truncated to 512, int32 out, keras' defaults (pre/pre) and post/post:
 *   - tfn_pad against the floor, a plain loop of memset + memcpy per row into a
 *     preallocated int32 array, both into a warm preallocated output and into a fresh
 *     one (malloc'd per call: page faults included, as a new numpy array has them);
 *   - tfn_pad with the attention mask too;
 *   - length bucketing: planning the batches, padding every planned batch, and the
 *     padding it saves (tokens before and after, boundaries every 32 up to 512, batch
 *     32, pad_to_multiple_of 8).
 * Items are sequences; MB/s count the int32 output bytes written.
 * The outputs are checked against the plain loop once before timing.
 *
 * Environment: bench_util.h's (BENCH_BUDGET, BENCH_RUNS, BENCH_QUICK, BENCH_FILTER),
 * BENCH_W3_N (sequences; default 100000).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "datagen.h"
#include "tfnano.h"

enum { MAXLEN = 512, BATCH = 32, MULTIPLE = 8, NBOUNDS = MAXLEN / 32 };

typedef struct ctx {
    const w3_data *d;
    tfn_ragged in;
    int32_t *out;  /* warm output, n * MAXLEN */
    uint8_t *mask; /* warm mask */
    int pre;       /* keras defaults (pre/pre) or post/post */
    int fresh;     /* malloc a new output per call */
    tfn_bucket_plan *plan;
    int32_t *batch_out; /* BATCH * widest batch */
    uint8_t *batch_mask;
} ctx;

static int die(const char *what, const char *msg)
{
    fprintf(stderr, "bench_pad: %s: %s\n", what, msg);
    return 1;
}

static size_t env_size(const char *name, size_t def)
{
    const char *v = getenv(name);
    return v && atol(v) > 0 ? (size_t)atol(v) : def;
}

static void report(const ctx *c, bench_work *w)
{
    w->items += c->d->n;
    w->bytes += (uint64_t)c->d->n * MAXLEN * sizeof(int32_t);
}

/* The floor: what a C programmer writes by hand for one padding layout. */
static void plain_pad(const w3_data *d, int32_t *out, int pre)
{
    for (size_t i = 0; i < d->n; i++) {
        size_t a = (size_t)d->row_splits[i], len = (size_t)d->row_splits[i + 1] - a;
        size_t keep = len < MAXLEN ? len : MAXLEN, pad = MAXLEN - keep;
        int32_t *row = out + i * MAXLEN;
        if (pre) {
            memset(row, 0, pad * sizeof(int32_t));
            memcpy(row + pad, d->values + a + len - keep, keep * sizeof(int32_t));
        } else {
            memcpy(row, d->values + a, keep * sizeof(int32_t));
            memset(row + keep, 0, pad * sizeof(int32_t));
        }
    }
}

static int tfn_pad_into(const ctx *c, int32_t *out, uint8_t *mask)
{
    tfn_pad_options o;
    tfn_pad_options_init(&o);
    o.maxlen = MAXLEN;
    o.padding = o.truncating = c->pre ? TFN_PAD_PRE : TFN_PAD_POST;
    tfn_error err;
    if (tfn_pad(&c->in, &o, out, TFN_INT32, MAXLEN, mask, NULL, &err) != TFN_OK)
        return die("tfn_pad", err.msg);
    return 0;
}

static int32_t *output_for(const ctx *c)
{
    return c->fresh ? malloc(c->d->n * MAXLEN * sizeof(int32_t)) : c->out;
}

static int case_plain(void *p, bench_work *w)
{
    ctx *c = p;
    int32_t *out = output_for(c);
    if (!out)
        return die("malloc", "out of memory");
    plain_pad(c->d, out, c->pre);
    bench_keep(out);
    if (c->fresh)
        free(out);
    report(c, w);
    return 0;
}

static int case_tfn(void *p, bench_work *w)
{
    ctx *c = p;
    int32_t *out = output_for(c);
    if (!out)
        return die("malloc", "out of memory");
    int rc = tfn_pad_into(c, out, NULL);
    bench_keep(out);
    if (c->fresh)
        free(out);
    report(c, w);
    return rc;
}

static int case_tfn_mask(void *p, bench_work *w)
{
    ctx *c = p;
    int rc = tfn_pad_into(c, c->out, c->mask);
    bench_keep(c->out);
    report(c, w);
    return rc;
}

static int make_plan(const w3_data *d, tfn_bucket_plan **plan, int64_t *lengths)
{
    static int64_t bounds[NBOUNDS];
    for (size_t i = 0; i < NBOUNDS; i++)
        bounds[i] = (int64_t)(32 * (i + 1));
    for (size_t i = 0; i < d->n; i++)
        lengths[i] = d->row_splits[i + 1] - d->row_splits[i];
    tfn_bucket_options o = {bounds, NBOUNDS, BATCH, MAXLEN, MULTIPLE, 0, 1, 2024};
    tfn_error err;
    if (tfn_bucket_plan_new(lengths, d->n, &o, NULL, plan, &err) != TFN_OK)
        return die("tfn_bucket_plan_new", err.msg);
    return 0;
}

static int case_plan(void *p, bench_work *w)
{
    ctx *c = p;
    int64_t *lengths = malloc(c->d->n * sizeof(int64_t) + 8);
    tfn_bucket_plan *plan = NULL;
    int rc = lengths ? make_plan(c->d, &plan, lengths) : die("malloc", "out of memory");
    tfn_bucket_plan_free(plan);
    free(lengths);
    w->items += c->d->n;
    return rc;
}

/* Pads every planned batch, one after the other, into one reused batch buffer. */
static int case_pad_batches(void *p, bench_work *w)
{
    ctx *c = p;
    size_t nb = tfn_bucket_plan_batch_count(c->plan);
    tfn_error err;
    for (size_t k = 0; k < nb; k++) {
        if (tfn_bucket_plan_pad_batch(c->plan, k, &c->in, TFN_PAD_POST, TFN_PAD_POST, 0,
                                      c->batch_out, TFN_INT32, c->batch_mask, NULL,
                                      &err) != TFN_OK)
            return die("tfn_bucket_plan_pad_batch", err.msg);
        bench_keep(c->batch_out);
    }
    w->items += c->d->n;
    w->bytes += tfn_bucket_plan_padded_size(c->plan) * sizeof(int32_t);
    return 0;
}

/* Checks tfn_pad's output (and mask) against the plain loop for both layouts. */
static int check_outputs(ctx *c)
{
    size_t cells = c->d->n * MAXLEN;
    int32_t *want = malloc(cells * sizeof(int32_t));
    if (!want)
        return die("malloc", "out of memory");
    int bad = 0;
    for (int pre = 0; pre < 2 && !bad; pre++) {
        c->pre = pre;
        plain_pad(c->d, want, pre);
        memset(c->out, 0x55, cells * sizeof(int32_t));
        bad = tfn_pad_into(c, c->out, c->mask) ||
              memcmp(c->out, want, cells * sizeof(int32_t)) != 0;
        size_t ones = 0, tokens = 0;
        for (size_t i = 0; i < cells; i++)
            ones += c->mask[i];
        for (size_t i = 0; i < c->d->n; i++) {
            size_t len = (size_t)(c->d->row_splits[i + 1] - c->d->row_splits[i]);
            tokens += len < MAXLEN ? len : MAXLEN;
        }
        bad |= ones != tokens;
    }
    free(want);
    return bad ? die("check", "tfn_pad differs from the plain loop") : 0;
}

int main(void)
{
    bench_config cfg = bench_config_from_env();
    size_t n = env_size("BENCH_W3_N", W3_DEFAULT_N);
    bench_print_env("bench_pad");
    printf("bench_pad: tfnano %s, W3 n=%zu to %d int32; best and median of %d runs x %.2f s\n",
           TFN_VERSION_STRING, n, MAXLEN, cfg.runs, cfg.budget_s);
    w3_data d;
    if (w3_generate(&d, n, W3_SEED))
        return die("w3_generate", "out of memory");
    ctx c = {.d = &d,
             .in = {d.values, TFN_INT32, (size_t)d.row_splits[n], d.row_splits, n},
             .out = malloc(n * MAXLEN * sizeof(int32_t)),
             .mask = malloc(n * MAXLEN)};
    if (!c.out || !c.mask)
        return die("malloc", "out of memory");
    if (check_outputs(&c))
        return 1;

    bench_result plain[2][2], tfn[2][2];
    const char *layout[2] = {"post/post", "pre/pre (keras defaults)"};
    const char *where[2] = {"warm preallocated output", "fresh output per call"};
    for (int fresh = 0; fresh < 2; fresh++) {
        char title[128];
        snprintf(title, sizeof title, "W3 pad to %d, int32, %s (ns per sequence)", MAXLEN,
                 where[fresh]);
        bench_print_title(title);
        for (int pre = 1; pre >= 0; pre--) {
            c.pre = pre;
            c.fresh = fresh;
            static char names[2][2][2][96];
            snprintf(names[fresh][pre][0], 96, "plain memset+memcpy loop, %s", layout[pre]);
            snprintf(names[fresh][pre][1], 96, "tfn_pad, %s", layout[pre]);
            plain[fresh][pre] = bench_run(names[fresh][pre][0], case_plain, &c, &cfg);
            bench_print_row(&plain[fresh][pre], &plain[fresh][pre]);
            tfn[fresh][pre] = bench_run(names[fresh][pre][1], case_tfn, &c, &cfg);
            bench_print_row(&tfn[fresh][pre], &plain[fresh][pre]);
        }
        if (!fresh) {
            c.pre = 0;
            c.fresh = 0;
            bench_result m = bench_run("tfn_pad + attention mask, post/post", case_tfn_mask, &c,
                                       &cfg);
            bench_print_row(&m, &plain[0][0]);
        }
    }

    /* Bucketing: the plan, padding its batches, and the padding it saves. */
    int64_t *lengths = malloc(n * sizeof(int64_t) + 8);
    if (!lengths || make_plan(&d, &c.plan, lengths))
        return 1;
    size_t widest = 0;
    const tfn_batch *b = tfn_bucket_plan_batches(c.plan);
    for (size_t k = 0; k < tfn_bucket_plan_batch_count(c.plan); k++)
        widest = b[k].width > widest ? b[k].width : widest;
    c.batch_out = malloc(BATCH * (widest + 1) * sizeof(int32_t));
    c.batch_mask = malloc(BATCH * (widest + 1));
    if (!c.batch_out || !c.batch_mask)
        return die("malloc", "out of memory");
    bench_print_title("W3 length bucketing: boundaries every 32 up to 512, batch 32, "
                      "multiple of 8 (ns per sequence)");
    bench_result plan = bench_run("tfn_bucket_plan_new (100k lengths, seeded shuffle)",
                                  case_plan, &c, &cfg);
    bench_print_row(&plan, NULL);
    bench_result batches = bench_run("tfn_bucket_plan_pad_batch, every batch, + mask",
                                     case_pad_batches, &c, &cfg);
    bench_print_row(&batches, &tfn[0][0]);

    uint64_t before = (uint64_t)n * MAXLEN, after = tfn_bucket_plan_padded_size(c.plan),
             real = 0;
    for (size_t i = 0; i < n; i++)
        real += (uint64_t)(lengths[i] < MAXLEN ? lengths[i] : MAXLEN);
    printf("\n  W3 tokens: %llu real (after truncation to %d); padded to %d: %llu cells "
           "(%.1f%% padding); bucketed: %llu cells in %zu batches (%.1f%% padding), "
           "%.2fx fewer cells\n",
           (unsigned long long)real, MAXLEN, MAXLEN, (unsigned long long)before,
           100.0 * (double)(before - real) / (double)before, (unsigned long long)after,
           tfn_bucket_plan_batch_count(c.plan), 100.0 * (double)(after - real) / (double)after,
           (double)before / (double)after);
    printf("summary: %-58s %llu -> %llu cells (%.2fx fewer; real tokens %llu)\n",
           "W3 bucketing (every 32 to 512, batch 32, x8)", (unsigned long long)before,
           (unsigned long long)after, (double)before / (double)after,
           (unsigned long long)real);

    printf("\n");
    const char *short_layout[2] = {"post/post", "pre/pre"};
    for (int fresh = 0; fresh < 2; fresh++)
        for (int pre = 1; pre >= 0; pre--) {
            char label[96]; /* the value is tfn_pad's time / the plain loop's */
            snprintf(label, sizeof label, "tfn_pad %s %s within 1.5x of the plain loop",
                     short_layout[pre], fresh ? "fresh" : "warm");
            double cost = tfn[fresh][pre].failed || plain[fresh][pre].failed
                              ? 0
                              : tfn[fresh][pre].best_ns / plain[fresh][pre].best_ns;
            bench_target_at_most(label, cost, 1.5);
        }
    tfn_bucket_plan_free(c.plan);
    free(c.batch_out);
    free(c.batch_mask);
    free(lengths);
    free(c.out);
    free(c.mask);
    w3_free(&d);
    return 0;
}

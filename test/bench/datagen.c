/*
 * datagen.c - the W1/W2/W3 generators (see datagen.h). Deterministic: the same seed
 * gives the same bytes everywhere (only integer PRNG output, exp/log of it, and
 * clipping are involved).
 */
#include "datagen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

const char *const w1_int_keys[W1_NINT] = {"q_input_ids", "q_attention_mask", "a_input_ids",
                                          "a_attention_mask"};
const char *const w1_label_key = "labels";
const char *const w2_scalar_keys[W2_NSCALAR] = {"height", "width", "channels", "label"};
const char *const w2_image_key = "image";
const char *const w2_name_key = "name";

/* round(exp(log(median) + sigma * N(0,1))) clipped to [lo, hi]. */
static int64_t lognormal_len(bench_rng *r, double median, double sigma, int64_t lo, int64_t hi)
{
    double v = floor(exp(log(median) + sigma * bench_rng_normal(r)) + 0.5);
    if (v < (double)lo)
        return lo;
    if (v > (double)hi)
        return hi;
    return (int64_t)v;
}

/* Token id log-uniform in [3, 50265). */
static int64_t token_id(bench_rng *r)
{
    static const double lo = 3.0, hi = 50265.0;
    int64_t t = (int64_t)floor(lo * exp(bench_rng_uniform(r) * log(hi / lo)));
    return t < 3 ? 3 : t > 50264 ? 50264 : t;
}

static void *xmalloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    size_t bytes = count * size;
    return malloc(bytes ? bytes : 1);
}

void w1_free(w1_data *d)
{
    for (int j = 0; j < W1_NINT; j++)
        free(d->ints[j]);
    free(d->labels);
    free(d->q_len);
    free(d->a_len);
    memset(d, 0, sizeof *d);
}

int w1_generate(w1_data *d, size_t n, uint64_t seed)
{
    memset(d, 0, sizeof *d);
    d->n = n;
    int ok = 1;
    for (int j = 0; j < W1_NINT; j++)
        ok &= (d->ints[j] = xmalloc(n, sizeof(int64_t) * W1_MAXLEN)) != NULL;
    ok &= (d->labels = xmalloc(n, sizeof(float) * W1_LABELS)) != NULL;
    ok &= (d->q_len = xmalloc(n, sizeof(int64_t))) != NULL;
    ok &= (d->a_len = xmalloc(n, sizeof(int64_t))) != NULL;
    if (!ok) {
        w1_free(d);
        return -1;
    }
    bench_rng r;
    bench_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
        for (int side = 0; side < 2; side++) {
            int64_t len = lognormal_len(&r, 250.0, 0.6, 8, W1_MAXLEN);
            int64_t *ids = d->ints[2 * side] + i * W1_MAXLEN;
            int64_t *mask = d->ints[2 * side + 1] + i * W1_MAXLEN;
            for (int64_t t = 0; t < W1_MAXLEN; t++) {
                ids[t] = t < len ? token_id(&r) : W1_PAD_ID;
                mask[t] = t < len;
            }
            (side ? d->a_len : d->q_len)[i] = len;
        }
        for (int k = 0; k < W1_LABELS; k++)
            d->labels[i * W1_LABELS + (size_t)k] = (float)bench_rng_uniform(&r);
    }
    return 0;
}

void w2_free(w2_data *d)
{
    free(d->images);
    free(d->image_offsets);
    for (int j = 0; j < W2_NSCALAR; j++)
        free(d->scalars[j]);
    free(d->names);
    free(d->name_offsets);
    memset(d, 0, sizeof *d);
}

enum { W2_MIN_IMAGE = 95 * 1024, W2_MAX_IMAGE = 105 * 1024, W2_NAME_MAX = 32 };

int w2_generate(w2_data *d, size_t n, uint64_t seed)
{
    memset(d, 0, sizeof *d);
    d->n = n;
    int ok = 1;
    ok &= (d->image_offsets = xmalloc(n + 1, sizeof(int64_t))) != NULL;
    ok &= (d->name_offsets = xmalloc(n + 1, sizeof(int64_t))) != NULL;
    ok &= (d->names = xmalloc(n, W2_NAME_MAX)) != NULL;
    for (int j = 0; j < W2_NSCALAR; j++)
        ok &= (d->scalars[j] = xmalloc(n, sizeof(int64_t))) != NULL;
    if (!ok) {
        w2_free(d);
        return -1;
    }
    bench_rng r;
    bench_rng_seed(&r, seed);
    /* Sizes and scalars first, so the image buffer is allocated once. */
    int64_t total = 0, names = 0;
    d->image_offsets[0] = d->name_offsets[0] = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t len = bench_rng_range(&r, W2_MIN_IMAGE, W2_MAX_IMAGE);
        total += len;
        d->image_offsets[i + 1] = total;
        if ((size_t)len > d->max_image)
            d->max_image = (size_t)len;
        d->scalars[0][i] = bench_rng_range(&r, 224, 640); /* height */
        d->scalars[1][i] = bench_rng_range(&r, 224, 640); /* width */
        d->scalars[2][i] = 3;                              /* channels */
        d->scalars[3][i] = bench_rng_range(&r, 0, 999);    /* label */
        int w = snprintf((char *)d->names + names, W2_NAME_MAX, "images/train/%08zu.jpg", i);
        names += w > 0 ? w : 0;
        d->name_offsets[i + 1] = names;
    }
    d->images = xmalloc((size_t)total, 1);
    if (!d->images) {
        w2_free(d);
        return -1;
    }
    for (int64_t k = 0; k < total; k += 8) {
        uint64_t v = bench_rng_next(&r);
        size_t m = total - k < 8 ? (size_t)(total - k) : 8u;
        memcpy(d->images + k, &v, m);
    }
    return 0;
}

void w3_free(w3_data *d)
{
    free(d->values);
    free(d->row_splits);
    memset(d, 0, sizeof *d);
}

int w3_generate(w3_data *d, size_t n, uint64_t seed)
{
    memset(d, 0, sizeof *d);
    d->n = n;
    d->row_splits = xmalloc(n + 1, sizeof(int64_t));
    if (!d->row_splits)
        return -1;
    bench_rng r;
    bench_rng_seed(&r, seed);
    int64_t total = 0;
    d->row_splits[0] = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t len = lognormal_len(&r, 120.0, 0.9, 1, 2000);
        total += len;
        d->row_splits[i + 1] = total;
        if ((size_t)len > d->max_len)
            d->max_len = (size_t)len;
    }
    d->values = xmalloc((size_t)total, sizeof(int32_t));
    if (!d->values) {
        w3_free(d);
        return -1;
    }
    for (int64_t k = 0; k < total; k++)
        d->values[k] = (int32_t)token_id(&r);
    return 0;
}

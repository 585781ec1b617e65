/* resize_kernels.c - tf.image.resize's filter methods with TensorFlow's arithmetic:
 * bicubic without antialias as ResizeBicubic (half-pixel centres, Keys a = -0.5 with
 * the weights of taps outside the image set to 0 and the rest renormalised, from the
 * 1024-step coefficient table), everything else as ScaleAndTranslate (lanczos3,
 * lanczos5, gaussian, mitchellcubic, and bilinear / bicubic with antialias as the
 * triangle / Keys kernels): per axis a span of input taps and normalised weights for
 * each output coordinate, a vertical pass into an input-width float row, then a
 * horizontal pass. Both are separable, so one output row needs one float row of the
 * input width. The float operations are TensorFlow's, in its order. */
#include "image_internal.h"

#include <float.h>
#include <math.h>

enum kernel_kind { K_TRIANGLE, K_KEYS, K_MITCHELL, K_LANCZOS3, K_LANCZOS5, K_GAUSSIAN };

/* How a method runs: ResizeBicubic's table (table == true) or a ScaleAndTranslate
 * kernel with or without antialias. */
typedef struct filter {
    bool table;
    int kind;
    bool antialias;
} filter;

static bool filter_of(int method, filter *f)
{
    bool aa = (method & TFN_RESIZE_ANTIALIAS) != 0;
    f->table = false;
    f->antialias = aa;
    switch (method & ~TFN_RESIZE_ANTIALIAS) {
    case TFN_RESIZE_BILINEAR:
        f->kind = K_TRIANGLE;
        return aa; /* plain bilinear is resize.c's ResizeBilinear */
    case TFN_RESIZE_BICUBIC:
        f->kind = K_KEYS;
        f->table = !aa;
        return true;
    case TFN_RESIZE_LANCZOS3:
        f->kind = K_LANCZOS3;
        return true;
    case TFN_RESIZE_LANCZOS5:
        f->kind = K_LANCZOS5;
        return true;
    case TFN_RESIZE_GAUSSIAN:
        f->kind = K_GAUSSIAN;
        return true;
    case TFN_RESIZE_MITCHELLCUBIC:
        f->kind = K_MITCHELL;
        return true;
    default:
        return false; /* nearest and area ignore antialias, as TensorFlow */
    }
}

bool tfn__resize_is_filter(int method)
{
    filter f;
    return filter_of(method, &f);
}

static float kernel_radius(int kind)
{
    switch (kind) {
    case K_TRIANGLE:
        return 1.0f;
    case K_LANCZOS3:
        return 3.0f;
    case K_LANCZOS5:
        return 5.0f;
    case K_GAUSSIAN:
        return 1.5f;
    default:
        return 2.0f; /* Keys, Mitchell */
    }
}

/* The kernels of sampling_kernels.h at |x|, with their float (and, for the Gaussian,
 * double) operations. */
static float kernel_at(int kind, float x)
{
    static const float pi = 3.14159265359f;
    x = fabsf(x);
    switch (kind) {
    case K_TRIANGLE:
        return x < 1.0f ? 1.0f - x : 0.0f;
    case K_KEYS:
        if (x >= 2.0f)
            return 0.0f;
        if (x >= 1.0f)
            return ((-0.5f * x + 2.5f) * x - 4.0f) * x + 2.0f;
        return ((1.5f * x - 2.5f) * x) * x + 1.0f;
    case K_MITCHELL:
        if (x >= 2.0f)
            return 0.0f;
        if (x >= 1.0f)
            return (((-7.0f / 18.0f) * x + 2.0f) * x - 10.0f / 3.0f) * x + 16.0f / 9.0f;
        return (((7.0f / 6.0f) * x - 2.0f) * x) * x + 8.0f / 9.0f;
    case K_GAUSSIAN: {
        const float radius = 1.5f, sigma = radius / 3.0f;
        if (x >= radius)
            return 0.0f;
        return (float)exp((double)(-x * x) / (2.0 * (double)sigma * (double)sigma));
    }
    default: {
        const float radius = kind == K_LANCZOS3 ? 3.0f : 5.0f;
        if (x > radius)
            return 0.0f;
        if ((double)x <= 1e-3)
            return 1.0f; /* the limit of sin(x) / x */
        return radius * sinf(pi * x) * sinf(pi * x / radius) / (pi * pi * x * x);
    }
    }
}

/* ScaleAndTranslate's geometry of one axis (translation 0, scale = out / in in float). */
typedef struct axis_geometry {
    float inv_scale;
    float kernel_scale; /* > 1 only when antialiasing a downscale */
    float reach;        /* radius * kernel_scale */
    uint32_t taps;      /* span size: weights stored per output coordinate */
} axis_geometry;

static axis_geometry geometry(const filter *f, uint32_t in, uint32_t out)
{
    axis_geometry g;
    float scale = (float)out / (float)in;
    g.inv_scale = (float)(1.0 / (double)scale);
    g.kernel_scale = f->antialias && !(g.inv_scale < 1.0f) ? g.inv_scale : 1.0f;
    g.reach = kernel_radius(f->kind) * g.kernel_scale;
    if (f->table) {
        g.taps = 4;
        return g;
    }
    double span = 2.0 * ceil((double)g.reach) + 1.0; /* in double: no int overflow */
    g.taps = span < (double)in ? (uint32_t)span : in;
    return g;
}

/* Per output coordinate: `used` taps (<= taps) at input indices idx[], weights wt[]. */
typedef struct axis_taps {
    uint32_t taps;
    int32_t *idx;
    float *wt;
    uint32_t *used;
} axis_taps;

static void span_weights(const filter *f, const axis_geometry *g, uint32_t in, uint32_t out,
                         const axis_taps *a)
{
    float inv_kernel_scale = 1.0f / g->kernel_scale;
    for (uint32_t o = 0; o < out; o++) {
        int32_t *idx = a->idx + (size_t)o * a->taps;
        float *wt = a->wt + (size_t)o * a->taps;
        float sample = ((float)o + 0.5f) * g->inv_scale; /* translation 0 */
        int64_t start = 0, end = 0;
        if (!(sample < 0.0f || sample > (float)in)) { /* else an empty span: weights 0 */
            start = (int64_t)ceilf(sample - g->reach - 0.5f);
            end = (int64_t)floorf(sample + g->reach - 0.5f);
            start = start < 0 ? 0 : (start > (int64_t)in - 1 ? (int64_t)in - 1 : start);
            end = (end < 0 ? 0 : (end > (int64_t)in - 1 ? (int64_t)in - 1 : end)) + 1;
            if (end - start > (int64_t)a->taps) /* TensorFlow: "Span is too large" */
                end = start + (int64_t)a->taps;
        }
        float sum = 0.0f;
        for (int64_t s = start; s < end; s++) {
            float pos = (float)s + 0.5f - sample;
            float w = kernel_at(f->kind, fabsf(pos * inv_kernel_scale));
            sum += w;
            wt[s - start] = w;
        }
        float norm = fabsf(sum) >= 1000.0f * FLT_MIN ? 1.0f / sum : 0.0f;
        uint32_t n = (uint32_t)(end - start);
        for (uint32_t k = 0; k < a->taps; k++)
            wt[k] = k < n && norm != 0.0f ? wt[k] * norm : 0.0f;
        /* TensorFlow runs every stored weight (zeros too) that stays inside the image */
        uint64_t last = (uint64_t)start + a->taps;
        a->used[o] = (uint32_t)((last < in ? last : in) - (uint64_t)start);
        for (uint32_t k = 0; k < a->used[o]; k++)
            idx[k] = (int32_t)(start + k);
    }
}

/* ResizeBicubic's coefficient table (1024 steps, a = -0.5), entry by entry: the weight
 * of the nearer tap at distance i / 1024 and of the farther one at 1 + i / 1024. */
static float keys_near(int64_t i)
{
    const double a = -0.5;
    float x = (float)((double)i * 1.0 / 1024.0);
    return (float)(((a + 2) * x - (a + 3)) * x * x + 1);
}

static float keys_far(int64_t i)
{
    const double a = -0.5;
    float x = (float)((double)i * 1.0 / 1024.0);
    x = (float)((double)x + 1.0);
    return (float)(((a * x - 5 * a) * x + 8 * a) * x - 4 * a);
}

static int64_t bound(int64_t v, uint32_t n)
{
    return v < 0 ? 0 : (v > (int64_t)n - 1 ? (int64_t)n - 1 : v);
}

static void table_weights(uint32_t in, uint32_t out, const axis_taps *a)
{
    float scale = (float)in / (float)out;
    for (uint32_t o = 0; o < out; o++) {
        float loc_f = ((float)o + 0.5f) * scale - 0.5f;
        int64_t loc = (int64_t)floorf(loc_f);
        float delta = loc_f - (float)loc;
        int64_t off = (int64_t)lrintf(delta * 1024.0f);
        int64_t want[4] = {loc - 1, loc, loc + 1, loc + 2};
        float w[4] = {keys_far(off), keys_near(off), keys_near(1024 - off),
                      keys_far(1024 - off)};
        int32_t *idx = a->idx + (size_t)o * 4;
        float *wt = a->wt + (size_t)o * 4;
        for (int k = 0; k < 4; k++) {
            idx[k] = (int32_t)bound(want[k], in);
            if (idx[k] != want[k])
                w[k] = 0.0f; /* outside the image: no weight (renormalised below) */
        }
        float sum = w[0] + w[1] + w[2] + w[3];
        if (fabsf(sum) >= 1000.0f * FLT_MIN) {
            float inv = 1.0f / sum;
            for (int k = 0; k < 4; k++)
                w[k] *= inv;
        }
        memcpy(wt, w, sizeof w);
        a->used[o] = 4;
    }
}

static size_t axis_bytes(uint32_t out, uint32_t taps)
{
    size_t n;
    if (!tfn__mul_size(out, taps, &n) || !tfn__mul_size(n, sizeof(int32_t) + sizeof(float), &n) ||
        !tfn__add_size(n, (size_t)out * sizeof(uint32_t), &n))
        return SIZE_MAX;
    return n;
}

size_t tfn__filter_scratch_size(int method, uint32_t h, uint32_t w, int c, uint32_t oh,
                                uint32_t ow)
{
    filter f;
    if (!filter_of(method, &f))
        return 0;
    axis_geometry gx = geometry(&f, w, ow), gy = geometry(&f, h, oh);
    size_t rows, total = 0;
    if (!tfn__mul_size((size_t)w + ow, (size_t)c * sizeof(float), &rows) ||
        !tfn__add_size(axis_bytes(ow, gx.taps), axis_bytes(oh, gy.taps), &total) ||
        !tfn__add_size(total, rows + 64, &total))
        return SIZE_MAX;
    return total;
}

static axis_taps carve(void **p, uint32_t out, uint32_t taps)
{
    axis_taps a;
    a.taps = taps;
    a.idx = *p;
    a.wt = (float *)(void *)(a.idx + (size_t)out * taps);
    a.used = (uint32_t *)(void *)(a.wt + (size_t)out * taps);
    *p = a.used + out;
    return a;
}

void tfn__filter_prepare(int method, uint32_t h, uint32_t w, int c, uint32_t oh, uint32_t ow,
                         void *scratch, tfn__filter_plan *p)
{
    filter f;
    filter_of(method, &f);
    axis_geometry gx = geometry(&f, w, ow), gy = geometry(&f, h, oh);
    void *at = scratch;
    axis_taps x = carve(&at, ow, gx.taps), y = carve(&at, oh, gy.taps);
    if (f.table) {
        table_weights(w, ow, &x);
        table_weights(h, oh, &y);
    } else {
        span_weights(&f, &gx, w, ow, &x);
        span_weights(&f, &gy, h, oh, &y);
    }
    p->w = w;
    p->ow = ow;
    p->c = c;
    p->xtaps = x.taps;
    p->ytaps = y.taps;
    p->xidx = x.idx;
    p->yidx = y.idx;
    p->xwt = x.wt;
    p->ywt = y.wt;
    p->xused = x.used;
    p->yused = y.used;
    p->inter = at;
    p->row = p->inter + (size_t)w * (size_t)c;
}

/* Output row y: the vertical pass (TensorFlow's GatherRows: each tap's input row,
 * weighted, added to an input-width float row), then the horizontal pass
 * (GatherColumns) into `row` (ow * c floats). */
#define FILTER_ROW(NAME, T)                                                               \
    void NAME(const tfn__filter_plan *p, const T *src, uint32_t y, float *row)            \
    {                                                                                     \
        size_t n = (size_t)p->w * (size_t)p->c;                                           \
        float *inter = p->inter;                                                          \
        for (size_t i = 0; i < n; i++)                                                    \
            inter[i] = 0.0f;                                                              \
        const int32_t *yi = p->yidx + (size_t)y * p->ytaps;                               \
        const float *yw = p->ywt + (size_t)y * p->ytaps;                                  \
        for (uint32_t k = 0; k < p->yused[y]; k++) {                                      \
            const T *in = src + (size_t)yi[k] * n;                                        \
            float wk = yw[k];                                                             \
            for (size_t i = 0; i < n; i++)                                                \
                inter[i] += wk * (float)in[i];                                            \
        }                                                                                 \
        size_t c = (size_t)p->c;                                                          \
        for (uint32_t x = 0; x < p->ow; x++, row += c) {                                  \
            const int32_t *xi = p->xidx + (size_t)x * p->xtaps;                           \
            const float *xw = p->xwt + (size_t)x * p->xtaps;                              \
            for (size_t ch = 0; ch < c; ch++)                                             \
                row[ch] = 0.0f;                                                           \
            for (uint32_t k = 0; k < p->xused[x]; k++) {                                  \
                const float *v = inter + (size_t)xi[k] * c;                               \
                for (size_t ch = 0; ch < c; ch++)                                         \
                    row[ch] += xw[k] * v[ch];                                             \
            }                                                                             \
        }                                                                                 \
    }

FILTER_ROW(tfn__filter_row_u8, uint8_t)
FILTER_ROW(tfn__filter_row_f32, float)

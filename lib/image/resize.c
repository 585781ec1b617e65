/* resize.c - bilinear, nearest-neighbour and area resizing with TensorFlow's arithmetic
 * (core/kernels/image/resize_bilinear_op.cc and resize_nearest_neighbor_op.cc with
 * half_pixel_centers=True, align_corners=False; resize_area_op.cc): float scale in/out,
 * the same interpolation weights and the same order of float operations, so float
 * results are bit-identical. The filter methods come from resize_kernels.c. Each output
 * row is computed in float, then stored with the caller's normalisation, dtype and
 * layout. */
#include "image_internal.h"

#include <math.h>

typedef struct axis_weights {
    size_t lower, upper; /* element offsets (index * stride) */
    float lerp;
} axis_weights;

static void bilinear_weights(uint32_t in, uint32_t out, size_t stride, axis_weights *w)
{
    float scale = (float)in / (float)out;
    for (uint32_t i = 0; i < out; i++) {
        float pos = ((float)i + 0.5f) * scale - 0.5f;
        float fl = floorf(pos);
        int64_t lo = (int64_t)fl, hi = (int64_t)ceilf(pos);
        if (lo < 0)
            lo = 0;
        if (hi > (int64_t)in - 1)
            hi = (int64_t)in - 1;
        w[i].lower = (size_t)lo * stride;
        w[i].upper = (size_t)hi * stride;
        w[i].lerp = pos - fl;
    }
}

static void nearest_weights(uint32_t in, uint32_t out, size_t stride, axis_weights *w)
{
    float scale = (float)in / (float)out;
    for (uint32_t i = 0; i < out; i++) {
        int64_t k = (int64_t)floorf(((float)i + 0.5f) * scale);
        if (k > (int64_t)in - 1)
            k = (int64_t)in - 1;
        if (k < 0)
            k = 0;
        w[i].lower = w[i].upper = (size_t)k * stride;
        w[i].lerp = 0.0f;
    }
}

/* Area: the input columns [start, end) covering output column x, the weight of the
 * first and of the last one (resize_area_op.cc's CachedInterpolation). */
typedef struct area_span {
    int64_t start, end;
    float start_scale, end_scale;
} area_span;

/* Weight of input cell v in the output cell [in0, in1): TensorFlow's expression. */
static float area_weight(int64_t v, float in0, float in1, float scale)
{
    float lo = (float)v, hi = (float)(v + 1);
    if (lo < in0)
        return hi > in1 ? scale : hi - in0;
    return hi > in1 ? in1 - lo : 1.0f;
}

static int64_t bound(int64_t v, uint32_t n)
{
    return v < 0 ? 0 : (v > (int64_t)n - 1 ? (int64_t)n - 1 : v);
}

static void area_spans(uint32_t in, uint32_t out, area_span *sp)
{
    float scale = (float)in / (float)out;
    for (uint32_t x = 0; x < out; x++) {
        float in0 = (float)x * scale, in1 = (float)(x + 1) * scale;
        sp[x].start = (int64_t)floorf(in0);
        sp[x].start_scale = area_weight(sp[x].start, in0, in1, scale);
        sp[x].end = (int64_t)ceilf(in1);
        sp[x].end_scale = area_weight(sp[x].end - 1, in0, in1, scale);
    }
}

/* Input rows one output row of the area method can cover: in/out rounded up, plus the
 * two partial rows at its edges. */
static size_t area_max_rows(uint32_t in_h, uint32_t out_h)
{
    return (size_t)(in_h / out_h) + 3;
}

bool tfn__resize_method_ok(int method)
{
    int base = method & ~TFN_RESIZE_ANTIALIAS;
    return base >= TFN_RESIZE_BILINEAR && base <= TFN_RESIZE_MITCHELLCUBIC;
}

size_t tfn__resize_scratch_size(int method, uint32_t h, uint32_t w, int c, uint32_t oh,
                                uint32_t ow)
{
    if (tfn__resize_is_filter(method))
        return tfn__filter_scratch_size(method, h, w, c, oh, ow);
    size_t rows = area_max_rows(h, oh);
    return ((size_t)ow + oh) * sizeof(axis_weights) +
           (size_t)ow * (size_t)c * sizeof(float) + rows * (sizeof(float) + sizeof(size_t)) +
           64;
}

/* One output row of the area method (resize_area_op.cc: per channel, each input row's
 * weighted run summed across the row, times its row weight, summed, times
 * 1 / (height_scale * width_scale)). */
#define AREA_ROW(T)                                                                       \
    static void area_row_##T(const T *src, uint32_t h, uint32_t w, int c, uint32_t oh,   \
                             uint32_t y, const area_span *xs, uint32_t ow, float *ys,    \
                             size_t *yrow, float *row)                                    \
    {                                                                                     \
        float hs = (float)h / (float)oh, wsc = (float)w / (float)ow;                     \
        float scale = (float)(1.0 / (double)(hs * wsc));                                 \
        float in0 = (float)y * hs, in1 = (float)(y + 1) * hs;                            \
        int64_t y0 = (int64_t)floorf(in0), y1 = (int64_t)ceilf(in1);                     \
        size_t nrows = 0;                                                                 \
        size_t stride = (size_t)w * (size_t)c;                                            \
        for (int64_t i = y0; i < y1; i++, nrows++) {                                      \
            ys[nrows] = area_weight(i, in0, in1, hs);                                     \
            yrow[nrows] = (size_t)bound(i, h) * stride;                                   \
        }                                                                                 \
        for (uint32_t x = 0; x < ow; x++) {                                               \
            const area_span *sp = &xs[x];                                                 \
            size_t first = (size_t)bound(sp->start, w) * (size_t)c;                       \
            size_t last = (size_t)bound(sp->end - 1, w) * (size_t)c;                      \
            for (int k = 0; k < c; k++) {                                                 \
                float sum = 0;                                                            \
                for (size_t r = 0; r < nrows; r++) {                                      \
                    const T *p = src + yrow[r];                                           \
                    float sum_y = (float)p[first + (size_t)k] * sp->start_scale;          \
                    if (sp->start + 1 != sp->end) {                                       \
                        for (int64_t xx = sp->start + 1; xx < sp->end - 1; xx++)          \
                            sum_y += (float)p[(size_t)bound(xx, w) * (size_t)c + (size_t)k]; \
                        sum_y += (float)p[last + (size_t)k] * sp->end_scale;              \
                    }                                                                     \
                    sum += sum_y * ys[r];                                                 \
                }                                                                         \
                row[(size_t)x * (size_t)c + (size_t)k] = sum * scale;                     \
            }                                                                             \
        }                                                                                 \
    }

AREA_ROW(uint8_t)
AREA_ROW(float)

/* One output row of bilinear interpolation between input rows `top` and `bot`, with
 * TensorFlow's order of operations (compute_lerp in resize_bilinear_op.cc). The
 * channel count is a compile-time constant in the common cases so that the compiler
 * unrolls the inner loop. */
#define LERP_PIXEL(T, C)                                                                  \
    for (int k = 0; k < (C); k++) {                                                       \
        float a = (float)tl[k], b = (float)tr[k], d = (float)bl[k], e = (float)br[k];    \
        float t = a + (b - a) * xl;                                                       \
        float u = d + (e - d) * xl;                                                       \
        row[k] = t + (u - t) * ylerp;                                                     \
    }

#define BILINEAR_ROW(T)                                                                   \
    static void bilinear_row_##T(const T *top, const T *bot, float ylerp,                \
                                 const axis_weights *xw, uint32_t ow, int c, float *row) \
    {                                                                                     \
        for (uint32_t x = 0; x < ow; x++) {                                               \
            const T *tl = top + xw[x].lower, *tr = top + xw[x].upper;                    \
            const T *bl = bot + xw[x].lower, *br = bot + xw[x].upper;                    \
            float xl = xw[x].lerp;                                                        \
            if (c == 3) {                                                                 \
                LERP_PIXEL(T, 3)                                                          \
            } else if (c == 1) {                                                          \
                LERP_PIXEL(T, 1)                                                          \
            } else {                                                                      \
                LERP_PIXEL(T, c)                                                          \
            }                                                                             \
            row += c;                                                                     \
        }                                                                                 \
    }

BILINEAR_ROW(uint8_t)
BILINEAR_ROW(float)

static inline float normalise(float v, int k, const tfn__resize_out *out)
{
    return out->divide ? (v - out->sub[k]) / out->mul[k] : (v - out->sub[k]) * out->mul[k];
}

static inline uint8_t to_u8(float v)
{
    /* truncation as TensorFlow's cast, saturated (NaN -> 0) */
    if (!(v > 0.0f))
        return 0;
    return v >= 255.0f ? 255 : (uint8_t)v;
}

/* Stores one row of ow * c floats at output row y: normalised, converted, in the
 * layout asked for. */
static void store_row(float *row, uint32_t y, uint32_t oh, uint32_t ow, int c,
                      const tfn__resize_out *out)
{
    size_t n = (size_t)ow * (size_t)c;
    if (!out->identity_norm) {
        for (size_t i = 0; i < n; i += (size_t)c)
            for (int k = 0; k < c; k++)
                row[i + (size_t)k] = normalise(row[i + (size_t)k], k, out);
    }
    if (!out->nchw) {
        size_t at = (size_t)y * n;
        switch (out->dtype) {
        case TFN_IMAGE_FLOAT32:
            if ((float *)out->dst + at != row)
                memcpy((float *)out->dst + at, row, n * sizeof(float));
            break;
        case TFN_IMAGE_BFLOAT16: {
            uint16_t *d = (uint16_t *)out->dst + at;
            for (size_t i = 0; i < n; i++)
                d[i] = tfn__f32_to_bf16(row[i]);
            break;
        }
        default: {
            uint8_t *d = (uint8_t *)out->dst + at;
            for (size_t i = 0; i < n; i++)
                d[i] = to_u8(row[i]);
            break;
        }
        }
        return;
    }
    size_t plane = (size_t)oh * ow;
    for (int k = 0; k < c; k++) {
        size_t at = (size_t)k * plane + (size_t)y * ow;
        const float *s = row + k;
        switch (out->dtype) {
        case TFN_IMAGE_FLOAT32: {
            float *d = (float *)out->dst + at;
            for (uint32_t x = 0; x < ow; x++)
                d[x] = s[(size_t)x * (size_t)c];
            break;
        }
        case TFN_IMAGE_BFLOAT16: {
            uint16_t *d = (uint16_t *)out->dst + at;
            for (uint32_t x = 0; x < ow; x++)
                d[x] = tfn__f32_to_bf16(s[(size_t)x * (size_t)c]);
            break;
        }
        default: {
            uint8_t *d = (uint8_t *)out->dst + at;
            for (uint32_t x = 0; x < ow; x++)
                d[x] = to_u8(s[(size_t)x * (size_t)c]);
            break;
        }
        }
    }
}

/* Where to compute row y: straight into the output for NHWC float32, else scratch. */
static float *row_target(float *scratch_row, uint32_t y, uint32_t ow, int c,
                         const tfn__resize_out *out)
{
    if (!out->nchw && out->dtype == TFN_IMAGE_FLOAT32)
        return (float *)out->dst + (size_t)y * ow * (size_t)c;
    return scratch_row;
}

void tfn__resize_u8(const uint8_t *src, uint32_t h, uint32_t w, int c, uint32_t oh,
                    uint32_t ow, const tfn__resize_out *out, void *scratch)
{
    axis_weights *xw = scratch;
    axis_weights *yw = xw + ow;
    float *row = (float *)(void *)(yw + oh);
    size_t stride = (size_t)w * (size_t)c;
    if (tfn__resize_is_filter(out->method)) {
        tfn__filter_plan plan;
        tfn__filter_prepare(out->method, h, w, c, oh, ow, scratch, &plan);
        for (uint32_t y = 0; y < oh; y++) {
            float *r = row_target(plan.row, y, ow, c, out);
            tfn__filter_row_u8(&plan, src, y, r);
            store_row(r, y, oh, ow, c, out);
        }
        return;
    }
    int method = out->method & ~TFN_RESIZE_ANTIALIAS;
    if (method == TFN_RESIZE_NEAREST) {
        nearest_weights(w, ow, (size_t)c, xw);
        nearest_weights(h, oh, stride, yw);
        if (out->dtype == TFN_IMAGE_UINT8 && out->identity_norm && !out->nchw) {
            uint8_t *d = out->dst;
            for (uint32_t y = 0; y < oh; y++) {
                const uint8_t *s = src + yw[y].lower;
                for (uint32_t x = 0; x < ow; x++, d += c)
                    memcpy(d, s + xw[x].lower, (size_t)c);
            }
            return;
        }
        for (uint32_t y = 0; y < oh; y++) {
            const uint8_t *s = src + yw[y].lower;
            float *r0 = row_target(row, y, ow, c, out), *r = r0;
            for (uint32_t x = 0; x < ow; x++)
                for (int k = 0; k < c; k++)
                    *r++ = (float)s[xw[x].lower + (size_t)k];
            store_row(r0, y, oh, ow, c, out);
        }
        return;
    }
    if (method == TFN_RESIZE_AREA) {
        /* scratch: spans (in place of the weights), row offsets, row weights, one row */
        area_span *xs = (area_span *)(void *)xw; /* same size as axis_weights */
        size_t *yrow = (size_t *)(void *)(yw + oh);
        float *ys = (float *)(void *)(yrow + area_max_rows(h, oh));
        float *arow = ys + area_max_rows(h, oh);
        area_spans(w, ow, xs);
        for (uint32_t y = 0; y < oh; y++) {
            float *r = row_target(arow, y, ow, c, out);
            area_row_uint8_t(src, h, w, c, oh, y, xs, ow, ys, yrow, r);
            store_row(r, y, oh, ow, c, out);
        }
        return;
    }
    bilinear_weights(w, ow, (size_t)c, xw);
    bilinear_weights(h, oh, stride, yw);
    for (uint32_t y = 0; y < oh; y++) {
        float *r = row_target(row, y, ow, c, out);
        bilinear_row_uint8_t(src + yw[y].lower, src + yw[y].upper, yw[y].lerp, xw, ow, c, r);
        store_row(r, y, oh, ow, c, out);
    }
}

void tfn__resize_f32(const float *src, uint32_t h, uint32_t w, int c, uint32_t oh,
                     uint32_t ow, int method, float *dst, void *scratch)
{
    axis_weights *xw = scratch;
    axis_weights *yw = xw + ow;
    size_t stride = (size_t)w * (size_t)c;
    size_t orow = (size_t)ow * (size_t)c;
    if (tfn__resize_is_filter(method)) {
        tfn__filter_plan plan;
        tfn__filter_prepare(method, h, w, c, oh, ow, scratch, &plan);
        for (uint32_t y = 0; y < oh; y++)
            tfn__filter_row_f32(&plan, src, y, dst + (size_t)y * orow);
        return;
    }
    method &= ~TFN_RESIZE_ANTIALIAS; /* no effect on nearest and area, as TensorFlow */
    if (method == TFN_RESIZE_NEAREST) {
        nearest_weights(w, ow, (size_t)c, xw);
        nearest_weights(h, oh, stride, yw);
        for (uint32_t y = 0; y < oh; y++) {
            float *d = dst + (size_t)y * orow;
            for (uint32_t x = 0; x < ow; x++, d += c)
                memcpy(d, src + yw[y].lower + xw[x].lower, (size_t)c * sizeof(float));
        }
        return;
    }
    if (method == TFN_RESIZE_AREA) {
        area_span *xs = (area_span *)(void *)xw;
        size_t *yrow = (size_t *)(void *)(yw + oh);
        float *ys = (float *)(void *)(yrow + area_max_rows(h, oh));
        area_spans(w, ow, xs);
        for (uint32_t y = 0; y < oh; y++)
            area_row_float(src, h, w, c, oh, y, xs, ow, ys, yrow, dst + (size_t)y * orow);
        return;
    }
    bilinear_weights(w, ow, (size_t)c, xw);
    bilinear_weights(h, oh, stride, yw);
    for (uint32_t y = 0; y < oh; y++)
        bilinear_row_float(src + yw[y].lower, src + yw[y].upper, yw[y].lerp, xw, ow, c,
                           dst + (size_t)y * orow);
}

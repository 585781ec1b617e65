/* resize.c - bilinear and nearest-neighbour resizing with TensorFlow's arithmetic
 * (core/kernels/image/resize_bilinear_op.cc and resize_nearest_neighbor_op.cc with
 * half_pixel_centers=True, align_corners=False): float scale in/out, the same
 * interpolation weights and the same order of float operations, so float results
 * are bit-identical. Each output row is computed in float, then stored with the
 * caller's normalisation, dtype and layout. */
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

size_t tfn__resize_scratch_size(uint32_t out_w, uint32_t out_h, int channels)
{
    return ((size_t)out_w + out_h) * sizeof(axis_weights) +
           (size_t)out_w * (size_t)channels * sizeof(float) + 64;
}

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
    if (out->method == TFN_RESIZE_NEAREST) {
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
    bilinear_weights(w, ow, (size_t)c, xw);
    bilinear_weights(h, oh, stride, yw);
    for (uint32_t y = 0; y < oh; y++)
        bilinear_row_float(src + yw[y].lower, src + yw[y].upper, yw[y].lerp, xw, ow, c,
                           dst + (size_t)y * orow);
}

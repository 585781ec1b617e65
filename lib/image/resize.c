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

/* One output row of bilinear interpolation between input rows `top` and `bot`. */
#define BILINEAR_ROW(T)                                                                   \
    static void bilinear_row_##T(const T *top, const T *bot, float ylerp,                \
                                 const axis_weights *xw, uint32_t ow, int c, float *row) \
    {                                                                                     \
        for (uint32_t x = 0; x < ow; x++) {                                               \
            const T *tl = top + xw[x].lower, *tr = top + xw[x].upper;                    \
            const T *bl = bot + xw[x].lower, *br = bot + xw[x].upper;                    \
            float xl = xw[x].lerp;                                                        \
            for (int k = 0; k < c; k++) {                                                 \
                float a = (float)tl[k], b = (float)tr[k], d = (float)bl[k], e = (float)br[k]; \
                float t = a + (b - a) * xl;                                               \
                float u = d + (e - d) * xl;                                               \
                row[k] = t + (u - t) * ylerp;                                             \
            }                                                                             \
            row += c;                                                                     \
        }                                                                                 \
    }

BILINEAR_ROW(uint8_t)
BILINEAR_ROW(float)

static void store_row(const float *row, uint32_t y, uint32_t oh, uint32_t ow, int c,
                      const tfn__resize_out *out)
{
    size_t n = (size_t)ow * (size_t)c;
    size_t plane = (size_t)oh * ow;
    float buf[4];
    for (size_t i = 0; i < n; i++) {
        int k = (int)(i % (size_t)c);
        float v = row[i];
        if (!out->identity_norm)
            v = out->divide ? (v - out->sub[k]) / out->mul[k] : (v - out->sub[k]) * out->mul[k];
        size_t at = out->nchw ? (size_t)k * plane + (size_t)y * ow + i / (size_t)c
                              : (size_t)y * n + i;
        switch (out->dtype) {
        case TFN_IMAGE_FLOAT32:
            ((float *)out->dst)[at] = v;
            break;
        case TFN_IMAGE_BFLOAT16:
            ((uint16_t *)out->dst)[at] = tfn__f32_to_bf16(v);
            break;
        default: /* uint8: truncation as TensorFlow's cast, saturated */
            buf[0] = v != v ? 0.0f : (v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v));
            ((uint8_t *)out->dst)[at] = (uint8_t)buf[0];
            break;
        }
    }
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
            float *r = row;
            for (uint32_t x = 0; x < ow; x++)
                for (int k = 0; k < c; k++)
                    *r++ = (float)s[xw[x].lower + (size_t)k];
            store_row(row, y, oh, ow, c, out);
        }
        return;
    }
    bilinear_weights(w, ow, (size_t)c, xw);
    bilinear_weights(h, oh, stride, yw);
    for (uint32_t y = 0; y < oh; y++) {
        bilinear_row_uint8_t(src + yw[y].lower, src + yw[y].upper, yw[y].lerp, xw, ow, c, row);
        store_row(row, y, oh, ow, c, out);
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

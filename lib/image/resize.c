/* resize.c - bilinear, nearest-neighbour and area resizing with TensorFlow's arithmetic
 * (core/kernels/image/resize_bilinear_op.cc and resize_nearest_neighbor_op.cc with
 * half_pixel_centers=True, align_corners=False; resize_area_op.cc): float scale in/out,
 * the same interpolation weights and the same order of float operations, so float
 * results are bit-identical. The filter methods come from resize_kernels.c. Each output
 * row is computed in float, then stored with the caller's normalisation, dtype and
 * layout. Bilinear from uint8 works a row at a time (4 elements at a time with SSE2,
 * the same IEEE operations), also on rows as a JPEG decoder hands them over
 * (tfn__bilinear_stream), so that a decode + resize never stores the full-size image. */
#include "image_internal.h"

#include <math.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

/* Bytes of the per-element normalisation arrays (sub and mul of each of the ow * c
 * values of a row) that come first in every scratch block, 64-byte rounded. */
static size_t norm_bytes(uint32_t ow, int c)
{
    return ((size_t)ow * (size_t)c * 2 * sizeof(float) + 63) & ~(size_t)63;
}

/* The bilinear uint8 row cache (after the axis weights): per output element its two
 * input offsets and weight, the gathered bytes, two horizontally interpolated input
 * rows and one output row. */
static size_t bilinear_cache_bytes(uint32_t ow, int c)
{
    size_t n = (size_t)ow * (size_t)c;
    return n * (2 * sizeof(int32_t) + sizeof(float) + 2 + 3 * sizeof(float)) + 9 * 64;
}

size_t tfn__resize_scratch_size(int method, uint32_t h, uint32_t w, int c, uint32_t oh,
                                uint32_t ow)
{
    size_t norm = norm_bytes(ow, c);
    if (tfn__resize_is_filter(method)) {
        size_t f = tfn__filter_scratch_size(method, h, w, c, oh, ow);
        return f == SIZE_MAX || f > SIZE_MAX - norm ? SIZE_MAX : f + norm;
    }
    size_t rows = area_max_rows(h, oh);
    return norm + ((size_t)ow + oh) * sizeof(axis_weights) +
           (size_t)ow * (size_t)c * sizeof(float) + rows * (sizeof(float) + sizeof(size_t)) +
           bilinear_cache_bytes(ow, c) + 64;
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

BILINEAR_ROW(float)

/* The normalisation of a row as per-element arrays: element i of a row is channel
 * i % c. Identity normalisation needs none. */
typedef struct row_norm {
    const float *sub, *mul; /* ow * c each */
    int divide;
    bool identity;
} row_norm;

static row_norm make_norm(void *scratch, uint32_t ow, int c, const tfn__resize_out *out)
{
    row_norm rn = {NULL, NULL, out->divide, out->identity_norm};
    if (rn.identity)
        return rn;
    size_t n = (size_t)ow * (size_t)c;
    float *sub = scratch, *mul = sub + n;
    for (size_t i = 0; i < n; i++) {
        sub[i] = out->sub[i % (size_t)c];
        mul[i] = out->mul[i % (size_t)c];
    }
    rn.sub = sub;
    rn.mul = mul;
    return rn;
}

/* (v - sub) / mul or (v - sub) * mul for each element, in float (4 at a time with SSE2:
 * the same IEEE operations, so the same values). */
static void normalise_row(float *row, size_t n, const row_norm *rn)
{
    if (rn->identity)
        return;
    size_t i = 0;
#if defined(__SSE2__)
    if (rn->divide) {
        for (; i + 4 <= n; i += 4)
            _mm_storeu_ps(row + i, _mm_div_ps(_mm_sub_ps(_mm_loadu_ps(row + i),
                                                         _mm_loadu_ps(rn->sub + i)),
                                              _mm_loadu_ps(rn->mul + i)));
    } else {
        for (; i + 4 <= n; i += 4)
            _mm_storeu_ps(row + i, _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(row + i),
                                                         _mm_loadu_ps(rn->sub + i)),
                                              _mm_loadu_ps(rn->mul + i)));
    }
#endif
    for (; i < n; i++)
        row[i] = rn->divide ? (row[i] - rn->sub[i]) / rn->mul[i]
                            : (row[i] - rn->sub[i]) * rn->mul[i];
}

static inline uint8_t to_u8(float v)
{
    /* truncation as TensorFlow's cast, saturated (NaN -> 0) */
    if (!(v > 0.0f))
        return 0;
    return v >= 255.0f ? 255 : (uint8_t)v;
}

/* Stores one row of ow * c floats, already normalised, at output row y: converted,
 * in the layout asked for. */
static void put_row(const float *row, uint32_t y, uint32_t oh, uint32_t ow, int c,
                    const tfn__resize_out *out)
{
    size_t n = (size_t)ow * (size_t)c;
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

/* Normalises row y in place and stores it. */
static void store_row(float *row, uint32_t y, uint32_t oh, uint32_t ow, int c,
                      const tfn__resize_out *out, const row_norm *rn)
{
    normalise_row(row, (size_t)ow * (size_t)c, rn);
    put_row(row, y, oh, ow, c, out);
}

/* ---- bilinear from uint8, a row at a time with a cache of interpolated input rows.
 * Output row y is  t + (u - t) * ylerp  where t and u are the horizontally
 * interpolated input rows lower(y) and upper(y), each element  a + (b - a) * xlerp:
 * TensorFlow's compute_lerp, the same float operations on the same operands, only
 * grouped by input row (an input row shared by two output rows is interpolated once)
 * and computed 4 elements at a time. */
typedef struct bilinear_cache {
    size_t n;          /* ow * c */
    uint32_t ow;
    int c;
    size_t row_bytes;  /* w * c */
    int32_t *lo, *hi;  /* per element: input offsets in a row (first ow: per pixel) */
    float *xl;         /* per element: horizontal weight */
    uint8_t *ga, *gb;  /* gathered bytes of the row being interpolated */
    float *hrow[2];    /* interpolated input rows ... */
    int64_t tag[2];    /* ... and which (-1: none) */
    float *out;        /* one output row */
} bilinear_cache;

static void *align64(void *p)
{
    return (void *)(((uintptr_t)p + 63) & ~(uintptr_t)63);
}

static void bilinear_cache_init(bilinear_cache *bc, void *at, const axis_weights *xw,
                                uint32_t w, uint32_t ow, int c)
{
    size_t n = (size_t)ow * (size_t)c;
    bc->n = n;
    bc->ow = ow;
    bc->c = c;
    bc->row_bytes = (size_t)w * (size_t)c;
    bc->lo = align64(at);
    bc->hi = align64(bc->lo + n);
    bc->xl = align64(bc->hi + n);
    bc->hrow[0] = align64(bc->xl + n);
    bc->hrow[1] = align64(bc->hrow[0] + n);
    bc->out = align64(bc->hrow[1] + n);
    bc->ga = align64(bc->out + n);
    bc->gb = align64(bc->ga + n + 4); /* a pixel's 4-byte store may pass the end by 1 */
    bc->tag[0] = bc->tag[1] = -1;
    bool pixels = c == 3 || c == 4;
    for (uint32_t x = 0; x < ow; x++)
        for (int k = 0; k < c; k++) {
            size_t j = (size_t)x * (size_t)c + (size_t)k;
            size_t at_lo = pixels ? x : j; /* pixel-wise gathers use the first ow */
            if (!pixels || k == 0) {
                bc->lo[at_lo] = (int32_t)(xw[x].lower + (pixels ? 0 : (size_t)k));
                bc->hi[at_lo] = (int32_t)(xw[x].upper + (pixels ? 0 : (size_t)k));
            }
            bc->xl[j] = xw[x].lerp;
        }
}

/* The c bytes of the pixel at offset `at` of a row of `row_bytes` as a 4-byte word (the
 * byte past a 3-byte pixel read too, when the row has it). */
static inline uint32_t pixel_word(const uint8_t *row, size_t at, size_t row_bytes)
{
    uint32_t v;
    if (at + 4 <= row_bytes) {
        memcpy(&v, row + at, 4);
        return v;
    }
    uint8_t b[4] = {row[at], row[at + 1], row[at + 2], 0};
    memcpy(&v, b, 4);
    return v;
}

/* a + (b - a) * xl for each element of input row `src`. */
static void bilinear_hrow(const bilinear_cache *bc, const uint8_t *src, float *dst)
{
    size_t n = bc->n, j = 0;
    /* locals: stores through uint8_t pointers may alias anything, which would make
       the compiler reload every pointer of *bc in each iteration */
    uint8_t *restrict ga = bc->ga, *restrict gb = bc->gb;
    const int32_t *restrict lo = bc->lo, *restrict hi = bc->hi;
    if (bc->c == 3 || bc->c == 4) { /* a pixel at a time: 4-byte loads and stores */
        size_t c = (size_t)bc->c, rb = bc->row_bytes;
        for (uint32_t x = 0; x < bc->ow; x++) {
            uint32_t a = pixel_word(src, (size_t)lo[x], rb), b = pixel_word(src, (size_t)hi[x], rb);
            memcpy(ga + (size_t)x * c, &a, 4);
            memcpy(gb + (size_t)x * c, &b, 4);
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            ga[i] = src[lo[i]];
            gb[i] = src[hi[i]];
        }
    }
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128();
    for (; j + 8 <= n; j += 8) {
        __m128i a16 = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(const void *)(bc->ga + j)), zero);
        __m128i b16 = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(const void *)(bc->gb + j)), zero);
        __m128 a0 = _mm_cvtepi32_ps(_mm_unpacklo_epi16(a16, zero));
        __m128 a1 = _mm_cvtepi32_ps(_mm_unpackhi_epi16(a16, zero));
        __m128 b0 = _mm_cvtepi32_ps(_mm_unpacklo_epi16(b16, zero));
        __m128 b1 = _mm_cvtepi32_ps(_mm_unpackhi_epi16(b16, zero));
        _mm_storeu_ps(dst + j, _mm_add_ps(a0, _mm_mul_ps(_mm_sub_ps(b0, a0),
                                                         _mm_loadu_ps(bc->xl + j))));
        _mm_storeu_ps(dst + j + 4, _mm_add_ps(a1, _mm_mul_ps(_mm_sub_ps(b1, a1),
                                                             _mm_loadu_ps(bc->xl + j + 4))));
    }
#endif
    for (; j < n; j++) {
        float a = (float)bc->ga[j], b = (float)bc->gb[j];
        dst[j] = a + (b - a) * bc->xl[j];
    }
}

/* The interpolated input row `row` (an index), from the cache or computed into the
 * slot the other row of this output row does not use. */
static const float *bilinear_get(bilinear_cache *bc, const uint8_t *src, size_t stride,
                                 int64_t row, int64_t keep)
{
    for (int s = 0; s < 2; s++)
        if (bc->tag[s] == row)
            return bc->hrow[s];
    int s = bc->tag[0] == keep ? 1 : 0;
    bilinear_hrow(bc, src + (size_t)row * stride, bc->hrow[s]);
    bc->tag[s] = row;
    return bc->hrow[s];
}

/* t + (u - t) * yl, normalised, into dst. */
static void bilinear_vrow(const float *t, const float *u, float yl, size_t n, float *dst,
                          const row_norm *rn)
{
    size_t j = 0;
#if defined(__SSE2__)
    const __m128 y = _mm_set1_ps(yl);
    if (rn->identity) {
        for (; j + 4 <= n; j += 4) {
            __m128 a = _mm_loadu_ps(t + j), b = _mm_loadu_ps(u + j);
            _mm_storeu_ps(dst + j, _mm_add_ps(a, _mm_mul_ps(_mm_sub_ps(b, a), y)));
        }
    } else if (rn->divide) {
        for (; j + 4 <= n; j += 4) {
            __m128 a = _mm_loadu_ps(t + j), b = _mm_loadu_ps(u + j);
            __m128 v = _mm_add_ps(a, _mm_mul_ps(_mm_sub_ps(b, a), y));
            _mm_storeu_ps(dst + j, _mm_div_ps(_mm_sub_ps(v, _mm_loadu_ps(rn->sub + j)),
                                              _mm_loadu_ps(rn->mul + j)));
        }
    } else {
        for (; j + 4 <= n; j += 4) {
            __m128 a = _mm_loadu_ps(t + j), b = _mm_loadu_ps(u + j);
            __m128 v = _mm_add_ps(a, _mm_mul_ps(_mm_sub_ps(b, a), y));
            _mm_storeu_ps(dst + j, _mm_mul_ps(_mm_sub_ps(v, _mm_loadu_ps(rn->sub + j)),
                                              _mm_loadu_ps(rn->mul + j)));
        }
    }
#endif
    for (; j < n; j++) {
        float v = t[j] + (u[j] - t[j]) * yl;
        if (!rn->identity)
            v = rn->divide ? (v - rn->sub[j]) / rn->mul[j] : (v - rn->sub[j]) * rn->mul[j];
        dst[j] = v;
    }
}

void tfn__resize_u8(const uint8_t *src, uint32_t h, uint32_t w, int c, uint32_t oh,
                    uint32_t ow, const tfn__resize_out *out, void *scratch)
{
    row_norm rn = make_norm(scratch, ow, c, out);
    scratch = (uint8_t *)scratch + norm_bytes(ow, c);
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
            store_row(r, y, oh, ow, c, out, &rn);
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
            store_row(r0, y, oh, ow, c, out, &rn);
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
            store_row(r, y, oh, ow, c, out, &rn);
        }
        return;
    }
    bilinear_weights(w, ow, (size_t)c, xw);
    bilinear_weights(h, oh, 1, yw); /* row indices */
    bilinear_cache bc;
    bilinear_cache_init(&bc, row, xw, w, ow, c); /* in place of the row and area tables */
    for (uint32_t y = 0; y < oh; y++) {
        int64_t lo = (int64_t)yw[y].lower, hi = (int64_t)yw[y].upper;
        const float *t = bilinear_get(&bc, src, stride, lo, hi);
        const float *u = bilinear_get(&bc, src, stride, hi, lo);
        float *r = row_target(bc.out, y, ow, c, out);
        bilinear_vrow(t, u, yw[y].lerp, bc.n, r, &rn);
        put_row(r, y, oh, ow, c, out);
    }
}

/* ---- bilinear, streamed: input rows arrive in order; input row r is interpolated
 * horizontally when an output row uses it (into cache slot r & 1: an output row uses
 * rows lower and upper <= lower + 1, and rows arrive in order, so the two slots hold
 * every row still needed), and output row y is written once row upper(y) is in. */
typedef struct stream_state {
    axis_weights *yw; /* row indices */
    row_norm rn;
    bilinear_cache bc;
} stream_state;

size_t tfn__bilinear_stream_size(uint32_t h, uint32_t w, int c, uint32_t oh, uint32_t ow)
{
    size_t base = tfn__resize_scratch_size(TFN_RESIZE_BILINEAR, h, w, c, oh, ow);
    size_t rows = (size_t)w * (size_t)c + 128; /* one input row, placed off alignment */
    if (base > SIZE_MAX - rows - sizeof(stream_state) - 128)
        return SIZE_MAX;
    return base + rows + sizeof(stream_state) + 128;
}

void tfn__bilinear_stream_begin(tfn__bilinear_stream *st, uint32_t h, uint32_t w, int c,
                                uint32_t oh, uint32_t ow, const tfn__resize_out *out,
                                void *scratch)
{
    st->out = out;
    st->h = h;
    st->w = w;
    st->c = c;
    st->oh = oh;
    st->ow = ow;
    st->next_y = 0;
    st->received = 0;
    stream_state *ss = scratch;
    uint8_t *at = (uint8_t *)align64(ss + 1);
    ss->rn = make_norm(at, ow, c, out);
    at += norm_bytes(ow, c);
    axis_weights *xw = (axis_weights *)(void *)at;
    ss->yw = xw + ow;
    bilinear_weights(w, ow, (size_t)c, xw);
    bilinear_weights(h, oh, 1, ss->yw);
    bilinear_cache_init(&ss->bc, ss->yw + oh, xw, w, ow, c);
    st->in_row = (uint8_t *)align64(ss->bc.gb + ss->bc.n) + 8; /* see the header */
    st->priv = ss;
}

uint8_t *tfn__bilinear_stream_row(tfn__bilinear_stream *st)
{
    return st->in_row;
}

void tfn__bilinear_stream_push(tfn__bilinear_stream *st)
{
    stream_state *ss = st->priv;
    const axis_weights *yw = ss->yw;
    uint32_t y = st->received++, oy = st->next_y;
    if (oy >= st->oh || (size_t)y < yw[oy].lower)
        return; /* no output row left uses it */
    bilinear_hrow(&ss->bc, st->in_row, ss->bc.hrow[y & 1]);
    ss->bc.tag[y & 1] = y;
    for (; oy < st->oh && yw[oy].upper == (size_t)y; oy++) {
        int64_t lo = (int64_t)yw[oy].lower;
        const float *t = ss->bc.hrow[lo & 1], *u = ss->bc.hrow[y & 1];
        float *r = row_target(ss->bc.out, oy, st->ow, st->c, st->out);
        bilinear_vrow(t, u, yw[oy].lerp, ss->bc.n, r, &ss->rn);
        put_row(r, oy, st->oh, st->ow, st->c, st->out);
    }
    st->next_y = oy;
}

uint32_t tfn__bilinear_stream_finish(const tfn__bilinear_stream *st)
{
    return st->next_y;
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

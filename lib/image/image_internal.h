/*
 * image_internal.h - what the files of lib/image share: the per-codec decoders, the
 * output sink they fill, and the resize kernels. Not public.
 */
#ifndef TFN_IMAGE_INTERNAL_H
#define TFN_IMAGE_INTERNAL_H

#include "../base/tfn_internal.h"

/* TensorFlow's decoders refuse images of 2^29 output bytes or more. */
#define TFN__IMAGE_MAX_BYTES ((uint64_t)1 << 29)

/* Where a decoder writes: it calls get() once it knows the output shape; get()
 * returns a buffer of at least `bytes` bytes, or NULL to stop (its own error set). */
typedef struct tfn__image_sink tfn__image_sink;
struct tfn__image_sink {
    void *(*get)(tfn__image_sink *self, const tfn_image_info *info, size_t bytes,
                 tfn_error *err);
};

/* Shape-only (sink NULL) or full decode. info is always filled as far as known. */
int tfn__jpeg_decode(const uint8_t *data, size_t len, const tfn_image_decode_options *opt,
                     tfn_image_info *info, tfn__image_sink *sink, tfn_error *err);
int tfn__png_decode(const uint8_t *data, size_t len, const tfn_image_decode_options *opt,
                    tfn_image_info *info, tfn__image_sink *sink, tfn_error *err);
int tfn__bmp_decode(const uint8_t *data, size_t len, const tfn_image_decode_options *opt,
                    tfn_image_info *info, tfn__image_sink *sink, tfn_error *err);

/* Probe or decode any supported format (dispatch on the magic bytes). */
int tfn__image_decode_any(const uint8_t *data, size_t len,
                          const tfn_image_decode_options *opt, tfn_image_info *info,
                          tfn__image_sink *sink, tfn_error *err);

/* Validates decode options (shared by the public entry points). */
int tfn__image_check_options(const tfn_image_decode_options *opt, tfn_error *err);

/* Output layout of one resized image. */
typedef struct tfn__resize_out {
    void *dst;            /* first element of this image */
    int dtype;            /* tfn_image_dtype */
    int nchw;
    int method;
    const float *sub;     /* 4 */
    const float *mul;     /* 4 (zeros already replaced by 1) */
    int divide;
    bool identity_norm;   /* sub all 0 and mul all 1 */
} tfn__resize_out;

/* Resizes uint8 HWC (h x w x c) to oh x ow into `out`, normalising as configured.
 * `scratch` is a block of tfn__resize_scratch_size() bytes (weights, one float row,
 * the area method's row weights), 8-byte aligned. */
size_t tfn__resize_scratch_size(uint32_t out_w, uint32_t out_h, int channels, uint32_t in_h);
void tfn__resize_u8(const uint8_t *src, uint32_t h, uint32_t w, int c, uint32_t oh,
                    uint32_t ow, const tfn__resize_out *out, void *scratch);

/* Resizes float32 HWC to float32 HWC (bilinear, nearest or area), as TensorFlow does. */
void tfn__resize_f32(const float *src, uint32_t h, uint32_t w, int c, uint32_t oh,
                     uint32_t ow, int method, float *dst, void *scratch);

/* Number of worker threads for a request (0: online CPUs), at most `jobs`, >= 1. */
int tfn__image_threads(int requested, size_t jobs);

/* float32 -> bfloat16, rounding to nearest even (NaN stays NaN). */
static inline uint16_t tfn__f32_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

#endif

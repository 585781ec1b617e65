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
 * returns a buffer of at least `bytes` bytes, or NULL to stop (its own error set).
 * A sink may also take the image a row at a time (`row` set; the JPEG decoder uses it,
 * the others call get()): then begin() is called instead of get() (non-zero: stop, its
 * error set), and for each output row y in order the decoder writes the row at row()
 * and calls push(y). */
typedef struct tfn__image_sink tfn__image_sink;
struct tfn__image_sink {
    void *(*get)(tfn__image_sink *self, const tfn_image_info *info, size_t bytes,
                 tfn_error *err);
    int (*begin)(tfn__image_sink *self, const tfn_image_info *info, tfn_error *err);
    uint8_t *(*row)(tfn__image_sink *self);
    void (*push)(tfn__image_sink *self, uint32_t y);
};

/* Shape-only (sink NULL) or full decode. info is always filled as far as known. */
int tfn__jpeg_decode(const uint8_t *data, size_t len, const tfn_image_decode_options *opt,
                     tfn_image_info *info, tfn__image_sink *sink, tfn_error *err);
int tfn__png_decode(const uint8_t *data, size_t len, const tfn_image_decode_options *opt,
                    tfn_image_info *info, tfn__image_sink *sink, tfn_error *err);
int tfn__gif_decode(const uint8_t *data, size_t len, const tfn_image_decode_options *opt,
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

/* Whether `method` is a tfn_image_resize_method, optionally | TFN_RESIZE_ANTIALIAS. */
bool tfn__resize_method_ok(int method);

/* Resizes uint8 HWC (h x w x c) to oh x ow into `out`, normalising as configured.
 * `scratch` is a block of tfn__resize_scratch_size() bytes (weights, one float row,
 * the area method's row weights, the filters' spans), 8-byte aligned; SIZE_MAX when
 * the tables would not fit in memory. */
size_t tfn__resize_scratch_size(int method, uint32_t h, uint32_t w, int c, uint32_t oh,
                                uint32_t ow);
void tfn__resize_u8(const uint8_t *src, uint32_t h, uint32_t w, int c, uint32_t oh,
                    uint32_t ow, const tfn__resize_out *out, void *scratch);

/* Bilinear resizing of a uint8 image that arrives a row at a time (from a decoder's
 * row sink), with the values of tfn__resize_u8: output rows are written to `out` as
 * soon as the input rows they interpolate between have arrived, so the full-size
 * image is never stored. `scratch` is a block of tfn__resize_scratch_size(
 * TFN_RESIZE_BILINEAR, ...) bytes plus one input row (tfn__bilinear_stream_size()). */
typedef struct tfn__bilinear_stream {
    const tfn__resize_out *out;
    uint32_t h, w, oh, ow;
    int c;
    uint32_t next_y;     /* next output row to write */
    uint32_t received;   /* input rows pushed */
    void *priv;          /* the weights and rows, in the scratch block */
    uint8_t *in_row;     /* where the decoder writes an input row */
} tfn__bilinear_stream;

size_t tfn__bilinear_stream_size(uint32_t h, uint32_t w, int c, uint32_t oh, uint32_t ow);
void tfn__bilinear_stream_begin(tfn__bilinear_stream *st, uint32_t h, uint32_t w, int c,
                                uint32_t oh, uint32_t ow, const tfn__resize_out *out,
                                void *scratch);
/* Where the decoder writes the next input row: deliberately not 32-byte aligned, as
 * libjpeg-turbo's SIMD colour converters write aligned rows with non-temporal stores,
 * which would send the row to memory just before it is read (measured 3-4x slower
 * interpolation). */
uint8_t *tfn__bilinear_stream_row(tfn__bilinear_stream *st);
/* The next input row has been written there. */
void tfn__bilinear_stream_push(tfn__bilinear_stream *st);
/* Output rows written so far (oh once every input row came). */
uint32_t tfn__bilinear_stream_finish(const tfn__bilinear_stream *st);

/* The no-resize path (convert.c): n decoded uint8 values, the first being element
 * `at` (a multiple of c) of the output image, converted to out->dtype and normalised
 * (channel of an element: its index % c) into out->dst; out->nchw is not used. */
void tfn__convert_u8(const uint8_t *src, size_t n, size_t at, int c,
                     const tfn__resize_out *out);

/* Resizes float32 HWC to float32 HWC (any method; nearest keeps float32), as
 * TensorFlow does. */
void tfn__resize_f32(const float *src, uint32_t h, uint32_t w, int c, uint32_t oh,
                     uint32_t ow, int method, float *dst, void *scratch);

/* A fused decode -> resize -> normalise of one image, as the batch functions and the
 * pipeline's image stage run it. The plan holds the checked options (it points at
 * `opt`, which must outlive it); a worker holds one thread's buffers (zero it first). */
typedef struct tfn__image_plan {
    const tfn_image_batch_options *opt;
    tfn_image_decode_options decode;
    int channels;
    float mul[4];       /* zeros replaced by 1 */
    bool identity;      /* no normalisation */
    size_t image_bytes; /* bytes of one output image */
} tfn__image_plan;

typedef struct tfn__image_worker {
    uint8_t *pixels; /* the decoded image, grown as needed */
    size_t cap;
    void *scratch;   /* resize tables and one float row */
    size_t scratch_cap;
} tfn__image_worker;

/* Checks opt (output size, method, dtype; channels 1, 3 or 4) and fills the plan. */
int tfn__image_plan_init(tfn__image_plan *plan, const tfn_image_batch_options *opt,
                         int channels, tfn_error *err);

/* Decodes data[0..len) and writes the resized, normalised image at dst
 * (plan->image_bytes; zero-filled on error). Returns a tfn_status with err filled. */
int tfn__image_decode_resize(const tfn__image_plan *plan, tfn__image_worker *w,
                             const uint8_t *data, size_t len, void *dst, tfn_error *err);

/* Frees a worker's buffers (the struct itself is the caller's). */
void tfn__image_worker_free(tfn__image_worker *w);

/* The filter methods (resize_kernels.c): bicubic, lanczos3/5, gaussian, mitchellcubic
 * and any antialiased bilinear / bicubic. A plan holds both axes' taps and weights
 * and two float rows, carved from a scratch block of tfn__filter_scratch_size() bytes
 * (SIZE_MAX when too large); each output row is then computed independently. */
typedef struct tfn__filter_plan {
    uint32_t w, ow;
    int c;
    uint32_t xtaps, ytaps;        /* weights stored per output column / row */
    const int32_t *xidx, *yidx;   /* input index of each tap */
    const float *xwt, *ywt;       /* its weight */
    const uint32_t *xused, *yused; /* taps run per output column / row */
    float *inter;                 /* w * c: the vertical pass */
    float *row;                   /* ow * c: spare output row */
} tfn__filter_plan;

bool tfn__resize_is_filter(int method);
size_t tfn__filter_scratch_size(int method, uint32_t h, uint32_t w, int c, uint32_t oh,
                                uint32_t ow);
void tfn__filter_prepare(int method, uint32_t h, uint32_t w, int c, uint32_t oh, uint32_t ow,
                         void *scratch, tfn__filter_plan *p);
/* Output row y (ow * c floats) of src (h x w x c). */
void tfn__filter_row_u8(const tfn__filter_plan *p, const uint8_t *src, uint32_t y, float *row);
void tfn__filter_row_f32(const tfn__filter_plan *p, const float *src, uint32_t y, float *row);

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

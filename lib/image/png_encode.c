/* png_encode.c - 8/16-bit HWC to PNG with the settings of TensorFlow's
 * png::WriteImageToBuffer (zlib level as given, memory level 9, default filters). */
#include "image_internal.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

typedef struct penc_ctx {
    uint8_t *buf;
    size_t len, cap;
    bool nomem;
    char msg[200];
    png_structp png;
    png_infop info;
} penc_ctx;

static void on_error(png_structp png, png_const_charp msg)
{
    penc_ctx *ctx = png_get_error_ptr(png);
    snprintf(ctx->msg, sizeof ctx->msg, "%s", msg ? msg : "libpng error");
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

static void write_bytes(png_structp png, png_bytep data, size_t n)
{
    penc_ctx *ctx = png_get_io_ptr(png);
    if (n > ctx->cap - ctx->len) {
        size_t cap = ctx->cap * 2 > ctx->len + n ? ctx->cap * 2 : ctx->len + n;
        uint8_t *b = realloc(ctx->buf, cap);
        if (!b) {
            ctx->nomem = true;
            png_error(png, "out of memory");
        }
        ctx->buf = b;
        ctx->cap = cap;
    }
    memcpy(ctx->buf + ctx->len, data, n);
    ctx->len += n;
}

static void flush_bytes(png_structp png)
{
    (void)png;
}

static void encode_body(penc_ctx *ctx, const uint8_t *px, uint32_t h, uint32_t w, int c,
                        int depth, int compression)
{
    static const int types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                 PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    png_set_write_fn(ctx->png, ctx, write_bytes, flush_bytes);
    png_set_compression_level(ctx->png, compression < 0 ? Z_DEFAULT_COMPRESSION : compression);
    png_set_compression_mem_level(ctx->png, MAX_MEM_LEVEL);
    png_set_IHDR(ctx->png, ctx->info, w, h, depth, types[c], PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(ctx->png, ctx->info);
    if (depth > 8)
        png_set_swap(ctx->png); /* native little-endian samples in, big-endian in the file */
    size_t stride = (size_t)w * (size_t)c * (size_t)(depth / 8);
    for (uint32_t y = 0; y < h; y++)
        png_write_row(ctx->png, px + (size_t)y * stride);
    png_write_end(ctx->png, NULL);
}

int tfn_image_encode_png(const void *pixels, uint32_t height, uint32_t width, int channels,
                         int bit_depth, int compression, uint8_t **out, size_t *out_len,
                         tfn_error *err)
{
    if (!out || !out_len || !pixels)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_image_encode_png: NULL argument");
    *out = NULL;
    *out_len = 0;
    if (channels < 1 || channels > 4)
        return tfn__fail(err, TFN_E_INVALID_ARG, "image must have 1-4 channels, got %d",
                         channels);
    if (bit_depth != 8 && bit_depth != 16)
        return tfn__fail(err, TFN_E_INVALID_ARG, "bit depth must be 8 or 16, got %d", bit_depth);
    if (compression < -1 || compression > 9)
        return tfn__fail(err, TFN_E_INVALID_ARG, "compression must be in [-1,9], got %d",
                         compression);
    if (height == 0 || width == 0 || height > 0x7fffffffu || width > 0x7fffffffu)
        return tfn__fail(err, TFN_E_INVALID_ARG, "PNG image size %ux%u out of range", width,
                         height);
    penc_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return tfn__fail(err, TFN_E_NOMEM, "out of memory (PNG encoder)");
    ctx->cap = 4096;
    ctx->buf = malloc(ctx->cap);
    ctx->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, ctx, on_error, on_warning);
    ctx->info = ctx->png ? png_create_info_struct(ctx->png) : NULL;
    int rc = TFN_OK;
    if (!ctx->buf || !ctx->png || !ctx->info) {
        rc = tfn__fail(err, TFN_E_NOMEM, "out of memory (PNG encoder)");
    } else if (setjmp(png_jmpbuf(ctx->png))) {
        rc = ctx->nomem ? tfn__fail(err, TFN_E_NOMEM, "out of memory (PNG encoder)")
                        : tfn__fail(err, TFN_E_CORRUPT, "PNG encoder: %s", ctx->msg);
    } else {
        encode_body(ctx, pixels, height, width, channels, bit_depth, compression);
    }
    if (ctx->png)
        png_destroy_write_struct(&ctx->png, ctx->info ? &ctx->info : NULL);
    if (rc == TFN_OK) {
        *out = ctx->buf;
        *out_len = ctx->len;
    } else {
        free(ctx->buf);
    }
    free(ctx);
    return rc;
}

/* png_decode.c - PNG to 8- or 16-bit HWC through libpng, with the transformations of
 * TensorFlow's png::CommonInitDecode (core/lib/png/png_io.cc): alpha added (opaque),
 * taken from tRNS or stripped to reach the wanted channel count, palette expanded,
 * RGB -> gray with the 0.299 / 0.587 weights, 16-bit stripped to 8 or 8-bit widened
 * to 16 (v * 257). libpng's errors longjmp back here; warnings are dropped. */
#include "image_internal.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct png_ctx {
    const uint8_t *data;
    size_t left;
    bool truncated;
    char msg[200];
    png_structp png;
    png_infop info;
} png_ctx;

static void on_png_error(png_structp png, png_const_charp msg)
{
    png_ctx *ctx = png_get_error_ptr(png);
    snprintf(ctx->msg, sizeof ctx->msg, "%s", msg ? msg : "libpng error");
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

static void read_bytes(png_structp png, png_bytep out, size_t n)
{
    png_ctx *ctx = png_get_io_ptr(png);
    if (n > ctx->left) {
        ctx->truncated = true;
        png_error(png, "more bytes requested to read than available");
    }
    memcpy(out, ctx->data, n);
    ctx->data += n;
    ctx->left -= n;
}

static int decode_body(png_ctx *ctx, const tfn_image_decode_options *opt,
                       tfn_image_info *info, tfn__image_sink *sink, tfn_error *err)
{
    png_structp png = ctx->png;
    png_infop pinfo = ctx->info;
    png_set_read_fn(png, ctx, read_bytes);
    png_read_info(png, pinfo);
    png_uint_32 width = 0, height = 0;
    int depth = 0, color = 0;
    png_get_IHDR(png, pinfo, &width, &height, &depth, &color, NULL, NULL, NULL);
    info->width = width;
    info->height = height;
    info->bit_depth = depth;
    bool has_trns = png_get_valid(png, pinfo, PNG_INFO_tRNS) != 0;
    int stored = png_get_channels(png, pinfo);
    info->components = color == PNG_COLOR_TYPE_PALETTE ? (has_trns ? 4 : 3) : stored;
    if (width == 0 || height == 0)
        return tfn__fail(err, TFN_E_CORRUPT, "invalid PNG: image size %ux%u", width, height);

    int channels = opt->channels ? opt->channels : info->components;
    bool want16 = opt->uint16_output != 0;
    bool has_alpha = (color & PNG_COLOR_MASK_ALPHA) != 0;
    if ((channels & 1) == 0) {
        if (!has_alpha) {
            if (has_trns)
                png_set_tRNS_to_alpha(png);
            else
                png_set_add_alpha(png, (png_uint_32)((1u << depth) - 1u), PNG_FILLER_AFTER);
        }
    } else if (has_alpha || has_trns) {
        png_set_strip_alpha(png);
    }
    if (depth > 8 && !want16)
        png_set_strip_16(png);
    png_set_packing(png);
    int passes = png_set_interlace_handling(png);
    if (want16 && depth > 8)
        png_set_swap(png); /* PNG is big-endian; the output native (little) */
    if (color == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(png);
    bool is_gray = (color & PNG_COLOR_MASK_COLOR) == 0;
    if (is_gray && depth < 8)
        png_set_expand_gray_1_2_4_to_8(png);
    if (channels < 3) {
        if (!is_gray)
            png_set_rgb_to_gray(png, 1, 0.299, 0.587);
    } else if (is_gray) {
        png_set_gray_to_rgb(png);
    }
    png_read_update_info(png, pinfo);

    int bps = want16 ? 2 : 1;
    info->out_height = height;
    info->out_width = width;
    info->out_channels = channels;
    info->bytes_per_sample = bps;
    uint64_t total = (uint64_t)height * width * (uint64_t)channels * (uint64_t)bps;
    if (total >= TFN__IMAGE_MAX_BYTES)
        return tfn__fail(err, TFN_E_LIMIT, "PNG image too large: %ux%u (limit 2^29 bytes)",
                         width, height);
    if (!sink)
        return TFN_OK;
    size_t row_bytes = (size_t)width * (size_t)channels * (depth > 8 && want16 ? 2u : 1u);
    if (png_get_rowbytes(png, pinfo) != row_bytes)
        return tfn__fail(err, TFN_E_CORRUPT, "invalid PNG: unexpected row size %zu",
                         (size_t)png_get_rowbytes(png, pinfo));
    uint8_t *dst = sink->get(sink, info, (size_t)total, err);
    if (!dst)
        return err ? err->code : TFN_E_NOMEM;
    for (int p = 0; p < passes; p++) {
        uint8_t *row = dst;
        for (png_uint_32 y = 0; y < height; y++, row += row_bytes)
            png_read_row(png, row, NULL);
    }
    png_read_end(png, NULL);
    if (want16 && depth <= 8) { /* widen in place, from the end: v -> v * 257 */
        size_t count = (size_t)height * width * (size_t)channels;
        uint16_t *out16 = (uint16_t *)(void *)dst;
        for (size_t i = count; i-- > 0;)
            out16[i] = (uint16_t)(dst[i] * 257u);
    }
    return TFN_OK;
}

int tfn__png_decode(const uint8_t *data, size_t len, const tfn_image_decode_options *opt,
                    tfn_image_info *info, tfn__image_sink *sink, tfn_error *err)
{
    png_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return tfn__fail(err, TFN_E_NOMEM, "out of memory (PNG decoder)");
    ctx->data = data;
    ctx->left = len;
    int rc;
    ctx->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, ctx, on_png_error, on_png_warning);
    if (!ctx->png) {
        free(ctx);
        return tfn__fail(err, TFN_E_NOMEM, "out of memory (PNG decoder)");
    }
    ctx->info = png_create_info_struct(ctx->png);
    if (!ctx->info) {
        png_destroy_read_struct(&ctx->png, NULL, NULL);
        free(ctx);
        return tfn__fail(err, TFN_E_NOMEM, "out of memory (PNG decoder)");
    }
    if (setjmp(png_jmpbuf(ctx->png))) {
        rc = ctx->truncated ? tfn__fail(err, TFN_E_TRUNCATED, "truncated PNG: %s", ctx->msg)
                            : tfn__fail(err, TFN_E_CORRUPT, "invalid PNG: %s", ctx->msg);
    } else {
        rc = decode_body(ctx, opt, info, sink, err);
    }
    png_destroy_read_struct(&ctx->png, &ctx->info, NULL);
    free(ctx);
    return rc;
}

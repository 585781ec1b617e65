/* jpeg_encode.c - uint8 HWC to JPEG with the settings of TensorFlow's jpeg::Compress
 * (quality 95, 4:2:0, 300 dpi JFIF density by default), into a malloc'd block. */
#include "image_internal.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include <jpeglib.h>

typedef struct enc_ctx {
    struct jpeg_error_mgr err_mgr; /* first: cast back from cinfo->err */
    struct jpeg_destination_mgr dest;
    jmp_buf jump;
    uint8_t *buf;
    size_t cap;
    bool nomem;
    char msg[JMSG_LENGTH_MAX];
    const uint8_t *px; /* the request, here so that nothing local lives across longjmp */
    uint32_t h, w;
    int channels;
    const tfn_image_jpeg_options *opt;
} enc_ctx;

static void on_error_exit(j_common_ptr cinfo)
{
    enc_ctx *ctx = (enc_ctx *)(void *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, ctx->msg);
    longjmp(ctx->jump, 1);
}

static void on_output_message(j_common_ptr cinfo)
{
    (void)cinfo;
}

static void dest_init(j_compress_ptr cinfo)
{
    enc_ctx *ctx = (enc_ctx *)(void *)cinfo->err;
    ctx->dest.next_output_byte = ctx->buf;
    ctx->dest.free_in_buffer = ctx->cap;
}

static boolean dest_grow(j_compress_ptr cinfo)
{
    enc_ctx *ctx = (enc_ctx *)(void *)cinfo->err;
    size_t used = ctx->cap; /* libjpeg calls this with the buffer full */
    size_t cap = ctx->cap * 2;
    uint8_t *b = realloc(ctx->buf, cap);
    if (!b) {
        ctx->nomem = true;
        snprintf(ctx->msg, sizeof ctx->msg, "out of memory (%zu bytes of JPEG)", cap);
        longjmp(ctx->jump, 1);
    }
    ctx->buf = b;
    ctx->cap = cap;
    ctx->dest.next_output_byte = b + used;
    ctx->dest.free_in_buffer = cap - used;
    return TRUE;
}

static void dest_term(j_compress_ptr cinfo)
{
    (void)cinfo;
}

static void encode_body(enc_ctx *ctx, struct jpeg_compress_struct *cinfo)
{
    const uint8_t *px = ctx->px;
    uint32_t h = ctx->h, w = ctx->w;
    int channels = ctx->channels;
    const tfn_image_jpeg_options *o = ctx->opt;
    jpeg_create_compress(cinfo);
    ctx->dest.init_destination = dest_init;
    ctx->dest.empty_output_buffer = dest_grow;
    ctx->dest.term_destination = dest_term;
    cinfo->dest = &ctx->dest;
    cinfo->image_width = w;
    cinfo->image_height = h;
    cinfo->input_components = channels;
    cinfo->in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(cinfo);
    if (o->optimize_size)
        cinfo->optimize_coding = TRUE;
    cinfo->density_unit = (UINT8)(o->density_unit == 2 ? 2 : 1);
    cinfo->X_density = (UINT16)(o->x_density ? o->x_density : 300);
    cinfo->Y_density = (UINT16)(o->y_density ? o->y_density : 300);
    jpeg_set_quality(cinfo, o->quality ? o->quality : 95, TRUE);
    if (o->progressive)
        jpeg_simple_progression(cinfo);
    if (o->no_chroma_downsampling) {
        for (int i = 0; i < cinfo->num_components; i++) {
            cinfo->comp_info[i].h_samp_factor = 1;
            cinfo->comp_info[i].v_samp_factor = 1;
        }
    }
    jpeg_start_compress(cinfo, TRUE);
    size_t stride = (size_t)w * (size_t)channels;
    while (cinfo->next_scanline < cinfo->image_height) {
        /* libjpeg takes non-const rows but only reads them */
        JSAMPROW row = (JSAMPROW)(uintptr_t)(px + (size_t)cinfo->next_scanline * stride);
        jpeg_write_scanlines(cinfo, &row, 1);
    }
    jpeg_finish_compress(cinfo);
}

/* 0, or 1 when libjpeg failed (ctx->msg says why). */
static int guarded_encode(enc_ctx *ctx, struct jpeg_compress_struct *cinfo)
{
    if (setjmp(ctx->jump))
        return 1;
    encode_body(ctx, cinfo);
    return 0;
}

int tfn_image_encode_jpeg(const uint8_t *pixels, uint32_t height, uint32_t width,
                          int channels, const tfn_image_jpeg_options *opt, uint8_t **out,
                          size_t *out_len, tfn_error *err)
{
    static const tfn_image_jpeg_options defaults;
    if (!opt)
        opt = &defaults;
    if (!out || !out_len || !pixels)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_image_encode_jpeg: NULL argument");
    *out = NULL;
    *out_len = 0;
    if (channels != 1 && channels != 3)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "image must have 1 or 3 channels, got %d", channels);
    if (height == 0 || width == 0 || height > 65500 || width > 65500)
        return tfn__fail(err, TFN_E_INVALID_ARG, "JPEG image size %ux%u out of range 1..65500",
                         width, height);
    if (opt->quality < 0 || opt->quality > 100)
        return tfn__fail(err, TFN_E_INVALID_ARG, "quality must be in [0,100], got %d",
                         opt->quality);
    enc_ctx *ctx = calloc(1, sizeof *ctx);
    struct jpeg_compress_struct *cinfo = calloc(1, sizeof *cinfo);
    size_t cap = (size_t)height * width * (size_t)channels / 4 + 4096;
    uint8_t *buf = malloc(cap);
    if (!ctx || !cinfo || !buf) {
        free(ctx);
        free(cinfo);
        free(buf);
        return tfn__fail(err, TFN_E_NOMEM, "out of memory (JPEG encoder)");
    }
    ctx->buf = buf;
    ctx->cap = cap;
    cinfo->err = jpeg_std_error(&ctx->err_mgr);
    ctx->err_mgr.error_exit = on_error_exit;
    ctx->err_mgr.output_message = on_output_message;
    ctx->px = pixels;
    ctx->h = height;
    ctx->w = width;
    ctx->channels = channels;
    ctx->opt = opt;
    int rc = TFN_OK;
    if (guarded_encode(ctx, cinfo) != 0)
        rc = ctx->nomem ? tfn__fail(err, TFN_E_NOMEM, "%s", ctx->msg)
                        : tfn__fail(err, TFN_E_CORRUPT, "JPEG encoder: %s", ctx->msg);
    jpeg_destroy_compress(cinfo);
    if (rc == TFN_OK) {
        *out = ctx->buf;
        *out_len = ctx->cap - ctx->dest.free_in_buffer;
    } else {
        free(ctx->buf);
    }
    free(cinfo);
    free(ctx);
    return rc;
}

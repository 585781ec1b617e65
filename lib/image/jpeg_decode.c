/* jpeg_decode.c - JPEG to uint8 HWC through libjpeg-turbo's libjpeg API, with the
 * settings of TensorFlow's jpeg::Uncompress (core/lib/jpeg/jpeg_mem.cc): IFAST DCT by
 * default, fancy upsampling, CMYK converted to RGB, crop through jpeg_crop_scanline,
 * a truncated file an error unless recovery is asked for. libjpeg's fatal errors
 * longjmp back here (its default error_exit would call exit()); its messages are
 * kept, never printed. */
#include "image_internal.h"

#include <setjmp.h>
#include <stdio.h> /* jpeglib.h needs FILE */
#include <stdlib.h>

#include <jerror.h>
#include <jpeglib.h>

typedef struct jpeg_ctx {
    struct jpeg_error_mgr err_mgr; /* first: libjpeg's err pointer is cast back */
    struct jpeg_source_mgr src;
    jmp_buf jump;
    const uint8_t *data;
    size_t len;
    bool recover;        /* try_recover_truncated: feed a fake EOI once */
    bool fed_eoi;
    bool truncated;      /* the data ended where libjpeg wanted more */
    uint8_t *row_tmp;    /* CMYK or MCU-aligned crop row, malloc'd */
    char msg[JMSG_LENGTH_MAX];
} jpeg_ctx;

static const JOCTET fake_eoi[2] = {0xFF, JPEG_EOI};

static void on_error_exit(j_common_ptr cinfo)
{
    jpeg_ctx *ctx = (jpeg_ctx *)(void *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, ctx->msg);
    longjmp(ctx->jump, 1);
}

static void on_output_message(j_common_ptr cinfo)
{
    (void)cinfo; /* warnings are counted in num_warnings, never printed */
}

static void src_init(j_decompress_ptr cinfo)
{
    (void)cinfo;
}

static boolean src_fill(j_decompress_ptr cinfo)
{
    jpeg_ctx *ctx = (jpeg_ctx *)(void *)cinfo->err;
    if (ctx->recover && !ctx->fed_eoi) {
        /* The rest of the image reads as missing data; libjpeg fills it. */
        WARNMS(cinfo, JWRN_JPEG_EOF);
        ctx->fed_eoi = true;
        ctx->src.next_input_byte = fake_eoi;
        ctx->src.bytes_in_buffer = 2;
        return TRUE;
    }
    ctx->truncated = true;
    ERREXIT(cinfo, JERR_INPUT_EOF);
    return FALSE;
}

static void src_skip(j_decompress_ptr cinfo, long num_bytes)
{
    jpeg_ctx *ctx = (jpeg_ctx *)(void *)cinfo->err;
    if (num_bytes <= 0)
        return;
    while ((size_t)num_bytes > ctx->src.bytes_in_buffer) {
        num_bytes -= (long)ctx->src.bytes_in_buffer;
        ctx->src.bytes_in_buffer = 0;
        (void)src_fill(cinfo);
    }
    ctx->src.next_input_byte += num_bytes;
    ctx->src.bytes_in_buffer -= (size_t)num_bytes;
}

static void src_term(j_decompress_ptr cinfo)
{
    (void)cinfo;
}

/* Memory libjpeg may use for one image (progressive JPEGs keep every coefficient):
 * beyond it libjpeg asks for a backing store, which this build refuses. */
#define JPEG_MAX_DECODER_MEMORY (1L << 30)

static int fail_from_libjpeg(jpeg_ctx *ctx, tfn_error *err)
{
    if (ctx->err_mgr.msg_code == JERR_NO_BACKING_STORE)
        return tfn__fail(err, TFN_E_LIMIT, "JPEG image needs more than 1 GiB of decoder "
                                           "memory");
    if (ctx->truncated)
        return tfn__fail(err, TFN_E_TRUNCATED, "truncated JPEG: %s", ctx->msg);
    return tfn__fail(err, TFN_E_CORRUPT, "invalid JPEG: %s", ctx->msg);
}

/* Copies one decoded row into dst: CMYK to RGB as TensorFlow converts it, and the
 * crop's MCU alignment offset skipped. */
static void store_row(const struct jpeg_decompress_struct *cinfo, const uint8_t *row,
                      uint8_t *dst, size_t width, int out_c, size_t skip_px)
{
    if (cinfo->out_color_space == JCS_CMYK) {
        const uint8_t *p = row + skip_px * 4;
        for (size_t i = 0; i < width; i++, p += 4) {
            int c = p[0], m = p[1], y = p[2], k = p[3];
            int r, g, b;
            if (cinfo->saw_Adobe_marker) {
                r = k * c / 255;
                g = k * m / 255;
                b = k * y / 255;
            } else {
                r = (255 - k) * (255 - c) / 255;
                g = (255 - k) * (255 - m) / 255;
                b = (255 - k) * (255 - y) / 255;
            }
            if (out_c == 1) {
                dst[i] = (uint8_t)r; /* not reached: grayscale output never is CMYK */
            } else {
                dst[i * (size_t)out_c + 0] = (uint8_t)r;
                dst[i * (size_t)out_c + 1] = (uint8_t)g;
                dst[i * (size_t)out_c + 2] = (uint8_t)b;
                if (out_c == 4)
                    dst[i * 4 + 3] = 255;
            }
        }
        return;
    }
    int in_c = cinfo->output_components;
    const uint8_t *p = row + skip_px * (size_t)in_c;
    if (in_c == out_c) {
        memmove(dst, p, width * (size_t)out_c);
    } else { /* RGB decoded, RGBA wanted */
        for (size_t i = width; i-- > 0;) {
            dst[i * 4 + 3] = 255;
            dst[i * 4 + 2] = p[i * 3 + 2];
            dst[i * 4 + 1] = p[i * 3 + 1];
            dst[i * 4 + 0] = p[i * 3 + 0];
        }
    }
}

/* Everything between setjmp and the end: kept in its own function with the state in
 * *ctx so that no local variable is live across the longjmp. */
static int decode_body(jpeg_ctx *ctx, struct jpeg_decompress_struct *cinfo,
                       const tfn_image_decode_options *opt, tfn_image_info *info,
                       tfn__image_sink *sink, tfn_error *err)
{
    jpeg_read_header(cinfo, TRUE);
    info->height = cinfo->image_height;
    info->width = cinfo->image_width;
    info->components = cinfo->num_components;
    info->bit_depth = 8;

    int channels = opt->channels;
    if (channels == 0)
        channels = cinfo->num_components < 3 ? cinfo->num_components : 3;
    if (channels == 2)
        channels = 1; /* not produced by libjpeg: TF's rule min(components, 3) */
    if (channels == 1) {
        cinfo->out_color_space = JCS_GRAYSCALE;
    } else if (cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK) {
        cinfo->out_color_space = JCS_CMYK;
    } else {
        cinfo->out_color_space = JCS_RGB;
    }
    cinfo->do_fancy_upsampling = opt->no_fancy_upscaling ? FALSE : TRUE;
    cinfo->scale_num = 1;
    cinfo->scale_denom = (unsigned)(opt->ratio > 1 ? opt->ratio : 1);
    cinfo->dct_method = opt->dct_method == TFN_IMAGE_DCT_ACCURATE ? JDCT_ISLOW : JDCT_IFAST;
    jpeg_calc_output_dimensions(cinfo);

    uint32_t out_h = cinfo->output_height, out_w = cinfo->output_width;
    if (out_h == 0 || out_w == 0)
        return tfn__fail(err, TFN_E_CORRUPT, "invalid JPEG: image size %ux%u", out_w, out_h);
    if (opt->crop) {
        if (!(opt->crop_width > 0 && opt->crop_height > 0 && opt->crop_x >= 0 &&
              opt->crop_y >= 0 && (uint64_t)opt->crop_y + (uint64_t)opt->crop_height <= out_h &&
              (uint64_t)opt->crop_x + (uint64_t)opt->crop_width <= out_w))
            return tfn__fail(err, TFN_E_INVALID_ARG,
                             "invalid crop window: x=%d, y=%d, w=%d, h=%d for image_width: %u "
                             "and image_height: %u",
                             opt->crop_x, opt->crop_y, opt->crop_width, opt->crop_height,
                             out_w, out_h);
        out_h = (uint32_t)opt->crop_height;
        out_w = (uint32_t)opt->crop_width;
    }
    info->out_height = out_h;
    info->out_width = out_w;
    info->out_channels = channels;
    info->bytes_per_sample = 1;
    uint64_t total = (uint64_t)out_h * out_w * (uint64_t)channels;
    uint64_t full = (uint64_t)cinfo->output_height * cinfo->output_width *
                    (uint64_t)(channels == 1 ? 1 : 3);
    if (total >= TFN__IMAGE_MAX_BYTES || full >= TFN__IMAGE_MAX_BYTES)
        return tfn__fail(err, TFN_E_LIMIT, "JPEG image too large: %ux%u (limit 2^29 bytes)",
                         cinfo->output_width, cinfo->output_height);
    if (!sink)
        return TFN_OK;

    bool rows = sink->row != NULL; /* the sink takes one row at a time */
    uint8_t *dst = NULL;
    if (rows) {
        int rc = sink->begin(sink, info, err);
        if (rc != TFN_OK)
            return rc;
    } else {
        dst = sink->get(sink, info, (size_t)total, err);
        if (!dst)
            return err ? err->code : TFN_E_NOMEM;
    }

    jpeg_start_decompress(cinfo);
    JDIMENSION skipped = 0;
    size_t skip_px = 0;
    if (opt->crop) {
        JDIMENSION cx = (JDIMENSION)opt->crop_x, cw = (JDIMENSION)opt->crop_width;
        jpeg_crop_scanline(cinfo, &cx, &cw); /* moves cx left to an iMCU boundary */
        skip_px = (size_t)((JDIMENSION)opt->crop_x - cx);
        if (opt->crop_y > 0)
            skipped = jpeg_skip_scanlines(cinfo, (JDIMENSION)opt->crop_y);
    }
    size_t row_px = cinfo->output_width;
    bool direct = cinfo->out_color_space != JCS_CMYK && cinfo->output_components == channels &&
                  skip_px == 0 && row_px == out_w;
    if (!direct) {
        ctx->row_tmp = malloc(row_px * 4u);
        if (!ctx->row_tmp)
            return tfn__fail(err, TFN_E_NOMEM, "out of memory (JPEG row of %zu pixels)", row_px);
    }
    size_t stride = (size_t)out_w * (size_t)channels;
    JDIMENSION end = skipped + out_h;
    uint8_t *line = dst;
    for (uint32_t y = 0; cinfo->output_scanline < end; y++) {
        if (rows)
            line = sink->row(sink);
        JSAMPROW row = direct ? line : ctx->row_tmp;
        if (jpeg_read_scanlines(cinfo, &row, 1) != 1)
            return tfn__fail(err, TFN_E_TRUNCATED, "truncated JPEG: stopped at line %u of %u",
                             cinfo->output_scanline - skipped, out_h);
        if (!direct)
            store_row(cinfo, ctx->row_tmp, line, out_w, channels, skip_px);
        if (rows)
            sink->push(sink, y);
        else
            line += stride;
    }
    if (cinfo->output_scanline < cinfo->output_height)
        jpeg_skip_scanlines(cinfo, cinfo->output_height - cinfo->output_scanline);
    jpeg_finish_decompress(cinfo);
    return TFN_OK;
}

int tfn__jpeg_decode(const uint8_t *data, size_t len, const tfn_image_decode_options *opt,
                     tfn_image_info *info, tfn__image_sink *sink, tfn_error *err)
{
    jpeg_ctx *ctx = calloc(1, sizeof *ctx); /* heap: jmp_buf + state stay put across longjmp */
    if (!ctx)
        return tfn__fail(err, TFN_E_NOMEM, "out of memory (JPEG decoder)");
    struct jpeg_decompress_struct *cinfo = calloc(1, sizeof *cinfo);
    if (!cinfo) {
        free(ctx);
        return tfn__fail(err, TFN_E_NOMEM, "out of memory (JPEG decoder)");
    }
    ctx->data = data;
    ctx->len = len;
    ctx->recover = opt->try_recover_truncated != 0;
    cinfo->err = jpeg_std_error(&ctx->err_mgr);
    ctx->err_mgr.error_exit = on_error_exit;
    ctx->err_mgr.output_message = on_output_message;
    int rc;
    if (setjmp(ctx->jump)) {
        rc = fail_from_libjpeg(ctx, err);
    } else {
        jpeg_create_decompress(cinfo);
        cinfo->mem->max_memory_to_use = JPEG_MAX_DECODER_MEMORY;
        ctx->src.init_source = src_init;
        ctx->src.fill_input_buffer = src_fill;
        ctx->src.skip_input_data = src_skip;
        ctx->src.resync_to_restart = jpeg_resync_to_restart;
        ctx->src.term_source = src_term;
        ctx->src.next_input_byte = data;
        ctx->src.bytes_in_buffer = len;
        cinfo->src = &ctx->src;
        rc = decode_body(ctx, cinfo, opt, info, sink, err);
    }
    jpeg_destroy_decompress(cinfo);
    free(ctx->row_tmp);
    free(cinfo);
    free(ctx);
    return rc;
}

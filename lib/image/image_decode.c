/* image_decode.c - the public decode entry points: format sniffing (TensorFlow's magic
 * bytes), option checks, dispatch to the JPEG, PNG, GIF and BMP decoders, decoding into
 * the caller's buffer, and the batch decode into one malloc'd block per image on
 * worker threads. */
#include "image_internal.h"
#include "image_threads.h"

#include <stdlib.h>

int tfn_image_format_of(const void *data, size_t len)
{
    const uint8_t *p = data;
    if (!p)
        return TFN_IMAGE_UNKNOWN;
    if (len >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF)
        return TFN_IMAGE_JPEG;
    if (len >= 8 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0)
        return TFN_IMAGE_PNG;
    if (len >= 4 && memcmp(p, "GIF8", 4) == 0)
        return TFN_IMAGE_GIF;
    if (len >= 2 && p[0] == 'B' && p[1] == 'M')
        return TFN_IMAGE_BMP;
    return TFN_IMAGE_UNKNOWN;
}

int tfn__image_check_options(const tfn_image_decode_options *opt, tfn_error *err)
{
    if (opt->channels != 0 && opt->channels != 1 && opt->channels != 3 && opt->channels != 4)
        return tfn__fail(err, TFN_E_INVALID_ARG, "`channels` must be 0, 1, 3 or 4 but got %d",
                         opt->channels);
    if (opt->ratio != 0 && opt->ratio != 1 && opt->ratio != 2 && opt->ratio != 4 &&
        opt->ratio != 8)
        return tfn__fail(err, TFN_E_INVALID_ARG, "ratio must be 1, 2, 4, or 8, got %d",
                         opt->ratio);
    if (opt->dct_method != TFN_IMAGE_DCT_FAST && opt->dct_method != TFN_IMAGE_DCT_ACCURATE)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}");
    if (opt->gif < TFN_GIF_FIRST || opt->gif > TFN_GIF_REFUSE)
        return tfn__fail(err, TFN_E_INVALID_ARG, "gif must be a tfn_image_gif_frames, got %d",
                         opt->gif);
    return TFN_OK;
}

int tfn__image_decode_any(const uint8_t *data, size_t len,
                          const tfn_image_decode_options *opt, tfn_image_info *info,
                          tfn__image_sink *sink, tfn_error *err)
{
    memset(info, 0, sizeof *info);
    if (len == 0 || !data)
        return tfn__fail(err, TFN_E_INVALID_ARG, "Input is empty.");
    if (len > (size_t)INT32_MAX)
        return tfn__fail(err, TFN_E_INVALID_ARG, "Input contents are too large for int: %zu",
                         len);
    info->format = tfn_image_format_of(data, len);
    info->frames = 1;
    switch (info->format) {
    case TFN_IMAGE_JPEG:
        return tfn__jpeg_decode(data, len, opt, info, sink, err);
    case TFN_IMAGE_PNG:
        if (opt->crop)
            return tfn__fail(err, TFN_E_INVALID_ARG, "crop is for JPEG only; got a PNG");
        return tfn__png_decode(data, len, opt, info, sink, err);
    case TFN_IMAGE_GIF:
        return tfn__gif_decode(data, len, opt, info, sink, err);
    case TFN_IMAGE_BMP:
        return tfn__bmp_decode(data, len, opt, info, sink, err);
    default:
        if (len >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0)
            return tfn__fail(err, TFN_E_INVALID_ARG, "unsupported image format: WebP (tfnano "
                                                     "decodes JPEG, PNG, GIF and BMP)");
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP "
                         "required.");
    }
}

static const tfn_image_decode_options default_options;

int tfn_image_probe(const void *data, size_t len, const tfn_image_decode_options *opt,
                    tfn_image_info *info, tfn_error *err)
{
    if (!info)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_image_probe: info is NULL");
    if (!opt)
        opt = &default_options;
    int rc = tfn__image_check_options(opt, err);
    if (rc != TFN_OK)
        return rc;
    return tfn__image_decode_any(data, len, opt, info, NULL, err);
}

/* A sink over the caller's fixed buffer. */
typedef struct fixed_sink {
    tfn__image_sink base;
    void *dst;
    size_t cap;
} fixed_sink;

static void *fixed_get(tfn__image_sink *self, const tfn_image_info *info, size_t bytes,
                       tfn_error *err)
{
    (void)info;
    fixed_sink *s = (fixed_sink *)(void *)self;
    if (bytes > s->cap || !s->dst) {
        tfn__fail(err, TFN_E_BUF_TOO_SMALL, "output buffer of %zu bytes, the image needs %zu",
                  s->cap, bytes);
        if (err)
            err->offset = bytes;
        return NULL;
    }
    return s->dst;
}

int tfn_image_decode(const void *data, size_t len, const tfn_image_decode_options *opt,
                     void *dst, size_t cap, tfn_image_info *info, tfn_error *err)
{
    tfn_image_info local;
    if (!info)
        info = &local;
    if (!opt)
        opt = &default_options;
    int rc = tfn__image_check_options(opt, err);
    if (rc != TFN_OK)
        return rc;
    fixed_sink sink = {{.get = fixed_get}, dst, cap};
    tfn_error local_err;
    if (!err)
        err = &local_err; /* the sink reports through it */
    return tfn__image_decode_any(data, len, opt, info, &sink.base, err);
}

void tfn_image_free(void *p)
{
    free(p);
}

/* ------------------------------------------------------------ batch decode */

typedef struct malloc_sink {
    tfn__image_sink base;
    uint8_t *block;
} malloc_sink;

static void *malloc_get(tfn__image_sink *self, const tfn_image_info *info, size_t bytes,
                        tfn_error *err)
{
    (void)info;
    malloc_sink *s = (malloc_sink *)(void *)self;
    s->block = malloc(bytes ? bytes : 1);
    if (!s->block)
        tfn__fail(err, TFN_E_NOMEM, "out of memory (%zu bytes for an image)", bytes);
    return s->block;
}

typedef struct decode_job {
    tfn__image_jobs jobs;
    const void *const *data;
    const size_t *lens;
    const tfn_image_decode_options *opt;
    uint8_t **pixels;
    tfn_image_info *infos;
    int32_t *status;
} decode_job;

static int decode_one(tfn__image_jobs *jobs, size_t i, void *worker_state, tfn_error *err)
{
    (void)worker_state;
    decode_job *j = (decode_job *)(void *)jobs;
    malloc_sink sink = {{.get = malloc_get}, NULL};
    int rc = tfn__image_decode_any(j->data[i], j->lens[i], j->opt, &j->infos[i], &sink.base,
                                   err);
    if (rc != TFN_OK) {
        free(sink.block);
        sink.block = NULL;
    }
    j->pixels[i] = sink.block;
    if (j->status)
        j->status[i] = rc;
    return rc;
}

int tfn_image_decode_batch(const void *const *data, const size_t *lens, size_t n,
                           const tfn_image_decode_options *opt, int on_error, int num_threads,
                           uint8_t **pixels, tfn_image_info *infos, int32_t *status,
                           tfn_error *err)
{
    if (n == 0)
        return TFN_OK;
    if (!data || !lens || !pixels || !infos)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_image_decode_batch: NULL argument");
    if (!opt)
        opt = &default_options;
    int rc = tfn__image_check_options(opt, err);
    if (rc != TFN_OK)
        return rc;
    for (size_t i = 0; i < n; i++)
        pixels[i] = NULL;
    decode_job job;
    memset(&job, 0, sizeof job);
    job.jobs.run = decode_one;
    job.jobs.n = n;
    job.jobs.stop_on_error = on_error != TFN_IMAGE_SKIP;
    job.data = data;
    job.lens = lens;
    job.opt = opt;
    job.pixels = pixels;
    job.infos = infos;
    job.status = status;
    rc = tfn__image_run_jobs(&job.jobs, num_threads, 0, err);
    if (!job.jobs.started)
        return rc; /* no record ran: out of memory for the calling thread */
    if (rc != TFN_OK && on_error != TFN_IMAGE_SKIP) {
        for (size_t i = 0; i < n; i++) {
            free(pixels[i]);
            pixels[i] = NULL;
        }
    }
    if (on_error == TFN_IMAGE_SKIP)
        rc = TFN_OK; /* every record ran; status[i] and pixels[i] == NULL tell */
    return rc;
}

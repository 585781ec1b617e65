/* image_batch.c - fused batches: decode -> resize -> normalise -> store into one dense
 * array, per image on worker threads (each with its own decode buffer and resize
 * tables), and resizing of already-decoded images. */
#include "image_internal.h"
#include "image_threads.h"

#include <stdlib.h>

typedef tfn__image_worker worker;

static void worker_free(void *state)
{
    tfn__image_worker_free(state);
}

void tfn__image_worker_free(tfn__image_worker *w)
{
    if (!w)
        return;
    free(w->pixels);
    free(w->scratch);
    w->pixels = NULL;
    w->scratch = NULL;
    w->cap = w->scratch_cap = 0;
}

static bool worker_reserve(void **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return true;
    void *q = realloc(*p, need);
    if (!q)
        return false;
    *p = q;
    *cap = need;
    return true;
}

typedef struct worker_sink {
    tfn__image_sink base;
    worker *w;
    /* row mode: bilinear resizing as the rows arrive */
    const tfn__image_plan *plan;
    void *dst;
    tfn__resize_out out;
    tfn__bilinear_stream stream;
    /* row mode without resizing (no_resize): rows converted in place in the output */
    uint8_t *row_buf;   /* where the decoder writes a row (NULL: straight into dst) */
    size_t row_len;     /* values per decoded row */
    size_t at;          /* values written so far */
    bool mismatch;      /* the value count differs: decoded, then reshape's error */
} worker_sink;

static void *worker_get(tfn__image_sink *self, const tfn_image_info *info, size_t bytes,
                        tfn_error *err)
{
    (void)info;
    worker *w = ((worker_sink *)(void *)self)->w;
    if (!worker_reserve((void **)&w->pixels, &w->cap, bytes ? bytes : 1)) {
        tfn__fail(err, TFN_E_NOMEM, "out of memory (%zu bytes for an image)", bytes);
        return NULL;
    }
    return w->pixels;
}

/* Row mode (JPEG, plain bilinear): the scratch holds the resize state and the one
 * input row the decoder writes; no full-size image is kept. */
static int stream_begin(tfn__image_sink *self, const tfn_image_info *info, tfn_error *err)
{
    worker_sink *s = (worker_sink *)(void *)self;
    const tfn_image_batch_options *o = s->plan->opt;
    uint32_t h = info->out_height, w = info->out_width;
    int c = info->out_channels;
    if (c != s->plan->channels || info->bytes_per_sample != 1)
        return tfn__fail(err, TFN_E_INVALID_ARG, "decoded %d channels, %d wanted", c,
                         s->plan->channels);
    size_t need = tfn__bilinear_stream_size(h, w, c, o->height, o->width);
    if (need == SIZE_MAX || !worker_reserve(&s->w->scratch, &s->w->scratch_cap, need))
        return tfn__fail(err, TFN_E_NOMEM, "out of memory (resize tables for %ux%u -> %ux%u)",
                         h, w, o->height, o->width);
    tfn__resize_out out = {s->dst, o->dtype, o->nchw, o->method, o->sub, s->plan->mul,
                           o->divide, s->plan->identity};
    s->out = out;
    tfn__bilinear_stream_begin(&s->stream, h, w, c, o->height, o->width, &s->out,
                               s->w->scratch);
    return TFN_OK;
}

static uint8_t *stream_row(tfn__image_sink *self)
{
    return tfn__bilinear_stream_row(&((worker_sink *)(void *)self)->stream);
}

static void stream_push(tfn__image_sink *self, uint32_t y)
{
    (void)y; /* rows come in order */
    tfn__bilinear_stream_push(&((worker_sink *)(void *)self)->stream);
}

/* Reshape's check of the decoded image against the output (TensorFlow's text). */
static bool same_count(const tfn__image_plan *plan, const tfn_image_info *info)
{
    uint64_t have = (uint64_t)info->out_height * info->out_width * (uint64_t)info->out_channels;
    uint64_t want = (uint64_t)plan->opt->height * plan->opt->width * (uint64_t)plan->channels;
    return have == want;
}

static int reshape_error(const tfn__image_plan *plan, const tfn_image_info *info,
                         tfn_error *err)
{
    uint64_t have = (uint64_t)info->out_height * info->out_width * (uint64_t)info->out_channels;
    uint64_t want = (uint64_t)plan->opt->height * plan->opt->width * (uint64_t)plan->channels;
    return tfn__fail(err, TFN_E_INVALID_ARG,
                     "Input to reshape is a tensor with %llu values, but the requested shape "
                     "has %llu",
                     (unsigned long long)have, (unsigned long long)want);
}

static tfn__resize_out plan_out(const tfn__image_plan *plan, void *dst)
{
    const tfn_image_batch_options *o = plan->opt;
    tfn__resize_out out = {dst, o->dtype, 0, o->method, o->sub, plan->mul, o->divide,
                           plan->identity};
    return out;
}

/* Row mode without resizing (JPEG): each decoded row is converted into its place in
 * the output while it is in cache; uint8 output without normalisation is decoded
 * straight into the output. A row of another image size is still decoded (a decode
 * error comes first, as in TensorFlow) into the scratch row and dropped. */
static int keep_begin(tfn__image_sink *self, const tfn_image_info *info, tfn_error *err)
{
    worker_sink *s = (worker_sink *)(void *)self;
    int c = info->out_channels;
    if (c != s->plan->channels || info->bytes_per_sample != 1)
        return tfn__fail(err, TFN_E_INVALID_ARG, "decoded %d channels, %d wanted", c,
                         s->plan->channels);
    s->row_len = (size_t)info->out_width * (size_t)c;
    s->at = 0;
    s->mismatch = !same_count(s->plan, info);
    s->out = plan_out(s->plan, s->dst);
    bool direct = !s->mismatch && s->out.dtype == TFN_IMAGE_UINT8 && s->out.identity_norm;
    s->row_buf = NULL;
    if (!direct) {
        /* offset 16: not 32-byte aligned, see tfn__bilinear_stream_row() */
        if (!worker_reserve(&s->w->scratch, &s->w->scratch_cap, s->row_len + 64))
            return tfn__fail(err, TFN_E_NOMEM, "out of memory (a row of %zu values)",
                             s->row_len);
        s->row_buf = (uint8_t *)s->w->scratch + 16;
    }
    return TFN_OK;
}

static uint8_t *keep_row(tfn__image_sink *self)
{
    worker_sink *s = (worker_sink *)(void *)self;
    return s->row_buf ? s->row_buf : (uint8_t *)s->dst + s->at;
}

static void keep_push(tfn__image_sink *self, uint32_t y)
{
    (void)y; /* rows come in order */
    worker_sink *s = (worker_sink *)(void *)self;
    if (!s->mismatch && s->row_buf)
        tfn__convert_u8(s->row_buf, s->row_len, s->at, s->plan->channels, &s->out);
    s->at += s->row_len;
}

static size_t dtype_size(int dtype)
{
    return dtype == TFN_IMAGE_FLOAT32 ? 4 : dtype == TFN_IMAGE_BFLOAT16 ? 2 : 1;
}

typedef struct batch_job {
    tfn__image_jobs jobs;
    tfn__image_plan plan;
    uint8_t *out;
    int32_t *status;
    /* encoded input */
    const void *const *data;
    const size_t *lens;
    /* or decoded input */
    const uint8_t *const *pixels;
    const uint32_t *heights, *widths;
} batch_job;

static int resize_into(const tfn__image_plan *plan, worker *w, void *dst, const uint8_t *src,
                       uint32_t h, uint32_t wd, tfn_error *err)
{
    const tfn_image_batch_options *o = plan->opt;
    size_t need = tfn__resize_scratch_size(o->method, h, wd, plan->channels, o->height,
                                           o->width);
    if (need == SIZE_MAX || !worker_reserve(&w->scratch, &w->scratch_cap, need))
        return tfn__fail(err, TFN_E_NOMEM, "out of memory (resize tables for %ux%u -> %ux%u)",
                         h, wd, o->height, o->width);
    tfn__resize_out out = {dst, o->dtype, o->nchw, o->method, o->sub, plan->mul, o->divide,
                           plan->identity};
    tfn__resize_u8(src, h, wd, plan->channels, o->height, o->width, &out, w->scratch);
    return TFN_OK;
}

/* The largest DCT scale 1/r that keeps the decoded image at least the target size. */
static int pick_ratio(const tfn_image_info *info, uint32_t oh, uint32_t ow)
{
    for (int r = 8; r >= 2; r /= 2) {
        uint64_t sh = (info->height + (uint64_t)r - 1) / (uint64_t)r;
        uint64_t sw = (info->width + (uint64_t)r - 1) / (uint64_t)r;
        if (sh >= oh && sw >= ow)
            return r;
    }
    return 1;
}

/* no_resize: decode at the image's own size into dst (JPEG a row at a time), then
 * reshape's count check. */
static int decode_keep(const tfn__image_plan *plan, tfn__image_worker *w, const uint8_t *data,
                       size_t len, void *dst, tfn_error *err)
{
    tfn_image_info info;
    worker_sink sink;
    memset(&sink, 0, sizeof sink);
    sink.base.get = worker_get;
    sink.w = w;
    sink.plan = plan;
    sink.dst = dst;
    bool rows = tfn_image_format_of(data, len) == TFN_IMAGE_JPEG;
    if (rows) {
        sink.base.begin = keep_begin;
        sink.base.row = keep_row;
        sink.base.push = keep_push;
    }
    int rc = tfn__image_decode_any(data, len, &plan->decode, &info, &sink.base, err);
    if (rc == TFN_OK && info.bytes_per_sample != 1)
        rc = tfn__fail(err, TFN_E_INVALID_ARG, "16-bit output is not supported in a batch");
    if (rc == TFN_OK && info.out_channels != plan->channels)
        rc = tfn__fail(err, TFN_E_INVALID_ARG, "decoded %d channels, %d wanted",
                       info.out_channels, plan->channels);
    if (rc == TFN_OK && !same_count(plan, &info))
        rc = reshape_error(plan, &info, err);
    if (rc == TFN_OK && rows && sink.at * dtype_size(plan->opt->dtype) != plan->image_bytes)
        rc = tfn__fail(err, TFN_E_CORRUPT, "image ended after %zu of %zu values", sink.at,
                       plan->image_bytes / dtype_size(plan->opt->dtype));
    if (rc == TFN_OK && !rows) {
        tfn__resize_out out = plan_out(plan, dst);
        size_t n = (size_t)info.out_height * info.out_width * (size_t)info.out_channels;
        tfn__convert_u8(w->pixels, n, 0, plan->channels, &out);
    }
    if (rc != TFN_OK)
        memset(dst, 0, plan->image_bytes);
    return rc;
}

int tfn__image_decode_resize(const tfn__image_plan *plan, tfn__image_worker *w,
                             const uint8_t *data, size_t len, void *dst, tfn_error *err)
{
    if (plan->opt->no_resize)
        return decode_keep(plan, w, data, len, dst, err);
    tfn_image_decode_options dopt = plan->decode;
    tfn_image_info info;
    int rc = TFN_OK;
    if (plan->opt->dct_scale && !dopt.crop && dopt.ratio <= 1 &&
        tfn_image_format_of(data, len) == TFN_IMAGE_JPEG) {
        rc = tfn__image_decode_any(data, len, &dopt, &info, NULL, err);
        if (rc == TFN_OK)
            dopt.ratio = pick_ratio(&info, plan->opt->height, plan->opt->width);
    }
    /* JPEG with plain bilinear: resized as the rows are decoded (the same values; the
       full-size image never goes through memory) */
    bool rows = plan->opt->method == TFN_RESIZE_BILINEAR &&
                tfn_image_format_of(data, len) == TFN_IMAGE_JPEG;
    if (rc == TFN_OK) {
        worker_sink sink;
        memset(&sink, 0, sizeof sink);
        sink.base.get = worker_get;
        sink.w = w;
        if (rows) {
            sink.base.begin = stream_begin;
            sink.base.row = stream_row;
            sink.base.push = stream_push;
            sink.plan = plan;
            sink.dst = dst;
        }
        rc = tfn__image_decode_any(data, len, &dopt, &info, &sink.base, err);
        uint32_t done = rows && rc == TFN_OK ? tfn__bilinear_stream_finish(&sink.stream) : 0;
        if (rc == TFN_OK && rows && done != plan->opt->height)
            rc = tfn__fail(err, TFN_E_CORRUPT, "image ended after %u of %u resized rows", done,
                           plan->opt->height);
    }
    if (rc == TFN_OK && info.bytes_per_sample != 1)
        rc = tfn__fail(err, TFN_E_INVALID_ARG, "16-bit output is not supported in a batch");
    if (rc == TFN_OK && info.out_channels != plan->channels) /* JPEG has no 2 channels */
        rc = tfn__fail(err, TFN_E_INVALID_ARG, "decoded %d channels, %d wanted",
                       info.out_channels, plan->channels);
    if (rc == TFN_OK && !rows)
        rc = resize_into(plan, w, dst, w->pixels, info.out_height, info.out_width, err);
    if (rc != TFN_OK)
        memset(dst, 0, plan->image_bytes);
    return rc;
}

static int decode_resize_one(tfn__image_jobs *jobs, size_t i, void *state, tfn_error *err)
{
    batch_job *j = (batch_job *)(void *)jobs;
    int rc = tfn__image_decode_resize(&j->plan, state, j->data[i], j->lens[i],
                                      j->out + i * j->plan.image_bytes, err);
    if (j->status)
        j->status[i] = rc;
    return rc;
}

static int resize_one(tfn__image_jobs *jobs, size_t i, void *state, tfn_error *err)
{
    batch_job *j = (batch_job *)(void *)jobs;
    if (!j->pixels[i] || j->heights[i] == 0 || j->widths[i] == 0)
        return tfn__fail(err, TFN_E_INVALID_ARG, "empty image (%ux%u)", j->heights[i],
                         j->widths[i]);
    return resize_into(&j->plan, state, j->out + i * j->plan.image_bytes, j->pixels[i],
                       j->heights[i], j->widths[i], err);
}

int tfn__image_plan_init(tfn__image_plan *plan, const tfn_image_batch_options *opt,
                         int channels, tfn_error *err)
{
    memset(plan, 0, sizeof *plan);
    if (!opt)
        return tfn__fail(err, TFN_E_INVALID_ARG, "image batch: options are NULL");
    if (channels < 1 || channels > 4)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "image batch: channels must be 1 to 4 (got %d)", channels);
    if (opt->height == 0 || opt->width == 0)
        return tfn__fail(err, TFN_E_INVALID_ARG, "image batch: output size %ux%u",
                         opt->height, opt->width);
    if (opt->no_resize && opt->nchw)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "image batch: no_resize keeps the decoded layout (nchw must be 0)");
    if (!opt->no_resize && !tfn__resize_method_ok(opt->method))
        return tfn__fail(err, TFN_E_INVALID_ARG, "image batch: unknown resize method %d",
                         opt->method);
    if (opt->dtype != TFN_IMAGE_UINT8 && opt->dtype != TFN_IMAGE_FLOAT32 &&
        opt->dtype != TFN_IMAGE_BFLOAT16)
        return tfn__fail(err, TFN_E_INVALID_ARG, "image batch: unknown dtype %d", opt->dtype);
    if (opt->decode.gif == TFN_GIF_ALL)
        return tfn__fail(err, TFN_E_INVALID_ARG, "image batch: every frame of a GIF "
                                                 "(TFN_GIF_ALL) cannot be resized into one image");
    uint64_t px = (uint64_t)opt->height * opt->width * (uint64_t)channels;
    if (px >= TFN__IMAGE_MAX_BYTES)
        return tfn__fail(err, TFN_E_LIMIT, "image batch: output images of %ux%u too large",
                         opt->height, opt->width);
    plan->opt = opt;
    plan->decode = opt->decode;
    plan->channels = channels;
    plan->image_bytes = (size_t)px * dtype_size(opt->dtype);
    for (int k = 0; k < 4; k++)
        plan->mul[k] = opt->mul[k] == 0.0f ? 1.0f : opt->mul[k];
    plan->identity = true;
    for (int k = 0; k < channels; k++)
        if (opt->sub[k] != 0.0f || plan->mul[k] != 1.0f)
            plan->identity = false;
    return TFN_OK;
}

static int setup(batch_job *j, const tfn_image_batch_options *opt, int channels, size_t n,
                 void *out, size_t out_cap, tfn_error *err)
{
    memset(j, 0, sizeof *j);
    int rc = tfn__image_plan_init(&j->plan, opt, channels, err);
    if (rc != TFN_OK)
        return rc;
    size_t total;
    if (!tfn__mul_size(j->plan.image_bytes, n, &total))
        return tfn__fail(err, TFN_E_LIMIT, "image batch: output size overflows");
    if (n && (!out || out_cap < total)) {
        tfn__fail(err, TFN_E_BUF_TOO_SMALL, "image batch: output of %zu bytes, needs %zu",
                  out_cap, total);
        if (err)
            err->offset = total;
        return TFN_E_BUF_TOO_SMALL;
    }
    j->out = out;
    j->jobs.n = n;
    j->jobs.free_state = worker_free;
    j->jobs.stop_on_error = opt->on_error != TFN_IMAGE_SKIP;
    return TFN_OK;
}

int tfn_image_decode_resize_batch(const void *const *data, const size_t *lens, size_t n,
                                  const tfn_image_batch_options *opt, void *out,
                                  size_t out_cap, int32_t *status, tfn_error *err)
{
    batch_job j;
    int channels = opt ? opt->decode.channels : 0;
    int rc = setup(&j, opt, channels, n, out, out_cap, err);
    if (rc != TFN_OK)
        return rc;
    if (n == 0)
        return TFN_OK;
    if (!data || !lens)
        return tfn__fail(err, TFN_E_INVALID_ARG, "image batch: NULL data or lens");
    rc = tfn__image_check_options(&opt->decode, err);
    if (rc != TFN_OK)
        return rc;
    j.data = data;
    j.lens = lens;
    j.status = status;
    j.jobs.run = decode_resize_one;
    rc = tfn__image_run_jobs(&j.jobs, opt->num_threads, sizeof(worker), err);
    if (opt->on_error == TFN_IMAGE_SKIP && j.jobs.started)
        rc = TFN_OK; /* every record ran; status[i] tells */
    return rc;
}

int tfn_image_resize_batch(const uint8_t *const *pixels, const uint32_t *heights,
                           const uint32_t *widths, int channels, size_t n,
                           const tfn_image_batch_options *opt, void *out, size_t out_cap,
                           tfn_error *err)
{
    batch_job j;
    int rc = setup(&j, opt, channels, n, out, out_cap, err);
    if (rc != TFN_OK)
        return rc;
    if (n == 0)
        return TFN_OK;
    if (!pixels || !heights || !widths)
        return tfn__fail(err, TFN_E_INVALID_ARG, "image batch: NULL pixels or sizes");
    j.pixels = pixels;
    j.heights = heights;
    j.widths = widths;
    j.jobs.run = resize_one;
    j.jobs.stop_on_error = true;
    return tfn__image_run_jobs(&j.jobs, opt->num_threads, sizeof(worker), err);
}

int tfn_image_resize(const void *src, int src_dtype, uint32_t height, uint32_t width,
                     int channels, void *dst, uint32_t out_height, uint32_t out_width,
                     int method, tfn_error *err)
{
    if (!src || !dst)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_image_resize: NULL image");
    if (height == 0 || width == 0 || out_height == 0 || out_width == 0 || channels < 1)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "tfn_image_resize: sizes must be positive (%ux%ux%d -> %ux%u)",
                         height, width, channels, out_height, out_width);
    if (!tfn__resize_method_ok(method))
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_image_resize: unknown method %d", method);
    if (src_dtype != TFN_IMAGE_UINT8 && src_dtype != TFN_IMAGE_FLOAT32)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_image_resize: source dtype %d", src_dtype);
    size_t need = tfn__resize_scratch_size(method, height, width, channels, out_height,
                                           out_width);
    void *scratch = need == SIZE_MAX ? NULL : malloc(need);
    if (!scratch)
        return tfn__fail(err, TFN_E_NOMEM, "out of memory (resize tables)");
    if (src_dtype == TFN_IMAGE_FLOAT32) {
        tfn__resize_f32(src, height, width, channels, out_height, out_width, method, dst,
                        scratch);
    } else {
        static const float zero[4], one[4] = {1, 1, 1, 1};
        bool nearest = (method & ~TFN_RESIZE_ANTIALIAS) == TFN_RESIZE_NEAREST;
        tfn__resize_out out = {dst, nearest ? TFN_IMAGE_UINT8 : TFN_IMAGE_FLOAT32,
                               0, method, zero, one, 0, true};
        tfn__resize_u8(src, height, width, channels, out_height, out_width, &out, scratch);
    }
    free(scratch);
    return TFN_OK;
}

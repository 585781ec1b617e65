/*
 * pipeline_image.c - image stages: after a worker parsed a batch, it decodes, resizes
 * and normalises each record's image (a scalar bytes feature) into the batch's own
 * image block, with lib/image's per-image call (so the values are those of
 * tfn_image_decode_resize_batch). The block is recycled with the batch, so a warm
 * pipeline writes its float batches into memory that is already mapped, and the
 * decoding of one batch overlaps with the reading, parsing and decoding of others on
 * the other workers.
 */
#define _GNU_SOURCE
#include "pipeline_internal.h"

#include <stdio.h>

enum { IMAGE_ALIGN = 64 };

static const char *format_name(int format, bool lower)
{
    switch (format) {
    case TFN_IMAGE_JPEG: return lower ? "jpeg" : "JPEG";
    case TFN_IMAGE_PNG: return lower ? "png" : "PNG";
    case TFN_IMAGE_GIF: return lower ? "gif" : "GIF";
    case TFN_IMAGE_BMP: return lower ? "bmp" : "BMP";
    default: return lower ? "image" : "unknown";
    }
}

/* One record's image into dst: the op's format check (DecodeJpeg refuses BMP, as
 * TensorFlow), then the fused decode -> resize -> normalise. */
static int decode_record(const tfn__image_stage *st, tfn__image_worker *iw,
                         const tfn_bytes *v, void *dst, tfn_error *err)
{
    if (st->formats && v->len) {
        int f = tfn_image_format_of(v->data, v->len);
        if (f != TFN_IMAGE_UNKNOWN && !(st->formats & (1u << (unsigned)f))) {
            memset(dst, 0, st->plan.image_bytes);
            return tfn__fail(err, TFN_E_INVALID_ARG,
                             "Trying to decode %s format using a wrong op. Use `decode_%s` "
                             "or `decode_image` instead. Op used: %s",
                             format_name(f, false), format_name(f, true), st->op_name);
        }
    }
    return tfn__image_decode_resize(&st->plan, iw, v->data, v->len, dst, err);
}

/* Places every stage's output for n records in b->images: offset and bytes per stage
 * (image_at[2k], image_at[2k + 1]). */
static int layout_images(const struct tfn_pipeline *p, tfn_pipeline_batch *b, size_t n,
                         tfn_error *err)
{
    size_t total = 0;
    for (size_t k = 0; k < p->nimages; k++) {
        size_t bytes, at;
        if (!tfn__mul_size(n, p->images[k].plan.image_bytes, &bytes) ||
            !tfn__add_size(total, IMAGE_ALIGN - 1, &at))
            return tfn__fail(err, TFN_E_LIMIT, "image batch of %zu records too large", n);
        at &= ~(size_t)(IMAGE_ALIGN - 1);
        b->image_at[2 * k] = at;
        b->image_at[2 * k + 1] = bytes;
        if (!tfn__add_size(at, bytes, &total))
            return tfn__fail(err, TFN_E_LIMIT, "image batch of %zu records too large", n);
    }
    if (!tfn__grow(&b->pool->alloc, (void **)&b->images, &b->images_cap, total + IMAGE_ALIGN,
                   1))
        return tfn__fail(err, TFN_E_NOMEM, "out of memory for a batch of images (%zu bytes)",
                         total);
    return TFN_OK;
}

static uint8_t *images_base(const tfn_pipeline_batch *b)
{
    return (uint8_t *)(((uintptr_t)b->images + IMAGE_ALIGN - 1) &
                       ~(uintptr_t)(IMAGE_ALIGN - 1));
}

/* SKIP: the records whose image failed leave the batch; the images of the others move
 * down to their new places and the batch is parsed again without the dropped ones. */
static int drop_failed(tfn__worker *w, tfn_pipeline_batch *b, uint64_t *skipped)
{
    struct tfn_pipeline *p = w->pipe;
    uint8_t *base = images_base(b);
    size_t n = b->n, kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (w->failed[i])
            continue;
        if (kept != i) {
            for (size_t k = 0; k < p->nimages; k++) {
                size_t ib = p->images[k].plan.image_bytes;
                uint8_t *s = base + b->image_at[2 * k];
                memmove(s + kept * ib, s + i * ib, ib);
            }
        }
        kept++;
    }
    for (size_t k = 0; k < p->nimages; k++)
        b->image_at[2 * k + 1] = kept * p->images[k].plan.image_bytes;
    for (size_t i = n; i-- > 0;) {
        if (w->failed[i]) {
            tfn__batch_drop_record(b, i);
            (*skipped)++;
        }
    }
    /* the same records parsed before, so this parse succeeds (columns laid out anew) */
    uint64_t none = 0;
    return tfn__batch_parse(w, b, &none);
}

int tfn__batch_images(tfn__worker *w, tfn_pipeline_batch *b, uint64_t *skipped)
{
    struct tfn_pipeline *p = w->pipe;
    size_t n = b->n;
    if (!p->nimages || n == 0 || b->status != TFN_OK)
        return TFN_OK;
    int rc = layout_images(p, b, n, &b->err);
    if (rc == TFN_OK && !tfn__grow(&p->alloc, (void **)&w->failed, &w->failed_cap, n, 1))
        rc = tfn__fail(&b->err, TFN_E_NOMEM, "out of memory for a batch of images");
    if (rc < 0) {
        b->status = rc;
        return rc == TFN_E_NOMEM ? rc : TFN_OK;
    }
    memset(w->failed, 0, n);
    bool any = false;
    uint8_t *base = images_base(b);
    for (size_t k = 0; k < p->nimages; k++) {
        const tfn__image_stage *st = &p->images[k];
        const tfn_bytes *views = b->cols[st->feature].values;
        uint8_t *out = base + b->image_at[2 * k];
        size_t ib = st->plan.image_bytes;
        for (size_t i = 0; i < n; i++) {
            if (atomic_load_explicit(&p->stop, memory_order_relaxed))
                return TFN_OK; /* the batch is dropped */
            if (w->failed[i]) {
                memset(out + i * ib, 0, ib);
                continue;
            }
            tfn_error e;
            tfn__clear_error(&e);
            rc = decode_record(st, &w->image, &views[i], out + i * ib, &e);
            if (rc == TFN_OK)
                continue;
            if (rc == TFN_E_NOMEM || st->opt.on_error != TFN_IMAGE_SKIP) {
                /* TensorFlow raises InvalidArgument for every image it cannot decode */
                b->err = e;
                tfn__batch_locate_error(p, b, rc == TFN_E_NOMEM ? rc : TFN_E_INVALID_ARG, i);
                return rc == TFN_E_NOMEM ? rc : TFN_OK;
            }
            w->failed[i] = 1;
            any = true;
        }
    }
    return any ? drop_failed(w, b, skipped) : TFN_OK;
}

/* Checks and copies the image stages of the options. */
int tfn__images_setup(struct tfn_pipeline *p, const tfn_pipeline_options *o, tfn_error *err)
{
    if (!o->nimages)
        return TFN_OK;
    if (!o->images)
        return tfn__fail(err, TFN_E_INVALID_ARG, "%zu image stages but no array of them",
                         o->nimages);
    if (!o->spec)
        return tfn__fail(err, TFN_E_INVALID_ARG, "an image stage needs a spec");
    p->images = tfn__malloc(&p->alloc, o->nimages * sizeof *p->images);
    if (!p->images)
        return tfn__fail(err, TFN_E_NOMEM, "out of memory");
    memset(p->images, 0, o->nimages * sizeof *p->images);
    p->nimages = o->nimages;
    for (size_t k = 0; k < o->nimages; k++) {
        const tfn_pipeline_image *in = &o->images[k];
        tfn__image_stage *st = &p->images[k];
        if (in->feature >= o->spec->n)
            return tfn__fail(err, TFN_E_INVALID_ARG, "image stage %zu: no feature %zu", k,
                             in->feature);
        const tfn__dense *d = &o->spec->dense[in->feature];
        if (d->type != TFN_FIXED_LEN || d->dtype != TFN_BYTES || d->stride != 1 ||
            d->rank != 0)
            return tfn__fail(err, TFN_E_INVALID_ARG,
                             "image stage %zu: feature %s must be a FixedLen bytes feature "
                             "of shape []",
                             k, d->key);
        if (!in->image)
            return tfn__fail(err, TFN_E_INVALID_ARG, "image stage %zu: NULL image options", k);
        st->feature = in->feature;
        st->opt = *in->image;
        st->formats = in->formats;
        const char *name = in->op_name ? in->op_name : "DecodeImage";
        snprintf(st->op_name, sizeof st->op_name, "%s", name);
        if (st->opt.on_error != TFN_IMAGE_RAISE && st->opt.on_error != TFN_IMAGE_SKIP)
            return tfn__fail(err, TFN_E_INVALID_ARG, "image stage %zu: unknown on_error %d", k,
                             st->opt.on_error);
        int rc = tfn__image_check_options(&st->opt.decode, err);
        if (rc == TFN_OK)
            rc = tfn__image_plan_init(&st->plan, &st->opt, st->opt.decode.channels, err);
        if (rc != TFN_OK)
            return rc;
    }
    return TFN_OK;
}

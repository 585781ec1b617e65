/*
 * pipeline_batch.c - batch memory and parsing into it.
 *
 * A batch owns its records (copied out of the reader, back to back) and one block
 * holding every parsed output. Batches come from a pool and go back to it when the
 * caller frees them, keeping their buffers: a warm pipeline writes into memory that is
 * already mapped instead of taking a page fault per 4 KiB of fresh output.
 */
#define _GNU_SOURCE
#include "pipeline_internal.h"

#include <inttypes.h>

enum { OUT_ALIGN = 64 };

/* ---------------------------------------------------------------- pool */

int tfn__pool_new(const tfn__alloc *alloc, size_t ncols, size_t nimages, size_t max_free,
                  tfn__batch_pool **out)
{
    tfn__batch_pool *pool = tfn__malloc(alloc, sizeof *pool);
    if (!pool)
        return TFN_E_NOMEM;
    memset(pool, 0, sizeof *pool);
    if (pthread_mutex_init(&pool->mu, NULL) != 0) {
        tfn__free(alloc, pool);
        return TFN_E_NOMEM;
    }
    pool->alloc = *alloc;
    pool->ncols = ncols;
    pool->nimages = nimages;
    pool->max_free = max_free;
    *out = pool;
    return TFN_OK;
}

static void batch_destroy(tfn__batch_pool *pool, tfn_pipeline_batch *b)
{
    const tfn__alloc *a = &pool->alloc;
    tfn__free(a, b->data);
    tfn__free(a, b->offsets);
    tfn__free(a, b->origin);
    tfn__free(a, b->views);
    tfn__free(a, b->block);
    tfn__free(a, b->cols);
    tfn__free(a, b->images);
    tfn__free(a, b->image_at);
    tfn__free(a, b);
}

static void pool_destroy(tfn__batch_pool *pool)
{
    pthread_mutex_destroy(&pool->mu);
    tfn__alloc a = pool->alloc;
    tfn__free(&a, pool);
}

tfn_pipeline_batch *tfn__pool_get(tfn__batch_pool *pool)
{
    pthread_mutex_lock(&pool->mu);
    tfn_pipeline_batch *b = pool->free_list;
    if (b) {
        pool->free_list = b->next_free;
        pool->nfree--;
    }
    pthread_mutex_unlock(&pool->mu);
    if (!b) {
        b = tfn__malloc(&pool->alloc, sizeof *b);
        if (!b)
            return NULL;
        memset(b, 0, sizeof *b);
        b->pool = pool;
        if (pool->ncols) {
            b->cols = tfn__malloc(&pool->alloc, pool->ncols * sizeof *b->cols);
            if (!b->cols) {
                tfn__free(&pool->alloc, b);
                return NULL;
            }
            b->ncols = pool->ncols;
        }
        if (pool->nimages) {
            b->image_at = tfn__malloc(&pool->alloc, 2 * pool->nimages * sizeof *b->image_at);
            if (!b->image_at) {
                tfn__free(&pool->alloc, b->cols);
                tfn__free(&pool->alloc, b);
                return NULL;
            }
            b->nimages = pool->nimages;
        }
        pthread_mutex_lock(&pool->mu);
        pool->live++;
        pthread_mutex_unlock(&pool->mu);
    }
    b->next_free = NULL;
    b->status = TFN_OK;
    b->n = 0;
    b->data_len = 0;
    if (b->ncols)
        memset(b->cols, 0, b->ncols * sizeof *b->cols);
    return b;
}

void tfn__pool_put(tfn_pipeline_batch *b)
{
    tfn__batch_pool *pool = b->pool;
    bool destroy_pool = false;
    pthread_mutex_lock(&pool->mu);
    if (!pool->closed && pool->nfree < pool->max_free) {
        b->next_free = pool->free_list;
        pool->free_list = b;
        pool->nfree++;
        b = NULL;
    } else {
        pool->live--;
        destroy_pool = pool->closed && pool->live == 0;
    }
    pthread_mutex_unlock(&pool->mu);
    if (b)
        batch_destroy(pool, b);
    if (destroy_pool)
        pool_destroy(pool);
}

void tfn__pool_close(tfn__batch_pool *pool)
{
    pthread_mutex_lock(&pool->mu);
    pool->closed = true;
    tfn_pipeline_batch *list = pool->free_list;
    pool->free_list = NULL;
    pool->live -= pool->nfree;
    pool->nfree = 0;
    bool destroy_pool = pool->live == 0;
    pthread_mutex_unlock(&pool->mu);
    while (list) {
        tfn_pipeline_batch *next = list->next_free;
        batch_destroy(pool, list);
        list = next;
    }
    if (destroy_pool)
        pool_destroy(pool);
}

/* ---------------------------------------------------------------- records */

uint8_t *tfn__batch_room(tfn_pipeline_batch *b, size_t len)
{
    const tfn__alloc *a = &b->pool->alloc;
    size_t need;
    if (!tfn__add_size(b->data_len, len, &need) ||
        !tfn__grow(a, (void **)&b->data, &b->data_cap, need ? need : 1, 1) ||
        !tfn__grow(a, (void **)&b->offsets, &b->offsets_cap, b->n + 2, sizeof *b->offsets) ||
        !tfn__grow(a, (void **)&b->origin, &b->origin_cap, b->n + 1, sizeof *b->origin))
        return NULL;
    return b->data + b->data_len;
}

int tfn__batch_commit(tfn_pipeline_batch *b, size_t len, const tfn__origin *origin,
                      tfn_error *err)
{
    /* tfn__batch_room made the room: data_len + len fits, as do the offsets */
    if (len > b->data_cap - b->data_len || b->n + 2 > b->offsets_cap || b->n + 1 > b->origin_cap)
        return tfn__fail(err, TFN_E_NOMEM, "out of memory for a batch of %zu records",
                         b->n + 1);
    b->offsets[0] = 0;
    b->data_len += len;
    b->origin[b->n] = *origin;
    b->n++;
    b->offsets[b->n] = b->data_len;
    return TFN_OK;
}

static void make_views(tfn_pipeline_batch *b)
{
    for (size_t i = 0; i < b->n; i++) {
        b->views[i].data = b->data + b->offsets[i];
        b->views[i].len = (size_t)(b->offsets[i + 1] - b->offsets[i]);
    }
}

void tfn__batch_drop_record(tfn_pipeline_batch *b, size_t i)
{
    uint64_t start = b->offsets[i], end = b->offsets[i + 1], gone = end - start;
    memmove(b->data + start, b->data + end, b->data_len - end);
    b->data_len -= gone;
    for (size_t k = i + 1; k <= b->n; k++)
        b->offsets[k - 1] = b->offsets[k] - gone;
    memmove(b->origin + i, b->origin + i + 1, (b->n - i - 1) * sizeof *b->origin);
    b->n--;
    make_views(b);
}

/* ---------------------------------------------------------------- parsing */

static size_t elem_size(int dtype)
{
    switch (dtype) {
    case TFN_INT64: return sizeof(int64_t);
    case TFN_INT32: return sizeof(int32_t);
    case TFN_FLOAT32: return sizeof(float);
    default: return sizeof(tfn_bytes);
    }
}

static bool add_region(size_t *total, size_t bytes, size_t *at)
{
    size_t aligned;
    if (!tfn__add_size(*total, OUT_ALIGN - 1, &aligned))
        return false;
    aligned &= ~(size_t)(OUT_ALIGN - 1);
    *at = aligned;
    return tfn__add_size(aligned, bytes, total);
}

/* Lays out the columns of the scanned batch in b->block and points the outputs at it. */
static int layout_outputs(tfn__worker *w, tfn_pipeline_batch *b, tfn_error *err)
{
    struct tfn_pipeline *p = w->pipe;
    const tfn_spec *spec = p->spec;
    size_t n = b->n, total = 0;
    /* offsets of values / mask / lengths per column, kept in the column's pointers as
     * integers until the block exists */
    for (size_t j = 0; j < spec->n; j++) {
        const tfn__dense *d = &spec->dense[j];
        tfn_pipeline_column *c = &b->cols[j];
        bool seq = d->type == TFN_FIXED_LEN_SEQUENCE;
        size_t rows = 1, count, bytes, at;
        if (seq)
            rows = p->max_rows >= 0 ? (size_t)p->max_rows : tfn_parser_max_rows(w->parser, j);
        c->dtype = d->out_dtype;
        c->rows = rows;
        if (!tfn__mul_size(n, rows, &count) || !tfn__mul_size(count, d->stride, &count) ||
            !tfn__mul_size(count, elem_size(d->out_dtype), &bytes) ||
            !add_region(&total, bytes, &at))
            return tfn__fail(err, TFN_E_LIMIT, "batch output of feature %s too large",
                             d->key);
        c->count = count;
        c->values = (const void *)(uintptr_t)at;
        c->mask = NULL;
        c->lengths = NULL;
        if (seq && p->masks) {
            size_t mbytes, mat, lat;
            if (!tfn__mul_size(n, rows, &mbytes) || !add_region(&total, mbytes, &mat) ||
                !add_region(&total, n * sizeof(int64_t), &lat))
                return tfn__fail(err, TFN_E_LIMIT, "batch mask of feature %s too large",
                                 d->key);
            c->mask = (const uint8_t *)(uintptr_t)mat;
            c->lengths = (const int64_t *)(uintptr_t)lat;
        }
    }
    if (!tfn__grow(&b->pool->alloc, (void **)&b->block, &b->block_cap, total + OUT_ALIGN, 1))
        return tfn__fail(err, TFN_E_NOMEM, "out of memory for a parsed batch (%zu bytes)",
                         total);
    uintptr_t base = ((uintptr_t)b->block + OUT_ALIGN - 1) & ~(uintptr_t)(OUT_ALIGN - 1);
    for (size_t j = 0; j < spec->n; j++) {
        tfn_pipeline_column *c = &b->cols[j];
        tfn_output *o = &w->outs[j];
        memset(o, 0, sizeof *o);
        c->values = c->count ? (const void *)(base + (uintptr_t)c->values) : NULL;
        /* a feature with no values still needs a pointer (NULL would skip it) */
        o->values = (void *)(c->count ? (uintptr_t)c->values : base);
        o->capacity = c->count;
        o->max_rows = spec->dense[j].type == TFN_FIXED_LEN_SEQUENCE ? p->max_rows : -1;
        if (c->mask) {
            c->mask = (const uint8_t *)(base + (uintptr_t)c->mask);
            c->lengths = (const int64_t *)(base + (uintptr_t)c->lengths);
            o->mask = (uint8_t *)(uintptr_t)c->mask;
            o->lengths = (int64_t *)(uintptr_t)c->lengths;
        }
    }
    return TFN_OK;
}

void tfn__batch_locate_error(const struct tfn_pipeline *p, tfn_pipeline_batch *b, int rc,
                             size_t i)
{
    tfn_error *err = &b->err;
    const tfn__origin *o = &b->origin[i];
    const char *name = tfn__source_name(p, o->input);
    if (name)
        tfn__append(err, "; file %s, record %" PRIu64 ", offset %" PRIu64, name, o->index,
                    o->offset);
    else
        tfn__append(err, "; input %zu, record %" PRIu64 ", offset %" PRIu64, o->input,
                    o->index, o->offset);
    err->code = rc;
    err->record_index = o->index;
    err->offset = o->offset;
    b->status = rc;
}

/* The batch becomes parse error `rc` of its record i: TF's text, then where. */
static void fail_record(tfn__worker *w, tfn_pipeline_batch *b, int rc, size_t i)
{
    struct tfn_pipeline *p = w->pipe;
    tfn_error *err = &b->err;
    if ((p->parse_flags & TFN_PARSE_SINGLE) && rc != TFN_E_OUT_OF_RANGE) {
        tfn_error single;
        tfn__clear_error(&single);
        int rc1 = tfn_parser_scan(w->parser, &b->views[i], 1, NULL, TFN_PARSE_SINGLE, &single);
        if (rc1 < 0) {
            *err = single;
            rc = rc1;
        }
    }
    tfn__batch_locate_error(p, b, rc, i);
}

/* True when every output's size follows from the batch size alone (no
 * FixedLenSequence feature padded to the batch's longest): the outputs can then be
 * laid out before the records are read, and tfn_parser_parse decodes while it scans. */
static bool sizes_known_before_scan(const struct tfn_pipeline *p)
{
    if (p->max_rows >= 0)
        return true;
    for (size_t j = 0; j < p->spec->n; j++)
        if (p->spec->dense[j].type == TFN_FIXED_LEN_SEQUENCE)
            return false;
    return true;
}

int tfn__batch_parse(tfn__worker *w, tfn_pipeline_batch *b, uint64_t *skipped)
{
    struct tfn_pipeline *p = w->pipe;
    tfn_error *err = &b->err;
    if (!tfn__grow(&b->pool->alloc, (void **)&b->views, &b->views_cap, b->n ? b->n : 1,
                   sizeof *b->views)) {
        b->status = tfn__fail(err, TFN_E_NOMEM, "out of memory for a batch's views");
        return b->status;
    }
    make_views(b);
    bool one_pass = sizes_known_before_scan(p);
    while (b->n > 0) {
        tfn__clear_error(err);
        int rc;
        if (one_pass) { /* outputs first, then scan and decode in one pass */
            rc = layout_outputs(w, b, err);
            if (rc < 0) {
                b->status = rc;
                return rc;
            }
            rc = tfn_parser_parse(w->parser, b->views, b->n, NULL, TFN_PARSE_BATCH, w->outs,
                                  err);
            if (rc == TFN_OK)
                return TFN_OK;
        } else if ((rc = tfn_parser_scan(w->parser, b->views, b->n, NULL, TFN_PARSE_BATCH,
                                         err)) == TFN_OK) {
            rc = layout_outputs(w, b, err);
            if (rc < 0) {
                b->status = rc;
                return rc;
            }
            rc = tfn_parser_fill(w->parser, w->outs, err);
            if (rc == TFN_OK)
                return TFN_OK;
        }
        if (rc == TFN_E_NOMEM || rc == TFN_E_BUF_TOO_SMALL || rc == TFN_E_LIMIT ||
            err->record_index >= b->n) {
            b->status = rc;
            return rc == TFN_E_NOMEM ? rc : TFN_OK;
        }
        size_t i = (size_t)err->record_index;
        if (p->on_parse_error != TFN_ON_PARSE_ERROR_SKIP) {
            fail_record(w, b, rc, i);
            return TFN_OK;
        }
        tfn__batch_drop_record(b, i);
        (*skipped)++;
    }
    return TFN_OK;
}

/* ---------------------------------------------------------------- accessors */

size_t tfn_pipeline_batch_count(const tfn_pipeline_batch *b)
{
    return b ? b->n : 0;
}

void tfn_pipeline_batch_records(const tfn_pipeline_batch *b, const uint8_t **data,
                                size_t *len, const uint64_t **offsets)
{
    if (data)
        *data = b && b->data_len ? b->data : NULL;
    if (len)
        *len = b ? b->data_len : 0;
    if (offsets)
        *offsets = b ? b->offsets : NULL;
}

int tfn_pipeline_batch_origin(const tfn_pipeline_batch *b, size_t i, size_t *input,
                              uint64_t *record_index, uint64_t *offset)
{
    if (!b || i >= b->n)
        return TFN_E_INVALID_ARG;
    if (input)
        *input = b->origin[i].input;
    if (record_index)
        *record_index = b->origin[i].index;
    if (offset)
        *offset = b->origin[i].offset;
    return TFN_OK;
}

int tfn_pipeline_batch_column(const tfn_pipeline_batch *b, size_t j, tfn_pipeline_column *out)
{
    if (!b || !out || j >= b->ncols)
        return TFN_E_INVALID_ARG;
    *out = b->cols[j];
    return TFN_OK;
}

const void *tfn_pipeline_batch_image(const tfn_pipeline_batch *b, size_t k, size_t *bytes)
{
    if (bytes)
        *bytes = 0;
    if (!b || k >= b->nimages || !b->images)
        return NULL;
    uintptr_t base = ((uintptr_t)b->images + 63) & ~(uintptr_t)63;
    if (bytes)
        *bytes = b->image_at[2 * k + 1];
    return (const void *)(base + b->image_at[2 * k]);
}

void tfn_pipeline_batch_free(tfn_pipeline_batch *b)
{
    if (b)
        tfn__pool_put(b);
}

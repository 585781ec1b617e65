/* encode_columns.c - N Examples from whole columns in one call: the same bytes as the
 * tfn_example builder, with no per-example allocation (one scratch area per call).
 *
 * One pass over the caller's values: every example's integer rows are encoded into the
 * scratch area first (their lengths are then known, so the nested length prefixes can
 * be written), then the example is written front to back and the encoded runs copied
 * in. Reading the caller's rows twice (size, then write) costs more than the copy:
 * rows of a wide column are pages apart and come from memory, not from the cache. */
#include "column_internal.h"

/* Scratch for encoded integer rows, per call: a column is staged when its longest row
 * fits in what is left (10 bytes per value, the longest varint); others are sized and
 * written straight from the caller's values. */
#define STAGE_BUDGET ((size_t)256 * 1024)

typedef struct col_view {
    const tfn_column *c;
    size_t index;   /* position in the caller's array, for messages */
    size_t max_row; /* values (or strings) in the longest row */
    uint8_t *stage; /* where this column's row is encoded, or NULL */
} col_view;

static int check_column(const tfn_column *c, size_t idx, size_t n, size_t *max_row,
                        tfn_error *err)
{
    if (!c->key && c->key_len)
        return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, 0, "column %zu: key is NULL", idx);
    if (c->dtype != TFN_INT64 && c->dtype != TFN_INT32 && c->dtype != TFN_FLOAT32 &&
        c->dtype != TFN_FLOAT64 && c->dtype != TFN_BYTES)
        return tfn__fail_at(err, TFN_E_TYPE, 0, 0,
                            "column '%.*s': unsupported dtype %d (int64, int32, float32, "
                            "float64 or bytes expected)",
                            tfn__column_key_arg(c), c->key, c->dtype);
    size_t items;       /* numbers, or strings for a bytes column */
    size_t longest = 0; /* the example with the longest row */
    if (c->row_splits) {
        if (c->row_splits[0] != 0)
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, 0,
                                "column '%.*s': row_splits[0] is %lld, expected 0", tfn__column_key_arg(c),
                                c->key, (long long)c->row_splits[0]);
        *max_row = 0;
        for (size_t i = 0; i < n; i++) {
            if (c->row_splits[i + 1] < c->row_splits[i])
                return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i,
                                    "column '%.*s': row_splits decrease at example %zu (%lld "
                                    "then %lld)",
                                    tfn__column_key_arg(c), c->key, i, (long long)c->row_splits[i],
                                    (long long)c->row_splits[i + 1]);
            size_t row = (size_t)(c->row_splits[i + 1] - c->row_splits[i]);
            if (row > *max_row) {
                *max_row = row;
                longest = i;
            }
        }
        items = (size_t)c->row_splits[n];
    } else if (!tfn__mul_size(n, c->width, &items)) {
        return tfn__fail(err, TFN_E_LIMIT, "column '%.*s': %zu x %zu values overflow", tfn__column_key_arg(c),
                         c->key, n, c->width);
    } else {
        *max_row = n ? c->width : 0;
    }
    /* A value takes at least 1 byte (integers), 4 (floats) or 2 (a string's tag and
     * length): a longer row cannot fit in one message. Refused before any value or
     * string offset is read, so a wrong width or split is not read past its array. */
    size_t least = c->dtype == TFN_BYTES                                   ? 2
                   : c->dtype == TFN_FLOAT32 || c->dtype == TFN_FLOAT64 ? 4
                                                                          : 1;
    if (*max_row > TFN_MAX_MESSAGE_SIZE / least)
        return tfn__fail_at(err, TFN_E_LIMIT, 0, longest,
                            "column '%.*s': example %zu has %zu values, more than fit in "
                            "protobuf's 2 GiB message limit",
                            tfn__column_key_arg(c), c->key, longest, *max_row);
    if (items && !c->values)
        return tfn__fail(err, TFN_E_INVALID_ARG, "column '%.*s': values is NULL", tfn__column_key_arg(c),
                         c->key);
    if (c->dtype == TFN_BYTES) {
        if (items && !c->byte_offsets)
            return tfn__fail(err, TFN_E_INVALID_ARG,
                             "bytes column '%.*s': byte_offsets is NULL", tfn__column_key_arg(c), c->key);
        for (size_t k = 0; k < items; k++)
            if (c->byte_offsets[k + 1] < c->byte_offsets[k] || c->byte_offsets[k] < 0)
                return tfn__fail(err, TFN_E_INVALID_ARG,
                                 "bytes column '%.*s': byte_offsets decrease at string %zu",
                                 tfn__column_key_arg(c), c->key, k);
    }
    return TFN_OK;
}

/* Size of example i and of its Features message. Payload sizes are read from
 * `payloads` when `cached`, else computed (and stored there when it is not NULL). */
static uint64_t example_size(const col_view *cols, size_t ncols, size_t i, uint64_t *payloads,
                             bool cached, uint64_t *features_out)
{
    uint64_t features = 0;
    for (size_t k = 0; k < ncols; k++) {
        const tfn_column *c = cols[k].c;
        uint64_t payload = cached ? payloads[k] : tfn__column_payload(c, i);
        if (!cached && payloads)
            payloads[k] = payload;
        uint64_t feature = tfn__feature_size(tfn__column_kind(c->dtype), payload);
        features += tfn__len_field_size(tfn__entry_size(c->key_len, feature));
    }
    if (features_out)
        *features_out = features;
    return ncols ? tfn__len_field_size(features) : 0;
}

static int prepare(const tfn_column *columns, size_t ncols, size_t n, col_view *cols,
                   tfn_error *err)
{
    if (ncols && !columns)
        return tfn__fail(err, TFN_E_INVALID_ARG, "columns is NULL but ncolumns is %zu", ncols);
    for (size_t k = 0; k < ncols; k++) {
        size_t max_row = 0;
        int rc = check_column(&columns[k], k, n, &max_row, err);
        if (rc)
            return rc;
        /* insertion sort by key: column counts are small */
        size_t at = k;
        while (at > 0) {
            const tfn_column *prev = cols[at - 1].c;
            int cmp = tfn__key_cmp(prev->key, prev->key_len, columns[k].key, columns[k].key_len);
            if (cmp == 0)
                return tfn__fail(err, TFN_E_INVALID_ARG, "column key '%.*s' appears twice",
                                 tfn__column_key_arg(&columns[k]), columns[k].key);
            if (cmp < 0)
                break;
            cols[at] = cols[at - 1];
            at--;
        }
        cols[at] = (col_view){&columns[k], k, max_row, NULL};
    }
    return TFN_OK;
}

/* Scratch of one call: sorted column views, one example's payload sizes, and the
 * staging area of the integer rows. */
typedef struct scratch {
    tfn__alloc alloc;
    int simd; /* the SIMD level of the varint writer */
    col_view *cols;
    uint64_t *payloads; /* ncols */
    uint8_t *stage;
} scratch;

static int scratch_init(scratch *s, size_t ncols, size_t n, tfn_error *err)
{
    tfn__alloc_init(&s->alloc, NULL);
    s->simd = tfn__simd_level();
    s->stage = NULL;
    s->cols = tfn__malloc(&s->alloc, (ncols ? ncols : 1) * sizeof *s->cols);
    s->payloads = tfn__malloc(&s->alloc, (ncols ? ncols : 1) * sizeof *s->payloads);
    if (!s->cols || !s->payloads) {
        tfn__free(&s->alloc, s->cols);
        tfn__free(&s->alloc, s->payloads);
        return tfn__fail(err, TFN_E_NOMEM, "out of memory encoding %zu examples", n);
    }
    return TFN_OK;
}

/* Gives the integer columns whose longest row fits in STAGE_BUDGET their part of the
 * staging area (allocated here, once per call). */
static int scratch_stage(scratch *s, size_t ncols, size_t n, tfn_error *err)
{
    size_t used = 0;
    for (size_t k = 0; k < ncols; k++) {
        const col_view *v = &s->cols[k];
        if (v->c->dtype != TFN_INT64 && v->c->dtype != TFN_INT32)
            continue;
        if (v->max_row > (STAGE_BUDGET - used) / 10)
            continue;
        used += v->max_row * 10;
    }
    if (!used)
        return TFN_OK;
    s->stage = tfn__malloc(&s->alloc, used);
    if (!s->stage)
        return tfn__fail(err, TFN_E_NOMEM, "out of memory encoding %zu examples", n);
    used = 0;
    for (size_t k = 0; k < ncols; k++) {
        col_view *v = &s->cols[k];
        if (v->c->dtype != TFN_INT64 && v->c->dtype != TFN_INT32)
            continue;
        if (v->max_row > (STAGE_BUDGET - used) / 10)
            continue;
        v->stage = s->stage + used;
        used += v->max_row * 10;
    }
    return TFN_OK;
}

static void scratch_free(scratch *s)
{
    tfn__free(&s->alloc, s->cols);
    tfn__free(&s->alloc, s->payloads);
    tfn__free(&s->alloc, s->stage);
}

static int too_big(size_t i, uint64_t size, tfn_error *err)
{
    return tfn__fail_at(err, TFN_E_LIMIT, 0, i,
                        "example %zu would be %llu bytes; protobuf's limit is 2 GiB", i,
                        (unsigned long long)size);
}

/* Sizes examples [from, n) from the caller's values. */
static int size_range(const col_view *cols, size_t ncols, size_t from, size_t n,
                      uint64_t *sizes, uint64_t *total, tfn_error *err)
{
    uint64_t sum = 0;
    for (size_t i = from; i < n; i++) {
        uint64_t size = example_size(cols, ncols, i, NULL, false, NULL);
        if (size > TFN_MAX_MESSAGE_SIZE)
            return too_big(i, size, err);
        if (sizes)
            sizes[i] = size;
        sum += size;
    }
    if (total)
        *total = sum;
    return TFN_OK;
}

int tfn_encode_columns_size(const tfn_column *columns, size_t ncolumns, size_t n,
                            uint64_t *sizes, uint64_t *total, tfn_error *err)
{
    scratch s;
    int rc = scratch_init(&s, ncolumns, n, err);
    if (rc)
        return rc;
    rc = prepare(columns, ncolumns, n, s.cols, err);
    if (!rc)
        rc = size_range(s.cols, ncolumns, 0, n, sizes, total, err);
    scratch_free(&s);
    return rc;
}

/* Payload sizes of example i into `pay`, encoding its staged rows on the way; returns
 * the size of the example and its Features message. */
static uint64_t stage_example(const col_view *cols, size_t ncols, size_t i, uint64_t *pay,
                              uint64_t *features, int simd)
{
    for (size_t k = 0; k < ncols; k++) {
        const col_view *v = &cols[k];
        if (!v->stage) {
            pay[k] = tfn__column_payload(v->c, i);
            continue;
        }
        size_t b, e;
        tfn__column_range(v->c, i, &b, &e);
        if (b == e) {
            pay[k] = 0;
            continue;
        }
        uint8_t *end = v->c->dtype == TFN_INT64
                           ? tfn__put_int64s_at(simd, v->stage, tfn__elem(v->c->values, b, 8), e - b)
                           : tfn__put_int32s(v->stage, tfn__elem(v->c->values, b, 4), e - b);
        pay[k] = (uint64_t)(end - v->stage);
    }
    return example_size(cols, ncols, i, pay, true, features);
}

static uint8_t *write_example(uint8_t *p, const col_view *cols, size_t ncols, size_t i,
                              const uint64_t *pay, uint64_t features, int simd)
{
    p = tfn__put_len_prefix(p, TAG_EXAMPLE_FEATURES, features);
    for (size_t k = 0; k < ncols; k++) {
        const tfn_column *c = cols[k].c;
        int kind = tfn__column_kind(c->dtype);
        uint64_t feature = tfn__feature_size(kind, pay[k]);
        p = tfn__put_entry_head(p, c->key, c->key_len, tfn__entry_size(c->key_len, feature),
                                feature);
        p = tfn__put_feature_head(p, kind, pay[k]);
        if (!cols[k].stage) {
            p = tfn__column_write(p, c, i, simd);
        } else if (pay[k]) {
            memcpy(p, cols[k].stage, (size_t)pay[k]);
            p += pay[k];
        }
    }
    return p;
}

/* dst cannot hold examples [i, n) after the `used` bytes written: the total needed. */
static int buffer_too_small(const scratch *s, size_t ncols, size_t i, size_t n, size_t used,
                            size_t cap, size_t *written, tfn_error *err)
{
    uint64_t rest = 0;
    int rc = size_range(s->cols, ncols, i, n, NULL, &rest, err);
    if (rc)
        return rc;
    uint64_t total = used + rest;
    *written = total > SIZE_MAX ? SIZE_MAX : (size_t)total;
    return tfn__fail(err, TFN_E_BUF_TOO_SMALL,
                     "buffer of %zu bytes is too small for %zu examples (%llu bytes)", cap, n,
                     (unsigned long long)total);
}

int tfn_encode_columns(const tfn_column *columns, size_t ncolumns, size_t n, void *dst,
                       size_t cap, uint64_t *offsets, size_t *written, tfn_error *err)
{
    size_t dummy;
    if (!written)
        written = &dummy;
    *written = 0;
    scratch s;
    int rc = scratch_init(&s, ncolumns, n, err);
    if (rc)
        return rc;
    rc = prepare(columns, ncolumns, n, s.cols, err);
    if (!rc && !dst && ncolumns && n) {
        /* nothing can be written: the size needed, or the NULL pointer, is the error */
        rc = buffer_too_small(&s, ncolumns, 0, n, 0, cap, written, err);
        if (rc == TFN_E_BUF_TOO_SMALL && *written <= cap) {
            *written = 0;
            rc = tfn__fail(err, TFN_E_INVALID_ARG, "dst is NULL");
        }
    }
    if (!rc)
        rc = scratch_stage(&s, ncolumns, n, err);
    if (rc) {
        scratch_free(&s);
        return rc;
    }
    /* bytes used are counted apart from p: dst may be NULL when nothing is written,
     * and NULL - NULL is undefined in C */
    uint8_t *start = dst, *p = start;
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        if (offsets)
            offsets[i] = used;
        if (!ncolumns)
            continue;
        uint64_t features;
        uint64_t size = stage_example(s.cols, ncolumns, i, s.payloads, &features, s.simd);
        if (size > TFN_MAX_MESSAGE_SIZE) {
            rc = too_big(i, size, err);
            break;
        }
        if (size > cap - used) {
            rc = buffer_too_small(&s, ncolumns, i, n, used, cap, written, err);
            break;
        }
        p = write_example(p, s.cols, ncolumns, i, s.payloads, features, s.simd);
        used = (size_t)(p - start);
    }
    scratch_free(&s);
    if (rc)
        return rc;
    if (offsets)
        offsets[n] = used;
    *written = used;
    return TFN_OK;
}

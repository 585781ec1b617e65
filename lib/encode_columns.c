/* encode_columns.c - N Examples from whole columns in one call: the same bytes as the
 * tfn_example builder, with no per-example allocation (one scratch array per call). */
#include "example_internal.h"

#include <float.h>
#include <math.h>

typedef struct col_view {
    const tfn_column *c;
    size_t index; /* position in the caller's array, for messages */
} col_view;

static int key_arg(const tfn_column *c)
{
    return (int)(c->key_len > 200 ? 200 : c->key_len);
}

/* Range of column values (numbers or strings) that example i owns. */
static void row_range(const tfn_column *c, size_t i, size_t *begin, size_t *end)
{
    if (c->row_splits) {
        *begin = (size_t)c->row_splits[i];
        *end = (size_t)c->row_splits[i + 1];
    } else {
        *begin = i * c->width;
        *end = *begin + c->width;
    }
}

static int check_column(const tfn_column *c, size_t idx, size_t n, tfn_error *err)
{
    if (!c->key && c->key_len)
        return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, 0, "column %zu: key is NULL", idx);
    if (c->dtype != TFN_INT64 && c->dtype != TFN_INT32 && c->dtype != TFN_FLOAT32 &&
        c->dtype != TFN_FLOAT64 && c->dtype != TFN_BYTES)
        return tfn__fail_at(err, TFN_E_TYPE, 0, 0,
                            "column '%.*s': unsupported dtype %d (int64, int32, float32, "
                            "float64 or bytes expected)",
                            key_arg(c), c->key, c->dtype);
    size_t items; /* numbers, or strings for a bytes column */
    if (c->row_splits) {
        if (c->row_splits[0] != 0)
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, 0,
                                "column '%.*s': row_splits[0] is %lld, expected 0", key_arg(c),
                                c->key, (long long)c->row_splits[0]);
        for (size_t i = 0; i < n; i++)
            if (c->row_splits[i + 1] < c->row_splits[i])
                return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i,
                                    "column '%.*s': row_splits decrease at example %zu (%lld "
                                    "then %lld)",
                                    key_arg(c), c->key, i, (long long)c->row_splits[i],
                                    (long long)c->row_splits[i + 1]);
        items = (size_t)c->row_splits[n];
    } else if (!tfn__mul_size(n, c->width, &items)) {
        return tfn__fail(err, TFN_E_LIMIT, "column '%.*s': %zu x %zu values overflow", key_arg(c),
                         c->key, n, c->width);
    }
    if (items && !c->values)
        return tfn__fail(err, TFN_E_INVALID_ARG, "column '%.*s': values is NULL", key_arg(c),
                         c->key);
    if (c->dtype == TFN_BYTES) {
        if (items && !c->byte_offsets)
            return tfn__fail(err, TFN_E_INVALID_ARG,
                             "bytes column '%.*s': byte_offsets is NULL", key_arg(c), c->key);
        for (size_t k = 0; k < items; k++)
            if (c->byte_offsets[k + 1] < c->byte_offsets[k] || c->byte_offsets[k] < 0)
                return tfn__fail(err, TFN_E_INVALID_ARG,
                                 "bytes column '%.*s': byte_offsets decrease at string %zu",
                                 key_arg(c), c->key, k);
    }
    return TFN_OK;
}

/* Bytes of the values of column c in example i (packed run or bytes elements). */
static uint64_t payload_size(const tfn_column *c, size_t i)
{
    size_t b, e;
    row_range(c, i, &b, &e);
    switch (c->dtype) {
    case TFN_INT64:
        return tfn__int64s_payload((const int64_t *)c->values + b, e - b);
    case TFN_INT32:
        return tfn__int32s_payload((const int32_t *)c->values + b, e - b);
    case TFN_FLOAT32:
    case TFN_FLOAT64:
        return (uint64_t)(e - b) * 4;
    default: {
        uint64_t size = 0;
        for (size_t k = b; k < e; k++)
            size += tfn__len_field_size((uint64_t)(c->byte_offsets[k + 1] - c->byte_offsets[k]));
        return size;
    }
    }
}

static int kind_of(int dtype)
{
    return dtype == TFN_BYTES ? TFN_KIND_BYTES
           : (dtype == TFN_FLOAT32 || dtype == TFN_FLOAT64) ? TFN_KIND_FLOAT
                                                              : TFN_KIND_INT64;
}

/* Size of example i and of its Features message. Payload sizes are read from
 * `payloads` when `cached`, else computed (and stored there when it is not NULL). */
static uint64_t example_size(const col_view *cols, size_t ncols, size_t i, uint64_t *payloads,
                             bool cached, uint64_t *features_out)
{
    uint64_t features = 0;
    for (size_t k = 0; k < ncols; k++) {
        const tfn_column *c = cols[k].c;
        uint64_t payload = cached ? payloads[k] : payload_size(c, i);
        if (!cached && payloads)
            payloads[k] = payload;
        uint64_t feature = tfn__feature_size(kind_of(c->dtype), payload);
        features += tfn__len_field_size(tfn__entry_size(c->key_len, feature));
    }
    if (features_out)
        *features_out = features;
    return ncols ? tfn__len_field_size(features) : 0;
}

static float to_float32(double d)
{
    /* out-of-range doubles become infinities, as protobuf stores them (and without
     * the undefined behaviour of a plain out-of-range conversion) */
    if (d > FLT_MAX)
        return (float)INFINITY;
    if (d < -FLT_MAX)
        return -(float)INFINITY;
    return (float)d;
}

static uint8_t *write_values(uint8_t *p, const tfn_column *c, size_t i)
{
    size_t b, e;
    row_range(c, i, &b, &e);
    switch (c->dtype) {
    case TFN_INT64:
        return tfn__put_int64s(p, (const int64_t *)c->values + b, e - b);
    case TFN_INT32:
        return tfn__put_int32s(p, (const int32_t *)c->values + b, e - b);
    case TFN_FLOAT32:
        return tfn__put_floats(p, (const float *)c->values + b, e - b);
    case TFN_FLOAT64: {
        const double *v = (const double *)c->values + b;
        for (size_t k = 0; k < e - b; k++, p += 4)
            tfn__store_le32(p, tfn__float_bits(to_float32(v[k])));
        return p;
    }
    default: {
        const uint8_t *buf = c->values;
        for (size_t k = b; k < e; k++) {
            size_t len = (size_t)(c->byte_offsets[k + 1] - c->byte_offsets[k]);
            p = tfn__put_len_prefix(p, TAG_LIST_PACKED, len);
            if (len)
                memcpy(p, buf + c->byte_offsets[k], len);
            p += len;
        }
        return p;
    }
    }
}

/* Validates the columns and fills `cols` with them sorted by key. */
static int prepare(const tfn_column *columns, size_t ncols, size_t n, col_view *cols,
                   tfn_error *err)
{
    if (ncols && !columns)
        return tfn__fail(err, TFN_E_INVALID_ARG, "columns is NULL but ncolumns is %zu", ncols);
    for (size_t k = 0; k < ncols; k++) {
        int rc = check_column(&columns[k], k, n, err);
        if (rc)
            return rc;
        /* insertion sort by key: column counts are small */
        size_t at = k;
        while (at > 0) {
            const tfn_column *prev = cols[at - 1].c;
            int cmp = tfn__key_cmp(prev->key, prev->key_len, columns[k].key, columns[k].key_len);
            if (cmp == 0)
                return tfn__fail(err, TFN_E_INVALID_ARG, "column key '%.*s' appears twice",
                                 key_arg(&columns[k]), columns[k].key);
            if (cmp < 0)
                break;
            cols[at] = cols[at - 1];
            at--;
        }
        cols[at].c = &columns[k];
        cols[at].index = k;
    }
    return TFN_OK;
}

/* Scratch: sorted column views + per-(example, column) payload sizes. */
typedef struct scratch {
    tfn__alloc alloc;
    col_view *cols;
    uint64_t *payloads;
} scratch;

static int scratch_init(scratch *s, size_t ncols, size_t n, bool with_payloads, tfn_error *err)
{
    tfn__alloc_init(&s->alloc, NULL);
    s->cols = NULL;
    s->payloads = NULL;
    size_t cells;
    if (!tfn__mul_size(ncols, n, &cells) || cells > SIZE_MAX / sizeof(uint64_t))
        return tfn__fail(err, TFN_E_LIMIT, "%zu examples x %zu columns is too many", n, ncols);
    s->cols = tfn__malloc(&s->alloc, (ncols ? ncols : 1) * sizeof *s->cols);
    if (with_payloads)
        s->payloads = tfn__malloc(&s->alloc, (cells ? cells : 1) * sizeof(uint64_t));
    if (!s->cols || (with_payloads && !s->payloads)) {
        tfn__free(&s->alloc, s->cols);
        tfn__free(&s->alloc, s->payloads);
        return tfn__fail(err, TFN_E_NOMEM, "out of memory encoding %zu examples", n);
    }
    return TFN_OK;
}

static void scratch_free(scratch *s)
{
    tfn__free(&s->alloc, s->cols);
    tfn__free(&s->alloc, s->payloads);
}

static int size_all(const scratch *s, size_t ncols, size_t n, uint64_t *sizes, uint64_t *total,
                    tfn_error *err)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t *pay = s->payloads ? s->payloads + i * ncols : NULL;
        uint64_t size = example_size(s->cols, ncols, i, pay, false, NULL);
        if (size > TFN_MAX_MESSAGE_SIZE)
            return tfn__fail_at(err, TFN_E_LIMIT, 0, i,
                                "example %zu would be %llu bytes; protobuf's limit is 2 GiB", i,
                                (unsigned long long)size);
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
    int rc = scratch_init(&s, ncolumns, n, false, err);
    if (rc)
        return rc;
    rc = prepare(columns, ncolumns, n, s.cols, err);
    if (!rc)
        rc = size_all(&s, ncolumns, n, sizes, total, err);
    scratch_free(&s);
    return rc;
}

int tfn_encode_columns(const tfn_column *columns, size_t ncolumns, size_t n, void *dst,
                       size_t cap, uint64_t *offsets, size_t *written, tfn_error *err)
{
    size_t dummy;
    if (!written)
        written = &dummy;
    *written = 0;
    scratch s;
    int rc = scratch_init(&s, ncolumns, n, true, err);
    if (rc)
        return rc;
    uint64_t total = 0;
    rc = prepare(columns, ncolumns, n, s.cols, err);
    if (!rc)
        rc = size_all(&s, ncolumns, n, NULL, &total, err);
    if (!rc && total > cap) {
        *written = total > SIZE_MAX ? SIZE_MAX : (size_t)total;
        rc = tfn__fail(err, TFN_E_BUF_TOO_SMALL,
                       "buffer of %zu bytes is too small for %zu examples (%llu bytes)", cap, n,
                       (unsigned long long)total);
    }
    if (!rc && total && !dst)
        rc = tfn__fail(err, TFN_E_INVALID_ARG, "dst is NULL");
    if (rc) {
        scratch_free(&s);
        return rc;
    }
    uint8_t *p = dst;
    for (size_t i = 0; i < n; i++) {
        if (offsets)
            offsets[i] = (uint64_t)(p - (uint8_t *)dst);
        if (!ncolumns)
            continue;
        uint64_t *pay = s.payloads + i * ncolumns;
        uint64_t features;
        example_size(s.cols, ncolumns, i, pay, true, &features);
        p = tfn__put_len_prefix(p, TAG_EXAMPLE_FEATURES, features);
        for (size_t k = 0; k < ncolumns; k++) {
            const tfn_column *c = s.cols[k].c;
            int kind = kind_of(c->dtype);
            uint64_t feature = tfn__feature_size(kind, pay[k]);
            p = tfn__put_entry_head(p, c->key, c->key_len, tfn__entry_size(c->key_len, feature),
                                    feature);
            p = tfn__put_feature_head(p, kind, pay[k]);
            p = write_values(p, c, i);
        }
    }
    if (offsets)
        offsets[n] = (uint64_t)(p - (uint8_t *)dst);
    *written = (size_t)(p - (uint8_t *)dst);
    scratch_free(&s);
    return TFN_OK;
}

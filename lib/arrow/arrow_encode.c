/* arrow_encode.c - every row of an Arrow record batch (C data interface) as a
 * serialized tf.train.Example, in one pass over the Arrow buffers: for each row, each
 * column's value range is found (absent rows skipped, nulls inside lists refused),
 * its payload sized (integer rows encoded into a staging area on the way, as the
 * column encoder does), then the row is written front to back. */
#include "arrow_internal.h"

/* Scratch for encoded integer rows, per call (see lib/example/encode_columns.c). */
#define STAGE_BUDGET ((size_t)256 * 1024)

#define KEY_ARG(c) (int)((c)->key_len > 200 ? 200 : (c)->key_len), (c)->key

/* One column's part of the current row. */
typedef struct row_part {
    int64_t begin, end; /* leaf elements (physical indices) */
    uint64_t payload;
    bool present;
} row_part;

typedef struct encoder {
    tfn__alloc alloc;
    arrow_batch batch;
    row_part *parts; /* ncols */
    uint8_t *stage;
} encoder;

/* IEEE half -> float (exact: every half is a float). */
static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0 && mant == 0) {
        bits = sign;
    } else if (exp == 0) { /* subnormal: normalise */
        uint32_t e = 0;
        while (!(mant & 0x400u)) {
            mant <<= 1;
            e++;
        }
        bits = sign | ((113u - e) << 23) | ((mant & 0x3ffu) << 13);
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | (mant << 13);
    } else {
        bits = sign | ((exp + 112u) << 23) | (mant << 13);
    }
    return tfn__bits_float(bits);
}

static int64_t byte_offset(const arrow_column *c, int64_t k)
{
    return tfn__arrow_offset(c->byte_offsets, c->leaf == LEAF_BIN32 ? 32 : 64, k);
}

/* Element k (a physical index) of the leaf's values as the int64 written, for the
 * narrow integer types (any alignment: tfn__ld_*). */
static int64_t small_int(const arrow_column *c, int64_t k)
{
    size_t at = (size_t)k;
    switch (c->leaf) {
    case LEAF_I8:
        return ((const int8_t *)c->values)[at];
    case LEAF_I16:
        return tfn__ld_i16(c->values, at);
    case LEAF_U8:
        return ((const uint8_t *)c->values)[at];
    case LEAF_U16:
        return tfn__ld_u16(c->values, at);
    default: /* LEAF_U32 */
        return tfn__ld_u32(c->values, at);
    }
}

/* Bytes of the leaf elements [b, e) as a list's payload. */
static uint64_t leaf_payload(const arrow_column *c, int64_t b, int64_t e)
{
    size_t n = (size_t)(e - b);
    uint64_t size = 0;
    switch (c->leaf) {
    case LEAF_I64:
    case LEAF_U64:
        return tfn__int64s_payload(tfn__elem(c->values, (size_t)b, 8), n);
    case LEAF_I32:
        return tfn__int32s_payload(tfn__elem(c->values, (size_t)b, 4), n);
    case LEAF_I8:
    case LEAF_I16:
    case LEAF_U8:
    case LEAF_U16:
    case LEAF_U32:
        for (int64_t k = b; k < e; k++)
            size += tfn__varint_size((uint64_t)small_int(c, k));
        return size;
    case LEAF_BOOL:
        return n;
    case LEAF_F16:
    case LEAF_F32:
    case LEAF_F64:
        return (uint64_t)n * 4;
    case LEAF_BIN32:
    case LEAF_BIN64:
        for (int64_t k = b; k < e; k++)
            size += tfn__len_field_size((uint64_t)(byte_offset(c, k + 1) - byte_offset(c, k)));
        return size;
    case LEAF_FIXED_BIN:
        return (uint64_t)n * tfn__len_field_size((uint64_t)c->byte_width);
    default:
        return 0;
    }
}

/* Writes the leaf elements [b, e) (the payload leaf_payload sized). */
static uint8_t *leaf_write(uint8_t *p, const arrow_column *c, int64_t b, int64_t e)
{
    size_t n = (size_t)(e - b);
    switch (c->leaf) {
    case LEAF_I64:
    case LEAF_U64:
        return tfn__put_int64s(p, tfn__elem(c->values, (size_t)b, 8), n);
    case LEAF_I32:
        return tfn__put_int32s(p, tfn__elem(c->values, (size_t)b, 4), n);
    case LEAF_I8:
    case LEAF_I16:
    case LEAF_U8:
    case LEAF_U16:
    case LEAF_U32:
        for (int64_t k = b; k < e; k++)
            p = tfn__put_varint_fast(p, (uint64_t)small_int(c, k));
        return p;
    case LEAF_BOOL:
        for (int64_t k = b; k < e; k++)
            *p++ = (uint8_t)tfn__arrow_bit(c->values, k);
        return p;
    case LEAF_F16:
        for (int64_t k = b; k < e; k++, p += 4)
            tfn__store_le32(p, tfn__float_bits(half_to_float(tfn__ld_u16(c->values, (size_t)k))));
        return p;
    case LEAF_F32:
        return tfn__put_floats(p, tfn__elem(c->values, (size_t)b, 4), n);
    case LEAF_F64:
        for (int64_t k = b; k < e; k++, p += 4)
            tfn__store_le32(p, tfn__float_bits(tfn__narrow_float(tfn__ld_f64(c->values, (size_t)k))));
        return p;
    case LEAF_BIN32:
    case LEAF_BIN64:
        for (int64_t k = b; k < e; k++) {
            int64_t from = byte_offset(c, k);
            size_t len = (size_t)(byte_offset(c, k + 1) - from);
            p = tfn__put_len_prefix(p, TAG_LIST_PACKED, len);
            if (len)
                memcpy(p, (const uint8_t *)c->values + from, len);
            p += len;
        }
        return p;
    case LEAF_FIXED_BIN: {
        size_t w = (size_t)c->byte_width;
        for (int64_t k = b; k < e; k++) {
            p = tfn__put_len_prefix(p, TAG_LIST_PACKED, w);
            if (w)
                memcpy(p, (const uint8_t *)c->values + (size_t)k * w, w);
            p += w;
        }
        return p;
    }
    default:
        return p;
    }
}

static bool any_null(const uint8_t *validity, int64_t b, int64_t e)
{
    for (int64_t k = b; k < e; k++)
        if (!tfn__arrow_bit(validity, k))
            return true;
    return false;
}

/* The leaf elements of row i (list entry p, or logical element `row` of the column's
 * array) through every level, refusing nulls below the row. */
static int walk_levels(const arrow_column *c, size_t i, int64_t p, int64_t row,
                       row_part *part, tfn_error *err)
{
    int64_t lo, hi; /* logical range in levels[k] */
    if (c->list_bits) {
        lo = tfn__arrow_offset(c->list_offsets, c->list_bits, p);
        hi = tfn__arrow_offset(c->list_offsets, c->list_bits, p + 1);
    } else {
        lo = row;
        hi = lo + 1;
    }
    for (int k = 0; k < c->nlevels; k++) {
        const arrow_level *lv = &c->levels[k];
        int64_t plo = lv->offset + lo, phi = lv->offset + hi;
        if (lv->validity && any_null(lv->validity, plo, phi))
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i,
                                "column '%.*s', row %zu: null values inside lists cannot be "
                                "written to a tf.train.Example (a whole row may be null: it is "
                                "then absent)",
                                KEY_ARG(c), i);
        lo = plo * lv->list_size;
        hi = phi * lv->list_size;
        part->begin = plo;
        part->end = phi;
    }
    return TFN_OK;
}

/* Row i of column c: absent, or the leaf elements it owns (nulls inside refused). */
static int row_range(const arrow_batch *bt, const arrow_column *c, size_t i, row_part *part,
                     tfn_error *err)
{
    part->present = false;
    if (c->all_absent)
        return TFN_OK;
    if (bt->struct_validity && !tfn__arrow_bit(bt->struct_validity, bt->struct_first + (int64_t)i))
        return TFN_OK;
    int64_t p = c->row_base + (int64_t)i;
    if (c->row_validity && !tfn__arrow_bit(c->row_validity, p))
        return TFN_OK;
    if (c->dense) {
        part->begin = c->dense_begin + (int64_t)i * c->width;
        part->end = part->begin + c->width;
    } else {
        int rc = walk_levels(c, i, p, bt->struct_first + (int64_t)i, part, err);
        if (rc)
            return rc;
    }
    if (c->leaf == LEAF_U64) {
        for (int64_t k = part->begin; k < part->end; k++) {
            uint64_t v = tfn__ld_u64(c->values, (size_t)k);
            if (v > (uint64_t)INT64_MAX)
                return tfn__fail_at(err, TFN_E_OUT_OF_RANGE, 0, i,
                                    "column '%.*s', row %zu: uint64 value %llu is out of range "
                                    "for an Int64List (at most 2^63-1)",
                                    KEY_ARG(c), i, (unsigned long long)v);
        }
    }
    part->present = true;
    return TFN_OK;
}

/* Resolves row i of every column into enc->parts and sizes it: *size is the Example's
 * size (0 when no feature is present), *features its Features message's. Integer rows
 * of staged columns are encoded into the staging area when `stage`. */
static int size_row(encoder *enc, size_t i, bool stage, uint64_t *size, uint64_t *features,
                    tfn_error *err)
{
    const arrow_batch *bt = &enc->batch;
    uint64_t sum = 0;
    bool any = false;
    for (size_t k = 0; k < bt->ncols; k++) {
        const arrow_column *c = &bt->cols[k];
        row_part *part = &enc->parts[k];
        int rc = row_range(bt, c, i, part, err);
        if (rc)
            return rc;
        if (!part->present)
            continue;
        any = true;
        if (stage && c->stage && part->end > part->begin) {
            size_t at = (size_t)part->begin, n = (size_t)(part->end - part->begin);
            uint8_t *end = c->leaf == LEAF_I32
                               ? tfn__put_int32s(c->stage, tfn__elem(c->values, at, 4), n)
                               : tfn__put_int64s(c->stage, tfn__elem(c->values, at, 8), n);
            part->payload = (uint64_t)(end - c->stage);
        } else {
            part->payload = part->end > part->begin ? leaf_payload(c, part->begin, part->end) : 0;
        }
        uint64_t feature = tfn__feature_size(c->kind, part->payload);
        sum += tfn__len_field_size(tfn__entry_size(c->key_len, feature));
    }
    *features = sum;
    *size = any ? tfn__len_field_size(sum) : 0;
    return TFN_OK;
}

static uint8_t *write_row(uint8_t *p, const encoder *enc, uint64_t features)
{
    const arrow_batch *bt = &enc->batch;
    p = tfn__put_len_prefix(p, TAG_EXAMPLE_FEATURES, features);
    for (size_t k = 0; k < bt->ncols; k++) {
        const arrow_column *c = &bt->cols[k];
        const row_part *part = &enc->parts[k];
        if (!part->present)
            continue;
        uint64_t feature = tfn__feature_size(c->kind, part->payload);
        p = tfn__put_entry_head(p, c->key, c->key_len, tfn__entry_size(c->key_len, feature),
                                feature);
        p = tfn__put_feature_head(p, c->kind, part->payload);
        if (!part->payload)
            continue;
        if (c->stage) {
            memcpy(p, c->stage, (size_t)part->payload);
            p += part->payload;
        } else {
            p = leaf_write(p, c, part->begin, part->end);
        }
    }
    return p;
}

static int encoder_init(encoder *enc, const struct ArrowSchema *schema,
                        const struct ArrowArray *array, tfn_error *err)
{
    tfn__alloc_init(&enc->alloc, NULL);
    enc->parts = NULL;
    enc->stage = NULL;
    int rc = tfn__arrow_batch_init(&enc->batch, &enc->alloc, schema, array, err);
    if (rc)
        return rc;
    size_t ncols = enc->batch.ncols;
    enc->parts = tfn__malloc(&enc->alloc, (ncols ? ncols : 1) * sizeof *enc->parts);
    if (!enc->parts) {
        tfn__arrow_batch_free(&enc->batch, &enc->alloc);
        return tfn__fail(err, TFN_E_NOMEM, "out of memory encoding %zu rows", enc->batch.nrows);
    }
    return TFN_OK;
}

/* Gives the int32 / int64 columns whose longest row fits in what is left of
 * STAGE_BUDGET (10 bytes a value, the longest varint) their part of the staging area. */
static int encoder_stage(encoder *enc, tfn_error *err)
{
    size_t used = 0;
    for (int pass = 0; pass < 2; pass++) {
        used = 0;
        for (size_t k = 0; k < enc->batch.ncols; k++) {
            arrow_column *c = &enc->batch.cols[k];
            if (c->leaf != LEAF_I64 && c->leaf != LEAF_I32)
                continue;
            if (!c->max_row || c->max_row > (STAGE_BUDGET - used) / 10)
                continue;
            if (pass == 1)
                c->stage = enc->stage + used;
            used += c->max_row * 10;
        }
        if (!used)
            return TFN_OK;
        if (pass == 0) {
            enc->stage = tfn__malloc(&enc->alloc, used);
            if (!enc->stage)
                return tfn__fail(err, TFN_E_NOMEM, "out of memory encoding %zu rows",
                                 enc->batch.nrows);
        }
    }
    return TFN_OK;
}

static void encoder_free(encoder *enc)
{
    tfn__free(&enc->alloc, enc->parts);
    tfn__free(&enc->alloc, enc->stage);
    tfn__arrow_batch_free(&enc->batch, &enc->alloc);
}

static int too_big(size_t i, uint64_t size, tfn_error *err)
{
    return tfn__fail_at(err, TFN_E_LIMIT, 0, i,
                        "row %zu would be an Example of %llu bytes; protobuf's limit is 2 GiB",
                        i, (unsigned long long)size);
}

/* Sizes rows [from, nrows) without staging. */
static int size_rows(encoder *enc, size_t from, uint64_t *sizes, uint64_t *total,
                     tfn_error *err)
{
    uint64_t sum = 0;
    for (size_t i = from; i < enc->batch.nrows; i++) {
        uint64_t size, features;
        int rc = size_row(enc, i, false, &size, &features, err);
        if (rc)
            return rc;
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

int tfn_arrow_encode_size(const struct ArrowSchema *schema, const struct ArrowArray *array,
                          uint64_t *sizes, uint64_t *total, tfn_error *err)
{
    encoder enc;
    int rc = encoder_init(&enc, schema, array, err);
    if (rc)
        return rc;
    rc = size_rows(&enc, 0, sizes, total, err);
    encoder_free(&enc);
    return rc;
}

int tfn_arrow_encode(const struct ArrowSchema *schema, const struct ArrowArray *array,
                     void *dst, size_t cap, uint64_t *offsets, size_t *written, tfn_error *err)
{
    size_t dummy;
    if (!written)
        written = &dummy;
    *written = 0;
    encoder enc;
    int rc = encoder_init(&enc, schema, array, err);
    if (rc)
        return rc;
    rc = encoder_stage(&enc, err);
    /* bytes used are counted apart from p: dst may be NULL when nothing is written */
    uint8_t *p = dst;
    size_t used = 0;
    size_t n = enc.batch.nrows;
    for (size_t i = 0; !rc && i < n; i++) {
        if (offsets)
            offsets[i] = used;
        uint64_t size, features;
        rc = size_row(&enc, i, true, &size, &features, err);
        if (rc)
            break;
        if (size > TFN_MAX_MESSAGE_SIZE) {
            rc = too_big(i, size, err);
            break;
        }
        if (!size)
            continue;
        if (!dst || size > cap - used) {
            /* the total needed: what is written so far plus the rest, sized again */
            uint64_t rest = 0;
            rc = size_rows(&enc, i, NULL, &rest, err);
            if (rc)
                break;
            uint64_t need = used + rest;
            *written = need > SIZE_MAX ? SIZE_MAX : (size_t)need;
            rc = !dst && need <= cap
                     ? tfn__fail(err, TFN_E_INVALID_ARG, "dst is NULL")
                     : tfn__fail(err, TFN_E_BUF_TOO_SMALL,
                                 "buffer of %zu bytes is too small for %zu rows (%llu bytes)",
                                 cap, n, (unsigned long long)need);
            if (rc == TFN_E_INVALID_ARG)
                *written = 0;
            break;
        }
        p = write_row(p, &enc, features);
        used += (size_t)size;
    }
    encoder_free(&enc);
    if (rc)
        return rc;
    if (offsets)
        offsets[n] = used;
    *written = used;
    return TFN_OK;
}

/* column_internal.h - one row of a tfn_column: its value range, its encoded size and
 * its encoding. Shared by the Example encoder (a row is an example's feature) and the
 * SequenceExample encoder (a row is one step of a feature list). */
#ifndef TFN_COLUMN_INTERNAL_H
#define TFN_COLUMN_INTERNAL_H

#include "example_internal.h"
#include "varint_internal.h"

#include <float.h>
#include <math.h>

/* Length of a key as printed in messages (at most 200 bytes). */
static inline int tfn__column_key_arg(const tfn_column *c)
{
    return (int)(c->key_len > 200 ? 200 : c->key_len);
}

/* The Feature kind a column's dtype is written as. */
static inline int tfn__column_kind(int dtype)
{
    return dtype == TFN_BYTES                                   ? TFN_KIND_BYTES
           : (dtype == TFN_FLOAT32 || dtype == TFN_FLOAT64) ? TFN_KIND_FLOAT
                                                              : TFN_KIND_INT64;
}

/* Range of values (numbers or strings) that row i owns. */
static inline void tfn__column_range(const tfn_column *c, size_t i, size_t *begin,
                                     size_t *end)
{
    if (c->row_splits) {
        *begin = (size_t)c->row_splits[i];
        *end = (size_t)c->row_splits[i + 1];
    } else {
        *begin = i * c->width;
        *end = *begin + c->width;
    }
}

/* Bytes of row i's values: a packed run, or the bytes list's elements. */
static inline uint64_t tfn__column_payload(const tfn_column *c, size_t i)
{
    size_t b, e;
    tfn__column_range(c, i, &b, &e);
    if (b == e) /* values may be NULL when no row has any: no pointer into it */
        return 0;
    switch (c->dtype) {
    case TFN_INT64:
        return tfn__int64s_payload(tfn__elem(c->values, b, 8), e - b);
    case TFN_INT32:
        return tfn__int32s_payload(tfn__elem(c->values, b, 4), e - b);
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

/* Out-of-range doubles become infinities, as protobuf stores them (and without the
 * undefined behaviour of a plain out-of-range conversion). */
static inline float tfn__narrow_float(double d)
{
    if (d > FLT_MAX)
        return (float)INFINITY;
    if (d < -FLT_MAX)
        return -(float)INFINITY;
    return (float)d;
}

/* Writes row i's values (the payload tfn__column_payload sized) with the SIMD code of
 * `simd` (a level of varint_internal.h); returns the end. */
static inline uint8_t *tfn__column_write(uint8_t *p, const tfn_column *c, size_t i, int simd)
{
    size_t b, e;
    tfn__column_range(c, i, &b, &e);
    if (b == e)
        return p;
    switch (c->dtype) {
    case TFN_INT64:
        return tfn__put_int64s_at(simd, p, tfn__elem(c->values, b, 8), e - b);
    case TFN_INT32:
        return tfn__put_int32s(p, tfn__elem(c->values, b, 4), e - b);
    case TFN_FLOAT32:
        return tfn__put_floats(p, tfn__elem(c->values, b, 4), e - b);
    case TFN_FLOAT64: {
        for (size_t k = b; k < e; k++, p += 4)
            tfn__store_le32(p, tfn__float_bits(tfn__narrow_float(tfn__ld_f64(c->values, k))));
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

#endif

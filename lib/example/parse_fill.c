/* parse_fill.c - step 2 of parsing: decode the values the scan located into dense,
 * row-major outputs (int64 / int32 / float / bytes views), with defaults for missing
 * FixedLen features and padding for FixedLenSequence ones. */
#include "example_internal.h"
#include "parse_internal.h"
#include "varint_internal.h"

/* ---- decoding one slot's values into `out` (at most `max` values) ---- */

/* One varint of a run the scan validated (so it ends before the run does): the one-
 * to three-byte cases that token ids take are unrolled. */
static inline const uint8_t *varint_at(const uint8_t *q, const uint8_t *end, uint64_t *v)
{
    uint64_t b0 = q[0];
    if (TFN_LIKELY(b0 < 0x80)) {
        *v = b0;
        return q + 1;
    }
    uint64_t b1 = q[1];
    if (b1 < 0x80) {
        *v = (b0 & 0x7f) | (b1 << 7);
        return q + 2;
    }
    uint64_t b2 = q[2];
    if (b2 < 0x80) {
        *v = (b0 & 0x7f) | ((b1 & 0x7f) << 7) | (b2 << 14);
        return q + 3;
    }
    return tfn__get_varint(q, end, v);
}

static inline const uint8_t *int64_next(const uint8_t *q, const uint8_t *end, bool packed,
                                        uint64_t *v)
{
    return varint_at(packed ? q : q + 1, end, v); /* unpacked values carry an 08 tag */
}

/* True when every value of a packed run is a single byte (masks, small ids). */
static bool all_single_byte(const tfn__slot *s)
{
    return s->packed && (size_t)(s->end - s->data) == s->count;
}

/* Bulk decoding of a packed run, for varints of up to 4 bytes (token ids are a random
 * mix of 1- to 3-byte varints, so branching on each length mispredicts). The 8 bytes
 * at q give, from their final-byte mask, every varint that ends among them; the next
 * window starts after the last of those, so eight one-byte values (padding, masks)
 * are widened at once wherever they start. When 8 more values fit the output and no
 * run of 4 continuation bytes is in the window, its values are decoded without
 * per-value checks; the loop-carried work is only clearing one mask bit per value, so
 * consecutive values are decoded in parallel. Stops 16 bytes
 * before the end of the run (loads stay inside it), at `max` values, or before a
 * longer varint; returns the values decoded and advances *qp. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
#    define TFN_BULK_VARINTS 1
#    define DEFINE_DECODE_BULK(name, type)                                                     \
        static size_t name(const uint8_t **qp, const uint8_t *end, type *out, size_t max)      \
        {                                                                                      \
            const uint8_t *q = *qp;                                                            \
            size_t i = 0;                                                                      \
            while (end - q >= 16 && i < max) {                                                 \
                uint64_t w;                                                                    \
                memcpy(&w, q, 8);                                                              \
                uint64_t finals = ~w & 0x8080808080808080ull;                                  \
                if (finals == 0x8080808080808080ull && max - i >= 8) {                         \
                    TFN_UNROLL8                                                                \
                    for (size_t k = 0; k < 8; k++)                                             \
                        out[i + k] = (type)q[k];                                               \
                    i += 8;                                                                    \
                    q += 8;                                                                    \
                    continue;                                                                  \
                }                                                                              \
                uint64_t cont = w & 0x8080808080808080ull;                                     \
                uint64_t cont4 = cont & (cont >> 8) & (cont >> 16) & (cont >> 24);             \
                if (max - i >= 8 && finals && !cont4) {                                        \
                    /* room for all, no varint over 4 bytes: values without checks */         \
                    uint64_t bits = w & 0x7f7f7f7f7f7f7f7full;                                 \
                    unsigned sh = 0;                                                           \
                    do {                                                                       \
                        /* bytes up to this varint's final one, shifted down to its start */   \
                        uint32_t x = (uint32_t)((bits & (finals ^ (finals - 1))) >> sh);       \
                        uint32_t t = (x & 0x007f007fu) | ((x >> 1) & 0x3f803f80u);             \
                        out[i++] = (type)((t & 0x3fffu) | ((t >> 2) & 0xfffc000u));            \
                        sh = (unsigned)__builtin_ctzll(finals) + 1;                            \
                        finals &= finals - 1;                                                  \
                    } while (finals);                                                          \
                    q += sh >> 3;                                                              \
                    continue;                                                                  \
                }                                                                              \
                const uint8_t *start = q;                                                      \
                while (finals) {                                                               \
                    const uint8_t *last = q + ((unsigned)__builtin_ctzll(finals) >> 3);        \
                    size_t len = (size_t)(last - start) + 1;                                   \
                    if (TFN_UNLIKELY(len > 4 || i == max)) {                                   \
                        *qp = start;                                                           \
                        return i;                                                              \
                    }                                                                          \
                    uint32_t x;                                                                \
                    memcpy(&x, start, 4);                                                      \
                    x &= (uint32_t)(0xffffffffull >> (32 - 8 * len));                          \
                    out[i++] = (type)((x & 0x7fu) | ((x >> 1) & 0x3f80u) |                     \
                                      ((x >> 2) & 0x1fc000u) | ((x >> 3) & 0xfe00000u));       \
                    start = last + 1;                                                          \
                    finals &= finals - 1;                                                      \
                }                                                                              \
                if (start == q) /* no varint ends here: one of more than 8 bytes */            \
                    break;                                                                     \
                q = start;                                                                     \
            }                                                                                  \
            *qp = q;                                                                           \
            return i;                                                                          \
        }
DEFINE_DECODE_BULK(decode_bulk_int64, int64_t)
DEFINE_DECODE_BULK(decode_bulk_int32, int32_t)
#endif

/* Scalar steps taken after the SIMD decoder stops (at a long varint or near the end of
 * the run) before it is tried again. */
enum { SCALAR_STEPS = 8 };

static void decode_int64(const tfn__slot *s, int64_t *out, size_t max, int simd)
{
    if (all_single_byte(s)) {
        tfn__widen_bytes64_at(simd, s->data, out, max);
        return;
    }
    const uint8_t *q = s->data;
    size_t i = 0;
    if (!s->packed)
        simd = TFN__SIMD_NONE;
    while (i < max) {
        if (simd) {
            i += tfn__decode_varints64_at(simd, &q, s->end, out + i, max - i);
            if (i >= max)
                break;
        }
#ifdef TFN_BULK_VARINTS
        if (s->packed) {
            i += decode_bulk_int64(&q, s->end, out + i, max - i);
            if (i >= max)
                break;
        }
#endif
        for (size_t k = 0; k < SCALAR_STEPS && i < max; k++) {
            uint64_t v = 0;
            q = int64_next(q, s->end, s->packed, &v);
            out[i++] = (int64_t)v;
        }
    }
}

/* Returns the index of the first value out of int32 range, or SIZE_MAX. */
static size_t decode_int32(const tfn__slot *s, int32_t *out, size_t max, int64_t *bad, int simd)
{
    if (all_single_byte(s)) {
        tfn__widen_bytes32_at(simd, s->data, out, max);
        return SIZE_MAX;
    }
    const uint8_t *q = s->data;
    if (!s->packed)
        simd = TFN__SIMD_NONE;
    for (size_t i = 0; i < max;) {
        /* values below 2^21: no range check needed */
        if (simd) {
            i += tfn__decode_varints32_at(simd, &q, s->end, out + i, max - i);
            if (i >= max)
                break;
        }
#ifdef TFN_BULK_VARINTS
        if (s->packed) {
            i += decode_bulk_int32(&q, s->end, out + i, max - i);
            if (i >= max)
                break;
        }
#endif
        for (size_t k = 0; k < SCALAR_STEPS && i < max; k++) {
            uint64_t v = 0;
            const uint8_t *next = int64_next(q, s->end, s->packed, &v);
            /* varints of up to 4 bytes hold values below 2^28: no range check needed */
            if (TFN_UNLIKELY(next - q > 4 + !s->packed)) {
                int64_t x = (int64_t)v;
                if (x < INT32_MIN || x > INT32_MAX) {
                    *bad = x;
                    return i;
                }
            }
            out[i++] = (int32_t)(int64_t)v;
            q = next;
        }
    }
    return SIZE_MAX;
}

/* The checked twin of decode_int64 / decode_int32 for runs the scan has not counted:
 * the SIMD and bulk decoders stay inside the run and take only whole varints of up to
 * 3 / 4 bytes, the rest goes through tfn__get_varint, which fails on a cut or overlong
 * varint. */
bool tfn__decode_exact(int out_dtype, const uint8_t *p, const uint8_t *end, void *dst,
                       size_t want, int simd)
{
    if (!want)
        return p == end;
    const uint8_t *q = p;
    size_t i = 0;
    bool wide = out_dtype == TFN_INT64;
    while (i < want) {
        if (simd) {
            i += wide ? tfn__decode_varints64_at(simd, &q, end, (int64_t *)dst + i, want - i)
                      : tfn__decode_varints32_at(simd, &q, end, (int32_t *)dst + i, want - i);
            if (i >= want)
                break;
        }
#ifdef TFN_BULK_VARINTS
        i += wide ? decode_bulk_int64(&q, end, (int64_t *)dst + i, want - i)
                  : decode_bulk_int32(&q, end, (int32_t *)dst + i, want - i);
        if (i >= want)
            break;
#endif
        for (size_t k = 0; k < SCALAR_STEPS && i < want; k++) {
            uint64_t v;
            const uint8_t *next = tfn__get_varint(q, end, &v);
            if (!next)
                return false;
            if (wide) {
                ((int64_t *)dst)[i++] = (int64_t)v;
            } else {
                if ((int64_t)v < INT32_MIN || (int64_t)v > INT32_MAX)
                    return false; /* the fill reports it, after the scan's errors */
                ((int32_t *)dst)[i++] = (int32_t)(int64_t)v;
            }
            q = next;
        }
    }
    return q == end;
}

static void decode_float(const tfn__slot *s, float *out, size_t max)
{
    if (s->packed) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if (max)
            memcpy(out, s->data, max * 4);
#else
        for (size_t i = 0; i < max; i++)
            out[i] = tfn__bits_float(tfn__load_le32(s->data + 4 * i));
#endif
        return;
    }
    for (size_t i = 0; i < max; i++)
        out[i] = tfn__bits_float(tfn__load_le32(s->data + 5 * i + 1));
}

static void decode_bytes(const tfn__slot *s, tfn_bytes *out, size_t max)
{
    const uint8_t *q = s->data;
    for (size_t i = 0; i < max; i++) {
        uint64_t len = 0;
        q = tfn__get_varint(q + 1, s->end, &len); /* 0a <len> <bytes> */
        out[i].data = q;
        out[i].len = (size_t)len;
        q += len;
    }
}

void tfn__decode_slot(int dtype, const tfn__slot *slot, void *dst, size_t count)
{
    if (!count)
        return;
    if (dtype == TFN_INT64)
        decode_int64(slot, dst, count, tfn__simd_level());
    else if (dtype == TFN_FLOAT32)
        decode_float(slot, dst, count);
    else
        decode_bytes(slot, dst, count);
}

static size_t out_elem_size(int out_dtype)
{
    switch (out_dtype) {
    case TFN_INT64: return sizeof(int64_t);
    case TFN_INT32: return sizeof(int32_t);
    case TFN_FLOAT32: return sizeof(float);
    default: return sizeof(tfn_bytes);
    }
}

/* Writes `count` copies of the padding scalar (or zeros) at dst. */
static void fill_padding(const tfn__dense *d, void *dst, size_t count)
{
    size_t es = out_elem_size(d->out_dtype);
    if (!d->default_count) {
        memset(dst, 0, count * es);
        return;
    }
    uint8_t pad[sizeof(tfn_bytes)];
    if (d->out_dtype == TFN_INT32) {
        int32_t v = (int32_t) * (const int64_t *)d->default_value;
        memcpy(pad, &v, sizeof v);
    } else {
        memcpy(pad, d->default_value, es);
    }
    uint8_t *p = dst;
    for (size_t i = 0; i < count; i++, p += es)
        memcpy(p, pad, es);
}

/* Copies a FixedLen default (stride elements) to dst. */
static void copy_default(const tfn__dense *d, void *dst)
{
    if (d->out_dtype == TFN_INT32) {
        const int64_t *src = d->default_value;
        int32_t *o = dst;
        for (size_t i = 0; i < d->stride; i++)
            o[i] = (int32_t)src[i];
        return;
    }
    memcpy(dst, d->default_value, d->stride * out_elem_size(d->out_dtype));
}

/* Decodes `values` values of slot s at dst; returns TFN_OK or an int32 range error. */
static int decode_values(const tfn_parser *p, size_t j, size_t i, const tfn__slot *s, void *dst,
                         size_t values, tfn_error *err)
{
    const tfn__dense *d = &p->spec->dense[j];
    switch (d->out_dtype) {
    case TFN_INT64:
        decode_int64(s, dst, values, p->simd);
        return TFN_OK;
    case TFN_INT32: {
        int64_t bad = 0;
        size_t at = decode_int32(s, dst, values, &bad, p->simd);
        if (at == SIZE_MAX)
            return TFN_OK;
        return tfn__fail_at(err, TFN_E_OUT_OF_RANGE, 0, i,
                            "Key: %.*s, Index: %zu.  Value %lld at position %zu does not fit the "
                            "int32 output (range -2147483648..2147483647); parse it as int64",
                            (int)(d->key_len > 300 ? 300 : d->key_len), d->key, i,
                            (long long)bad, at);
    }
    case TFN_FLOAT32:
        decode_float(s, dst, values);
        return TFN_OK;
    default:
        decode_bytes(s, dst, values);
        return TFN_OK;
    }
}

/* A VarLen feature: every example's values back to back, with row splits. */
static int fill_var_len(tfn_parser *p, size_t j, const tfn_output *o, tfn_error *err)
{
    const tfn__dense *d = &p->spec->dense[j];
    size_t n = p->n, es = out_elem_size(d->out_dtype);
    size_t total = tfn_parser_total(p, j);
    if (total > o->capacity)
        return tfn__fail(err, TFN_E_BUF_TOO_SMALL,
                         "output for feature %s holds %zu elements but %zu are needed "
                         "(the values of %zu examples)",
                         d->key, o->capacity, total, n);
    uint8_t *dst = o->values;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        const tfn__slot *s = &p->slots[i * p->spec->n + j];
        if (s->count) {
            int rc = decode_values(p, j, i, s, dst + at * es, s->count, err);
            if (rc)
                return rc;
        }
        at += s->count;
        if (o->lengths)
            o->lengths[i] = (int64_t)s->count;
    }
    return TFN_OK;
}

static int fill_feature(tfn_parser *p, size_t j, const tfn_output *o, tfn_error *err)
{
    const tfn__dense *d = &p->spec->dense[j];
    size_t n = p->n, es = out_elem_size(d->out_dtype);
    size_t rows = d->type == TFN_FIXED_LEN ? 1
                  : o->max_rows >= 0       ? (size_t)o->max_rows
                                           : p->max_rows[j];
    size_t per_example, total;
    if (!tfn__mul_size(rows, d->stride, &per_example) || !tfn__mul_size(per_example, n, &total))
        return tfn__fail(err, TFN_E_LIMIT, "feature %s: output size overflows", d->key);
    if (total > o->capacity)
        return tfn__fail(err, TFN_E_BUF_TOO_SMALL,
                         "output for feature %s holds %zu elements but %zu are needed "
                         "(%zu examples x %zu rows x %zu values)",
                         d->key, o->capacity, total, n, rows, d->stride);
    uint8_t *base = o->values;
    for (size_t i = 0; i < n; i++) {
        const tfn__slot *s = &p->slots[i * p->spec->n + j];
        uint8_t *dst = base + i * per_example * es;
        if (d->type == TFN_FIXED_LEN) {
            if (s->present) {
                if (!s->done) {
                    int rc = decode_values(p, j, i, s, dst, d->stride, err);
                    if (rc)
                        return rc;
                }
            } else {
                copy_default(d, dst);
            }
            if (o->lengths)
                o->lengths[i] = 1;
            if (o->mask)
                o->mask[i] = 1;
            continue;
        }
        size_t have = s->count / d->stride;
        size_t keep = have < rows ? have : rows;
        if (keep) {
            int rc = decode_values(p, j, i, s, dst, keep * d->stride, err);
            if (rc)
                return rc;
        }
        if (keep < rows)
            fill_padding(d, dst + keep * d->stride * es, (rows - keep) * d->stride);
        if (o->lengths)
            o->lengths[i] = (int64_t)have;
        if (o->mask) {
            memset(o->mask + i * rows, 1, keep);
            memset(o->mask + i * rows + keep, 0, rows - keep);
        }
    }
    return TFN_OK;
}

int tfn_parser_fill(tfn_parser *p, const tfn_output *outputs, tfn_error *err)
{
    if (!p || !outputs)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_parser_fill: NULL argument");
    if (!p->scanned)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "tfn_parser_fill needs a successful tfn_parser_scan first");
    for (size_t j = 0; j < p->spec->n; j++) {
        if (!outputs[j].values)
            continue;
        int rc = p->spec->dense[j].type == TFN_VAR_LEN ? fill_var_len(p, j, &outputs[j], err)
                                                       : fill_feature(p, j, &outputs[j], err);
        if (rc)
            return rc;
    }
    return TFN_OK;
}

int tfn_parser_parse(tfn_parser *p, const tfn_bytes *records, size_t n, const tfn_bytes *names,
                     unsigned flags, const tfn_output *outputs, tfn_error *err)
{
    /* FixedLen numeric features whose outputs hold the batch are decoded by the scan
     * as it reads them (one pass over the records, no separate count); the fill then
     * does the rest (defaults, lengths, masks, other features, and any value the scan
     * left, such as one out of int32 range, whose error comes after the scan's) */
    if (p && outputs) {
        const tfn_spec *spec = p->spec;
        bool any = false;
        for (size_t j = 0; j < spec->n; j++) {
            const tfn__dense *d = &spec->dense[j];
            size_t need;
            p->fuse_ok[j] = d->type == TFN_FIXED_LEN && outputs[j].values && d->stride &&
                            (d->dtype == TFN_INT64 || d->dtype == TFN_FLOAT32) &&
                            tfn__mul_size(n, d->stride, &need) && need <= outputs[j].capacity;
            any |= p->fuse_ok[j] != 0;
        }
        p->fuse = any ? outputs : NULL;
    }
    int rc = tfn_parser_scan(p, records, n, names, flags, err);
    if (p)
        p->fuse = NULL;
    if (rc)
        return rc;
    return tfn_parser_fill(p, outputs, err);
}

int tfn_bytes_copy_out(const tfn_bytes *views, size_t n, void *dst, size_t cap,
                       uint64_t *offsets, size_t *needed, tfn_error *err)
{
    if (!views && n)
        return tfn__fail(err, TFN_E_INVALID_ARG, "views is NULL but n is %zu", n);
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        if (!tfn__add_size(total, views[i].len, &total))
            return tfn__fail(err, TFN_E_LIMIT, "byte strings too large to copy");
    if (needed)
        *needed = total;
    if (total > cap)
        return tfn__fail(err, TFN_E_BUF_TOO_SMALL,
                         "buffer of %zu bytes is too small for %zu bytes of strings", cap, total);
    if (total && !dst)
        return tfn__fail(err, TFN_E_INVALID_ARG, "dst is NULL");
    uint8_t *q = dst;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        if (offsets)
            offsets[i] = at;
        if (views[i].len)
            memcpy(q + at, views[i].data, views[i].len);
        at += views[i].len;
    }
    if (offsets)
        offsets[n] = at;
    return TFN_OK;
}

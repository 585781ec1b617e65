/* parse_scan.c - step 1 of parsing: find every configured feature in every example
 * and validate it exactly as TensorFlow's fast parser does
 * (tensorflow/core/util/example_proto_fast_parsing.cc), error texts included.
 *
 * TF walks the bytes with protobuf's CodedInputStream; the small `cis` below mirrors
 * the parts of its behaviour that decide what is accepted: a pushed length limit
 * that reaches past the enclosing one is ignored (the enclosing limit stays), tags
 * are matched by their first byte, unknown top-level fields are skipped (a skip past
 * the end is not an error), and only the first list of a Feature is read.
 */
#include "example_internal.h"
#include "parse_internal.h"
#include "varint_internal.h"

#include <stdio.h>

/* ------------------------------------------------------------ the input stream */

typedef struct cis {
    const uint8_t *p;
    const uint8_t *limit;
} cis;

static bool cis_at_end(const cis *s)
{
    return s->p == s->limit;
}

static bool cis_varint64(cis *s, uint64_t *v)
{
    const uint8_t *q = tfn__get_varint(s->p, s->limit, v);
    if (!q)
        return false;
    s->p = q;
    return true;
}

/* Varints of up to 10 bytes, keeping the low 32 bits (protobuf's ReadVarint32). The
 * lengths of an Example's messages take one or two bytes. */
static inline bool cis_varint32(cis *s, uint32_t *v)
{
    const uint8_t *p = s->p;
    if (s->limit - p >= 2) {
        if (p[0] < 0x80) {
            *v = p[0];
            s->p = p + 1;
            return true;
        }
        if (p[1] < 0x80) {
            *v = (uint32_t)(p[0] & 0x7f) | (uint32_t)p[1] << 7;
            s->p = p + 2;
            return true;
        }
    }
    uint64_t w;
    if (!cis_varint64(s, &w))
        return false;
    *v = (uint32_t)w;
    return true;
}

static const uint8_t *cis_push_limit(cis *s, uint32_t len)
{
    const uint8_t *old = s->limit;
    if (len <= (size_t)(s->limit - s->p))
        s->limit = s->p + len;
    return old;
}

static bool cis_expect(cis *s, uint8_t byte)
{
    if (s->p < s->limit && *s->p == byte) {
        s->p++;
        return true;
    }
    return false;
}

/* protobuf's ReadTag: 0 at the limit or on a malformed varint (position kept). */
static uint32_t cis_tag(cis *s)
{
    if (s->p >= s->limit)
        return 0;
    uint64_t v;
    const uint8_t *q = tfn__get_varint(s->p, s->limit, &v);
    if (!q)
        return 0;
    s->p = q;
    return (uint32_t)v;
}

static bool cis_skip_raw(cis *s, size_t n)
{
    if (n > (size_t)(s->limit - s->p))
        return false;
    s->p += n;
    return true;
}

/* A length-prefixed string within the current limit. */
static bool cis_string(cis *s, const uint8_t **data, size_t *len)
{
    uint32_t n;
    if (!cis_varint32(s, &n))
        return false;
    if (n > (size_t)(s->limit - s->p))
        return false;
    *data = s->p;
    *len = n;
    s->p += n;
    return true;
}

/* ------------------------------------------------------------ Example structure */

static bool skip_extraneous_tag(cis *s)
{
    uint32_t tag = cis_tag(s);
    uint32_t u32;
    uint64_t u64;
    switch (tag & 7) {
    case TFN_WT_VARINT:
        return cis_varint32(s, &u32);
    case TFN_WT_FIXED64:
        return cis_skip_raw(s, 8);
    case TFN_WT_LEN:
        if (!cis_varint32(s, &u32))
            return false;
        /* TF ignores Skip()'s result. Skip() takes an int: a length of 2^31 or more
         * is negative there and refused without moving, so parsing goes on right
         * after the length; a length past the end just ends the input. */
        if (u32 > INT32_MAX)
            return true;
        if (!cis_skip_raw(s, u32))
            s->p = s->limit;
        return true;
    case TFN_WT_FIXED32:
        return cis_skip_raw(s, 4);
    default: /* groups (3, 4) and the invalid wire types 6 and 7 */
        (void)u64;
        return false;
    }
}

static bool parse_entry(cis *s, tfn__entry *e)
{
    uint32_t len;
    if (!cis_varint32(s, &len))
        return false;
    const uint8_t *outer = cis_push_limit(s, len);
    e->key = NULL;
    e->key_len = 0;
    e->value = NULL;
    e->value_len = 0;
    /* exactly two fields, key (1) and value (2), in either order */
    for (int k = 0; k < 2; k++) {
        uint32_t tag = cis_tag(s);
        if (tag == TAG_ENTRY_KEY) {
            if (!cis_string(s, &e->key, &e->key_len))
                return false;
        } else if (tag == TAG_ENTRY_VALUE) {
            if (!cis_string(s, &e->value, &e->value_len))
                return false;
        } else {
            return false;
        }
    }
    if (!cis_at_end(s))
        return false;
    s->limit = outer;
    return true;
}

/* Splits a serialized Example into its map entries (concatenated Examples merge).
 * Returns false where TF says "Could not parse example input". */
static bool parse_example(tfn_parser *p, const uint8_t *data, size_t len, size_t *count,
                          int *rc)
{
    cis s = {data, data + len};
    size_t n = 0;
    *rc = TFN_OK;
    while (!cis_at_end(&s)) {
        if (!cis_expect(&s, TAG_EXAMPLE_FEATURES)) {
            if (!skip_extraneous_tag(&s))
                return false;
            continue;
        }
        uint32_t flen;
        if (!cis_varint32(&s, &flen))
            return false;
        const uint8_t *outer = cis_push_limit(&s, flen);
        while (!cis_at_end(&s)) {
            if (!cis_expect(&s, TAG_FEATURES_ENTRY))
                return false;
            if (!tfn__grow(&p->alloc, (void **)&p->entries, &p->entries_cap, n + 1,
                           sizeof *p->entries)) {
                *rc = TFN_E_NOMEM;
                return false;
            }
            if (!parse_entry(&s, &p->entries[n]))
                return false;
            n++;
        }
        s.limit = outer;
    }
    *count = n;
    return true;
}

/* ------------------------------------------------------------ value lists */

/* Reads the value list of a Feature whose kind byte was already taken, as TF's
 * ParseInt64List / ParseFloatList / ParseBytesList do, recording where the values
 * are and how many TF counts. `cap` is the FixedLen capacity (TF writes FixedLen
 * values into a slice of exactly `stride` elements, which changes what it accepts
 * for floats and strings), or SIZE_MAX for FixedLenSequence. */
static bool read_int64_list(cis *s, tfn__slot *slot, int simd, void *dst, int out_dtype,
                            size_t want)
{
    uint32_t len;
    if (!cis_varint32(s, &len))
        return false;
    cis_push_limit(s, len);
    slot->count = 0;
    slot->data = s->p;
    slot->end = s->p;
    slot->packed = 1;
    if (cis_at_end(s))
        return true;
    uint8_t peek = *s->p;
    if (peek == TAG_LIST_PACKED) {
        s->p++;
        uint32_t plen;
        if (!cis_varint32(s, &plen))
            return false;
        cis_push_limit(s, plen);
        slot->data = s->p;
        slot->end = s->limit;
        /* tfn_parser_parse: a run of exactly the values wanted is decoded now, which
         * also validates it; any other run is counted (and errors found) as below */
        if (dst && tfn__decode_exact(out_dtype, s->p, s->limit, dst, want, simd)) {
            slot->count = want;
            slot->done = 1;
            return true;
        }
        size_t count;
        if (!tfn__count_varints_at(simd, s->p, s->limit, &count))
            return false;
        slot->count = count;
        return true;
    }
    if (peek != TAG_INT64_UNPACKED)
        return false;
    slot->packed = 0;
    slot->data = s->p;
    size_t count = 0;
    while (!cis_at_end(s)) {
        uint64_t v;
        if (!cis_expect(s, TAG_INT64_UNPACKED) || !cis_varint64(s, &v))
            return false;
        count++;
    }
    slot->end = s->p;
    slot->count = count;
    return true;
}

static bool read_float_list(cis *s, tfn__slot *slot, size_t cap)
{
    uint32_t len;
    if (!cis_varint32(s, &len))
        return false;
    cis_push_limit(s, len);
    slot->count = 0;
    slot->data = s->p;
    slot->end = s->p;
    slot->packed = 1;
    if (cis_at_end(s))
        return true;
    uint8_t peek = *s->p;
    if (peek == TAG_LIST_PACKED) {
        s->p++;
        uint32_t plen;
        if (!cis_varint32(s, &plen))
            return false;
        cis_push_limit(s, plen);
        size_t count = plen / 4; /* trailing 1-3 bytes are ignored, as in TF */
        size_t copied = count < cap ? count : cap;
        if (copied * 4 > (size_t)(s->limit - s->p))
            return false;
        slot->data = s->p;
        slot->end = s->p + copied * 4;
        slot->count = count;
        return true;
    }
    if (peek != TAG_FLOAT_UNPACKED)
        return false;
    slot->packed = 0;
    slot->data = s->p;
    size_t count = (size_t)(s->limit - s->p) / 5; /* tag + 4 bytes each */
    for (size_t i = 0; i < count; i++)
        if (!cis_expect(s, TAG_FLOAT_UNPACKED) || !cis_skip_raw(s, 4))
            return false;
    if (!cis_at_end(s)) /* 1-4 stray bytes: TF tries one more value and fails */
        return false;
    slot->end = s->p;
    slot->count = count;
    return true;
}

static bool read_bytes_list(cis *s, tfn__slot *slot, size_t cap)
{
    uint32_t len;
    if (!cis_varint32(s, &len))
        return false;
    cis_push_limit(s, len);
    slot->data = s->p;
    slot->packed = 0;
    size_t count = 0;
    while (!cis_at_end(s)) {
        const uint8_t *data;
        size_t n;
        if (!cis_expect(s, TAG_LIST_PACKED) || count >= cap || !cis_string(s, &data, &n))
            return false;
        count++;
    }
    slot->end = s->p;
    slot->count = count;
    return true;
}

bool tfn__read_feature(const uint8_t *value, size_t len, int *dtype, tfn__slot *slot)
{
    memset(slot, 0, sizeof *slot);
    if (len == 0) {
        *dtype = TFN_DTYPE_NONE;
        return true;
    }
    uint8_t kind = value[0];
    *dtype = kind == TAG_FEATURE_BYTES   ? TFN_BYTES
             : kind == TAG_FEATURE_FLOAT ? TFN_FLOAT32
             : kind == TAG_FEATURE_INT64 ? TFN_INT64
                                         : -1;
    cis s = {value + 1, value + len};
    switch (*dtype) {
    case TFN_INT64: return read_int64_list(&s, slot, tfn__simd_level(), NULL, 0, 0);
    case TFN_FLOAT32: return read_float_list(&s, slot, SIZE_MAX);
    case TFN_BYTES: return read_bytes_list(&s, slot, SIZE_MAX);
    default: return true;
    }
}

/* ------------------------------------------------------------ errors */

typedef struct scan_ctx {
    tfn_parser *p;
    const tfn_bytes *records;
    const tfn_bytes *names;
    size_t n;
    bool single;
    tfn_error *err;
} scan_ctx;

static const char *kind_word(int dtype)
{
    return dtype == TFN_INT64 ? "int64" : dtype == TFN_FLOAT32 ? "float" : "bytes";
}

static const char *list_word(int dtype)
{
    return dtype == TFN_INT64 ? "int64_list" : dtype == TFN_FLOAT32 ? "float_list" : "bytes_list";
}

/* Fills err with "<prefix><suffix>" where the prefix is TF's per-path example context. */
static int example_error(const scan_ctx *c, size_t i, const tfn__dense *d, const uint8_t *key,
                         size_t key_len, int code, const char *fmt, ...) TFN_PRINTF(7, 8);

#include <stdarg.h>

static int example_error(const scan_ctx *c, size_t i, const tfn__dense *d, const uint8_t *key,
                         size_t key_len, int code, const char *fmt, ...)
{
    (void)d;
    char suffix[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(suffix, sizeof suffix, fmt, ap);
    va_end(ap);
    int klen = (int)(key_len > 300 ? 300 : key_len);
    if (c->single)
        return tfn__fail_at(c->err, code, 0, i, "Key: %.*s.  %s", klen, (const char *)key, suffix);
    if (c->names)
        return tfn__fail_at(c->err, code, 0, i, "Name: %.*s, Key: %.*s, Index: %zu.  %s",
                            (int)(c->names[i].len > 300 ? 300 : c->names[i].len),
                            (const char *)c->names[i].data, klen, (const char *)key, i, suffix);
    return tfn__fail_at(c->err, code, 0, i, "Name: <unknown>, Key: %.*s, Index: %zu.  %s", klen,
                        (const char *)key, i, suffix);
}

/* TF's text holds the raw record bytes, as a C string: a NUL byte ends the message
 * there (closing quote included), exactly as TensorFlow shows it. Long records are
 * cut to fit err->msg, with "..." at the end. */
static int not_an_example(const scan_ctx *c, size_t i)
{
    const tfn_bytes *r = &c->records[i];
    tfn__fail_at(c->err, TFN_E_CORRUPT, 0, i, "Could not parse example input, value: '");
    if (!c->err)
        return TFN_E_CORRUPT;
    char *msg = c->err->msg;
    size_t used = strlen(msg), room = sizeof c->err->msg - used - 1;
    size_t take = r->len;
    const uint8_t *nul = take ? memchr(r->data, 0, take) : NULL;
    if (nul)
        take = (size_t)(nul - r->data);
    bool cut = take + 1 > room;
    if (cut)
        take = room - 4;
    if (take)
        memcpy(msg + used, r->data, take);
    msg[used + take] = '\0';
    if (cut)
        tfn__append(c->err, "...");
    else if (!nul)
        tfn__append(c->err, "'");
    return TFN_E_CORRUPT;
}

static int missing_error(const scan_ctx *c, size_t i, const tfn__dense *d)
{
    int klen = (int)(d->key_len > 300 ? 300 : d->key_len);
    const char *dt = tfn__dtype_tf_name(d->dtype);
    if (c->single)
        return tfn__fail_at(c->err, TFN_E_NOT_FOUND, 0, i,
                            "Feature: %.*s (data type: %s) is required but could not be found.",
                            klen, d->key, dt);
    if (c->names)
        return tfn__fail_at(c->err, TFN_E_NOT_FOUND, 0, i,
                            "Name: %.*s, Feature: %.*s (data type: %s) is required but could "
                            "not be found.",
                            (int)(c->names[i].len > 300 ? 300 : c->names[i].len),
                            (const char *)c->names[i].data, klen, d->key, dt);
    return tfn__fail_at(c->err, TFN_E_NOT_FOUND, 0, i,
                        "Name: <unknown>, Feature: %.*s (data type: %s) is required but could "
                        "not be found.",
                        klen, d->key, dt);
}

/* ------------------------------------------------------------ the scan */

/* TF splits a batch into minibatches (about 50 kB each, at least min(8, n), at most
 * 64); the "not a multiple of stride" message counts values from the start of the
 * failing example's minibatch, so we track the same boundaries. */
static size_t num_minibatches(const tfn_bytes *records, size_t n)
{
    size_t result = 0, bytes = 0;
    for (size_t i = 0; i < n; i++) {
        if (bytes == 0)
            result++;
        bytes += records[i].len + 1;
        if (bytes > 50000)
            bytes = 0;
    }
    size_t lo = n < 8 ? n : 8;
    size_t hi = result < 64 ? result : 64;
    return lo > hi ? lo : hi;
}

static int scan_feature(scan_ctx *c, size_t i, const tfn__entry *e, size_t j, size_t *running)
{
    tfn_parser *p = c->p;
    const tfn__dense *d = &p->spec->dense[j];
    tfn__slot *slot = &p->slots[i * p->spec->n + j];
    bool var_len = d->type == TFN_VAR_LEN;
    if (e->value_len == 0) {
        /* A Feature with no kind counts as missing; TF's batch path marks a VarLen
         * key seen by it, so that earlier entries of the key are ignored. */
        if (var_len && !c->single && p->seen[j] != i + 1)
            p->seen[j] = i + 1;
        return TFN_OK;
    }
    uint8_t kind_byte = e->value[0];
    int dtype = kind_byte == TAG_FEATURE_BYTES   ? TFN_BYTES
                : kind_byte == TAG_FEATURE_FLOAT ? TFN_FLOAT32
                : kind_byte == TAG_FEATURE_INT64 ? TFN_INT64
                                                 : TFN_DTYPE_NONE;
    if (dtype == TFN_DTYPE_NONE)
        return tfn__fail_at(c->err, TFN_E_CORRUPT, 0, i, "Unsupported datatype.");
    if (p->seen[j] == i + 1)
        return TFN_OK; /* an earlier duplicate of a key already taken: the last one wins */
    p->seen[j] = i + 1;
    if (dtype != d->dtype && var_len)
        return example_error(c, i, d, e->key, e->key_len, TFN_E_TYPE,
                             "Data types don't match. Expected type: %s, Actual type: %s",
                             tfn__dtype_tf_name(d->dtype), tfn__dtype_tf_name(dtype));
    if (dtype != d->dtype)
        return example_error(c, i, d, e->key, e->key_len, TFN_E_TYPE,
                             "Data types don't match. Data type: %s but expected type: %s",
                             tfn__dtype_tf_name(dtype), tfn__dtype_tf_name(d->dtype));
    bool fixed = d->type == TFN_FIXED_LEN;
    size_t cap = fixed ? d->stride : SIZE_MAX;
    cis s = {e->value + 1, e->value + e->value_len};
    /* tfn_parser_parse: where this example's values go, when they are decoded now */
    uint8_t *dst = NULL;
    if (p->fuse && p->fuse_ok[j])
        dst = (uint8_t *)p->fuse[j].values +
              i * d->stride * (d->out_dtype == TFN_INT64 ? 8 : 4); /* int32 or float */
    bool ok = dtype == TFN_INT64
                  ? read_int64_list(&s, slot, p->simd, dst, d->out_dtype, d->stride)
              : dtype == TFN_FLOAT32 ? read_float_list(&s, slot, cap)
                                     : read_bytes_list(&s, slot, cap);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (ok && dst && dtype == TFN_FLOAT32 && slot->packed && slot->count == d->stride) {
        memcpy(dst, slot->data, d->stride * 4); /* what decode_float does */
        slot->done = 1;
    }
#endif
    if (!ok) {
        /* TF's single path counts a sequence's strings before parsing them */
        if (c->single && !fixed && dtype == TFN_BYTES)
            return example_error(c, i, d, e->key, e->key_len, TFN_E_CORRUPT,
                                 "Can't parse serialized Example: Could not get num elements "
                                 "in bytes_list.");
        if (c->single)
            return example_error(c, i, d, e->key, e->key_len, TFN_E_CORRUPT,
                                 "Can't parse serialized Example: Parsing %s failed.",
                                 list_word(dtype));
        return example_error(c, i, d, e->key, e->key_len, TFN_E_CORRUPT,
                             "Can't parse serialized Example.");
    }
    slot->present = 1;
    if (var_len) {
        if (slot->count > p->max_rows[j])
            p->max_rows[j] = slot->count;
        return TFN_OK;
    }
    if (fixed) {
        if (slot->count != d->stride) {
            if (c->single)
                return example_error(c, i, d, e->key, e->key_len, TFN_E_INVALID_ARG,
                                     "Can't parse serialized Example: Some %s slice was not "
                                     "parsed.",
                                     list_word(dtype));
            return example_error(c, i, d, e->key, e->key_len, TFN_E_INVALID_ARG,
                                 "Number of %s values != expected.  Values size: %zu but output "
                                 "shape: %s",
                                 kind_word(dtype), slot->count, d->shape_str + 0 /* "[..]" */);
        }
        return TFN_OK;
    }
    running[j] += slot->count;
    if (slot->count % d->stride != 0) {
        int klen = (int)(e->key_len > 300 ? 300 : e->key_len);
        if (c->single)
            return tfn__fail_at(c->err, TFN_E_INVALID_ARG, 0, i,
                                "Error while parsing feature with key %.*s: number of elements "
                                "should be divisible by %zu, found %zu instead",
                                klen, (const char *)e->key, d->stride, slot->count);
        return example_error(c, i, d, e->key, e->key_len, TFN_E_INVALID_ARG,
                             "Number of %s values is not a multiple of stride length. Saw %zu "
                             "values but output shape is: %s",
                             kind_word(dtype), running[j], d->shape_str);
    }
    size_t rows = slot->count / d->stride;
    if (rows > p->max_rows[j])
        p->max_rows[j] = rows;
    return TFN_OK;
}

/* The feature of map entry k of an example. Records of a batch usually list the same
 * keys in the same order, so entry k is first compared with the key entry k had in
 * the previous example (no hashing); the hash index decides otherwise. */
static size_t find_key(tfn_parser *p, size_t k, const tfn__entry *e)
{
    const tfn_spec *spec = p->spec;
    const uint8_t *key = e->key ? e->key : (const uint8_t *)"";
    if (k < TFN__KEY_HINTS && p->key_hint[k]) {
        const tfn__dense *d = &spec->dense[p->key_hint[k] - 1];
        if (d->key_len == e->key_len && (e->key_len == 0 || memcmp(d->key, key, e->key_len) == 0))
            return p->key_hint[k] - 1;
    }
    size_t j = tfn__spec_find(spec, key, e->key_len);
    if (k < TFN__KEY_HINTS)
        p->key_hint[k] = j == SIZE_MAX ? 0 : (uint32_t)(j + 1);
    return j;
}

/* Asks for the cache lines of a record the scan reaches next: records of a batch may
 * lie anywhere in memory (one Python bytes object each), and the scan's walk through
 * a record's structure waits on every miss. */
static void prefetch_record(const tfn_bytes *r)
{
#if defined(__GNUC__)
    if (!r->data)
        return;
    /* addresses as integers: no pointer arithmetic past the record; the first 4 KiB
     * (a big record's bulk is bytes values, which the scan does not read) */
    uintptr_t at = (uintptr_t)r->data, end = at + (r->len < 4096 ? r->len : 4096);
    for (; at < end; at += 64)
        __builtin_prefetch((const void *)at);
#else
    (void)r;
#endif
}

int tfn_parser_scan(tfn_parser *p, const tfn_bytes *records, size_t n, const tfn_bytes *names,
                    unsigned flags, tfn_error *err)
{
    if (!p)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_parser is NULL");
    p->scanned = false;
    if (!records && n)
        return tfn__fail(err, TFN_E_INVALID_ARG, "records is NULL but n is %zu", n);
    bool single = (flags & TFN_PARSE_SINGLE) != 0;
    if (single && n != 1)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "TFN_PARSE_SINGLE parses exactly one example, got %zu", n);
    const tfn_spec *spec = p->spec;
    size_t nslots;
    if (!tfn__mul_size(n, spec->n, &nslots) ||
        !tfn__grow(&p->alloc, (void **)&p->slots, &p->slots_cap, nslots ? nslots : 1,
                   sizeof *p->slots))
        return tfn__fail(err, TFN_E_NOMEM, "out of memory scanning %zu examples", n);
    if (nslots)
        memset(p->slots, 0, nslots * sizeof *p->slots);
    for (size_t j = 0; j < spec->n; j++) {
        p->max_rows[j] = 0;
        p->seen[j] = 0;
    }
    /* running value totals per feature within the current TF minibatch */
    size_t *running = p->seen + spec->n;
    size_t minibatches = num_minibatches(records, n), next_mb = 1;
    for (size_t j = 0; j < spec->n; j++)
        running[j] = 0;
    scan_ctx c = {p, records, names, n, single, err};
    for (size_t i = 0; i < n; i++) {
        if (next_mb < minibatches && i >= (n * next_mb) / minibatches) {
            while (next_mb < minibatches && i >= (n * next_mb) / minibatches)
                next_mb++;
            for (size_t j = 0; j < spec->n; j++)
                running[j] = 0;
        }
        const tfn_bytes *r = &records[i];
        if (i + 1 < n)
            prefetch_record(&records[i + 1]);
        if (!r->data && r->len)
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i,
                                "record %zu is NULL with length %zu", i, r->len);
        size_t count = 0;
        int rc;
        if (!parse_example(p, r->data ? r->data : (const uint8_t *)"", r->len, &count, &rc)) {
            if (rc == TFN_E_NOMEM)
                return tfn__fail_at(err, rc, 0, i, "out of memory splitting example %zu", i);
            return not_an_example(&c, i);
        }
        /* the last entry of a key wins: visit entries from the end */
        for (size_t k = count; k-- > 0;) {
            const tfn__entry *e = &p->entries[k];
            size_t j = find_key(p, k, e);
            if (j == SIZE_MAX)
                continue;
            rc = scan_feature(&c, i, e, j, running);
            if (rc)
                return rc;
        }
        for (size_t k = 0; k < spec->n; k++) {
            size_t j = spec->sorted[k];
            const tfn__dense *d = &spec->dense[j];
            if (d->type == TFN_FIXED_LEN && !p->slots[i * spec->n + j].present &&
                d->default_count == 0)
                return missing_error(&c, i, d);
        }
    }
    for (size_t j = 0; j < spec->n; j++)
        if (spec->dense[j].type == TFN_FIXED_LEN)
            p->max_rows[j] = 1;
    p->n = n;
    p->scanned = true;
    return TFN_OK;
}

size_t tfn_parser_max_rows(const tfn_parser *p, size_t j)
{
    if (!p || !p->scanned || j >= p->spec->n)
        return 0;
    return p->max_rows[j];
}

size_t tfn_parser_rows(const tfn_parser *p, size_t j, size_t i)
{
    if (!p || !p->scanned || j >= p->spec->n || i >= p->n)
        return 0;
    const tfn__dense *d = &p->spec->dense[j];
    if (d->type == TFN_FIXED_LEN)
        return 1;
    return p->slots[i * p->spec->n + j].count / d->stride;
}

size_t tfn_parser_total(const tfn_parser *p, size_t j)
{
    if (!p || !p->scanned || j >= p->spec->n)
        return 0;
    const tfn__dense *d = &p->spec->dense[j];
    if (d->type != TFN_VAR_LEN) {
        size_t total = 0;
        if (!tfn__mul_size(p->n, p->max_rows[j], &total) ||
            !tfn__mul_size(total, d->stride, &total))
            return 0;
        return total;
    }
    size_t total = 0;
    for (size_t i = 0; i < p->n; i++)
        total += p->slots[i * p->spec->n + j].count;
    return total;
}

int tfn_parser_row_splits(const tfn_parser *p, size_t j, int64_t *splits, tfn_error *err)
{
    if (!p || !p->scanned || j >= p->spec->n || !splits ||
        p->spec->dense[j].type != TFN_VAR_LEN)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "tfn_parser_row_splits needs a scan, a TFN_VAR_LEN feature and an "
                         "output");
    int64_t at = 0;
    splits[0] = 0;
    for (size_t i = 0; i < p->n; i++) {
        at += (int64_t)p->slots[i * p->spec->n + j].count;
        splits[i + 1] = at;
    }
    return TFN_OK;
}

int tfn_parser_sparse_indices(const tfn_parser *p, size_t j, int64_t *indices, tfn_error *err)
{
    if (!p || !p->scanned || j >= p->spec->n || !indices ||
        p->spec->dense[j].type != TFN_VAR_LEN)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "tfn_parser_sparse_indices needs a scan, a TFN_VAR_LEN feature and "
                         "an output");
    int64_t *q = indices;
    for (size_t i = 0; i < p->n; i++) {
        size_t count = p->slots[i * p->spec->n + j].count;
        for (size_t k = 0; k < count; k++) {
            q[0] = (int64_t)i;
            q[1] = (int64_t)k;
            q += 2;
        }
    }
    return TFN_OK;
}

tfn_parser *tfn_parser_new(const tfn_spec *spec, const tfn_alloc *alc)
{
    if (!spec)
        return NULL;
    tfn__alloc a;
    tfn__alloc_init(&a, alc);
    tfn_parser *p = tfn__malloc(&a, sizeof *p);
    if (!p)
        return NULL;
    memset(p, 0, sizeof *p);
    p->alloc = a;
    p->spec = spec;
    p->simd = tfn__simd_level();
    p->max_rows = tfn__malloc(&a, spec->n * sizeof *p->max_rows);
    p->seen = tfn__malloc(&a, 2 * spec->n * sizeof *p->seen); /* + running totals */
    p->fuse_ok = tfn__malloc(&a, spec->n ? spec->n : 1);
    if (!p->max_rows || !p->seen || !p->fuse_ok) {
        tfn_parser_free(p);
        return NULL;
    }
    return p;
}

void tfn_parser_free(tfn_parser *p)
{
    if (!p)
        return;
    tfn__alloc a = p->alloc;
    tfn__free(&a, p->slots);
    tfn__free(&a, p->max_rows);
    tfn__free(&a, p->entries);
    tfn__free(&a, p->seen);
    tfn__free(&a, p->fuse_ok);
    tfn__free(&a, p);
}

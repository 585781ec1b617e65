/* example_decode.c - bytes to tfn_example with protobuf's semantics (what
 * tf.train.Example.FromString gives), walking the message with nanopb's streams.
 * Packed runs are decoded by hand straight from the stream's buffer. */
#include "example_internal.h"

#include <pb_decode.h>

/* Nesting allowed for groups inside unknown fields before we call the input hostile. */
enum { MAX_GROUP_DEPTH = 64 };

typedef struct decoder {
    tfn_example *ex;
    const uint8_t *base; /* start of the input, for offsets in messages */
    unsigned flags;
    tfn_error *err;
    /* the Feature being decoded */
    int kind;
    size_t count;     /* values accumulated in ex->scratch */
    size_t bytes_len; /* total bytes of bytes values (copy mode) */
    int rc;
} decoder;

static size_t offset_of(const decoder *d, const pb_istream_t *s)
{
    return (size_t)((const uint8_t *)s->state - d->base);
}

static bool fail(decoder *d, const pb_istream_t *s, int code, const char *what)
{
    if (d->rc == TFN_OK) {
        const char *detail = s ? PB_GET_ERROR(s) : "";
        d->rc = tfn__fail_at(d->err, code, s ? offset_of(d, s) : 0, 0,
                             "Could not decode Example: %s at byte %zu%s%s", what,
                             s ? offset_of(d, s) : 0, s && s->errmsg ? " (nanopb: " : "",
                             s && s->errmsg ? detail : "");
        if (s && s->errmsg)
            tfn__append(d->err, ")");
    }
    return false;
}

static const uint8_t *cursor(const pb_istream_t *s)
{
    return (const uint8_t *)s->state;
}

/* Skips one field of wire type wt, groups included (nanopb's pb_skip_field has none). */
static bool skip_field(decoder *d, pb_istream_t *s, pb_wire_type_t wt, uint32_t field, int depth)
{
    if (wt == PB_WT_32BIT || wt == PB_WT_64BIT || wt == PB_WT_VARINT || wt == PB_WT_STRING)
        return pb_skip_field(s, wt) || fail(d, s, TFN_E_CORRUPT, "truncated unknown field");
    if ((int)wt != 3)
        return fail(d, s, TFN_E_CORRUPT, "invalid wire type");
    if (depth >= MAX_GROUP_DEPTH)
        return fail(d, s, TFN_E_CORRUPT, "groups nested too deeply");
    for (;;) {
        pb_wire_type_t inner;
        uint32_t tag;
        bool eof;
        if (!pb_decode_tag(s, &inner, &tag, &eof))
            return fail(d, s, TFN_E_CORRUPT, "unterminated group");
        if ((int)inner == 4)
            return tag == field || fail(d, s, TFN_E_CORRUPT, "mismatched end of group");
        if (!skip_field(d, s, inner, tag, depth + 1))
            return false;
    }
}

static bool reserve_scratch(decoder *d, size_t elems, size_t elem_size)
{
    size_t need;
    if (!tfn__add_size(d->count, elems, &need) || !tfn__mul_size(need, elem_size, &need))
        return fail(d, NULL, TFN_E_LIMIT, "list too large");
    tfn_example *ex = d->ex;
    if (!tfn__grow(&ex->alloc, (void **)&ex->scratch, &ex->scratch_cap, need, 1)) {
        d->rc = tfn__fail(d->err, TFN_E_NOMEM, "out of memory decoding a %zu-value list", elems);
        return false;
    }
    return true;
}

static bool read_packed_int64s(decoder *d, pb_istream_t *list)
{
    const uint8_t *p = cursor(list), *end = p + list->bytes_left;
    size_t n = 0;
    for (const uint8_t *q = p; q < end; q++)
        n += *q < 0x80;
    if (n && !reserve_scratch(d, n, sizeof(int64_t)))
        return false;
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        p = tfn__get_varint(p, end, &v);
        if (!p)
            return fail(d, list, TFN_E_CORRUPT, "malformed packed int64 list");
        ((int64_t *)(void *)d->ex->scratch)[d->count + i] = (int64_t)v;
    }
    if (p != end) /* a final byte with its continuation bit set */
        return fail(d, list, TFN_E_CORRUPT, "packed int64 list ends inside a varint");
    d->count += n;
    return pb_read(list, NULL, list->bytes_left) || fail(d, list, TFN_E_CORRUPT, "read");
}

static bool read_packed_floats(decoder *d, pb_istream_t *list)
{
    size_t len = list->bytes_left;
    if (len % 4 != 0)
        return fail(d, list, TFN_E_CORRUPT, "packed float list length is not a multiple of 4");
    size_t n = len / 4;
    if (n && !reserve_scratch(d, n, sizeof(float)))
        return false;
    const uint8_t *p = cursor(list);
    for (size_t i = 0; i < n; i++)
        ((float *)(void *)d->ex->scratch)[d->count + i] = tfn__bits_float(tfn__load_le32(p + 4 * i));
    d->count += n;
    return pb_read(list, NULL, len) || fail(d, list, TFN_E_CORRUPT, "read");
}

static bool read_bytes_value(decoder *d, pb_istream_t *list)
{
    pb_istream_t str;
    if (!pb_make_string_substream(list, &str))
        return fail(d, list, TFN_E_CORRUPT, "truncated bytes value");
    if (!reserve_scratch(d, 1, sizeof(tfn_bytes)))
        return false;
    tfn_bytes *out = (tfn_bytes *)(void *)d->ex->scratch + d->count;
    out->data = cursor(&str);
    out->len = str.bytes_left;
    d->count++;
    d->bytes_len += str.bytes_left;
    if (!pb_read(&str, NULL, str.bytes_left) || !pb_close_string_substream(list, &str))
        return fail(d, list, TFN_E_CORRUPT, "truncated bytes value");
    return true;
}

/* One BytesList / FloatList / Int64List message: packed and unpacked both accepted. */
static bool read_list(decoder *d, pb_istream_t *list, int kind)
{
    while (list->bytes_left) {
        pb_wire_type_t wt;
        uint32_t tag;
        bool eof;
        if (!pb_decode_tag(list, &wt, &tag, &eof))
            return fail(d, list, TFN_E_CORRUPT, "malformed tag in a value list");
        if (tag != tensorflow_Int64List_value_tag) {
            if (!skip_field(d, list, wt, tag, 0))
                return false;
            continue;
        }
        if (kind == TFN_KIND_BYTES && wt == PB_WT_STRING) {
            if (!read_bytes_value(d, list))
                return false;
        } else if (kind == TFN_KIND_INT64 && wt == PB_WT_VARINT) {
            uint64_t v;
            if (!pb_decode_varint(list, &v))
                return fail(d, list, TFN_E_CORRUPT, "malformed int64 value");
            if (!reserve_scratch(d, 1, sizeof(int64_t)))
                return false;
            ((int64_t *)(void *)d->ex->scratch)[d->count++] = (int64_t)v;
        } else if (kind == TFN_KIND_FLOAT && wt == PB_WT_32BIT) {
            uint32_t bits;
            if (!pb_decode_fixed32(list, &bits))
                return fail(d, list, TFN_E_CORRUPT, "truncated float value");
            if (!reserve_scratch(d, 1, sizeof(float)))
                return false;
            ((float *)(void *)d->ex->scratch)[d->count++] = tfn__bits_float(bits);
        } else if (kind != TFN_KIND_BYTES && wt == PB_WT_STRING) {
            pb_istream_t packed;
            if (!pb_make_string_substream(list, &packed))
                return fail(d, list, TFN_E_CORRUPT, "truncated packed list");
            bool ok = kind == TFN_KIND_INT64 ? read_packed_int64s(d, &packed)
                                             : read_packed_floats(d, &packed);
            if (!ok || !pb_close_string_substream(list, &packed))
                return ok ? fail(d, list, TFN_E_CORRUPT, "truncated packed list") : false;
        } else {
            /* protobuf treats a known field with a foreign wire type as unknown */
            if (!skip_field(d, list, wt, tag, 0))
                return false;
        }
    }
    return true;
}

/* One Feature message (may arrive in several pieces: protobuf merges them; a new
 * kind of the oneof replaces the old one, the same kind appends). */
static bool read_feature(decoder *d, pb_istream_t *feature)
{
    while (feature->bytes_left) {
        pb_wire_type_t wt;
        uint32_t tag;
        bool eof;
        if (!pb_decode_tag(feature, &wt, &tag, &eof))
            return fail(d, feature, TFN_E_CORRUPT, "malformed tag in a Feature");
        int kind = tag == tensorflow_Feature_bytes_list_tag   ? TFN_KIND_BYTES
                   : tag == tensorflow_Feature_float_list_tag ? TFN_KIND_FLOAT
                   : tag == tensorflow_Feature_int64_list_tag ? TFN_KIND_INT64
                                                              : TFN_KIND_NONE;
        if (kind == TFN_KIND_NONE || wt != PB_WT_STRING) {
            if (!skip_field(d, feature, wt, tag, 0))
                return false;
            continue;
        }
        if (kind != d->kind) {
            d->kind = kind;
            d->count = 0;
            d->bytes_len = 0;
        }
        pb_istream_t list;
        if (!pb_make_string_substream(feature, &list))
            return fail(d, feature, TFN_E_CORRUPT, "truncated value list");
        if (!read_list(d, &list, kind))
            return false;
        if (!pb_close_string_substream(feature, &list))
            return fail(d, feature, TFN_E_CORRUPT, "truncated value list");
    }
    return true;
}

static bool valid_utf8(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        uint32_t cp;
        if ((c & 0xe0) == 0xc0) {
            len = 2;
            cp = c & 0x1fu;
        } else if ((c & 0xf0) == 0xe0) {
            len = 3;
            cp = c & 0x0fu;
        } else if ((c & 0xf8) == 0xf0) {
            len = 4;
            cp = c & 0x07u;
        } else {
            return false;
        }
        if (n - i < len)
            return false;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
            cp = (cp << 6) | (s[i + k] & 0x3fu);
        }
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
            cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += len;
    }
    return true;
}

/* Moves the accumulated Feature into the example under `key`. */
static bool store_feature(decoder *d, const uint8_t *key, size_t key_len)
{
    tfn_example *ex = d->ex;
    size_t elem = d->kind == TFN_KIND_INT64   ? sizeof(int64_t)
                  : d->kind == TFN_KIND_FLOAT ? sizeof(float)
                  : d->kind == TFN_KIND_BYTES ? sizeof(tfn_bytes)
                                              : 1;
    size_t count = d->kind == TFN_KIND_NONE ? 0 : d->count;
    tfn__feat *f = tfn__example_put(ex, (const char *)key, key_len, d->kind, count, elem,
                                    (d->flags & TFN_DECODE_BORROW) != 0);
    if (!f) {
        d->rc = tfn__fail(d->err, TFN_E_NOMEM, "out of memory decoding feature '%.*s'",
                          (int)(key_len > 200 ? 200 : key_len), (const char *)key);
        return false;
    }
    if (count)
        memcpy(f->values, ex->scratch, count * elem);
    if (d->kind == TFN_KIND_BYTES && !(d->flags & TFN_DECODE_BORROW) && d->bytes_len) {
        uint8_t *blob = tfn__arena_alloc(&ex->arena, d->bytes_len);
        if (!blob) {
            f->count = 0;
            d->rc = tfn__fail(d->err, TFN_E_NOMEM, "out of memory copying bytes values");
            return false;
        }
        tfn_bytes *b = f->values;
        for (size_t i = 0; i < count; i++) {
            if (b[i].len)
                memcpy(blob, b[i].data, b[i].len);
            b[i].data = blob;
            blob += b[i].len;
        }
    }
    return true;
}

/* One map entry: key (default "") and value (default Feature()), in any order,
 * each possibly repeated (the last key wins; value pieces merge). */
static bool read_entry(decoder *d, pb_istream_t *entry)
{
    const uint8_t *key = (const uint8_t *)"";
    size_t key_len = 0;
    d->kind = TFN_KIND_NONE;
    d->count = 0;
    d->bytes_len = 0;
    while (entry->bytes_left) {
        pb_wire_type_t wt;
        uint32_t tag;
        bool eof;
        if (!pb_decode_tag(entry, &wt, &tag, &eof))
            return fail(d, entry, TFN_E_CORRUPT, "malformed tag in a feature map entry");
        pb_istream_t sub;
        if (wt == PB_WT_STRING && (tag == tensorflow_Features_FeatureEntry_key_tag ||
                                   tag == tensorflow_Features_FeatureEntry_value_tag)) {
            if (!pb_make_string_substream(entry, &sub))
                return fail(d, entry, TFN_E_CORRUPT, "truncated feature map entry");
            if (tag == tensorflow_Features_FeatureEntry_key_tag) {
                key = cursor(&sub);
                key_len = sub.bytes_left;
                if (!valid_utf8(key, key_len))
                    return fail(d, &sub, TFN_E_CORRUPT, "feature key is not valid UTF-8");
                if (!pb_read(&sub, NULL, sub.bytes_left))
                    return fail(d, &sub, TFN_E_CORRUPT, "truncated key");
            } else if (!read_feature(d, &sub)) {
                return false;
            }
            if (!pb_close_string_substream(entry, &sub))
                return fail(d, entry, TFN_E_CORRUPT, "truncated feature map entry");
        } else if (!skip_field(d, entry, wt, tag, 0)) {
            return false;
        }
    }
    return store_feature(d, key, key_len);
}

static bool read_features(decoder *d, pb_istream_t *features)
{
    d->ex->features_present = true;
    while (features->bytes_left) {
        pb_wire_type_t wt;
        uint32_t tag;
        bool eof;
        if (!pb_decode_tag(features, &wt, &tag, &eof))
            return fail(d, features, TFN_E_CORRUPT, "malformed tag in Features");
        if (tag != tensorflow_Features_feature_tag || wt != PB_WT_STRING) {
            if (!skip_field(d, features, wt, tag, 0))
                return false;
            continue;
        }
        pb_istream_t entry;
        if (!pb_make_string_substream(features, &entry))
            return fail(d, features, TFN_E_CORRUPT, "truncated feature map entry");
        if (!read_entry(d, &entry))
            return false;
        if (!pb_close_string_substream(features, &entry))
            return fail(d, features, TFN_E_CORRUPT, "truncated feature map entry");
    }
    return true;
}

int tfn_example_decode(tfn_example *ex, const void *src, size_t len, unsigned flags,
                       tfn_error *err)
{
    if (!ex)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_example is NULL");
    if (!src && len)
        return tfn__fail(err, TFN_E_INVALID_ARG, "src is NULL but len is %zu", len);
    tfn_example_clear(ex);
    if (len > TFN_MAX_MESSAGE_SIZE)
        return tfn__fail(err, TFN_E_LIMIT, "Example of %zu bytes exceeds protobuf's 2 GiB limit",
                         len);
    decoder d = {ex, src, flags, err, TFN_KIND_NONE, 0, 0, TFN_OK};
    pb_istream_t s = pb_istream_from_buffer(src ? src : (const void *)"", len);
    while (s.bytes_left) {
        pb_wire_type_t wt;
        uint32_t tag;
        bool eof;
        if (!pb_decode_tag(&s, &wt, &tag, &eof)) {
            fail(&d, &s, TFN_E_CORRUPT, "malformed tag in Example");
            break;
        }
        if (tag == tensorflow_Example_features_tag && wt == PB_WT_STRING) {
            pb_istream_t features;
            if (!pb_make_string_substream(&s, &features)) {
                fail(&d, &s, TFN_E_CORRUPT, "truncated Features");
                break;
            }
            if (!read_features(&d, &features))
                break;
            if (!pb_close_string_substream(&s, &features)) {
                fail(&d, &s, TFN_E_CORRUPT, "truncated Features");
                break;
            }
        } else if (!skip_field(&d, &s, wt, tag, 0)) {
            break;
        }
    }
    if (d.rc != TFN_OK) {
        tfn_example_clear(ex);
        return d.rc;
    }
    return TFN_OK;
}

/* sequence_parse.c - the feature lists of serialized SequenceExamples
 * (tfn_sequence_lists): per configured key, every step's values back to back with
 * example and step row splits, with the value-list rules of the Example parser and
 * TensorFlow's sequence-parsing error texts. */
#include "example_internal.h"
#include "parse_internal.h"

#include <stdio.h>

enum {
    FIELD_FEATURE_LISTS = 2, /* SequenceExample.feature_lists */
    FIELD_LIST_ENTRY = 1,    /* FeatureLists.feature_list (map entry) */
    FIELD_STEP = 1           /* FeatureList.feature */
};

typedef struct span {
    const uint8_t *p;
    size_t len;
} span;

/* Next field of a message in [*p, end): its number, wire type and, for
 * length-delimited fields, the payload. False when the bytes are malformed. */
static bool next_field(const uint8_t **p, const uint8_t *end, uint32_t *field, int *wire,
                       span *payload)
{
    uint64_t tag, v;
    const uint8_t *q = tfn__get_varint(*p, end, &tag);
    if (!q || tag >> 3 == 0 || tag >> 3 > UINT32_MAX)
        return false;
    *field = (uint32_t)(tag >> 3);
    *wire = (int)(tag & 7);
    switch (*wire) {
    case TFN_WT_VARINT:
        q = tfn__get_varint(q, end, &v);
        break;
    case TFN_WT_FIXED64:
        q = (size_t)(end - q) >= 8 ? q + 8 : NULL;
        break;
    case TFN_WT_FIXED32:
        q = (size_t)(end - q) >= 4 ? q + 4 : NULL;
        break;
    case TFN_WT_LEN:
        q = tfn__get_varint(q, end, &v);
        if (!q || v > (uint64_t)(end - q))
            return false;
        payload->p = q;
        payload->len = (size_t)v;
        q += v;
        break;
    default:
        return false;
    }
    if (!q)
        return false;
    *p = q;
    return true;
}

/* key and value of a map entry; false when malformed. */
static bool map_entry(span e, span *key, span *value)
{
    const uint8_t *p = e.p, *end = e.p + e.len;
    key->p = value->p = (const uint8_t *)"";
    key->len = value->len = 0;
    while (p < end) {
        uint32_t field;
        int wire;
        span s = {NULL, 0};
        if (!next_field(&p, end, &field, &wire, &s))
            return false;
        if (wire == TFN_WT_LEN && field == 1)
            *key = s;
        else if (wire == TFN_WT_LEN && field == 2)
            *value = s;
    }
    return true;
}

static int find_list(const tfn_list_config *lists, size_t k, span key)
{
    for (size_t j = 0; j < k; j++)
        if (lists[j].key_len == key.len &&
            (key.len == 0 || memcmp(lists[j].key, key.p, key.len) == 0))
            return (int)j;
    return -1;
}

static size_t elem_size(int dtype)
{
    return dtype == TFN_INT64 ? sizeof(int64_t) : dtype == TFN_FLOAT32 ? sizeof(float)
                                                                       : sizeof(tfn_bytes);
}

typedef struct ctx {
    const tfn_bytes *records;
    const tfn_bytes *names;
    const tfn_list_config *lists;
    tfn_error *err;
} ctx;

/* TF's "Index" here is the step within the list; err->record_index is the example. */
static int list_error(const ctx *c, size_t i, size_t j, size_t step, int code,
                      const char *what)
{
    const tfn_list_config *l = &c->lists[j];
    int klen = (int)(l->key_len > 300 ? 300 : l->key_len);
    const char *name = "<unknown>";
    int nlen = 9;
    if (c->names) {
        name = (const char *)c->names[i].data;
        nlen = (int)(c->names[i].len > 300 ? 300 : c->names[i].len);
    }
    return tfn__fail_at(c->err, code, 0, i, "Name: %.*s, Feature list: %.*s, Index: %zu.  %s",
                        nlen, name, klen, l->key, step, what);
}

static int not_a_sequence_example(const ctx *c, size_t i)
{
    const tfn_bytes *r = &c->records[i];
    int len = (int)(r->len > 400 ? 400 : r->len);
    const uint8_t *nul = len ? memchr(r->data, 0, (size_t)len) : NULL;
    if (nul)
        len = (int)(nul - r->data);
    return tfn__fail_at(c->err, TFN_E_CORRUPT, 0, i,
                        "Could not parse example input, value: '%.*s%s", len,
                        (const char *)r->data, nul ? "" : "'");
}

/* The common step: a Feature of the wanted kind holding one packed numeric run (or
 * its strings) that ends exactly where the Feature does. Returns the number of values,
 * decoded into dst when they all fit in `room` values (else dst may hold some of them,
 * unused), or SIZE_MAX when the step needs the general reader (any other layout, a
 * kind-less or mismatched Feature, malformed bytes), which then decides with the
 * Example parser's rules. One pass: counting and decoding go together. */
static size_t fast_step(span step, int want, void *dst, size_t room)
{
    const uint8_t *p = step.p, *end = step.p + step.len;
    uint8_t kind = want == TFN_INT64   ? TAG_FEATURE_INT64
                   : want == TFN_BYTES ? TAG_FEATURE_BYTES
                                       : TAG_FEATURE_FLOAT;
    uint64_t len, plen;
    if (p == end || *p != kind)
        return SIZE_MAX;
    p = tfn__get_varint(p + 1, end, &len);
    if (!p || len != (uint64_t)(end - p))
        return SIZE_MAX;
    if (p == end)
        return 0;
    if (want == TFN_BYTES) { /* strings, each "0a <len> <bytes>", filling the list */
        tfn_bytes *views = dst;
        size_t count = 0;
        if (!views)
            room = 0;
        while (p < end) {
            uint64_t n;
            const uint8_t *q = *p == TAG_LIST_PACKED ? tfn__get_varint(p + 1, end, &n) : NULL;
            if (!q || n > (uint64_t)(end - q))
                return SIZE_MAX;
            if (count < room) {
                views[count].data = q;
                views[count].len = (size_t)n;
            }
            count++;
            p = q + n;
        }
        return count;
    }
    if (*p != TAG_LIST_PACKED)
        return SIZE_MAX;
    p = tfn__get_varint(p + 1, end, &plen);
    if (!p || plen != (uint64_t)(end - p))
        return SIZE_MAX;
    if (want == TFN_FLOAT32) {
        if (plen % 4)
            return SIZE_MAX;
        size_t count = (size_t)plen / 4;
        if (dst && count <= room) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            if (count)
                memcpy(dst, p, (size_t)plen); /* little-endian floats, as on the wire */
#else
            float *f = dst;
            for (size_t i = 0; i < count; i++)
                f[i] = tfn__bits_float(tfn__load_le32(p + 4 * i));
#endif
        }
        return count;
    }
    if (end[-1] & 0x80) /* a run must end on a final byte */
        return SIZE_MAX;
    size_t count = 0;
    int64_t *out = dst;
    if (!out)
        room = 0;
    while (p < end) {
        uint64_t v;
        const uint8_t *q = tfn__get_varint(p, end, &v);
        if (!q)
            return SIZE_MAX;
        if (count < room)
            out[count] = (int64_t)v;
        count++;
        p = q;
    }
    return count;
}

/* One FeatureList of example i for list j: counts its steps and values and, where
 * the output has room (cap_steps / cap_values), writes them; *short_of is set when it
 * has not. */
static int read_list(const ctx *c, size_t i, size_t j, span list, tfn_list_output *o,
                     size_t cap_steps, size_t cap_values, bool *short_of)
{
    const uint8_t *p = list.p, *end = list.p + list.len;
    int want = c->lists[j].dtype;
    size_t es = elem_size(want), step_index = 0;
    for (; p < end; step_index++) {
        span step = {NULL, 0};
        if (p[0] == TFN_TAG(FIELD_STEP, TFN_WT_LEN) && end - p >= 2 && p[1] < 0x80 &&
            (size_t)(end - p) - 2 >= p[1]) { /* the usual step: a Feature under 128 bytes */
            step.p = p + 2;
            step.len = p[1];
            p += 2 + p[1];
        } else {
            uint32_t field;
            int wire;
            if (!next_field(&p, end, &field, &wire, &step))
                return list_error(c, i, j, step_index, TFN_E_CORRUPT,
                                  "Can't parse serialized FeatureList.");
            if (field != FIELD_STEP || wire != TFN_WT_LEN) {
                step_index--;
                continue;
            }
        }
        bool room = o->values_out && !*short_of && o->steps < cap_steps;
        size_t avail = room ? cap_values - o->values : 0;
        size_t count = fast_step(step, want,
                                 room ? (uint8_t *)o->values_out + o->values * es : NULL, avail);
        if (count != SIZE_MAX) {
            if (count > avail)
                room = false;
        } else {
            int dtype;
            tfn__slot slot;
            if (!tfn__read_feature(step.p, step.len, &dtype, &slot))
                return list_error(c, i, j, step_index, TFN_E_CORRUPT,
                                  "Can't parse serialized Example.");
            if (dtype < 0)
                return tfn__fail_at(c->err, TFN_E_CORRUPT, 0, i, "Unsupported datatype.");
            if (dtype != TFN_DTYPE_NONE && dtype != want) {
                char what[96];
                snprintf(what, sizeof what, "Data types don't match. Expected type: %s",
                         tfn__dtype_tf_name(want));
                return list_error(c, i, j, step_index, TFN_E_TYPE, what);
            }
            count = dtype == TFN_DTYPE_NONE ? 0 : slot.count;
            if (room && count <= cap_values - o->values)
                tfn__decode_slot(want, &slot, (uint8_t *)o->values_out + o->values * es, count);
            else
                room = false;
        }
        if (room)
            o->step_splits[o->steps + 1] = (int64_t)(o->values + count);
        else if (o->values_out)
            *short_of = true;
        o->steps++;
        o->values += count;
    }
    return TFN_OK;
}

int tfn_sequence_lists(const tfn_bytes *records, size_t n, const tfn_bytes *names,
                       const tfn_list_config *lists, size_t k, tfn_list_output *outs,
                       tfn_error *err)
{
    if ((!records && n) || (!lists && k) || (!outs && k))
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_sequence_lists: NULL argument");
    for (size_t j = 0; j < k; j++) {
        const tfn_list_config *l = &lists[j];
        if ((!l->key && l->key_len) ||
            (l->dtype != TFN_INT64 && l->dtype != TFN_FLOAT32 && l->dtype != TFN_BYTES))
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, j,
                                "feature list config %zu: bad key or dtype", j);
        span key = {(const uint8_t *)(l->key ? l->key : ""), l->key_len};
        if (find_list(lists, j, key) >= 0)
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, j, "Duplicate feature list key %.*s",
                                (int)(l->key_len > 300 ? 300 : l->key_len), l->key);
        if (outs[j].values_out && (!outs[j].example_splits || !outs[j].step_splits))
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, j,
                                "feature list %zu: splits buffers are NULL", j);
    }
    tfn__alloc a;
    tfn__alloc_init(&a, NULL);
    span local_last[16];
    size_t caps[2 * 16];
    span *last = local_last;
    size_t *cap = caps;
    if (k > 16) {
        last = tfn__malloc(&a, k * sizeof *last);
        cap = tfn__malloc(&a, 2 * k * sizeof *cap);
        if (!last || !cap) {
            tfn__free(&a, last);
            tfn__free(&a, cap);
            return tfn__fail(err, TFN_E_NOMEM, "out of memory reading feature lists");
        }
    }
    for (size_t j = 0; j < k; j++) {
        cap[2 * j] = outs[j].steps; /* the room of the buffers, when filling */
        cap[2 * j + 1] = outs[j].values;
        outs[j].steps = outs[j].values = 0;
        if (outs[j].values_out) {
            outs[j].example_splits[0] = 0;
            outs[j].step_splits[0] = 0;
        }
    }
    ctx c = {records, names, lists, err};
    int rc = TFN_OK;
    bool short_of[16] = {false}, *shorts = short_of;
    if (k > 16) {
        shorts = tfn__malloc(&a, k * sizeof *shorts);
        if (!shorts) {
            tfn__free(&a, last);
            tfn__free(&a, cap);
            return tfn__fail(err, TFN_E_NOMEM, "out of memory reading feature lists");
        }
        memset(shorts, 0, k * sizeof *shorts);
    }
    for (size_t i = 0; i < n && rc == TFN_OK; i++) {
        const tfn_bytes *r = &records[i];
        if (!r->data && r->len) {
            rc = tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i, "record %zu is NULL", i);
            break;
        }
        for (size_t j = 0; j < k; j++)
            last[j].p = NULL;
        const uint8_t *p = r->data, *end = r->data + r->len;
        while (p < end) {
            uint32_t field;
            int wire;
            span fl = {NULL, 0};
            if (!next_field(&p, end, &field, &wire, &fl)) {
                rc = not_a_sequence_example(&c, i);
                break;
            }
            if (field != FIELD_FEATURE_LISTS || wire != TFN_WT_LEN)
                continue;
            /* feature_lists may come more than once: they merge, later keys win */
            const uint8_t *q = fl.p, *qend = fl.p + fl.len;
            while (q < qend) {
                span e = {NULL, 0}, key, value;
                if (!next_field(&q, qend, &field, &wire, &e) ||
                    (field == FIELD_LIST_ENTRY && wire == TFN_WT_LEN &&
                     !map_entry(e, &key, &value))) {
                    rc = not_a_sequence_example(&c, i);
                    break;
                }
                if (field != FIELD_LIST_ENTRY || wire != TFN_WT_LEN)
                    continue;
                int j = find_list(lists, k, key);
                if (j >= 0)
                    last[j] = value;
            }
            if (rc)
                break;
        }
        for (size_t j = 0; j < k && rc == TFN_OK; j++) {
            if (outs[j].present)
                outs[j].present[i] = last[j].p != NULL;
            if (last[j].p)
                rc = read_list(&c, i, j, last[j], &outs[j], cap[2 * j], cap[2 * j + 1],
                               &shorts[j]);
            if (rc == TFN_OK && outs[j].values_out)
                outs[j].example_splits[i + 1] = (int64_t)outs[j].steps;
        }
    }
    for (size_t j = 0; j < k && rc == TFN_OK; j++)
        if (shorts[j])
            rc = tfn__fail_at(err, TFN_E_BUF_TOO_SMALL, 0, j,
                              "feature list %.*s: room for %zu steps and %zu values, %zu and "
                              "%zu needed",
                              (int)(lists[j].key_len > 300 ? 300 : lists[j].key_len),
                              lists[j].key, cap[2 * j], cap[2 * j + 1], outs[j].steps,
                              outs[j].values);
    if (k > 16) {
        tfn__free(&a, last);
        tfn__free(&a, cap);
        tfn__free(&a, shorts);
    }
    return rc;
}

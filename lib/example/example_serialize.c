/* example_serialize.c - tfn_example to bytes, identical to protobuf's
 * SerializeToString(deterministic=True). Sizes bottom-up once (int64 lists by encoding
 * them into a staging area), then one write pass. */
#include "example_internal.h"
#include "varint_internal.h"

#include <stdlib.h>

static int cmp_feat(const void *a, const void *b)
{
    const tfn__feat *fa = *(tfn__feat *const *)a;
    const tfn__feat *fb = *(tfn__feat *const *)b;
    return tfn__key_cmp(fa->key, fa->key_len, fb->key, fb->key_len);
}

static int sort_features(tfn_example *ex, tfn_error *err)
{
    if (!ex->sorted_dirty && ex->sorted)
        return TFN_OK;
    if (!tfn__grow(&ex->alloc, (void **)&ex->sorted, &ex->sorted_cap, ex->n ? ex->n : 1,
                   sizeof *ex->sorted))
        return tfn__fail(err, TFN_E_NOMEM, "out of memory sorting %zu feature keys", ex->n);
    for (size_t i = 0; i < ex->n; i++)
        ex->sorted[i] = &ex->feats[i];
    if (ex->n > 1)
        qsort(ex->sorted, ex->n, sizeof *ex->sorted, cmp_feat);
    ex->sorted_dirty = false;
    return TFN_OK;
}

static uint64_t payload_size(const tfn__feat *f)
{
    switch (f->kind) {
    case TFN_KIND_INT64:
        return tfn__int64s_payload(f->values, f->count);
    case TFN_KIND_FLOAT:
        return (uint64_t)f->count * 4;
    case TFN_KIND_BYTES: {
        const tfn_bytes *b = f->values;
        uint64_t size = 0;
        for (size_t i = 0; i < f->count; i++)
            size += tfn__len_field_size(b[i].len);
        return size;
    }
    default:
        return 0;
    }
}

/* Size of the Features message. With `cache`, remembers each feature's payload and
 * entry size for the write pass (the const size query passes false: no writes, so
 * concurrent readers of a shared example are safe). Payloads of int64 features are
 * read from the `staged` table when it is not NULL. */
static uint64_t features_size(tfn_example *ex, bool cache, const uint64_t *staged)
{
    uint64_t features = 0;
    for (size_t i = 0; i < ex->n; i++) {
        tfn__feat *f = &ex->feats[i];
        uint64_t payload =
            staged && f->kind == TFN_KIND_INT64 ? staged[2 * i] : payload_size(f);
        uint64_t entry = tfn__entry_size(f->key_len, tfn__feature_size(f->kind, payload));
        if (cache) {
            f->payload_size = payload;
            f->entry_size = entry;
        }
        features += tfn__len_field_size(entry);
    }
    return features;
}

size_t tfn_example_serialized_size(const tfn_example *ex)
{
    if (!ex || !ex->features_present)
        return 0;
    uint64_t total =
        tfn__len_field_size(features_size((tfn_example *)(uintptr_t)ex, false, NULL));
    return total > SIZE_MAX ? SIZE_MAX : (size_t)total;
}

/* Staging: every int64 feature is encoded once into ex->scratch (grown on first use,
 * then reused), so its length is known without a separate sizing pass over the
 * values; the write pass copies the encoded runs. Layout: per feature, its payload
 * size and the offset of its run; then the runs, 10 bytes per value apart. Returns
 * that table, or NULL when the runs would take more than STAGE_BUDGET or the scratch
 * cannot grow (then the sizing pass is used: staging only saves time). */
#define STAGE_BUDGET ((size_t)256 * 1024)

static const uint64_t *stage_int64s(tfn_example *ex, int simd)
{
    size_t head = ex->n * 2 * sizeof(uint64_t), runs = 0;
    for (size_t i = 0; i < ex->n; i++) {
        const tfn__feat *f = &ex->feats[i];
        if (f->kind == TFN_KIND_INT64) {
            if (f->count > (STAGE_BUDGET - runs) / 10)
                return NULL;
            runs += f->count * 10;
        }
    }
    size_t need;
    if (!tfn__add_size(head, runs, &need) ||
        (need > ex->scratch_cap &&
         !tfn__grow(&ex->alloc, (void **)&ex->scratch, &ex->scratch_cap, need, 1)))
        return NULL;
    uint64_t *table = (uint64_t *)(void *)ex->scratch;
    size_t at = head;
    for (size_t i = 0; i < ex->n; i++) {
        const tfn__feat *f = &ex->feats[i];
        if (f->kind != TFN_KIND_INT64)
            continue;
        uint8_t *run = ex->scratch + at;
        table[2 * i] = (uint64_t)(tfn__put_int64s_at(simd, run, f->values, f->count) - run);
        table[2 * i + 1] = at;
        at += f->count * 10;
    }
    return table;
}

static uint8_t *write_feature(uint8_t *p, const tfn__feat *f, const uint8_t *staged, int simd)
{
    p = tfn__put_entry_head(p, f->key, f->key_len, f->entry_size,
                            tfn__feature_size(f->kind, f->payload_size));
    p = tfn__put_feature_head(p, f->kind, f->payload_size);
    switch (f->kind) {
    case TFN_KIND_INT64:
        if (!staged)
            return tfn__put_int64s_at(simd, p, f->values, f->count);
        if (f->payload_size)
            memcpy(p, staged, (size_t)f->payload_size);
        return p + f->payload_size;
    case TFN_KIND_FLOAT:
        return tfn__put_floats(p, f->values, f->count);
    case TFN_KIND_BYTES: {
        const tfn_bytes *b = f->values;
        for (size_t i = 0; i < f->count; i++) {
            p = tfn__put_len_prefix(p, TAG_LIST_PACKED, b[i].len);
            if (b[i].len)
                memcpy(p, b[i].data, b[i].len);
            p += b[i].len;
        }
        return p;
    }
    default:
        return p;
    }
}

/* Sizes, checks the limit, and writes into dst when cap allows. */
static int serialize(tfn_example *ex, uint8_t *dst, size_t cap, size_t *written, tfn_error *err)
{
    int rc = sort_features(ex, err);
    if (rc)
        return rc;
    int simd = tfn__simd_level();
    const uint64_t *staged = stage_int64s(ex, simd);
    uint64_t features = features_size(ex, true, staged);
    uint64_t total = ex->features_present ? tfn__len_field_size(features) : 0;
    if (total > TFN_MAX_MESSAGE_SIZE)
        return tfn__fail(err, TFN_E_LIMIT,
                         "serialized Example would be %llu bytes; protobuf's limit is 2 GiB",
                         (unsigned long long)total);
    *written = (size_t)total;
    if (total > cap)
        return tfn__fail(err, TFN_E_BUF_TOO_SMALL,
                         "buffer of %zu bytes is too small for the %llu-byte Example", cap,
                         (unsigned long long)total);
    if (!ex->features_present)
        return TFN_OK;
    uint8_t *p = tfn__put_len_prefix(dst, TAG_EXAMPLE_FEATURES, features);
    for (size_t i = 0; i < ex->n; i++) {
        const tfn__feat *f = ex->sorted[i];
        size_t at = (size_t)(f - ex->feats);
        p = write_feature(p, f,
                          staged && f->kind == TFN_KIND_INT64 ? ex->scratch + staged[2 * at + 1]
                                                              : NULL,
                          simd);
    }
    return TFN_OK;
}

int tfn_example_serialize(tfn_example *ex, void *dst, size_t cap, size_t *written, tfn_error *err)
{
    size_t dummy;
    if (!written)
        written = &dummy;
    *written = 0;
    if (!ex)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_example is NULL");
    if (!dst && cap)
        return tfn__fail(err, TFN_E_INVALID_ARG, "dst is NULL but cap is %zu", cap);
    return serialize(ex, dst, cap, written, err);
}

int tfn_example_serialize_owned(tfn_example *ex, const uint8_t **out, size_t *len, tfn_error *err)
{
    if (!ex || !out || !len)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_example_serialize_owned: NULL argument");
    size_t need = 0;
    int rc = serialize(ex, ex->owned, ex->owned_cap, &need, err);
    if (rc == TFN_E_BUF_TOO_SMALL) {
        if (!tfn__grow(&ex->alloc, (void **)&ex->owned, &ex->owned_cap, need, 1))
            return tfn__fail(err, TFN_E_NOMEM, "out of memory for a %zu-byte Example", need);
        rc = serialize(ex, ex->owned, ex->owned_cap, &need, err);
    }
    if (rc)
        return rc;
    *out = ex->owned;
    *len = need;
    return TFN_OK;
}

int tfn_example_serialize_features(tfn_example *ex, const tfn_feature *features, size_t n,
                                   int mark_features, const uint8_t **out, size_t *len,
                                   tfn_error *err)
{
    if (!ex || (!features && n) || !out || !len)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "tfn_example_serialize_features: NULL argument");
    tfn_example_clear(ex);
    if (mark_features)
        ex->features_present = true;
    int rc = TFN_OK;
    for (size_t i = 0; i < n && rc == TFN_OK; i++) {
        const tfn_feature *f = &features[i];
        const void *values = f->kind == TFN_KIND_INT64   ? (const void *)f->int64s
                             : f->kind == TFN_KIND_FLOAT ? (const void *)f->floats
                                                         : (const void *)f->bytes;
        size_t count = f->kind == TFN_KIND_NONE ? 0 : f->count;
        if (f->kind != TFN_KIND_INT64 && f->kind != TFN_KIND_FLOAT &&
            f->kind != TFN_KIND_BYTES && f->kind != TFN_KIND_NONE) {
            rc = tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i, "feature %zu: unknown kind %d", i,
                              f->kind);
        } else if ((!f->key && f->key_len) || (!values && count)) {
            rc = tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i,
                              "feature %zu: NULL key or values", i);
        } else {
            /* the values are read where they are: no room is taken for them */
            tfn__feat *t = tfn__example_put(ex, f->key ? f->key : "", f->key_len, f->kind,
                                            0, 1, true);
            if (!t) {
                rc = tfn__fail(err, TFN_E_NOMEM, "out of memory serializing %zu features",
                               n);
            } else {
                t->count = count;
                t->values = (void *)(uintptr_t)values;
            }
        }
    }
    if (rc == TFN_OK)
        rc = tfn_example_serialize_owned(ex, out, len, err);
    tfn_example_clear(ex); /* drop the borrowed views */
    return rc;
}

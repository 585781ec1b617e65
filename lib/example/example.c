/* example.c - the tfn_example map: lifecycle, set / find / remove, views. */
#include "example_internal.h"

/* Below this many features a linear scan beats hashing. */
enum { INDEX_THRESHOLD = 16 };

tfn_example *tfn_example_new(const tfn_alloc *alc)
{
    tfn__alloc a;
    tfn__alloc_init(&a, alc);
    tfn_example *ex = tfn__malloc(&a, sizeof *ex);
    if (!ex)
        return NULL;
    memset(ex, 0, sizeof *ex);
    ex->alloc = a;
    tfn__arena_init(&ex->arena, &ex->alloc);
    return ex;
}

void tfn_example_free(tfn_example *ex)
{
    if (!ex)
        return;
    tfn__arena_free(&ex->arena);
    tfn__free(&ex->alloc, ex->feats);
    tfn__free(&ex->alloc, ex->index);
    tfn__free(&ex->alloc, ex->sorted);
    tfn__free(&ex->alloc, ex->owned);
    tfn__free(&ex->alloc, ex->scratch);
    tfn__alloc a = ex->alloc;
    tfn__free(&a, ex);
}

void tfn_example_clear(tfn_example *ex)
{
    if (!ex)
        return;
    tfn__arena_reset(&ex->arena);
    ex->n = 0;
    ex->features_present = false;
    ex->sorted_dirty = true;
    if (ex->index)
        memset(ex->index, 0, ex->index_cap * sizeof *ex->index);
}

static size_t find_index(const tfn_example *ex, const char *key, size_t key_len)
{
    if (!ex->index || ex->n < INDEX_THRESHOLD) {
        for (size_t i = 0; i < ex->n; i++) {
            const tfn__feat *f = &ex->feats[i];
            if (f->key_len == key_len && (key_len == 0 || memcmp(f->key, key, key_len) == 0))
                return i;
        }
        return SIZE_MAX;
    }
    size_t mask = ex->index_cap - 1;
    for (size_t s = tfn__key_hash(key, key_len) & mask;; s = (s + 1) & mask) {
        uint32_t slot = ex->index[s];
        if (slot == 0)
            return SIZE_MAX;
        const tfn__feat *f = &ex->feats[slot - 1];
        if (f->key_len == key_len && (key_len == 0 || memcmp(f->key, key, key_len) == 0))
            return slot - 1;
    }
}

static void index_insert(tfn_example *ex, size_t i)
{
    size_t mask = ex->index_cap - 1;
    size_t s = tfn__key_hash(ex->feats[i].key, ex->feats[i].key_len) & mask;
    while (ex->index[s] != 0)
        s = (s + 1) & mask;
    ex->index[s] = (uint32_t)(i + 1);
}

/* Keeps the hash index at most half full once the example is large enough; builds it
 * when the example first reaches INDEX_THRESHOLD features. */
static bool index_reserve(tfn_example *ex, size_t n)
{
    if (n >= UINT32_MAX)
        return false;
    if (n < INDEX_THRESHOLD)
        return true;
    bool rebuild = n == INDEX_THRESHOLD;
    if (n * 2 > ex->index_cap) {
        size_t cap = ex->index_cap ? ex->index_cap : 64;
        while (cap < n * 2)
            cap *= 2;
        size_t bytes;
        if (!tfn__mul_size(cap, sizeof *ex->index, &bytes))
            return false;
        uint32_t *idx = tfn__malloc(&ex->alloc, bytes);
        if (!idx)
            return false;
        tfn__free(&ex->alloc, ex->index);
        ex->index = idx;
        ex->index_cap = cap;
        rebuild = true;
    }
    if (rebuild) {
        memset(ex->index, 0, ex->index_cap * sizeof *ex->index);
        for (size_t i = 0; i < ex->n; i++)
            index_insert(ex, i);
    }
    return true;
}

tfn__feat *tfn__example_put(tfn_example *ex, const char *key, size_t key_len, int kind,
                            size_t count, size_t elem_size, bool key_is_stable)
{
    size_t bytes;
    if (!tfn__mul_size(count, elem_size, &bytes))
        return NULL;
    size_t i = find_index(ex, key, key_len);
    tfn__feat *f;
    if (i != SIZE_MAX) {
        f = &ex->feats[i];
    } else {
        if (!tfn__grow(&ex->alloc, (void **)&ex->feats, &ex->cap, ex->n + 1, sizeof *ex->feats))
            return NULL;
        if (!index_reserve(ex, ex->n + 1))
            return NULL;
        const char *k = key;
        if (!key_is_stable && key_len) {
            char *copy = tfn__arena_alloc(&ex->arena, key_len);
            if (!copy)
                return NULL;
            memcpy(copy, key, key_len);
            k = copy;
        }
        f = &ex->feats[ex->n];
        f->key = k;
        f->key_len = key_len;
        ex->n++;
        if (ex->index && ex->n >= INDEX_THRESHOLD)
            index_insert(ex, ex->n - 1);
        ex->sorted_dirty = true;
    }
    void *values = NULL;
    if (bytes) {
        values = tfn__arena_alloc(&ex->arena, bytes);
        if (!values) {
            /* keep the map consistent: the key stays, with an empty list */
            f->kind = kind;
            f->count = 0;
            f->values = NULL;
            return NULL;
        }
    }
    f->kind = kind;
    f->count = count;
    f->values = values;
    ex->features_present = true;
    return f;
}

static int check_set_args(const tfn_example *ex, const char *key, const void *values,
                          size_t n, tfn_error *err)
{
    if (!ex)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_example is NULL");
    if (!key)
        return tfn__fail(err, TFN_E_INVALID_ARG, "feature key is NULL");
    if (!values && n)
        return tfn__fail(err, TFN_E_INVALID_ARG, "values are NULL but count is %zu", n);
    return TFN_OK;
}

static int nomem(tfn_error *err, const char *key, size_t key_len)
{
    return tfn__fail(err, TFN_E_NOMEM, "out of memory setting feature '%.*s'",
                     (int)(key_len > 200 ? 200 : key_len), key);
}

int tfn_example_set_int64s(tfn_example *ex, const char *key, size_t key_len,
                           const int64_t *values, size_t n, tfn_error *err)
{
    int rc = check_set_args(ex, key, values, n, err);
    if (rc)
        return rc;
    tfn__feat *f = tfn__example_put(ex, key, key_len, TFN_KIND_INT64, n, sizeof(int64_t), false);
    if (!f)
        return nomem(err, key, key_len);
    if (n)
        memcpy(f->values, values, n * sizeof(int64_t));
    return TFN_OK;
}

int tfn_example_set_int32s(tfn_example *ex, const char *key, size_t key_len,
                           const int32_t *values, size_t n, tfn_error *err)
{
    int rc = check_set_args(ex, key, values, n, err);
    if (rc)
        return rc;
    tfn__feat *f = tfn__example_put(ex, key, key_len, TFN_KIND_INT64, n, sizeof(int64_t), false);
    if (!f)
        return nomem(err, key, key_len);
    int64_t *dst = f->values;
    for (size_t i = 0; i < n; i++)
        dst[i] = values[i];
    return TFN_OK;
}

int tfn_example_set_floats(tfn_example *ex, const char *key, size_t key_len,
                           const float *values, size_t n, tfn_error *err)
{
    int rc = check_set_args(ex, key, values, n, err);
    if (rc)
        return rc;
    tfn__feat *f = tfn__example_put(ex, key, key_len, TFN_KIND_FLOAT, n, sizeof(float), false);
    if (!f)
        return nomem(err, key, key_len);
    if (n)
        memcpy(f->values, values, n * sizeof(float));
    return TFN_OK;
}

int tfn_example_set_bytes(tfn_example *ex, const char *key, size_t key_len,
                          const tfn_bytes *values, size_t n, tfn_error *err)
{
    int rc = check_set_args(ex, key, values, n, err);
    if (rc)
        return rc;
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (!values[i].data && values[i].len)
            return tfn__fail(err, TFN_E_INVALID_ARG,
                             "feature '%.*s': bytes value %zu is NULL with length %zu",
                             (int)(key_len > 200 ? 200 : key_len), key, i, values[i].len);
        if (!tfn__add_size(total, values[i].len, &total))
            return tfn__fail(err, TFN_E_LIMIT, "feature '%.*s': bytes values too large",
                             (int)(key_len > 200 ? 200 : key_len), key);
    }
    tfn__feat *f = tfn__example_put(ex, key, key_len, TFN_KIND_BYTES, n, sizeof(tfn_bytes), false);
    if (!f)
        return nomem(err, key, key_len);
    uint8_t *blob = total ? tfn__arena_alloc(&ex->arena, total) : NULL;
    if (total && !blob) {
        f->count = 0;
        return nomem(err, key, key_len);
    }
    tfn_bytes *dst = f->values;
    for (size_t i = 0; i < n; i++) {
        dst[i].len = values[i].len;
        dst[i].data = blob;
        if (values[i].len) {
            memcpy(blob, values[i].data, values[i].len);
            blob += values[i].len;
        }
    }
    return TFN_OK;
}

int tfn_example_set_none(tfn_example *ex, const char *key, size_t key_len, tfn_error *err)
{
    int rc = check_set_args(ex, key, NULL, 0, err);
    if (rc)
        return rc;
    if (!tfn__example_put(ex, key, key_len, TFN_KIND_NONE, 0, 1, false))
        return nomem(err, key, key_len);
    return TFN_OK;
}

int tfn_example_remove(tfn_example *ex, const char *key, size_t key_len, tfn_error *err)
{
    if (!ex || !key)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_example_remove: NULL argument");
    size_t i = find_index(ex, key, key_len);
    if (i == SIZE_MAX)
        return tfn__fail(err, TFN_E_NOT_FOUND, "feature '%.*s' is not set",
                         (int)(key_len > 200 ? 200 : key_len), key);
    memmove(&ex->feats[i], &ex->feats[i + 1], (ex->n - i - 1) * sizeof *ex->feats);
    ex->n--;
    ex->sorted_dirty = true;
    if (ex->index) {
        memset(ex->index, 0, ex->index_cap * sizeof *ex->index);
        if (ex->n >= INDEX_THRESHOLD)
            for (size_t j = 0; j < ex->n; j++)
                index_insert(ex, j);
    }
    return TFN_OK;
}

void tfn_example_mark_features(tfn_example *ex)
{
    if (ex)
        ex->features_present = true;
}

size_t tfn_example_size(const tfn_example *ex)
{
    return ex ? ex->n : 0;
}

static void fill_view(const tfn__feat *f, tfn_feature *out)
{
    out->key = f->key;
    out->key_len = f->key_len;
    out->kind = f->kind;
    out->count = f->count;
    out->int64s = NULL;
    out->floats = NULL;
    out->bytes = NULL;
    if (f->count == 0)
        return;
    if (f->kind == TFN_KIND_INT64)
        out->int64s = f->values;
    else if (f->kind == TFN_KIND_FLOAT)
        out->floats = f->values;
    else if (f->kind == TFN_KIND_BYTES)
        out->bytes = f->values;
}

int tfn_example_at(const tfn_example *ex, size_t i, tfn_feature *out)
{
    if (!ex || !out || i >= ex->n)
        return TFN_E_INVALID_ARG;
    fill_view(&ex->feats[i], out);
    return TFN_OK;
}

int tfn_example_find(const tfn_example *ex, const char *key, size_t key_len, tfn_feature *out)
{
    if (!ex || !key || !out)
        return TFN_E_INVALID_ARG;
    size_t i = find_index(ex, key, key_len);
    if (i == SIZE_MAX)
        return TFN_E_NOT_FOUND;
    fill_view(&ex->feats[i], out);
    return TFN_OK;
}

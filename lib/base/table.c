/*
 * table.c - immutable hash tables from string or int64 keys to rows, the core of
 * tf.lookup.StaticHashTable and StaticVocabularyTable (see tfnano.h).
 *
 * Open addressing with linear probing in a power-of-two array of slots, at most half
 * full. A slot is two words:
 *   - string keys: the key's Fingerprint64 and 1 + the index of its entry (0: empty);
 *     the entry holds the row and where the key's bytes lie in the table's copy;
 *   - int64 keys: the key itself and 1 + its row (0: empty). The probe starts at a
 *     bijective mix of the key (MurmurHash3's 64-bit finalizer): distinct keys never
 *     share a hash, so only the key is compared.
 * Built once; lookups only read.
 */
#include "tfn_internal.h"

#include <inttypes.h>

typedef struct slot {
    uint64_t word; /* Fingerprint64 of a string key, or an int64 key's bits */
    uint64_t ref;  /* 0: empty; else 1 + entry index (strings) or 1 + row (int64) */
} slot;

enum { KIND_STRING = 1, KIND_INT64 = 2 };

struct tfn_table {
    tfn__alloc alloc;
    int kind;
    size_t count; /* distinct keys */
    size_t mask;  /* slots - 1 */
    slot *slots;
    /* string keys only: per distinct key, its row and its bytes in `bytes` */
    int64_t *rows;
    size_t *starts; /* count + 1 offsets into bytes */
    uint8_t *bytes;
};

static inline uint64_t mix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

static inline uint64_t key_bits(int64_t k)
{
    uint64_t u;
    memcpy(&u, &k, sizeof u);
    return u;
}

/* An unsigned sum as TensorFlow's int64 addition gives it (two's complement wrap),
 * without an implementation-defined conversion. */
static inline int64_t wrap_i64(uint64_t u)
{
    if (u <= (uint64_t)INT64_MAX)
        return (int64_t)u;
    return -(int64_t)(UINT64_MAX - u) - 1;
}

static const uint8_t *view_data(const tfn_bytes *b)
{
    return b->data ? b->data : (const uint8_t *)"";
}

static int check_views(const tfn_bytes *keys, size_t n, const char *fn, tfn_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (keys[i].data == NULL && keys[i].len > 0)
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i,
                                "%s: keys[%zu] is NULL with length %zu", fn, i, keys[i].len);
    return TFN_OK;
}

/* The slots for n keys: the smallest power of two >= 2n, at least 16. */
static int alloc_slots(tfn_table *t, size_t n, tfn_error *err)
{
    size_t cap = 16;
    while (cap / 2 < n) {
        if (cap > SIZE_MAX / 2 / sizeof(slot))
            return tfn__fail(err, TFN_E_LIMIT, "tfn_table: %zu keys are too many", n);
        cap *= 2;
    }
    t->slots = tfn__malloc(&t->alloc, cap * sizeof(slot));
    if (!t->slots)
        return tfn__fail(err, TFN_E_NOMEM, "tfn_table: out of memory for %zu slots", cap);
    memset(t->slots, 0, cap * sizeof(slot));
    t->mask = cap - 1;
    return TFN_OK;
}

static tfn_table *table_alloc(const tfn_alloc *alloc, int kind)
{
    tfn__alloc a;
    tfn__alloc_init(&a, alloc);
    tfn_table *t = tfn__malloc(&a, sizeof *t);
    if (!t)
        return NULL;
    memset(t, 0, sizeof *t);
    t->alloc = a;
    t->kind = kind;
    return t;
}

void tfn_table_free(tfn_table *t)
{
    if (!t)
        return;
    tfn__alloc a = t->alloc;
    tfn__free(&a, t->slots);
    tfn__free(&a, t->rows);
    tfn__free(&a, t->starts);
    tfn__free(&a, t->bytes);
    tfn__free(&a, t);
}

size_t tfn_table_size(const tfn_table *t)
{
    return t ? t->count : 0;
}

/* ---------------------------------------------------------------- string keys */

/* The entry of the key (s, len) with hash h, or -1; *at = the slot where it is or
 * would go. */
static inline ptrdiff_t find_string(const tfn_table *t, const uint8_t *s, size_t len,
                                    uint64_t h, size_t *at)
{
    for (size_t i = (size_t)h & t->mask;; i = (i + 1) & t->mask) {
        const slot *sl = &t->slots[i];
        if (sl->ref == 0) {
            *at = i;
            return -1;
        }
        if (sl->word == h) {
            size_t e = (size_t)(sl->ref - 1);
            size_t start = t->starts[e], klen = t->starts[e + 1] - start;
            if (klen == len && (len == 0 || memcmp(t->bytes + start, s, len) == 0)) {
                *at = i;
                return (ptrdiff_t)e;
            }
        }
    }
}

int tfn_table_new_strings(const tfn_bytes *keys, size_t n, int64_t *first,
                          const tfn_alloc *alloc, tfn_table **out, tfn_error *err)
{
    if (out)
        *out = NULL;
    if (!out || (n > 0 && !keys))
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_table_new_strings: NULL keys or out");
    int rc = check_views(keys, n, "tfn_table_new_strings", err);
    if (rc != TFN_OK)
        return rc;
    if (n > (size_t)INT64_MAX - 1)
        return tfn__fail(err, TFN_E_LIMIT, "tfn_table_new_strings: %zu keys are too many", n);
    size_t total = 0, starts_size = 0, rows_size = 0;
    for (size_t i = 0; i < n; i++)
        if (!tfn__add_size(total, keys[i].len, &total))
            return tfn__fail(err, TFN_E_LIMIT, "tfn_table_new_strings: the keys are too long");
    if (!tfn__mul_size(n + 1, sizeof(size_t), &starts_size) ||
        !tfn__mul_size(n ? n : 1, sizeof(int64_t), &rows_size))
        return tfn__fail(err, TFN_E_LIMIT, "tfn_table_new_strings: %zu keys are too many", n);
    tfn_table *t = table_alloc(alloc, KIND_STRING);
    if (!t)
        return tfn__fail(err, TFN_E_NOMEM, "tfn_table_new_strings: out of memory");
    rc = alloc_slots(t, n, err);
    if (rc != TFN_OK) {
        tfn_table_free(t);
        return rc;
    }
    t->rows = tfn__malloc(&t->alloc, rows_size);
    t->starts = tfn__malloc(&t->alloc, starts_size);
    t->bytes = tfn__malloc(&t->alloc, total ? total : 1);
    if (!t->rows || !t->starts || !t->bytes) {
        tfn_table_free(t);
        return tfn__fail(err, TFN_E_NOMEM, "tfn_table_new_strings: out of memory for %zu "
                         "keys of %zu bytes", n, total);
    }
    t->starts[0] = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *s = view_data(&keys[i]);
        size_t len = keys[i].len, at;
        uint64_t h = tfn_fingerprint64(s, len);
        ptrdiff_t e = find_string(t, s, len, h, &at);
        if (e < 0) {
            e = (ptrdiff_t)t->count++;
            size_t start = t->starts[e];
            if (len)
                memcpy(t->bytes + start, s, len);
            t->starts[e + 1] = start + len;
            t->rows[e] = (int64_t)i;
            t->slots[at].word = h;
            t->slots[at].ref = (uint64_t)e + 1;
        }
        if (first)
            first[i] = t->rows[e];
    }
    *out = t;
    return TFN_OK;
}

static int check_find(const tfn_table *t, int kind, const void *keys, size_t n,
                      const void *dst, const char *fn, tfn_error *err)
{
    if (!t || (n > 0 && (!keys || !dst)))
        return tfn__fail(err, TFN_E_INVALID_ARG, "%s: NULL table or arrays", fn);
    if (t->kind != kind)
        return tfn__fail(err, TFN_E_INVALID_ARG, "%s: the table's keys are %s", fn,
                         t->kind == KIND_STRING ? "strings" : "int64");
    return TFN_OK;
}

/* Lookups go by blocks of keys: first every key's hash, its slot asked for from
 * memory, then the probes. A table larger than the caches then costs overlapping
 * misses rather than one after another. */
enum { BLOCK = 256 };

static inline void prefetch_slot(const tfn_table *t, uint64_t h)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(&t->slots[(size_t)h & t->mask]);
#else
    (void)t;
    (void)h;
#endif
}

/* hashes[i] = Fingerprint64 of keys[i], entries[i] = its entry or -1 (n <= BLOCK). */
static void string_block(const tfn_table *t, const tfn_bytes *keys, size_t n,
                         uint64_t *hashes, ptrdiff_t *entries)
{
    for (size_t i = 0; i < n; i++) {
        hashes[i] = tfn_fingerprint64(view_data(&keys[i]), keys[i].len);
        prefetch_slot(t, hashes[i]);
    }
    for (size_t i = 0; i < n; i++) {
        size_t at;
        entries[i] = find_string(t, view_data(&keys[i]), keys[i].len, hashes[i], &at);
    }
}

int tfn_table_find_strings(const tfn_table *t, const tfn_bytes *keys, size_t n,
                           int64_t missing, int64_t *rows, tfn_error *err)
{
    int rc = check_find(t, KIND_STRING, keys, n, rows, "tfn_table_find_strings", err);
    if (rc == TFN_OK)
        rc = check_views(keys, n, "tfn_table_find_strings", err);
    if (rc != TFN_OK)
        return rc;
    uint64_t hashes[BLOCK];
    ptrdiff_t entries[BLOCK];
    for (size_t from = 0; from < n; from += BLOCK) {
        size_t m = n - from < BLOCK ? n - from : BLOCK;
        string_block(t, keys + from, m, hashes, entries);
        for (size_t i = 0; i < m; i++)
            rows[from + i] = entries[i] < 0 ? missing : t->rows[entries[i]];
    }
    return TFN_OK;
}

/* ---------------------------------------------------------------- int64 keys */

/* The row of key k, or -1; *at = the slot where it is or would go. */
static inline int64_t find_int64(const tfn_table *t, uint64_t k, uint64_t h, size_t *at)
{
    for (size_t i = (size_t)h & t->mask;; i = (i + 1) & t->mask) {
        const slot *sl = &t->slots[i];
        if (sl->ref == 0) {
            *at = i;
            return -1;
        }
        if (sl->word == k) {
            *at = i;
            return (int64_t)(sl->ref - 1);
        }
    }
}

int tfn_table_new_int64(const int64_t *keys, size_t n, int64_t *first, const tfn_alloc *alloc,
                        tfn_table **out, tfn_error *err)
{
    if (out)
        *out = NULL;
    if (!out || (n > 0 && !keys))
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_table_new_int64: NULL keys or out");
    if (n > (size_t)INT64_MAX - 1)
        return tfn__fail(err, TFN_E_LIMIT, "tfn_table_new_int64: %zu keys are too many", n);
    tfn_table *t = table_alloc(alloc, KIND_INT64);
    if (!t)
        return tfn__fail(err, TFN_E_NOMEM, "tfn_table_new_int64: out of memory");
    int rc = alloc_slots(t, n, err);
    if (rc != TFN_OK) {
        tfn_table_free(t);
        return rc;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t k = key_bits(keys[i]);
        size_t at;
        int64_t row = find_int64(t, k, mix64(k), &at);
        if (row < 0) {
            row = (int64_t)i;
            t->slots[at].word = k;
            t->slots[at].ref = (uint64_t)i + 1;
            t->count++;
        }
        if (first)
            first[i] = row;
    }
    *out = t;
    return TFN_OK;
}

/* rows[i] = the row of keys[i] or -1 (n <= BLOCK). */
static void int64_block(const tfn_table *t, const int64_t *keys, size_t n, int64_t *rows)
{
    uint64_t hashes[BLOCK];
    for (size_t i = 0; i < n; i++) {
        hashes[i] = mix64(key_bits(keys[i]));
        prefetch_slot(t, hashes[i]);
    }
    for (size_t i = 0; i < n; i++) {
        size_t at;
        rows[i] = find_int64(t, key_bits(keys[i]), hashes[i], &at);
    }
}

int tfn_table_find_int64(const tfn_table *t, const int64_t *keys, size_t n, int64_t missing,
                         int64_t *rows, tfn_error *err)
{
    int rc = check_find(t, KIND_INT64, keys, n, rows, "tfn_table_find_int64", err);
    if (rc != TFN_OK)
        return rc;
    for (size_t from = 0; from < n; from += BLOCK) {
        size_t m = n - from < BLOCK ? n - from : BLOCK;
        int64_block(t, keys + from, m, rows + from);
        for (size_t i = from; i < from + m; i++)
            rows[i] = rows[i] < 0 ? missing : rows[i];
    }
    return TFN_OK;
}

/* ---------------------------------------------------------------- vocabularies */

/* The decimal text of v (as tf.as_string / "%lld" writes it) at the end of buf[21];
 * returns where it starts. */
static const uint8_t *decimal(int64_t v, uint8_t buf[21], size_t *len)
{
    uint64_t u = v < 0 ? (uint64_t)0 - key_bits(v) : (uint64_t)v;
    uint8_t *p = buf + 21;
    do {
        *--p = (uint8_t)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    *len = (size_t)(buf + 21 - p);
    return p;
}

static int check_vocab(const tfn_table *t, int kind, const int64_t *values, const void *keys,
                       size_t n, uint64_t oov_buckets, const int64_t *ids, const char *fn,
                       tfn_error *err)
{
    if (n > 0 && (!keys || !ids))
        return tfn__fail(err, TFN_E_INVALID_ARG, "%s: NULL keys or ids", fn);
    if (oov_buckets == 0)
        return tfn__fail(err, TFN_E_INVALID_ARG, "%s: oov_buckets must be > 0", fn);
    if (t && t->kind != kind)
        return tfn__fail(err, TFN_E_INVALID_ARG, "%s: the table's keys are %s", fn,
                         t->kind == KIND_STRING ? "strings" : "int64");
    if (t && t->count > 0 && !values)
        return tfn__fail(err, TFN_E_INVALID_ARG, "%s: NULL values", fn);
    if (!t && kind != KIND_STRING)
        return tfn__fail(err, TFN_E_INVALID_ARG, "%s: NULL table", fn);
    return TFN_OK;
}

int tfn_table_vocab_strings(const tfn_table *t, const int64_t *values, const tfn_bytes *keys,
                            size_t n, uint64_t oov_buckets, int64_t *ids, tfn_error *err)
{
    int rc = check_vocab(t, KIND_STRING, values, keys, n, oov_buckets, ids,
                         "tfn_table_vocab_strings", err);
    if (rc == TFN_OK)
        rc = check_views(keys, n, "tfn_table_vocab_strings", err);
    if (rc != TFN_OK)
        return rc;
    if (!t) {
        for (size_t i = 0; i < n; i++)
            ids[i] = wrap_i64(tfn_fingerprint64(view_data(&keys[i]), keys[i].len) % oov_buckets);
        return TFN_OK;
    }
    uint64_t base = (uint64_t)t->count, hashes[BLOCK];
    ptrdiff_t entries[BLOCK];
    for (size_t from = 0; from < n; from += BLOCK) {
        size_t m = n - from < BLOCK ? n - from : BLOCK;
        string_block(t, keys + from, m, hashes, entries);
        for (size_t i = 0; i < m; i++) {
            int64_t id = entries[i] < 0 ? -1 : values[t->rows[entries[i]]];
            /* the lookup's hash is the key's Fingerprint64: also its OOV bucket's */
            ids[from + i] = id != -1 ? id : wrap_i64(base + hashes[i] % oov_buckets);
        }
    }
    return TFN_OK;
}

int tfn_table_vocab_int64(const tfn_table *t, const int64_t *values, const int64_t *keys,
                          size_t n, uint64_t oov_buckets, int64_t *ids, tfn_error *err)
{
    int rc = check_vocab(t, KIND_INT64, values, keys, n, oov_buckets, ids,
                         "tfn_table_vocab_int64", err);
    if (rc != TFN_OK)
        return rc;
    uint64_t base = (uint64_t)t->count;
    for (size_t from = 0; from < n; from += BLOCK) {
        size_t m = n - from < BLOCK ? n - from : BLOCK;
        int64_block(t, keys + from, m, ids + from);
        for (size_t i = from; i < from + m; i++) {
            int64_t id = ids[i] < 0 ? -1 : values[ids[i]];
            if (id == -1) {
                uint8_t buf[21];
                size_t len;
                const uint8_t *text = decimal(keys[i], buf, &len);
                id = wrap_i64(base + tfn_fingerprint64(text, len) % oov_buckets);
            }
            ids[i] = id;
        }
    }
    return TFN_OK;
}

/*
 * table.c - immutable hash tables from string or int64 keys to rows, the core of
 * tf.lookup.StaticHashTable and StaticVocabularyTable (see tfnano.h).
 *
 * Open addressing with linear probing in a power-of-two array of slots, at most a
 * quarter full (half for big tables), so that a lookup mostly touches one slot:
 *   - string keys: 32-byte slots holding the key's Fingerprint64, 1 + its row (0:
 *     empty), its length and, for keys of up to 12 bytes, the key itself; a longer
 *     key keeps its first 4 bytes there and the rest in the table's copy of the keys.
 *     The probe starts at the hash's low bits;
 *   - int64 keys: 16-byte slots holding the key and 1 + its row. The probe starts at
 *     the top bits of the key, its high half folded into its low half, times 2^64 /
 *     the golden ratio (Fibonacci hashing). Both steps are bijections, so distinct
 *     keys never share a hash: only the key is compared.
 * Built once; lookups only read.
 */
#include "tfn_internal.h"

#include <inttypes.h>

enum { INLINE = 12 }; /* key bytes a string slot holds */

typedef struct sslot {
    uint64_t hash;          /* Fingerprint64 of the key */
    uint64_t ref;           /* 0: empty; else 1 + row */
    uint32_t len;           /* the key's length */
    uint8_t head[INLINE];   /* len <= INLINE: the key; else its first 4 bytes, then the
                               offset of the whole key in the table's bytes (8 bytes) */
} sslot;

typedef struct islot {
    uint64_t key; /* the key's bits */
    uint64_t ref; /* 0: empty; else 1 + row */
} islot;

enum { KIND_STRING = 1, KIND_INT64 = 2 };

struct tfn_table {
    tfn__alloc alloc;
    int kind;
    unsigned shift; /* 64 - log2(slots): int64 keys' probe start is the hash >> shift */
    size_t count;   /* distinct keys */
    size_t mask;    /* slots - 1 */
    sslot *sslots;  /* string keys */
    islot *islots;  /* int64 keys */
    uint8_t *bytes; /* string keys longer than INLINE, end to end */
};

static inline uint64_t key_bits(int64_t k)
{
    uint64_t u;
    memcpy(&u, &k, sizeof u);
    return u;
}

/* Where an int64 key's probe starts (before the shift). */
static inline uint64_t int_hash(uint64_t k)
{
    return (k ^ (k >> 32)) * 0x9e3779b97f4a7c15ull;
}

/* An unsigned sum as TensorFlow's int64 addition gives it (two's complement wrap),
 * without an implementation-defined conversion. */
static inline int64_t wrap_i64(uint64_t u)
{
    if (u <= (uint64_t)INT64_MAX)
        return (int64_t)u;
    return -(int64_t)(UINT64_MAX - u) - 1;
}

static inline const uint8_t *view_data(const tfn_bytes *b)
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

/* Tables whose slots take at most this many bytes are kept at most a quarter full
 * (fewer and shorter probes: string lookups of a 30,000-key vocabulary 2.7 -> 2.0 ms
 * per 200,000 keys); bigger ones at most half full, the memory TensorFlow's tables
 * take. */
enum { ROOMY_BYTES = 16 << 20 };

/* The slots for n keys: the smallest power of two >= 4n (>= 2n when that is more than
 * ROOMY_BYTES), at least 16. */
static int alloc_slots(tfn_table *t, size_t n, size_t slot_size, void **slots, tfn_error *err)
{
    size_t cap = 16;
    unsigned log2 = 4;
    while (cap / 2 < n || (cap / 4 < n && cap <= ROOMY_BYTES / 2 / slot_size)) {
        if (cap > SIZE_MAX / 2 / slot_size)
            return tfn__fail(err, TFN_E_LIMIT, "tfn_table: %zu keys are too many", n);
        cap *= 2;
        log2++;
    }
    *slots = tfn__malloc(&t->alloc, cap * slot_size);
    if (!*slots)
        return tfn__fail(err, TFN_E_NOMEM, "tfn_table: out of memory for %zu slots", cap);
    memset(*slots, 0, cap * slot_size);
    t->mask = cap - 1;
    t->shift = 64u - log2;
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
    tfn__free(&a, t->sslots);
    tfn__free(&a, t->islots);
    tfn__free(&a, t->bytes);
    tfn__free(&a, t);
}

size_t tfn_table_size(const tfn_table *t)
{
    return t ? t->count : 0;
}

/* Lookups go by blocks of keys: first every key's hash, its slot asked for from
 * memory, then the probes. A table larger than the caches then costs overlapping
 * misses rather than one after another. */
enum { BLOCK = 64 };

static inline void prefetch(const void *p)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p);
#else
    (void)p;
#endif
}

/* ---------------------------------------------------------------- string keys */

/* a[0, len) == b[0, len) for len <= INLINE, by a few overlapping loads (no call). */
static inline int same_short(const uint8_t *a, const uint8_t *b, size_t len)
{
    if (len >= 8)
        return tfn__load_le64(a) == tfn__load_le64(b) &&
               tfn__load_le32(a + len - 4) == tfn__load_le32(b + len - 4);
    if (len >= 4)
        return tfn__load_le32(a) == tfn__load_le32(b) &&
               tfn__load_le32(a + len - 4) == tfn__load_le32(b + len - 4);
    if (len > 0)
        return a[0] == b[0] && a[len / 2] == b[len / 2] && a[len - 1] == b[len - 1];
    return 1;
}

static inline int slot_holds(const tfn_table *t, const sslot *sl, uint64_t h,
                             const uint8_t *s, size_t len)
{
    if (sl->hash != h || (size_t)sl->len != len)
        return 0;
    if (len <= INLINE)
        return same_short(sl->head, s, len);
    uint64_t off;
    memcpy(&off, sl->head + 4, sizeof off);
    return memcmp(sl->head, s, 4) == 0 && memcmp(t->bytes + off, s, len) == 0;
}

/* The slot holding the key (s, len) with hash h, or the empty one where it would go. */
static inline size_t find_string(const tfn_table *t, const uint8_t *s, size_t len, uint64_t h)
{
    for (size_t i = (size_t)h & t->mask;; i = (i + 1) & t->mask) {
        const sslot *sl = &t->sslots[i];
        if (sl->ref == 0 || slot_holds(t, sl, h, s, len))
            return i;
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
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (keys[i].len > UINT32_MAX)
            return tfn__fail_at(err, TFN_E_LIMIT, 0, i, "tfn_table_new_strings: keys[%zu] "
                                "is %zu bytes long (4 GiB at most)", i, keys[i].len);
        if (keys[i].len > INLINE && !tfn__add_size(total, keys[i].len, &total))
            return tfn__fail(err, TFN_E_LIMIT, "tfn_table_new_strings: the keys are too long");
    }
    tfn_table *t = table_alloc(alloc, KIND_STRING);
    if (!t)
        return tfn__fail(err, TFN_E_NOMEM, "tfn_table_new_strings: out of memory");
    void *slots = NULL;
    rc = alloc_slots(t, n, sizeof(sslot), &slots, err);
    t->sslots = slots;
    if (rc == TFN_OK && total && !(t->bytes = tfn__malloc(&t->alloc, total)))
        rc = tfn__fail(err, TFN_E_NOMEM, "tfn_table_new_strings: out of memory for %zu "
                       "bytes of keys", total);
    if (rc != TFN_OK) {
        tfn_table_free(t);
        return rc;
    }
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *s = view_data(&keys[i]);
        size_t len = keys[i].len;
        uint64_t h = tfn_fingerprint64(s, len);
        sslot *sl = &t->sslots[find_string(t, s, len, h)];
        if (sl->ref == 0) {
            sl->hash = h;
            sl->ref = (uint64_t)i + 1;
            sl->len = (uint32_t)len;
            if (len <= INLINE) {
                if (len)
                    memcpy(sl->head, s, len);
            } else {
                uint64_t off = (uint64_t)used;
                memcpy(sl->head, s, 4);
                memcpy(sl->head + 4, &off, sizeof off);
                memcpy(t->bytes + used, s, len);
                used += len;
            }
            t->count++;
        }
        if (first)
            first[i] = (int64_t)(sl->ref - 1);
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

/* hashes[i] = Fingerprint64 of keys[i], rows[i] = its row or -1 (n <= BLOCK). */
static void string_block(const tfn_table *t, const tfn_bytes *keys, size_t n,
                         uint64_t *hashes, int64_t *rows)
{
    for (size_t i = 0; i < n; i++) {
        hashes[i] = tfn_fingerprint64(view_data(&keys[i]), keys[i].len);
        prefetch(&t->sslots[(size_t)hashes[i] & t->mask]);
    }
    for (size_t i = 0; i < n; i++)
        rows[i] = (int64_t)t->sslots[find_string(t, view_data(&keys[i]), keys[i].len,
                                                 hashes[i])].ref - 1;
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
    for (size_t from = 0; from < n; from += BLOCK) {
        size_t m = n - from < BLOCK ? n - from : BLOCK;
        string_block(t, keys + from, m, hashes, rows + from);
        for (size_t i = from; i < from + m; i++)
            rows[i] = rows[i] < 0 ? missing : rows[i];
    }
    return TFN_OK;
}

/* ---------------------------------------------------------------- int64 keys */

/* The slot holding key k, or the empty one where it would go. */
static inline size_t find_int64(const tfn_table *t, uint64_t k, uint64_t h)
{
    for (size_t i = (size_t)(h >> t->shift);; i = (i + 1) & t->mask) {
        const islot *sl = &t->islots[i];
        if (sl->ref == 0 || sl->key == k)
            return i;
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
    void *slots = NULL;
    int rc = alloc_slots(t, n, sizeof(islot), &slots, err);
    t->islots = slots;
    if (rc != TFN_OK) {
        tfn_table_free(t);
        return rc;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t k = key_bits(keys[i]);
        islot *sl = &t->islots[find_int64(t, k, int_hash(k))];
        if (sl->ref == 0) {
            sl->key = k;
            sl->ref = (uint64_t)i + 1;
            t->count++;
        }
        if (first)
            first[i] = (int64_t)(sl->ref - 1);
    }
    *out = t;
    return TFN_OK;
}

/* rows[i] = the row of keys[i] or -1 (n <= BLOCK). */
static void int64_block(const tfn_table *t, const int64_t *keys, size_t n, int64_t *rows)
{
    uint64_t hashes[BLOCK];
    for (size_t i = 0; i < n; i++) {
        hashes[i] = int_hash(key_bits(keys[i]));
        prefetch(&t->islots[(size_t)(hashes[i] >> t->shift)]);
    }
    for (size_t i = 0; i < n; i++)
        rows[i] = (int64_t)t->islots[find_int64(t, key_bits(keys[i]), hashes[i])].ref - 1;
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
    for (size_t from = 0; from < n; from += BLOCK) {
        size_t m = n - from < BLOCK ? n - from : BLOCK;
        string_block(t, keys + from, m, hashes, ids + from);
        for (size_t i = 0; i < m; i++) {
            int64_t row = ids[from + i], id = row < 0 ? -1 : values[row];
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

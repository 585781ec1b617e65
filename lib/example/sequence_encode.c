/* sequence_encode.c - N SequenceExamples from whole columns in one call, byte-identical
 * to protobuf's deterministic serialization of each message.
 *
 * SequenceExample = context (field 1, a Features message: the same bytes as field 1 of
 * an Example, so the column encoder writes it) and feature_lists (field 2: map entries
 * key -> FeatureList, sorted by key bytes; a FeatureList is one Feature per step).
 * Every nested length is computed from the values first (one sizing pass per example),
 * then the example is written front to back into the caller's buffer. */
#include "column_internal.h"

enum {
    TAG_SEQ_CONTEXT = TFN_TAG(1, TFN_WT_LEN),
    TAG_SEQ_FEATURE_LISTS = TFN_TAG(2, TFN_WT_LEN),
    TAG_LISTS_ENTRY = TFN_TAG(1, TFN_WT_LEN),
    TAG_LIST_FEATURE = TFN_TAG(1, TFN_WT_LEN)
};

static int list_key_arg(const tfn_list_column *l)
{
    return tfn__column_key_arg(&l->steps);
}

static int check_list(const tfn_list_column *l, size_t idx, size_t n, tfn_error *err)
{
    const tfn_column *c = &l->steps;
    if (!c->key && c->key_len)
        return tfn__fail(err, TFN_E_INVALID_ARG, "feature list %zu: key is NULL", idx);
    if (c->dtype != TFN_INT64 && c->dtype != TFN_INT32 && c->dtype != TFN_FLOAT32 &&
        c->dtype != TFN_FLOAT64 && c->dtype != TFN_BYTES)
        return tfn__fail(err, TFN_E_TYPE,
                         "feature list '%.*s': unsupported dtype %d (int64, int32, float32, "
                         "float64 or bytes expected)",
                         list_key_arg(l), c->key, c->dtype);
    if (!l->example_splits)
        return tfn__fail(err, TFN_E_INVALID_ARG, "feature list '%.*s': example_splits is NULL",
                         list_key_arg(l), c->key);
    if (l->example_splits[0] != 0)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "feature list '%.*s': example_splits[0] is %lld, expected 0",
                         list_key_arg(l), c->key, (long long)l->example_splits[0]);
    for (size_t i = 0; i < n; i++)
        if (l->example_splits[i + 1] < l->example_splits[i])
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i,
                                "feature list '%.*s': example_splits decrease at example %zu",
                                list_key_arg(l), c->key, i);
    size_t steps = (size_t)l->example_splits[n];
    size_t least = c->dtype == TFN_BYTES                                   ? 2
                   : c->dtype == TFN_FLOAT32 || c->dtype == TFN_FLOAT64 ? 4
                                                                          : 1;
    size_t items;
    if (c->row_splits) {
        if (c->row_splits[0] != 0)
            return tfn__fail(err, TFN_E_INVALID_ARG,
                             "feature list '%.*s': row_splits[0] is %lld, expected 0",
                             list_key_arg(l), c->key, (long long)c->row_splits[0]);
        for (size_t s = 0; s < steps; s++) {
            if (c->row_splits[s + 1] < c->row_splits[s])
                return tfn__fail(err, TFN_E_INVALID_ARG,
                                 "feature list '%.*s': row_splits decrease at step %zu",
                                 list_key_arg(l), c->key, s);
            if ((uint64_t)(c->row_splits[s + 1] - c->row_splits[s]) >
                TFN_MAX_MESSAGE_SIZE / least)
                return tfn__fail(err, TFN_E_LIMIT,
                                 "feature list '%.*s': step %zu has more values than fit in "
                                 "protobuf's 2 GiB message limit",
                                 list_key_arg(l), c->key, s);
        }
        items = (size_t)c->row_splits[steps];
    } else {
        if (c->width > TFN_MAX_MESSAGE_SIZE / least)
            return tfn__fail(err, TFN_E_LIMIT,
                             "feature list '%.*s': width %zu is more than fits in protobuf's "
                             "2 GiB message limit",
                             list_key_arg(l), c->key, c->width);
        if (!tfn__mul_size(steps, c->width, &items))
            return tfn__fail(err, TFN_E_LIMIT, "feature list '%.*s': %zu x %zu values overflow",
                             list_key_arg(l), c->key, steps, c->width);
    }
    if (items && !c->values)
        return tfn__fail(err, TFN_E_INVALID_ARG, "feature list '%.*s': values is NULL",
                         list_key_arg(l), c->key);
    if (c->dtype == TFN_BYTES && items) {
        if (!c->byte_offsets)
            return tfn__fail(err, TFN_E_INVALID_ARG,
                             "feature list '%.*s': byte_offsets is NULL", list_key_arg(l),
                             c->key);
        for (size_t k = 0; k < items; k++)
            if (c->byte_offsets[k + 1] < c->byte_offsets[k] || c->byte_offsets[k] < 0)
                return tfn__fail(err, TFN_E_INVALID_ARG,
                                 "feature list '%.*s': byte_offsets decrease at string %zu",
                                 list_key_arg(l), c->key, k);
    }
    return TFN_OK;
}

/* The lists checked and sorted by key bytes (protobuf's deterministic map order). */
static int sort_lists(const tfn_list_column *lists, size_t nlists, size_t n,
                      const tfn_list_column **sorted, tfn_error *err)
{
    if (nlists && !lists)
        return tfn__fail(err, TFN_E_INVALID_ARG, "lists is NULL but nlists is %zu", nlists);
    for (size_t k = 0; k < nlists; k++) {
        int rc = check_list(&lists[k], k, n, err);
        if (rc)
            return rc;
        size_t at = k;
        while (at > 0) {
            const tfn_column *prev = &sorted[at - 1]->steps, *cur = &lists[k].steps;
            int cmp = tfn__key_cmp(prev->key, prev->key_len, cur->key, cur->key_len);
            if (cmp == 0)
                return tfn__fail(err, TFN_E_INVALID_ARG, "feature list key '%.*s' appears twice",
                                 list_key_arg(&lists[k]), cur->key);
            if (cmp < 0)
                break;
            sorted[at] = sorted[at - 1];
            at--;
        }
        sorted[at] = &lists[k];
    }
    return TFN_OK;
}

/* Size of the FeatureList of list l in example i. */
static uint64_t feature_list_size(const tfn_list_column *l, size_t i)
{
    int kind = tfn__column_kind(l->steps.dtype);
    uint64_t size = 0;
    for (size_t s = (size_t)l->example_splits[i]; s < (size_t)l->example_splits[i + 1]; s++)
        size += tfn__len_field_size(tfn__feature_size(kind, tfn__column_payload(&l->steps, s)));
    return size;
}

/* Size of example i without its context; the FeatureList sizes go to `fl` and the
 * FeatureLists message's to *lists_size. */
static uint64_t lists_part_size(const tfn_list_column *const *sorted, size_t nlists, size_t i,
                                uint64_t *fl, uint64_t *lists_size)
{
    uint64_t body = 0;
    for (size_t k = 0; k < nlists; k++) {
        fl[k] = feature_list_size(sorted[k], i);
        body += tfn__len_field_size(tfn__entry_size(sorted[k]->steps.key_len, fl[k]));
    }
    *lists_size = body;
    return nlists ? tfn__len_field_size(body) : 0;
}

static uint8_t *write_lists(uint8_t *p, const tfn_list_column *const *sorted, size_t nlists,
                            size_t i, const uint64_t *fl, uint64_t lists_size)
{
    if (!nlists)
        return p;
    p = tfn__put_len_prefix(p, TAG_SEQ_FEATURE_LISTS, lists_size);
    for (size_t k = 0; k < nlists; k++) {
        const tfn_list_column *l = sorted[k];
        const tfn_column *c = &l->steps;
        int kind = tfn__column_kind(c->dtype);
        p = tfn__put_len_prefix(p, TAG_LISTS_ENTRY, tfn__entry_size(c->key_len, fl[k]));
        p = tfn__put_len_prefix(p, TAG_ENTRY_KEY, c->key_len);
        if (c->key_len)
            memcpy(p, c->key, c->key_len);
        p += c->key_len;
        p = tfn__put_len_prefix(p, TAG_ENTRY_VALUE, fl[k]);
        for (size_t s = (size_t)l->example_splits[i]; s < (size_t)l->example_splits[i + 1];
             s++) {
            uint64_t payload = tfn__column_payload(c, s);
            p = tfn__put_len_prefix(p, TAG_LIST_FEATURE, tfn__feature_size(kind, payload));
            p = tfn__put_feature_head(p, kind, payload);
            p = tfn__column_write(p, c, s, TFN__SIMD_NONE);
        }
    }
    return p;
}

/* Scratch of one call: the sorted lists, one example's FeatureList sizes, the context
 * examples' sizes. */
typedef struct seq_scratch {
    tfn__alloc alloc;
    const tfn_list_column **sorted;
    uint64_t *fl;
    uint64_t *ctx_sizes;
} seq_scratch;

static void seq_free(seq_scratch *s)
{
    tfn__free(&s->alloc, (void *)s->sorted);
    tfn__free(&s->alloc, s->fl);
    tfn__free(&s->alloc, s->ctx_sizes);
}

static int seq_prepare(seq_scratch *s, const tfn_column *context, size_t ncontext,
                       const tfn_list_column *lists, size_t nlists, size_t n, tfn_error *err)
{
    memset(s, 0, sizeof *s);
    tfn__alloc_init(&s->alloc, NULL);
    size_t k = nlists ? nlists : 1;
    s->sorted = tfn__malloc(&s->alloc, k * sizeof *s->sorted);
    s->fl = tfn__malloc(&s->alloc, k * sizeof *s->fl);
    if (ncontext && n > SIZE_MAX / sizeof *s->ctx_sizes)
        return tfn__fail(err, TFN_E_LIMIT, "%zu examples overflow", n);
    s->ctx_sizes = ncontext && n ? tfn__malloc(&s->alloc, n * sizeof *s->ctx_sizes) : NULL;
    if (!s->sorted || !s->fl || (ncontext && n && !s->ctx_sizes))
        return tfn__fail(err, TFN_E_NOMEM, "out of memory for %zu feature lists", nlists);
    int rc = sort_lists(lists, nlists, n, s->sorted, err);
    if (rc)
        return rc;
    /* the context of example i is exactly the Example the column encoder writes */
    if (ncontext)
        return tfn_encode_columns_size(context, ncontext, n, s->ctx_sizes, NULL, err);
    return TFN_OK;
}

static int too_big_sequence(size_t i, uint64_t size, tfn_error *err)
{
    return tfn__fail_at(err, TFN_E_LIMIT, 0, i,
                        "SequenceExample %zu would be %llu bytes; protobuf's limit is 2 GiB", i,
                        (unsigned long long)size);
}

/* Sizes of examples [0, n) into sizes (optional) and their sum into *total. */
static int size_all(seq_scratch *s, size_t ncontext, size_t nlists, size_t n,
                    uint64_t *sizes, uint64_t *total, tfn_error *err)
{
    uint64_t sum = 0, lists_size;
    for (size_t i = 0; i < n; i++) {
        uint64_t size = lists_part_size(s->sorted, nlists, i, s->fl, &lists_size);
        if (ncontext)
            size += s->ctx_sizes[i];
        if (size > TFN_MAX_MESSAGE_SIZE)
            return too_big_sequence(i, size, err);
        if (sizes)
            sizes[i] = size;
        sum += size;
    }
    *total = sum;
    return TFN_OK;
}

int tfn_encode_sequences_size(const tfn_column *context, size_t ncontext,
                              const tfn_list_column *lists, size_t nlists, size_t n,
                              uint64_t *sizes, uint64_t *total, tfn_error *err)
{
    seq_scratch s;
    uint64_t sum = 0;
    int rc = seq_prepare(&s, context, ncontext, lists, nlists, n, err);
    if (!rc)
        rc = size_all(&s, ncontext, nlists, n, sizes, &sum, err);
    seq_free(&s);
    if (!rc && total)
        *total = sum;
    return rc;
}

int tfn_encode_sequences(const tfn_column *context, size_t ncontext,
                         const tfn_list_column *lists, size_t nlists, size_t n, void *dst,
                         size_t cap, uint64_t *offsets, size_t *written, tfn_error *err)
{
    size_t dummy;
    if (!written)
        written = &dummy;
    *written = 0;
    seq_scratch s;
    uint64_t total = 0;
    uint8_t *ctx = NULL;
    int rc = seq_prepare(&s, context, ncontext, lists, nlists, n, err);
    if (!rc)
        rc = size_all(&s, ncontext, nlists, n, NULL, &total, err);
    if (!rc && total > cap) {
        *written = total > SIZE_MAX ? SIZE_MAX : (size_t)total;
        rc = tfn__fail(err, TFN_E_BUF_TOO_SMALL,
                       "buffer of %zu bytes is too small for %zu SequenceExamples (%llu bytes)",
                       cap, n, (unsigned long long)total);
    }
    if (!rc && total && !dst)
        rc = tfn__fail(err, TFN_E_INVALID_ARG, "dst is NULL");
    size_t ctx_total = 0;
    if (!rc && ncontext && n) {
        for (size_t i = 0; i < n; i++)
            ctx_total += (size_t)s.ctx_sizes[i];
        ctx = tfn__malloc(&s.alloc, ctx_total ? ctx_total : 1);
        if (!ctx)
            rc = tfn__fail(err, TFN_E_NOMEM, "out of memory for %zu bytes of context",
                           ctx_total);
        else
            rc = tfn_encode_columns(context, ncontext, n, ctx, ctx_total, NULL, NULL, err);
    }
    if (rc) {
        tfn__free(&s.alloc, ctx);
        seq_free(&s);
        if (rc != TFN_E_BUF_TOO_SMALL)
            *written = 0;
        return rc;
    }
    /* bytes used are counted apart from p: dst may be NULL when nothing is written */
    uint8_t *p = dst;
    size_t used = 0, ctx_at = 0;
    for (size_t i = 0; i < n; i++) {
        if (offsets)
            offsets[i] = used;
        if (ncontext) {
            size_t len = (size_t)s.ctx_sizes[i];
            if (len) {
                memcpy(p, ctx + ctx_at, len);
                p += len;
                used += len;
                ctx_at += len;
            }
        }
        if (!nlists)
            continue;
        uint64_t lists_size;
        uint64_t part = lists_part_size(s.sorted, nlists, i, s.fl, &lists_size);
        uint8_t *end = write_lists(p, s.sorted, nlists, i, s.fl, lists_size);
        used += (size_t)part;
        p = end;
    }
    tfn__free(&s.alloc, ctx);
    seq_free(&s);
    if (offsets)
        offsets[n] = used;
    *written = used;
    return TFN_OK;
}

/* arrow_columns.c - resolves an Arrow record batch (C data interface) into columns
 * for the Example writer, and checks everything of the caller's memory that can be
 * checked before a value is read: formats, buffer and child counts, lengths against
 * the parent's, NULL buffers that are needed, and list / binary offsets over the range
 * the batch uses. Buffer lengths themselves cannot be known: they are taken to be what
 * the specification requires for each array's length and offset. Buffers may have any
 * alignment: every number is read with tfn__ld_* (see tfn_internal.h). */
#include "arrow_internal.h"

#define KEY_ARG(c) (int)((c)->key_len > 200 ? 200 : (c)->key_len), (c)->key

/* What a format string describes. */
typedef enum shape { SHAPE_LEAF, SHAPE_LIST32, SHAPE_LIST64, SHAPE_FIXED_LIST, SHAPE_OTHER } shape;

typedef struct format_info {
    shape shape;
    leaf_type leaf;
    int64_t size; /* fixed-size list entries, fixed-size binary bytes */
} format_info;

/* The decimal number that is the whole of `s` (at most INT32_MAX), or -1. */
static int64_t parse_size(const char *s)
{
    int64_t v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (*s - '0');
        if (v > INT32_MAX)
            return -1;
    }
    return v;
}

static bool parse_format(const char *f, format_info *out)
{
    out->shape = SHAPE_LEAF;
    out->size = 0;
    if (!f || !*f)
        return false;
    if (f[1] == '\0') {
        static const char codes[] = "ncCsSiIlLbefgzZuU";
        static const leaf_type leaves[] = {LEAF_NULL, LEAF_I8,  LEAF_U8,  LEAF_I16, LEAF_U16,
                                           LEAF_I32,  LEAF_U32, LEAF_I64, LEAF_U64, LEAF_BOOL,
                                           LEAF_F16,  LEAF_F32, LEAF_F64, LEAF_BIN32,
                                           LEAF_BIN64, LEAF_BIN32, LEAF_BIN64};
        const char *hit = strchr(codes, f[0]);
        if (!hit)
            return false;
        out->leaf = leaves[hit - codes];
        return true;
    }
    if (f[0] == 'w' && f[1] == ':') {
        out->leaf = LEAF_FIXED_BIN;
        out->size = parse_size(f + 2);
        return out->size >= 0;
    }
    if (f[0] == 't') { /* temporal types: their integer */
        if (!strcmp(f, "tdD") || !strcmp(f, "tts") || !strcmp(f, "ttm")) {
            out->leaf = LEAF_I32;
            return true;
        }
        if (!strcmp(f, "tdm") || !strcmp(f, "ttu") || !strcmp(f, "ttn") ||
            (f[1] == 'D' && f[2] && strchr("smun", f[2]) && !f[3]) ||
            (f[1] == 's' && f[2] && strchr("smun", f[2]) && f[3] == ':')) {
            out->leaf = LEAF_I64;
            return true;
        }
        return false;
    }
    if (f[0] == '+') {
        if (!strcmp(f, "+l"))
            out->shape = SHAPE_LIST32;
        else if (!strcmp(f, "+L"))
            out->shape = SHAPE_LIST64;
        else if (f[1] == 'w' && f[2] == ':' && (out->size = parse_size(f + 3)) >= 0)
            out->shape = SHAPE_FIXED_LIST;
        else
            out->shape = SHAPE_OTHER;
        return out->shape != SHAPE_OTHER;
    }
    return false;
}

static int64_t buffers_of(const format_info *fi)
{
    if (fi->shape == SHAPE_FIXED_LIST)
        return 1;
    if (fi->shape != SHAPE_LEAF)
        return 2;
    switch (fi->leaf) {
    case LEAF_NULL:
        return 0;
    case LEAF_BIN32:
    case LEAF_BIN64:
        return 3;
    default:
        return 2;
    }
}

static int unsupported(const arrow_column *c, const char *format, tfn_error *err)
{
    return tfn__fail(err, TFN_E_TYPE,
                     "column '%.*s': Arrow format \"%.40s\" has no tf.train.Example mapping "
                     "(integers, floats, bool, binary, string, dates and times, and "
                     "(fixed-size) lists of them)",
                     KEY_ARG(c), format ? format : "(null)");
}

/* Checks one array against its schema and the shape of its format. */
static int check_array(const arrow_column *c, const struct ArrowSchema *s,
                       const struct ArrowArray *a, const format_info *fi, tfn_error *err)
{
    int64_t nchild = fi->shape == SHAPE_LEAF ? 0 : 1;
    int64_t nbuf = buffers_of(fi);
    if (!a)
        return tfn__fail(err, TFN_E_INVALID_ARG, "column '%.*s': ArrowArray is NULL",
                         KEY_ARG(c));
    if (a->length < 0 || a->offset < 0 || a->offset > INT64_MAX - a->length ||
        a->null_count < -1 || a->null_count > a->length)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "column '%.*s': bad ArrowArray (length %lld, offset %lld, "
                         "null_count %lld)",
                         KEY_ARG(c), (long long)a->length, (long long)a->offset,
                         (long long)a->null_count);
    if (a->n_buffers != nbuf || (nbuf && !a->buffers))
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "column '%.*s': format \"%.40s\" has %lld buffers, expected %lld",
                         KEY_ARG(c), s->format, (long long)a->n_buffers, (long long)nbuf);
    if (a->n_children != nchild || s->n_children != nchild ||
        (nchild && (!a->children || !s->children || !a->children[0] || !s->children[0])))
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "column '%.*s': format \"%.40s\" has %lld / %lld children, "
                         "expected %lld",
                         KEY_ARG(c), s->format, (long long)s->n_children,
                         (long long)a->n_children, (long long)nchild);
    if (a->null_count > 0 && nbuf && !a->buffers[0])
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "column '%.*s': %lld nulls but no validity bitmap", KEY_ARG(c),
                         (long long)a->null_count);
    return TFN_OK;
}

/* The validity bitmap to consult, or NULL when the array has no null. */
static const uint8_t *validity_of(const struct ArrowArray *a, const format_info *fi)
{
    if (!buffers_of(fi) || a->null_count == 0)
        return NULL;
    return a->buffers[0];
}

/* Offsets [from, to] (physical indices) of an int32 or int64 offsets buffer: first
 * non-negative, non-decreasing, last at most `limit`. */
static int check_offsets(const arrow_column *c, const void *buf, int bits, int64_t from,
                         int64_t to, int64_t limit, const char *what, tfn_error *err)
{
    if (!buf)
        return tfn__fail(err, TFN_E_INVALID_ARG, "column '%.*s': %s offsets buffer is NULL",
                         KEY_ARG(c), what);
    int64_t prev = tfn__arrow_offset(buf, bits, from);
    if (prev < 0)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "column '%.*s': %s offset %lld is negative (at %lld)", KEY_ARG(c),
                         what, (long long)prev, (long long)from);
    for (int64_t k = from + 1; k <= to; k++) {
        int64_t v = tfn__arrow_offset(buf, bits, k);
        if (v < prev)
            return tfn__fail(err, TFN_E_INVALID_ARG,
                             "column '%.*s': %s offsets decrease at %lld (%lld then %lld)",
                             KEY_ARG(c), what, (long long)k, (long long)prev, (long long)v);
        prev = v;
    }
    if (prev > limit)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "column '%.*s': %s offset %lld is past the end (%lld)", KEY_ARG(c),
                         what, (long long)prev, (long long)limit);
    return TFN_OK;
}

/* The leaf's buffers, checked over the logical range [lo, hi) the batch uses. */
static int resolve_leaf(arrow_column *c, const struct ArrowArray *a, const format_info *fi,
                        int64_t lo, int64_t hi, tfn_error *err)
{
    c->leaf = fi->leaf;
    c->kind = fi->leaf == LEAF_F16 || fi->leaf == LEAF_F32 || fi->leaf == LEAF_F64
                  ? TFN_KIND_FLOAT
              : fi->leaf >= LEAF_BIN32 ? TFN_KIND_BYTES
                                       : TFN_KIND_INT64;
    c->byte_width = fi->size;
    if (fi->leaf == LEAF_NULL || hi == lo)
        return TFN_OK;
    int64_t plo = a->offset + lo, phi = a->offset + hi;
    if (fi->leaf == LEAF_FIXED_BIN && fi->size && phi > INT64_MAX / fi->size)
        return tfn__fail(err, TFN_E_LIMIT, "column '%.*s': fixed-size binary sizes overflow",
                         KEY_ARG(c));
    c->values = a->buffers[fi->leaf == LEAF_BIN32 || fi->leaf == LEAF_BIN64 ? 2 : 1];
    if (fi->leaf == LEAF_BIN32 || fi->leaf == LEAF_BIN64) {
        int bits = fi->leaf == LEAF_BIN32 ? 32 : 64;
        c->byte_offsets = a->buffers[1];
        int rc = check_offsets(c, c->byte_offsets, bits, plo, phi, INT64_MAX, "string", err);
        if (rc)
            return rc;
        if (!c->values && tfn__arrow_offset(c->byte_offsets, bits, phi) >
                              tfn__arrow_offset(c->byte_offsets, bits, plo))
            return tfn__fail(err, TFN_E_INVALID_ARG, "column '%.*s': string data buffer is NULL",
                             KEY_ARG(c));
        return TFN_OK;
    }
    if (!c->values && !(fi->leaf == LEAF_FIXED_BIN && fi->size == 0))
        return tfn__fail(err, TFN_E_INVALID_ARG, "column '%.*s': values buffer is NULL",
                         KEY_ARG(c));
    return TFN_OK;
}

/* The longest present row of a top-level list (in list entries), and where it is. */
static int64_t longest_list_row(const arrow_column *c, int64_t base, size_t n, size_t *at)
{
    int64_t best = 0;
    *at = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t p = base + (int64_t)i;
        if (c->row_validity && !tfn__arrow_bit(c->row_validity, p))
            continue;
        int64_t len = tfn__arrow_offset(c->list_offsets, c->list_bits, p + 1) -
                      tfn__arrow_offset(c->list_offsets, c->list_bits, p);
        if (len > best) {
            best = len;
            *at = i;
        }
    }
    return best;
}

/* One level of column `c` (the column itself, then each list's child): its format
 * read into fi and the array checked against it; `what` ("columns", "values") names
 * the level in the error for a dictionary-encoded one. */
static int enter_level(const arrow_column *c, const struct ArrowSchema *s,
                       const struct ArrowArray *a, format_info *fi, const char *what,
                       tfn_error *err)
{
    if (s->dictionary || (a && a->dictionary))
        return tfn__fail(err, TFN_E_TYPE,
                         "column '%.*s': dictionary-encoded %s have no tf.train.Example "
                         "mapping (decode them first)",
                         KEY_ARG(c), what);
    if (!parse_format(s->format, fi))
        return unsupported(c, s->format, err);
    return check_array(c, s, a, fi, err);
}

/* Resolves column `c` (schema s, array a) for rows [first, first + n) of the struct. */
static int resolve_column(arrow_column *c, const struct ArrowSchema *s,
                          const struct ArrowArray *a, int64_t first, size_t n, tfn_error *err)
{
    format_info fi;
    int rc = enter_level(c, s, a, &fi, "columns", err);
    if (rc)
        return rc;
    c->format = s->format;
    if (a->length < first || (uint64_t)(a->length - first) < n)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "column '%.*s': %lld rows, fewer than the batch's %zu (from %lld)",
                         KEY_ARG(c), (long long)a->length, n, (long long)first);
    int64_t base = a->offset + first; /* physical index of row 0 */
    c->row_base = base;
    c->row_validity = validity_of(a, &fi);
    if (fi.shape == SHAPE_LEAF && fi.leaf == LEAF_NULL) {
        c->all_absent = true;
        c->leaf = LEAF_NULL;
        return TFN_OK;
    }
    /* the logical range [lo, hi) of the batch in the current level's array */
    int64_t lo = first, hi = first + (int64_t)n;
    int64_t width = 1;
    size_t list_row = 0;
    int64_t list_max = 0;
    if (fi.shape == SHAPE_LIST32 || fi.shape == SHAPE_LIST64) {
        c->list_bits = fi.shape == SHAPE_LIST32 ? 32 : 64;
        c->list_offsets = a->buffers[1];
        const struct ArrowArray *child = a->children[0];
        if (!child)
            return tfn__fail(err, TFN_E_INVALID_ARG, "column '%.*s': list child is NULL",
                             KEY_ARG(c));
        if (n) {
            rc = check_offsets(c, c->list_offsets, c->list_bits, base, base + (int64_t)n,
                               child->length < 0 ? 0 : child->length, "list", err);
            if (rc)
                return rc;
            lo = tfn__arrow_offset(c->list_offsets, c->list_bits, base);
            hi = tfn__arrow_offset(c->list_offsets, c->list_bits, base + (int64_t)n);
            list_max = longest_list_row(c, base, n, &list_row);
        } else {
            lo = hi = 0;
        }
        s = s->children[0];
        a = child;
        rc = enter_level(c, s, a, &fi, "values", err);
        if (rc)
            return rc;
    }
    for (;;) {
        if (hi > a->length)
            return tfn__fail(err, TFN_E_INVALID_ARG,
                             "column '%.*s': a child array of %lld elements is read up to %lld",
                             KEY_ARG(c), (long long)a->length, (long long)hi);
        if (c->nlevels == TFN_ARROW_MAX_LEVELS)
            return tfn__fail(err, TFN_E_TYPE, "column '%.*s': more than %d nested lists",
                             KEY_ARG(c), TFN_ARROW_MAX_LEVELS);
        arrow_level *lv = &c->levels[c->nlevels];
        bool row_level = c->nlevels == 0 && !c->list_bits;
        lv->array = a;
        lv->offset = a->offset;
        lv->list_size = fi.size;
        lv->validity = row_level ? NULL : validity_of(a, &fi);
        if (lv->validity)
            c->inner_nulls = true;
        c->nlevels++;
        if (fi.shape == SHAPE_LEAF) {
            if (fi.leaf == LEAF_NULL)
                return tfn__fail(err, TFN_E_TYPE,
                                 "column '%.*s': lists of the null type have no "
                                 "tf.train.Example mapping (give the column a value type)",
                                 KEY_ARG(c));
            rc = resolve_leaf(c, a, &fi, lo, hi, err);
            break;
        }
        if (fi.shape != SHAPE_FIXED_LIST)
            return tfn__fail(err, TFN_E_TYPE,
                             "column '%.*s': lists of variable-length lists have no "
                             "tf.train.Example mapping (write the inner lengths as a column "
                             "of their own)",
                             KEY_ARG(c));
        /* entries [offset + lo, offset + hi) own children [(offset+lo)*size, ...) */
        int64_t plo = a->offset + lo, phi = a->offset + hi;
        if (fi.size && (phi > INT64_MAX / fi.size || width > INT64_MAX / fi.size))
            return tfn__fail(err, TFN_E_LIMIT, "column '%.*s': fixed-size list sizes overflow",
                             KEY_ARG(c));
        lo = plo * fi.size;
        hi = phi * fi.size;
        width *= fi.size;
        s = s->children[0];
        a = a->children[0];
        rc = enter_level(c, s, a, &fi, "values", err);
        if (rc)
            return rc;
    }
    if (rc)
        return rc;
    c->width = width;
    uint64_t max_row = c->list_bits ? (uint64_t)list_max * (uint64_t)width : (uint64_t)width;
    if (!c->list_bits)
        list_row = 0;
    if (n && max_row > TFN_MAX_MESSAGE_SIZE / tfn__arrow_least_bytes(c->leaf))
        return tfn__fail_at(err, TFN_E_LIMIT, 0, list_row,
                            "column '%.*s': row %zu has %llu values, more than fit in "
                            "protobuf's 2 GiB message limit",
                            KEY_ARG(c), list_row, (unsigned long long)max_row);
    c->max_row = n ? (size_t)max_row : 0;
    if (!c->list_bits && !c->inner_nulls) {
        /* every level maps entry j to children [(offset + j) * size, ...): affine, so
         * row i starts width * i after row 0 */
        int64_t at = first;
        for (int k = 0; k + 1 < c->nlevels; k++)
            at = (c->levels[k].offset + at) * c->levels[k].list_size;
        c->dense = true;
        c->dense_begin = c->levels[c->nlevels - 1].offset + at;
    }
    return TFN_OK;
}

void tfn__arrow_batch_free(arrow_batch *b, const tfn__alloc *alloc)
{
    tfn__free(alloc, b->cols);
    b->cols = NULL;
}

int tfn__arrow_batch_init(arrow_batch *b, const tfn__alloc *alloc,
                          const struct ArrowSchema *schema, const struct ArrowArray *array,
                          tfn_error *err)
{
    memset(b, 0, sizeof *b);
    if (!schema || !array)
        return tfn__fail(err, TFN_E_INVALID_ARG, "schema or array is NULL");
    if (!schema->format || strcmp(schema->format, "+s") != 0)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "a record batch is a struct array (format \"+s\"), got \"%.40s\"",
                         schema->format ? schema->format : "(null)");
    int64_t nchild = schema->n_children;
    if (array->length < 0 || array->offset < 0 || array->offset > INT64_MAX - array->length ||
        array->n_buffers != 1 || !array->buffers || nchild < 0 ||
        array->n_children != nchild ||
        (nchild && (!schema->children || !array->children)) ||
        (array->null_count > 0 && !array->buffers[0]))
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "inconsistent struct array (length %lld, offset %lld, %lld buffers, "
                         "%lld / %lld children)",
                         (long long)array->length, (long long)array->offset,
                         (long long)array->n_buffers, (long long)nchild,
                         (long long)array->n_children);
    if ((uint64_t)array->length > SIZE_MAX / sizeof(uint64_t) ||
        (uint64_t)nchild > SIZE_MAX / sizeof(arrow_column))
        return tfn__fail(err, TFN_E_LIMIT, "record batch too large");
    b->array = array;
    b->struct_first = array->offset;
    b->struct_validity = array->null_count != 0 ? array->buffers[0] : NULL;
    b->nrows = (size_t)array->length;
    b->ncols = (size_t)nchild;
    b->cols = tfn__malloc(alloc, (b->ncols ? b->ncols : 1) * sizeof *b->cols);
    if (!b->cols)
        return tfn__fail(err, TFN_E_NOMEM, "out of memory for %zu columns", b->ncols);
    for (size_t k = 0; k < b->ncols; k++) {
        const struct ArrowSchema *s = schema->children[k];
        arrow_column c;
        memset(&c, 0, sizeof c);
        c.index = k;
        if (!s || !s->name) {
            tfn__arrow_batch_free(b, alloc);
            return tfn__fail(err, TFN_E_INVALID_ARG, "column %zu has no %s", k,
                             s ? "name" : "schema");
        }
        c.key = s->name;
        c.key_len = strlen(s->name);
        /* children are sliced by the struct's offset as well as their own */
        int rc = resolve_column(&c, s, array->children[k], array->offset, b->nrows, err);
        if (rc) {
            tfn__arrow_batch_free(b, alloc);
            return rc;
        }
        /* insertion sort by key: column counts are small */
        size_t at = k;
        while (at > 0) {
            const arrow_column *prev = &b->cols[at - 1];
            int cmp = tfn__key_cmp(prev->key, prev->key_len, c.key, c.key_len);
            if (cmp == 0) {
                tfn__arrow_batch_free(b, alloc);
                return tfn__fail(err, TFN_E_INVALID_ARG, "column name '%.*s' appears twice",
                                 KEY_ARG(&c));
            }
            if (cmp < 0)
                break;
            b->cols[at] = b->cols[at - 1];
            at--;
        }
        b->cols[at] = c;
    }
    return TFN_OK;
}

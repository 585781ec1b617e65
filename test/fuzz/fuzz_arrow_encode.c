/*
 * fuzz_arrow_encode.c - tfn_arrow_encode on record batches built from the input as an
 * Arrow producer would export them: up to 4 columns of random small schemas (every
 * leaf type of the mapping, the null type, lists and large lists over fixed-size lists
 * over a leaf, and types with no mapping), random offsets at every level, validity
 * bitmaps, null counts given or unknown (-1), and buffers at odd addresses. Every
 * buffer is malloc'd exactly as long as the Arrow specification requires for its
 * array's length and offset, so a read past it is an ASan finding.
 *
 * Consistent batches are checked against a reference walk of the arrays written here
 * (logical index -> physical index -> children, level by level): each row's Example
 * must be the bytes tfn_encode_columns gives for that row's values, sizes must agree
 * with tfn_arrow_encode_size, and a short buffer must report the total; a null inside
 * a present row's list, a uint64 past 2^63-1, a type with no mapping or a repeated
 * name must be the error the encoder promises, at the row it promises.
 * Then one corruption (offsets that decrease, go negative or past the child, a child
 * shorter than its parent needs, a missing buffer, wrong buffer or child counts, nulls
 * with no bitmap) may be applied: the encoder must refuse it or encode without reading
 * out of bounds.
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfnano.h"

#define CHECK(cond)                                                                         \
    do {                                                                                    \
        if (!(cond))                                                                        \
            abort();                                                                        \
    } while (0)

enum { MAXROWS = 6, MAXCOLS = 4, MAXDEPTH = 4, MAXNODES = MAXCOLS * MAXDEPTH, MAXVALS = 512 };

/* ------------------------------------------------------------------ input */

typedef struct input {
    const uint8_t *data;
    size_t size, pos;
} input;

static unsigned next(input *in)
{
    return in->pos < in->size ? in->data[in->pos++] : 0;
}

/* ------------------------------------------------------------------ leaf types */

typedef enum value_kind { V_INT, V_FLOAT, V_BYTES, V_NONE } value_kind;

typedef struct leaf_type {
    const char *format;
    int elem_bits; /* bits per element of the values buffer; 0: offsets + data */
    value_kind kind;
} leaf_type;

enum { L_I8, L_U8, L_I16, L_U16, L_I32, L_U32, L_I64, L_U64, L_BOOL, L_F16, L_F32, L_F64,
       L_BIN, L_UTF8, L_LBIN, L_LUTF8, L_FIXBIN, L_DATE32, L_DATE64, L_STAMP, L_DUR, L_NULL,
       L_DECIMAL, NLEAF };

static const leaf_type leaves[NLEAF] = {
    {"c", 8, V_INT},      {"C", 8, V_INT},       {"s", 16, V_INT},     {"S", 16, V_INT},
    {"i", 32, V_INT},     {"I", 32, V_INT},      {"l", 64, V_INT},     {"L", 64, V_INT},
    {"b", 1, V_INT},      {"e", 16, V_FLOAT},    {"f", 32, V_FLOAT},   {"g", 64, V_FLOAT},
    {"z", 0, V_BYTES},    {"u", 0, V_BYTES},     {"Z", 0, V_BYTES},    {"U", 0, V_BYTES},
    {"w:", 0, V_BYTES},   {"tdD", 32, V_INT},    {"tdm", 64, V_INT},   {"tsu:UTC", 64, V_INT},
    {"tDn", 64, V_INT},   {"n", 0, V_NONE},      {"d:10,2", 128, V_NONE}};

/* ------------------------------------------------------------------ arrays */

typedef enum node_kind { N_LEAF, N_LIST32, N_LIST64, N_FIXED } node_kind;

typedef struct node {
    struct ArrowSchema s;
    struct ArrowArray a;
    const void *bufs[3];
    struct ArrowSchema *schild[1];
    struct ArrowArray *achild[1];
    node_kind kind;
    int leaf;             /* N_LEAF: index into leaves */
    int64_t size;         /* N_FIXED: entries per list; L_FIXBIN: bytes per value */
    char format[16];
    void *mem[3];         /* what was malloc'd, for free() */
    int64_t nbytes[3];    /* buffer lengths the specification requires */
    struct node *child;
} node;

typedef struct batch {
    struct ArrowSchema s;
    struct ArrowArray a;
    const void *bufs[1];
    struct ArrowSchema *schild[MAXCOLS];
    struct ArrowArray *achild[MAXCOLS];
    void *validity_mem;
    node nodes[MAXNODES];
    int nnodes;
    node *cols[MAXCOLS];
    char names[MAXCOLS][4];
    bool type_problem[MAXCOLS]; /* a format with no Example mapping somewhere below */
} batch;

/* A buffer of `len` bytes of input-driven content, 0 or 1 byte past a malloc'd start
 * (odd addresses: the encoder must read any alignment); `len` 0 gives NULL or a
 * pointer to nothing. */
static void *buffer(input *in, node *n, int slot, int64_t len)
{
    size_t shift = next(in) & 1;
    uint8_t *m = malloc((size_t)len + shift + 1);
    CHECK(m != NULL);
    n->mem[slot] = m;
    n->nbytes[slot] = len;
    for (int64_t k = 0; k < len; k++)
        m[shift + (size_t)k] = (uint8_t)next(in);
    return m + shift;
}

static void put_offset(void *buf, int bits, int64_t k, int64_t v)
{
    if (bits == 32) {
        int32_t x = (int32_t)v;
        memcpy((uint8_t *)buf + 4 * k, &x, 4);
    } else {
        memcpy((uint8_t *)buf + 8 * k, &v, 8);
    }
}

static int64_t get_offset(const void *buf, int bits, int64_t k)
{
    if (bits == 32) {
        int32_t x;
        memcpy(&x, (const uint8_t *)buf + 4 * k, 4);
        return x;
    }
    int64_t v;
    memcpy(&v, (const uint8_t *)buf + 8 * k, 8);
    return v;
}

/* Offsets for `count` entries from physical 0: non-decreasing, starting at 0..2, steps
 * of 0..3 (0..7 for strings); returns the last. */
static int64_t fill_offsets(input *in, void *buf, int bits, int64_t count, unsigned step_mod)
{
    int64_t at = next(in) % 3;
    put_offset(buf, bits, 0, at);
    for (int64_t k = 1; k <= count; k++) {
        at += next(in) % step_mod;
        put_offset(buf, bits, k, at);
    }
    return at;
}

static bool bit(const uint8_t *bits, int64_t i)
{
    return (bits[i >> 3] >> (i & 7)) & 1;
}

/* Validity of an array with `phys` physical entries: none, or a bitmap with the null
 * count given or unknown (-1). */
static void validity(input *in, node *n, int64_t phys)
{
    unsigned mode = next(in) % 4;
    n->a.null_count = 0;
    if (mode == 0 || mode == 1)
        return;
    uint8_t *bits = buffer(in, n, 0, (phys + 7) / 8);
    n->bufs[0] = bits;
    int64_t nulls = 0;
    for (int64_t k = n->a.offset; k < phys; k++)
        nulls += !bit(bits, k);
    n->a.null_count = mode == 2 ? nulls : -1;
}

/* Builds a node of at least `need` logical entries at depth `depth` (0: a column). */
static node *build(input *in, batch *b, int64_t need, int depth, bool *type_problem)
{
    CHECK(b->nnodes < MAXNODES);
    node *n = &b->nodes[b->nnodes++];
    memset(n, 0, sizeof *n);
    n->a.offset = next(in) % 3;
    n->a.length = need + next(in) % 2;
    n->a.buffers = n->bufs;
    n->a.children = n->achild;
    n->s.children = n->schild;
    n->s.format = n->format;
    n->s.name = "item";
    n->s.flags = ARROW_FLAG_NULLABLE;
    int64_t phys = n->a.offset + n->a.length;
    unsigned pick = next(in);
    /* a list at the top, fixed-size lists below; sometimes a list deeper (no mapping) */
    if (depth + 1 < MAXDEPTH && pick % 8 < 2 && (depth == 0 || pick % 16 == 0))
        n->kind = pick & 8 ? N_LIST64 : N_LIST32;
    else if (depth + 1 < MAXDEPTH && pick % 8 < 4)
        n->kind = N_FIXED;
    else
        n->kind = N_LEAF;
    if (n->kind != N_LEAF && depth > 0 && n->kind != N_FIXED)
        *type_problem = true; /* a variable-length list below the row */
    if (n->kind == N_LEAF) {
        n->leaf = (int)(next(in) % NLEAF);
        const leaf_type *t = &leaves[n->leaf];
        if (n->leaf == L_DECIMAL || (n->leaf == L_NULL && depth > 0))
            *type_problem = true;
        if (n->leaf == L_FIXBIN) {
            n->size = next(in) % 4;
            snprintf(n->format, sizeof n->format, "w:%lld", (long long)n->size);
        } else {
            snprintf(n->format, sizeof n->format, "%s", t->format);
        }
        if (n->leaf == L_NULL) {
            n->a.n_buffers = 0;
            n->a.null_count = n->a.length;
            return n;
        }
        n->a.n_buffers = t->elem_bits || n->leaf == L_FIXBIN ? 2 : 3;
        validity(in, n, phys);
        if (n->leaf == L_FIXBIN) {
            n->bufs[1] = buffer(in, n, 1, phys * n->size);
        } else if (t->elem_bits) {
            int64_t len = t->elem_bits == 1 ? (phys + 7) / 8 : phys * t->elem_bits / 8;
            n->bufs[1] = buffer(in, n, 1, len);
            if (n->leaf == L_U64) /* mostly in range: clear the top bits but now and then */
                for (int64_t k = 0; k < phys; k++) {
                    uint8_t *hi = (uint8_t *)(uintptr_t)n->bufs[1] + 8 * k + 7;
                    if (*hi != 0xff)
                        *hi &= 0x7f;
                }
        } else {
            int bits = n->leaf == L_LBIN || n->leaf == L_LUTF8 ? 64 : 32;
            void *offs = buffer(in, n, 1, (phys + 1) * bits / 8);
            int64_t total = fill_offsets(in, offs, bits, phys, 8);
            n->bufs[1] = offs;
            n->bufs[2] = buffer(in, n, 2, total);
        }
        return n;
    }
    n->a.n_buffers = n->kind == N_FIXED ? 1 : 2;
    n->a.n_children = n->s.n_children = 1;
    validity(in, n, phys);
    int64_t child_need;
    if (n->kind == N_FIXED) {
        n->size = next(in) % 4;
        snprintf(n->format, sizeof n->format, "+w:%lld", (long long)n->size);
        child_need = phys * n->size;
    } else {
        int bits = n->kind == N_LIST64 ? 64 : 32;
        snprintf(n->format, sizeof n->format, bits == 64 ? "+L" : "+l");
        void *offs = buffer(in, n, 1, (phys + 1) * bits / 8);
        child_need = fill_offsets(in, offs, bits, phys, 4);
        n->bufs[1] = offs;
    }
    n->child = build(in, b, child_need, depth + 1, type_problem);
    n->schild[0] = &n->child->s;
    n->achild[0] = &n->child->a;
    return n;
}

static void free_batch(batch *b)
{
    for (int k = 0; k < b->nnodes; k++)
        for (int j = 0; j < 3; j++)
            free(b->nodes[k].mem[j]);
    free(b->validity_mem);
}

/* ------------------------------------------------------------------ reference walk */

typedef struct row_values {
    value_kind kind;
    size_t count;
    int64_t ints[MAXVALS];
    float floats[MAXVALS];
    uint8_t bytes[MAXVALS * 8];
    int64_t byte_offsets[MAXVALS + 1];
    bool null_inside, out_of_range;
} row_values;

/* Whether physical entry `phys` of n is valid (the null type: never). */
static bool valid_at(const node *n, int64_t phys)
{
    if (n->kind == N_LEAF && n->leaf == L_NULL)
        return false;
    if (n->a.null_count == 0 || !n->bufs[0])
        return true;
    return bit(n->bufs[0], phys);
}

/* IEEE half -> float: by arithmetic (the encoder works on the bits); a NaN keeps its
 * payload in the top mantissa bits, as every widening conversion does. */
static float half(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    if (e == 31 && m) {
        uint32_t bits = ((uint32_t)(h & 0x8000) << 16) | 0x7f800000u | ((uint32_t)m << 13);
        float f;
        memcpy(&f, &bits, 4);
        return f;
    }
    float v = e == 0 ? ldexpf((float)m, -24)
              : e == 31 ? INFINITY
                        : ldexpf((float)(m + 1024), e - 25);
    return h & 0x8000 ? -v : v;
}

static void emit(const node *n, int64_t p, row_values *rv)
{
    CHECK(rv->count < MAXVALS);
    const uint8_t *v = n->bufs[1];
    size_t i = rv->count++;
    switch (n->leaf) {
    case L_I8: rv->ints[i] = (int8_t)v[p]; break;
    case L_U8: rv->ints[i] = v[p]; break;
    case L_I16: { int16_t x; memcpy(&x, v + 2 * p, 2); rv->ints[i] = x; break; }
    case L_U16: { uint16_t x; memcpy(&x, v + 2 * p, 2); rv->ints[i] = x; break; }
    case L_I32:
    case L_DATE32: { int32_t x; memcpy(&x, v + 4 * p, 4); rv->ints[i] = x; break; }
    case L_U32: { uint32_t x; memcpy(&x, v + 4 * p, 4); rv->ints[i] = x; break; }
    case L_I64:
    case L_DATE64:
    case L_STAMP:
    case L_DUR: memcpy(&rv->ints[i], v + 8 * p, 8); break;
    case L_U64: {
        uint64_t x;
        memcpy(&x, v + 8 * p, 8);
        rv->out_of_range |= x > (uint64_t)INT64_MAX;
        rv->ints[i] = (int64_t)(x & (uint64_t)INT64_MAX);
        break;
    }
    case L_BOOL: rv->ints[i] = bit(v, p); break;
    case L_F16: { uint16_t x; memcpy(&x, v + 2 * p, 2); rv->floats[i] = half(x); break; }
    case L_F32: memcpy(&rv->floats[i], v + 4 * p, 4); break;
    case L_F64: {
        double d;
        memcpy(&d, v + 8 * p, 8);
        rv->floats[i] = d > FLT_MAX ? INFINITY : d < -FLT_MAX ? -INFINITY : (float)d;
        break;
    }
    default: { /* bytes */
        const uint8_t *src;
        int64_t len;
        if (n->leaf == L_FIXBIN) {
            src = v + p * n->size;
            len = n->size;
        } else {
            int bits = n->leaf == L_LBIN || n->leaf == L_LUTF8 ? 64 : 32;
            int64_t from = get_offset(v, bits, p);
            len = get_offset(v, bits, p + 1) - from;
            src = (const uint8_t *)n->bufs[2] + from;
        }
        int64_t at = rv->byte_offsets[i];
        CHECK(at + len <= (int64_t)sizeof rv->bytes);
        if (len)
            memcpy(rv->bytes + at, src, (size_t)len);
        rv->byte_offsets[i + 1] = at + len;
    }
    }
}

/* The values below logical entry k of node n (a level under the row). */
static void expand(const node *n, int64_t k, row_values *rv)
{
    int64_t p = n->a.offset + k;
    if (!valid_at(n, p)) {
        rv->null_inside = true;
        return;
    }
    if (n->kind == N_FIXED) {
        for (int64_t m = 0; m < n->size; m++)
            expand(n->child, p * n->size + m, rv);
        return;
    }
    emit(n, p, rv);
}

static value_kind kind_of(const node *n)
{
    while (n->kind != N_LEAF)
        n = n->child;
    return leaves[n->leaf].kind;
}

/* Row r (struct logical index) of column n: false when absent. */
static bool column_row(const node *n, int64_t r, row_values *rv)
{
    memset(rv, 0, sizeof *rv);
    rv->kind = kind_of(n);
    int64_t p = n->a.offset + r;
    if (rv->kind == V_NONE || !valid_at(n, p))
        return false;
    if (n->kind == N_LIST32 || n->kind == N_LIST64) {
        int bits = n->kind == N_LIST64 ? 64 : 32;
        for (int64_t k = get_offset(n->bufs[1], bits, p); k < get_offset(n->bufs[1], bits, p + 1);
             k++)
            expand(n->child, k, rv);
    } else if (n->kind == N_FIXED) {
        for (int64_t m = 0; m < n->size; m++)
            expand(n->child, p * n->size + m, rv);
    } else {
        emit(n, p, rv);
    }
    return true;
}

static int key_cmp(const char *a, const char *b)
{
    size_t an = strlen(a), bn = strlen(b), m = an < bn ? an : bn;
    int c = m ? memcmp(a, b, m) : 0;
    return c ? c : an < bn ? -1 : an > bn;
}

/* ------------------------------------------------------------------ corruption */

/* One inconsistency the encoder must catch (or, where it lies outside what the batch
 * reads, ignore). Returns false when the chosen one does not apply. */
static bool corrupt(input *in, batch *b)
{
    if (!b->nnodes)
        return false;
    node *n = &b->nodes[next(in) % (unsigned)b->nnodes];
    switch (next(in) % 7) {
    case 0: { /* a list offset decreases, goes negative or past the child */
        if (n->kind != N_LIST32 && n->kind != N_LIST64)
            return false;
        int bits = n->kind == N_LIST64 ? 64 : 32;
        int64_t k = (int64_t)(next(in) % (unsigned)(n->a.offset + n->a.length + 1));
        int64_t v = get_offset(n->bufs[1], bits, k);
        unsigned how = next(in) % 3;
        put_offset((void *)(uintptr_t)n->bufs[1], bits, k,
                   how == 0 ? v - 1 : how == 1 ? -5 : n->child->a.length + 1 + v);
        return true;
    }
    case 1: { /* a string offset decreases or goes negative (the data buffer's length is
               * the last offset: larger ones cannot be told from a longer buffer) */
        if (n->kind != N_LEAF || leaves[n->leaf].elem_bits || n->leaf == L_FIXBIN ||
            n->leaf == L_NULL)
            return false;
        int bits = n->leaf == L_LBIN || n->leaf == L_LUTF8 ? 64 : 32;
        int64_t k = (int64_t)(next(in) % (unsigned)(n->a.offset + n->a.length + 1));
        int64_t v = get_offset(n->bufs[1], bits, k);
        put_offset((void *)(uintptr_t)n->bufs[1], bits, k, next(in) & 1 ? v - 1 : -1);
        return true;
    }
    case 2: /* a child shorter than its parent needs */
        if (!n->child || !n->child->a.length)
            return false;
        n->child->a.length--;
        return true;
    case 3: /* a needed buffer missing */
        if (n->a.n_buffers < 2)
            return false;
        n->bufs[1 + next(in) % (unsigned)(n->a.n_buffers - 1)] = NULL;
        return true;
    case 4: /* wrong buffer count */
        n->a.n_buffers += next(in) & 1 ? 1 : -1;
        return n->a.n_buffers >= 0;
    case 5: /* nulls but no bitmap */
        n->a.null_count = n->a.length ? 1 : 0;
        n->bufs[0] = NULL;
        return n->a.n_buffers > 0 && n->a.length;
    default: /* a child missing from the array (the schema still has it) */
        if (!n->child)
            return false;
        n->a.n_children = 0;
        return true;
    }
}

/* ------------------------------------------------------------------ the check */

static row_values cells[MAXROWS][MAXCOLS];
static bool present[MAXROWS][MAXCOLS];

/* tfn_encode_columns' bytes for one row's present cells. */
static size_t reference_row(const batch *b, int ncols, int r, uint8_t *dst, size_t cap)
{
    tfn_column cols[MAXCOLS];
    size_t m = 0;
    for (int c = 0; c < ncols; c++) {
        if (!present[r][c])
            continue;
        const row_values *rv = &cells[r][c];
        tfn_column *col = &cols[m++];
        memset(col, 0, sizeof *col);
        col->key = b->names[c];
        col->key_len = strlen(b->names[c]);
        col->width = rv->count;
        if (rv->kind == V_INT) {
            col->dtype = TFN_INT64;
            col->values = rv->ints;
        } else if (rv->kind == V_FLOAT) {
            col->dtype = TFN_FLOAT32;
            col->values = rv->floats;
        } else {
            col->dtype = TFN_BYTES;
            col->values = rv->bytes;
            col->byte_offsets = rv->byte_offsets;
        }
    }
    if (!m)
        return 0; /* no feature: the empty Example */
    size_t written = 0;
    tfn_error err;
    CHECK(tfn_encode_columns(cols, m, 1, dst, cap, NULL, &written, &err) == TFN_OK);
    return written;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input in = {data, size, 0};
    static batch b;
    memset(&b, 0, sizeof b);
    int64_t nrows = next(&in) % (MAXROWS + 1);
    int ncols = (int)(next(&in) % (MAXCOLS + 1));
    b.s.format = "+s";
    b.s.name = "";
    b.s.n_children = b.a.n_children = ncols;
    b.s.children = b.schild;
    b.a.children = b.achild;
    b.a.n_buffers = 1;
    b.a.buffers = b.bufs;
    b.a.offset = next(&in) % 3;
    b.a.length = nrows;
    int64_t sphys = b.a.offset + nrows;
    if (next(&in) & 1) { /* null rows of the struct itself */
        uint8_t *bits = malloc((size_t)(sphys + 7) / 8 + 1);
        CHECK(bits != NULL);
        for (int64_t k = 0; k < (sphys + 7) / 8; k++)
            bits[k] = (uint8_t)next(&in);
        b.validity_mem = bits;
        b.bufs[0] = bits;
        b.a.null_count = -1;
    }
    static const char *const names[] = {"a", "b", "ab", "", "\xff", "c"};
    for (int c = 0; c < ncols; c++) {
        strcpy(b.names[c], names[next(&in) % 6]);
        /* children are sliced by the struct's offset too */
        b.cols[c] = build(&in, &b, sphys, 0, &b.type_problem[c]);
        b.cols[c]->s.name = b.names[c];
        b.schild[c] = &b.cols[c]->s;
        b.achild[c] = &b.cols[c]->a;
    }

    /* what the encoder must answer: a refusal of the schema, first in column order */
    int want = TFN_OK;
    int64_t want_row = -1;
    for (int c = 0; c < ncols && want == TFN_OK; c++) {
        if (b.type_problem[c])
            want = TFN_E_TYPE;
        for (int d = 0; d < c && want == TFN_OK; d++)
            if (!strcmp(b.names[c], b.names[d]))
                want = TFN_E_INVALID_ARG;
    }
    /* ... or the first row with a null inside a list or a uint64 out of range (columns
     * in key order within a row) */
    int order[MAXCOLS];
    for (int c = 0; c < ncols; c++) {
        int at = c;
        while (at > 0 && key_cmp(b.names[order[at - 1]], b.names[c]) > 0) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = c;
    }
    for (int64_t r = 0; want == TFN_OK && r < nrows; r++) {
        int64_t sp = b.a.offset + r;
        bool row_null = b.bufs[0] && !bit(b.bufs[0], sp);
        for (int k = 0; k < ncols; k++) {
            int c = order[k];
            present[r][c] = !row_null && column_row(b.cols[c], sp, &cells[r][c]);
            if (present[r][c] && (cells[r][c].null_inside || cells[r][c].out_of_range)) {
                want = cells[r][c].null_inside ? TFN_E_INVALID_ARG : TFN_E_OUT_OF_RANGE;
                want_row = r;
                break;
            }
        }
    }

    uint64_t sizes[MAXROWS], total = 0;
    uint64_t offsets[MAXROWS + 1];
    tfn_error err;
    int rc = tfn_arrow_encode_size(&b.s, &b.a, sizes, &total, &err);
    CHECK(rc == want);
    if (want_row >= 0)
        CHECK(err.record_index == (uint64_t)want_row);
    size_t cap = rc == TFN_OK ? (size_t)total : 4096;
    uint8_t *out = malloc(cap + 1);
    CHECK(out != NULL);
    size_t written = 0;
    if (rc == TFN_OK && total) {
        CHECK(tfn_arrow_encode(&b.s, &b.a, out, cap - 1, offsets, &written, &err) ==
                  TFN_E_BUF_TOO_SMALL &&
              written == total);
    }
    rc = tfn_arrow_encode(&b.s, &b.a, out, cap, offsets, &written, &err);
    CHECK(rc == want);
    if (rc == TFN_OK) {
        CHECK(written == total && offsets[0] == 0 && offsets[nrows] == total);
        static uint8_t ref[65536];
        for (int64_t r = 0; r < nrows; r++) {
            CHECK(offsets[r + 1] - offsets[r] == sizes[r]);
            size_t len = reference_row(&b, ncols, (int)r, ref, sizeof ref);
            CHECK(len == sizes[r]);
            CHECK(len == 0 || memcmp(out + offsets[r], ref, len) == 0);
        }
    }

    /* one corruption: refused, or encoded with no read out of bounds */
    if (next(&in) & 1 && corrupt(&in, &b)) {
        rc = tfn_arrow_encode_size(&b.s, &b.a, NULL, &total, &err);
        if (rc == TFN_OK) {
            free(out);
            out = malloc((size_t)total + 1);
            CHECK(out != NULL);
            CHECK(tfn_arrow_encode(&b.s, &b.a, out, (size_t)total, NULL, &written, &err) ==
                  TFN_OK);
            CHECK(written == total);
        } else {
            CHECK(rc == TFN_E_INVALID_ARG || rc == TFN_E_TYPE || rc == TFN_E_OUT_OF_RANGE);
        }
    }
    free(out);
    free_batch(&b);
    return 0;
}

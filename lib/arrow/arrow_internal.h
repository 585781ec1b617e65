/* arrow_internal.h - a record batch exported through the Arrow C data interface, seen
 * as columns ready for the Example writer: each column resolved once (type, buffers,
 * offsets checked) by arrow_columns.c, then encoded row by row by arrow_encode.c. */
#ifndef TFN_ARROW_INTERNAL_H
#define TFN_ARROW_INTERNAL_H

#include "../example/column_internal.h"

/* The element type at the bottom of a column. */
typedef enum leaf_type {
    LEAF_NULL, /* type "n": every row absent */
    LEAF_I8,
    LEAF_I16,
    LEAF_I32,
    LEAF_I64,
    LEAF_U8,
    LEAF_U16,
    LEAF_U32,
    LEAF_U64,
    LEAF_BOOL,
    LEAF_F16,
    LEAF_F32,
    LEAF_F64,
    LEAF_BIN32,    /* binary / utf8: int32 offsets */
    LEAF_BIN64,    /* large_binary / large_utf8: int64 offsets */
    LEAF_FIXED_BIN /* fixed_size_binary: `byte_width` bytes each */
} leaf_type;

/* Levels below the column: at most one list, then fixed-size lists, then the leaf. */
#define TFN_ARROW_MAX_LEVELS 16

/* One level of a column: a list, a fixed-size list or the leaf array. */
typedef struct arrow_level {
    const struct ArrowArray *array;
    const uint8_t *validity; /* NULL: no null below this level to look for */
    int64_t offset;          /* the array's own offset */
    int64_t list_size;       /* fixed-size lists: elements per entry */
} arrow_level;

typedef struct arrow_column {
    const char *key;
    size_t key_len;
    size_t index; /* position in the struct, for messages */
    const char *format;
    leaf_type leaf;
    int kind; /* TFN_KIND_* written */
    /* the column's own array: row i is its element `row_base + i` of its buffers */
    const uint8_t *row_validity; /* NULL: no absent row */
    int64_t row_base;            /* the struct's offset + the column's own offset */
    bool all_absent;
    /* a variable-length list at the top: its offsets (int32 or int64) */
    int list_bits; /* 0, 32 or 64 */
    const void *list_offsets;
    /* fixed-size lists, then the leaf (levels[nlevels - 1]); with a list at the top,
     * levels[0] is the list's child */
    arrow_level levels[TFN_ARROW_MAX_LEVELS];
    int nlevels;
    bool inner_nulls; /* some level below the row may hold nulls: checked per row */
    int64_t width;    /* leaf elements per row without a list (product of list sizes) */
    bool dense;       /* no list, no null below the row: row i is leaf elements
                         [dense_begin + i * width, ... + width) */
    int64_t dense_begin;
    /* the leaf's buffers */
    const void *values;         /* numbers, bits, or string bytes */
    const void *byte_offsets;   /* binary: int32 / int64 offsets */
    int64_t byte_width;         /* fixed_size_binary */
    size_t max_row;             /* leaf elements in the longest present row */
    uint8_t *stage;             /* staged integer row, or NULL */
} arrow_column;

/* The batch: its struct array and resolved columns (sorted by key). */
typedef struct arrow_batch {
    const struct ArrowArray *array;
    const uint8_t *struct_validity; /* null rows of the struct itself, or NULL */
    int64_t struct_first;           /* the struct's offset */
    size_t nrows;
    size_t ncols;
    arrow_column *cols;
} arrow_batch;

/* Resolves and checks the batch (columns allocated with `alloc`, sorted by key);
 * arrow_batch_free releases them. On error nothing is left allocated. */
int tfn__arrow_batch_init(arrow_batch *b, const tfn__alloc *alloc,
                          const struct ArrowSchema *schema, const struct ArrowArray *array,
                          tfn_error *err);
void tfn__arrow_batch_free(arrow_batch *b, const tfn__alloc *alloc);

/* Bit i of an Arrow bitmap. */
static inline bool tfn__arrow_bit(const uint8_t *bits, int64_t i)
{
    return (bits[i >> 3] >> (i & 7)) & 1;
}

/* Entry k (a physical index, >= 0) of an int32 (bits 32) or int64 list or binary
 * offsets buffer, at any alignment. */
static inline int64_t tfn__arrow_offset(const void *buf, int bits, int64_t k)
{
    return bits == 32 ? tfn__ld_i32(buf, (size_t)k) : tfn__ld_i64(buf, (size_t)k);
}

/* Bytes a value takes at least (a longer row than 2 GiB / this cannot be written). */
static inline size_t tfn__arrow_least_bytes(leaf_type leaf)
{
    switch (leaf) {
    case LEAF_F16:
    case LEAF_F32:
    case LEAF_F64:
        return 4;
    case LEAF_BIN32:
    case LEAF_BIN64:
    case LEAF_FIXED_BIN:
        return 2;
    default:
        return 1;
    }
}

#endif

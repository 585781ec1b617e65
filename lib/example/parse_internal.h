/*
 * parse_internal.h - the compiled spec and the parser context shared by spec.c,
 * parse_scan.c and parse_fill.c.
 */
#ifndef TFN_PARSE_INTERNAL_H
#define TFN_PARSE_INTERNAL_H

#include "../base/tfn_internal.h"

/* One compiled feature config. */
typedef struct tfn__dense {
    char *key;
    size_t key_len;
    int type;      /* tfn_feature_type */
    int dtype;     /* TFN_INT64, TFN_FLOAT32, TFN_BYTES */
    int out_dtype; /* dtype, or TFN_INT32 for int64 features */
    int64_t *shape;
    size_t rank;
    size_t stride;        /* elements per row (FixedLen: the whole feature) */
    char shape_str[96];   /* TF's DebugString of the output shape: "[2,3]", "[?,2]" */
    void *default_value;  /* stride elements (FixedLen) or 1 (FixedLenSequence) */
    size_t default_count; /* 0: required (FixedLen) / zero padding (FixedLenSequence) */
} tfn__dense;

struct tfn_spec {
    tfn__alloc alloc;
    tfn__arena arena;
    tfn__dense *dense;
    size_t n;
    size_t *sorted;      /* feature indices in key order (TF reports missing ones so) */
    uint32_t *index;     /* open-addressing hash: key -> feature index + 1 */
    size_t index_cap;
};

/* Where one feature's values sit in one example, found by the scan. */
typedef struct tfn__slot {
    const uint8_t *data; /* first value byte (packed payload or first element's tag) */
    const uint8_t *end;  /* end of the value region */
    size_t count;        /* number of values (TF's count, see parse_scan.c) */
    uint8_t present;     /* the example had this feature with a kind */
    uint8_t packed;      /* numeric values are one packed run */
    uint8_t done;        /* tfn_parser_parse decoded the values during the scan */
} tfn__slot;

/* A map entry of the example being scanned: key and serialized Feature. */
typedef struct tfn__entry {
    const uint8_t *key;
    size_t key_len;
    const uint8_t *value;
    size_t value_len;
} tfn__entry;

/* Map entries whose feature the parser remembers from the previous example. */
#define TFN__KEY_HINTS 32

struct tfn_parser {
    tfn__alloc alloc;
    const tfn_spec *spec;
    tfn__slot *slots; /* n examples x spec->n features, example-major */
    size_t slots_cap;
    size_t *max_rows; /* per feature */
    tfn__entry *entries;
    size_t entries_cap;
    size_t *seen; /* per feature: last example index + 1 that set it */
    size_t n;     /* examples in the last successful scan */
    bool scanned;
    int simd; /* the SIMD level of the varint code (varint_internal.h) */
    /* tfn_parser_parse: the outputs, and per feature whether the scan decodes its
     * values straight into them (FixedLen numeric features with room for the batch) */
    const tfn_output *fuse;
    uint8_t *fuse_ok;
    /* feature index + 1 of map entry k in the last example scanned (0: none) */
    uint32_t key_hint[TFN__KEY_HINTS];
};

/* Feature index of `key`, or SIZE_MAX. */
size_t tfn__spec_find(const tfn_spec *spec, const uint8_t *key, size_t key_len);

/* The value list of a serialized Feature (its bytes from the kind tag on), read with
 * the VarLen rules of the scan: *dtype gets its kind (TFN_DTYPE_NONE for a kind-less
 * Feature, which holds no values, or -1 for an unknown kind tag) and `slot` where
 * the values are. False when the list is malformed. (parse_scan.c) */
bool tfn__read_feature(const uint8_t *value, size_t len, int *dtype, tfn__slot *slot);

/* Decodes a packed run [p, end) into `want` values of out_dtype (TFN_INT64 or TFN_INT32)
 * at dst, when the run holds exactly `want` varints, none over 10 bytes, and for int32
 * every value fits; false otherwise (dst then holds anything). (parse_fill.c) */
bool tfn__decode_exact(int out_dtype, const uint8_t *p, const uint8_t *end, void *dst,
                       size_t want, int simd);

/* Decodes the `count` values of a slot read above into int64_t / float / tfn_bytes
 * (by dtype). (parse_fill.c) */
void tfn__decode_slot(int dtype, const tfn__slot *slot, void *dst, size_t count);

#endif

/*
 * example_internal.h - the tfn_example object and the wire-size / wire-write helpers
 * shared by the Example serializer and the columnar batch encoder.
 *
 * Encoding is bottom-up: every nested length is computed once from the values, then
 * bytes are written front to back with a raw cursor into a buffer of exactly the
 * computed size (no nested sizing passes, no per-write bounds checks).
 */
#ifndef TFN_EXAMPLE_INTERNAL_H
#define TFN_EXAMPLE_INTERNAL_H

#include "proto/example.pb.h"
#include "../base/tfn_internal.h"

/* Tag bytes, from the generated schema: (field number << 3) | wire type. */
#define TFN_TAG(field, wt) ((uint8_t)(((field) << 3) | (wt)))
enum {
    TAG_EXAMPLE_FEATURES = TFN_TAG(tensorflow_Example_features_tag, TFN_WT_LEN),
    TAG_FEATURES_ENTRY = TFN_TAG(tensorflow_Features_feature_tag, TFN_WT_LEN),
    TAG_ENTRY_KEY = TFN_TAG(tensorflow_Features_FeatureEntry_key_tag, TFN_WT_LEN),
    TAG_ENTRY_VALUE = TFN_TAG(tensorflow_Features_FeatureEntry_value_tag, TFN_WT_LEN),
    TAG_FEATURE_BYTES = TFN_TAG(tensorflow_Feature_bytes_list_tag, TFN_WT_LEN),
    TAG_FEATURE_FLOAT = TFN_TAG(tensorflow_Feature_float_list_tag, TFN_WT_LEN),
    TAG_FEATURE_INT64 = TFN_TAG(tensorflow_Feature_int64_list_tag, TFN_WT_LEN),
    TAG_LIST_PACKED = TFN_TAG(tensorflow_Int64List_value_tag, TFN_WT_LEN),
    TAG_INT64_UNPACKED = TFN_TAG(tensorflow_Int64List_value_tag, TFN_WT_VARINT),
    TAG_FLOAT_UNPACKED = TFN_TAG(tensorflow_FloatList_value_tag, TFN_WT_FIXED32)
};

/* One feature of a tfn_example. Values live in the example's arena. */
typedef struct tfn__feat {
    const char *key;
    size_t key_len;
    int kind;
    size_t count;
    void *values; /* int64_t[], float[] or tfn_bytes[] */
    /* sizes cached by the serializer's sizing pass */
    uint64_t payload_size; /* packed values / bytes elements */
    uint64_t entry_size;   /* the whole map entry message */
} tfn__feat;

struct tfn_example {
    tfn__alloc alloc;
    tfn__arena arena;
    tfn__feat *feats;
    size_t n, cap;
    uint32_t *index; /* open-addressing hash: slot -> feature index + 1 (0 = empty) */
    size_t index_cap;
    bool features_present;
    tfn__feat **sorted; /* key order for serialization; valid while !sorted_dirty */
    size_t sorted_cap;
    bool sorted_dirty;
    uint8_t *owned; /* tfn_example_serialize_owned's buffer */
    size_t owned_cap;
    uint8_t *scratch; /* the decoder's list accumulator; the serializer's staging area */
    size_t scratch_cap;
};

/* ---- sizes ---- */

/* For a value below 2^28 with c leading zero bits (c >= 4): its varint's length, and
 * the continuation bits of all its bytes but the last. */
static const uint8_t tfn__varint28_len[32] = {
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3,
    3, 3, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
};
static const uint32_t tfn__varint28_cont[32] = {
    0x808080, 0x808080, 0x808080, 0x808080, 0x808080, 0x808080, 0x808080, 0x808080,
    0x808080, 0x808080, 0x808080, 0x8080, 0x8080, 0x8080, 0x8080, 0x8080,
    0x8080, 0x8080, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0x80, 0, 0, 0, 0, 0, 0, 0,
};

static inline uint64_t tfn__len_field_size(uint64_t payload)
{
    return 1 + tfn__varint_size(payload) + payload;
}

/* Value arrays below are the caller's int64 / int32 / float elements at any alignment
 * (read with tfn__ld_*: the same loads as typed reads where the CPU allows it). */

/* Bitwise OR of the int64 values v[0..7]: below 0x80 when all eight are one-byte
 * varints. */
static inline uint64_t tfn__or8(const void *v)
{
    uint64_t any = 0;
    TFN_UNROLL8
    for (size_t k = 0; k < 8; k++)
        any |= (uint64_t)tfn__ld_i64(v, k);
    return any;
}

/* Bytes of the packed varints of n int64 values (blocks of eight one-byte values,
 * padding and masks, are counted at once; blocks below 2^28 from the table). */
static inline uint64_t tfn__int64s_payload(const void *v, size_t n)
{
    uint64_t size = 0;
    size_t i = 0;
    for (; n - i >= 8; i += 8) {
        uint64_t any = tfn__or8(tfn__elem(v, i, 8));
        if (any < 0x80) {
            size += 8;
        } else if (any < (1u << 28)) {
            TFN_UNROLL8
            for (size_t k = 0; k < 8; k++)
                size += tfn__varint28_len[__builtin_clz((uint32_t)tfn__ld_i64(v, i + k) | 1u)];
        } else {
            TFN_UNROLL8
            for (size_t k = 0; k < 8; k++)
                size += tfn__varint_size((uint64_t)tfn__ld_i64(v, i + k));
        }
    }
    for (; i < n; i++)
        size += tfn__varint_size((uint64_t)tfn__ld_i64(v, i));
    return size;
}

static inline uint64_t tfn__int32s_payload(const void *v, size_t n)
{
    uint64_t size = 0;
    for (size_t i = 0; i < n; i++)
        size += tfn__varint_size((uint64_t)(int64_t)tfn__ld_i32(v, i));
    return size;
}

/* Size of a Feature message whose list has `payload` bytes of values (numeric lists:
 * one packed field, omitted when empty; bytes lists: payload already counts tags). */
static inline uint64_t tfn__feature_size(int kind, uint64_t payload)
{
    if (kind == TFN_KIND_NONE)
        return 0;
    uint64_t list = payload;
    if (kind != TFN_KIND_BYTES && payload > 0)
        list = tfn__len_field_size(payload);
    return tfn__len_field_size(list);
}

/* Size of a map entry message (key and value fields are always written). */
static inline uint64_t tfn__entry_size(size_t key_len, uint64_t feature_size)
{
    return tfn__len_field_size(key_len) + tfn__len_field_size(feature_size);
}

/* ---- writers: the caller guarantees room (sizes were computed first) ---- */

static inline uint8_t *tfn__put_len_prefix(uint8_t *p, uint8_t tag, uint64_t len)
{
    *p++ = tag;
    return tfn__put_varint(p, len);
}

/* One varint with the one- and two-byte cases (most token ids) inline. */
static inline uint8_t *tfn__put_varint_fast(uint8_t *p, uint64_t u)
{
    if (TFN_LIKELY(u < 0x80)) {
        *p = (uint8_t)u;
        return p + 1;
    }
    if (u < 0x4000) {
        p[0] = (uint8_t)(u | 0x80);
        p[1] = (uint8_t)(u >> 7);
        return p + 2;
    }
    return tfn__put_varint(p, u);
}

/* One varint of a value below 2^28 without a branch on its length (token ids are a
 * random mix of 1- to 3-byte varints, so branching on each length mispredicts): all
 * four bytes are stored, only its length of them count. The caller ensures 4 bytes of
 * room. */
static inline uint8_t *tfn__put_varint28(uint8_t *p, uint32_t x)
{
    int zeros = __builtin_clz(x | 1u);
    /* the 7-bit groups spread to bytes: 14-bit halves first, then 7-bit quarters */
    uint32_t t = (x & 0x3fffu) | ((x << 2) & 0x3fff0000u);
    uint32_t w = (t & 0x007f007fu) | ((t << 1) & 0x7f007f00u);
    tfn__store_le32(p, w | tfn__varint28_cont[zeros]);
    return p + tfn__varint28_len[zeros];
}

/* Packed int64 values (int32 ones are sign-extended, as protobuf writes them).
 * Blocks of 8: eight values below 0x80 (padding, masks) are packed into one 8-byte
 * store, values below 2^28 take the branch-free path. Blocks are only taken while at
 * least 3 values follow them, so the 4-byte stores never reach past the run's end
 * (every later value takes at least one byte and overwrites the extra ones). */
static inline uint8_t *tfn__put_int64s(uint8_t *p, const void *v, size_t n)
{
    size_t i = 0;
    for (; n - i >= 11; i += 8) {
        /* columns stream from memory: ask for the values 1 KiB ahead (the address is
         * computed as an integer: no pointer arithmetic past the array) */
        __builtin_prefetch((const void *)((uintptr_t)tfn__elem(v, i, 8) + 1024));
        uint64_t any = tfn__or8(tfn__elem(v, i, 8));
        if (any < 0x80) {
            uint64_t w = 0;
            TFN_UNROLL8
            for (size_t k = 0; k < 8; k++)
                w |= (uint64_t)tfn__ld_i64(v, i + k) << (8 * k);
            tfn__store_le64(p, w);
            p += 8;
        } else if (any < (1u << 28)) {
            TFN_UNROLL8
            for (size_t k = 0; k < 8; k++)
                p = tfn__put_varint28(p, (uint32_t)tfn__ld_i64(v, i + k));
        } else {
            for (size_t k = 0; k < 8; k++)
                p = tfn__put_varint(p, (uint64_t)tfn__ld_i64(v, i + k));
        }
    }
    for (; i < n; i++)
        p = tfn__put_varint_fast(p, (uint64_t)tfn__ld_i64(v, i));
    return p;
}

static inline uint8_t *tfn__put_int32s(uint8_t *p, const void *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p = tfn__put_varint_fast(p, (uint64_t)(int64_t)tfn__ld_i32(v, i));
    return p;
}

static inline uint8_t *tfn__put_floats(uint8_t *p, const void *v, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n)
        memcpy(p, v, n * 4);
    return p + n * 4;
#else
    for (size_t i = 0; i < n; i++, p += 4)
        tfn__store_le32(p, tfn__float_bits(tfn__ld_f32(v, i)));
    return p;
#endif
}

/* Writes the Feature prefix (kind tag, list length, packed-field tag and length) for a
 * feature of `kind` whose values take `payload` bytes; the caller writes the values. */
static inline uint8_t *tfn__put_feature_head(uint8_t *p, int kind, uint64_t payload)
{
    if (kind == TFN_KIND_NONE)
        return p;
    uint8_t tag = kind == TFN_KIND_INT64   ? TAG_FEATURE_INT64
                  : kind == TFN_KIND_FLOAT ? TAG_FEATURE_FLOAT
                                           : TAG_FEATURE_BYTES;
    if (kind == TFN_KIND_BYTES)
        return tfn__put_len_prefix(p, tag, payload);
    if (payload == 0)
        return tfn__put_len_prefix(p, tag, 0);
    p = tfn__put_len_prefix(p, tag, tfn__len_field_size(payload));
    return tfn__put_len_prefix(p, TAG_LIST_PACKED, payload);
}

/* Writes the map-entry prefix up to the start of the Feature's content. */
static inline uint8_t *tfn__put_entry_head(uint8_t *p, const char *key, size_t key_len,
                                           uint64_t entry_size, uint64_t feature_size)
{
    p = tfn__put_len_prefix(p, TAG_FEATURES_ENTRY, entry_size);
    p = tfn__put_len_prefix(p, TAG_ENTRY_KEY, key_len);
    if (key_len)
        memcpy(p, key, key_len);
    p += key_len;
    return tfn__put_len_prefix(p, TAG_ENTRY_VALUE, feature_size);
}

/* Key order of protobuf's deterministic serialization: bytewise, shorter prefix first. */
static inline int tfn__key_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    size_t m = an < bn ? an : bn;
    int c = m ? memcmp(a, b, m) : 0;
    if (c != 0)
        return c;
    return an < bn ? -1 : an > bn ? 1 : 0;
}

/* FNV-1a of a key, for the example's and the spec's key indexes. */
static inline uint32_t tfn__key_hash(const char *key, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) {
        h ^= (uint8_t)key[i];
        h *= 16777619u;
    }
    return h;
}

/* Shared with the decoder: add (or replace) a feature whose values the caller then
 * fills; returns NULL when out of memory. The key is copied unless `key_is_stable`. */
tfn__feat *tfn__example_put(tfn_example *ex, const char *key, size_t key_len, int kind,
                            size_t count, size_t elem_size, bool key_is_stable);

#endif

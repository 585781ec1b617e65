/*
 * fuzz_example_parse.c - libFuzzer harness for both Example readers.
 *  - tfn_example_decode (protobuf semantics): if it accepts the input, serializing the
 *    result and decoding that again must give the same features (a round trip).
 *  - tfn_parser (TF semantics) under a spec chosen by the first byte, on 1-4 records
 *    cut from the rest of the input, single and batch; a successful scan must fill
 *    outputs sized from tfn_parser_max_rows, and the rows reported must be consistent.
 * Any crash, sanitizer report or broken invariant (abort) is a finding.
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

static void same_features(const tfn_example *a, const tfn_example *b)
{
    CHECK(tfn_example_size(a) == tfn_example_size(b));
    for (size_t i = 0; i < tfn_example_size(a); i++) {
        tfn_feature fa, fb;
        CHECK(tfn_example_at(a, i, &fa) == TFN_OK);
        CHECK(tfn_example_find(b, fa.key, fa.key_len, &fb) == TFN_OK);
        CHECK(fa.kind == fb.kind && fa.count == fb.count);
        if (fa.kind == TFN_KIND_INT64 && fa.count)
            CHECK(memcmp(fa.int64s, fb.int64s, fa.count * sizeof(int64_t)) == 0);
        if (fa.kind == TFN_KIND_FLOAT && fa.count)
            CHECK(memcmp(fa.floats, fb.floats, fa.count * sizeof(float)) == 0);
        for (size_t k = 0; fa.kind == TFN_KIND_BYTES && k < fa.count; k++)
            CHECK(fa.bytes[k].len == fb.bytes[k].len &&
                  (fa.bytes[k].len == 0 ||
                   memcmp(fa.bytes[k].data, fb.bytes[k].data, fa.bytes[k].len) == 0));
    }
}

static void fuzz_decode(const uint8_t *data, size_t size)
{
    tfn_example *ex = tfn_example_new(NULL), *again = tfn_example_new(NULL);
    tfn_error err;
    if (tfn_example_decode(ex, data, size, size % 2 ? TFN_DECODE_BORROW : 0, &err) == TFN_OK) {
        const uint8_t *out;
        size_t len;
        CHECK(tfn_example_serialize_owned(ex, &out, &len, &err) == TFN_OK);
        CHECK(len == tfn_example_serialized_size(ex));
        CHECK(tfn_example_decode(again, out, len, 0, &err) == TFN_OK);
        same_features(ex, again);
    } else {
        CHECK(err.code < 0 && err.msg[0] != '\0');
    }
    tfn_example_free(again);
    tfn_example_free(ex);
}

/* Specs that cover every dtype, FixedLen and FixedLenSequence, defaults and int32. */
static const int64_t S2[1] = {2}, S21[2] = {2, 1};
static const int64_t DEF_I64[2] = {-1, 7};
static const float DEF_F[2] = {0.5f, -2.0f};

static void fuzz_parser(const uint8_t *data, size_t size)
{
    if (size < 2)
        return;
    tfn_feature_config cfg[4];
    memset(cfg, 0, sizeof cfg);
    cfg[0] = (tfn_feature_config){.key = "a", .key_len = 1, .type = TFN_FIXED_LEN, .dtype = TFN_INT64};
    cfg[1] = (tfn_feature_config){.key = "b", .key_len = 1, .type = TFN_FIXED_LEN_SEQUENCE,
                                  .dtype = TFN_FLOAT32, .shape = S2, .rank = 1, .allow_missing = 1};
    cfg[2] = (tfn_feature_config){.key = "c", .key_len = 1, .type = TFN_FIXED_LEN_SEQUENCE,
                                  .dtype = TFN_BYTES, .allow_missing = 1};
    cfg[3] = (tfn_feature_config){.key = "", .key_len = 0, .type = TFN_FIXED_LEN,
                                  .dtype = TFN_FLOAT32, .shape = S2, .rank = 1};
    uint8_t mode = data[0];
    if (mode & 1) {
        cfg[0].default_value = DEF_I64;
        cfg[0].default_count = 1;
        cfg[0].out_dtype = TFN_INT32;
    }
    if (mode & 2) {
        cfg[0].type = TFN_FIXED_LEN_SEQUENCE;
        cfg[0].allow_missing = 1;
        cfg[0].shape = S21;
        cfg[0].rank = 2;
        cfg[0].default_count = mode & 1;
    }
    if (mode & 4) {
        cfg[3].default_value = DEF_F;
        cfg[3].default_count = 2;
    }
    tfn_spec *spec;
    tfn_error err;
    CHECK(tfn_spec_new(cfg, 4, NULL, &spec, &err) == TFN_OK);
    tfn_parser *p = tfn_parser_new(spec, NULL);
    CHECK(p);
    /* cut the rest into up to 4 records at the positions the second byte gives */
    const uint8_t *rest = data + 2;
    size_t rest_len = size - 2, nrec = (size_t)(data[1] % 4) + 1;
    tfn_bytes recs[4];
    size_t at = 0;
    for (size_t i = 0; i < nrec; i++) {
        size_t len = i + 1 == nrec ? rest_len - at : (rest_len - at) / (nrec - i);
        recs[i].data = rest + at;
        recs[i].len = len;
        at += len;
    }
    unsigned flags = (nrec == 1 && (mode & 8)) ? TFN_PARSE_SINGLE : TFN_PARSE_BATCH;
    int rc = tfn_parser_scan(p, recs, nrec, NULL, flags, &err);
    if (rc == TFN_OK) {
        tfn_output outs[4];
        void *bufs[4];
        int64_t lengths[4];
        uint8_t *masks[4];
        for (size_t j = 0; j < 4; j++) {
            size_t rows = tfn_parser_max_rows(p, j), stride = tfn_spec_stride(spec, j);
            for (size_t i = 0; i < nrec; i++)
                CHECK(tfn_parser_rows(p, j, i) <= rows);
            size_t n = nrec * rows * stride;
            bufs[j] = malloc(n * sizeof(tfn_bytes) + 1);
            masks[j] = malloc(nrec * rows + 1);
            outs[j] = (tfn_output){bufs[j], n, -1, lengths, masks[j]};
        }
        rc = tfn_parser_fill(p, outs, &err);
        CHECK(rc == TFN_OK || rc == TFN_E_OUT_OF_RANGE);
        for (size_t j = 0; j < 4; j++) {
            free(bufs[j]);
            free(masks[j]);
        }
    } else {
        CHECK(rc < 0 && err.msg[0] != '\0' && err.record_index < nrec);
    }
    tfn_parser_free(p);
    tfn_spec_free(spec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_decode(data, size);
    fuzz_parser(data, size);
    return 0;
}

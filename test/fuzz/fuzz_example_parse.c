/*
 * fuzz_example_parse.c - libFuzzer harness for both Example readers.
 *  - tfn_example_decode (protobuf semantics): if it accepts the input, serializing the
 *    result and decoding that again must give the same features (a round trip).
 *  - tfn_parser (TF semantics) under one of two spec shapes (every dtype, FixedLen
 *    and FixedLenSequence, defaults, int32 output) chosen by the first byte, on 1-4
 *    records cut from the rest of the input, single and batch: a successful scan must
 *    fill outputs sized from tfn_parser_max_rows or a max_rows limit, with lengths and
 *    masks that match the rows reported; single and batch agree on the status, and
 *    tfn_parser_parse gives what scan + fill give. A third spec shape mixes TFN_VAR_LEN
 *    features (every dtype, int32 output) with a FixedLen one: the values filled are
 *    tfn_parser_total() and the row splits add up the per-example counts.
 *    Every parse is also made with the portable varint code (a parser set to
 *    TFN__SIMD_NONE): status, message and values must be the same as with the SIMD
 *    code this CPU runs.
 * Any crash, sanitizer report or broken invariant (abort) is a finding.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tfnano.h"

#include "../../lib/example/parse_internal.h"
#include "../../lib/example/varint_internal.h"

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

/* Two spec shapes that between them cover every dtype, FixedLen (scalar, 1-D, 2-D)
 * and FixedLenSequence (scalar, 1-D and 2-D steps), defaults, padding values and
 * int32 output. */
static const int64_t S1[1] = {1}, S2[1] = {2}, S3[1] = {3}, S21[2] = {2, 1}, S22[2] = {2, 2};
static const int64_t DEF_I64[4] = {-1, 7, INT32_MAX, INT32_MIN};
static const float DEF_F[2] = {0.5f, -2.0f};
static const tfn_bytes DEF_B[1] = {{(const uint8_t *)"x", 1}};

enum { NFEAT = 4 };

static void spec_a(uint8_t mode, tfn_feature_config *cfg)
{
    cfg[0] = (tfn_feature_config){.key = "a", .key_len = 1, .type = TFN_FIXED_LEN, .dtype = TFN_INT64};
    cfg[1] = (tfn_feature_config){.key = "b", .key_len = 1, .type = TFN_FIXED_LEN_SEQUENCE,
                                  .dtype = TFN_FLOAT32, .shape = S2, .rank = 1, .allow_missing = 1};
    cfg[2] = (tfn_feature_config){.key = "c", .key_len = 1, .type = TFN_FIXED_LEN_SEQUENCE,
                                  .dtype = TFN_BYTES, .allow_missing = 1};
    cfg[3] = (tfn_feature_config){.key = "", .key_len = 0, .type = TFN_FIXED_LEN,
                                  .dtype = TFN_FLOAT32, .shape = S2, .rank = 1};
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
}

/* The keys are those of spec A, so the same inputs exercise both. */
static void spec_b(uint8_t mode, tfn_feature_config *cfg)
{
    cfg[0] = (tfn_feature_config){.key = "a", .key_len = 1, .type = TFN_FIXED_LEN,
                                  .dtype = TFN_INT64, .out_dtype = TFN_INT32, .shape = S22,
                                  .rank = 2};
    cfg[1] = (tfn_feature_config){.key = "b", .key_len = 1, .type = TFN_FIXED_LEN,
                                  .dtype = TFN_BYTES, .shape = S1, .rank = 1};
    cfg[2] = (tfn_feature_config){.key = "c", .key_len = 1, .type = TFN_FIXED_LEN_SEQUENCE,
                                  .dtype = TFN_INT64, .shape = S3, .rank = 1, .allow_missing = 1};
    cfg[3] = (tfn_feature_config){.key = "", .key_len = 0, .type = TFN_FIXED_LEN_SEQUENCE,
                                  .dtype = TFN_FLOAT32, .allow_missing = 1};
    if (mode & 1) {
        cfg[0].default_value = DEF_I64;
        cfg[0].default_count = 4;
        cfg[2].out_dtype = TFN_INT32;
    }
    if (mode & 2) {
        cfg[1].default_value = DEF_B;
        cfg[1].default_count = 1;
        cfg[2].default_value = DEF_I64 + 2;
        cfg[2].default_count = 1;
    }
    if (mode & 4) {
        cfg[3].default_value = DEF_F + 1;
        cfg[3].default_count = 1;
    }
}

/* VarLen features (TF's sparse / ragged path) beside a FixedLen one. */
static void spec_c(uint8_t mode, tfn_feature_config *cfg)
{
    cfg[0] = (tfn_feature_config){.key = "a", .key_len = 1, .type = TFN_VAR_LEN,
                                  .dtype = TFN_INT64};
    cfg[1] = (tfn_feature_config){.key = "b", .key_len = 1, .type = TFN_VAR_LEN,
                                  .dtype = TFN_FLOAT32};
    cfg[2] = (tfn_feature_config){.key = "c", .key_len = 1, .type = TFN_VAR_LEN,
                                  .dtype = TFN_BYTES};
    cfg[3] = (tfn_feature_config){.key = "", .key_len = 0, .type = TFN_FIXED_LEN,
                                  .dtype = TFN_FLOAT32, .shape = S2, .rank = 1};
    if (mode & 1)
        cfg[0].out_dtype = TFN_INT32;
    if (mode & 2) {
        cfg[2].type = TFN_FIXED_LEN_SEQUENCE;
        cfg[2].allow_missing = 1;
    }
    if (mode & 4) {
        cfg[3].default_value = DEF_F;
        cfg[3].default_count = 2;
    }
}

static size_t out_size(const tfn_feature_config *cfg)
{
    int dt = cfg->out_dtype ? cfg->out_dtype : cfg->dtype;
    return dt == TFN_INT32 ? 4 : dt == TFN_FLOAT32 ? 4 : dt == TFN_INT64 ? 8 : sizeof(tfn_bytes);
}

/* Outputs of one fill: values, lengths and masks of every feature. */
typedef struct filled {
    void *values[NFEAT];
    size_t count[NFEAT];
    int64_t lengths[NFEAT][4];
    uint8_t *mask[NFEAT];
    size_t rows[NFEAT];
} filled;

static void filled_free(filled *f)
{
    for (size_t j = 0; j < NFEAT; j++) {
        free(f->values[j]);
        free(f->mask[j]);
    }
}

/* Sizes outputs for n records with `max_rows` (-1: the scan's longest) and fills. */
static int fill_outputs(tfn_parser *p, const tfn_spec *spec, const tfn_feature_config *cfg,
                        size_t nrec, int64_t max_rows, int one_call, const tfn_bytes *recs,
                        unsigned flags, filled *f, tfn_error *err)
{
    tfn_output outs[NFEAT];
    memset(f, 0, sizeof *f);
    size_t bytes = 0; /* every value takes at least one byte of its record */
    for (size_t i = 0; i < nrec; i++)
        bytes += recs[i].len;
    for (size_t j = 0; j < NFEAT; j++) {
        if (cfg[j].type == TFN_VAR_LEN) {
            size_t n = one_call ? bytes : tfn_parser_total(p, j);
            f->values[j] = calloc(n + 1, out_size(&cfg[j]));
            outs[j] = (tfn_output){f->values[j], n, -1, f->lengths[j], NULL};
            continue;
        }
        int seq = cfg[j].type == TFN_FIXED_LEN_SEQUENCE;
        size_t rows = !seq ? 1 : max_rows >= 0 ? (size_t)max_rows : tfn_parser_max_rows(p, j);
        size_t n = nrec * rows * tfn_spec_stride(spec, j);
        f->rows[j] = rows;
        f->count[j] = n;
        f->values[j] = calloc(n + 1, out_size(&cfg[j]));
        f->mask[j] = malloc(nrec * rows + 1);
        outs[j] = (tfn_output){f->values[j], n, seq ? max_rows : -1, f->lengths[j], f->mask[j]};
    }
    int rc = one_call ? tfn_parser_parse(p, recs, nrec, NULL, flags, outs, err)
                      : tfn_parser_fill(p, outs, err);
    for (size_t j = 0; j < NFEAT; j++)
        if (cfg[j].type == TFN_VAR_LEN)
            f->count[j] = tfn_parser_total(p, j);
    return rc;
}

/* After a successful fill: lengths are the rows each example had, masks mark the rows
 * kept, and sequences were truncated to max_rows. */
static void check_rows(const tfn_parser *p, const tfn_feature_config *cfg, size_t nrec,
                       const filled *f)
{
    for (size_t j = 0; j < NFEAT; j++) {
        if (cfg[j].type == TFN_VAR_LEN) {
            int64_t splits[5];
            CHECK(tfn_parser_row_splits(p, j, splits, NULL) == TFN_OK);
            CHECK(splits[0] == 0 && (size_t)splits[nrec] == tfn_parser_total(p, j));
            for (size_t i = 0; i < nrec; i++)
                CHECK(splits[i + 1] - splits[i] == f->lengths[j][i] &&
                      (size_t)f->lengths[j][i] == tfn_parser_rows(p, j, i));
            continue;
        }
        CHECK(tfn_parser_row_splits(p, j, NULL, NULL) == TFN_E_INVALID_ARG);
        for (size_t i = 0; i < nrec; i++) {
            size_t had = tfn_parser_rows(p, j, i);
            if (cfg[j].type != TFN_FIXED_LEN_SEQUENCE)
                continue;
            CHECK(f->lengths[j][i] == (int64_t)had);
            for (size_t r = 0; r < f->rows[j]; r++)
                CHECK(f->mask[j][i * f->rows[j] + r] == (r < had));
        }
    }
}

static int same_values(const tfn_feature_config *cfg, const filled *a, const filled *b)
{
    for (size_t j = 0; j < NFEAT; j++) {
        if (a->count[j] != b->count[j])
            return 0;
        if (cfg[j].dtype == TFN_BYTES) {
            const tfn_bytes *x = (const tfn_bytes *)a->values[j], *y = (const tfn_bytes *)b->values[j];
            for (size_t k = 0; k < a->count[j]; k++)
                if (x[k].len != y[k].len || (x[k].len && memcmp(x[k].data, y[k].data, x[k].len)))
                    return 0;
        } else if (memcmp(a->values[j], b->values[j], a->count[j] * out_size(&cfg[j])) != 0) {
            return 0;
        }
    }
    return 1;
}

/* Control bytes: data[0] picks the spec (bit 7: C, else bit 5: B, else A) and its
 * variant (bits 0-2),
 * bit 3 single-example mode, bit 4 a max_rows limit, bit 6 a one-call parse checked
 * against scan + fill; data[1] the number of records (bits 0-1) and max_rows (bits
 * 2-3). The rest is cut into the records. */
static void fuzz_parser(const uint8_t *data, size_t size)
{
    if (size < 2)
        return;
    uint8_t mode = data[0];
    tfn_feature_config cfg[NFEAT];
    memset(cfg, 0, sizeof cfg);
    if (mode & 128)
        spec_c(mode, cfg);
    else if (mode & 32)
        spec_b(mode, cfg);
    else
        spec_a(mode, cfg);
    tfn_spec *spec;
    tfn_error err;
    CHECK(tfn_spec_new(cfg, NFEAT, NULL, &spec, &err) == TFN_OK);
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
    int64_t max_rows = (mode & (16 | 64)) ? (int64_t)((data[1] >> 2) & 3) : -1;
    unsigned flags = (nrec == 1 && (mode & 8)) ? TFN_PARSE_SINGLE : TFN_PARSE_BATCH;
    int rc = tfn_parser_scan(p, recs, nrec, NULL, flags, &err);
    if (flags == TFN_PARSE_SINGLE && !(mode & 128)) {
        /* the same record as a batch of one fails or succeeds alike (not so with
         * VarLen features: TF's batch path lets a kind-less Feature hide earlier
         * entries of its key, the single path does not) */
        tfn_parser *q = tfn_parser_new(spec, NULL);
        tfn_error err2;
        CHECK(q && tfn_parser_scan(q, recs, 1, NULL, TFN_PARSE_BATCH, &err2) == rc);
        tfn_parser_free(q);
    }
    /* the portable varint code alongside */
    tfn_parser *portable = tfn_parser_new(spec, NULL);
    CHECK(portable);
    portable->simd = TFN__SIMD_NONE;
    tfn_error err_portable;
    CHECK(tfn_parser_scan(portable, recs, nrec, NULL, flags, &err_portable) == rc);
    CHECK(rc == TFN_OK || strcmp(err.msg, err_portable.msg) == 0);
    if (rc == TFN_OK) {
        for (size_t j = 0; j < NFEAT; j++)
            for (size_t i = 0; i < nrec; i++)
                CHECK(tfn_parser_rows(p, j, i) <= tfn_parser_max_rows(p, j));
        filled f, fp;
        rc = fill_outputs(p, spec, cfg, nrec, max_rows, 0, recs, flags, &f, &err);
        CHECK(rc == TFN_OK || rc == TFN_E_OUT_OF_RANGE);
        CHECK(fill_outputs(portable, spec, cfg, nrec, max_rows, 0, recs, flags, &fp,
                           &err_portable) == rc);
        CHECK(rc == TFN_OK ? same_values(cfg, &f, &fp) : strcmp(err.msg, err_portable.msg) == 0);
        filled_free(&fp);
        if (rc == TFN_OK)
            check_rows(p, cfg, nrec, &f);
        if (mode & 64) {
            /* one call on a fresh parser gives the same status and values */
            tfn_parser *q = tfn_parser_new(spec, NULL);
            filled g;
            tfn_error err2;
            CHECK(q);
            int rc2 = fill_outputs(q, spec, cfg, nrec, max_rows, 1, recs, flags, &g, &err2);
            CHECK(rc2 == rc && (rc != TFN_OK || same_values(cfg, &f, &g)));
            filled_free(&g);
            tfn_parser_free(q);
        }
        filled_free(&f);
    } else {
        CHECK(rc < 0 && err.msg[0] != '\0' && err.record_index < nrec);
    }
    tfn_parser_free(portable);
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

/*
 * quest_demo.c - the QUEST text pipeline in C with tfnano:
 *   tokenized question/answer pairs, padded to 512 -> tf.train.Example records
 *   (int64 ids and masks, 30 float labels) built from columns in one call ->
 *   parsed back in batches with FixedLenFeature specs straight into int32 arrays.
 * It checks every value it reads back and prints what it did and how fast.
 *
 * Build against an installed tfnano:  cc quest_demo.c $(pkg-config --cflags --libs tfnano)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tfnano.h"

enum { N = 2000, MAXLEN = 512, LABELS = 30, BATCH = 256, PAD_ID = 1 };

static uint64_t rng = 42;
static uint32_t next_random(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 33);
}

static double now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Token ids padded with PAD_ID after a random real length, and the matching mask. */
static void make_tokens(int64_t *ids, int64_t *mask)
{
    size_t len = 8 + next_random() % (MAXLEN - 8);
    for (size_t t = 0; t < MAXLEN; t++) {
        ids[t] = t < len ? 3 + (int64_t)(next_random() % 50262) : PAD_ID;
        mask[t] = t < len;
    }
}

static int fail(const char *what, const tfn_error *err)
{
    fprintf(stderr, "quest_demo: %s failed: %s\n", what, err->msg);
    return 1;
}

int main(void)
{
    int64_t *q_ids = malloc(sizeof(int64_t) * N * MAXLEN);
    int64_t *q_mask = malloc(sizeof(int64_t) * N * MAXLEN);
    int64_t *a_ids = malloc(sizeof(int64_t) * N * MAXLEN);
    int64_t *a_mask = malloc(sizeof(int64_t) * N * MAXLEN);
    float *labels = malloc(sizeof(float) * N * LABELS);
    if (!q_ids || !q_mask || !a_ids || !a_mask || !labels)
        return 1;
    for (size_t i = 0; i < N; i++) {
        make_tokens(q_ids + i * MAXLEN, q_mask + i * MAXLEN);
        make_tokens(a_ids + i * MAXLEN, a_mask + i * MAXLEN);
        for (size_t k = 0; k < LABELS; k++)
            labels[i * LABELS + k] = (float)(next_random() % 1000) / 1000.0f;
    }

    /* 1. Serialize all examples from the columns in one call. */
    tfn_column cols[5] = {
        {"q_input_ids", 11, TFN_INT64, q_ids, MAXLEN, NULL, NULL},
        {"q_attention_mask", 16, TFN_INT64, q_mask, MAXLEN, NULL, NULL},
        {"a_input_ids", 11, TFN_INT64, a_ids, MAXLEN, NULL, NULL},
        {"a_attention_mask", 16, TFN_INT64, a_mask, MAXLEN, NULL, NULL},
        {"labels", 6, TFN_FLOAT32, labels, LABELS, NULL, NULL},
    };
    tfn_error err;
    uint64_t total = 0;
    if (tfn_encode_columns_size(cols, 5, N, NULL, &total, &err))
        return fail("sizing", &err);
    uint8_t *records = malloc(total);
    uint64_t *offsets = malloc(sizeof(uint64_t) * (N + 1));
    size_t written;
    double t0 = now();
    if (tfn_encode_columns(cols, 5, N, records, total, offsets, &written, &err))
        return fail("tfn_encode_columns", &err);
    double t_encode = now() - t0;
    printf("serialized %d QUEST Examples (4 x %d int64 + %d floats each): %zu bytes, "
           "%.0f bytes/example, %.2f us/example\n",
           N, MAXLEN, LABELS, written, (double)written / N, t_encode * 1e6 / N);

    /* 2. Parse them back in batches: int64 ids straight into int32 arrays for a TPU. */
    static const int64_t ids_shape[1] = {MAXLEN}, label_shape[1] = {LABELS};
    static const char *const names[5] = {"q_input_ids", "q_attention_mask", "a_input_ids",
                                         "a_attention_mask", "labels"};
    tfn_feature_config cfg[5];
    memset(cfg, 0, sizeof cfg);
    for (int j = 0; j < 5; j++) {
        cfg[j].key = names[j];
        cfg[j].key_len = strlen(names[j]);
        cfg[j].type = TFN_FIXED_LEN;
        cfg[j].dtype = j < 4 ? TFN_INT64 : TFN_FLOAT32;
        cfg[j].out_dtype = j < 4 ? TFN_INT32 : TFN_FLOAT32;
        cfg[j].shape = j < 4 ? ids_shape : label_shape;
        cfg[j].rank = 1;
    }
    tfn_spec *spec;
    if (tfn_spec_new(cfg, 5, NULL, &spec, &err))
        return fail("tfn_spec_new", &err);
    tfn_parser *parser = tfn_parser_new(spec, NULL);
    int32_t *out_ids[4];
    for (int j = 0; j < 4; j++)
        out_ids[j] = malloc(sizeof(int32_t) * BATCH * MAXLEN);
    float *out_labels = malloc(sizeof(float) * BATCH * LABELS);
    tfn_bytes batch[BATCH];
    size_t mismatches = 0;
    double t_parse = 0;
    for (size_t start = 0; start < N; start += BATCH) {
        size_t n = N - start < BATCH ? N - start : BATCH;
        for (size_t i = 0; i < n; i++) {
            batch[i].data = records + offsets[start + i];
            batch[i].len = (size_t)(offsets[start + i + 1] - offsets[start + i]);
        }
        tfn_output outs[5];
        memset(outs, 0, sizeof outs);
        for (int j = 0; j < 4; j++)
            outs[j] = (tfn_output){out_ids[j], (size_t)BATCH * MAXLEN, -1, NULL, NULL};
        outs[4] = (tfn_output){out_labels, (size_t)BATCH * LABELS, -1, NULL, NULL};
        t0 = now();
        if (tfn_parser_parse(parser, batch, n, NULL, TFN_PARSE_BATCH, outs, &err))
            return fail("tfn_parser_parse", &err);
        t_parse += now() - t0;
        const int64_t *src[4] = {q_ids, q_mask, a_ids, a_mask};
        for (size_t i = 0; i < n; i++) {
            for (int j = 0; j < 4; j++)
                for (size_t t = 0; t < MAXLEN; t++)
                    mismatches += out_ids[j][i * MAXLEN + t] != src[j][(start + i) * MAXLEN + t];
            mismatches += memcmp(out_labels + i * LABELS, labels + (start + i) * LABELS,
                                 sizeof(float) * LABELS) != 0;
        }
    }
    printf("parsed them back in batches of %d into int32 [batch, %d] arrays: %.2f us/example, "
           "%zu mismatching values\n",
           BATCH, MAXLEN, t_parse * 1e6 / N, mismatches);

    /* 3. What a bad record looks like. */
    static const uint8_t garbage[] = {0x0a, 0x05, 0x0a, 0x03, 0x0a, 0x01, 'q'};
    tfn_bytes bad = {garbage, sizeof garbage};
    int rc = tfn_parser_scan(parser, &bad, 1, NULL, TFN_PARSE_BATCH, &err);
    printf("a truncated map entry gives %s: %s\n", tfn_status_str(rc), err.msg);

    tfn_parser_free(parser);
    tfn_spec_free(spec);
    for (int j = 0; j < 4; j++)
        free(out_ids[j]);
    free(out_labels);
    free(records);
    free(offsets);
    free(q_ids);
    free(q_mask);
    free(a_ids);
    free(a_mask);
    free(labels);
    return mismatches == 0 && rc == TFN_E_CORRUPT ? 0 : 1;
}

/*
 * quickstart.c - the program of docs/c-guide.md: build an Example, serialize it, parse
 * it back with FixedLenFeature and FixedLenSequenceFeature specs, and show an error.
 */
#include <stdio.h>
#include <string.h>

#include "tfnano.h"

int main(void)
{
    tfn_error err;

    /* 1. Build: keys are (pointer, length); values are copied into the example. */
    tfn_example *ex = tfn_example_new(NULL);
    int64_t ids[5] = {101, 7592, 2088, 999, 102};
    float label = 0.75f;
    tfn_bytes name = {(const uint8_t *)"doc-17", 6};
    if (tfn_example_set_int64s(ex, "input_ids", 9, ids, 5, &err) ||
        tfn_example_set_floats(ex, "label", 5, &label, 1, &err) ||
        tfn_example_set_bytes(ex, "name", 4, &name, 1, &err)) {
        fprintf(stderr, "set: %s\n", err.msg);
        return 1;
    }
    const uint8_t *bytes;
    size_t len;
    if (tfn_example_serialize_owned(ex, &bytes, &len, &err)) {
        fprintf(stderr, "serialize: %s\n", err.msg);
        return 1;
    }
    printf("serialized Example: %zu bytes\n", len);

    /* 2. A spec: input_ids as FixedLenSequenceFeature([], int64) read as int32, label
     *    as FixedLenFeature([], float32), name as FixedLenFeature([], string). */
    tfn_feature_config cfg[3];
    memset(cfg, 0, sizeof cfg);
    cfg[0] = (tfn_feature_config){.key = "input_ids", .key_len = 9, .type = TFN_FIXED_LEN_SEQUENCE,
                                  .dtype = TFN_INT64, .out_dtype = TFN_INT32, .allow_missing = 1};
    cfg[1] = (tfn_feature_config){.key = "label", .key_len = 5, .type = TFN_FIXED_LEN,
                                  .dtype = TFN_FLOAT32};
    cfg[2] = (tfn_feature_config){.key = "name", .key_len = 4, .type = TFN_FIXED_LEN,
                                  .dtype = TFN_BYTES};
    tfn_spec *spec;
    if (tfn_spec_new(cfg, 3, NULL, &spec, &err)) {
        fprintf(stderr, "spec: %s\n", err.msg);
        return 1;
    }
    tfn_parser *parser = tfn_parser_new(spec, NULL);

    /* 3. Parse a batch of two records (the second is an empty Example) and pad the
     *    sequences to 8 steps, with a mask. */
    tfn_bytes records[2] = {{bytes, len}, {(const uint8_t *)"", 0}};
    if (tfn_parser_scan(parser, records, 2, NULL, TFN_PARSE_BATCH, &err)) {
        /* the empty Example lacks the required "label" */
        printf("scan error (expected): %s\n", err.msg);
    }
    int32_t ids_out[2 * 8];
    uint8_t mask[2 * 8];
    int64_t lengths[2];
    float labels_out[2];
    tfn_bytes names_out[2];
    tfn_output outs[3] = {
        {.values = ids_out, .capacity = 16, .max_rows = 8, .lengths = lengths, .mask = mask},
        {.values = labels_out, .capacity = 2, .max_rows = -1},
        {.values = names_out, .capacity = 2, .max_rows = -1},
    };
    if (tfn_parser_parse(parser, records, 1, NULL, TFN_PARSE_BATCH, outs, &err)) {
        fprintf(stderr, "parse: %s\n", err.msg);
        return 1;
    }
    printf("input_ids (padded to 8):");
    for (int t = 0; t < 8; t++)
        printf(" %d", ids_out[t]);
    printf("\nmask:                    ");
    for (int t = 0; t < 8; t++)
        printf(" %d", mask[t]);
    printf("\nlength %lld, label %.2f, name %.*s\n", (long long)lengths[0], labels_out[0],
           (int)names_out[0].len, (const char *)names_out[0].data);

    tfn_parser_free(parser);
    tfn_spec_free(spec);
    tfn_example_free(ex);
    return ids_out[4] == 102 && ids_out[5] == 0 && mask[5] == 0 ? 0 : 1;
}

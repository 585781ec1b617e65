/*
 * fuzz_sequence_example.c - libFuzzer harness for tfn_sequence_lists (the feature lists
 * of SequenceExamples). The first byte picks the dtypes of three lists ("a", "b", "")
 * and the number of records (1-4) cut from the rest. A successful counting call must be
 * followed by a successful filling call with buffers of exactly the sizes it reported,
 * whose splits are non-decreasing, start at 0 and end at those sizes; failures carry a
 * message and the index of an existing record.
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

enum { NLISTS = 3 };

static const int DTYPES[3] = {TFN_INT64, TFN_FLOAT32, TFN_BYTES};

static size_t elem_size(int dtype)
{
    return dtype == TFN_INT64 ? 8 : dtype == TFN_FLOAT32 ? 4 : sizeof(tfn_bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t mode = data[0];
    tfn_list_config lists[NLISTS] = {{"a", 1, DTYPES[mode % 3]},
                                     {"b", 1, DTYPES[(mode / 3) % 3]},
                                     {"", 0, DTYPES[(mode / 9) % 3]}};
    size_t nrec = (size_t)((mode >> 5) & 3) + 1;
    const uint8_t *rest = data + 1;
    size_t rest_len = size - 1, at = 0;
    tfn_bytes recs[4];
    for (size_t i = 0; i < nrec; i++) {
        size_t len = i + 1 == nrec ? rest_len - at : (rest_len - at) / (nrec - i);
        recs[i].data = rest + at;
        recs[i].len = len;
        at += len;
    }
    tfn_list_output outs[NLISTS];
    memset(outs, 0, sizeof outs);
    tfn_error err;
    int rc = tfn_sequence_lists(recs, nrec, NULL, lists, NLISTS, outs, &err);
    if (rc != TFN_OK) {
        CHECK(rc < 0 && err.msg[0] != '\0' && err.record_index < nrec);
        return 0;
    }
    size_t steps[NLISTS], values[NLISTS];
    for (size_t j = 0; j < NLISTS; j++) {
        steps[j] = outs[j].steps;
        values[j] = outs[j].values;
        outs[j].example_splits = malloc((nrec + 1) * sizeof(int64_t));
        outs[j].step_splits = malloc((steps[j] + 1) * sizeof(int64_t));
        outs[j].values_out = malloc((values[j] + 1) * elem_size(lists[j].dtype));
        outs[j].present = malloc(nrec);
        CHECK(outs[j].example_splits && outs[j].step_splits && outs[j].values_out &&
              outs[j].present);
    }
    rc = tfn_sequence_lists(recs, nrec, NULL, lists, NLISTS, outs, &err);
    CHECK(rc == TFN_OK);
    for (size_t j = 0; j < NLISTS; j++) {
        CHECK(outs[j].steps == steps[j] && outs[j].values == values[j]);
        const int64_t *ex = outs[j].example_splits, *st = outs[j].step_splits;
        CHECK(ex[0] == 0 && (size_t)ex[nrec] == steps[j]);
        for (size_t i = 0; i < nrec; i++)
            CHECK(ex[i] <= ex[i + 1] && (outs[j].present[i] || ex[i] == ex[i + 1]));
        CHECK(st[0] == 0 && (size_t)st[steps[j]] == values[j]);
        for (size_t s = 0; s < steps[j]; s++)
            CHECK(st[s] <= st[s + 1]);
        if (lists[j].dtype == TFN_BYTES) {
            const tfn_bytes *b = outs[j].values_out;
            for (size_t k = 0; k < values[j]; k++)
                CHECK(b[k].len == 0 ||
                      (b[k].data >= data && b[k].data + b[k].len <= data + size));
        }
        free(outs[j].example_splits);
        free(outs[j].step_splits);
        free(outs[j].values_out);
        free(outs[j].present);
    }
    return 0;
}

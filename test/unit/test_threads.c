/* test_threads.c - one compiled spec shared by many threads, each with its own parser
 * and example builder, all producing the same results. `make tsan` runs it under
 * ThreadSanitizer. */
#include "harness.h"
#include "tfnano.h"

#include <pthread.h>
#include <stdlib.h>

enum { THREADS = 8, RECORDS = 64, LEN = 40, ROUNDS = 20 };

static tfn_spec *shared_spec;
static uint8_t *records;
static uint64_t offsets[RECORDS + 1];
static int64_t expected[RECORDS][LEN];

typedef struct job {
    int id;
    int failures;
} job;

static void *worker(void *arg)
{
    job *j = arg;
    tfn_parser *p = tfn_parser_new(shared_spec, NULL);
    tfn_example *ex = tfn_example_new(NULL);
    tfn_bytes recs[RECORDS];
    for (int i = 0; i < RECORDS; i++) {
        recs[i].data = records + offsets[i];
        recs[i].len = (size_t)(offsets[i + 1] - offsets[i]);
    }
    static __thread int64_t out[RECORDS * LEN];
    int64_t lengths[RECORDS];
    for (int round = 0; round < ROUNDS; round++) {
        tfn_output o = {out, RECORDS * LEN, LEN, lengths, NULL};
        tfn_error err;
        if (tfn_parser_parse(p, recs, RECORDS, NULL, TFN_PARSE_BATCH, &o, &err) != TFN_OK) {
            j->failures++;
            continue;
        }
        for (int i = 0; i < RECORDS; i++)
            for (int t = 0; t < lengths[i]; t++)
                j->failures += out[i * LEN + t] != expected[i][t];
        /* each thread also builds and serializes with its own example */
        tfn_example_clear(ex);
        tfn_example_set_int64s(ex, "ids", 3, expected[(j->id + round) % RECORDS], LEN, NULL);
        const uint8_t *bytes;
        size_t len;
        j->failures += tfn_example_serialize_owned(ex, &bytes, &len, NULL) != TFN_OK;
    }
    tfn_example_free(ex);
    tfn_parser_free(p);
    return NULL;
}

static void test_shared_spec_many_parsers(void)
{
    tfn_feature_config cfg = {.key = "ids", .key_len = 3, .type = TFN_FIXED_LEN_SEQUENCE,
                              .dtype = TFN_INT64, .allow_missing = 1};
    REQUIRE(tfn_spec_new(&cfg, 1, NULL, &shared_spec, NULL) == TFN_OK);
    int64_t values[RECORDS * LEN];
    int64_t splits[RECORDS + 1];
    splits[0] = 0;
    for (int i = 0; i < RECORDS; i++) {
        int n = 1 + (i * 7) % LEN;
        for (int t = 0; t < LEN; t++)
            expected[i][t] = (int64_t)i * 100000 + t * 131;
        memcpy(values + splits[i], expected[i], (size_t)n * sizeof(int64_t));
        splits[i + 1] = splits[i] + n;
    }
    tfn_column col = {"ids", 3, TFN_INT64, values, 0, splits, NULL};
    uint64_t total;
    REQUIRE(tfn_encode_columns_size(&col, 1, RECORDS, NULL, &total, NULL) == TFN_OK);
    records = malloc(total);
    REQUIRE(tfn_encode_columns(&col, 1, RECORDS, records, total, offsets, NULL, NULL) == TFN_OK);
    pthread_t threads[THREADS];
    job jobs[THREADS];
    for (int t = 0; t < THREADS; t++) {
        jobs[t] = (job){t, 0};
        REQUIRE(pthread_create(&threads[t], NULL, worker, &jobs[t]) == 0);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        CHECK_EQ_INT(jobs[t].failures, 0);
    }
    free(records);
    tfn_spec_free(shared_spec);
}

int main(void)
{
    RUN(test_shared_spec_many_parsers);
    return harness_finish();
}

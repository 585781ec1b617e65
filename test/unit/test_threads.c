/* test_threads.c - what include/tfnano.h says may be shared between threads, used
 * from many threads at once: one compiled spec shared by many parsers (each thread with
 * its own parser and example builder, all producing the same results); readers and
 * writers on different files and in memory, all at the same time as the parsers; one
 * thread-safe allocator shared by every handle; tfn_crc32c and tfn_record_unframe on
 * shared memory. `make tsan` runs it under ThreadSanitizer. */
#include "harness.h"
#include "test_record_util.h"
#include "tfnano.h"

#include <pthread.h>
#include <stdatomic.h>
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

/* Compiles the shared spec (a FixedLenSequence "ids") and encodes RECORDS examples
 * into `records`: example i holds 1 + (i * len_step) % LEN values, value t being
 * i * row_scale + t * step. @return 0, or -1 when something failed. */
static int make_shared_records(int len_step, int64_t row_scale, int64_t step)
{
    tfn_feature_config cfg = {.key = "ids", .key_len = 3, .type = TFN_FIXED_LEN_SEQUENCE,
                              .dtype = TFN_INT64, .allow_missing = 1};
    if (tfn_spec_new(&cfg, 1, NULL, &shared_spec, NULL) != TFN_OK)
        return -1;
    int64_t values[RECORDS * LEN];
    int64_t splits[RECORDS + 1];
    splits[0] = 0;
    for (int i = 0; i < RECORDS; i++) {
        int n = 1 + (i * len_step) % LEN;
        for (int t = 0; t < LEN; t++)
            expected[i][t] = (int64_t)i * row_scale + t * step;
        memcpy(values + splits[i], expected[i], (size_t)n * sizeof(int64_t));
        splits[i + 1] = splits[i] + n;
    }
    tfn_column col = {"ids", 3, TFN_INT64, values, 0, splits, NULL};
    uint64_t total;
    if (tfn_encode_columns_size(&col, 1, RECORDS, NULL, &total, NULL) != TFN_OK)
        return -1;
    records = malloc(total);
    if (!records)
        return -1;
    return tfn_encode_columns(&col, 1, RECORDS, records, total, offsets, NULL, NULL) == TFN_OK
               ? 0 : -1;
}

static void test_shared_spec_many_parsers(void)
{
    REQUIRE(make_shared_records(7, 100000, 131) == 0);
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

/* ---------------------------------------------------------------- readers and writers */

/* A counting allocator shared by every handle of every thread: its callbacks must be
 * thread-safe, and are (atomics). */
static atomic_long live_blocks;

static void *shared_malloc(void *ctx, size_t n)
{
    (void)ctx;
    void *p = malloc(n ? n : 1);
    if (p)
        atomic_fetch_add(&live_blocks, 1);
    return p;
}

static void *shared_realloc(void *ctx, void *ptr, size_t old_size, size_t n)
{
    (void)ctx;
    (void)old_size;
    void *p = realloc(ptr, n ? n : 1);
    if (p && !ptr)
        atomic_fetch_add(&live_blocks, 1);
    return p;
}

static void shared_free(void *ctx, void *ptr)
{
    (void)ctx;
    if (ptr) {
        atomic_fetch_sub(&live_blocks, 1);
        free(ptr);
    }
}

static const tfn_alloc shared_alloc = {shared_malloc, shared_realloc, shared_free, NULL};

enum { IO_THREADS = 6, IO_RECORDS = 300 };

/* Record i of thread t: a deterministic payload of 1 + (i * 37 + t) % 700 bytes. */
static size_t payload(int t, int i, uint8_t *buf)
{
    size_t n = 1 + (size_t)(i * 37 + t) % 700;
    for (size_t k = 0; k < n; k++)
        buf[k] = (uint8_t)(k * 31 + (size_t)i + (size_t)t * 7);
    return n;
}

typedef struct io_job {
    int id;
    int failures;
    char path[64];
} io_job;

/* Writes IO_RECORDS records (singly and in batches) to its own file and to memory,
 * then reads both back (next, next_batch, read_into) and compares. */
static void *io_worker(void *arg)
{
    io_job *j = arg;
    static const int comps[3] = {TFN_COMPRESSION_NONE, TFN_COMPRESSION_ZLIB,
                                 TFN_COMPRESSION_GZIP};
    tfn_record_writer_options wo;
    tfn_record_writer_options_init(&wo);
    wo.compression = comps[j->id % 3];
    wo.buffer_size = 4096;
    tfn_record_writer *fw = NULL, *mw = NULL;
    tfn_error err;
    if (tfn_record_writer_open(j->path, &wo, &shared_alloc, &fw, &err) != TFN_OK ||
        tfn_record_writer_open_mem(&wo, &shared_alloc, &mw, &err) != TFN_OK) {
        j->failures++;
        tfn_record_writer_free(fw);
        return NULL;
    }
    uint8_t buf[4 * 700];
    uint64_t offs[5];
    for (int i = 0; i < IO_RECORDS;) {
        if (i % 3 == 0 && i + 4 <= IO_RECORDS) {
            offs[0] = 0;
            for (int k = 0; k < 4; k++)
                offs[k + 1] = offs[k] + payload(j->id, i + k, buf + offs[k]);
            j->failures += tfn_record_writer_write_batch(fw, buf, offs, 4, &err) != TFN_OK;
            j->failures += tfn_record_writer_write_batch(mw, buf, offs, 4, &err) != TFN_OK;
            i += 4;
        } else {
            size_t n = payload(j->id, i, buf);
            j->failures += tfn_record_writer_write(fw, buf, n, &err) != TFN_OK;
            j->failures += tfn_record_writer_write(mw, buf, n, &err) != TFN_OK;
            i++;
        }
        if (i % 50 == 0)
            j->failures += tfn_record_writer_flush(fw, &err) != TFN_OK;
    }
    j->failures += tfn_record_writer_close(fw, &err) != TFN_OK;
    j->failures += tfn_record_writer_close(mw, &err) != TFN_OK;
    j->failures += tfn_record_writer_count(fw) != IO_RECORDS;
    const uint8_t *mem;
    size_t mem_len;
    tfn_record_writer_mem_data(mw, &mem, &mem_len);

    tfn_record_reader_options ro;
    tfn_record_reader_options_init(&ro);
    ro.compression = TFN_COMPRESSION_AUTO;
    ro.buffer_size = 1000;
    for (int source = 0; source < 2; source++) {
        tfn_record_reader *r = NULL;
        int rc = source == 0 ? tfn_record_reader_open(j->path, &ro, &shared_alloc, &r, &err)
                             : tfn_record_reader_open_mem(mem, mem_len, &ro, &shared_alloc, &r,
                                                          &err);
        if (rc != TFN_OK) {
            j->failures++;
            continue;
        }
        int i = 0;
        for (;;) {
            tfn_bytes views[7];
            size_t n = 0;
            rc = tfn_record_reader_next_batch(r, views, 7, &n, &err);
            if (rc != TFN_OK)
                break;
            for (size_t k = 0; k < n; k++, i++) {
                size_t want = payload(j->id, i, buf);
                j->failures += views[k].len != want || memcmp(views[k].data, buf, want) != 0;
            }
        }
        j->failures += rc != TFN_END || i != IO_RECORDS;
        tfn_record_reader_free(r);
    }
    tfn_record_writer_free(mw);
    tfn_record_writer_free(fw);
    return NULL;
}

/* The CRC and the framing helper are pure functions: many threads on the same bytes. */
static const uint8_t *shared_frames;
static size_t shared_frames_len;

static void *frame_worker(void *arg)
{
    int *failures = arg;
    for (int round = 0; round < 20; round++) {
        size_t at = 0;
        int count = 0;
        for (;;) {
            const uint8_t *p;
            size_t n, used;
            int rc = tfn_record_unframe(shared_frames + at, shared_frames_len - at, 0, &p, &n,
                                        &used, NULL);
            if (rc != TFN_OK) {
                *failures += rc != TFN_END;
                break;
            }
            *failures += tfn_crc32c(0, p, n) != tfn_crc32c(0, p, n);
            at += used;
            count++;
        }
        *failures += count != IO_RECORDS;
    }
    return NULL;
}

/* Several readers and writers on different files, the framing helpers on shared
 * memory, and parsers sharing one spec, all running at once. */
static void test_readers_writers_and_parsers_at_once(void)
{
    REQUIRE(make_shared_records(11, 7919, -3) == 0);

    tbuf frames = {0};
    uint8_t buf[700];
    for (int i = 0; i < IO_RECORDS; i++)
        tbuf_frame(&frames, buf, payload(99, i, buf));
    shared_frames = frames.p;
    shared_frames_len = frames.n;

    pthread_t parsers[4], io[IO_THREADS], framers[2];
    job jobs[4];
    io_job io_jobs[IO_THREADS];
    int frame_failures[2] = {0, 0};
    for (int t = 0; t < IO_THREADS; t++) {
        io_jobs[t].id = t;
        io_jobs[t].failures = 0;
        temp_path(io_jobs[t].path, sizeof io_jobs[t].path);
        REQUIRE(pthread_create(&io[t], NULL, io_worker, &io_jobs[t]) == 0);
    }
    for (int t = 0; t < 4; t++) {
        jobs[t] = (job){t, 0};
        REQUIRE(pthread_create(&parsers[t], NULL, worker, &jobs[t]) == 0);
    }
    for (int t = 0; t < 2; t++)
        REQUIRE(pthread_create(&framers[t], NULL, frame_worker, &frame_failures[t]) == 0);
    for (int t = 0; t < IO_THREADS; t++) {
        pthread_join(io[t], NULL);
        CHECK_EQ_INT(io_jobs[t].failures, 0);
        remove(io_jobs[t].path);
    }
    for (int t = 0; t < 4; t++) {
        pthread_join(parsers[t], NULL);
        CHECK_EQ_INT(jobs[t].failures, 0);
    }
    for (int t = 0; t < 2; t++) {
        pthread_join(framers[t], NULL);
        CHECK_EQ_INT(frame_failures[t], 0);
    }
    CHECK_EQ_INT(atomic_load(&live_blocks), 0);
    tbuf_free(&frames);
    free(records);
    tfn_spec_free(shared_spec);
}

int main(void)
{
    RUN(test_shared_spec_many_parsers);
    RUN(test_readers_writers_and_parsers_at_once);
    return harness_finish();
}

/* test_seekpoints.c - random access into GZIP / ZLIB streams through seek points:
 * every read at random offsets matches the original bytes, in both formats, several
 * levels and flush patterns, from memory and from a file; truncated streams cover
 * what inflates; bad input is an error, never a crash. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "harness.h"
#include "tfnano.h"

static uint32_t rng_state = 12345;
static uint32_t rnd(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

/* Half text-like runs (compressible, long back-references), half noise. */
static uint8_t *make_data(size_t n)
{
    uint8_t *d = malloc(n);
    for (size_t i = 0; i < n;) {
        size_t run = 1 + rnd() % 3000;
        if (run > n - i)
            run = n - i;
        if (rnd() % 2 && i > 40000) {
            size_t from = i - 1 - rnd() % 40000;
            for (size_t k = 0; k < run; k++)
                d[i + k] = d[from + k];
        } else {
            for (size_t k = 0; k < run; k++)
                d[i + k] = (uint8_t)(rnd() % (k % 7 ? 256 : 17));
        }
        i += run;
    }
    return d;
}

/* Deflates in pieces of `piece` bytes, each followed by `flush`. */
static uint8_t *compress_data(const uint8_t *d, size_t n, int wbits, int level, size_t piece,
                              int flush, size_t *out_len)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, level, Z_DEFLATED, wbits, 9, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    size_t cap = n + n / 8 + 4096 + 64 * (n / piece + 1);
    uint8_t *out = malloc(cap);
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    for (size_t i = 0; i < n; i += piece) {
        size_t k = n - i < piece ? n - i : piece;
        zs.next_in = (Bytef *)(uintptr_t)(d + i);
        zs.avail_in = (uInt)k;
        deflate(&zs, flush);
    }
    deflate(&zs, Z_FINISH);
    *out_len = cap - zs.avail_out;
    deflateEnd(&zs);
    return out;
}

static void check_reads(const tfn_seekpoints *sp, const uint8_t *z, size_t zlen,
                        const uint8_t *d, size_t n, int rounds)
{
    uint8_t *buf = malloc(200000);
    tfn_error err;
    size_t got;
    for (int r = 0; r < rounds; r++) {
        uint64_t off = rnd() % (n + 10);
        size_t len = 1 + rnd() % 150000;
        if (r % 7 == 0)
            off = n - (rnd() % 100 < n ? rnd() % 100 : 0); /* near the end */
        int rc = tfn_seekpoints_read_mem(sp, z, zlen, off, buf, len, &got, &err);
        CHECK_EQ_INT(rc, TFN_OK);
        size_t expect = off >= n ? 0 : (n - off < len ? n - off : len);
        CHECK_EQ_INT(got, expect);
        if (got == expect && expect)
            CHECK(memcmp(buf, d + off, expect) == 0);
    }
    free(buf);
}

static void test_random_reads_every_format(void)
{
    size_t n = 3u << 20;
    uint8_t *d = make_data(n);
    const int wbits[] = {MAX_WBITS + 16, MAX_WBITS};
    const int comp[] = {TFN_COMPRESSION_GZIP, TFN_COMPRESSION_ZLIB};
    const int levels[] = {1, 6, 9};
    const int flushes[] = {Z_NO_FLUSH, Z_PARTIAL_FLUSH, Z_SYNC_FLUSH};
    for (int f = 0; f < 2; f++) {
        for (int l = 0; l < 3; l++) {
            size_t zlen;
            int fl = flushes[(f + l) % 3];
            uint8_t *z = compress_data(d, n, wbits[f], levels[l], 4096 + 977 * (size_t)l, fl,
                                       &zlen);
            REQUIRE(z != NULL);
            for (int how = 0; how < 2; how++) {
                tfn_seekpoints *sp = NULL;
                tfn_error err;
                int c = how ? TFN_COMPRESSION_AUTO : comp[f];
                int rc = tfn_seekpoints_build_mem(z, zlen, c, 64 * 1024, NULL, &sp, &err);
                CHECK_EQ_INT(rc, TFN_OK);
                REQUIRE(sp != NULL);
                CHECK_EQ_INT(tfn_seekpoints_total(sp), n);
                CHECK(tfn_seekpoints_count(sp) > 20); /* one per ~64 KiB of output */
                check_reads(sp, z, zlen, d, n, 60);
                tfn_seekpoints_free(sp);
            }
            free(z);
        }
    }
    free(d);
}

static void test_from_a_file(void)
{
    size_t n = 1u << 20;
    uint8_t *d = make_data(n);
    size_t zlen;
    uint8_t *z = compress_data(d, n, MAX_WBITS + 16, 6, 1 << 20, Z_NO_FLUSH, &zlen);
    char path[] = "/tmp/tfn_seekpoints_XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    CHECK_EQ_INT(write(fd, z, zlen), (long long)zlen);
    close(fd);
    tfn_seekpoints *sp = NULL;
    tfn_error err;
    CHECK_EQ_INT(tfn_seekpoints_build(path, TFN_COMPRESSION_GZIP, 100000, NULL, &sp, &err),
                 TFN_OK);
    REQUIRE(sp != NULL);
    CHECK_EQ_INT(tfn_seekpoints_total(sp), n);
    uint8_t buf[5000];
    for (int r = 0; r < 30; r++) {
        uint64_t off = rnd() % n;
        size_t got;
        CHECK_EQ_INT(tfn_seekpoints_read(sp, path, off, buf, sizeof buf, &got, &err), TFN_OK);
        size_t expect = n - off < sizeof buf ? n - off : sizeof buf;
        CHECK_EQ_INT(got, expect);
        CHECK(memcmp(buf, d + off, got) == 0);
    }
    size_t got;
    CHECK_EQ_INT(tfn_seekpoints_read(sp, "/nonexistent/x.gz", 0, buf, 10, &got, &err), TFN_E_IO);
    tfn_seekpoints_free(sp);
    unlink(path);
    CHECK_EQ_INT(tfn_seekpoints_build(path, TFN_COMPRESSION_GZIP, 0, NULL, &sp, &err), TFN_E_IO);
    CHECK(sp == NULL);
    CHECK(strstr(err.msg, "No such file or directory") != NULL);
    free(z);
    free(d);
}

/* The records of a compressed TFRecord stream, read by their offsets. */
static void test_tfrecord_records_by_offset(void)
{
    tfn_record_writer_options wo;
    tfn_record_writer_options_init(&wo);
    wo.compression = TFN_COMPRESSION_ZLIB;
    tfn_record_writer *w = NULL;
    tfn_error err;
    REQUIRE(tfn_record_writer_open_mem(&wo, NULL, &w, &err) == TFN_OK);
    enum { N = 3000 };
    static uint64_t offs[N], lens[N];
    uint64_t off = 0;
    uint8_t rec[700];
    for (int i = 0; i < N; i++) {
        size_t len = (size_t)(i * 37) % sizeof rec;
        for (size_t k = 0; k < len; k++)
            rec[k] = (uint8_t)(i + k * 3);
        CHECK_EQ_INT(tfn_record_writer_write(w, rec, len, &err), TFN_OK);
        offs[i] = off;
        lens[i] = len + 16;
        off += len + 16;
    }
    CHECK_EQ_INT(tfn_record_writer_close(w, &err), TFN_OK);
    const uint8_t *z;
    size_t zlen;
    tfn_record_writer_mem_data(w, &z, &zlen);
    tfn_seekpoints *sp = NULL;
    REQUIRE(tfn_seekpoints_build_mem(z, zlen, TFN_COMPRESSION_AUTO, 40000, NULL, &sp, &err) ==
            TFN_OK);
    CHECK_EQ_INT(tfn_seekpoints_total(sp), off);
    uint8_t frame[800];
    for (int r = 0; r < 200; r++) {
        int i = (int)(rnd() % N);
        size_t got, plen, used;
        const uint8_t *payload;
        CHECK_EQ_INT(tfn_seekpoints_read_mem(sp, z, zlen, offs[i], frame, lens[i], &got, &err),
                     TFN_OK);
        CHECK_EQ_INT(got, lens[i]);
        CHECK_EQ_INT(tfn_record_unframe(frame, got, 0, &payload, &plen, &used, &err), TFN_OK);
        CHECK_EQ_INT(plen, lens[i] - 16);
        if (plen)
            CHECK_EQ_INT(payload[plen - 1], (uint8_t)(i + (plen - 1) * 3));
    }
    tfn_seekpoints_free(sp);
    tfn_record_writer_free(w);
}

static void test_truncated_and_bad_streams(void)
{
    size_t n = 600000;
    uint8_t *d = make_data(n);
    size_t zlen;
    uint8_t *z = compress_data(d, n, MAX_WBITS + 16, 6, 50000, Z_SYNC_FLUSH, &zlen);
    tfn_seekpoints *sp = NULL;
    tfn_error err;
    /* cut in half: what inflates is covered, reads stop there */
    CHECK_EQ_INT(tfn_seekpoints_build_mem(z, zlen / 2, TFN_COMPRESSION_GZIP, 32768, NULL, &sp,
                                          &err), TFN_OK);
    REQUIRE(sp != NULL);
    uint64_t total = tfn_seekpoints_total(sp);
    CHECK(total > 0 && total < n);
    check_reads(sp, z, zlen / 2, d, (size_t)total, 20);
    tfn_seekpoints_free(sp);
    /* not a compressed stream */
    sp = NULL;
    CHECK_EQ_INT(tfn_seekpoints_build_mem(d, 1000, TFN_COMPRESSION_GZIP, 0, NULL, &sp, &err),
                 TFN_E_DATA_LOSS);
    CHECK(sp == NULL);
    CHECK(strstr(err.msg, "inflate() failed") != NULL);
    /* damage after the header: an error or a stream that inflates to other bytes,
       never a crash */
    for (int k = 0; k < 40; k++) {
        uint8_t *bad = malloc(zlen);
        memcpy(bad, z, zlen);
        bad[20 + rnd() % (zlen - 40)] ^= (uint8_t)(1 + rnd() % 255);
        sp = NULL;
        int rc = tfn_seekpoints_build_mem(bad, zlen, TFN_COMPRESSION_AUTO, 32768, NULL, &sp,
                                          &err);
        CHECK(rc == TFN_OK || rc == TFN_E_DATA_LOSS);
        if (rc == TFN_OK) {
            uint8_t buf[4096];
            size_t got;
            for (int r = 0; r < 5; r++) {
                int rr = tfn_seekpoints_read_mem(sp, bad, zlen, rnd() % (n + 1), buf,
                                                 sizeof buf, &got, &err);
                CHECK(rr == TFN_OK || rr == TFN_E_DATA_LOSS);
            }
        }
        tfn_seekpoints_free(sp);
        free(bad);
    }
    /* the stream changed under the points: an error, not wrong bytes or a crash */
    CHECK_EQ_INT(tfn_seekpoints_build_mem(z, zlen, TFN_COMPRESSION_GZIP, 32768, NULL, &sp, &err),
                 TFN_OK);
    uint8_t buf[100];
    size_t got;
    int rc = tfn_seekpoints_read_mem(sp, z, 10, n - 100, buf, sizeof buf, &got, &err);
    CHECK(rc == TFN_OK || rc == TFN_E_DATA_LOSS);
    CHECK(got < sizeof buf);
    tfn_seekpoints_free(sp);
    free(z);
    free(d);
}

static void test_arguments_and_empty(void)
{
    tfn_seekpoints *sp = NULL;
    tfn_error err;
    CHECK_EQ_INT(tfn_seekpoints_build_mem("x", 1, TFN_COMPRESSION_NONE, 0, NULL, &sp, &err),
                 TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_seekpoints_build(NULL, TFN_COMPRESSION_GZIP, 0, NULL, &sp, &err),
                 TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_seekpoints_build_mem("x", 1, TFN_COMPRESSION_GZIP, 0, NULL, NULL, &err),
                 TFN_E_INVALID_ARG);
    /* no bytes at all: nothing to read */
    CHECK_EQ_INT(tfn_seekpoints_build_mem(NULL, 0, TFN_COMPRESSION_GZIP, 0, NULL, &sp, &err),
                 TFN_OK);
    REQUIRE(sp != NULL);
    CHECK_EQ_INT(tfn_seekpoints_total(sp), 0);
    CHECK_EQ_INT(tfn_seekpoints_count(sp), 1);
    uint8_t buf[4];
    size_t got = 99;
    CHECK_EQ_INT(tfn_seekpoints_read_mem(sp, NULL, 0, 0, buf, 4, &got, &err), TFN_OK);
    CHECK_EQ_INT(got, 0);
    CHECK_EQ_INT(tfn_seekpoints_read_mem(sp, NULL, 0, 0, NULL, 4, &got, &err), TFN_E_INVALID_ARG);
    tfn_seekpoints_free(sp);
    tfn_seekpoints_free(NULL);
    CHECK_EQ_INT(tfn_seekpoints_count(NULL), 0);
}

/* One handle, several threads reading at once (the header says they may). */
typedef struct reader_job {
    const tfn_seekpoints *sp;
    const uint8_t *z, *d;
    size_t zlen, n;
    unsigned seed;
    int bad;
} reader_job;

static void *reader_thread(void *arg)
{
    reader_job *j = arg;
    uint8_t buf[20000];
    tfn_error err;
    for (int r = 0; r < 40; r++) {
        j->seed = j->seed * 1103515245u + 12345u;
        size_t off = (j->seed >> 8) % j->n, got;
        if (tfn_seekpoints_read_mem(j->sp, j->z, j->zlen, off, buf, sizeof buf, &got, &err) !=
                TFN_OK ||
            got != (j->n - off < sizeof buf ? j->n - off : sizeof buf) ||
            memcmp(buf, j->d + off, got) != 0)
            j->bad++;
    }
    return NULL;
}

static void test_threads_share_a_handle(void)
{
    size_t n = 1u << 20;
    uint8_t *d = make_data(n);
    size_t zlen;
    uint8_t *z = compress_data(d, n, MAX_WBITS, 6, 1 << 20, Z_NO_FLUSH, &zlen);
    tfn_seekpoints *sp = NULL;
    tfn_error err;
    REQUIRE(tfn_seekpoints_build_mem(z, zlen, TFN_COMPRESSION_ZLIB, 65536, NULL, &sp, &err) ==
            TFN_OK);
    enum { T = 4 };
    pthread_t th[T];
    reader_job jobs[T];
    for (int t = 0; t < T; t++) {
        jobs[t] = (reader_job){sp, z, d, zlen, n, (unsigned)(t + 1) * 7919u, 0};
        CHECK(pthread_create(&th[t], NULL, reader_thread, &jobs[t]) == 0);
    }
    for (int t = 0; t < T; t++) {
        pthread_join(th[t], NULL);
        CHECK_EQ_INT(jobs[t].bad, 0);
    }
    tfn_seekpoints_free(sp);
    free(z);
    free(d);
}

int main(void)
{
    RUN(test_random_reads_every_format);
    RUN(test_from_a_file);
    RUN(test_tfrecord_records_by_offset);
    RUN(test_truncated_and_bad_streams);
    RUN(test_arguments_and_empty);
    RUN(test_threads_share_a_handle);
    return harness_finish();
}

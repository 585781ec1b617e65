/* test_writer_faults.c - writers whose sink fails: the first failure is sticky (every
 * later write, flush and close returns it, and nothing more reaches the sink), and the
 * file ends at the last whole record. Faults come from a tfn_io sink that fails at its
 * n-th call (after storing part of the bytes, as a short write does), and from the
 * kernel itself: a child process with RLIMIT_FSIZE gets EFBIG from write(2) after a
 * short write, for every limit across a file. Also the flush_every_* options. */
#include "harness.h"
#include "test_record_util.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

enum { NREC = 60 };

static size_t rec_len(size_t i)
{
    return (i * 53) % 300;
}

static void rec_payload(uint8_t *p, size_t i)
{
    for (size_t k = 0; k < rec_len(i); k++)
        p[k] = (uint8_t)(i + k * 3);
}

/* Reads data (RAISE) and checks it holds exactly records 0 .. n-1 and nothing else.
 * compression: NONE or AUTO. */
static bool holds_prefix(const uint8_t *data, size_t len, int compression, uint64_t n)
{
    tread t;
    tread_mem(data, len, compression, 0, &t);
    bool ok = t.rc == TFN_END && t.count == n;
    uint8_t tmp[300];
    for (size_t i = 0; ok && i < n; i++) {
        size_t l;
        const uint8_t *p = tread_at(&t, i, &l);
        rec_payload(tmp, i);
        ok = l == rec_len(i) && (l == 0 || memcmp(p, tmp, l) == 0);
    }
    if (!ok)
        fprintf(stderr, "  read back %zu records (want %" PRIu64 "), rc %d '%s'\n", t.count, n,
                t.rc, t.err.msg);
    tbuf_free(&t.data);
    return ok;
}

/* A memory sink failing with ENOSPC at call number fail_at (1-based), after storing
 * half of what that call offers. */
typedef struct sink {
    tbuf b;
    int calls, fail_at, after_failure;
    bool failed;
} sink;

static int64_t sink_write(void *ctx, const void *buf, size_t len)
{
    sink *s = (sink *)ctx;
    s->calls++;
    if (s->failed) {
        s->after_failure++;
        return -ENOSPC;
    }
    if (s->calls == s->fail_at) {
        s->failed = true;
        tbuf_put(&s->b, buf, len / 2);
        return -ENOSPC;
    }
    tbuf_put(&s->b, buf, len);
    return (int64_t)len;
}

static int sink_flush(void *ctx)
{
    sink *s = (sink *)ctx;
    return s->failed ? -ENOSPC : 0;
}

static void test_callback_sink_fails_at_every_call(void)
{
    uint8_t tmp[300];
    int bad = 0, cases = 0;
    for (int comp = 0; comp < 2; comp++) {
        for (size_t bufsize = 64; bufsize <= 1024; bufsize *= 4) {
            for (int fail_at = 1; fail_at < 400; fail_at++) {
                sink s;
                memset(&s, 0, sizeof s);
                s.fail_at = fail_at;
                tfn_io io = {.write = sink_write, .flush = sink_flush, .ctx = &s};
                tfn_record_writer_options o;
                tfn_record_writer_options_init(&o);
                o.buffer_size = bufsize;
                o.compression = comp ? TFN_COMPRESSION_GZIP : TFN_COMPRESSION_NONE;
                o.flush_every_records = comp ? 1 : 0; /* compressed: whole records per flush */
                tfn_record_writer *w = NULL;
                REQUIRE(tfn_record_writer_open_io(&io, &o, NULL, &w, NULL) == TFN_OK);
                int rc = TFN_OK;
                tfn_error err;
                size_t i;
                for (i = 0; i < NREC && rc == TFN_OK; i++) {
                    rec_payload(tmp, i);
                    rc = tfn_record_writer_write(w, tmp, rec_len(i), &err);
                }
                if (rc == TFN_OK)
                    rc = tfn_record_writer_close(w, &err);
                if (!s.failed) {
                    /* the sink lasted: everything is there */
                    bad += rc != TFN_OK || !holds_prefix(s.b.p, s.b.n, TFN_COMPRESSION_AUTO,
                                                         NREC);
                    tfn_record_writer_free(w);
                    tbuf_free(&s.b);
                    break;
                }
                cases++;
                bool ok = rc == TFN_E_IO && err.sys_errno == ENOSPC;
                /* sticky: later calls fail with the same error, and write nothing */
                int before = s.calls;
                tfn_error again;
                ok = ok && tfn_record_writer_write(w, "x", 1, &again) == TFN_E_IO &&
                     again.sys_errno == ENOSPC && strcmp(again.msg, err.msg) == 0;
                ok = ok && tfn_record_writer_flush(w, &again) == TFN_E_IO;
                ok = ok && tfn_record_writer_close(w, &again) == TFN_E_IO &&
                     again.sys_errno == ENOSPC;
                ok = ok && tfn_record_writer_close(w, NULL) == TFN_E_IO;
                ok = ok && s.calls == before;
                /* the owner cuts the sink back to what the writer says is whole */
                uint64_t records, bytes;
                tfn_record_writer_durable(w, &records, &bytes);
                ok = ok && bytes <= s.b.n && records <= i;
                ok = ok && holds_prefix(s.b.p, (size_t)bytes,
                                        comp ? TFN_COMPRESSION_AUTO : TFN_COMPRESSION_NONE,
                                        records);
                if (!ok) {
                    bad++;
                    fprintf(stderr, "  comp %d buf %zu fail_at %d: rc %d '%s'\n", comp,
                            bufsize, fail_at, rc, err.msg);
                }
                tfn_record_writer_free(w);
                tbuf_free(&s.b);
            }
        }
    }
    CHECK(cases > 100);
    CHECK_EQ_INT(bad, 0);
}

/* In a child: RLIMIT_FSIZE = limit, write NREC records to path; reports the status,
 * errno and durable records / bytes through the pipe. */
typedef struct child_report {
    int rc, sys_errno, later_rc;
    uint64_t records, bytes;
    char msg[sizeof(((tfn_error *)0)->msg)];
} child_report;

static void child_write(const char *path, rlim_t limit, int comp, size_t bufsize, int pipe_fd)
{
    child_report rep;
    memset(&rep, 0, sizeof rep);
    signal(SIGXFSZ, SIG_IGN); /* write(2) then fails with EFBIG */
    struct rlimit rl = {limit, limit};
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
        _exit(3);
    tfn_record_writer_options o;
    tfn_record_writer_options_init(&o);
    o.buffer_size = bufsize;
    o.compression = comp;
    o.flush_every_records = comp ? 1 : 0;
    tfn_record_writer *w = NULL;
    tfn_error err;
    memset(&err, 0, sizeof err);
    rep.rc = tfn_record_writer_open(path, &o, NULL, &w, &err);
    uint8_t tmp[300];
    for (size_t i = 0; i < NREC && rep.rc == TFN_OK; i++) {
        rec_payload(tmp, i);
        rep.rc = tfn_record_writer_write(w, tmp, rec_len(i), &err);
    }
    if (rep.rc == TFN_OK)
        rep.rc = tfn_record_writer_close(w, &err);
    rep.sys_errno = err.sys_errno;
    snprintf(rep.msg, sizeof rep.msg, "%s", err.msg);
    tfn_record_writer_durable(w, &rep.records, &rep.bytes);
    rep.later_rc = tfn_record_writer_write(w, "x", 1, NULL);
    tfn_record_writer_free(w);
    if (write(pipe_fd, &rep, sizeof rep) != (ssize_t)sizeof rep)
        _exit(4);
    _exit(0);
}

static void test_file_too_large_at_every_limit(void)
{
    char path[64];
    temp_path(path, sizeof path);
    int bad = 0, failures = 0;
    for (int comp = 0; comp < 2; comp++) {
        for (size_t bufsize = 64; bufsize <= 4096; bufsize *= 64) {
            for (rlim_t limit = 1; limit < 12000; limit += 97) {
                int fds[2];
                REQUIRE(pipe(fds) == 0);
                pid_t pid = fork();
                REQUIRE(pid >= 0);
                if (pid == 0) {
                    close(fds[0]);
                    child_write(path, limit, comp ? TFN_COMPRESSION_ZLIB : TFN_COMPRESSION_NONE,
                                bufsize, fds[1]);
                }
                close(fds[1]);
                child_report rep;
                ssize_t got = read(fds[0], &rep, sizeof rep);
                close(fds[0]);
                int status = 0;
                waitpid(pid, &status, 0);
                REQUIRE(got == (ssize_t)sizeof rep && WIFEXITED(status) &&
                        WEXITSTATUS(status) == 0);
                tbuf f = {0};
                f.p = read_file(path, &f.n);
                REQUIRE(f.p != NULL);
                bool ok;
                if (rep.rc == TFN_OK) {
                    ok = holds_prefix(f.p, f.n, TFN_COMPRESSION_AUTO, NREC);
                } else {
                    failures++;
                    ok = rep.rc == TFN_E_IO && rep.sys_errno == EFBIG &&
                         rep.later_rc == TFN_E_IO && f.n == rep.bytes &&
                         strstr(rep.msg, path) != NULL &&
                         holds_prefix(f.p, f.n,
                                      comp ? TFN_COMPRESSION_AUTO : TFN_COMPRESSION_NONE,
                                      rep.records);
                }
                if (!ok) {
                    bad++;
                    fprintf(stderr, "  comp %d buf %zu limit %ju: rc %d errno %d, file %zu "
                                    "bytes, durable %" PRIu64 "/%" PRIu64 " '%s'\n",
                            comp, bufsize, (uintmax_t)limit, rep.rc, rep.sys_errno, f.n,
                            rep.records, rep.bytes, rep.msg);
                }
                tbuf_free(&f);
            }
        }
    }
    unlink(path);
    CHECK(failures > 100);
    CHECK_EQ_INT(bad, 0);
}

static off_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

/* flush_every_records = 3: after every write the file holds the records of the last
 * multiple of 3, and tfn_record_writer_durable() says so. */
static void test_flush_every_records(void)
{
    char path[64];
    temp_path(path, sizeof path);
    tfn_record_writer_options o;
    tfn_record_writer_options_init(&o);
    o.flush_every_records = 3;
    tfn_record_writer *w = NULL;
    REQUIRE(tfn_record_writer_open(path, &o, NULL, &w, NULL) == TFN_OK);
    uint8_t tmp[300];
    uint64_t expect_bytes = 0, pending = 0;
    for (size_t i = 0; i < 20; i++) {
        rec_payload(tmp, i);
        CHECK_EQ_INT(tfn_record_writer_write(w, tmp, rec_len(i), NULL), TFN_OK);
        pending += rec_len(i) + 16;
        if ((i + 1) % 3 == 0) {
            expect_bytes += pending;
            pending = 0;
        }
        uint64_t records, bytes;
        tfn_record_writer_durable(w, &records, &bytes);
        CHECK_EQ_INT(records, (i + 1) / 3 * 3);
        CHECK_EQ_INT(bytes, expect_bytes);
        CHECK_EQ_INT(file_size(path), (off_t)expect_bytes);
    }
    CHECK_EQ_INT(tfn_record_writer_close(w, NULL), TFN_OK);
    uint64_t records;
    tfn_record_writer_durable(w, &records, NULL);
    CHECK_EQ_INT(records, 20);
    tfn_record_writer_free(w);
    unlink(path);
}

/* flush_every_ms: a write at least that long after the last flush flushes (the
 * check is at writes; nothing happens between them). */
static void test_flush_every_ms(void)
{
    char path[64];
    temp_path(path, sizeof path);
    tfn_record_writer_options o;
    tfn_record_writer_options_init(&o);
    o.flush_every_ms = 1;
    tfn_record_writer *w = NULL;
    REQUIRE(tfn_record_writer_open(path, &o, NULL, &w, NULL) == TFN_OK);
    struct timespec pause = {0, 3 * 1000 * 1000};
    nanosleep(&pause, NULL);
    CHECK_EQ_INT(tfn_record_writer_write(w, "abc", 3, NULL), TFN_OK);
    CHECK_EQ_INT(file_size(path), 19);
    nanosleep(&pause, NULL);
    CHECK_EQ_INT(tfn_record_writer_write(w, "de", 2, NULL), TFN_OK);
    CHECK_EQ_INT(file_size(path), 19 + 18);
    CHECK_EQ_INT(tfn_record_writer_close(w, NULL), TFN_OK);
    tfn_record_writer_free(w);
    unlink(path);
}

/* A record refused for its size is not a sink failure: the writer goes on. */
static void test_limit_is_not_sticky(void)
{
    tfn_record_writer *w = NULL;
    REQUIRE(tfn_record_writer_open_mem(NULL, NULL, &w, NULL) == TFN_OK);
    uint8_t one = 1;
    CHECK_EQ_INT(tfn_record_writer_write(w, &one, SIZE_MAX - 3, NULL), TFN_E_LIMIT);
    CHECK_EQ_INT(tfn_record_writer_write(w, &one, 1, NULL), TFN_OK);
    CHECK_EQ_INT(tfn_record_writer_close(w, NULL), TFN_OK);
    const uint8_t *d;
    size_t n;
    tfn_record_writer_mem_data(w, &d, &n);
    CHECK_EQ_INT(n, 17);
    tfn_record_writer_free(w);
}

int main(void)
{
    RUN(test_callback_sink_fails_at_every_call);
    RUN(test_file_too_large_at_every_limit);
    RUN(test_flush_every_records);
    RUN(test_flush_every_ms);
    RUN(test_limit_is_not_sticky);
    return harness_finish();
}

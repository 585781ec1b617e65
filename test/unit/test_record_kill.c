/* test_record_kill.c - a writer killed at any moment: a child process writes records
 * (flushing after each) until the parent, having seen the file reach a random size,
 * SIGKILLs it. Every complete record must read back intact; an incomplete tail is
 * reported as truncated (or, for a partial 12-byte header, as TensorFlow's quiet end).
 * Repeated at several kill points, uncompressed and compressed. */
#include "harness.h"
#include "test_record_util.h"

#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>

#define MAX_FILE (3u << 20)

static int truncated_seen;

static size_t kill_rec_len(uint64_t i)
{
    uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ull;
    return (h >> 40) % 4 == 0 ? (size_t)((h >> 20) % 20000) : (size_t)((h >> 24) % 300);
}

static void kill_rec_fill(uint8_t *p, size_t n, uint64_t i)
{
    uint32_t s = (uint32_t)i * 2654435761u + 1u;
    for (size_t k = 0; k < n; k++) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        p[k] = (uint8_t)s;
    }
}

/* A back end that hands the file at most 997 bytes per write(2), so that a kill
 * often lands inside a record. */
static int64_t chunky_write(void *ctx, const void *buf, size_t len)
{
    int fd = *(int *)ctx;
    ssize_t n = write(fd, buf, len > 997 ? 997 : len);
    return n < 0 ? -1 : (int64_t)n;
}

/* The child: writes until killed (or the size cap, then waits to be killed). */
static void child_write(const char *path, int compression, int chunky)
{
    tfn_record_writer_options o;
    tfn_record_writer_options_init(&o);
    o.compression = compression;
    o.buffer_size = 4096; /* large records bypass it */
    tfn_record_writer *w;
    static int fd;
    if (chunky) {
        fd = open(path, O_WRONLY | O_TRUNC);
        tfn_io io = {NULL, chunky_write, NULL, NULL, NULL, &fd};
        if (fd < 0 || tfn_record_writer_open_io(&io, &o, NULL, &w, NULL) != TFN_OK)
            _exit(2);
    } else if (tfn_record_writer_open(path, &o, NULL, &w, NULL) != TFN_OK) {
        _exit(2);
    }
    static uint8_t buf[20000];
    size_t total = 0;
    for (uint64_t i = 0; total < MAX_FILE; i++) {
        size_t n = kill_rec_len(i);
        kill_rec_fill(buf, n, i);
        if (tfn_record_writer_write(w, buf, n, NULL) != TFN_OK ||
            tfn_record_writer_flush(w, NULL) != TFN_OK)
            _exit(3);
        total += n + 16;
    }
    for (;;)
        pause();
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static void one_kill(int compression, int chunky, size_t threshold, int *bad)
{
    char path[64];
    temp_path(path, sizeof path);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        (*bad)++;
        return;
    }
    if (pid == 0)
        child_write(path, compression, chunky);
    struct timespec ts = {0, 20000};
    for (int spins = 0; spins < 2000000; spins++) {
        long long sz = file_size(path);
        if (sz >= (long long)threshold)
            break;
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            fprintf(stderr, "  writer exited early (status %d)\n", status);
            (*bad)++;
            unlink(path);
            return;
        }
        nanosleep(&ts, NULL);
    }
    /* Then a random extra delay: killing right after the size was seen tends to land
     * between two writes. */
    struct timespec extra = {0, (long)(threshold % 997) * 500};
    nanosleep(&extra, NULL);
    long long seen = file_size(path);
    kill(pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    long long size = file_size(path);
    if (getenv("KILL_DEBUG"))
        printf("threshold %zu, seen %lld, final %lld, signalled %d\n", threshold, seen, size,
               WIFSIGNALED(status));

    tfn_record_reader_options o;
    tfn_record_reader_options_init(&o);
    o.compression = TFN_COMPRESSION_AUTO;
    tfn_record_reader *r;
    tfn_error err;
    if (tfn_record_reader_open(path, &o, NULL, &r, &err) != TFN_OK) {
        (*bad)++;
        unlink(path);
        return;
    }
    static uint8_t want[20000];
    const uint8_t *p;
    size_t n;
    uint64_t i = 0, off = 0;
    int rc;
    while ((rc = tfn_record_reader_next(r, &p, &n, &err)) == TFN_OK) {
        size_t wn = kill_rec_len(i);
        kill_rec_fill(want, wn, i);
        if (n != wn || memcmp(p, want, n) != 0) {
            fprintf(stderr, "  record %llu differs\n", (unsigned long long)i);
            (*bad)++;
            break;
        }
        i++;
        off += n + 16;
    }
    bool ok;
    if (compression == TFN_COMPRESSION_NONE) {
        /* all complete records were read; what follows is a partial record */
        uint64_t rest = (uint64_t)size - off;
        size_t next = kill_rec_len(i) + 16;
        ok = rest < next && (rest == 0 || rest < 12 ? rc == TFN_END : rc == TFN_E_TRUNCATED);
        if (rc == TFN_E_TRUNCATED)
            ok = ok && err.offset == off &&
                 strstr(err.msg, "' failed with Read less bytes than requested") != NULL;
    } else {
        ok = (rc == TFN_END || rc == TFN_E_TRUNCATED) && i > 0;
        if (rc == TFN_E_TRUNCATED)
            ok = ok && strstr(err.msg, "' failed with EOF reached") != NULL;
    }
    if (!ok) {
        fprintf(stderr, "  compression %d, killed at %lld bytes: %llu records, rc %d '%s'\n",
                compression, size, (unsigned long long)i, rc, err.msg);
        (*bad)++;
    }
    printf("compression %d%s: killed at %lld bytes, %llu records back, then %s\n", compression,
           chunky ? " (997-byte writes)" : "", size, (unsigned long long)i, tfn_status_str(rc));
    if (rc == TFN_E_TRUNCATED)
        truncated_seen++;
    tfn_record_reader_free(r);
    unlink(path);
}

static void test_kill_writer(void)
{
    int bad = 0;
    truncated_seen = 0;
    uint32_t s = (uint32_t)time(NULL);
    printf("kill points seeded with %u\n", s);
    for (int t = 0; t < 10; t++) {
        s = s * 1103515245u + 12345u;
        size_t threshold = 1 + (s >> 8) % (MAX_FILE / 2);
        int c = t < 6 ? TFN_COMPRESSION_NONE : t < 8 ? TFN_COMPRESSION_GZIP : TFN_COMPRESSION_ZLIB;
        if (c != TFN_COMPRESSION_NONE)
            threshold /= 4;
        one_kill(c, t % 2, threshold, &bad);
    }
    CHECK_EQ_INT(bad, 0);
    printf("%d of 10 kills left a truncated record\n", truncated_seen);
}

int main(void)
{
    RUN(test_kill_writer);
    return harness_finish();
}

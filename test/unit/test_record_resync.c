/* test_record_resync.c - the SKIP policy finds the good data after damage and says
 * what it skipped: a torn record whose length runs past the end of the file followed
 * by good records (the case that used to end reading with TFN_E_TRUNCATED), the byte
 * range of every skipped region, one region per call, compressed streams, a growing
 * file, and random access through an index, which never returns another record. */
#include "harness.h"
#include "test_record_util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <zlib.h>

/* Payload of record i: length len_of(i), bytes derived from i. */
static size_t len_of(size_t i)
{
    return i == 1 ? 5000 : 10 + (i * 37) % 90;
}

static void payload(uint8_t *p, size_t i)
{
    for (size_t k = 0; k < len_of(i); k++)
        p[k] = (uint8_t)(i * 31 + k * 7);
}

/* Frames records [0, n) into b; starts[i] = frame offset of record i. */
static void make(tbuf *b, size_t n, size_t *starts)
{
    memset(b, 0, sizeof *b);
    uint8_t tmp[5000];
    for (size_t i = 0; i < n; i++) {
        starts[i] = b->n;
        payload(tmp, i);
        tbuf_frame(b, tmp, len_of(i));
    }
    starts[n] = b->n;
}

/* Which record a payload is, or -1. */
static int which(const uint8_t *p, size_t len, size_t n)
{
    uint8_t tmp[5000];
    for (size_t i = 0; i < n; i++) {
        if (len_of(i) != len)
            continue;
        payload(tmp, i);
        if (memcmp(tmp, p, len) == 0)
            return (int)i;
    }
    return -1;
}

static tfn_record_reader *open_skip(const uint8_t *d, size_t n, int compression)
{
    tfn_record_reader_options o;
    tfn_record_reader_options_init(&o);
    o.on_damage = TFN_ON_DAMAGE_SKIP;
    o.compression = compression;
    tfn_record_reader *r = NULL;
    if (tfn_record_reader_open_mem(d, n, &o, NULL, &r, NULL) != TFN_OK)
        return NULL;
    return r;
}

/* Record 1 (5000 bytes) torn after `cut` bytes; records 2..7 (under 1000 bytes in all)
 * follow, so its length runs past the end of the file. */
static void test_torn_long_record(void)
{
    enum { N = 8 };
    size_t st[N + 1];
    tbuf b;
    make(&b, N, st);
    size_t cuts[] = {1, 11, 12, 13, 100, 4999, st[2] - st[1] - 1};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        size_t cut = cuts[c];
        tbuf d = {0};
        tbuf_put(&d, b.p, st[1] + cut);
        tbuf_put(&d, b.p + st[2], b.n - st[2]);
        /* RAISE: record 0, then TensorFlow's truncation error for record 1 */
        tread t;
        tread_mem(d.p, d.n, TFN_COMPRESSION_NONE, 0, &t);
        CHECK_EQ_INT(t.count, 1);
        /* the torn length runs past the end unless the records after it fill it */
        bool past_end = d.n - st[1] < st[2] - st[1];
        int reason = cut < 12 ? TFN_E_DATA_LOSS_LENGTH
                              : past_end ? TFN_E_TRUNCATED : TFN_E_DATA_LOSS;
        CHECK_EQ_INT(t.rc, reason);
        if (reason == TFN_E_TRUNCATED)
            CHECK_EQ_INT(t.err.offset, st[1]);
        tbuf_free(&t.data);
        /* SKIP: every record but 1, one region [st[1], st[1] + cut) */
        tfn_record_reader *r = open_skip(d.p, d.n, TFN_COMPRESSION_NONE);
        REQUIRE(r != NULL);
        const uint8_t *p;
        size_t len;
        size_t got = 0;
        int rc;
        tfn_error err;
        while ((rc = tfn_record_reader_next(r, &p, &len, &err)) == TFN_OK) {
            size_t want = got == 0 ? 0 : got + 1;
            CHECK_EQ_INT(which(p, len, N), (int)want);
            if (got == 1) {
                tfn_record_skip sk;
                tfn_record_reader_last_skip(r, &sk);
                CHECK_EQ_INT(sk.offset, st[1]);
                CHECK_EQ_INT(sk.length, cut);
                CHECK_EQ_INT(sk.record_index, 1);
                CHECK_EQ_INT(sk.reason, reason);
            }
            got++;
        }
        CHECK_EQ_INT(rc, TFN_END);
        CHECK_EQ_INT(got, N - 1);
        uint64_t regions, bytes;
        tfn_record_reader_skipped(r, &regions, &bytes);
        CHECK_EQ_INT(regions, 1);
        CHECK_EQ_INT(bytes, cut);
        tfn_record_reader_free(r);
        tbuf_free(&d);
    }
    tbuf_free(&b);
}

/* A truncated record with nothing valid after it is still TFN_E_TRUNCATED in SKIP
 * mode and is not consumed: once the rest of the file arrives, reading goes on. */
typedef struct growing {
    const uint8_t *p;
    size_t visible, pos;
} growing;

static int64_t growing_read(void *ctx, void *buf, size_t len)
{
    growing *g = (growing *)ctx;
    size_t k = g->visible - g->pos;
    if (k > len)
        k = len;
    memcpy(buf, g->p + g->pos, k);
    g->pos += k;
    return (int64_t)k;
}

static void test_growing_file(void)
{
    enum { N = 6 };
    size_t st[N + 1];
    tbuf b;
    make(&b, N, st);
    growing g = {b.p, st[3] + 40, 0}; /* record 3 half written */
    tfn_io io = {.read = growing_read, .ctx = &g};
    tfn_record_reader_options o;
    tfn_record_reader_options_init(&o);
    o.on_damage = TFN_ON_DAMAGE_SKIP;
    o.buffer_size = 64;
    tfn_record_reader *r = NULL;
    REQUIRE(tfn_record_reader_open_io(&io, &o, NULL, &r, NULL) == TFN_OK);
    const uint8_t *p;
    size_t len;
    tfn_error err;
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(tfn_record_reader_next(r, &p, &len, &err), TFN_OK);
        CHECK_EQ_INT(which(p, len, N), i);
    }
    for (int again = 0; again < 2; again++) {
        CHECK_EQ_INT(tfn_record_reader_next(r, &p, &len, &err), TFN_E_TRUNCATED);
        CHECK_EQ_INT(err.offset, st[3]);
        CHECK_EQ_INT(tfn_record_reader_offset(r), st[3]);
    }
    g.visible = b.n;
    for (int i = 3; i < N; i++) {
        CHECK_EQ_INT(tfn_record_reader_next(r, &p, &len, &err), TFN_OK);
        CHECK_EQ_INT(which(p, len, N), i);
    }
    CHECK_EQ_INT(tfn_record_reader_next(r, &p, &len, &err), TFN_END);
    uint64_t regions;
    tfn_record_reader_skipped(r, &regions, NULL);
    CHECK_EQ_INT(regions, 0);
    tfn_record_reader_free(r);
    tbuf_free(&b);
}

/* Two damaged regions: read_into and next_batch skip at most one per call, so that
 * tfn_record_reader_last_skip() reports each. */
static void test_one_region_per_call(void)
{
    enum { N = 10 };
    size_t st[N + 1];
    tbuf b;
    make(&b, N, st);
    b.p[st[3] + 14] ^= 1; /* payload of record 3 */
    b.p[st[6] + 2] ^= 1;  /* length of record 6 */
    for (int api = 0; api < 2; api++) {
        tfn_record_reader *r = open_skip(b.p, b.n, TFN_COMPRESSION_NONE);
        REQUIRE(r != NULL);
        size_t total = 0, calls = 0;
        uint64_t seen = 0;
        uint64_t starts[2] = {0, 0}, lens[2] = {0, 0};
        for (;;) {
            size_t n = 0;
            int rc;
            if (api == 0) {
                static uint8_t dst[1 << 16];
                uint64_t offs[N + 1];
                size_t written;
                rc = tfn_record_reader_read_into(r, dst, sizeof dst, offs, N, &n, &written,
                                                 NULL);
            } else {
                tfn_bytes views[N];
                rc = tfn_record_reader_next_batch(r, views, N, &n, NULL);
            }
            if (rc != TFN_OK) {
                CHECK_EQ_INT(rc, TFN_END);
                break;
            }
            calls++;
            uint64_t regions;
            tfn_record_reader_skipped(r, &regions, NULL);
            CHECK(regions <= seen + 1);
            if (regions == seen + 1 && seen < 2) {
                tfn_record_skip sk;
                tfn_record_reader_last_skip(r, &sk);
                starts[seen] = sk.offset;
                lens[seen] = sk.length;
                seen = regions;
            }
            total += n;
        }
        CHECK_EQ_INT(total, N - 2);
        CHECK_EQ_INT(seen, 2);
        CHECK_EQ_INT(starts[0], st[3]);
        CHECK_EQ_INT(lens[0], st[4] - st[3]);
        CHECK_EQ_INT(starts[1], st[6]);
        CHECK_EQ_INT(lens[1], st[7] - st[6]);
        CHECK(calls >= 3);
        tfn_record_reader_free(r);
    }
    tbuf_free(&b);
}

/* Compresses src with zlib (gzip when gz). */
static void deflate_all(const uint8_t *src, size_t n, bool gz, tbuf *out)
{
    memset(out, 0, sizeof *out);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + (gz ? 16 : 0), 9, Z_DEFAULT_STRATEGY) != Z_OK)
        abort();
    uLong cap = deflateBound(&zs, (uLong)n);
    out->p = (uint8_t *)malloc(cap);
    if (!out->p)
        abort();
    out->cap = cap;
    zs.next_in = (Bytef *)(uintptr_t)src;
    zs.avail_in = (uInt)n;
    zs.next_out = out->p;
    zs.avail_out = (uInt)cap;
    if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
        abort();
    out->n = cap - zs.avail_out;
    deflateEnd(&zs);
}

/* Damage inside the decompressed stream (a torn record, written whole into a
 * compressed file) is skipped the same way. */
static void test_compressed_torn(void)
{
    enum { N = 8 };
    size_t st[N + 1];
    tbuf b;
    make(&b, N, st);
    tbuf d = {0};
    size_t cut = 700;
    tbuf_put(&d, b.p, st[1] + cut);
    tbuf_put(&d, b.p + st[2], b.n - st[2]);
    for (int gz = 0; gz < 2; gz++) {
        tbuf z;
        deflate_all(d.p, d.n, gz, &z);
        int comp = gz ? TFN_COMPRESSION_GZIP : TFN_COMPRESSION_ZLIB;
        for (int autodetect = 0; autodetect < 2; autodetect++) {
            tfn_record_reader *r =
                open_skip(z.p, z.n, autodetect ? TFN_COMPRESSION_AUTO : comp);
            REQUIRE(r != NULL);
            const uint8_t *p;
            size_t len, got = 0;
            int rc;
            while ((rc = tfn_record_reader_next(r, &p, &len, NULL)) == TFN_OK) {
                CHECK_EQ_INT(which(p, len, N), got == 0 ? 0 : (int)got + 1);
                got++;
            }
            CHECK_EQ_INT(rc, TFN_END);
            CHECK_EQ_INT(got, N - 1);
            tfn_record_skip sk;
            tfn_record_reader_last_skip(r, &sk);
            CHECK_EQ_INT(sk.offset, st[1]);
            CHECK_EQ_INT(sk.length, cut);
            tfn_record_reader_free(r);
        }
        tbuf_free(&z);
    }
    tbuf_free(&d);
    tbuf_free(&b);
}

/* A broken compressed stream: zlib cannot go past the damage, but in SKIP mode the
 * records decoded before it come back first (RAISE reports the error at once, as
 * TensorFlow does, when the damage lies in the first input chunk). */
static void test_compressed_bytes_damaged(void)
{
    enum { N = 40 };
    size_t st[N + 1];
    tbuf b;
    make(&b, N, st);
    for (int gz = 0; gz < 2; gz++) {
        tbuf z;
        deflate_all(b.p, b.n, gz, &z);
        z.p[z.n * 3 / 5] ^= 0x55;
        int comp = gz ? TFN_COMPRESSION_GZIP : TFN_COMPRESSION_ZLIB;
        tfn_record_reader *r = open_skip(z.p, z.n, comp);
        REQUIRE(r != NULL);
        const uint8_t *p;
        size_t len, got = 0;
        int rc;
        while ((rc = tfn_record_reader_next(r, &p, &len, NULL)) == TFN_OK) {
            CHECK_EQ_INT(which(p, len, N), (int)got);
            got++;
        }
        CHECK(rc == TFN_E_DATA_LOSS || rc == TFN_E_TRUNCATED);
        CHECK(got > N / 4);
        CHECK(got < N);
        tfn_record_reader_free(r);
        tread t;
        tread_mem(z.p, z.n, comp, 0, &t);
        CHECK_EQ_INT(t.count, 0);
        CHECK_EQ_INT(t.rc, TFN_E_DATA_LOSS);
        tbuf_free(&t.data);
        tbuf_free(&z);
    }
    tbuf_free(&b);
}

/* An I/O error while skipping: the call fails with it, the bytes stepped over so far
 * are counted, and a retry goes on to the next good record; in all, exactly the
 * damaged record's bytes are skipped. */
typedef struct flaky {
    const uint8_t *p;
    size_t n, pos;
    int calls, fail_at;
} flaky;

static int64_t flaky_read(void *ctx, void *buf, size_t len)
{
    flaky *f = (flaky *)ctx;
    if (++f->calls == f->fail_at)
        return -EIO;
    size_t k = f->n - f->pos;
    if (k > len)
        k = len;
    if (k > 8)
        k = 8;
    memcpy(buf, f->p + f->pos, k);
    f->pos += k;
    return (int64_t)k;
}

static void test_io_error_while_skipping(void)
{
    enum { N = 6 };
    size_t st[N + 1];
    tbuf b;
    make(&b, N, st);
    b.p[st[3] + 20] ^= 1; /* payload of record 3 */
    int bad = 0;
    for (int fail_at = 1; fail_at < 900; fail_at++) {
        flaky f = {b.p, b.n, 0, 0, fail_at};
        tfn_io io = {.read = flaky_read, .ctx = &f};
        tfn_record_reader_options o;
        tfn_record_reader_options_init(&o);
        o.on_damage = TFN_ON_DAMAGE_SKIP;
        o.buffer_size = 64;
        tfn_record_reader *r = NULL;
        REQUIRE(tfn_record_reader_open_io(&io, &o, NULL, &r, NULL) == TFN_OK);
        const uint8_t *p;
        size_t len;
        int got = 0, errors = 0, rc, want = 0;
        bool order = true;
        for (int turn = 0; turn < 40; turn++) {
            rc = tfn_record_reader_next(r, &p, &len, NULL);
            if (rc == TFN_END)
                break;
            if (rc == TFN_E_IO) {
                errors++;
                continue;
            }
            if (rc != TFN_OK)
                break;
            if (want == 3)
                want = 4;
            order = order && which(p, len, N) == want;
            want++;
            got++;
        }
        uint64_t bytes;
        tfn_record_reader_skipped(r, NULL, &bytes);
        if (rc != TFN_END || got != N - 1 || !order || errors > 1 || bytes != st[4] - st[3])
            bad++;
        tfn_record_reader_free(r);
    }
    CHECK_EQ_INT(bad, 0);
    tbuf_free(&b);
}

/* Random access in SKIP mode: record i is record i or an error for i. */
static void test_index_exact(void)
{
    enum { N = 8 };
    size_t st[N + 1];
    tbuf b;
    make(&b, N, st);
    char path[64];
    temp_path(path, sizeof path);
    tfn_record_index *idx = NULL;
    {
        tfn_record_reader *r = open_skip(b.p, b.n, TFN_COMPRESSION_NONE);
        REQUIRE(r != NULL);
        REQUIRE(tfn_record_index_build(r, NULL, &idx, NULL) == TFN_OK);
        tfn_record_reader_free(r);
    }
    REQUIRE(tfn_record_index_count(idx) == N);
    uint8_t *d = (uint8_t *)malloc(b.n);
    REQUIRE(d != NULL);
    /* damage: record 2's payload, record 4's length CRC, record 6 torn to 20 bytes
     * with the file shifted after it */
    for (int kind = 0; kind < 3; kind++) {
        memcpy(d, b.p, b.n);
        size_t n = b.n;
        size_t bad = kind == 0 ? 2 : kind == 1 ? 4 : 6;
        if (kind == 0)
            d[st[2] + 20] ^= 0x10;
        else if (kind == 1)
            d[st[4] + 9] ^= 0x10;
        else {
            memmove(d + st[6] + 20, d + st[7], b.n - st[7]);
            n = b.n - (st[7] - st[6] - 20);
        }
        REQUIRE(write_file(path, d, n) == 0);
        tfn_record_reader_options o;
        tfn_record_reader_options_init(&o);
        o.on_damage = TFN_ON_DAMAGE_SKIP;
        tfn_record_reader *r = NULL;
        REQUIRE(tfn_record_reader_open(path, &o, NULL, &r, NULL) == TFN_OK);
        for (size_t i = 0; i < N; i++) {
            const uint8_t *p;
            size_t len;
            tfn_error err;
            memset(&err, 0, sizeof err);
            int rc = tfn_record_index_read(idx, r, i, &p, &len, &err);
            if (i == bad) {
                CHECK(rc < 0);
                CHECK_EQ_INT(err.record_index, i);
            } else if (kind == 2 && i > bad) {
                /* the index's offsets are stale after the shift: an error for i (or
                 * the end of the file), never another record */
                CHECK(rc != TFN_OK || which(p, len, N) == (int)i);
                if (rc < 0)
                    CHECK_EQ_INT(err.record_index, i);
            } else {
                CHECK_EQ_INT(rc, TFN_OK);
                if (rc == TFN_OK)
                    CHECK_EQ_INT(which(p, len, N), (int)i);
            }
        }
        uint64_t regions;
        tfn_record_reader_skipped(r, &regions, NULL);
        CHECK_EQ_INT(regions, 0);
        tfn_record_reader_free(r);
    }
    free(d);
    tfn_record_index_free(idx);
    unlink(path);
    tbuf_free(&b);
}

int main(void)
{
    RUN(test_torn_long_record);
    RUN(test_growing_file);
    RUN(test_one_region_per_call);
    RUN(test_compressed_torn);
    RUN(test_compressed_bytes_damaged);
    RUN(test_io_error_while_skipping);
    RUN(test_index_exact);
    return harness_finish();
}

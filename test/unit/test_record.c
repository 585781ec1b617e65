/* test_record.c - TFRecord framing, reader and writer: the vectors of spec section 3,
 * edge cases 32-41 of spec section 6, round trips in every compression, the batch
 * calls, the I/O callbacks and the argument checks. */
#include "harness.h"
#include "test_record_util.h"

#include <errno.h>
#include <zlib.h>

/* ---------------------------------------------------------------- framing */

static void test_frame_vectors(void)
{
    uint8_t out[64], exp[64];
    size_t w = 0, n;
    CHECK_EQ_INT(tfn_record_frame_size(0), 16);
    CHECK_EQ_INT(tfn_record_frame_size(SIZE_MAX - 15), 0);
    /* spec 6.32 */
    REQUIRE(tfn_record_frame(out, sizeof out, NULL, 0, &w, NULL) == TFN_OK);
    n = harness_hex("00 00 00 00 00 00 00 00 29 03 98 07 d8 ea 82 a2", exp, sizeof exp);
    CHECK_MEM(out, w, exp, n);
    REQUIRE(tfn_record_frame(out, sizeof out, "hello", 5, &w, NULL) == TFN_OK);
    n = harness_hex("05 00 00 00 00 00 00 00 ea b2 04 3e 68 65 6c 6c 6f bb 1f 1c 19", exp,
                    sizeof exp);
    CHECK_MEM(out, w, exp, n);
    /* spec 3.1: Example{"a": int64[1]} */
    uint8_t ex[14];
    harness_hex("0a 0c 0a 0a 0a 01 61 12 05 1a 03 0a 01 01", ex, sizeof ex);
    REQUIRE(tfn_record_frame(out, sizeof out, ex, sizeof ex, &w, NULL) == TFN_OK);
    n = harness_hex("0e 00 00 00 00 00 00 00 c5 e5 69 3f 0a 0c 0a 0a 0a 01 61 12 05 1a 03 0a 01"
                    " 01 39 e8 78 50",
                    exp, sizeof exp);
    CHECK_MEM(out, w, exp, n);
    /* Beam's golden record "foo" (base64 AwAAAAAAAACwmUkOZm9vYYq+/g==) */
    REQUIRE(tfn_record_frame(out, sizeof out, "foo", 3, &w, NULL) == TFN_OK);
    n = harness_hex("03 00 00 00 00 00 00 00 b0 99 49 0e 66 6f 6f 61 8a be fe", exp, sizeof exp);
    CHECK_MEM(out, w, exp, n);
    tfn_error err;
    CHECK_EQ_INT(tfn_record_frame(out, 20, "hello", 5, &w, &err), TFN_E_BUF_TOO_SMALL);
    CHECK_EQ_INT(w, 21);
    CHECK_EQ_INT(tfn_record_frame(NULL, 20, "hello", 5, &w, &err), TFN_E_INVALID_ARG);
}

static void test_unframe(void)
{
    uint8_t rec[64];
    size_t w;
    REQUIRE(tfn_record_frame(rec, sizeof rec, "hello", 5, &w, NULL) == TFN_OK);
    const uint8_t *p;
    size_t n, used;
    tfn_error err;
    CHECK_EQ_INT(tfn_record_unframe(rec, w, 0, &p, &n, &used, &err), TFN_OK);
    CHECK_MEM(p, n, "hello", 5);
    CHECK_EQ_INT(used, 21);
    CHECK_EQ_INT(tfn_record_unframe(rec, 0, 0, &p, &n, &used, &err), TFN_END);
    CHECK_EQ_INT(tfn_record_unframe(rec, 11, 0, &p, &n, &used, &err), TFN_END);
    CHECK_EQ_INT(tfn_record_unframe(rec, 20, 0, &p, &n, &used, &err), TFN_E_TRUNCATED);
    CHECK_STR(err.msg, "truncated record at 0' failed with Read less bytes than requested");
    CHECK_EQ_INT(used, 21);
    rec[14] ^= 1;
    CHECK_EQ_INT(tfn_record_unframe(rec, w, 0, &p, &n, &used, &err), TFN_E_DATA_LOSS);
    CHECK_STR(err.msg, "corrupted record at 12");
    CHECK_EQ_INT(err.offset, 12);
    CHECK_EQ_INT(tfn_record_unframe(rec, w, TFN_UNFRAME_NO_PAYLOAD_CRC, &p, &n, &used, &err),
                 TFN_OK);
    rec[14] ^= 1;
    rec[0] ^= 1;
    CHECK_EQ_INT(tfn_record_unframe(rec, w, 0, &p, &n, &used, &err), TFN_E_DATA_LOSS_LENGTH);
    CHECK_STR(err.msg, "corrupted record at 0 (Is this even a TFRecord file?)");
    CHECK_EQ_INT(tfn_record_unframe(NULL, 3, 0, &p, &n, &used, &err), TFN_E_INVALID_ARG);
}

/* ---------------------------------------------------------------- writer bytes */

static void write_mem(int compression, const char *const *recs, size_t n, tbuf *out)
{
    tfn_record_writer_options o;
    tfn_record_writer_options_init(&o);
    o.compression = compression;
    tfn_record_writer *w = NULL;
    if (tfn_record_writer_open_mem(&o, NULL, &w, NULL) != TFN_OK)
        abort();
    for (size_t i = 0; i < n; i++)
        if (tfn_record_writer_write(w, recs[i], strlen(recs[i]), NULL) != TFN_OK)
            abort();
    if (tfn_record_writer_close(w, NULL) != TFN_OK)
        abort();
    const uint8_t *d;
    size_t len;
    tfn_record_writer_mem_data(w, &d, &len);
    memset(out, 0, sizeof *out);
    tbuf_put(out, d, len);
    tfn_record_writer_free(w);
}

static void test_writer_bytes(void)
{
    static const char *const hw[] = {"hello", "world!"};
    tbuf none, z, gz;
    write_mem(TFN_COMPRESSION_NONE, hw, 2, &none);
    tbuf expect = {0};
    tbuf_frame(&expect, "hello", 5);
    tbuf_frame(&expect, "world!", 6);
    CHECK_MEM(none.p, none.n, expect.p, expect.n);
    /* spec 3.3: the ZLIB bytes of these two records with TF's settings */
    write_mem(TFN_COMPRESSION_ZLIB, hw, 2, &z);
    uint8_t exp[64];
    size_t n = harness_hex("78 9c 63 65 80 80 57 9b 58 ec 32 52 73 72 f2 77 cb cb 48 b2 41 05 8b"
                           " 33 af 9a 97 e7 17 e5 a4 28 72 1d 5b ef 0f 00 c6 ac 0b 0c",
                           exp, sizeof exp);
    CHECK_MEM(z.p, z.n, exp, n);
    write_mem(TFN_COMPRESSION_GZIP, hw, 2, &gz);
    REQUIRE(gz.n > 18);
    CHECK(gz.p[0] == 0x1f && gz.p[1] == 0x8b && gz.p[2] == 8);
    /* same deflate body as ZLIB, then crc32 + size trailer */
    CHECK_MEM(gz.p + 10, gz.n - 18, z.p + 2, z.n - 6);
    n = harness_hex("02 38 07 a7 2b 00 00 00", exp, sizeof exp);
    CHECK_MEM(gz.p + gz.n - 8, 8, exp, n);
    tbuf_free(&none);
    tbuf_free(&z);
    tbuf_free(&gz);
    tbuf_free(&expect);
}

/* Edge case 37: ZLIB output of foo, bar equals zlib's compress() of the uncompressed
 * file; GZIP output inflates to exactly the uncompressed file. */
static void test_edge37_zlib_equals_compress(void)
{
    static const char *const fb[] = {"foo", "bar"};
    tbuf none, z, gz;
    write_mem(TFN_COMPRESSION_NONE, fb, 2, &none);
    write_mem(TFN_COMPRESSION_ZLIB, fb, 2, &z);
    write_mem(TFN_COMPRESSION_GZIP, fb, 2, &gz);
    uint8_t c[256];
    uLongf clen = sizeof c;
    REQUIRE(compress(c, &clen, none.p, none.n) == Z_OK);
    CHECK_MEM(z.p, z.n, c, clen);
    /* inflate the gzip member with zlib directly */
    uint8_t out[256];
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    REQUIRE(inflateInit2(&zs, 31) == Z_OK);
    zs.next_in = gz.p;
    zs.avail_in = (uInt)gz.n;
    zs.next_out = out;
    zs.avail_out = sizeof out;
    CHECK_EQ_INT(inflate(&zs, Z_FINISH), Z_STREAM_END);
    CHECK_MEM(out, zs.total_out, none.p, none.n);
    inflateEnd(&zs);
    tbuf_free(&none);
    tbuf_free(&z);
    tbuf_free(&gz);
}

/* An empty compressed file is a complete empty stream (spec 3.3). */
static void test_empty_streams(void)
{
    tbuf z, gz, none;
    write_mem(TFN_COMPRESSION_NONE, NULL, 0, &none);
    write_mem(TFN_COMPRESSION_ZLIB, NULL, 0, &z);
    write_mem(TFN_COMPRESSION_GZIP, NULL, 0, &gz);
    uint8_t exp[32];
    size_t n = harness_hex("78 9c 03 00 00 00 00 01", exp, sizeof exp);
    CHECK_EQ_INT(none.n, 0);
    CHECK_MEM(z.p, z.n, exp, n);
    CHECK_EQ_INT(gz.n, 20);
    n = harness_hex("1f 8b 08 00 00 00 00 00 00", exp, sizeof exp);
    CHECK_MEM(gz.p, 9, exp, n); /* byte 9 is the OS: build-dependent */
    for (int c = 0; c < 4; c++) {
        tread t;
        tread_mem(c == 1 ? z.p : c == 2 ? gz.p : NULL, c == 1 ? z.n : c == 2 ? gz.n : 0, c, 0,
                  &t);
        CHECK_EQ_INT(t.rc, TFN_END);
        CHECK_EQ_INT(t.count, 0);
        tbuf_free(&t.data);
    }
    tbuf_free(&none);
    tbuf_free(&z);
    tbuf_free(&gz);
}

/* ---------------------------------------------------------------- edge cases 33-41 */

/* 33: a 0-byte file gives 0 records in every compression, read from a path. */
static void test_edge33_empty_file(void)
{
    char path[64];
    temp_path(path, sizeof path);
    for (int c = 0; c < 4; c++) {
        tfn_record_reader_options o;
        tfn_record_reader_options_init(&o);
        o.compression = c;
        tfn_record_reader *r;
        tfn_error err;
        REQUIRE(tfn_record_reader_open(path, &o, NULL, &r, &err) == TFN_OK);
        const uint8_t *p;
        size_t n;
        CHECK_EQ_INT(tfn_record_reader_next(r, &p, &n, &err), TFN_END);
        CHECK_EQ_INT(tfn_record_reader_next(r, &p, &n, &err), TFN_END);
        CHECK_EQ_INT(tfn_record_reader_index(r), 0);
        tfn_record_reader_free(r);
    }
    unlink(path);
}

/* 34: one good record + 1..11 stray bytes: 1 record, then a clean end. */
static void test_edge34_stray_bytes(void)
{
    for (size_t extra = 1; extra < 12; extra++) {
        tbuf b = {0};
        tbuf_frame(&b, "hello", 5);
        tbuf_put(&b, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b", extra);
        tread t;
        tread_mem(b.p, b.n, TFN_COMPRESSION_NONE, 0, &t);
        CHECK_EQ_INT(t.count, 1);
        CHECK_EQ_INT(t.rc, TFN_END);
        tbuf_free(&t.data);
        tbuf_free(&b);
    }
}

/* 35: the last record lacks its final byte: earlier records come back, then
 * truncated (again on retry); once the byte is appended, the record is read. */
static void test_edge35_truncated_then_grown(void)
{
    tbuf b = {0};
    tbuf_frame(&b, "first", 5);
    tbuf_frame(&b, "second", 6);
    size_t start = 21;
    char path[64];
    temp_path(path, sizeof path);
    REQUIRE(write_file(path, b.p, b.n - 1) == 0);
    for (int c = 0; c < 2; c++) {
        /* c == 1: a small buffer, so the record spans buffer refills */
        tfn_record_reader_options o;
        tfn_record_reader_options_init(&o);
        o.buffer_size = c ? 64 : 0;
        tfn_record_reader *r;
        tfn_error err;
        REQUIRE(tfn_record_reader_open(path, &o, NULL, &r, &err) == TFN_OK);
        const uint8_t *p;
        size_t n;
        CHECK_EQ_INT(tfn_record_reader_next(r, &p, &n, &err), TFN_OK);
        CHECK_MEM(p, n, "first", 5);
        for (int k = 0; k < 2; k++) {
            CHECK_EQ_INT(tfn_record_reader_next(r, &p, &n, &err), TFN_E_TRUNCATED);
            char exp[256];
            snprintf(exp, sizeof exp,
                     "truncated record at %zu' failed with Read less bytes than requested; "
                     "file %s, record 1",
                     start, path);
            CHECK_STR(err.msg, exp);
            CHECK_EQ_INT(err.offset, start);
            CHECK_EQ_INT(err.record_index, 1);
            CHECK_EQ_INT(tfn_record_reader_offset(r), start);
        }
        REQUIRE(append_file(path, b.p + b.n - 1, 1) == 0);
        CHECK_EQ_INT(tfn_record_reader_next(r, &p, &n, &err), TFN_OK);
        CHECK_MEM(p, n, "second", 6);
        CHECK_EQ_INT(tfn_record_reader_next(r, &p, &n, &err), TFN_END);
        /* A record appended after the end is returned too. */
        tbuf more = {0};
        tbuf_frame(&more, c ? "fourth" : "third!", 6);
        REQUIRE(append_file(path, more.p, more.n) == 0);
        CHECK_EQ_INT(tfn_record_reader_next(r, &p, &n, &err), TFN_OK);
        CHECK_MEM(p, n, c ? "fourth" : "third!", 6);
        tbuf_free(&more);
        tfn_record_reader_free(r);
        if (c == 0) {
            /* second round reads the grown file from a fresh truncated copy */
            REQUIRE(write_file(path, b.p, b.n - 1) == 0);
        }
    }
    unlink(path);
    tbuf_free(&b);
}

/* 36: flipped bytes in the first and second records. */
static void test_edge36_flips(void)
{
    tbuf b = {0};
    tbuf_frame(&b, "hello", 5);
    tbuf_frame(&b, "world!", 6);
    size_t s = 21;
    struct {
        size_t pos;
        int code;
        const char *msg;
        size_t good;
    } cases[] = {
        {14, TFN_E_DATA_LOSS, "corrupted record at 12; record 0", 0},
        {3, TFN_E_DATA_LOSS_LENGTH, "corrupted record at 0 (Is this even a TFRecord file?); record 0", 0},
        {9, TFN_E_DATA_LOSS_LENGTH, "corrupted record at 0 (Is this even a TFRecord file?); record 0", 0},
        {19, TFN_E_DATA_LOSS, "corrupted record at 12; record 0", 0},
        {s + 0, TFN_E_DATA_LOSS_LENGTH, "corrupted record at 21; record 1", 1},
        {s + 12, TFN_E_DATA_LOSS, "corrupted record at 33; record 1", 1},
        {s + 20, TFN_E_DATA_LOSS, "corrupted record at 33; record 1", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        b.p[cases[i].pos] ^= 0x20;
        tread t;
        tread_mem(b.p, b.n, TFN_COMPRESSION_NONE, 0, &t);
        CHECK_EQ_INT(t.count, cases[i].good);
        CHECK_EQ_INT(t.rc, cases[i].code);
        CHECK_STR(t.err.msg, cases[i].msg);
        b.p[cases[i].pos] ^= 0x20;
        tbuf_free(&t.data);
    }
    tbuf_free(&b);
}

/* 38: wrong compression choices. */
static void test_edge38_wrong_compression(void)
{
    static const char *const fb[] = {"foo", "bar"};
    tbuf z, gz;
    write_mem(TFN_COMPRESSION_ZLIB, fb, 2, &z);
    write_mem(TFN_COMPRESSION_GZIP, fb, 2, &gz);
    tread t;
    tread_mem(gz.p, gz.n, TFN_COMPRESSION_ZLIB, 0, &t);
    CHECK_EQ_INT(t.rc, TFN_E_DATA_LOSS);
    CHECK_STR(t.err.msg, "inflate() failed with error -3: incorrect header check; "
                         "compressed offset 2; record 0");
    tbuf_free(&t.data);
    tread_mem(z.p, z.n, TFN_COMPRESSION_GZIP, 0, &t);
    CHECK_EQ_INT(t.rc, TFN_E_DATA_LOSS);
    CHECK(strstr(t.err.msg, "inflate() failed with error -3: ") == t.err.msg);
    tbuf_free(&t.data);
    tread_mem(gz.p, gz.n, TFN_COMPRESSION_NONE, 0, &t);
    CHECK_EQ_INT(t.rc, TFN_E_DATA_LOSS_LENGTH);
    CHECK_STR(t.err.msg, "corrupted record at 0 (Is this even a TFRecord file?); record 0");
    tbuf_free(&t.data);
    /* AUTO picks the right one for each. */
    tread_mem(gz.p, gz.n, TFN_COMPRESSION_AUTO, 0, &t);
    CHECK_EQ_INT(t.count, 2);
    CHECK_EQ_INT(t.rc, TFN_END);
    CHECK_MEM(t.data.p, t.data.n, "foobar", 6);
    tbuf_free(&t.data);
    tread_mem(z.p, z.n, TFN_COMPRESSION_AUTO, 0, &t);
    CHECK_EQ_INT(t.count, 2);
    CHECK_MEM(t.data.p, t.data.n, "foobar", 6);
    tbuf_free(&t.data);
    tbuf_free(&z);
    tbuf_free(&gz);
}

/* 39: two gzip members in a row, through a file (buffered path). */
static void test_edge39_gzip_members(void)
{
    static const char *const a[] = {"one", "two"};
    static const char *const b2[] = {"three"};
    tbuf g1, g2;
    write_mem(TFN_COMPRESSION_GZIP, a, 2, &g1);
    write_mem(TFN_COMPRESSION_GZIP, b2, 1, &g2);
    tbuf_put(&g1, g2.p, g2.n);
    char path[64];
    temp_path(path, sizeof path);
    REQUIRE(write_file(path, g1.p, g1.n) == 0);
    for (int c = TFN_COMPRESSION_GZIP; c <= TFN_COMPRESSION_AUTO; c++) {
        tfn_record_reader_options o;
        tfn_record_reader_options_init(&o);
        o.compression = c;
        tfn_record_reader *r;
        REQUIRE(tfn_record_reader_open(path, &o, NULL, &r, NULL) == TFN_OK);
        tread t;
        memset(&t, 0, sizeof t);
        tread_run(r, &t);
        CHECK_EQ_INT(t.count, 3);
        CHECK_EQ_INT(t.rc, TFN_END);
        CHECK_MEM(t.data.p, t.data.n, "onetwothree", 11);
        CHECK_EQ_INT(tfn_record_reader_compression(r), TFN_COMPRESSION_GZIP);
        tfn_record_reader_free(r);
        tbuf_free(&t.data);
    }
    unlink(path);
    tbuf_free(&g1);
    tbuf_free(&g2);
}

/* 41: write after close; close twice. */
static void test_edge41_writer_closed(void)
{
    char path[64];
    temp_path(path, sizeof path);
    tfn_record_writer *w;
    tfn_error err;
    REQUIRE(tfn_record_writer_open(path, NULL, NULL, &w, &err) == TFN_OK);
    CHECK_EQ_INT(tfn_record_writer_write(w, "a", 1, &err), TFN_OK);
    CHECK_EQ_INT(tfn_record_writer_close(w, &err), TFN_OK);
    CHECK_EQ_INT(tfn_record_writer_write(w, "b", 1, &err), TFN_E_CLOSED);
    CHECK_STR(err.msg, "Writer is closed.");
    CHECK_EQ_INT(tfn_record_writer_flush(w, &err), TFN_E_CLOSED);
    CHECK_EQ_INT(tfn_record_writer_close(w, &err), TFN_OK);
    CHECK_EQ_INT(tfn_record_writer_count(w), 1);
    tfn_record_writer_free(w);
    size_t n;
    uint8_t *d = read_file(path, &n);
    CHECK_EQ_INT(n, 17);
    free(d);
    unlink(path);
    /* The file is truncated on open. */
    REQUIRE(write_file(path, "0123456789012345678901234567890123456789", 40) == 0);
    REQUIRE(tfn_record_writer_open(path, NULL, NULL, &w, &err) == TFN_OK);
    tfn_record_writer_free(w);
    d = read_file(path, &n);
    CHECK_EQ_INT(n, 0);
    free(d);
    unlink(path);
}

/* ---------------------------------------------------------------- round trips */

static size_t rec_len(uint32_t i)
{
    /* lengths from 0 to ~300 KiB, mostly small */
    uint32_t h = i * 2654435761u;
    switch (h % 7) {
    case 0: return 0;
    case 1: return h % 16;
    case 2: return 300000 + h % 1000;
    default: return h % 3000;
    }
}

static void fill_rec(uint8_t *p, size_t n, uint32_t i)
{
    uint32_t s = i + 1;
    for (size_t k = 0; k < n; k++) {
        s = s * 1103515245u + 12345u;
        p[k] = (uint8_t)((i & 1) ? (s >> 16) : (k / 7 + i)); /* random or compressible */
    }
}

static void roundtrip(int compression, int sink, size_t buffer)
{
    enum { N = 60 };
    char path[64];
    temp_path(path, sizeof path);
    tfn_record_writer_options wo;
    tfn_record_writer_options_init(&wo);
    wo.compression = compression;
    wo.buffer_size = buffer;
    tfn_record_writer *w;
    tfn_error err;
    if (sink == 0)
        REQUIRE(tfn_record_writer_open(path, &wo, NULL, &w, &err) == TFN_OK);
    else
        REQUIRE(tfn_record_writer_open_mem(&wo, NULL, &w, &err) == TFN_OK);
    uint8_t *tmp = (uint8_t *)malloc(310000);
    REQUIRE(tmp != NULL);
    for (uint32_t i = 0; i < N; i++) {
        size_t n = rec_len(i);
        fill_rec(tmp, n, i);
        CHECK_EQ_INT(tfn_record_writer_write(w, tmp, n, &err), TFN_OK);
        if (i % 17 == 5)
            CHECK_EQ_INT(tfn_record_writer_flush(w, &err), TFN_OK);
    }
    CHECK_EQ_INT(tfn_record_writer_close(w, &err), TFN_OK);
    CHECK_EQ_INT(tfn_record_writer_count(w), N);
    size_t flen;
    uint8_t *file;
    if (sink == 0) {
        file = read_file(path, &flen);
    } else {
        const uint8_t *d;
        tfn_record_writer_mem_data(w, &d, &flen);
        file = (uint8_t *)malloc(flen + 1);
        memcpy(file, d, flen);
    }
    tfn_record_writer_free(w);
    REQUIRE(file != NULL);
    for (int rc = 0; rc < 2; rc++) {
        /* read with the stated compression and with AUTO; small and default buffers */
        tfn_record_reader_options o;
        tfn_record_reader_options_init(&o);
        o.compression = rc ? TFN_COMPRESSION_AUTO : compression;
        o.buffer_size = rc ? 100 : 0;
        tfn_record_reader *r;
        if (sink == 0)
            REQUIRE(tfn_record_reader_open(path, &o, NULL, &r, &err) == TFN_OK);
        else
            REQUIRE(tfn_record_reader_open_mem(file, flen, &o, NULL, &r, &err) == TFN_OK);
        uint64_t off = 0;
        for (uint32_t i = 0; i < N; i++) {
            const uint8_t *p;
            size_t n;
            CHECK_EQ_INT(tfn_record_reader_offset(r), off);
            int st = tfn_record_reader_next(r, &p, &n, &err);
            CHECK_EQ_INT(st, TFN_OK);
            if (st != TFN_OK) {
                fprintf(stderr, "  record %u: %s\n", i, err.msg);
                break;
            }
            fill_rec(tmp, rec_len(i), i);
            CHECK_MEM(p, n, tmp, rec_len(i));
            off += n + 16;
        }
        const uint8_t *p;
        size_t n;
        CHECK_EQ_INT(tfn_record_reader_next(r, &p, &n, &err), TFN_END);
        CHECK_EQ_INT(tfn_record_reader_index(r), N);
        CHECK_EQ_INT(tfn_record_reader_compression(r), compression);
        tfn_record_reader_free(r);
        /* again through peek + take (every third record taken without a peek) */
        if (sink == 0)
            REQUIRE(tfn_record_reader_open(path, &o, NULL, &r, &err) == TFN_OK);
        else
            REQUIRE(tfn_record_reader_open_mem(file, flen, &o, NULL, &r, &err) == TFN_OK);
        uint8_t *got = (uint8_t *)malloc(310000);
        REQUIRE(got != NULL);
        for (uint32_t i = 0; i < N; i++) {
            size_t len = 0, taken = 0;
            if (i % 3)
                CHECK_EQ_INT(tfn_record_reader_peek(r, &len, &err), TFN_OK);
            int st = tfn_record_reader_take(r, got, 310000, &taken, &err);
            CHECK_EQ_INT(st, TFN_OK);
            if (st != TFN_OK)
                break;
            CHECK(i % 3 == 0 || len == taken);
            fill_rec(tmp, rec_len(i), i);
            CHECK_MEM(got, taken, tmp, rec_len(i));
        }
        size_t len;
        CHECK_EQ_INT(tfn_record_reader_peek(r, &len, &err), TFN_END);
        CHECK_EQ_INT(tfn_record_reader_take(r, got, 310000, &len, &err), TFN_END);
        CHECK_EQ_INT(tfn_record_reader_index(r), N);
        free(got);
        tfn_record_reader_free(r);
    }
    if (compression == TFN_COMPRESSION_NONE) {
        size_t total = 0;
        for (uint32_t i = 0; i < N; i++)
            total += rec_len(i) + 16;
        CHECK_EQ_INT(flen, total);
    }
    free(file);
    free(tmp);
    unlink(path);
}

static void test_roundtrips(void)
{
    for (int c = 0; c < 3; c++) {
        roundtrip(c, 0, 0);
        roundtrip(c, 1, 0);
        roundtrip(c, 0, 100); /* tiny writer buffer: most records bypass it */
    }
}

/* ---------------------------------------------------------------- batches */

static void test_next_batch(void)
{
    tbuf b = {0};
    char rec[32];
    for (int i = 0; i < 500; i++) {
        int n = snprintf(rec, sizeof rec, "record-%d", i);
        tbuf_frame(&b, rec, (size_t)n);
    }
    char path[64];
    temp_path(path, sizeof path);
    REQUIRE(write_file(path, b.p, b.n) == 0);
    for (int src = 0; src < 2; src++) {
        tfn_record_reader_options o;
        tfn_record_reader_options_init(&o);
        o.buffer_size = 300; /* many refills */
        tfn_record_reader *r;
        if (src == 0)
            REQUIRE(tfn_record_reader_open(path, &o, NULL, &r, NULL) == TFN_OK);
        else
            REQUIRE(tfn_record_reader_open_mem(b.p, b.n, &o, NULL, &r, NULL) == TFN_OK);
        tfn_bytes views[64];
        size_t got = 0, total = 0;
        int rc;
        int bad = 0;
        while ((rc = tfn_record_reader_next_batch(r, views, 64, &got, NULL)) == TFN_OK) {
            CHECK(got >= 1 && got <= 64);
            /* all views of a batch are valid together */
            for (size_t k = 0; k < got; k++) {
                int n = snprintf(rec, sizeof rec, "record-%zu", total + k);
                if (views[k].len != (size_t)n || memcmp(views[k].data, rec, (size_t)n) != 0)
                    bad++;
            }
            total += got;
        }
        CHECK_EQ_INT(bad, 0);
        CHECK_EQ_INT(rc, TFN_END);
        CHECK_EQ_INT(got, 0);
        CHECK_EQ_INT(total, 500);
        tfn_record_reader_free(r);
    }
    /* A damaged record after some good ones: the batch stops before it, the next call
     * reports it. */
    b.p[21 * 0 + 3 * 26 + 14] ^= 1; /* payload of record 3 (records 0-9 are 24-25 B) */
    tfn_record_reader *r;
    REQUIRE(tfn_record_reader_open_mem(b.p, b.n, NULL, NULL, &r, NULL) == TFN_OK);
    tfn_bytes views[64];
    size_t got;
    tfn_error err;
    CHECK_EQ_INT(tfn_record_reader_next_batch(r, views, 64, &got, &err), TFN_OK);
    CHECK_EQ_INT(got, 3);
    CHECK_EQ_INT(tfn_record_reader_next_batch(r, views, 64, &got, &err), TFN_E_DATA_LOSS);
    CHECK_EQ_INT(got, 0);
    CHECK_EQ_INT(err.record_index, 3);
    tfn_record_reader_free(r);
    unlink(path);
    tbuf_free(&b);
}

static void test_read_into(void)
{
    tbuf b = {0};
    tbuf_frame(&b, "aaaa", 4);
    tbuf_frame(&b, "bbbbbbbb", 8);
    tbuf_frame(&b, "", 0);
    tbuf_frame(&b, "cc", 2);
    tfn_record_reader *r;
    REQUIRE(tfn_record_reader_open_mem(b.p, b.n, NULL, NULL, &r, NULL) == TFN_OK);
    uint8_t dst[10];
    uint64_t offs[5];
    size_t n, w;
    tfn_error err;
    CHECK_EQ_INT(tfn_record_reader_read_into(r, dst, 3, offs, 4, &n, &w, &err),
                 TFN_E_BUF_TOO_SMALL);
    CHECK_EQ_INT(w, 4);
    CHECK_EQ_INT(tfn_record_reader_index(r), 0);
    CHECK_EQ_INT(tfn_record_reader_read_into(r, dst, 10, offs, 4, &n, &w, &err), TFN_OK);
    CHECK_EQ_INT(n, 1); /* "bbbbbbbb" does not fit after "aaaa" */
    CHECK_EQ_INT(w, 4);
    CHECK_EQ_INT(offs[1], 4);
    CHECK_EQ_INT(tfn_record_reader_read_into(r, dst, 10, offs, 4, &n, &w, &err), TFN_OK);
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_INT(w, 10);
    CHECK_MEM(dst, w, "bbbbbbbbcc", 10);
    CHECK(offs[0] == 0 && offs[1] == 8 && offs[2] == 8 && offs[3] == 10);
    CHECK_EQ_INT(tfn_record_reader_read_into(r, dst, 10, offs, 4, &n, &w, &err), TFN_END);
    CHECK_EQ_INT(n, 0);
    tfn_record_reader_free(r);
    tbuf_free(&b);
}

/* peek does not consume; take copies and consumes; other calls in between; a buffer
 * too small; payload damage found by take's copying CRC, with next()'s message. */
static void test_peek_take(void)
{
    tbuf b = {0};
    tbuf_frame(&b, "aaaa", 4);
    tbuf_frame(&b, "bbbbbbbb", 8);
    tbuf_frame(&b, "", 0);
    tbuf_frame(&b, "cc", 2);
    tfn_record_reader *r;
    tfn_error err;
    REQUIRE(tfn_record_reader_open_mem(b.p, b.n, NULL, NULL, &r, &err) == TFN_OK);
    uint8_t dst[16];
    size_t len, n;
    CHECK_EQ_INT(tfn_record_reader_peek(r, &len, &err), TFN_OK);
    CHECK_EQ_INT(len, 4);
    CHECK_EQ_INT(tfn_record_reader_peek(r, &len, &err), TFN_OK); /* again: same record */
    CHECK_EQ_INT(tfn_record_reader_index(r), 0);
    CHECK_EQ_INT(tfn_record_reader_take(r, dst, 3, &n, &err), TFN_E_BUF_TOO_SMALL);
    CHECK_EQ_INT(n, 4);
    CHECK(strstr(err.msg, "record 0 has 4 bytes, the buffer 3") != NULL);
    CHECK_EQ_INT(tfn_record_reader_take(r, dst, sizeof dst, &n, &err), TFN_OK);
    CHECK_MEM(dst, n, "aaaa", 4);
    /* a peek, then next(): next returns the peeked record, and a take after it reads
     * the one after (the peek is stale) */
    CHECK_EQ_INT(tfn_record_reader_peek(r, &len, &err), TFN_OK);
    const uint8_t *p;
    CHECK_EQ_INT(tfn_record_reader_next(r, &p, &n, &err), TFN_OK);
    CHECK_MEM(p, n, "bbbbbbbb", 8);
    CHECK_EQ_INT(tfn_record_reader_take(r, NULL, 0, &n, &err), TFN_OK); /* empty record */
    CHECK_EQ_INT(n, 0);
    CHECK_EQ_INT(tfn_record_reader_take(r, dst, sizeof dst, &n, &err), TFN_OK);
    CHECK_MEM(dst, n, "cc", 2);
    CHECK_EQ_INT(tfn_record_reader_take(r, dst, sizeof dst, &n, &err), TFN_END);
    CHECK_EQ_INT(tfn_record_reader_take(NULL, dst, 1, &n, &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_record_reader_peek(r, NULL, &err), TFN_E_INVALID_ARG);
    tfn_record_reader_free(r);

    /* a damaged payload: take() reports it as next() does and does not consume it */
    b.p[32] ^= 1; /* a byte of "bbbbbbbb" (record 1: frame at 20, payload at 32) */
    REQUIRE(tfn_record_reader_open_mem(b.p, b.n, NULL, NULL, &r, &err) == TFN_OK);
    CHECK_EQ_INT(tfn_record_reader_take(r, dst, sizeof dst, &n, &err), TFN_OK);
    char want[sizeof err.msg];
    CHECK_EQ_INT(tfn_record_reader_next(r, &p, &n, &err), TFN_E_DATA_LOSS);
    snprintf(want, sizeof want, "%s", err.msg);
    CHECK_EQ_INT(tfn_record_reader_peek(r, &len, &err), TFN_OK); /* the length is fine */
    CHECK_EQ_INT(tfn_record_reader_take(r, dst, sizeof dst, &n, &err), TFN_E_DATA_LOSS);
    CHECK_STR(err.msg, want);
    CHECK_STR(err.msg, "corrupted record at 32; record 1");
    CHECK_EQ_INT(tfn_record_reader_index(r), 1);
    CHECK_EQ_INT(tfn_record_reader_take(r, dst, sizeof dst, &n, &err), TFN_E_DATA_LOSS);
    tfn_record_reader_free(r);
    /* skip policy: peek skips the damaged record, take copies the next one */
    tfn_record_reader_options o;
    tfn_record_reader_options_init(&o);
    o.on_damage = TFN_ON_DAMAGE_SKIP;
    REQUIRE(tfn_record_reader_open_mem(b.p, b.n, &o, NULL, &r, &err) == TFN_OK);
    CHECK_EQ_INT(tfn_record_reader_take(r, dst, sizeof dst, &n, &err), TFN_OK);
    CHECK_EQ_INT(tfn_record_reader_peek(r, &len, &err), TFN_OK);
    CHECK_EQ_INT(len, 0);
    uint64_t skipped;
    tfn_record_reader_skipped(r, &skipped, NULL);
    CHECK_EQ_INT(skipped, 1);
    CHECK_EQ_INT(tfn_record_reader_take(r, dst, sizeof dst, &n, &err), TFN_OK);
    CHECK_EQ_INT(tfn_record_reader_take(r, dst, sizeof dst, &n, &err), TFN_OK);
    CHECK_MEM(dst, n, "cc", 2);
    tfn_record_reader_free(r);
    /* skip_payload_crc: take copies without checking */
    tfn_record_reader_options_init(&o);
    o.skip_payload_crc = 1;
    REQUIRE(tfn_record_reader_open_mem(b.p, b.n, &o, NULL, &r, &err) == TFN_OK);
    CHECK_EQ_INT(tfn_record_reader_take(r, dst, sizeof dst, &n, &err), TFN_OK);
    CHECK_EQ_INT(tfn_record_reader_take(r, dst, sizeof dst, &n, &err), TFN_OK);
    CHECK_EQ_INT(n, 8);
    tfn_record_reader_free(r);
    tbuf_free(&b);
}

static void test_write_batch(void)
{
    const char data[] = "abcdefghij";
    uint64_t offs[] = {0, 3, 3, 10};
    tfn_record_writer *w;
    REQUIRE(tfn_record_writer_open_mem(NULL, NULL, &w, NULL) == TFN_OK);
    CHECK_EQ_INT(tfn_record_writer_write_batch(w, data, offs, 3, NULL), TFN_OK);
    uint64_t bad[] = {0, 5, 4};
    tfn_error err;
    CHECK_EQ_INT(tfn_record_writer_write_batch(w, data, bad, 2, &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(err.record_index, 1);
    CHECK_EQ_INT(tfn_record_writer_close(w, NULL), TFN_OK);
    const uint8_t *d;
    size_t n;
    tfn_record_writer_mem_data(w, &d, &n);
    tbuf exp = {0};
    tbuf_frame(&exp, "abc", 3);
    tbuf_frame(&exp, "", 0);
    tbuf_frame(&exp, "defghij", 7);
    tbuf_frame(&exp, "abcde", 5); /* the bad batch's first record went out */
    CHECK_MEM(d, n, exp.p, exp.n);
    tfn_record_writer_free(w);
    tbuf_free(&exp);
}

/* ---------------------------------------------------------------- callbacks */

typedef struct cbfile {
    tbuf b;
    size_t pos;
    int fail_after; /* fail reads/writes after this many calls (-1: never) */
    int calls;
    int closed, flushed;
} cbfile;

static int64_t cb_read(void *ctx, void *buf, size_t len)
{
    cbfile *f = (cbfile *)ctx;
    if (f->fail_after >= 0 && f->calls++ >= f->fail_after)
        return -EIO;
    size_t n = f->b.n - f->pos;
    if (n > len)
        n = len;
    if (n > 7)
        n = 7; /* short reads */
    memcpy(buf, f->b.p + f->pos, n);
    f->pos += n;
    return (int64_t)n;
}

static int64_t cb_write(void *ctx, const void *buf, size_t len)
{
    cbfile *f = (cbfile *)ctx;
    if (f->fail_after >= 0 && f->calls++ >= f->fail_after)
        return -ENOSPC;
    size_t n = len > 5 ? 5 : len; /* short writes */
    tbuf_put(&f->b, buf, n);
    return (int64_t)n;
}

static int64_t cb_seek(void *ctx, uint64_t off)
{
    cbfile *f = (cbfile *)ctx;
    if (off > f->b.n)
        return -EINVAL;
    f->pos = (size_t)off;
    return 0;
}

static int cb_close(void *ctx)
{
    ((cbfile *)ctx)->closed++;
    return 0;
}

static int cb_flush(void *ctx)
{
    ((cbfile *)ctx)->flushed++;
    return 0;
}

static void test_callbacks(void)
{
    for (int c = 0; c < 3; c++) {
        cbfile f;
        memset(&f, 0, sizeof f);
        f.fail_after = -1;
        tfn_io io = {cb_read, cb_write, cb_seek, cb_flush, cb_close, &f};
        tfn_record_writer_options wo;
        tfn_record_writer_options_init(&wo);
        wo.compression = c;
        tfn_record_writer *w;
        REQUIRE(tfn_record_writer_open_io(&io, &wo, NULL, &w, NULL) == TFN_OK);
        CHECK_EQ_INT(tfn_record_writer_write(w, "hello", 5, NULL), TFN_OK);
        CHECK_EQ_INT(tfn_record_writer_flush(w, NULL), TFN_OK);
        CHECK_EQ_INT(f.flushed, 1);
        CHECK_EQ_INT(tfn_record_writer_write(w, "world!", 6, NULL), TFN_OK);
        CHECK_EQ_INT(tfn_record_writer_close(w, NULL), TFN_OK);
        CHECK_EQ_INT(f.closed, 1);
        tfn_record_writer_free(w);
        CHECK_EQ_INT(f.closed, 1);
        f.closed = 0;
        tfn_record_reader_options o;
        tfn_record_reader_options_init(&o);
        o.compression = TFN_COMPRESSION_AUTO;
        o.name = "cb-stream";
        tfn_record_reader *r;
        REQUIRE(tfn_record_reader_open_io(&io, &o, NULL, &r, NULL) == TFN_OK);
        tread t;
        memset(&t, 0, sizeof t);
        tread_run(r, &t);
        CHECK_EQ_INT(t.count, 2);
        CHECK_EQ_INT(t.rc, TFN_END);
        CHECK_MEM(t.data.p, t.data.n, "helloworld!", 11);
        tfn_error err;
        if (c == 0) {
            const uint8_t *p;
            size_t n;
            CHECK_EQ_INT(tfn_record_reader_seek(r, 21, 1, &err), TFN_OK);
            CHECK_EQ_INT(tfn_record_reader_next(r, &p, &n, &err), TFN_OK);
            CHECK_MEM(p, n, "world!", 6);
        } else {
            CHECK_EQ_INT(tfn_record_reader_seek(r, 0, 0, &err), TFN_E_INVALID_ARG);
        }
        tfn_record_reader_free(r);
        CHECK_EQ_INT(f.closed, 1);
        tbuf_free(&t.data);
        /* read errors become TFN_E_IO with sys_errno and the stream's name */
        f.pos = 0;
        f.calls = 0;
        f.fail_after = 1;
        REQUIRE(tfn_record_reader_open_io(&io, &o, NULL, &r, NULL) == TFN_OK);
        memset(&t, 0, sizeof t);
        tread_run(r, &t);
        CHECK_EQ_INT(t.rc, TFN_E_IO);
        CHECK_EQ_INT(t.err.sys_errno, EIO);
        CHECK(strstr(t.err.msg, "cb-stream") != NULL);
        tfn_record_reader_free(r);
        tbuf_free(&t.data);
        tbuf_free(&f.b);
        /* write errors */
        memset(&f, 0, sizeof f);
        f.fail_after = 2;
        REQUIRE(tfn_record_writer_open_io(&io, &wo, NULL, &w, NULL) == TFN_OK);
        CHECK_EQ_INT(tfn_record_writer_write(w, "hello", 5, NULL), TFN_OK);
        CHECK_EQ_INT(tfn_record_writer_close(w, &err), TFN_E_IO);
        CHECK_EQ_INT(err.sys_errno, ENOSPC);
        CHECK_EQ_INT(f.closed, 1);
        /* the failure is sticky: later calls report it, not "closed" */
        memset(&err, 0, sizeof err);
        CHECK_EQ_INT(tfn_record_writer_write(w, "x", 1, &err), TFN_E_IO);
        CHECK_EQ_INT(err.sys_errno, ENOSPC);
        CHECK_EQ_INT(tfn_record_writer_close(w, NULL), TFN_E_IO);
        tfn_record_writer_free(w);
        tbuf_free(&f.b);
    }
}

/* ---------------------------------------------------------------- arguments, errors */

static void test_open_errors(void)
{
    tfn_record_reader *r = (tfn_record_reader *)1;
    tfn_error err;
    CHECK_EQ_INT(tfn_record_reader_open("/nonexistent/dir/x.tfrecord", NULL, NULL, &r, &err),
                 TFN_E_IO);
    CHECK_EQ_INT(err.sys_errno, ENOENT);
    CHECK_STR(err.msg, "/nonexistent/dir/x.tfrecord; No such file or directory");
    CHECK(r == NULL);
    tfn_record_writer *w;
    CHECK_EQ_INT(tfn_record_writer_open("/nonexistent/dir/x.tfrecord", NULL, NULL, &w, &err),
                 TFN_E_IO);
    CHECK_EQ_INT(err.sys_errno, ENOENT);
    tfn_record_reader_options o;
    tfn_record_reader_options_init(&o);
    o.compression = 9;
    CHECK_EQ_INT(tfn_record_reader_open_mem("", 0, &o, NULL, &r, &err), TFN_E_INVALID_ARG);
    tfn_record_writer_options wo;
    tfn_record_writer_options_init(&wo);
    wo.compression = TFN_COMPRESSION_AUTO;
    CHECK_EQ_INT(tfn_record_writer_open_mem(&wo, NULL, &w, &err), TFN_E_INVALID_ARG);
    wo.compression = TFN_COMPRESSION_GZIP;
    wo.compression_level = 10;
    CHECK_EQ_INT(tfn_record_writer_open_mem(&wo, NULL, &w, &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_record_reader_next(NULL, NULL, NULL, &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_record_writer_write(NULL, "x", 1, &err), TFN_E_INVALID_ARG);
    tfn_io noread = {NULL, NULL, NULL, NULL, NULL, NULL};
    CHECK_EQ_INT(tfn_record_reader_open_io(&noread, NULL, NULL, &r, &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_record_writer_open_io(&noread, NULL, NULL, &w, &err), TFN_E_INVALID_ARG);
    tfn_record_reader_free(NULL);
    tfn_record_writer_free(NULL);
    /* A payload length that cannot exist: truncated, without a huge allocation. */
    uint8_t h[16] = {0};
    memset(h, 0xff, 8);
    uint32_t c = tfn_crc32c_mask(tfn_crc32c(0, h, 8));
    h[8] = (uint8_t)c;
    h[9] = (uint8_t)(c >> 8);
    h[10] = (uint8_t)(c >> 16);
    h[11] = (uint8_t)(c >> 24);
    tread t;
    tread_mem(h, 16, TFN_COMPRESSION_NONE, 0, &t);
    CHECK_EQ_INT(t.rc, TFN_E_DATA_LOSS);
    CHECK_STR(t.err.msg, "record size too large; record 0");
    tbuf_free(&t.data);
    h[7] = 0; /* 2^56 - 1: fits size_t, far beyond the data */
    c = tfn_crc32c_mask(tfn_crc32c(0, h, 8));
    h[8] = (uint8_t)c;
    h[9] = (uint8_t)(c >> 8);
    h[10] = (uint8_t)(c >> 16);
    h[11] = (uint8_t)(c >> 24);
    char path[64];
    temp_path(path, sizeof path);
    REQUIRE(write_file(path, h, 16) == 0);
    REQUIRE(tfn_record_reader_open(path, NULL, NULL, &r, &err) == TFN_OK);
    memset(&t, 0, sizeof t);
    tread_run(r, &t);
    CHECK_EQ_INT(t.rc, TFN_E_TRUNCATED);
    tfn_record_reader_free(r);
    unlink(path);
}

int main(void)
{
    RUN(test_frame_vectors);
    RUN(test_unframe);
    RUN(test_writer_bytes);
    RUN(test_edge37_zlib_equals_compress);
    RUN(test_empty_streams);
    RUN(test_edge33_empty_file);
    RUN(test_edge34_stray_bytes);
    RUN(test_edge35_truncated_then_grown);
    RUN(test_edge36_flips);
    RUN(test_edge38_wrong_compression);
    RUN(test_edge39_gzip_members);
    RUN(test_edge41_writer_closed);
    RUN(test_roundtrips);
    RUN(test_next_batch);
    RUN(test_read_into);
    RUN(test_peek_take);
    RUN(test_write_batch);
    RUN(test_callbacks);
    RUN(test_open_errors);
    return harness_finish();
}

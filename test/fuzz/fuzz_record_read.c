/*
 * fuzz_record_read.c - libFuzzer harness for the TFRecord reader.
 *
 * Input: two control bytes, then the stream.
 *   byte 0: bits 0-1 compression (NONE, ZLIB, GZIP, AUTO), bit 2 skip policy,
 *           bit 3 skip_payload_crc, bits 4-5 buffer size (64 B .. 64 KiB),
 *           bit 6 I/O-callback reader (short reads) instead of the memory reader,
 *           bit 7 also build an index and parse the input as index text.
 *   byte 1: bits 0-1 how records are read (next, next_batch, read_into, a mix of
 *           those and peek + take),
 *           bits 2-4 the callback's read size, bits 5-7 batch size / read_into room.
 * Invariants (a failure aborts): no crash or sanitizer report; every record handed out
 * is framed in the reader's window by a header giving its length and, unless
 * skip_payload_crc, a footer holding its masked CRC32C; offsets and indices grow by
 * at least one frame per record; the reader reaches TFN_END or an error within a bound
 * given by the input size; retrying after an error returns the same error; every
 * reading method returns the same records; an index built over the stream agrees with
 * them, and an index parsed from text formats and parses back to itself.
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

enum { METHOD_NEXT = 0, METHOD_BATCH = 1, METHOD_INTO = 2, METHOD_MIX = 3, METHOD_TAKE = 4 };
enum { MAX_KEEP = 64 };

typedef struct source {
    const uint8_t *data;
    size_t len, pos, chunk;
    unsigned calls;
} source;

/* Short reads: `chunk` bytes at most, varying a little from call to call. */
static int64_t source_read(void *ctx, void *buf, size_t len)
{
    source *s = (source *)ctx;
    size_t n = s->chunk + (s->calls++ % 3);
    if (n > len)
        n = len;
    if (n > s->len - s->pos)
        n = s->len - s->pos;
    if (n)
        memcpy(buf, s->data + s->pos, n);
    s->pos += n;
    return (int64_t)n;
}

static uint64_t load_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint32_t load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* What one pass over the stream saw: the first MAX_KEEP records' lengths and CRCs,
 * the count, and how it ended. */
typedef struct pass {
    uint64_t count;
    size_t lens[MAX_KEEP];
    uint32_t crcs[MAX_KEEP];
    int end_code;
    int inflate_failed;
    uint64_t end_offset;
} pass;

typedef struct config {
    tfn_record_reader_options opts;
    int use_io, method;
    size_t chunk, batch;
} config;

/* Checks one record view just handed out and records it. */
static void saw_record(pass *ps, const config *c, const uint8_t *data, size_t len)
{
    CHECK(data != NULL);
    /* the window holds the whole frame around the payload */
    CHECK(load_le64(data - 12) == (uint64_t)len);
    CHECK(tfn_crc32c_mask(tfn_crc32c(0, data - 12, 8)) == load_le32(data - 4));
    uint32_t crc = tfn_crc32c_mask(tfn_crc32c(0, data, len));
    if (!c->opts.skip_payload_crc)
        CHECK(crc == load_le32(data + len));
    if (ps->count < MAX_KEEP) {
        ps->lens[ps->count] = len;
        ps->crcs[ps->count] = crc;
    }
    ps->count++;
}

static int open_reader(const config *c, const uint8_t *data, size_t size, source *src,
                       tfn_record_reader **r)
{
    tfn_error err;
    int rc;
    if (c->use_io) {
        *src = (source){data, size, 0, c->chunk, 0};
        tfn_io io = {.read = source_read, .ctx = src};
        rc = tfn_record_reader_open_io(&io, &c->opts, NULL, r, &err);
    } else {
        rc = tfn_record_reader_open_mem(data, size, &c->opts, NULL, r, &err);
    }
    CHECK(rc == TFN_OK);
    return rc;
}

/* One read step with the given method; returns the status and adds the records. */
static int step(tfn_record_reader *r, const config *c, int method, pass *ps, uint8_t *room,
                size_t room_cap, tfn_error *err)
{
    uint64_t off0 = tfn_record_reader_offset(r), idx0 = tfn_record_reader_index(r);
    uint64_t before = ps->count, framed = 0;
    int rc;
    if (method == METHOD_NEXT) {
        const uint8_t *data;
        size_t len;
        rc = tfn_record_reader_next(r, &data, &len, err);
        if (rc == TFN_OK) {
            saw_record(ps, c, data, len);
            framed = (uint64_t)len + 16;
        }
    } else if (method == METHOD_BATCH) {
        tfn_bytes views[8];
        size_t n = 99;
        rc = tfn_record_reader_next_batch(r, views, c->batch, &n, err);
        CHECK(rc == TFN_OK ? n >= 1 && n <= c->batch : n == 0);
        for (size_t i = 0; i < n; i++) {
            saw_record(ps, c, views[i].data, views[i].len);
            framed += (uint64_t)views[i].len + 16;
        }
    } else if (method == METHOD_TAKE) {
        /* peek, then take into memory of exactly that size (the CRC checked during
         * the copy); the record must be the one next() gives (the second pass) */
        size_t len = 0, got = 0;
        rc = tfn_record_reader_peek(r, &len, err);
        if (rc == TFN_OK) {
            uint8_t *copy = (uint8_t *)malloc(len ? len : 1);
            CHECK(copy != NULL);
            rc = tfn_record_reader_take(r, copy, len, &got, err);
            if (rc == TFN_OK) {
                CHECK(got == len);
                if (ps->count < MAX_KEEP) {
                    ps->lens[ps->count] = len;
                    ps->crcs[ps->count] = tfn_crc32c_mask(tfn_crc32c(0, copy, len));
                }
                ps->count++;
                framed = (uint64_t)len + 16;
            }
            free(copy);
        }
    } else {
        uint64_t offsets[9];
        size_t n = 99, written = 0;
        rc = tfn_record_reader_read_into(r, room, room_cap, offsets, c->batch, &n, &written, err);
        if (rc == TFN_E_BUF_TOO_SMALL) {
            /* the reader stayed at that record (having skipped any damage before it):
             * take it with next() */
            CHECK(written > room_cap);
            CHECK(c->opts.on_damage == TFN_ON_DAMAGE_SKIP || tfn_record_reader_offset(r) == off0);
            const uint8_t *data;
            size_t len;
            rc = tfn_record_reader_next(r, &data, &len, err);
            CHECK(rc == TFN_OK && len == written);
            saw_record(ps, c, data, len);
            framed = (uint64_t)len + 16;
        } else {
            CHECK(rc == TFN_OK ? n >= 1 && n <= c->batch && offsets[n] == written : n == 0);
            for (size_t i = 0; i < n; i++) {
                CHECK(offsets[i] <= offsets[i + 1]);
                size_t len = (size_t)(offsets[i + 1] - offsets[i]);
                uint32_t crc = tfn_crc32c_mask(tfn_crc32c(0, room + offsets[i], len));
                if (ps->count < MAX_KEEP) {
                    ps->lens[ps->count] = len;
                    ps->crcs[ps->count] = crc;
                }
                ps->count++;
                framed += (uint64_t)len + 16;
            }
        }
    }
    uint64_t got = ps->count - before;
    CHECK(tfn_record_reader_index(r) == idx0 + got);
    /* skipped damage only moves the offset further */
    if (c->opts.on_damage == TFN_ON_DAMAGE_SKIP)
        CHECK(tfn_record_reader_offset(r) >= off0 + framed);
    else
        CHECK(tfn_record_reader_offset(r) == off0 + framed);
    if (rc < 0)
        CHECK(err->code == rc && err->msg[0] != '\0');
    return rc;
}

/* Reads the whole stream; after an error, retries once and expects the same error. */
static void read_all(const config *c, const uint8_t *data, size_t size, pass *ps)
{
    memset(ps, 0, sizeof *ps);
    source src;
    tfn_record_reader *r;
    open_reader(c, data, size, &src, &r);
    uint8_t room[256];
    size_t room_cap = (c->batch * 37) % sizeof room;
    /* a record takes at least 16 stream bytes; inflating grows bytes at most ~1032x */
    uint64_t bound = (uint64_t)size * 1100 / 16 + 4;
    tfn_error err;
    int rc;
    for (unsigned turn = 0;; turn++) {
        int method = c->method == METHOD_MIX ? (turn % 4 == 3 ? METHOD_TAKE : (int)(turn % 4))
                                             : c->method;
        rc = step(r, c, method, ps, room, room_cap, &err);
        CHECK(ps->count <= bound && turn <= bound);
        if (rc != TFN_OK)
            break;
    }
    ps->end_code = rc;
    ps->end_offset = tfn_record_reader_offset(r);
    if (rc == TFN_END) {
        const uint8_t *d;
        size_t len;
        CHECK(tfn_record_reader_next(r, &d, &len, &err) == TFN_END);
    } else {
        CHECK(rc < 0);
        ps->inflate_failed = strncmp(err.msg, "inflate() failed", 16) == 0;
        tfn_error again;
        char first[sizeof err.msg];
        memcpy(first, err.msg, sizeof first);
        uint64_t count = ps->count;
        int rc2 = step(r, c, c->method == METHOD_INTO ? METHOD_INTO : METHOD_NEXT, ps, room,
                       room_cap, &again);
        CHECK(rc2 == rc && ps->count == count && strcmp(first, again.msg) == 0);
        CHECK(again.record_index == err.record_index && again.offset == err.offset);
    }
    tfn_record_reader_free(r);
}

/* Two passes over the same stream agree. The one exception is an inflate() error:
 * as in TensorFlow, the bytes inflated by the failing call are lost, so what comes
 * back before it (records, or another error met first) depends on how the input was
 * cut into reads; the records both saw must still be the same. */
static void same_records(const pass *a, const pass *b)
{
    if (!a->inflate_failed && !b->inflate_failed)
        CHECK(a->count == b->count && a->end_code == b->end_code &&
              a->end_offset == b->end_offset);
    for (uint64_t i = 0; i < a->count && i < b->count && i < MAX_KEEP; i++)
        CHECK(a->lens[i] == b->lens[i] && a->crcs[i] == b->crcs[i]);
}

/* An index built over an uncompressed memory reader lists the records pass `ps` saw,
 * and each can be read back through it. */
static void check_index_build(const config *c, const uint8_t *data, size_t size, const pass *ps)
{
    config mc = *c;
    mc.use_io = 0;
    mc.opts.compression = TFN_COMPRESSION_NONE;
    source src;
    tfn_record_reader *r;
    open_reader(&mc, data, size, &src, &r);
    tfn_record_index *idx;
    tfn_error err;
    int rc = tfn_record_index_build(r, NULL, &idx, &err);
    if (c->opts.compression == TFN_COMPRESSION_NONE) {
        CHECK(rc == (ps->end_code == TFN_END ? TFN_OK : ps->end_code));
    }
    if (rc == TFN_OK) {
        uint64_t n = tfn_record_index_count(idx);
        if (c->opts.compression == TFN_COMPRESSION_NONE)
            CHECK(n == ps->count);
        uint64_t prev_end = 0;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t off, len;
            CHECK(tfn_record_index_at(idx, i, &off, &len) == TFN_OK);
            CHECK(off >= prev_end && len >= 16 && off + len <= size);
            prev_end = off + len;
            if (i < 4 || i + 1 == n) {
                const uint8_t *d;
                size_t dl;
                CHECK(tfn_record_index_read(idx, r, i, &d, &dl, &err) == TFN_OK);
                CHECK((uint64_t)dl + 16 == len && d == data + off + 12);
            }
        }
        CHECK(tfn_record_index_at(idx, n, NULL, NULL) == TFN_E_INVALID_ARG);
        tfn_record_index_free(idx);
    } else {
        CHECK(rc < 0 && err.msg[0] != '\0');
    }
    tfn_record_reader_free(r);
}

/* The input read as index text: if it parses, formatting and parsing again gives the
 * same pairs. */
static void check_index_parse(const uint8_t *data, size_t size)
{
    tfn_record_index *idx, *again;
    tfn_error err;
    int rc = tfn_record_index_parse(data, size, NULL, &idx, &err);
    if (rc != TFN_OK) {
        CHECK(rc == TFN_E_CORRUPT && err.msg[0] != '\0');
        return;
    }
    size_t need = 0;
    rc = tfn_record_index_format(idx, NULL, 0, &need, &err);
    CHECK(rc == TFN_OK ? need == 0 : rc == TFN_E_BUF_TOO_SMALL);
    char *text = (char *)malloc(need + 1);
    size_t written = 0;
    CHECK(tfn_record_index_format(idx, text, need, &written, &err) == TFN_OK && written == need);
    CHECK(tfn_record_index_parse(text, written, NULL, &again, &err) == TFN_OK);
    uint64_t n = tfn_record_index_count(idx);
    CHECK(tfn_record_index_count(again) == n);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t o1, l1, o2, l2;
        CHECK(tfn_record_index_at(idx, i, &o1, &l1) == TFN_OK);
        CHECK(tfn_record_index_at(again, i, &o2, &l2) == TFN_OK);
        CHECK(o1 == o2 && l1 == l2);
    }
    tfn_record_index_free(again);
    tfn_record_index_free(idx);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    static const size_t buffers[4] = {64, 100, 4096, 1u << 16};
    static const int compressions[4] = {TFN_COMPRESSION_NONE, TFN_COMPRESSION_ZLIB,
                                        TFN_COMPRESSION_GZIP, TFN_COMPRESSION_AUTO};
    config c;
    tfn_record_reader_options_init(&c.opts);
    c.opts.compression = compressions[data[0] & 3];
    c.opts.on_damage = (data[0] & 4) ? TFN_ON_DAMAGE_SKIP : TFN_ON_DAMAGE_RAISE;
    c.opts.skip_payload_crc = (data[0] >> 3) & 1;
    c.opts.buffer_size = buffers[(data[0] >> 4) & 3];
    c.opts.name = (data[0] & 0x40) ? "fuzz.tfrecord" : NULL;
    c.use_io = (data[0] >> 6) & 1;
    c.method = data[1] & 3;
    c.chunk = (size_t)1 << ((data[1] >> 2) & 7) * 2; /* 1, 4, 16, ... 16384 */
    c.batch = (size_t)((data[1] >> 5) & 7) + 1;
    const uint8_t *stream = data + 2;
    size_t len = size - 2;

    pass first, other;
    read_all(&c, stream, len, &first);
    /* the same stream through the other reader kind and one record at a time */
    config c2 = c;
    c2.use_io = !c.use_io;
    c2.method = METHOD_NEXT;
    c2.chunk = 7;
    read_all(&c2, stream, len, &other);
    same_records(&first, &other);

    if (data[0] & 0x80) {
        check_index_build(&c, stream, len, &first);
        check_index_parse(stream, len);
    }
    return 0;
}

/*
 * fuzz_record_skip.c - libFuzzer harness for the TFRecord reader's SKIP policy,
 * checked against a reference: a few obviously correct lines that say, for any
 * (uncompressed) stream, which records a resynchronising reader must return, which
 * byte ranges it must skip and how it must end.
 *
 * Input: one control byte, then the stream.
 *   bits 0-1 buffer size (64 B .. 64 KiB); bit 2 I/O-callback reader (short reads)
 *   instead of the memory reader; bits 3-4 how records are read (next, next_batch,
 *   read_into, a mix); bits 5-6 compression: the stream is read as is, or deflated
 *   first (ZLIB or GZIP, level 1) and read through the inflater; bit 7 the callback's
 *   read size (1 byte or 4 KiB).
 * The reference, at position p of the stream (n bytes):
 *   - fewer than 12 bytes left: the end (a partial header is ignored, as TensorFlow);
 *   - a whole record with matching length and payload CRCs at p: returned;
 *   - otherwise p is damaged: the next offset q > p holding a whole record with
 *     matching CRCs ends one skipped range [p, q); when there is none, the reader
 *     stops with TFN_E_TRUNCATED at the first offset >= p whose header is valid but
 *     whose record runs past the end (a record still being written), having skipped
 *     up to it, or, with no such header, skips to the end and reports TFN_END.
 * Everything the reader returns must be exactly that: the same payloads, the same
 * skipped ranges (tfn_record_reader_last_skip after each call), the same end status
 * and offset. A failure aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "tfnano.h"

#define CHECK(cond)                                                                         \
    do {                                                                                    \
        if (!(cond))                                                                        \
            abort();                                                                        \
    } while (0)

enum { METHOD_NEXT = 0, METHOD_BATCH = 1, METHOD_INTO = 2, METHOD_MIX = 3 };
enum { MAX_EVENTS = 4096 };

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

static int header_ok(const uint8_t *s, size_t n, size_t p)
{
    return n - p >= 12 && tfn_crc32c_mask(tfn_crc32c(0, s + p, 8)) == load_le32(s + p + 8);
}

/* Length of the whole valid record at p (framed), or 0. */
static size_t whole_at(const uint8_t *s, size_t n, size_t p)
{
    if (n - p < 16 || !header_ok(s, n, p))
        return 0;
    uint64_t len = load_le64(s + p);
    if (len > n - p - 16)
        return 0;
    const uint8_t *body = s + p + 12;
    if (tfn_crc32c_mask(tfn_crc32c(0, body, (size_t)len)) != load_le32(body + len))
        return 0;
    return (size_t)len + 16;
}

/* A valid header at p whose record runs past the end. */
static int runs_past_end(const uint8_t *s, size_t n, size_t p)
{
    if (!header_ok(s, n, p))
        return 0;
    uint64_t len = load_le64(s + p);
    return len > SIZE_MAX - 16 ? 0 : len > n - p - 16 || n - p < 16;
}

/* One thing a reader does: a record (offset, length) or a skipped range. */
typedef struct event {
    int is_skip;
    uint64_t offset, length;
} event;

typedef struct outcome {
    event ev[MAX_EVENTS];
    size_t count;
    int end;
    uint64_t end_offset;
} outcome;

static void add(outcome *o, int is_skip, uint64_t offset, uint64_t length)
{
    CHECK(o->count < MAX_EVENTS);
    o->ev[o->count++] = (event){is_skip, offset, length};
}

static void reference(const uint8_t *s, size_t n, outcome *o)
{
    memset(o, 0, sizeof *o);
    size_t p = 0;
    for (;;) {
        if (n - p < 12) {
            o->end = TFN_END;
            o->end_offset = p;
            return;
        }
        size_t f = whole_at(s, n, p);
        if (f) {
            add(o, 0, p, f - 16);
            p += f;
            continue;
        }
        size_t q = p + 1;
        while (q < n && !whole_at(s, n, q))
            q++;
        if (q < n) {
            add(o, 1, p, q - p);
            p = q;
            continue;
        }
        /* nothing valid after p */
        size_t t = p;
        while (t + 12 <= n && !runs_past_end(s, n, t))
            t++;
        if (t + 12 <= n) {
            if (t > p)
                add(o, 1, p, t - p);
            o->end = TFN_E_TRUNCATED;
            o->end_offset = t;
        } else {
            add(o, 1, p, n - p);
            o->end = TFN_END;
            o->end_offset = n;
        }
        return;
    }
}

typedef struct source {
    const uint8_t *data;
    size_t len, pos, chunk;
} source;

static int64_t source_read(void *ctx, void *buf, size_t len)
{
    source *s = (source *)ctx;
    size_t k = s->chunk < len ? s->chunk : len;
    if (k > s->len - s->pos)
        k = s->len - s->pos;
    if (k)
        memcpy(buf, s->data + s->pos, k);
    s->pos += k;
    return (int64_t)k;
}

/* Notes a range skipped by the call just made, if any. */
static void note_skip(tfn_record_reader *r, uint64_t *regions, outcome *o)
{
    uint64_t now;
    tfn_record_reader_skipped(r, &now, NULL);
    CHECK(now == *regions || now == *regions + 1); /* one range per call at most */
    if (now == *regions + 1) {
        tfn_record_skip sk;
        tfn_record_reader_last_skip(r, &sk);
        CHECK(sk.length > 0);
        add(o, 1, sk.offset, sk.length);
        *regions = now;
    }
}

static void read_skip(const uint8_t *stream, size_t n, const uint8_t *input, size_t input_len,
                      int compression, int use_io, size_t buffer, size_t chunk, int method,
                      const uint8_t *plain, outcome *o)
{
    memset(o, 0, sizeof *o);
    tfn_record_reader_options opts;
    tfn_record_reader_options_init(&opts);
    opts.on_damage = TFN_ON_DAMAGE_SKIP;
    opts.compression = compression;
    opts.buffer_size = buffer;
    tfn_record_reader *r = NULL;
    tfn_error err;
    source src = {input, input_len, 0, chunk};
    if (use_io) {
        tfn_io io = {.read = source_read, .ctx = &src};
        CHECK(tfn_record_reader_open_io(&io, &opts, NULL, &r, &err) == TFN_OK);
    } else {
        CHECK(tfn_record_reader_open_mem(input, input_len, &opts, NULL, &r, &err) == TFN_OK);
    }
    (void)stream;
    uint64_t regions = 0;
    uint8_t room[512];
    int rc;
    for (unsigned turn = 0;; turn++) {
        int m = method == METHOD_MIX ? (int)(turn % 3) : method;
        uint64_t before = tfn_record_reader_offset(r);
        if (m == METHOD_NEXT) {
            const uint8_t *d;
            size_t len;
            rc = tfn_record_reader_next(r, &d, &len, &err);
            note_skip(r, &regions, o);
            if (rc == TFN_OK) {
                uint64_t off = tfn_record_reader_offset(r) - len - 16;
                CHECK(memcmp(d, plain + off + 12, len) == 0);
                add(o, 0, off, len);
            }
        } else if (m == METHOD_BATCH) {
            tfn_bytes v[5];
            size_t k = 0;
            rc = tfn_record_reader_next_batch(r, v, 5, &k, &err);
            note_skip(r, &regions, o);
            uint64_t end = tfn_record_reader_offset(r), total = 0;
            for (size_t i = 0; i < k; i++)
                total += v[i].len + 16;
            uint64_t off = end - total;
            for (size_t i = 0; i < k; i++) {
                CHECK(memcmp(v[i].data, plain + off + 12, v[i].len) == 0);
                add(o, 0, off, v[i].len);
                off += v[i].len + 16;
            }
        } else {
            uint64_t offs[6];
            size_t k = 0, written = 0;
            rc = tfn_record_reader_read_into(r, room, sizeof room, offs, 5, &k, &written, &err);
            note_skip(r, &regions, o);
            if (rc == TFN_E_BUF_TOO_SMALL) {
                const uint8_t *d;
                size_t len;
                rc = tfn_record_reader_next(r, &d, &len, &err);
                note_skip(r, &regions, o);
                CHECK(rc == TFN_OK && len == written);
                uint64_t off = tfn_record_reader_offset(r) - len - 16;
                add(o, 0, off, len);
            } else {
                uint64_t end = tfn_record_reader_offset(r), total = 0;
                for (size_t i = 0; i < k; i++)
                    total += offs[i + 1] - offs[i] + 16;
                uint64_t off = end - total;
                for (size_t i = 0; i < k; i++) {
                    uint64_t len = offs[i + 1] - offs[i];
                    CHECK(memcmp(room + offs[i], plain + off + 12, (size_t)len) == 0);
                    add(o, 0, off, len);
                    off += len + 16;
                }
            }
        }
        CHECK(tfn_record_reader_offset(r) >= before);
        if (rc != TFN_OK)
            break;
        CHECK(turn <= n + 4);
    }
    o->end = rc;
    o->end_offset = tfn_record_reader_offset(r);
    if (rc == TFN_E_TRUNCATED)
        CHECK(err.offset == o->end_offset);
    tfn_record_reader_free(r);
}

/* Deflates src (level 1; gzip when gz) into a malloc'd buffer. */
static uint8_t *deflate_all(const uint8_t *src, size_t n, int gz, size_t *out_len)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    CHECK(deflateInit2(&zs, 1, Z_DEFLATED, 15 + (gz ? 16 : 0), 8, Z_DEFAULT_STRATEGY) == Z_OK);
    uLong cap = deflateBound(&zs, (uLong)n);
    uint8_t *out = (uint8_t *)malloc(cap ? cap : 1);
    CHECK(out != NULL);
    zs.next_in = (Bytef *)(uintptr_t)src;
    zs.avail_in = (uInt)n;
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    CHECK(deflate(&zs, Z_FINISH) == Z_STREAM_END);
    *out_len = cap - zs.avail_out;
    deflateEnd(&zs);
    return out;
}

static outcome expected, got;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20))
        return 0;
    static const size_t buffers[4] = {64, 100, 4096, 1u << 16};
    uint8_t ctl = data[0];
    const uint8_t *stream = data + 1;
    size_t n = size - 1;
    reference(stream, n, &expected);

    int comp = (ctl >> 5) & 3; /* 0 none, 1 ZLIB, 2 GZIP, 3 none */
    const uint8_t *input = stream;
    size_t input_len = n;
    uint8_t *z = NULL;
    int compression = TFN_COMPRESSION_NONE;
    if (comp == 1 || comp == 2) {
        z = deflate_all(stream, n, comp == 2, &input_len);
        input = z;
        compression = comp == 2 ? TFN_COMPRESSION_GZIP : TFN_COMPRESSION_ZLIB;
    }
    read_skip(stream, n, input, input_len, compression, (ctl >> 2) & 1, buffers[ctl & 3],
              (ctl & 0x80) ? 4096 : 1, (ctl >> 3) & 3, stream, &got);
    CHECK(got.count == expected.count);
    for (size_t i = 0; i < got.count; i++) {
        CHECK(got.ev[i].is_skip == expected.ev[i].is_skip);
        CHECK(got.ev[i].offset == expected.ev[i].offset);
        CHECK(got.ev[i].length == expected.ev[i].length);
    }
    CHECK(got.end == expected.end);
    CHECK(got.end_offset == expected.end_offset);
    free(z);
    return 0;
}

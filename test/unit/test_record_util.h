/*
 * test_record_util.h - helpers of the TFRecord tests: building framed streams in
 * memory, reading a whole stream into a list of payloads, temporary files, sha256.
 */
#ifndef TFN_TEST_RECORD_UTIL_H
#define TFN_TEST_RECORD_UTIL_H

#include "tfnano.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A growable byte buffer. */
typedef struct tbuf {
    uint8_t *p;
    size_t n, cap;
} tbuf;

static inline void tbuf_put(tbuf *b, const void *data, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n)
            cap *= 2;
        b->p = (uint8_t *)realloc(b->p, cap);
        if (!b->p)
            abort();
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->n, data, n);
    b->n += n;
}

static inline void tbuf_frame(tbuf *b, const void *payload, size_t n)
{
    size_t need = tfn_record_frame_size(n), w = 0;
    uint8_t *tmp = (uint8_t *)malloc(need);
    if (!tmp || tfn_record_frame(tmp, need, payload, n, &w, NULL) != TFN_OK || w != need)
        abort();
    tbuf_put(b, tmp, w);
    free(tmp);
}

static inline void tbuf_free(tbuf *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

/* A tfn_io read back end over memory that hands out at most `chunk` bytes per call,
 * so readers meet short reads and refill their buffers mid-record. */
typedef struct chunked_src {
    const uint8_t *p;
    size_t n, pos, chunk;
} chunked_src;

static inline int64_t chunked_read(void *ctx, void *buf, size_t len)
{
    chunked_src *s = (chunked_src *)ctx;
    size_t k = s->n - s->pos;
    if (k > len)
        k = len;
    if (k > s->chunk)
        k = s->chunk;
    if (k)
        memcpy(buf, s->p + s->pos, k);
    s->pos += k;
    return (int64_t)k;
}

/* Payloads read back, concatenated, with their lengths. */
typedef struct tread {
    tbuf data;
    size_t lens[4096];
    size_t count;
    int rc;         /* the status that ended reading */
    tfn_error err;  /* its error */
    uint64_t skipped_records, skipped_bytes;
} tread;

/* Reads every record of an opened reader until a status other than TFN_OK. */
static inline void tread_run(tfn_record_reader *r, tread *out)
{
    const uint8_t *p;
    size_t n;
    memset(&out->err, 0, sizeof out->err);
    while ((out->rc = tfn_record_reader_next(r, &p, &n, &out->err)) == TFN_OK) {
        if (out->count < sizeof out->lens / sizeof out->lens[0])
            out->lens[out->count] = n;
        out->count++;
        tbuf_put(&out->data, p, n);
    }
    tfn_record_reader_skipped(r, &out->skipped_records, &out->skipped_bytes);
}

static inline void tread_mem(const void *data, size_t len, int compression, int skip, tread *out)
{
    memset(out, 0, sizeof *out);
    tfn_record_reader_options o;
    tfn_record_reader_options_init(&o);
    o.compression = compression;
    o.on_damage = skip ? TFN_ON_DAMAGE_SKIP : TFN_ON_DAMAGE_RAISE;
    tfn_record_reader *r = NULL;
    out->rc = tfn_record_reader_open_mem(data, len, &o, NULL, &r, &out->err);
    if (out->rc != TFN_OK)
        return;
    tread_run(r, out);
    tfn_record_reader_free(r);
}

/* Payload i of a tread (offset found by summing lengths). */
static inline const uint8_t *tread_at(const tread *t, size_t i, size_t *len)
{
    size_t off = 0;
    for (size_t k = 0; k < i; k++)
        off += t->lens[k];
    *len = t->lens[i];
    return t->data.p + off;
}

/* A fresh temporary file path (the file exists, empty). */
static inline void temp_path(char *path, size_t cap)
{
    snprintf(path, cap, "/tmp/tfn_rec_test_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        abort();
    close(fd);
}

static inline int write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = n ? fwrite(data, 1, n, f) : 0;
    return fclose(f) == 0 && w == n ? 0 : -1;
}

static inline int append_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "ab");
    if (!f)
        return -1;
    size_t w = n ? fwrite(data, 1, n, f) : 0;
    return fclose(f) == 0 && w == n ? 0 : -1;
}

/* Reads a whole file; NULL when it cannot be opened. */
static inline uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    tbuf b = {0};
    uint8_t chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        tbuf_put(&b, chunk, n);
    fclose(f);
    *len = b.n;
    if (!b.p)
        b.p = (uint8_t *)malloc(1);
    return b.p;
}

/* ---------------------------------------------------------------- sha256 (FIPS 180-4) */

typedef struct sha256_ctx {
    uint32_t h[8];
    uint8_t block[64];
    size_t fill;
    uint64_t total;
} sha256_ctx;

static const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

static inline uint32_t ror32(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

static inline void sha256_block(sha256_ctx *c, const uint8_t *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = c->h[0], b = c->h[1], cc = c->h[2], d = c->h[3], e = c->h[4], f = c->h[5],
             g = c->h[6], h = c->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25)) + ((e & f) ^ (~e & g)) +
                      sha256_k[i] + w[i];
        uint32_t t2 = (ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22)) + ((a & b) ^ (a & cc) ^ (b & cc));
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = cc;
        cc = b;
        b = a;
        a = t1 + t2;
    }
    c->h[0] += a;
    c->h[1] += b;
    c->h[2] += cc;
    c->h[3] += d;
    c->h[4] += e;
    c->h[5] += f;
    c->h[6] += g;
    c->h[7] += h;
}

static inline void sha256_init(sha256_ctx *c)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(c->h, iv, sizeof iv);
    c->fill = 0;
    c->total = 0;
}

static inline void sha256_update(sha256_ctx *c, const void *data, size_t n)
{
    const uint8_t *p = (const uint8_t *)data;
    c->total += n;
    while (n > 0) {
        size_t take = 64 - c->fill < n ? 64 - c->fill : n;
        memcpy(c->block + c->fill, p, take);
        c->fill += take;
        p += take;
        n -= take;
        if (c->fill == 64) {
            sha256_block(c, c->block);
            c->fill = 0;
        }
    }
}

static inline void sha256_final(sha256_ctx *c, uint8_t out[32])
{
    uint64_t bits = c->total * 8;
    uint8_t pad = 0x80, zero = 0, len[8];
    sha256_update(c, &pad, 1);
    while (c->fill != 56)
        sha256_update(c, &zero, 1);
    for (int i = 0; i < 8; i++)
        len[i] = (uint8_t)(bits >> (56 - 8 * i));
    sha256_update(c, len, 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(c->h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
        out[4 * i + 3] = (uint8_t)c->h[i];
    }
}

static inline void sha256_hex(const void *data, size_t n, char hex[65])
{
    sha256_ctx c;
    uint8_t d[32];
    sha256_init(&c);
    sha256_update(&c, data, n);
    sha256_final(&c, d);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

#endif

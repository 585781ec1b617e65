/* record_seekpoints.c - random access into GZIP / ZLIB streams (the method of zlib's
 * zran example): one pass inflates the whole stream and keeps, every `spacing` bytes
 * of output, a seek point at a deflate block boundary: where it is in the compressed
 * bytes (byte and bit), where in the output, and the 32 KiB of output before it (the
 * dictionary the next block may refer back to). A read at any output offset starts
 * raw inflation at the last point before it. */
#define _POSIX_C_SOURCE 200809L
#include "record_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#define SP_WINDOW 32768u /* deflate's largest back-reference distance */
#define SP_CHUNK 65536u  /* compressed bytes read at a time */

typedef struct sp_point {
    uint64_t in;   /* compressed offset of the first whole byte after the point */
    uint64_t out;  /* decompressed offset of the point */
    int bits;      /* bits of the byte before `in` that belong to the next block (0-7);
                      -1: the start of the stream (header, no dictionary) */
    uint32_t wlen; /* bytes of dictionary in window (< SP_WINDOW only near the start) */
    uint8_t *window;
} sp_point;

struct tfn_seekpoints {
    tfn__alloc alloc;
    int wbits; /* inflateInit2 window bits of the stream's format */
    sp_point *points;
    size_t n, cap;
    uint64_t total; /* decompressed bytes of the stream (up to where it ends or breaks) */
};

/* Where compressed bytes come from: a file (pread) or memory. */
typedef struct sp_source {
    int fd;
    const uint8_t *mem;
    size_t mem_len;
    const char *name;
} sp_source;

static int source_read(const sp_source *s, uint64_t at, uint8_t *buf, size_t len, size_t *got,
                       tfn_error *err)
{
    *got = 0;
    if (s->mem) {
        if (at >= s->mem_len)
            return TFN_OK;
        size_t n = s->mem_len - (size_t)at;
        *got = n < len ? n : len;
        memcpy(buf, s->mem + at, *got);
        return TFN_OK;
    }
    for (;;) {
        if (at > (uint64_t)LLONG_MAX)
            return TFN_OK;
        ssize_t n = pread(s->fd, buf, len, (off_t)at);
        if (n >= 0) {
            *got = (size_t)n;
            return TFN_OK;
        }
        if (errno != EINTR) {
            int e = errno;
            tfn__fail_at(err, TFN_E_IO, at, 0, "%s; %s", s->name, strerror(e));
            if (err)
                err->sys_errno = e;
            return TFN_E_IO;
        }
    }
}

static int source_open(sp_source *s, const char *path, tfn_error *err)
{
    memset(s, 0, sizeof *s);
    s->name = path;
    s->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0) {
        int e = errno;
        tfn__fail(err, TFN_E_IO, "%s; %s", path, e == ENOENT ? "No such file or directory"
                                                              : strerror(e));
        if (err)
            err->sys_errno = e;
        return TFN_E_IO;
    }
    return TFN_OK;
}

static void source_mem(sp_source *s, const void *data, size_t len)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->mem = data ? (const uint8_t *)data : (const uint8_t *)"";
    s->mem_len = data ? len : 0;
    s->name = "<memory>";
}

static void source_close(sp_source *s)
{
    if (!s->mem && s->fd >= 0)
        close(s->fd);
}

static int wbits_of(int compression, tfn_error *err)
{
    switch (compression) {
    case TFN_COMPRESSION_ZLIB:
        return MAX_WBITS;
    case TFN_COMPRESSION_GZIP:
        return MAX_WBITS + 16;
    case TFN_COMPRESSION_AUTO:
        return MAX_WBITS + 32; /* zlib or gzip header, detected */
    default:
        tfn__fail(err, TFN_E_INVALID_ARG,
                  "seek points need a ZLIB, GZIP or AUTO stream (compression %d)", compression);
        return 0;
    }
}

static void zinit(z_stream *zs, const tfn__alloc *alloc)
{
    memset(zs, 0, sizeof *zs);
    zs->zalloc = tfn__zalloc;
    zs->zfree = tfn__zfree;
    zs->opaque = (voidpf)(uintptr_t)alloc;
}

static int zfail(tfn_error *err, int zrc, const z_stream *zs, const char *name, uint64_t at)
{
    if (zrc == Z_MEM_ERROR)
        return tfn__fail(err, TFN_E_NOMEM, "out of memory inflating %s", name);
    return tfn__fail_at(err, TFN_E_DATA_LOSS, at, 0,
                        "inflate() failed with error %d: %s; %s at compressed offset %" PRIu64,
                        zrc, zs->msg ? zs->msg : "", name, at);
}

void tfn_seekpoints_free(tfn_seekpoints *sp)
{
    if (!sp)
        return;
    for (size_t i = 0; i < sp->n; i++)
        tfn__free(&sp->alloc, sp->points[i].window);
    tfn__free(&sp->alloc, sp->points);
    tfn__free(&sp->alloc, sp);
}

/* Appends a point; `ring` holds the last min(out, SP_WINDOW) output bytes ending at
 * ring[pos] (exclusive), circularly. */
static bool add_point(tfn_seekpoints *sp, uint64_t in, int bits, uint64_t out,
                      const uint8_t *ring, size_t pos)
{
    if (sp->n == sp->cap &&
        !tfn__grow(&sp->alloc, (void **)&sp->points, &sp->cap, sp->n + 1, sizeof(sp_point)))
        return false;
    sp_point *p = &sp->points[sp->n];
    memset(p, 0, sizeof *p);
    p->in = in;
    p->bits = bits;
    p->out = out;
    p->wlen = out < SP_WINDOW ? (uint32_t)out : SP_WINDOW;
    if (p->wlen) {
        p->window = (uint8_t *)tfn__malloc(&sp->alloc, p->wlen);
        if (!p->window)
            return false;
        /* oldest first: the bytes from pos - wlen (circularly) up to pos */
        size_t start = (pos + SP_WINDOW - p->wlen) % SP_WINDOW;
        size_t first = SP_WINDOW - start < p->wlen ? SP_WINDOW - start : p->wlen;
        memcpy(p->window, ring + start, first);
        memcpy(p->window + first, ring, p->wlen - first);
    }
    sp->n++;
    return true;
}

static int build(const sp_source *src, int compression, uint64_t spacing, const tfn_alloc *alc,
                 tfn_seekpoints **out, tfn_error *err)
{
    if (!out)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_seekpoints_build: NULL out");
    *out = NULL;
    int wbits = wbits_of(compression, err);
    if (!wbits)
        return TFN_E_INVALID_ARG;
    if (spacing < SP_WINDOW)
        spacing = SP_WINDOW; /* closer points would cost more memory than they save */
    tfn__alloc a;
    tfn__alloc_init(&a, alc);
    tfn_seekpoints *sp = (tfn_seekpoints *)tfn__malloc(&a, sizeof *sp);
    uint8_t *in = (uint8_t *)tfn__malloc(&a, SP_CHUNK);
    uint8_t *ring = (uint8_t *)tfn__malloc(&a, SP_WINDOW);
    if (!sp || !in || !ring) {
        tfn__free(&a, sp);
        tfn__free(&a, in);
        tfn__free(&a, ring);
        return tfn__fail(err, TFN_E_NOMEM, "out of memory for seek points");
    }
    memset(sp, 0, sizeof *sp);
    sp->alloc = a;
    sp->wbits = wbits;
    int rc = TFN_OK;
    z_stream zs;
    zinit(&zs, &sp->alloc);
    int zrc = inflateInit2(&zs, wbits);
    if (zrc != Z_OK) {
        rc = zfail(err, zrc, &zs, src->name, 0);
        goto out;
    }
    uint64_t totin = 0, totout = 0, last = 0;
    size_t pos = 0; /* write position in ring */
    if (!add_point(sp, 0, -1, 0, ring, 0)) {
        rc = tfn__fail(err, TFN_E_NOMEM, "out of memory for seek points");
        goto end;
    }
    for (;;) {
        size_t got;
        rc = source_read(src, totin, in, SP_CHUNK, &got, err);
        if (rc != TFN_OK)
            goto end;
        /* got == 0: the stream stops before its end. What inflate still holds (the
           rest of a match) comes out with no more input; then keep what inflated. */
        bool eof = got == 0;
        zs.next_in = in;
        zs.avail_in = (uInt)got;
        do {
            if (pos == SP_WINDOW)
                pos = 0;
            zs.next_out = ring + pos;
            zs.avail_out = (uInt)(SP_WINDOW - pos);
            uInt before_in = zs.avail_in, before_out = zs.avail_out;
            /* Z_BLOCK: return at each block boundary, where a point can go */
            zrc = inflate(&zs, Z_BLOCK);
            totin += before_in - zs.avail_in;
            size_t made = before_out - zs.avail_out;
            totout += made;
            pos += made;
            if (zrc == Z_NEED_DICT)
                zrc = Z_DATA_ERROR;
            if (zrc == Z_MEM_ERROR || zrc == Z_DATA_ERROR) {
                rc = zfail(err, zrc, &zs, src->name, totin);
                goto end;
            }
            if (zrc == Z_STREAM_END || (eof && made == 0))
                break;
            /* bit 7: at the end of a block; bit 6: it was the last one */
            if ((zs.data_type & 128) && !(zs.data_type & 64) && totout - last >= spacing) {
                if (!add_point(sp, totin, zs.data_type & 7, totout, ring, pos)) {
                    rc = tfn__fail(err, TFN_E_NOMEM, "out of memory for seek points");
                    goto end;
                }
                last = totout;
            }
        } while (zs.avail_in != 0 || eof);
        if (zrc == Z_STREAM_END || eof)
            break;
    }
    sp->total = totout;
end:
    inflateEnd(&zs);
out:
    tfn__free(&sp->alloc, in);
    tfn__free(&sp->alloc, ring);
    if (rc != TFN_OK) {
        tfn_seekpoints_free(sp);
        return rc;
    }
    *out = sp;
    return TFN_OK;
}

int tfn_seekpoints_build(const char *path, int compression, uint64_t spacing,
                         const tfn_alloc *alc, tfn_seekpoints **out, tfn_error *err)
{
    if (out)
        *out = NULL;
    if (!path)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_seekpoints_build: NULL path");
    sp_source s;
    int rc = source_open(&s, path, err);
    if (rc != TFN_OK)
        return rc;
    rc = build(&s, compression, spacing, alc, out, err);
    source_close(&s);
    return rc;
}

int tfn_seekpoints_build_mem(const void *data, size_t len, int compression, uint64_t spacing,
                             const tfn_alloc *alc, tfn_seekpoints **out, tfn_error *err)
{
    if (!data && len)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_seekpoints_build_mem: NULL data");
    sp_source s;
    source_mem(&s, data, len);
    return build(&s, compression, spacing, alc, out, err);
}

uint64_t tfn_seekpoints_count(const tfn_seekpoints *sp)
{
    return sp ? sp->n : 0;
}

uint64_t tfn_seekpoints_total(const tfn_seekpoints *sp)
{
    return sp ? sp->total : 0;
}

static int read_at(const tfn_seekpoints *sp, const sp_source *src, uint64_t offset, void *dst,
                   size_t len, size_t *got, tfn_error *err)
{
    if (!sp || !got || (!dst && len))
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_seekpoints_read: NULL argument");
    *got = 0;
    if (offset >= sp->total || len == 0)
        return TFN_OK;
    /* the last point at or before offset (points[0].out == 0) */
    size_t lo = 0, hi = sp->n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (sp->points[mid].out <= offset)
            lo = mid;
        else
            hi = mid;
    }
    const sp_point *p = &sp->points[lo];
    tfn__alloc alloc = sp->alloc;
    uint8_t *in = (uint8_t *)tfn__malloc(&alloc, SP_CHUNK);
    uint8_t *skip = (uint8_t *)tfn__malloc(&alloc, SP_WINDOW);
    if (!in || !skip) {
        tfn__free(&alloc, in);
        tfn__free(&alloc, skip);
        return tfn__fail(err, TFN_E_NOMEM, "out of memory reading a compressed stream");
    }
    z_stream zs;
    zinit(&zs, &alloc);
    int rc = TFN_OK;
    int zrc = inflateInit2(&zs, p->bits < 0 ? sp->wbits : -MAX_WBITS);
    if (zrc != Z_OK) {
        rc = zfail(err, zrc, &zs, src->name, p->in);
        goto out;
    }
    uint64_t at = p->in;
    if (p->bits > 0) {
        size_t one = 0;
        uint8_t byte = 0;
        rc = source_read(src, p->in - 1, &byte, 1, &one, err);
        if (rc != TFN_OK)
            goto end;
        if (one != 1) {
            rc = tfn__fail_at(err, TFN_E_DATA_LOSS, p->in, 0,
                              "%s: the compressed stream changed since its seek points were "
                              "built", src->name);
            goto end;
        }
        zrc = inflatePrime(&zs, p->bits, byte >> (8 - p->bits));
        if (zrc == Z_OK && p->wlen)
            zrc = inflateSetDictionary(&zs, p->window, p->wlen);
    } else if (p->bits == 0 && p->wlen) {
        zrc = inflateSetDictionary(&zs, p->window, p->wlen);
    }
    if (zrc != Z_OK) {
        rc = zfail(err, zrc, &zs, src->name, p->in);
        goto end;
    }
    uint64_t to_skip = offset - p->out;
    uint8_t *d = (uint8_t *)dst;
    /* never past what the build pass saw, so every read agrees with it */
    size_t want = sp->total - offset < len ? (size_t)(sp->total - offset) : len;
    zs.avail_in = 0;
    bool eof = false;
    while (want > 0) {
        if (zs.avail_in == 0 && !eof) {
            size_t n;
            rc = source_read(src, at, in, SP_CHUNK, &n, err);
            if (rc != TFN_OK)
                goto end;
            eof = n == 0; /* the stream stops early: inflate what it holds, then stop */
            at += n;
            zs.next_in = in;
            zs.avail_in = (uInt)n;
        }
        if (to_skip > 0) {
            zs.next_out = skip;
            zs.avail_out = (uInt)(to_skip < SP_WINDOW ? to_skip : SP_WINDOW);
        } else {
            zs.next_out = d + *got;
            zs.avail_out = (uInt)(want < UINT_MAX ? want : UINT_MAX);
        }
        uInt before = zs.avail_out;
        zrc = inflate(&zs, Z_NO_FLUSH);
        size_t made = before - zs.avail_out;
        if (to_skip > 0) {
            to_skip -= made;
        } else {
            *got += made;
            want -= made;
        }
        if (zrc == Z_NEED_DICT)
            zrc = Z_DATA_ERROR;
        if (zrc == Z_MEM_ERROR || zrc == Z_DATA_ERROR) {
            rc = zfail(err, zrc, &zs, src->name, at - zs.avail_in);
            goto end;
        }
        if (zrc == Z_STREAM_END || (eof && made == 0))
            break;
        if (zrc == Z_BUF_ERROR && made == 0 && zs.avail_in != 0) {
            rc = zfail(err, zrc, &zs, src->name, at - zs.avail_in);
            goto end;
        }
    }
end:
    inflateEnd(&zs);
out:
    tfn__free(&alloc, in);
    tfn__free(&alloc, skip);
    return rc;
}

int tfn_seekpoints_read(const tfn_seekpoints *sp, const char *path, uint64_t offset, void *dst,
                        size_t len, size_t *got, tfn_error *err)
{
    if (got)
        *got = 0;
    if (!path)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_seekpoints_read: NULL path");
    sp_source s;
    int rc = source_open(&s, path, err);
    if (rc != TFN_OK)
        return rc;
    rc = read_at(sp, &s, offset, dst, len, got, err);
    source_close(&s);
    return rc;
}

int tfn_seekpoints_read_mem(const tfn_seekpoints *sp, const void *data, size_t data_len,
                            uint64_t offset, void *dst, size_t len, size_t *got, tfn_error *err)
{
    if (got)
        *got = 0;
    if (!data && data_len)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_seekpoints_read_mem: NULL data");
    sp_source s;
    source_mem(&s, data, data_len);
    return read_at(sp, &s, offset, dst, len, got, err);
}

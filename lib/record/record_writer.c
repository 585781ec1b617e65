/*
 * record_writer.c - TFRecord writer. Records are framed into an output buffer that is
 * handed on when full: written as is (NONE) or through deflate (ZLIB / GZIP, with
 * TensorFlow's settings: Z_NO_FLUSH while writing, Z_PARTIAL_FLUSH on flush,
 * Z_FINISH on close). A record larger than the buffer bypasses it.
 *
 * The first failure of the sink is sticky: that write and every later write, flush and
 * close report it, and nothing more is written. A file the writer opened is cut back to
 * the end of the last whole record handed on (the failed write may have left part of
 * one), so it always reads as a prefix of whole records.
 */
#define _POSIX_C_SOURCE 200809L
#include "record_internal.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_BUFFER (256u << 10)
#define MIN_BUFFER 64u

struct tfn_record_writer {
    tfn__alloc alloc;
    tfn__io io;
    char *name;
    int compression;
    bool closed;
    uint8_t *buf;
    size_t cap;
    size_t used;
    z_stream zs;
    bool z_ready;
    uint8_t *zout;
    size_t zout_cap;
    uint64_t count;
    uint64_t buffered;        /* records in buf (uncompressed) or since the last flush */
    uint64_t sent_bytes;      /* bytes the sink accepted up to the end of a whole record
                                 (for ZLIB / GZIP: up to the last flush) */
    uint64_t zsent;           /* compressed bytes the sink accepted */
    uint64_t durable_records; /* records wholly in sent_bytes */
    int failed;               /* the sticky error's status, 0 while none */
    tfn_error failure;        /* its message, repeated by every later call */
    uint64_t flush_every_records;
    uint64_t flush_every_ns;
    uint64_t last_flush_ns;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void tfn_record_writer_options_init(tfn_record_writer_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->compression = TFN_COMPRESSION_NONE;
    opts->compression_level = Z_DEFAULT_COMPRESSION;
    opts->window_bits = MAX_WBITS;
    opts->mem_level = 9;
    opts->strategy = Z_DEFAULT_STRATEGY;
    opts->buffer_size = DEFAULT_BUFFER;
}

/* ---------------------------------------------------------------- output */

/* Runs deflate over `len` bytes with `mode`, writing out every full output buffer
 * (and, for a flush or finish, what is left). */
static int deflate_out(tfn_record_writer *w, const uint8_t *p, size_t len, int mode,
                       tfn_error *err)
{
    for (;;) {
        uInt take = len > UINT_MAX ? UINT_MAX : (uInt)len;
        w->zs.next_in = (Bytef *)(uintptr_t)p; /* zlib does not write through next_in */
        w->zs.avail_in = take;
        bool last = take == len;
        int m = last ? mode : Z_NO_FLUSH;
        for (;;) {
            w->zs.next_out = w->zout;
            w->zs.avail_out = (uInt)w->zout_cap;
            int rc = deflate(&w->zs, m);
            if (rc == Z_STREAM_ERROR)
                return tfn__fail(err, TFN_E_INVALID_ARG, "deflate() failed with error %d", rc);
            size_t produced = w->zout_cap - w->zs.avail_out;
            if (produced > 0) {
                int wr = tfn__io_write(&w->io, &w->alloc, w->zout, produced, w->name, err);
                if (wr != TFN_OK)
                    return wr;
                w->zsent += produced;
            }
            if (m == Z_FINISH ? rc == Z_STREAM_END
                              : (w->zs.avail_out != 0 && w->zs.avail_in == 0))
                break;
        }
        p += take;
        len -= take;
        if (last)
            return TFN_OK;
    }
}

static bool is_compressed(const tfn_record_writer *w)
{
    return w->compression != TFN_COMPRESSION_NONE;
}

static int emit(tfn_record_writer *w, const uint8_t *p, size_t len, tfn_error *err)
{
    if (len == 0)
        return TFN_OK;
    if (is_compressed(w))
        return deflate_out(w, p, len, Z_NO_FLUSH, err);
    return tfn__io_write(&w->io, &w->alloc, p, len, w->name, err);
}

static int drain(tfn_record_writer *w, tfn_error *err)
{
    int rc = emit(w, w->buf, w->used, err);
    if (rc == TFN_OK && !is_compressed(w)) {
        w->sent_bytes += w->used;
        w->durable_records += w->buffered;
        w->buffered = 0;
    }
    if (rc == TFN_OK)
        w->used = 0;
    return rc;
}

/* Makes a sink failure sticky: remembers it, and cuts a file back to the end of the
 * last whole record handed on (a failed write may have stored part of one). */
static int fail_sticky(tfn_record_writer *w, int rc, tfn_error *err)
{
    if (rc == TFN_E_LIMIT || rc == TFN_E_INVALID_ARG)
        return rc; /* the caller's record or arguments, not the sink */
    w->failed = rc;
    struct stat st;
    if (w->io.kind == TFN__IO_FD && w->io.fd >= 0 && fstat(w->io.fd, &st) == 0 &&
        S_ISREG(st.st_mode)) {
        /* Nothing more is written, so the file offset need not follow. (A device or
         * a pipe cannot be cut back: what went out is gone.) */
        if (ftruncate(w->io.fd, (off_t)w->sent_bytes) != 0 && err)
            tfn__append(err, "; could not cut the file back to %" PRIu64 " bytes",
                        w->sent_bytes);
    } else if (w->io.kind == TFN__IO_MEMOUT && w->io.out_len > w->sent_bytes) {
        w->io.out_len = (size_t)w->sent_bytes;
    }
    if (err) {
        if (!is_compressed(w))
            tfn__append(err, "; the file ends after record %" PRIu64 " (%" PRIu64 " bytes)",
                        w->durable_records, w->sent_bytes);
        w->failure = *err;
    } else {
        memset(&w->failure, 0, sizeof w->failure);
        w->failure.code = rc;
        snprintf(w->failure.msg, sizeof w->failure.msg, "%s",
                 "an earlier write of this writer failed");
    }
    return rc;
}

/* Every call after the first sink failure reports it again. */
static int repeat_failure(const tfn_record_writer *w, tfn_error *err)
{
    if (err)
        *err = w->failure;
    return w->failed;
}

static int write_one(tfn_record_writer *w, const uint8_t *data, size_t len, tfn_error *err)
{
    if (len > SIZE_MAX - TFN__REC_OVERHEAD)
        return tfn__fail(err, TFN_E_LIMIT, "record of %zu bytes is too large", len);
    size_t frame = len + TFN__REC_OVERHEAD;
    uint8_t f[TFN__REC_FOOTER];
    if (!is_compressed(w) && w->io.kind == TFN__IO_FD && len >= w->cap / 4) {
        /* A large uncompressed record is not copied into the buffer: buffered bytes,
         * header, payload and footer go out in one gathered write. (Callbacks keep
         * the buffer: fewer, larger calls into the caller.) */
        uint8_t h[TFN__REC_HEADER];
        tfn__rec_header(h, len);
        tfn__store_le32(f, tfn__masked_crc(data, len));
        tfn__iovec v[4] = {{w->buf, w->used}, {h, sizeof h}, {data, len}, {f, sizeof f}};
        int rc = tfn__io_writev(&w->io, &w->alloc, v, 4, w->name, err);
        if (rc != TFN_OK)
            return rc;
        w->sent_bytes += w->used + frame;
        w->count++;
        w->durable_records = w->count;
        w->buffered = 0;
        w->used = 0;
        return TFN_OK;
    }
    if (frame > w->cap - w->used) {
        int rc = drain(w, err);
        if (rc != TFN_OK)
            return rc;
    }
    if (frame <= w->cap - w->used) {
        uint8_t *d = w->buf + w->used;
        tfn__rec_header(d, len);
        if (len > 0)
            memcpy(d + TFN__REC_HEADER, data, len);
        tfn__store_le32(d + TFN__REC_HEADER + len, tfn__masked_crc(data, len));
        w->used += frame;
    } else {
        /* Larger than the whole buffer: straight to the sink (or into deflate). */
        uint8_t h[TFN__REC_HEADER];
        tfn__rec_header(h, len);
        tfn__store_le32(f, tfn__masked_crc(data, len));
        int rc = emit(w, h, sizeof h, err);
        if (rc == TFN_OK)
            rc = emit(w, data, len, err);
        if (rc == TFN_OK)
            rc = emit(w, f, sizeof f, err);
        if (rc != TFN_OK)
            return rc;
        if (!is_compressed(w)) {
            /* Handed on whole, after the buffer was drained. */
            w->sent_bytes += frame;
            w->count++;
            w->durable_records = w->count;
            return TFN_OK;
        }
    }
    w->count++;
    w->buffered++;
    return TFN_OK;
}

/* Hands every record accepted so far to the sink (mode Z_PARTIAL_FLUSH, or Z_FINISH
 * when closing), so that the bytes sent decode to whole records. */
static int push_out(tfn_record_writer *w, int mode, tfn_error *err)
{
    int rc = drain(w, err);
    if (rc == TFN_OK && is_compressed(w))
        rc = deflate_out(w, NULL, 0, mode, err);
    if (rc == TFN_OK)
        rc = tfn__io_flush(&w->io, w->name, err);
    if (rc != TFN_OK)
        return fail_sticky(w, rc, err);
    if (is_compressed(w))
        w->sent_bytes = w->zsent;
    w->durable_records = w->count;
    w->buffered = 0;
    if (w->flush_every_ns)
        w->last_flush_ns = now_ns();
    return TFN_OK;
}

/* The automatic flushes of tfn_record_writer_options. */
static int maybe_flush(tfn_record_writer *w, tfn_error *err)
{
    if (w->flush_every_records && w->buffered >= w->flush_every_records)
        return push_out(w, Z_PARTIAL_FLUSH, err);
    if (w->flush_every_ns && w->buffered > 0 && now_ns() - w->last_flush_ns >= w->flush_every_ns)
        return push_out(w, Z_PARTIAL_FLUSH, err);
    return TFN_OK;
}

static int writer_closed(tfn_error *err)
{
    return tfn__fail(err, TFN_E_CLOSED, "Writer is closed.");
}

/* ---------------------------------------------------------------- public */

static int open_common(tfn__io *io, const char *name, const tfn_record_writer_options *opts,
                       const tfn_alloc *alc, tfn_record_writer **out, tfn_error *err)
{
    tfn_record_writer_options def;
    if (!opts) {
        tfn_record_writer_options_init(&def);
        opts = &def;
    }
    if (opts->compression != TFN_COMPRESSION_NONE && opts->compression != TFN_COMPRESSION_ZLIB &&
        opts->compression != TFN_COMPRESSION_GZIP)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "invalid writer compression %d (NONE, ZLIB or GZIP)", opts->compression);
    bool z = opts->compression != TFN_COMPRESSION_NONE;
    if (z && (opts->compression_level < -1 || opts->compression_level > 9 ||
              opts->window_bits < 8 || opts->window_bits > 15 || opts->mem_level < 1 ||
              opts->mem_level > 9 || opts->strategy < 0 || opts->strategy > Z_FIXED))
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "invalid zlib options: level %d, window bits %d, memLevel %d, "
                         "strategy %d",
                         opts->compression_level, opts->window_bits, opts->mem_level,
                         opts->strategy);
    tfn__alloc a;
    tfn__alloc_init(&a, alc);
    tfn_record_writer *w = (tfn_record_writer *)tfn__malloc(&a, sizeof *w);
    if (!w)
        return tfn__fail(err, TFN_E_NOMEM, "out of memory for a record writer");
    memset(w, 0, sizeof *w);
    w->alloc = a;
    w->io = *io;
    w->compression = opts->compression;
    w->flush_every_records = opts->flush_every_records;
    w->flush_every_ns = opts->flush_every_ms > UINT64_MAX / 1000000u
                            ? UINT64_MAX
                            : opts->flush_every_ms * 1000000u;
    if (w->flush_every_ns)
        w->last_flush_ns = now_ns();
    size_t cap = opts->buffer_size ? opts->buffer_size : DEFAULT_BUFFER;
    if (cap < MIN_BUFFER)
        cap = MIN_BUFFER;
    if (cap > UINT_MAX)
        cap = UINT_MAX;
    if (name && !(w->name = tfn__strdup(&w->alloc, name)))
        goto nomem;
    if (!(w->buf = (uint8_t *)tfn__malloc(&w->alloc, cap)))
        goto nomem;
    w->cap = cap;
    if (z) {
        if (!(w->zout = (uint8_t *)tfn__malloc(&w->alloc, cap)))
            goto nomem;
        w->zout_cap = cap;
        w->zs.zalloc = tfn__zalloc;
        w->zs.zfree = tfn__zfree;
        w->zs.opaque = (voidpf)&w->alloc;
        int wbits = opts->window_bits + (opts->compression == TFN_COMPRESSION_GZIP ? 16 : 0);
        int rc = deflateInit2(&w->zs, opts->compression_level, Z_DEFLATED, wbits,
                              opts->mem_level, opts->strategy);
        if (rc != Z_OK) {
            tfn__free(&w->alloc, w->zout);
            tfn__free(&w->alloc, w->buf);
            tfn__free(&w->alloc, w->name);
            tfn__free(&w->alloc, w);
            return tfn__fail(err, rc == Z_MEM_ERROR ? TFN_E_NOMEM : TFN_E_INVALID_ARG,
                             "deflateInit2() failed with error %d", rc);
        }
        w->z_ready = true;
    }
    *out = w;
    return TFN_OK;
nomem:
    tfn__free(&w->alloc, w->zout);
    tfn__free(&w->alloc, w->buf);
    tfn__free(&w->alloc, w->name);
    tfn__free(&w->alloc, w);
    return tfn__fail(err, TFN_E_NOMEM, "out of memory for a record writer");
}

int tfn_record_writer_open(const char *path, const tfn_record_writer_options *opts,
                           const tfn_alloc *alc, tfn_record_writer **out, tfn_error *err)
{
    if (!path || !out)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_writer_open: NULL argument");
    *out = NULL;
    /* Options are checked before the file is created or truncated. */
    tfn__io none;
    memset(&none, 0, sizeof none);
    none.fd = -1;
    tfn_record_writer *probe = NULL;
    int rc = open_common(&none, NULL, opts, alc, &probe, err);
    if (rc != TFN_OK)
        return rc;
    tfn__io io;
    rc = tfn__io_open_path(&io, path, true, err);
    if (rc != TFN_OK) {
        probe->closed = true; /* nothing to finish: no file */
        tfn_record_writer_free(probe);
        return rc;
    }
    probe->io = io;
    if (!(probe->name = tfn__strdup(&probe->alloc, path))) {
        tfn_record_writer_free(probe);
        return tfn__fail(err, TFN_E_NOMEM, "out of memory for a record writer");
    }
    *out = probe;
    return TFN_OK;
}

int tfn_record_writer_open_mem(const tfn_record_writer_options *opts, const tfn_alloc *alc,
                               tfn_record_writer **out, tfn_error *err)
{
    if (!out)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_writer_open_mem: NULL argument");
    *out = NULL;
    tfn__io io;
    memset(&io, 0, sizeof io);
    io.kind = TFN__IO_MEMOUT;
    io.fd = -1;
    return open_common(&io, NULL, opts, alc, out, err);
}

int tfn_record_writer_open_io(const tfn_io *cb, const tfn_record_writer_options *opts,
                              const tfn_alloc *alc, tfn_record_writer **out, tfn_error *err)
{
    if (!cb || !cb->write || !out)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "tfn_record_writer_open_io: NULL argument or no write function");
    *out = NULL;
    tfn__io io;
    memset(&io, 0, sizeof io);
    io.kind = TFN__IO_CB;
    io.fd = -1;
    io.cb = *cb;
    return open_common(&io, NULL, opts, alc, out, err);
}

int tfn_record_writer_write(tfn_record_writer *w, const void *data, size_t len, tfn_error *err)
{
    if (!w || (!data && len > 0))
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_writer_write: NULL argument");
    if (w->failed)
        return repeat_failure(w, err);
    if (w->closed)
        return writer_closed(err);
    int rc = write_one(w, (const uint8_t *)data, len, err);
    if (rc == TFN_OK)
        rc = maybe_flush(w, err);
    else
        rc = fail_sticky(w, rc, err);
    return rc;
}

int tfn_record_writer_write_batch(tfn_record_writer *w, const void *data,
                                  const uint64_t *offsets, size_t n, tfn_error *err)
{
    if (!w || !offsets || (!data && n > 0 && offsets[n] > offsets[0]))
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_writer_write_batch: NULL argument");
    if (w->failed)
        return repeat_failure(w, err);
    if (w->closed)
        return writer_closed(err);
    const uint8_t *base = (const uint8_t *)data;
    for (size_t i = 0; i < n; i++) {
        if (offsets[i + 1] < offsets[i] || offsets[i + 1] > SIZE_MAX)
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i,
                                "record %zu: offsets %" PRIu64 " .. %" PRIu64
                                " are not non-decreasing",
                                i, offsets[i], offsets[i + 1]);
        int rc = write_one(w, base ? base + offsets[i] : base,
                           (size_t)(offsets[i + 1] - offsets[i]), err);
        if (rc == TFN_OK)
            rc = maybe_flush(w, err);
        else
            rc = fail_sticky(w, rc, err);
        if (rc != TFN_OK) {
            if (err)
                err->record_index = i;
            return rc;
        }
    }
    return TFN_OK;
}

int tfn_record_writer_flush(tfn_record_writer *w, tfn_error *err)
{
    if (!w)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_writer_flush: NULL writer");
    if (w->failed)
        return repeat_failure(w, err);
    if (w->closed)
        return writer_closed(err);
    return push_out(w, Z_PARTIAL_FLUSH, err);
}

int tfn_record_writer_close(tfn_record_writer *w, tfn_error *err)
{
    if (!w)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_writer_close: NULL writer");
    if (w->closed)
        return w->failed ? repeat_failure(w, err) : TFN_OK;
    w->closed = true;
    int rc = w->failed ? repeat_failure(w, err) : push_out(w, Z_FINISH, err);
    /* The file is closed whatever happened before; the first error is reported. */
    int rc2 = tfn__io_close(&w->io, &w->alloc, w->name, rc == TFN_OK ? err : NULL);
    if (rc == TFN_OK && rc2 != TFN_OK)
        rc2 = fail_sticky(w, rc2, err);
    if (w->z_ready) {
        (void)deflateEnd(&w->zs);
        w->z_ready = false;
    }
    return rc != TFN_OK ? rc : rc2;
}

void tfn_record_writer_mem_data(const tfn_record_writer *w, const uint8_t **data, size_t *len)
{
    const uint8_t *d = NULL;
    size_t n = 0;
    if (w && w->io.kind == TFN__IO_MEMOUT) {
        d = w->io.out ? w->io.out : (const uint8_t *)"";
        n = w->io.out_len;
    }
    if (data)
        *data = d;
    if (len)
        *len = n;
}

uint64_t tfn_record_writer_count(const tfn_record_writer *w)
{
    return w ? w->count : 0;
}

void tfn_record_writer_durable(const tfn_record_writer *w, uint64_t *records, uint64_t *bytes)
{
    if (records)
        *records = w ? w->durable_records : 0;
    if (bytes)
        *bytes = w ? w->sent_bytes : 0;
}

void tfn_record_writer_free(tfn_record_writer *w)
{
    if (!w)
        return;
    if (!w->closed)
        (void)tfn_record_writer_close(w, NULL);
    if (w->z_ready)
        (void)deflateEnd(&w->zs);
    tfn__io_free(&w->io, &w->alloc);
    tfn__free(&w->alloc, w->zout);
    tfn__free(&w->alloc, w->buf);
    tfn__free(&w->alloc, w->name);
    tfn__free(&w->alloc, w);
}

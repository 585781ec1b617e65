/*
 * record_reader.c - sequential TFRecord reader.
 *
 * The reader sees the (decompressed) stream through a window: win[pos ..
 * win_len) holds the bytes from stream offset `offset` on. For uncompressed memory
 * the window is the caller's memory itself (no copy); otherwise it is a buffer
 * refilled with large reads, compacted when a record runs past its end, and grown
 * only while real data fills it (an untrusted length never sizes an allocation).
 */
#include "record_internal.h"

#include <inttypes.h>

#define DEFAULT_BUFFER (1u << 20)
#define MIN_BUFFER 64u
#define ZLIB_INPUT (256u << 10)

struct tfn_record_reader {
    tfn__alloc alloc;
    tfn__io io;
    char *name;
    int compression; /* AUTO until detected */
    bool verify_payload;
    int on_damage;
    bool zero_copy; /* window = caller memory */
    tfn__inflater inf;
    uint8_t *buf;
    size_t buf_cap;
    const uint8_t *win;
    size_t win_len;
    size_t pos;
    uint64_t offset;
    uint64_t index;
    uint64_t skipped_records;
    uint64_t skipped_bytes;
    tfn_record_skip last_skip; /* the latest damaged region skipped */
    uint64_t max_record;       /* 0: no limit */
    uint64_t resync_slice;     /* 0: a resync runs to its end in one call */
    bool resyncing;            /* a resync stopped by resync_slice, to go on */
    uint64_t resync_start;
    int resync_reason;
    /* tfn_record_reader_peek()'s record: valid while offset == peek_offset and the
     * window still holds its frame at pos. */
    bool peeked, peek_checked;
    uint64_t peek_offset;
    size_t peek_len, peek_frame;
};

void tfn_record_reader_options_init(tfn_record_reader_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->compression = TFN_COMPRESSION_NONE;
    opts->on_damage = TFN_ON_DAMAGE_RAISE;
    opts->buffer_size = DEFAULT_BUFFER;
}

/* ---------------------------------------------------------------- filling the window */

/* Reads more stream bytes into buf[win_len .. buf_cap). */
static int source_read(tfn_record_reader *r, size_t *got, tfn_error *err)
{
    uint8_t *dst = r->buf + r->win_len;
    size_t cap = r->buf_cap - r->win_len;
    if (r->compression == TFN_COMPRESSION_ZLIB || r->compression == TFN_COMPRESSION_GZIP) {
        int rc = tfn__inflater_read(&r->inf, &r->io, dst, cap, got, r->name, err);
        if (rc == TFN_E_DATA_LOSS && err)
            err->offset = r->offset; /* the record's offset in the inflated stream */
        return rc;
    }
    return tfn__io_read(&r->io, dst, cap, got, r->name, err);
}

/* Makes at least `need` bytes available from pos when the stream has them; *avail
 * receives what is available (less than need only at the current end of the
 * stream). May move the window's contents: pointers into it become stale. */
static int fill(tfn_record_reader *r, size_t need, size_t *avail, tfn_error *err)
{
    size_t have = r->win_len - r->pos;
    if (have >= need || r->zero_copy) {
        *avail = have;
        return TFN_OK;
    }
    if (r->buf_cap - r->pos < need && r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, have);
        r->win_len = have;
        r->pos = 0;
    }
    while (have < need) {
        if (r->win_len == r->buf_cap) {
            /* Full of real data and still short: grow, at most to `need`. */
            size_t want = r->buf_cap > SIZE_MAX / 2 ? SIZE_MAX : r->buf_cap * 2;
            if (want > need)
                want = need;
            uint8_t *nb = (uint8_t *)tfn__realloc(&r->alloc, r->buf, r->buf_cap, want);
            if (!nb)
                return tfn__fail_at(err, TFN_E_NOMEM, r->offset, r->index,
                                    "out of memory growing the read buffer to %zu bytes",
                                    want);
            r->buf = nb;
            r->win = nb;
            r->buf_cap = want;
        }
        size_t got;
        int rc = source_read(r, &got, err);
        if (rc != TFN_OK)
            return rc;
        if (got == 0)
            break;
        r->win_len += got;
        have += got;
    }
    *avail = have;
    return TFN_OK;
}

/* Moves the unread bytes to the front and reads once into the free space. */
static int top_up(tfn_record_reader *r, tfn_error *err)
{
    size_t have = r->win_len - r->pos;
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, have);
        r->win_len = have;
        r->pos = 0;
    }
    if (r->win_len == r->buf_cap)
        return TFN_OK;
    size_t got;
    int rc = source_read(r, &got, err);
    if (rc == TFN_OK)
        r->win_len += got;
    return rc;
}

/* ---------------------------------------------------------------- compression */

static bool zlib_header(const uint8_t *p)
{
    return (p[0] & 0x0f) == Z_DEFLATED && (p[0] >> 4) <= 7 &&
           ((unsigned)p[0] * 256u + p[1]) % 31u == 0;
}

static bool valid_header(const uint8_t *p)
{
    return tfn__masked_crc(p, 8) == tfn__load_le32(p + 8);
}

/* min_input: the input buffer must hold bytes already read while detecting. */
static int start_inflater(tfn_record_reader *r, size_t min_input, tfn_error *err)
{
    int rc = tfn__inflater_init(&r->inf, &r->alloc, r->compression == TFN_COMPRESSION_GZIP,
                                min_input > ZLIB_INPUT ? min_input : ZLIB_INPUT, err);
    r->inf.keep_before_error = r->on_damage == TFN_ON_DAMAGE_SKIP;
    return rc;
}

/* AUTO: an uncompressed stream is recognised by a valid first header; else the gzip
 * magic or a zlib header selects the compression; anything else is read as
 * uncompressed (and reported as not a TFRecord file). */
static int detect(tfn_record_reader *r, tfn_error *err)
{
    size_t avail;
    if (r->zero_copy) {
        avail = r->win_len;
    } else {
        int rc = fill(r, TFN__REC_HEADER, &avail, err);
        if (rc != TFN_OK)
            return rc;
    }
    const uint8_t *p = r->win + r->pos;
    int c = TFN_COMPRESSION_NONE;
    if (avail >= TFN__REC_HEADER && valid_header(p))
        c = TFN_COMPRESSION_NONE;
    else if (avail >= 2 && p[0] == 0x1f && p[1] == 0x8b)
        c = TFN_COMPRESSION_GZIP;
    else if (avail >= 2 && zlib_header(p))
        c = TFN_COMPRESSION_ZLIB;
    if (avail == 0)
        return TFN_OK; /* nothing yet: decide on a later call (a growing file) */
    r->compression = c;
    if (c == TFN_COMPRESSION_NONE)
        return TFN_OK;
    if (r->zero_copy) {
        /* Compressed memory is inflated into a buffer like any other source. */
        r->zero_copy = false;
        r->io.mem_pos = 0;
        r->win = r->buf;
        r->win_len = r->pos = 0;
        return start_inflater(r, 0, err);
    }
    int rc = start_inflater(r, r->win_len, err);
    if (rc != TFN_OK) {
        r->compression = TFN_COMPRESSION_AUTO;
        return rc;
    }
    /* The raw bytes read so far are the start of the compressed input. */
    tfn__inflater_preload(&r->inf, r->buf, r->win_len);
    r->win_len = r->pos = 0;
    return TFN_OK;
}

/* ---------------------------------------------------------------- one record */

enum { WHERE_IO = 0, WHERE_CRC = 1 };

static bool compressed(const tfn_record_reader *r)
{
    return r->compression == TFN_COMPRESSION_ZLIB || r->compression == TFN_COMPRESSION_GZIP;
}

static int payload_damage(const tfn_record_reader *r, tfn_error *err)
{
    return tfn__fail_at(err, TFN_E_DATA_LOSS, r->offset + TFN__REC_HEADER, r->index,
                        "corrupted record at %" PRIu64, r->offset + TFN__REC_HEADER);
}

/* Looks at the record at pos without consuming it. With may_fill false, only bytes
 * already in the window are used (TFN_END when the record is not all there). */
static int peek(tfn_record_reader *r, bool may_fill, bool check_payload, const uint8_t **data,
                size_t *len, size_t *frame, int *where, tfn_error *err)
{
    *where = WHERE_IO;
    if (r->compression == TFN_COMPRESSION_AUTO) {
        int rc = detect(r, err);
        if (rc != TFN_OK)
            return rc;
        if (r->compression == TFN_COMPRESSION_AUTO)
            return TFN_END;
    }
    size_t avail = r->win_len - r->pos;
    if (may_fill) {
        int rc = fill(r, TFN__REC_HEADER, &avail, err);
        if (rc != TFN_OK)
            return rc;
    }
    if (avail < TFN__REC_HEADER)
        return TFN_END; /* clean end, or a partial header TensorFlow ignores */
    const uint8_t *h = r->win + r->pos;
    uint64_t n = tfn__load_le64(h);
    if (!valid_header(h)) {
        *where = WHERE_CRC;
        if (r->offset == 0)
            return tfn__fail_at(err, TFN_E_DATA_LOSS_LENGTH, 0, r->index,
                                "corrupted record at 0 (Is this even a TFRecord file?)");
        return tfn__fail_at(err, TFN_E_DATA_LOSS_LENGTH, r->offset, r->index,
                            "corrupted record at %" PRIu64, r->offset);
    }
    if (n > SIZE_MAX - TFN__REC_OVERHEAD) {
        *where = WHERE_CRC;
        return tfn__fail_at(err, TFN_E_DATA_LOSS, r->offset, r->index, "record size too large");
    }
    if (r->max_record && n > r->max_record) {
        *where = WHERE_CRC;
        return tfn__fail_at(err, TFN_E_DATA_LOSS, r->offset, r->index,
                            "record at %" PRIu64 " claims %" PRIu64 " bytes, more than the "
                            "maximum record size %" PRIu64 " (max_record_size)",
                            r->offset, n, r->max_record);
    }
    size_t need = (size_t)n + TFN__REC_OVERHEAD;
    if (may_fill) {
        int rc = fill(r, need, &avail, err);
        if (rc != TFN_OK)
            return rc;
    }
    if (avail < need) {
        if (!may_fill)
            return TFN_END;
        return tfn__fail_at(err, TFN_E_TRUNCATED, r->offset, r->index,
                            "truncated record at %" PRIu64 "' failed with %s", r->offset,
                            compressed(r) ? "EOF reached" : "Read less bytes than requested");
    }
    const uint8_t *body = r->win + r->pos + TFN__REC_HEADER;
    if (check_payload && r->verify_payload &&
        tfn__masked_crc(body, (size_t)n) != tfn__load_le32(body + n)) {
        *where = WHERE_CRC;
        return payload_damage(r, err);
    }
    *data = body;
    *len = (size_t)n;
    *frame = need;
    return TFN_OK;
}

static void advance(tfn_record_reader *r, size_t n)
{
    r->pos += n;
    r->offset += n;
}

/* Counts a skipped region [start, r->offset) that began with error `reason`. */
static void note_skip(tfn_record_reader *r, uint64_t start, int reason)
{
    r->skipped_records++;
    r->skipped_bytes += r->offset - start;
    r->last_skip.offset = start;
    r->last_skip.length = r->offset - start;
    r->last_skip.record_index = r->index;
    r->last_skip.reason = reason;
}

/* Whether a whole record with matching CRCs starts at window position q (only bytes
 * already in the window are looked at). */
static bool whole_record_at(const tfn_record_reader *r, size_t q, size_t *frame)
{
    size_t have = r->win_len - q;
    if (have < TFN__REC_OVERHEAD)
        return false;
    const uint8_t *h = r->win + q;
    if (!valid_header(h))
        return false;
    uint64_t n = tfn__load_le64(h);
    if (n > have - TFN__REC_OVERHEAD)
        return false;
    if (r->verify_payload &&
        tfn__masked_crc(h + TFN__REC_HEADER, (size_t)n) != tfn__load_le32(h + TFN__REC_HEADER + n))
        return false;
    *frame = (size_t)n + TFN__REC_OVERHEAD;
    return true;
}

/* A record at pos claims more bytes than the stream has (the window holds the rest
 * of the stream). With SKIP, a whole valid record after it means the claimed length
 * is damage (a torn record, a length the writer never finished): skip to that
 * record. Otherwise nothing is consumed and TFN_E_TRUNCATED stands: the file may
 * still be growing. */
static int skip_truncated(tfn_record_reader *r, uint64_t start, int reason,
                          const uint8_t **data, size_t *len, size_t *frame)
{
    for (size_t q = r->pos + 1; q + TFN__REC_OVERHEAD <= r->win_len; q++) {
        if (!whole_record_at(r, q, frame))
            continue;
        advance(r, q - r->pos);
        note_skip(r, start, reason);
        *data = r->win + r->pos + TFN__REC_HEADER;
        *len = *frame - TFN__REC_OVERHEAD;
        return TFN_OK;
    }
    return TFN_E_TRUNCATED;
}

/* TFN_ON_DAMAGE_SKIP: steps forward one byte at a time from the damaged record to the
 * first offset holding a whole record whose CRCs match. */
static int resync(tfn_record_reader *r, int reason, const uint8_t **data, size_t *len,
                  size_t *frame, tfn_error *err)
{
    uint64_t start = r->offset;
    if (r->resyncing) {
        /* going on with the region a sliced call left (r->offset is past its start) */
        start = r->resync_start;
        reason = r->resync_reason;
        r->resyncing = false;
    }
    uint64_t scanned = 0;
    for (;;) {
        if (r->resync_slice && scanned >= r->resync_slice) {
            r->resyncing = true;
            r->resync_start = start;
            r->resync_reason = reason;
            return tfn__fail_at(err, TFN_TIMEOUT, r->offset, r->index,
                                "skipping damaged bytes from %" PRIu64 " to %" PRIu64,
                                start, r->offset);
        }
        scanned++;
        advance(r, 1);
        size_t avail;
        int rc = fill(r, TFN__REC_HEADER, &avail, err);
        if (rc != TFN_OK) {
            /* The bytes stepped over are skipped all the same (a retry goes on from
             * here): count them. */
            note_skip(r, start, reason);
            return rc;
        }
        if (avail < TFN__REC_HEADER) {
            /* Damage runs to the end of the stream. */
            advance(r, avail);
            note_skip(r, start, reason);
            return TFN_END;
        }
        const uint8_t *h = r->win + r->pos;
        if (!valid_header(h))
            continue;
        uint64_t n = tfn__load_le64(h);
        if (n > SIZE_MAX - TFN__REC_OVERHEAD || (r->max_record && n > r->max_record))
            continue;
        size_t need = (size_t)n + TFN__REC_OVERHEAD;
        rc = fill(r, need, &avail, err);
        if (rc != TFN_OK) {
            note_skip(r, start, reason);
            return rc;
        }
        if (avail < need) {
            /* A valid header whose record runs past the end of the stream: the window
             * holds all that is left. A whole record further on wins; else this one is
             * reported like any truncated record (more of the file may come). */
            if (skip_truncated(r, start, reason, data, len, frame) == TFN_OK)
                return TFN_OK;
            note_skip(r, start, reason);
            return tfn__fail_at(err, TFN_E_TRUNCATED, r->offset, r->index,
                                "truncated record at %" PRIu64 "' failed with %s", r->offset,
                                compressed(r) ? "EOF reached"
                                              : "Read less bytes than requested");
        }
        const uint8_t *body = r->win + r->pos + TFN__REC_HEADER;
        if (r->verify_payload && tfn__masked_crc(body, (size_t)n) != tfn__load_le32(body + n))
            continue;
        note_skip(r, start, reason);
        *data = body;
        *len = (size_t)n;
        *frame = need;
        return TFN_OK;
    }
}

/* Reads the next record without consuming it. With may_skip and the SKIP policy,
 * damage before it is skipped (at most one region per call, so that a caller can
 * read every region through tfn_record_reader_last_skip()). */
static int read_one(tfn_record_reader *r, bool may_skip, const uint8_t **data, size_t *len,
                    size_t *frame, tfn_error *err)
{
    int where;
    if (r->resyncing && may_skip) {
        int rc = resync(r, 0, data, len, frame, err);
        if (rc < 0)
            tfn__rec_context(err, r->name, r->index);
        return rc;
    }
    int rc = peek(r, true, true, data, len, frame, &where, err);
    if (rc < 0 && may_skip && r->on_damage == TFN_ON_DAMAGE_SKIP) {
        if (where == WHERE_CRC)
            rc = resync(r, rc, data, len, frame, err);
        else if (rc == TFN_E_TRUNCATED &&
                 skip_truncated(r, r->offset, rc, data, len, frame) == TFN_OK)
            rc = TFN_OK;
    }
    if (rc < 0)
        tfn__rec_context(err, r->name, r->index);
    return rc;
}

static void commit(tfn_record_reader *r, size_t frame)
{
    advance(r, frame);
    r->index++;
}

/* ---------------------------------------------------------------- public */

static int open_common(tfn__io *io, const char *name, const tfn_record_reader_options *opts,
                       const tfn_alloc *alc, tfn_record_reader **out, tfn_error *err)
{
    tfn_record_reader_options def;
    if (!opts) {
        tfn_record_reader_options_init(&def);
        opts = &def;
    }
    if (opts->compression < TFN_COMPRESSION_NONE || opts->compression > TFN_COMPRESSION_AUTO ||
        (opts->on_damage != TFN_ON_DAMAGE_RAISE && opts->on_damage != TFN_ON_DAMAGE_SKIP))
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "invalid reader options: compression %d, on_damage %d",
                         opts->compression, opts->on_damage);
    tfn__alloc a;
    tfn__alloc_init(&a, alc);
    tfn_record_reader *r = (tfn_record_reader *)tfn__malloc(&a, sizeof *r);
    if (!r)
        return tfn__fail(err, TFN_E_NOMEM, "out of memory for a record reader");
    memset(r, 0, sizeof *r);
    r->alloc = a;
    r->io = *io;
    r->compression = opts->compression;
    r->verify_payload = !opts->skip_payload_crc;
    r->on_damage = opts->on_damage;
    r->max_record = opts->max_record_size;
    r->resync_slice = opts->on_damage == TFN_ON_DAMAGE_SKIP ? opts->resync_slice : 0;
    if (name) {
        r->name = tfn__strdup(&r->alloc, name);
        if (!r->name)
            goto nomem;
    }
    r->zero_copy = io->kind == TFN__IO_MEM && r->compression != TFN_COMPRESSION_ZLIB &&
                   r->compression != TFN_COMPRESSION_GZIP;
    /* Memory that is not inflated needs no buffer, unless AUTO finds it compressed. */
    if (!r->zero_copy || r->compression == TFN_COMPRESSION_AUTO) {
        size_t cap = opts->buffer_size ? opts->buffer_size : DEFAULT_BUFFER;
        if (cap < MIN_BUFFER)
            cap = MIN_BUFFER;
        r->buf = (uint8_t *)tfn__malloc(&r->alloc, cap);
        if (!r->buf)
            goto nomem;
        r->buf_cap = cap;
    }
    if (r->zero_copy) {
        r->win = io->mem;
        r->win_len = io->mem_len;
    } else {
        r->win = r->buf;
    }
    if (compressed(r)) {
        int rc = start_inflater(r, 0, err);
        if (rc != TFN_OK) {
            tfn__free(&r->alloc, r->buf);
            tfn__free(&r->alloc, r->name);
            tfn__free(&r->alloc, r);
            return rc;
        }
    }
    *out = r;
    return TFN_OK;
nomem:
    tfn__free(&r->alloc, r->name);
    tfn__free(&r->alloc, r);
    return tfn__fail(err, TFN_E_NOMEM, "out of memory for a record reader");
}

int tfn_record_reader_open(const char *path, const tfn_record_reader_options *opts,
                           const tfn_alloc *alc, tfn_record_reader **out, tfn_error *err)
{
    if (!path || !out)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_reader_open: NULL argument");
    *out = NULL;
    tfn__io io;
    int rc = tfn__io_open_path(&io, path, false, err);
    if (rc != TFN_OK)
        return rc;
    rc = open_common(&io, path, opts, alc, out, err);
    if (rc != TFN_OK) {
        tfn__alloc a;
        tfn__alloc_init(&a, alc);
        (void)tfn__io_close(&io, &a, path, NULL);
    }
    return rc;
}

int tfn_record_reader_open_mem(const void *data, size_t len,
                               const tfn_record_reader_options *opts, const tfn_alloc *alc,
                               tfn_record_reader **out, tfn_error *err)
{
    if ((!data && len > 0) || !out)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_reader_open_mem: NULL argument");
    *out = NULL;
    tfn__io io;
    memset(&io, 0, sizeof io);
    io.kind = TFN__IO_MEM;
    io.fd = -1;
    io.mem = len ? (const uint8_t *)data : (const uint8_t *)"";
    io.mem_len = len;
    return open_common(&io, opts ? opts->name : NULL, opts, alc, out, err);
}

int tfn_record_reader_open_io(const tfn_io *cb, const tfn_record_reader_options *opts,
                              const tfn_alloc *alc, tfn_record_reader **out, tfn_error *err)
{
    if (!cb || !cb->read || !out)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "tfn_record_reader_open_io: NULL argument or no read function");
    *out = NULL;
    tfn__io io;
    memset(&io, 0, sizeof io);
    io.kind = TFN__IO_CB;
    io.fd = -1;
    io.cb = *cb;
    return open_common(&io, opts ? opts->name : NULL, opts, alc, out, err);
}

int tfn_record_reader_next(tfn_record_reader *r, const uint8_t **data, size_t *len,
                           tfn_error *err)
{
    if (!r || !data || !len)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_reader_next: NULL argument");
    size_t frame;
    int rc = read_one(r, true, data, len, &frame, err);
    if (rc == TFN_OK)
        commit(r, frame);
    return rc;
}

int tfn__record_reader_next_exact(tfn_record_reader *r, const uint8_t **data, size_t *len,
                                  tfn_error *err)
{
    size_t frame;
    int rc = read_one(r, false, data, len, &frame, err);
    if (rc == TFN_OK)
        commit(r, frame);
    return rc;
}

int tfn_record_reader_next_batch(tfn_record_reader *r, tfn_bytes *views, size_t max, size_t *n,
                                 tfn_error *err)
{
    if (!r || !n || (!views && max > 0))
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_reader_next_batch: NULL argument");
    *n = 0;
    if (max == 0)
        return TFN_OK;
    /* Start with as full a window as one read gives, so that many records fit; once
     * the first view is handed out the window must not move. A failing read is left
     * for read_one() to meet when it really needs those bytes: records already in the
     * window come first, as with tfn_record_reader_next(). */
    if (!r->zero_copy && r->compression != TFN_COMPRESSION_AUTO &&
        r->win_len - r->pos < r->buf_cap / 2)
        (void)top_up(r, NULL);
    const uint8_t *p;
    size_t len, frame;
    int rc = read_one(r, true, &p, &len, &frame, err);
    if (rc != TFN_OK)
        return rc;
    commit(r, frame);
    views[0].data = p;
    views[0].len = len;
    size_t k = 1;
    while (k < max) {
        int where;
        /* A failure here is met again, with its message, by the next call. */
        if (peek(r, false, true, &p, &len, &frame, &where, NULL) != TFN_OK)
            break;
        commit(r, frame);
        views[k].data = p;
        views[k].len = len;
        k++;
    }
    *n = k;
    return TFN_OK;
}

int tfn_record_reader_read_into(tfn_record_reader *r, void *dst, size_t cap, uint64_t *offsets,
                                size_t max, size_t *n, size_t *written, tfn_error *err)
{
    if (!r || !n || !written || !offsets || (!dst && cap > 0))
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_reader_read_into: NULL argument");
    *n = 0;
    *written = 0;
    offsets[0] = 0;
    size_t used = 0, k = 0;
    while (k < max) {
        const uint8_t *p;
        size_t len, frame;
        /* After the first record an error (or damage to skip) is left for the next
         * call. */
        int rc = read_one(r, k == 0, &p, &len, &frame, k == 0 ? err : NULL);
        if (rc != TFN_OK) {
            if (k > 0)
                break;
            return rc;
        }
        if (len > cap - used) {
            if (k > 0)
                break;
            *written = len;
            return tfn__fail_at(err, TFN_E_BUF_TOO_SMALL, r->offset, r->index,
                                "record %" PRIu64 " has %zu bytes, the buffer %zu", r->index,
                                len, cap);
        }
        if (len > 0)
            memcpy((uint8_t *)dst + used, p, len);
        used += len;
        commit(r, frame);
        offsets[++k] = used;
    }
    *n = k;
    *written = used;
    return k > 0 || max == 0 ? TFN_OK : TFN_END;
}

int tfn_record_reader_peek(tfn_record_reader *r, size_t *len, tfn_error *err)
{
    if (!r || !len)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_reader_peek: NULL argument");
    r->peeked = false;
    const uint8_t *data;
    size_t n, frame;
    /* Raise policy: the payload CRC waits for take(), which computes it while copying.
     * Skip policy: damage must be found here, where it can still be skipped. */
    bool defer = r->on_damage == TFN_ON_DAMAGE_RAISE && r->verify_payload;
    int rc;
    if (defer) {
        int where;
        rc = peek(r, true, false, &data, &n, &frame, &where, err);
        if (rc < 0)
            tfn__rec_context(err, r->name, r->index);
    } else {
        rc = read_one(r, true, &data, &n, &frame, err);
    }
    if (rc != TFN_OK)
        return rc;
    r->peeked = true;
    r->peek_checked = !defer;
    r->peek_offset = r->offset;
    r->peek_len = n;
    r->peek_frame = frame;
    *len = n;
    return TFN_OK;
}

int tfn_record_reader_take(tfn_record_reader *r, void *dst, size_t cap, size_t *len,
                           tfn_error *err)
{
    if (!r || !len || (!dst && cap > 0))
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_reader_take: NULL argument");
    if (!r->peeked || r->peek_offset != r->offset || r->win_len - r->pos < r->peek_frame) {
        int rc = tfn_record_reader_peek(r, len, err);
        if (rc != TFN_OK)
            return rc;
    }
    size_t n = r->peek_len;
    *len = n;
    if (n > cap) {
        int rc = tfn__fail_at(err, TFN_E_BUF_TOO_SMALL, r->offset, r->index,
                              "record %" PRIu64 " has %zu bytes, the buffer %zu", r->index, n,
                              cap);
        tfn__rec_context(err, r->name, r->index);
        return rc;
    }
    const uint8_t *body = r->win + r->pos + TFN__REC_HEADER;
    if (r->peek_checked) {
        if (n > 0)
            memcpy(dst, body, n);
    } else {
        uint32_t crc = n > 0 ? tfn__crc32c_copy(0, dst, body, n) : 0;
        if (tfn_crc32c_mask(crc) != tfn__load_le32(body + n)) {
            r->peeked = false;
            int rc = payload_damage(r, err);
            tfn__rec_context(err, r->name, r->index);
            return rc;
        }
    }
    r->peeked = false;
    commit(r, r->peek_frame);
    return TFN_OK;
}

uint64_t tfn_record_reader_offset(const tfn_record_reader *r)
{
    return r ? r->offset : 0;
}

uint64_t tfn_record_reader_index(const tfn_record_reader *r)
{
    return r ? r->index : 0;
}

void tfn_record_reader_skipped(const tfn_record_reader *r, uint64_t *records, uint64_t *bytes)
{
    if (records)
        *records = r ? r->skipped_records : 0;
    if (bytes)
        *bytes = r ? r->skipped_bytes : 0;
}

void tfn_record_reader_last_skip(const tfn_record_reader *r, tfn_record_skip *out)
{
    if (!out)
        return;
    if (r && r->skipped_records > 0)
        *out = r->last_skip;
    else
        memset(out, 0, sizeof *out);
}

int tfn_record_reader_compression(const tfn_record_reader *r)
{
    return r ? r->compression : TFN_COMPRESSION_NONE;
}

int tfn_record_reader_seek(tfn_record_reader *r, uint64_t offset, uint64_t record_index,
                           tfn_error *err)
{
    if (!r)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_reader_seek: NULL reader");
    if (r->compression == TFN_COMPRESSION_AUTO) {
        int rc = detect(r, err);
        if (rc != TFN_OK)
            return rc;
    }
    if (compressed(r))
        return tfn__fail(err, TFN_E_INVALID_ARG, "cannot seek in a compressed TFRecord stream");
    if (r->zero_copy) {
        if (offset > r->win_len)
            return tfn__fail(err, TFN_E_INVALID_ARG,
                             "seek to %" PRIu64 " past the end of %zu bytes of memory", offset,
                             r->win_len);
        r->pos = (size_t)offset;
    } else {
        /* Inside the window already: no I/O. */
        uint64_t base = r->offset - r->pos;
        if (offset >= base && offset - base <= r->win_len) {
            r->pos = (size_t)(offset - base);
        } else {
            int rc = tfn__io_seek(&r->io, offset, r->name, err);
            if (rc != TFN_OK)
                return rc;
            r->pos = r->win_len = 0;
        }
    }
    r->offset = offset;
    r->index = record_index;
    return TFN_OK;
}

void tfn_record_reader_free(tfn_record_reader *r)
{
    if (!r)
        return;
    if (r->inf.ready || r->inf.in)
        tfn__inflater_free(&r->inf);
    (void)tfn__io_close(&r->io, &r->alloc, r->name, NULL);
    tfn__free(&r->alloc, r->buf);
    tfn__free(&r->alloc, r->name);
    tfn__free(&r->alloc, r);
}

/* record_index.c - (offset, framed length) of every record of an uncompressed
 * TFRecord file, in the text format of DALI's tfrecord2idx and the `tfrecord` PyPI
 * package: one "offset length\n" line per record. */
#define _POSIX_C_SOURCE 200809L
#include "record_internal.h"

#include <inttypes.h>

struct tfn_record_index {
    tfn__alloc alloc;
    uint64_t *pairs; /* offset, length, offset, length, ... */
    size_t n;
    size_t cap; /* in pairs */
};

static tfn_record_index *index_new(const tfn_alloc *alc)
{
    tfn__alloc a;
    tfn__alloc_init(&a, alc);
    tfn_record_index *idx = (tfn_record_index *)tfn__malloc(&a, sizeof *idx);
    if (idx) {
        memset(idx, 0, sizeof *idx);
        idx->alloc = a;
    }
    return idx;
}

static bool index_push(tfn_record_index *idx, uint64_t offset, uint64_t length)
{
    if (idx->n == idx->cap &&
        !tfn__grow(&idx->alloc, (void **)&idx->pairs, &idx->cap, idx->n + 1, 2 * sizeof(uint64_t)))
        return false;
    idx->pairs[2 * idx->n] = offset;
    idx->pairs[2 * idx->n + 1] = length;
    idx->n++;
    return true;
}

void tfn_record_index_free(tfn_record_index *idx)
{
    if (!idx)
        return;
    tfn__free(&idx->alloc, idx->pairs);
    tfn__free(&idx->alloc, idx);
}

int tfn_record_index_build(tfn_record_reader *r, const tfn_alloc *alc, tfn_record_index **out,
                           tfn_error *err)
{
    if (!r || !out)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_index_build: NULL argument");
    *out = NULL;
    const uint8_t *data;
    size_t len;
    tfn_record_index *idx = index_new(alc);
    if (!idx)
        return tfn__fail(err, TFN_E_NOMEM, "out of memory for a record index");
    for (;;) {
        int rc = tfn_record_reader_next(r, &data, &len, err);
        int c = tfn_record_reader_compression(r);
        if (c == TFN_COMPRESSION_ZLIB || c == TFN_COMPRESSION_GZIP) {
            tfn_record_index_free(idx);
            return tfn__fail(err, TFN_E_INVALID_ARG,
                             "an index needs an uncompressed TFRecord file");
        }
        if (rc == TFN_END)
            break;
        if (rc != TFN_OK) {
            tfn_record_index_free(idx);
            return rc;
        }
        /* The reader stands just after the record (skipped damage is before it). */
        uint64_t frame = (uint64_t)len + TFN__REC_OVERHEAD;
        if (!index_push(idx, tfn_record_reader_offset(r) - frame, frame)) {
            tfn_record_index_free(idx);
            return tfn__fail(err, TFN_E_NOMEM, "out of memory for a record index");
        }
    }
    *out = idx;
    return TFN_OK;
}

/* Parses one unsigned decimal number at *p; false when there is none or it
 * overflows. */
static bool parse_u64(const char **p, const char *end, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    if (s == end || *s < '0' || *s > '9')
        return false;
    while (s < end && *s >= '0' && *s <= '9') {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
        s++;
    }
    *p = s;
    *out = v;
    return true;
}

static void skip_blanks(const char **p, const char *end)
{
    while (*p < end && (**p == ' ' || **p == '\t' || **p == '\r'))
        (*p)++;
}

int tfn_record_index_parse(const void *text, size_t len, const tfn_alloc *alc,
                           tfn_record_index **out, tfn_error *err)
{
    if ((!text && len > 0) || !out)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_index_parse: NULL argument");
    *out = NULL;
    tfn_record_index *idx = index_new(alc);
    if (!idx)
        return tfn__fail(err, TFN_E_NOMEM, "out of memory for a record index");
    const char *p = (const char *)text, *end = p + len;
    uint64_t line = 1;
    while (p < end) {
        skip_blanks(&p, end);
        if (p < end && *p == '\n') {
            p++;
            line++;
            continue;
        }
        if (p == end)
            break;
        uint64_t off, n;
        bool ok = parse_u64(&p, end, &off);
        const char *gap = p;
        skip_blanks(&p, end);
        ok = ok && p > gap && parse_u64(&p, end, &n);
        skip_blanks(&p, end);
        ok = ok && (p == end || *p == '\n');
        if (!ok) {
            tfn_record_index_free(idx);
            return tfn__fail_at(err, TFN_E_CORRUPT, (uint64_t)(p - (const char *)text), line - 1,
                                "index line %" PRIu64 ": expected \"offset length\"", line);
        }
        if (!index_push(idx, off, n)) {
            tfn_record_index_free(idx);
            return tfn__fail(err, TFN_E_NOMEM, "out of memory for a record index");
        }
    }
    *out = idx;
    return TFN_OK;
}

int tfn_record_index_load(const char *path, const tfn_alloc *alc, tfn_record_index **out,
                          tfn_error *err)
{
    if (!path || !out)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_index_load: NULL argument");
    *out = NULL;
    tfn__alloc a;
    tfn__alloc_init(&a, alc);
    tfn__io io;
    int rc = tfn__io_open_path(&io, path, false, err);
    if (rc != TFN_OK)
        return rc;
    uint8_t *text = NULL;
    size_t used = 0, cap = 0;
    for (;;) {
        if (cap - used < 4096 && !tfn__grow(&a, (void **)&text, &cap, used + 65536, 1)) {
            rc = tfn__fail(err, TFN_E_NOMEM, "out of memory reading %s", path);
            break;
        }
        size_t got;
        rc = tfn__io_read(&io, text + used, cap - used, &got, path, err);
        if (rc != TFN_OK || got == 0)
            break;
        used += got;
    }
    (void)tfn__io_close(&io, &a, path, NULL);
    if (rc == TFN_OK)
        rc = tfn_record_index_parse(text, used, alc, out, err);
    tfn__free(&a, text);
    return rc;
}

/* Decimal digits of v. */
static size_t digits(uint64_t v)
{
    size_t n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

static char *put_u64(char *p, uint64_t v)
{
    size_t n = digits(v);
    for (size_t i = n; i > 0; i--) {
        p[i - 1] = (char)('0' + v % 10);
        v /= 10;
    }
    return p + n;
}

int tfn_record_index_format(const tfn_record_index *idx, void *dst, size_t cap, size_t *written,
                            tfn_error *err)
{
    if (!idx || !written || (!dst && cap > 0))
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_index_format: NULL argument");
    size_t need = 0;
    for (size_t i = 0; i < idx->n; i++) {
        /* Each line is at most 20 + 1 + 20 + 1 bytes: no overflow before SIZE_MAX/42. */
        if (need > SIZE_MAX - 42)
            return tfn__fail(err, TFN_E_LIMIT, "index text too large");
        need += digits(idx->pairs[2 * i]) + digits(idx->pairs[2 * i + 1]) + 2;
    }
    *written = need;
    if (cap < need)
        return tfn__fail(err, TFN_E_BUF_TOO_SMALL, "index text needs %zu bytes, buffer has %zu",
                         need, cap);
    char *p = (char *)dst;
    for (size_t i = 0; i < idx->n; i++) {
        p = put_u64(p, idx->pairs[2 * i]);
        *p++ = ' ';
        p = put_u64(p, idx->pairs[2 * i + 1]);
        *p++ = '\n';
    }
    return TFN_OK;
}

int tfn_record_index_save(const tfn_record_index *idx, const char *path, tfn_error *err)
{
    if (!idx || !path)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_index_save: NULL argument");
    size_t need;
    int rc = tfn_record_index_format(idx, NULL, 0, &need, NULL);
    if (rc != TFN_OK && rc != TFN_E_BUF_TOO_SMALL)
        return tfn_record_index_format(idx, NULL, 0, &need, err);
    char *text = (char *)tfn__malloc(&idx->alloc, need ? need : 1);
    if (!text)
        return tfn__fail(err, TFN_E_NOMEM, "out of memory for %zu bytes of index text", need);
    rc = tfn_record_index_format(idx, text, need, &need, err);
    tfn__io io;
    if (rc == TFN_OK)
        rc = tfn__io_open_path(&io, path, true, err);
    if (rc == TFN_OK) {
        rc = tfn__io_write(&io, &idx->alloc, text, need, path, err);
        int rc2 = tfn__io_close(&io, &idx->alloc, path, rc == TFN_OK ? err : NULL);
        if (rc == TFN_OK)
            rc = rc2;
    }
    tfn__free(&idx->alloc, text);
    return rc;
}

uint64_t tfn_record_index_count(const tfn_record_index *idx)
{
    return idx ? idx->n : 0;
}

int tfn_record_index_at(const tfn_record_index *idx, uint64_t i, uint64_t *offset,
                        uint64_t *length)
{
    if (!idx || i >= idx->n)
        return TFN_E_INVALID_ARG;
    if (offset)
        *offset = idx->pairs[2 * i];
    if (length)
        *length = idx->pairs[2 * i + 1];
    return TFN_OK;
}

int tfn_record_index_read(const tfn_record_index *idx, tfn_record_reader *r, uint64_t i,
                          const uint8_t **data, size_t *len, tfn_error *err)
{
    if (!idx || !r || !data || !len)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_index_read: NULL argument");
    if (i >= idx->n)
        return tfn__fail(err, TFN_E_INVALID_ARG, "record %" PRIu64 " is out of range: the "
                                                 "index has %zu records", i, idx->n);
    uint64_t offset = idx->pairs[2 * i], frame = idx->pairs[2 * i + 1];
    int rc = tfn_record_reader_seek(r, offset, i, err);
    if (rc != TFN_OK)
        return rc;
    /* Exactly the record at that offset, in either damage policy: a damaged record is
     * an error for number i, never the bytes of a later record. */
    rc = tfn__record_reader_next_exact(r, data, len, err);
    if (rc == TFN_OK && (uint64_t)*len + TFN__REC_OVERHEAD != frame) {
        /* Stay at record i: the next call reads it again, as after any error. */
        (void)tfn_record_reader_seek(r, offset, i, NULL);
        return tfn__fail_at(err, TFN_E_DATA_LOSS, offset, i,
                            "record %" PRIu64 " at %" PRIu64 ": the index says %" PRIu64
                            " bytes, the file holds a record of %zu",
                            i, offset, frame, *len + TFN__REC_OVERHEAD);
    }
    return rc;
}

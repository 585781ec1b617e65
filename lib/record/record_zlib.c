/* record_zlib.c - the inflating side of compressed TFRecord streams (the deflating
 * side lives in record_writer.c), and zlib's allocator hooks. */
#include "record_internal.h"

#include <inttypes.h>

#include <limits.h>

voidpf tfn__zalloc(voidpf opaque, uInt items, uInt size)
{
    size_t n;
    if (!tfn__mul_size(items, size, &n))
        return Z_NULL;
    return tfn__malloc((const tfn__alloc *)opaque, n);
}

void tfn__zfree(voidpf opaque, voidpf p)
{
    tfn__free((const tfn__alloc *)opaque, p);
}

int tfn__inflater_init(tfn__inflater *inf, const tfn__alloc *alloc, bool gzip, size_t in_cap,
                       tfn_error *err)
{
    memset(inf, 0, sizeof *inf);
    inf->alloc = alloc;
    inf->gzip = gzip;
    if (in_cap > UINT_MAX)
        in_cap = UINT_MAX;
    inf->in = (uint8_t *)tfn__malloc(alloc, in_cap);
    if (!inf->in)
        return tfn__fail(err, TFN_E_NOMEM, "out of memory for a %zu-byte input buffer", in_cap);
    inf->in_cap = in_cap;
    inf->zs.zalloc = tfn__zalloc;
    inf->zs.zfree = tfn__zfree;
    inf->zs.opaque = (voidpf)(uintptr_t)alloc; /* only read back as const */
    /* TensorFlow: window bits 15 for ZLIB, 15 + 16 (gzip only, no auto-detection)
     * for GZIP. */
    int rc = inflateInit2(&inf->zs, gzip ? MAX_WBITS + 16 : MAX_WBITS);
    if (rc != Z_OK) {
        tfn__free(alloc, inf->in);
        inf->in = NULL;
        return tfn__fail(err, rc == Z_MEM_ERROR ? TFN_E_NOMEM : TFN_E_INVALID_ARG,
                         "inflateInit2() failed with error %d", rc);
    }
    inf->ready = true;
    return TFN_OK;
}

void tfn__inflater_preload(tfn__inflater *inf, const uint8_t *data, size_t n)
{
    if (n > inf->in_cap)
        n = inf->in_cap;
    memcpy(inf->in, data, n);
    inf->zs.next_in = inf->in;
    inf->zs.avail_in = (uInt)n;
}

/* TensorFlow's text, then where in the compressed input inflate() stopped (the
 * reader adds the record and its offset in the inflated stream). */
static int inflate_failure(const tfn__inflater *inf, int rc, tfn_error *err)
{
    return tfn__fail(err, TFN_E_DATA_LOSS,
                     "inflate() failed with error %d: %s; compressed offset %" PRIu64, rc,
                     inf->zs.msg ? inf->zs.msg : "unknown error",
                     inf->in_base + (uint64_t)inf->zs.total_in);
}

int tfn__inflater_read(tfn__inflater *inf, tfn__io *io, uint8_t *dst, size_t cap, size_t *got,
                       const char *name, tfn_error *err)
{
    *got = 0;
    if (inf->failed)
        return inflate_failure(inf, inf->failed, err);
    if (cap > UINT_MAX)
        cap = UINT_MAX;
    while (*got == 0 && cap > 0) {
        bool input_ended = false;
        if (inf->zs.avail_in == 0) {
            size_t n;
            int rc = tfn__io_read(io, inf->in, inf->in_cap, &n, name, err);
            if (rc != TFN_OK)
                return rc;
            inf->zs.next_in = inf->in;
            inf->zs.avail_in = (uInt)n;
            input_ended = n == 0;
        }
        if (inf->ended) {
            if (input_ended)
                return TFN_OK;
            /* ZLIB: what follows the end of the stream is not read. */
            inf->zs.avail_in = 0;
            continue;
        }
        /* Called even when the input has ended: zlib may still hold output of input
         * it has already consumed (the rest of a match cut by a full buffer). */
        inf->zs.next_out = dst;
        inf->zs.avail_out = (uInt)cap;
        int rc = inflate(&inf->zs, Z_NO_FLUSH);
        *got = cap - inf->zs.avail_out;
        if (input_ended && *got == 0 && (rc == Z_OK || rc == Z_BUF_ERROR))
            return TFN_OK; /* compressed input ended: so does the stream */
        if (rc == Z_STREAM_END) {
            if (inf->gzip) {
                inf->in_base += inf->zs.total_in;
                (void)inflateReset(&inf->zs); /* the next gzip member, if any */
            }
            else
                inf->ended = true;
        } else if (rc == Z_BUF_ERROR) {
            /* No progress possible without more input: loop and read. */
        } else if (rc != Z_OK) {
            inf->failed = rc;
            /* With keep_before_error, the bytes decoded before the damage come first;
             * the next call reports the error. */
            if (inf->keep_before_error && *got > 0)
                return TFN_OK;
            *got = 0;
            return inflate_failure(inf, rc, err);
        }
    }
    return TFN_OK;
}

void tfn__inflater_free(tfn__inflater *inf)
{
    if (inf->ready)
        (void)inflateEnd(&inf->zs);
    inf->ready = false;
    if (inf->in)
        tfn__free(inf->alloc, inf->in);
    inf->in = NULL;
}

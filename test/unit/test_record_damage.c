/* test_record_damage.c - damaged TFRecord streams: a flipped byte, a truncation, a
 * garbage tail, a deleted or inserted byte at every position of a small file, read
 * from memory (zero-copy) and through a small buffer; with the RAISE policy the good
 * records before the damage come back and the error is TensorFlow's; with SKIP every
 * good record before and after comes back and the skipped bytes are counted.
 * Compressed streams with damage never crash and never return a wrong record. */
#include "harness.h"
#include "test_record_util.h"

#include <inttypes.h>
#include <stdbool.h>

enum { NREC = 6 };
static const size_t rec_lens[NREC] = {5, 0, 30, 12, 1, 40};
static size_t rec_start[NREC + 1]; /* frame offsets; rec_start[NREC] = file size */

static void make_payload(uint8_t *p, size_t n, size_t i)
{
    for (size_t k = 0; k < n; k++)
        p[k] = (uint8_t)(0x41 + (i * 7 + k * 13) % 50);
}

static void make_file(tbuf *b)
{
    memset(b, 0, sizeof *b);
    uint8_t tmp[64];
    for (size_t i = 0; i < NREC; i++) {
        rec_start[i] = b->n;
        make_payload(tmp, rec_lens[i], i);
        tbuf_frame(b, tmp, rec_lens[i]);
    }
    rec_start[NREC] = b->n;
}

/* Which original record a payload is (or -1). */
static int which(const uint8_t *p, size_t n)
{
    uint8_t tmp[64];
    for (size_t i = 0; i < NREC; i++) {
        if (rec_lens[i] != n)
            continue;
        make_payload(tmp, n, i);
        if (n == 0 || memcmp(tmp, p, n) == 0)
            return (int)i;
    }
    return -1;
}

/* The next record through tfn_record_reader_peek + take (odd calls) or take alone
 * (even calls), copied to buf (64 bytes: every record of these files fits). */
static int take_next(tfn_record_reader *r, uint8_t *buf, size_t *n, size_t call, tfn_error *err)
{
    if (call % 2) {
        size_t len;
        int rc = tfn_record_reader_peek(r, &len, err);
        if (rc != TFN_OK)
            return rc;
        rc = tfn_record_reader_take(r, buf, 64, n, err);
        return rc == TFN_OK && *n != len ? -1000 : rc; /* -1000: a length that changed */
    }
    return tfn_record_reader_take(r, buf, 64, n, err);
}

/* Reads `data` with the given policy, via memory (mode & 1 == 0) or callbacks with a
 * 64-byte buffer (mode & 1), with tfn_record_reader_next (mode & 2 == 0) or peek + take
 * (mode & 2); records the original index of each record returned. */
typedef struct outcome {
    int got[64];
    size_t count;
    int rc;
    tfn_error err;
    uint64_t skipped, skipped_bytes;
    int unknown; /* records that are none of the originals */
} outcome;

static void read_stream(const uint8_t *data, size_t len, int compression, int skip, int mode,
                        outcome *o)
{
    memset(o, 0, sizeof *o);
    tfn_record_reader_options opt;
    tfn_record_reader_options_init(&opt);
    opt.compression = compression;
    opt.on_damage = skip ? TFN_ON_DAMAGE_SKIP : TFN_ON_DAMAGE_RAISE;
    tfn_record_reader *r = NULL;
    /* Through callbacks with a tiny buffer: the refilling window. */
    chunked_src src = {data, len, 0, 9};
    tfn_io io = {chunked_read, NULL, NULL, NULL, NULL, &src};
    if ((mode & 1) == 0) {
        o->rc = tfn_record_reader_open_mem(data, len, &opt, NULL, &r, &o->err);
    } else {
        opt.buffer_size = 64;
        o->rc = tfn_record_reader_open_io(&io, &opt, NULL, &r, &o->err);
    }
    if (o->rc != TFN_OK)
        return;
    const uint8_t *p;
    size_t n;
    uint8_t copy[64];
    while ((o->rc = mode & 2 ? take_next(r, copy, &n, o->count, &o->err)
                             : tfn_record_reader_next(r, &p, &n, &o->err)) == TFN_OK) {
        if (mode & 2)
            p = copy;
        int w = which(p, n);
        if (w < 0)
            o->unknown++;
        if (o->count < 64)
            o->got[o->count] = w;
        o->count++;
        if (o->count > 200)
            break; /* a reader that loops would be a failure */
    }
    tfn_record_reader_skipped(r, &o->skipped, &o->skipped_bytes);
    tfn_record_reader_free(r);
}

/* Record containing byte position pos. */
static size_t rec_of(size_t pos)
{
    size_t k = 0;
    while (k + 1 < NREC && rec_start[k + 1] <= pos)
        k++;
    return k;
}

static bool got_prefix(const outcome *o, size_t n)
{
    if (o->count != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (o->got[i] != (int)i)
            return false;
    return true;
}

static bool got_all_but(const outcome *o, size_t k)
{
    if (o->count != NREC - 1)
        return false;
    size_t j = 0;
    for (size_t i = 0; i < NREC; i++) {
        if (i == k)
            continue;
        if (o->got[j++] != (int)i)
            return false;
    }
    return true;
}

static void test_flip_every_byte(void)
{
    tbuf b;
    make_file(&b);
    int bad = 0;
    for (int mode = 0; mode < 4; mode++) {
        for (size_t pos = 0; pos < b.n; pos++) {
            b.p[pos] ^= 0x5a;
            size_t k = rec_of(pos);
            size_t in = pos - rec_start[k];
            outcome o;
            read_stream(b.p, b.n, TFN_COMPRESSION_NONE, 0, mode, &o);
            char exp[128];
            if (in < 12) {
                if (rec_start[k] == 0)
                    snprintf(exp, sizeof exp,
                             "corrupted record at 0 (Is this even a TFRecord file?); record 0");
                else
                    snprintf(exp, sizeof exp, "corrupted record at %zu; record %zu", rec_start[k],
                             k);
            } else {
                snprintf(exp, sizeof exp, "corrupted record at %zu; record %zu",
                         rec_start[k] + 12, k);
            }
            int code = in < 12 ? TFN_E_DATA_LOSS_LENGTH : TFN_E_DATA_LOSS;
            if (!got_prefix(&o, k) || o.rc != code || strcmp(o.err.msg, exp) != 0 ||
                o.err.record_index != k) {
                bad++;
                fprintf(stderr, "  flip %zu (mode %d): %zu records, rc %d, '%s'\n", pos, mode,
                        o.count, o.rc, o.err.msg);
            }
            read_stream(b.p, b.n, TFN_COMPRESSION_NONE, 1, mode, &o);
            uint64_t frame = rec_start[k + 1] - rec_start[k];
            if (!got_all_but(&o, k) || o.rc != TFN_END || o.skipped != 1 ||
                o.skipped_bytes != frame) {
                bad++;
                fprintf(stderr, "  skip flip %zu (mode %d): %zu records, rc %d, skipped %" PRIu64
                                "/%" PRIu64 "\n",
                        pos, mode, o.count, o.rc, o.skipped, o.skipped_bytes);
            }
            b.p[pos] ^= 0x5a;
        }
    }
    CHECK_EQ_INT(bad, 0);
    tbuf_free(&b);
}

static void test_truncate_every_length(void)
{
    tbuf b;
    make_file(&b);
    int bad = 0;
    for (int mode = 0; mode < 4; mode++) {
        for (int skip = 0; skip < 2; skip++) {
            for (size_t len = 0; len <= b.n; len++) {
                outcome o;
                read_stream(b.p, len, TFN_COMPRESSION_NONE, skip, mode, &o);
                size_t whole = 0;
                while (whole < NREC && rec_start[whole + 1] <= len)
                    whole++;
                size_t partial = len - rec_start[whole];
                bool ok = got_prefix(&o, whole);
                if (partial < 12) {
                    ok = ok && o.rc == TFN_END;
                } else {
                    char exp[160];
                    snprintf(exp, sizeof exp,
                             "truncated record at %zu' failed with Read less bytes than "
                             "requested; record %zu",
                             rec_start[whole], whole);
                    ok = ok && o.rc == TFN_E_TRUNCATED && strcmp(o.err.msg, exp) == 0 &&
                         o.err.offset == rec_start[whole];
                }
                ok = ok && o.skipped == 0;
                if (!ok) {
                    bad++;
                    fprintf(stderr, "  truncate %zu (mode %d skip %d): %zu records, rc %d '%s'\n",
                            len, mode, skip, o.count, o.rc, o.err.msg);
                }
            }
        }
    }
    CHECK_EQ_INT(bad, 0);
    tbuf_free(&b);
}

static void test_garbage_tail(void)
{
    tbuf b;
    make_file(&b);
    size_t base = b.n;
    uint32_t s = 7;
    int bad = 0;
    for (size_t extra = 1; extra <= 80; extra++) {
        b.n = base;
        for (size_t i = 0; i < extra; i++) {
            s = s * 1103515245u + 12345u;
            uint8_t g = (uint8_t)(s >> 16);
            tbuf_put(&b, &g, 1);
        }
        for (int mode = 0; mode < 4; mode++) {
            outcome o;
            read_stream(b.p, b.n, TFN_COMPRESSION_NONE, 0, mode, &o);
            bool ok = got_prefix(&o, NREC);
            if (extra < 12) {
                ok = ok && o.rc == TFN_END;
            } else {
                char exp[96];
                snprintf(exp, sizeof exp, "corrupted record at %zu; record %d", base, NREC);
                ok = ok && o.rc == TFN_E_DATA_LOSS_LENGTH && strcmp(o.err.msg, exp) == 0;
            }
            read_stream(b.p, b.n, TFN_COMPRESSION_NONE, 1, mode, &o);
            ok = ok && got_prefix(&o, NREC) && o.rc == TFN_END;
            ok = ok && o.skipped == (extra < 12 ? 0u : 1u) &&
                 o.skipped_bytes == (extra < 12 ? 0u : extra);
            if (!ok) {
                bad++;
                fprintf(stderr, "  garbage %zu (mode %d): %zu records, rc %d '%s'\n", extra, mode,
                        o.count, o.rc, o.err.msg);
            }
        }
    }
    CHECK_EQ_INT(bad, 0);
    tbuf_free(&b);
}

/* A byte lost or added (the CRLF damage of the interop corpus): with SKIP, every
 * other record comes back. */
static void test_delete_insert_every_byte(void)
{
    tbuf b;
    make_file(&b);
    int bad = 0;
    uint8_t *d = (uint8_t *)malloc(b.n + 1);
    REQUIRE(d != NULL);
    for (int ins = 0; ins < 2; ins++) {
        for (size_t pos = 0; pos < b.n; pos++) {
            size_t n;
            if (ins) {
                memcpy(d, b.p, pos);
                d[pos] = 0x0d;
                memcpy(d + pos + 1, b.p + pos, b.n - pos);
                n = b.n + 1;
            } else {
                memcpy(d, b.p, pos);
                memcpy(d + pos, b.p + pos + 1, b.n - pos - 1);
                n = b.n - 1;
            }
            size_t k = rec_of(pos);
            for (int mode = 0; mode < 4; mode++) {
                outcome o;
                read_stream(d, n, TFN_COMPRESSION_NONE, 0, mode, &o);
                /* RAISE: exactly the records before, then an error (a deletion in the
                 * last record may look like a truncation) */
                bool ok = got_prefix(&o, k) && o.rc < 0 && o.unknown == 0;
                read_stream(d, n, TFN_COMPRESSION_NONE, 1, mode, &o);
                if (k == NREC - 1 && !ins)
                    ok = ok && got_prefix(&o, k); /* the last record is cut short */
                else if (ins && pos == rec_start[k])
                    ok = ok && got_prefix(&o, NREC) && o.skipped == 1 && o.skipped_bytes == 1;
                else
                    ok = ok && got_all_but(&o, k) && o.rc == TFN_END && o.skipped == 1;
                if (!ok) {
                    bad++;
                    fprintf(stderr, "  %s %zu (mode %d): %zu records, rc %d\n",
                            ins ? "insert" : "delete", pos, mode, o.count, o.rc);
                }
            }
        }
    }
    CHECK_EQ_INT(bad, 0);
    free(d);
    tbuf_free(&b);
}

/* A torn record: record k cut after `cut` bytes of its frame (a writer that died or
 * failed mid-record), the records after it whole. RAISE returns the records before
 * and an error; SKIP returns every other record, one region of `cut` bytes skipped,
 * whether the torn record's length runs past the end of the file or not. */
static void test_torn_record_every_cut(void)
{
    tbuf b;
    make_file(&b);
    int bad = 0;
    uint8_t *d = (uint8_t *)malloc(b.n);
    REQUIRE(d != NULL);
    for (size_t k = 0; k + 1 < NREC; k++) {
        size_t frame = rec_start[k + 1] - rec_start[k];
        for (size_t cut = 1; cut < frame; cut++) {
            memcpy(d, b.p, rec_start[k] + cut);
            memcpy(d + rec_start[k] + cut, b.p + rec_start[k + 1], b.n - rec_start[k + 1]);
            size_t n = b.n - (frame - cut);
            for (int mode = 0; mode < 4; mode++) {
                outcome o;
                read_stream(d, n, TFN_COMPRESSION_NONE, 0, mode, &o);
                bool ok = got_prefix(&o, k) && o.rc < 0 && o.unknown == 0 &&
                          o.err.record_index == k;
                read_stream(d, n, TFN_COMPRESSION_NONE, 1, mode, &o);
                ok = ok && got_all_but(&o, k) && o.rc == TFN_END && o.skipped == 1 &&
                     o.skipped_bytes == cut;
                if (!ok) {
                    bad++;
                    fprintf(stderr, "  torn record %zu at %zu (mode %d): %zu records, rc %d, "
                                    "skipped %" PRIu64 "/%" PRIu64 "\n",
                            k, cut, mode, o.count, o.rc, o.skipped, o.skipped_bytes);
                }
            }
        }
    }
    CHECK_EQ_INT(bad, 0);
    free(d);
    tbuf_free(&b);
}

/* Compressed streams with a flipped byte or cut short at every position: no crash,
 * records come back in order and intact, errors are DATA_LOSS / TRUNCATED. */
static void test_compressed_damage(void)
{
    tbuf plain;
    make_file(&plain);
    int bad = 0;
    for (int c = TFN_COMPRESSION_ZLIB; c <= TFN_COMPRESSION_GZIP; c++) {
        tfn_record_writer_options wo;
        tfn_record_writer_options_init(&wo);
        wo.compression = c;
        tfn_record_writer *w;
        REQUIRE(tfn_record_writer_open_mem(&wo, NULL, &w, NULL) == TFN_OK);
        uint8_t tmp[64];
        for (size_t i = 0; i < NREC; i++) {
            make_payload(tmp, rec_lens[i], i);
            REQUIRE(tfn_record_writer_write(w, tmp, rec_lens[i], NULL) == TFN_OK);
            /* flush points let a truncated stream give back the earlier records */
            REQUIRE(tfn_record_writer_flush(w, NULL) == TFN_OK);
        }
        REQUIRE(tfn_record_writer_close(w, NULL) == TFN_OK);
        const uint8_t *z;
        size_t zn;
        tfn_record_writer_mem_data(w, &z, &zn);
        uint8_t *d = (uint8_t *)malloc(zn);
        REQUIRE(d != NULL);
        memcpy(d, z, zn);
        for (size_t pos = 0; pos <= zn; pos++) {
            for (int skip = 0; skip < 2; skip++) {
                outcome o;
                /* cut at pos */
                read_stream(d, pos, c, skip, 1, &o);
                bool ok = o.unknown == 0 && o.count <= NREC && got_prefix(&o, o.count);
                ok = ok && (o.rc == TFN_END || o.rc == TFN_E_TRUNCATED || o.rc == TFN_E_DATA_LOSS);
                if (pos == zn)
                    ok = ok && o.count == NREC && o.rc == TFN_END;
                if (o.rc == TFN_E_TRUNCATED)
                    ok = ok && strstr(o.err.msg, "' failed with EOF reached") != NULL;
                if (!ok) {
                    bad++;
                    fprintf(stderr, "  comp %d cut %zu: %zu records, rc %d '%s'\n", c, pos,
                            o.count, o.rc, o.err.msg);
                }
                if (pos == zn)
                    continue;
                d[pos] ^= 0x10;
                read_stream(d, zn, c, skip, skip, &o);
                /* With SKIP, inflated garbage may repeat an earlier record whole (deflate
                 * back-references): what comes back is intact, not necessarily new. */
                ok = o.unknown == 0 && o.count <= 2 * NREC && o.rc <= TFN_END;
                if (!skip)
                    ok = ok && got_prefix(&o, o.count);
                if (!ok) {
                    bad++;
                    fprintf(stderr, "  comp %d flip %zu skip %d: %zu records (%d %d %d %d %d %d) unknown %d, rc %d '%s'\n",
                            c, pos, skip, o.count, o.got[0], o.got[1], o.got[2], o.got[3], o.got[4], o.got[5], o.unknown, o.rc, o.err.msg);
                }
                d[pos] ^= 0x10;
            }
        }
        free(d);
        tfn_record_writer_free(w);
    }
    CHECK_EQ_INT(bad, 0);
    tbuf_free(&plain);
}

/* Random and mutated inputs (a small in-test fuzzer): in every mode and policy the
 * reader ends, its offset only grows and stays within the input, and every record
 * it returns from uncompressed memory is a view into the input whose stored CRCs
 * match. */
static void test_random_inputs(void)
{
    tbuf good;
    make_file(&good);
    uint32_t s = 12345;
    uint8_t buf[512];
    int bad = 0;
    for (int iter = 0; iter < 3000; iter++) {
        s = s * 1103515245u + 12345u;
        size_t n = (s >> 8) % sizeof buf;
        if (iter % 2 == 0 && n > good.n)
            n = good.n;
        for (size_t i = 0; i < n; i++) {
            s = s * 1103515245u + 12345u;
            buf[i] = iter % 2 == 0 ? good.p[i] : (uint8_t)(s >> 16);
        }
        for (int m = 0; m < 1 + (int)(s >> 28) % 4 && n > 0; m++) {
            s = s * 1103515245u + 12345u;
            buf[(s >> 8) % n] ^= (uint8_t)(1u << ((s >> 4) & 7));
        }
        for (int c = 0; c < 4; c++) {
            for (int skip = 0; skip < 2; skip++) {
                tfn_record_reader_options o;
                tfn_record_reader_options_init(&o);
                o.compression = c;
                o.on_damage = skip ? TFN_ON_DAMAGE_SKIP : TFN_ON_DAMAGE_RAISE;
                o.skip_payload_crc = (iter / 2) % 3 == 0;
                tfn_record_reader *r;
                if (tfn_record_reader_open_mem(buf, n, &o, NULL, &r, NULL) != TFN_OK) {
                    bad++;
                    continue;
                }
                uint64_t last = 0;
                const uint8_t *p;
                size_t len;
                int rc, k = 0;
                while ((rc = tfn_record_reader_next(r, &p, &len, NULL)) == TFN_OK && k++ < 600) {
                    uint64_t off = tfn_record_reader_offset(r);
                    if (off < last + 16)
                        bad++;
                    last = off;
                    if (c == TFN_COMPRESSION_NONE) {
                        if (p < buf + 12 || p + len + 4 > buf + n || off > n)
                            bad++;
                        else if (tfn_crc32c_mask(tfn_crc32c(0, p - 12, 8)) !=
                                     ((uint32_t)p[-4] | (uint32_t)p[-3] << 8 |
                                      (uint32_t)p[-2] << 16 | (uint32_t)p[-1] << 24))
                            bad++;
                    }
                }
                if (k > 600 || rc == TFN_OK || tfn_record_reader_offset(r) < last)
                    bad++;
                tfn_record_reader_free(r);
            }
        }
    }
    CHECK_EQ_INT(bad, 0);
    tbuf_free(&good);
}

int main(void)
{
    RUN(test_flip_every_byte);
    RUN(test_truncate_every_length);
    RUN(test_garbage_tail);
    RUN(test_delete_insert_every_byte);
    RUN(test_torn_record_every_cut);
    RUN(test_compressed_damage);
    RUN(test_random_inputs);
    return harness_finish();
}

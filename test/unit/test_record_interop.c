/* test_record_interop.c - the interop corpus (test/data/interop, relative to the
 * repository root) read by the C reader: record count, offsets, lengths and sha256
 * of every record against expected/<file>.expected.json, in the file's compression
 * and in AUTO; the CRLF-damaged file's outcome; and the text index (DALI /
 * `tfrecord` format) built, saved, loaded and used for direct reads. The corpus is
 * part of the repository: run from its root (make test-c does). */
#include "harness.h"
#include "test_record_util.h"

#include <inttypes.h>
#include <stdbool.h>

#define CORPUS "test/data/interop"

static const char *const files[] = {
    "tf_pytorchdata_example.tfrecord",
    "tf_pytorchdata_sequence_example.tfrecord",
    "tf_lingvo_wmt14_ende_wpm_32k_test.tfrecord",
    "tf_lingvo_events_out_tfevents.tfrecord",
    "tf_paxml_bert_pretraining_10.tfrecord",
    "tf_trax_tfds_squad_train_10.tfrecord",
    "tf_tfmodels_deeplab_voc_val_3_large_records.tfrecord",
    "tf_ydf_toy_gzip-00000-of-00002.tfrecord.gz",
    "tf_ydf_toy_nocompress-00000-of-00002.tfrecord",
    "tf_beam_golden_foo_bar.tfrecord",
    "beam_tfx_sequence_example_eval.tfrecord.gz",
    "beam_tfx_tfjs_next_page_gzip_fname.tfrecord.gz",
    "java_ecosystem_hadoop_part-m-00000.tfrecord",
    "corrupt_tfmodels_pets_examples_crlf_damaged.record",
    "derived_zlib_pytorchdata_example.tfrecord.zlib",
};
#define NFILES (sizeof files / sizeof files[0])

/* What the expected JSON says (its layout: top-level keys indented by 1 space,
 * record keys by 3). */
typedef struct expected {
    int compression;
    long long yielded;
    char all_sha[65];
    size_t n;           /* records listed */
    uint64_t *offsets;  /* offset_in_stream */
    uint64_t *lengths;
    char (*sha)[65];
} expected;

static bool corpus_present(void)
{
    char p[256];
    snprintf(p, sizeof p, CORPUS "/MANIFEST.md");
    FILE *f = fopen(p, "rb");
    if (!f)
        return false;
    fclose(f);
    return true;
}

static const char *line_value(const char *line, const char *key)
{
    size_t k = strlen(key);
    return strncmp(line, key, k) == 0 ? line + k : NULL;
}

static bool load_expected(const char *name, expected *e)
{
    memset(e, 0, sizeof *e);
    e->yielded = -1;
    char path[512];
    snprintf(path, sizeof path, CORPUS "/expected/%s.expected.json", name);
    size_t len;
    char *text = (char *)read_file(path, &len);
    if (!text)
        return false;
    text = (char *)realloc(text, len + 1);
    text[len] = '\0';
    size_t cap = 0;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        const char *v;
        if ((v = line_value(line, " \"compression\": \"")))
            e->compression = v[0] == 'G' ? TFN_COMPRESSION_GZIP
                             : v[0] == 'Z' ? TFN_COMPRESSION_ZLIB
                                           : TFN_COMPRESSION_NONE;
        else if ((v = line_value(line, " \"tf_yielded_record_count\": ")))
            e->yielded = atoll(v);
        else if ((v = line_value(line, " \"all_records_sha256\": \"")))
            memcpy(e->all_sha, v, 64);
        else if ((v = line_value(line, "   \"length\": "))) {
            if (e->n == cap) {
                cap = cap ? cap * 2 : 64;
                e->offsets = (uint64_t *)realloc(e->offsets, cap * sizeof *e->offsets);
                e->lengths = (uint64_t *)realloc(e->lengths, cap * sizeof *e->lengths);
                e->sha = (char(*)[65])realloc(e->sha, cap * sizeof *e->sha);
            }
            e->lengths[e->n] = (uint64_t)atoll(v);
            e->sha[e->n][0] = '\0';
            e->n++;
        } else if ((v = line_value(line, "   \"sha256\": \"")) && e->n > 0) {
            memcpy(e->sha[e->n - 1], v, 64);
            e->sha[e->n - 1][64] = '\0';
        } else if ((v = line_value(line, "   \"offset_in_stream\": ")) && e->n > 0) {
            e->offsets[e->n - 1] = (uint64_t)atoll(v);
        }
        line = nl ? nl + 1 : NULL;
    }
    free(text);
    return true;
}

static void free_expected(expected *e)
{
    free(e->offsets);
    free(e->lengths);
    free(e->sha);
}

/* Reads the whole file with one compression setting and checks it against e. */
static void check_file(const char *name, const expected *e, int compression, bool no_crc)
{
    char path[512];
    snprintf(path, sizeof path, CORPUS "/files/%s", name);
    tfn_record_reader_options o;
    tfn_record_reader_options_init(&o);
    o.compression = compression;
    o.skip_payload_crc = no_crc;
    tfn_record_reader *r;
    tfn_error err;
    REQUIRE(tfn_record_reader_open(path, &o, NULL, &r, &err) == TFN_OK);
    sha256_ctx all;
    sha256_init(&all);
    size_t count = 0;
    int bad = 0, rc;
    const uint8_t *p;
    size_t n;
    for (;;) {
        uint64_t off = tfn_record_reader_offset(r);
        rc = tfn_record_reader_next(r, &p, &n, &err);
        if (rc != TFN_OK)
            break;
        char hex[65];
        sha256_hex(p, n, hex);
        uint8_t digest[32];
        sha256_ctx one;
        sha256_init(&one);
        sha256_update(&one, p, n);
        sha256_final(&one, digest);
        sha256_update(&all, digest, 32);
        if (count >= e->n || e->offsets[count] != off || e->lengths[count] != n ||
            strcmp(e->sha[count], hex) != 0) {
            if (bad++ < 3)
                fprintf(stderr, "  %s record %zu: offset %" PRIu64 ", %zu bytes, %s\n", name,
                        count, off, n, hex);
        }
        count++;
    }
    CHECK_EQ_INT(bad, 0);
    if (strncmp(name, "corrupt_", 8) == 0) {
        /* TensorFlow: nothing comes back, "corrupted record at 12". Without the
         * payload check the first record is mis-framed and the next header fails. */
        if (!no_crc) {
            CHECK_EQ_INT(count, e->yielded);
            CHECK_EQ_INT(rc, TFN_E_DATA_LOSS);
            char exp[600];
            snprintf(exp, sizeof exp, "corrupted record at 12; file %s, record 0", path);
            CHECK_STR(err.msg, exp);
        } else {
            CHECK_EQ_INT(count, 1);
            CHECK_EQ_INT(rc, TFN_E_DATA_LOSS_LENGTH);
            CHECK_EQ_INT(err.offset, 18446);
            uint8_t d[32];
            char hex[65];
            sha256_final(&all, d);
            for (int i = 0; i < 32; i++)
                snprintf(hex + 2 * i, 3, "%02x", d[i]);
            CHECK_STR(hex, e->all_sha);
        }
    } else {
        CHECK_EQ_INT(rc, TFN_END);
        CHECK_EQ_INT(count, e->yielded);
        CHECK_EQ_INT(count, e->n);
        uint8_t d[32];
        char hex[65];
        sha256_final(&all, d);
        for (int i = 0; i < 32; i++)
            snprintf(hex + 2 * i, 3, "%02x", d[i]);
        CHECK_STR(hex, e->all_sha);
        if (compression == TFN_COMPRESSION_AUTO)
            CHECK_EQ_INT(tfn_record_reader_compression(r), e->compression);
    }
    tfn_record_reader_free(r);
}

static void test_corpus(void)
{
    REQUIRE(corpus_present()); /* CORPUS is relative: run from the repository root */
    for (size_t i = 0; i < NFILES; i++) {
        expected e;
        REQUIRE(load_expected(files[i], &e));
        CHECK(e.n > 0);
        check_file(files[i], &e, e.compression, false);
        check_file(files[i], &e, TFN_COMPRESSION_AUTO, false);
        if (strncmp(files[i], "corrupt_", 8) == 0)
            check_file(files[i], &e, TFN_COMPRESSION_NONE, true);
        free_expected(&e);
    }
}

/* The damaged file with the SKIP policy: no crash, nothing wrong comes back, the
 * damage is counted. */
static void test_corrupt_skip(void)
{
    REQUIRE(corpus_present());
    tfn_record_reader_options o;
    tfn_record_reader_options_init(&o);
    o.on_damage = TFN_ON_DAMAGE_SKIP;
    tfn_record_reader *r;
    REQUIRE(tfn_record_reader_open(CORPUS "/files/corrupt_tfmodels_pets_examples_crlf_damaged.record",
                                   &o, NULL, &r, NULL) == TFN_OK);
    tread t;
    memset(&t, 0, sizeof t);
    tread_run(r, &t);
    /* The last record lost bytes too: it looks truncated, which SKIP still reports. */
    CHECK(t.rc == TFN_END || t.rc == TFN_E_TRUNCATED);
    CHECK(t.skipped_records >= 1);
    /* every byte before the reader's offset is in a record returned or skipped */
    uint64_t off = tfn_record_reader_offset(r);
    CHECK_EQ_INT(t.data.n + 16 * t.count + t.skipped_bytes, off);
    if (t.rc == TFN_END)
        CHECK_EQ_INT(off, 873901);
    else
        CHECK_EQ_INT(t.err.offset, off);
    printf("CRLF-damaged file with SKIP: %zu records intact, %" PRIu64 " regions (%" PRIu64
           " bytes) skipped\n",
           t.count, t.skipped_records, t.skipped_bytes);
    tfn_record_reader_free(r);
    tbuf_free(&t.data);
}

/* ---------------------------------------------------------------- index */

static void test_index_corpus(void)
{
    REQUIRE(corpus_present());
    char idxpath[64];
    temp_path(idxpath, sizeof idxpath);
    for (size_t f = 0; f < NFILES; f++) {
        expected e;
        REQUIRE(load_expected(files[f], &e));
        if (e.compression != TFN_COMPRESSION_NONE || strncmp(files[f], "corrupt_", 8) == 0) {
            free_expected(&e);
            continue;
        }
        char path[512];
        snprintf(path, sizeof path, CORPUS "/files/%s", files[f]);
        tfn_record_reader *r;
        tfn_error err;
        REQUIRE(tfn_record_reader_open(path, NULL, NULL, &r, &err) == TFN_OK);
        tfn_record_index *idx;
        REQUIRE(tfn_record_index_build(r, NULL, &idx, &err) == TFN_OK);
        CHECK_EQ_INT(tfn_record_index_count(idx), e.n);
        int bad = 0;
        for (size_t i = 0; i < e.n; i++) {
            uint64_t off, len;
            CHECK_EQ_INT(tfn_record_index_at(idx, i, &off, &len), TFN_OK);
            bad += off != e.offsets[i] || len != e.lengths[i] + 16;
        }
        CHECK_EQ_INT(bad, 0);
        CHECK_EQ_INT(tfn_record_index_at(idx, e.n, NULL, NULL), TFN_E_INVALID_ARG);
        /* text: "offset framed_length\n" per record, as tfrecord2idx writes it */
        tbuf want = {0};
        for (size_t i = 0; i < e.n; i++) {
            char line[64];
            int k = snprintf(line, sizeof line, "%" PRIu64 " %" PRIu64 "\n", e.offsets[i],
                             e.lengths[i] + 16);
            tbuf_put(&want, line, (size_t)k);
        }
        REQUIRE(tfn_record_index_save(idx, idxpath, &err) == TFN_OK);
        size_t tn;
        uint8_t *text = read_file(idxpath, &tn);
        CHECK_MEM(text, tn, want.p, want.n);
        free(text);
        tfn_record_index *back;
        REQUIRE(tfn_record_index_load(idxpath, NULL, &back, &err) == TFN_OK);
        CHECK_EQ_INT(tfn_record_index_count(back), e.n);
        /* direct reads in a scrambled order */
        bad = 0;
        for (size_t k = 0; k < e.n; k++) {
            size_t i = (k * 7919) % e.n;
            const uint8_t *p;
            size_t n;
            char hex[65];
            if (tfn_record_index_read(back, r, i, &p, &n, &err) != TFN_OK) {
                bad++;
                continue;
            }
            sha256_hex(p, n, hex);
            bad += strcmp(hex, e.sha[i]) != 0;
            bad += tfn_record_reader_index(r) != i + 1;
        }
        CHECK_EQ_INT(bad, 0);
        tfn_record_index_free(back);
        tfn_record_index_free(idx);
        tfn_record_reader_free(r);
        tbuf_free(&want);
        free_expected(&e);
    }
    unlink(idxpath);
}

static void test_index_text(void)
{
    tfn_record_index *idx;
    tfn_error err;
    const char *ok = "0 21\n21 37\r\n\n  58\t16 \n";
    REQUIRE(tfn_record_index_parse(ok, strlen(ok), NULL, &idx, &err) == TFN_OK);
    CHECK_EQ_INT(tfn_record_index_count(idx), 3);
    uint64_t off, len;
    CHECK_EQ_INT(tfn_record_index_at(idx, 2, &off, &len), TFN_OK);
    CHECK(off == 58 && len == 16);
    char out[64];
    size_t w;
    CHECK_EQ_INT(tfn_record_index_format(idx, out, 5, &w, &err), TFN_E_BUF_TOO_SMALL);
    CHECK_EQ_INT(w, 17);
    CHECK_EQ_INT(tfn_record_index_format(idx, out, sizeof out, &w, &err), TFN_OK);
    CHECK_MEM(out, w, "0 21\n21 37\n58 16\n", 17);
    tfn_record_index_free(idx);
    REQUIRE(tfn_record_index_parse("", 0, NULL, &idx, &err) == TFN_OK);
    CHECK_EQ_INT(tfn_record_index_count(idx), 0);
    tfn_record_index_free(idx);
    const char *bad[] = {"0\n", "0 21 5\n", "x 1\n", "0 21\n5 -1\n", "99999999999999999999 1\n",
                         "0,21\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        idx = (tfn_record_index *)1;
        CHECK_EQ_INT(tfn_record_index_parse(bad[i], strlen(bad[i]), NULL, &idx, &err),
                     TFN_E_CORRUPT);
        CHECK(idx == NULL);
    }
    CHECK(strstr(err.msg, "index line 1") != NULL);
    CHECK_EQ_INT(tfn_record_index_load("/nonexistent/x.idx", NULL, &idx, &err), TFN_E_IO);
}

/* An index of memory, of a compressed stream (refused), and a read past the end. */
static void test_index_mem(void)
{
    tbuf b = {0};
    tbuf_frame(&b, "zero", 4);
    tbuf_frame(&b, "", 0);
    tbuf_frame(&b, "two", 3);
    tfn_record_reader *r;
    tfn_error err;
    REQUIRE(tfn_record_reader_open_mem(b.p, b.n, NULL, NULL, &r, &err) == TFN_OK);
    tfn_record_index *idx;
    REQUIRE(tfn_record_index_build(r, NULL, &idx, &err) == TFN_OK);
    char out[64];
    size_t w;
    CHECK_EQ_INT(tfn_record_index_format(idx, out, sizeof out, &w, &err), TFN_OK);
    CHECK_MEM(out, w, "0 20\n20 16\n36 19\n", 17);
    const uint8_t *p;
    size_t n;
    CHECK_EQ_INT(tfn_record_index_read(idx, r, 2, &p, &n, &err), TFN_OK);
    CHECK_MEM(p, n, "two", 3);
    CHECK_EQ_INT(tfn_record_index_read(idx, r, 0, &p, &n, &err), TFN_OK);
    CHECK_MEM(p, n, "zero", 4);
    CHECK_EQ_INT(tfn_record_reader_next(r, &p, &n, &err), TFN_OK); /* goes on with 1 */
    CHECK_EQ_INT(n, 0);
    CHECK_EQ_INT(tfn_record_index_read(idx, r, 3, &p, &n, &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_record_reader_seek(r, 1000, 0, &err), TFN_E_INVALID_ARG);
    tfn_record_index_free(idx);
    tfn_record_reader_free(r);
    /* an index claiming more records than the stream holds */
    REQUIRE(tfn_record_index_parse("0 20\n55 16\n", 11, NULL, &idx, &err) == TFN_OK);
    REQUIRE(tfn_record_reader_open_mem(b.p, b.n, NULL, NULL, &r, &err) == TFN_OK);
    CHECK_EQ_INT(tfn_record_index_read(idx, r, 1, &p, &n, &err), TFN_END);
    tfn_record_index_free(idx);
    tfn_record_reader_free(r);
    /* compressed: refused */
    tfn_record_writer_options wo;
    tfn_record_writer_options_init(&wo);
    wo.compression = TFN_COMPRESSION_GZIP;
    tfn_record_writer *wr;
    REQUIRE(tfn_record_writer_open_mem(&wo, NULL, &wr, NULL) == TFN_OK);
    REQUIRE(tfn_record_writer_write(wr, "x", 1, NULL) == TFN_OK);
    REQUIRE(tfn_record_writer_close(wr, NULL) == TFN_OK);
    const uint8_t *z;
    size_t zn;
    tfn_record_writer_mem_data(wr, &z, &zn);
    tfn_record_reader_options o;
    tfn_record_reader_options_init(&o);
    o.compression = TFN_COMPRESSION_AUTO;
    REQUIRE(tfn_record_reader_open_mem(z, zn, &o, NULL, &r, &err) == TFN_OK);
    CHECK_EQ_INT(tfn_record_index_build(r, NULL, &idx, &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_record_reader_seek(r, 0, 0, &err), TFN_E_INVALID_ARG);
    tfn_record_reader_free(r);
    tfn_record_writer_free(wr);
    tbuf_free(&b);
}

int main(void)
{
    RUN(test_corpus);
    RUN(test_corrupt_skip);
    RUN(test_index_corpus);
    RUN(test_index_text);
    RUN(test_index_mem);
    return harness_finish();
}

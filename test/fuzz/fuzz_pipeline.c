/*
 * fuzz_pipeline.c - libFuzzer harness for the threaded pipeline (lib/pipeline) over
 * untrusted TFRecord streams.
 *
 * Input: three control bytes, then the data, cut into 1-3 in-memory inputs.
 *   byte 0: bits 0-1 cycle_length - 1, bits 2-3 block_length - 1, bit 4 skip damage,
 *           bit 5 skip parse errors, bit 6 parse (a small spec) instead of raw batches,
 *           bit 7 not deterministic.
 *   byte 1: bits 0-3 batch_size - 1, bits 4-5 worker threads - 1 (0: 1), bit 6
 *           drop_remainder, bit 7 compression AUTO instead of NONE.
 *   byte 2: number of inputs - 1 (mod 3) in bits 0-1; the data is cut in equal parts;
 *           bit 2 error_fills_batch; bit 3 (with parse) an image stage on the bytes
 *           feature "i" (decode 3 channels, resize to 6x5, float32 / 255), resize method
 *           bits 4-6, bit 7 its skip policy instead of raise.
 * Invariants (a failure aborts): no crash, hang or sanitizer report; the pipeline ends;
 * every record handed out is, byte for byte, the record with that index that a plain
 * reader with the same damage policy reads from that input; deterministic raw
 * pipelines over inputs that read cleanly give exactly the interleave order in
 * batches of batch_size; parsed columns equal tfn_parser_parse on the batch's records;
 * the image stage's block equals tfn_image_decode_resize_batch() on the batch's "i"
 * column (which then decodes without error); the counters add up.
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

enum { MAX_INPUTS = 3, MAX_RECORDS = 4096 };

/* What a plain reader gets from one input. */
typedef struct reference {
    const uint8_t *rec[MAX_RECORDS]; /* copies */
    size_t len[MAX_RECORDS];
    size_t n;
    int clean; /* ended with TFN_END */
} reference;

static void read_reference(const uint8_t *data, size_t len, int compression, int on_damage,
                           size_t buffer_size, reference *ref)
{
    tfn_record_reader_options o;
    tfn_record_reader_options_init(&o);
    o.buffer_size = buffer_size; /* how much a zlib reader decodes before an error */
    o.compression = compression;
    o.on_damage = on_damage;
    tfn_record_reader *r;
    ref->n = 0;
    ref->clean = 0;
    if (tfn_record_reader_open_mem(data, len, &o, NULL, &r, NULL) != TFN_OK)
        return;
    for (;;) {
        const uint8_t *p;
        size_t n;
        int rc = tfn_record_reader_next(r, &p, &n, NULL);
        if (rc != TFN_OK) {
            ref->clean = rc == TFN_END;
            break;
        }
        if (ref->n == MAX_RECORDS)
            break;
        uint8_t *copy = malloc(n ? n : 1);
        CHECK(copy);
        if (n)
            memcpy(copy, p, n);
        ref->rec[ref->n] = copy;
        ref->len[ref->n] = n;
        ref->n++;
    }
    tfn_record_reader_free(r);
}

static tfn_spec *make_spec(void)
{
    static const int64_t two[1] = {2};
    static const int64_t zero = 0;
    static const tfn_bytes no_image = {(const uint8_t *)"", 0};
    tfn_feature_config c[4];
    memset(c, 0, sizeof c);
    c[0].key = "a";
    c[0].key_len = 1;
    c[0].type = TFN_FIXED_LEN;
    c[0].dtype = TFN_INT64;
    c[0].out_dtype = TFN_INT32;
    c[0].default_value = &zero;
    c[0].default_count = 1;
    c[1].key = "s";
    c[1].key_len = 1;
    c[1].type = TFN_FIXED_LEN_SEQUENCE;
    c[1].dtype = TFN_FLOAT32;
    c[1].shape = two;
    c[1].rank = 1;
    c[1].allow_missing = 1;
    c[2].key = "b";
    c[2].key_len = 1;
    c[2].type = TFN_FIXED_LEN_SEQUENCE;
    c[2].dtype = TFN_BYTES;
    c[2].allow_missing = 1;
    c[3].key = "i";
    c[3].key_len = 1;
    c[3].type = TFN_FIXED_LEN;
    c[3].dtype = TFN_BYTES;
    c[3].default_value = &no_image;
    c[3].default_count = 1;
    tfn_spec *s = NULL;
    CHECK(tfn_spec_new(c, 4, NULL, &s, NULL) == TFN_OK);
    return s;
}

/* The batch's columns equal tfn_parser_parse on its records. */
static void check_columns(const tfn_spec *spec, tfn_parser *ref, tfn_pipeline_batch *b)
{
    size_t n = tfn_pipeline_batch_count(b);
    const uint8_t *data;
    size_t len;
    const uint64_t *off;
    tfn_pipeline_batch_records(b, &data, &len, &off);
    tfn_bytes *views = calloc(n, sizeof *views);
    CHECK(views);
    for (size_t i = 0; i < n; i++) {
        views[i].data = data + off[i];
        views[i].len = (size_t)(off[i + 1] - off[i]);
    }
    CHECK(tfn_parser_scan(ref, views, n, NULL, TFN_PARSE_BATCH, NULL) == TFN_OK);
    size_t nf = tfn_spec_size(spec);
    tfn_output outs[4];
    void *bufs[4];
    memset(outs, 0, sizeof outs);
    for (size_t j = 0; j < nf; j++) {
        tfn_pipeline_column c;
        CHECK(tfn_pipeline_batch_column(b, j, &c) == TFN_OK);
        bufs[j] = calloc(c.count ? c.count : 1, 16);
        CHECK(bufs[j]);
        outs[j].values = bufs[j];
        outs[j].capacity = c.count;
        outs[j].max_rows = -1;
    }
    int rc = tfn_parser_fill(ref, outs, NULL);
    CHECK(rc == TFN_OK);
    for (size_t j = 0; j < nf; j++) {
        tfn_pipeline_column c;
        tfn_pipeline_batch_column(b, j, &c);
        if (c.dtype == TFN_BYTES) {
            const tfn_bytes *got = c.values, *exp = bufs[j];
            for (size_t e = 0; e < c.count; e++)
                CHECK(got[e].len == exp[e].len &&
                      (!got[e].len || memcmp(got[e].data, exp[e].data, got[e].len) == 0));
        } else if (c.count) {
            CHECK(memcmp(c.values, bufs[j], c.count * 4) == 0);
        }
        free(bufs[j]);
    }
    free(views);
}

/* The image stage's block equals the batch function on the batch's "i" column. */
static void check_images(tfn_pipeline_batch *b, const tfn_image_batch_options *image)
{
    size_t n = tfn_pipeline_batch_count(b);
    tfn_pipeline_column c;
    CHECK(tfn_pipeline_batch_column(b, 3, &c) == TFN_OK && c.count == n);
    const tfn_bytes *v = c.values;
    const void **ptrs = calloc(n, sizeof *ptrs);
    size_t *lens = calloc(n, sizeof *lens);
    size_t per = (size_t)image->height * image->width * 3 * sizeof(float);
    uint8_t *want = malloc(n * per);
    CHECK(ptrs && lens && want);
    for (size_t i = 0; i < n; i++) {
        ptrs[i] = v[i].data;
        lens[i] = v[i].len;
    }
    tfn_image_batch_options o = *image;
    o.on_error = TFN_IMAGE_RAISE;
    o.num_threads = 1;
    CHECK(tfn_image_decode_resize_batch(ptrs, lens, n, &o, want, n * per, NULL, NULL) ==
          TFN_OK);
    size_t bytes = 0;
    const void *got = tfn_pipeline_batch_image(b, 0, &bytes);
    CHECK(got != NULL && bytes == n * per && memcmp(got, want, bytes) == 0);
    free(want);
    free(lens);
    free(ptrs);
}

/* tf.data's interleave order of the references: (input, record) pairs. */
static size_t interleave(const reference *refs, size_t n, size_t cycle, size_t block,
                         size_t *in_out, size_t *rec_out)
{
    size_t slot_in[4], slot_pos[4], next = 0, total = 0, idx = 0, taken = 0, nopen = 0;
    int open[4] = {0};
    for (;;) {
        if (!open[idx]) {
            if (next < n) {
                slot_in[idx] = next++;
                slot_pos[idx] = 0;
                open[idx] = 1;
                nopen++;
                continue;
            }
            if (!nopen)
                return total;
            idx = (idx + 1) % cycle;
            taken = 0;
            continue;
        }
        if (slot_pos[idx] == refs[slot_in[idx]].n) {
            open[idx] = 0;
            nopen--;
            idx = (idx + 1) % cycle;
            taken = 0;
            continue;
        }
        in_out[total] = slot_in[idx];
        rec_out[total++] = slot_pos[idx]++;
        if (++taken == block) {
            taken = 0;
            idx = (idx + 1) % cycle;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    uint8_t c0 = data[0], c1 = data[1], c2 = data[2];
    data += 3;
    size -= 3;
    size_t ninputs = (size_t)(c2 & 3) % 3 + 1;
    tfn_bytes inputs[MAX_INPUTS];
    for (size_t i = 0; i < ninputs; i++) {
        size_t a = size * i / ninputs, b = size * (i + 1) / ninputs;
        inputs[i].data = b > a ? data + a : NULL;
        inputs[i].len = b - a;
    }
    tfn_pipeline_options o;
    tfn_pipeline_options_init(&o);
    o.buffers = inputs;
    o.ninputs = ninputs;
    o.cycle_length = (size_t)(c0 & 3) + 1;
    o.block_length = (size_t)((c0 >> 2) & 3) + 1;
    o.on_damage = c0 & 16 ? TFN_ON_DAMAGE_SKIP : TFN_ON_DAMAGE_RAISE;
    o.on_parse_error = c0 & 32 ? TFN_ON_PARSE_ERROR_SKIP : TFN_ON_PARSE_ERROR_RAISE;
    int parse = (c0 & 64) != 0;
    o.deterministic = !(c0 & 128);
    o.batch_size = (size_t)(c1 & 15) + 1;
    o.num_threads = (size_t)((c1 >> 4) & 3) ? (size_t)((c1 >> 4) & 3) : 1;
    o.drop_remainder = (c1 & 64) != 0;
    o.compression = c1 & 128 ? TFN_COMPRESSION_AUTO : TFN_COMPRESSION_NONE;
    o.buffer_size = 64;
    o.error_fills_batch = (c2 >> 2) & 1;
    tfn_spec *spec = parse ? make_spec() : NULL;
    o.spec = spec;
    tfn_image_batch_options image;
    memset(&image, 0, sizeof image);
    image.decode.channels = 3;
    image.height = 6;
    image.width = 5;
    image.method = (c2 >> 4) & 7;
    image.dtype = TFN_IMAGE_FLOAT32;
    image.divide = 1;
    for (int k = 0; k < 4; k++)
        image.mul[k] = 255.0f;
    image.on_error = c2 & 128 ? TFN_IMAGE_SKIP : TFN_IMAGE_RAISE;
    tfn_pipeline_image stage = {3, &image, 0, NULL};
    int images = parse && ((c2 >> 3) & 1);
    if (images) {
        o.images = &stage;
        o.nimages = 1;
    }
    tfn_parser *ref_parser = spec ? tfn_parser_new(spec, NULL) : NULL;

    static reference refs[MAX_INPUTS];
    int all_clean = 1;
    for (size_t i = 0; i < ninputs; i++) {
        read_reference(inputs[i].data, inputs[i].len, o.compression, o.on_damage,
                       o.buffer_size, &refs[i]);
        all_clean &= refs[i].clean;
    }

    tfn_pipeline *p;
    CHECK(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
    static size_t got_in[MAX_RECORDS * MAX_INPUTS], got_rec[MAX_RECORDS * MAX_INPUTS];
    size_t total = 0, batches = 0, errors = 0, short_batches = 0;
    int ended = 0;
    for (size_t calls = 0; calls < 4 * MAX_RECORDS * MAX_INPUTS + 16; calls++) {
        tfn_pipeline_batch *b;
        tfn_error err;
        int rc = tfn_pipeline_next(p, -1, &b, &err);
        if (rc == TFN_END) {
            ended = 1;
            break;
        }
        if (rc < 0) {
            CHECK(b == NULL);
            errors++;
            continue;
        }
        CHECK(rc == TFN_OK);
        size_t n = tfn_pipeline_batch_count(b);
        CHECK(n >= 1 && n <= o.batch_size);
        short_batches += n < o.batch_size;
        const uint8_t *recs;
        size_t len;
        const uint64_t *off;
        tfn_pipeline_batch_records(b, &recs, &len, &off);
        CHECK(off[0] == 0 && off[n] == len);
        for (size_t i = 0; i < n; i++) {
            size_t input;
            uint64_t index;
            CHECK(tfn_pipeline_batch_origin(b, i, &input, &index, NULL) == TFN_OK);
            CHECK(input < ninputs);
            const reference *ref = &refs[input];
            if (index < ref->n) {
                CHECK(off[i + 1] - off[i] == ref->len[index]);
                CHECK(!ref->len[index] ||
                      memcmp(recs + off[i], ref->rec[index], ref->len[index]) == 0);
            } else {
                CHECK(ref->n == MAX_RECORDS); /* the reference stopped early */
            }
            if (total < MAX_RECORDS * MAX_INPUTS) {
                got_in[total] = input;
                got_rec[total] = (size_t)index;
            }
            total++;
        }
        if (spec)
            check_columns(spec, ref_parser, b);
        if (images)
            check_images(b, &image);
        tfn_pipeline_batch_free(b);
        batches++;
    }
    CHECK(ended);
    tfn_pipeline_stats st;
    tfn_pipeline_stats_get(p, &st);
    CHECK(st.batches == batches);
    CHECK(st.records_read >= total);
    if (!spec)
        CHECK(st.records_read == total || errors > 0 || o.drop_remainder);
    if (!spec && all_clean && o.deterministic) {
        size_t ref_total = 0;
        for (size_t i = 0; i < ninputs; i++)
            ref_total += refs[i].n;
        if (ref_total < MAX_RECORDS) {
            static size_t ein[MAX_RECORDS * MAX_INPUTS], erec[MAX_RECORDS * MAX_INPUTS];
            size_t want = interleave(refs, ninputs, o.cycle_length, o.block_length, ein, erec);
            size_t expect = o.drop_remainder ? want / o.batch_size * o.batch_size : want;
            CHECK(errors == 0);
            CHECK(total == expect);
            CHECK(short_batches <= 1);
            for (size_t k = 0; k < total; k++)
                CHECK(got_in[k] == ein[k] && got_rec[k] == erec[k]);
        }
    }
    tfn_pipeline_free(p);
    tfn_parser_free(ref_parser);
    tfn_spec_free(spec);
    for (size_t i = 0; i < ninputs; i++)
        for (size_t k = 0; k < refs[i].n; k++)
            free((void *)(uintptr_t)refs[i].rec[k]);
    return 0;
}

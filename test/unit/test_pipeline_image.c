/* test_pipeline_image.c - image stages of the pipeline (lib/pipeline/pipeline_image.c):
 * the images of every batch equal tfn_image_decode_resize_batch() on the same records
 * (byte for byte, float32 / uint8 / NCHW, 1 and 3 workers, DCT scaling), the labels
 * come through, a corrupt or truncated JPEG mid-dataset makes its batch the error under
 * RAISE (InvalidArgument, naming the file, the record's index in its input and its
 * offset; the stream goes on after it) and is dropped under SKIP (the batch is shorter,
 * counted, the other outputs stay aligned), BMP refused by a DecodeJpeg stage, bad
 * stage options, batches outliving their pipeline, no page fault in a warm pipeline.
 * Runs plain, under ASan+UBSan and under TSan. */
#include "harness.h"
#include "test_record_util.h"
#include "tfnano.h"

#include <limits.h>
#include <sys/resource.h>

enum { MAX_REC = 64 };

/* Encoded images and the TFRecord stream of Examples {image, label} holding them. */
typedef struct dataset {
    size_t n;
    uint8_t *img[MAX_REC];
    size_t img_len[MAX_REC];
    tbuf stream;
    uint64_t offset[MAX_REC]; /* of each record's frame in the stream */
} dataset;

/* Image k: a smooth pattern (JPEG, or PNG every fifth) of a size that varies. */
static void make_image(size_t k, uint8_t **out, size_t *len)
{
    uint32_t h = 20 + (uint32_t)(k % 7) * 9, w = 24 + (uint32_t)(k % 5) * 11;
    uint8_t *px = malloc((size_t)h * w * 3);
    if (!px)
        abort();
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (uint32_t c = 0; c < 3; c++)
                px[((size_t)y * w + x) * 3 + c] =
                    (uint8_t)((x * (3 + c) + y * (5 + k % 3) + 40 * c + 17 * k) & 0xff);
    int rc = k % 5 == 4 ? tfn_image_encode_png(px, h, w, 3, 8, -1, out, len, NULL)
                        : tfn_image_encode_jpeg(px, h, w, 3, NULL, out, len, NULL);
    if (rc != TFN_OK)
        abort();
    free(px);
}

/* A minimal 2x1 24-bit BMP (what TensorFlow's DecodeJpeg refuses). */
static void make_bmp(uint8_t **out, size_t *len)
{
    static const uint8_t bmp[] = {
        'B', 'M', 62, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0,
        1, 0, 24, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0x13, 0x0b, 0, 0, 0x13, 0x0b, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 10, 20, 30, 40, 50, 60, 0, 0};
    *out = malloc(sizeof bmp);
    if (!*out)
        abort();
    memcpy(*out, bmp, sizeof bmp);
    *len = sizeof bmp;
}

/* n records; bad[k]: 0 good, 1 garbage bytes, 2 a JPEG cut in half, 3 a BMP. */
static void make_dataset(dataset *d, size_t n, const int *bad)
{
    memset(d, 0, sizeof *d);
    d->n = n;
    for (size_t k = 0; k < n; k++) {
        int kind = bad ? bad[k] : 0;
        if (kind == 1) {
            static const char junk[] = "not an image at all";
            d->img[k] = malloc(sizeof junk);
            memcpy(d->img[k], junk, sizeof junk);
            d->img_len[k] = sizeof junk - 1;
        } else if (kind == 3) {
            make_bmp(&d->img[k], &d->img_len[k]);
        } else {
            make_image(k % 5 == 4 && kind == 2 ? k + 1 : k, &d->img[k], &d->img_len[k]);
            if (kind == 2)
                d->img_len[k] /= 2;
        }
        tfn_example *ex = tfn_example_new(NULL);
        tfn_bytes b = {d->img[k], d->img_len[k]};
        int64_t label = (int64_t)k * 3 + 1;
        tfn_example_set_bytes(ex, "image", 5, &b, 1, NULL);
        tfn_example_set_int64s(ex, "label", 5, &label, 1, NULL);
        const uint8_t *bytes;
        size_t len;
        if (tfn_example_serialize_owned(ex, &bytes, &len, NULL) != TFN_OK)
            abort();
        d->offset[k] = d->stream.n;
        tbuf_frame(&d->stream, bytes, len);
        tfn_example_free(ex);
    }
}

static void free_dataset(dataset *d)
{
    for (size_t k = 0; k < d->n; k++)
        free(d->img[k]);
    tbuf_free(&d->stream);
}

static tfn_spec *image_spec(void)
{
    tfn_feature_config c[2];
    memset(c, 0, sizeof c);
    c[0].key = "image";
    c[0].key_len = 5;
    c[0].type = TFN_FIXED_LEN;
    c[0].dtype = TFN_BYTES;
    c[1].key = "label";
    c[1].key_len = 5;
    c[1].type = TFN_FIXED_LEN;
    c[1].dtype = TFN_INT64;
    c[1].out_dtype = TFN_INT32;
    tfn_spec *s = NULL;
    if (tfn_spec_new(c, 2, NULL, &s, NULL) != TFN_OK)
        abort();
    return s;
}

/* The flowers map's image options: decode 3 channels, bilinear to 16x12, / 255.0. */
static void flowers_options(tfn_image_batch_options *o)
{
    memset(o, 0, sizeof *o);
    o->decode.channels = 3;
    o->height = 16;
    o->width = 12;
    o->dtype = TFN_IMAGE_FLOAT32;
    o->divide = 1;
    for (int k = 0; k < 4; k++)
        o->mul[k] = 255.0f;
}

typedef struct run_cfg {
    size_t batch, threads;
    const tfn_image_batch_options *image;
    unsigned formats;
    const char *op;
} run_cfg;

static tfn_pipeline *start(const dataset *d, const tfn_spec *spec, const run_cfg *cfg,
                           tfn_pipeline_image *stage, tfn_bytes *buffer)
{
    static const char *const names[1] = {"images.tfrecord"};
    buffer->data = d->stream.p;
    buffer->len = d->stream.n;
    memset(stage, 0, sizeof *stage);
    stage->feature = 0;
    stage->image = cfg->image;
    stage->formats = cfg->formats;
    stage->op_name = cfg->op;
    tfn_pipeline_options o;
    tfn_pipeline_options_init(&o);
    o.buffers = buffer;
    o.names = names;
    o.ninputs = 1;
    o.batch_size = cfg->batch;
    o.spec = spec;
    o.num_threads = cfg->threads;
    o.images = stage;
    o.nimages = 1;
    tfn_pipeline *p = NULL;
    tfn_error err;
    if (tfn_pipeline_new(&o, NULL, &p, &err) != TFN_OK) {
        fprintf(stderr, "tfn_pipeline_new: %s\n", err.msg);
        return NULL;
    }
    return p;
}

/* Expected images of records idx[0..n) (tfn_image_decode_resize_batch, one thread). */
static uint8_t *expected_images(const dataset *d, const size_t *idx, size_t n,
                                const tfn_image_batch_options *image, size_t *bytes)
{
    const void *data[MAX_REC];
    size_t lens[MAX_REC];
    for (size_t i = 0; i < n; i++) {
        data[i] = d->img[idx[i]];
        lens[i] = d->img_len[idx[i]];
    }
    tfn_image_batch_options o = *image;
    o.num_threads = 1;
    o.on_error = TFN_IMAGE_RAISE;
    size_t esize = o.dtype == TFN_IMAGE_FLOAT32 ? 4 : o.dtype == TFN_IMAGE_BFLOAT16 ? 2 : 1;
    *bytes = n * o.height * o.width * (size_t)o.decode.channels * esize;
    uint8_t *out = malloc(*bytes ? *bytes : 1);
    tfn_error err;
    if (!out || tfn_image_decode_resize_batch(data, lens, n, &o, out, *bytes, NULL, &err) !=
                    TFN_OK) {
        fprintf(stderr, "reference batch: %s\n", err.msg);
        abort();
    }
    return out;
}

/* Checks one batch against records idx[0..n): labels, origins, images. */
static void check_batch(const dataset *d, tfn_pipeline_batch *b, const size_t *idx, size_t n,
                        const tfn_image_batch_options *image)
{
    CHECK_EQ_INT(tfn_pipeline_batch_count(b), n);
    if (tfn_pipeline_batch_count(b) != n)
        return;
    tfn_pipeline_column col;
    REQUIRE(tfn_pipeline_batch_column(b, 1, &col) == TFN_OK);
    CHECK_EQ_INT(col.dtype, TFN_INT32);
    for (size_t i = 0; i < n; i++) {
        CHECK_EQ_INT(((const int32_t *)col.values)[i], (int64_t)idx[i] * 3 + 1);
        uint64_t rec = 0;
        CHECK(tfn_pipeline_batch_origin(b, i, NULL, &rec, NULL) == TFN_OK);
        CHECK_EQ_INT(rec, idx[i]);
    }
    size_t got_bytes = 0, want_bytes = 0;
    const void *got = tfn_pipeline_batch_image(b, 0, &got_bytes);
    REQUIRE(got != NULL);
    CHECK_EQ_INT((uintptr_t)got % 64, 0);
    uint8_t *want = expected_images(d, idx, n, image, &want_bytes);
    CHECK_EQ_INT(got_bytes, want_bytes);
    CHECK(got_bytes == want_bytes && memcmp(got, want, want_bytes) == 0);
    free(want);
}

static void run_equal(const tfn_image_batch_options *image, size_t threads, size_t batch)
{
    dataset d;
    make_dataset(&d, 23, NULL);
    tfn_spec *spec = image_spec();
    run_cfg cfg = {batch, threads, image, 0, NULL};
    tfn_pipeline_image stage;
    tfn_bytes buf;
    tfn_pipeline *p = start(&d, spec, &cfg, &stage, &buf);
    REQUIRE(p != NULL);
    size_t next = 0;
    tfn_pipeline_batch *b;
    tfn_error err;
    int rc;
    while ((rc = tfn_pipeline_next(p, -1, &b, &err)) == TFN_OK) {
        size_t idx[MAX_REC], n = 0;
        for (; n < batch && next < d.n; n++)
            idx[n] = next++;
        check_batch(&d, b, idx, n, image);
        CHECK(tfn_pipeline_batch_image(b, 1, NULL) == NULL); /* one stage */
        tfn_pipeline_batch_free(b);
    }
    CHECK_EQ_INT(rc, TFN_END);
    CHECK_EQ_INT(next, d.n);
    tfn_pipeline_free(p);
    tfn_spec_free(spec);
    free_dataset(&d);
}

static void test_images_equal_batch_call(void)
{
    tfn_image_batch_options o;
    flowers_options(&o);
    run_equal(&o, 1, 5);
    run_equal(&o, 3, 4);
    run_equal(&o, 2, 64); /* one batch holds everything */
    o.nchw = 1;
    o.method = TFN_RESIZE_AREA;
    run_equal(&o, 2, 6);
    flowers_options(&o);
    o.dtype = TFN_IMAGE_UINT8;
    o.method = TFN_RESIZE_NEAREST;
    o.divide = 0;
    memset(o.mul, 0, sizeof o.mul);
    run_equal(&o, 2, 7);
    flowers_options(&o);
    o.height = 9;
    o.width = 10;
    o.dct_scale = 1;
    o.decode.channels = 1;
    run_equal(&o, 2, 8);
}

/* A dataset with bad images at 5 (garbage) and 11 (truncated JPEG). */
static const int BAD[23] = {[5] = 1, [11] = 2};

static void test_bad_image_raise(void)
{
    dataset d;
    make_dataset(&d, 23, BAD);
    tfn_spec *spec = image_spec();
    tfn_image_batch_options o;
    flowers_options(&o);
    run_cfg cfg = {4, 2, &o, 0, NULL};
    tfn_pipeline_image stage;
    tfn_bytes buf;
    tfn_pipeline *p = start(&d, spec, &cfg, &stage, &buf);
    REQUIRE(p != NULL);
    /* batches [0-3] ok, [4-7] error at 5, [8-11] error at 11, then [12-15] ... ok */
    size_t first = 0;
    tfn_pipeline_batch *b;
    tfn_error err;
    for (int batch = 0; batch < 6; batch++, first += 4) { /* 23 records: 6 batches */
        int rc = tfn_pipeline_next(p, -1, &b, &err);
        if (batch == 1 || batch == 2) {
            size_t at = batch == 1 ? 5 : 11;
            CHECK_EQ_INT(rc, TFN_E_INVALID_ARG);
            CHECK(b == NULL);
            CHECK_EQ_INT(err.record_index, at);
            CHECK_EQ_INT(err.offset, d.offset[at]);
            char where[128];
            snprintf(where, sizeof where, "; file images.tfrecord, record %zu, offset %" PRIu64,
                     at, d.offset[at]);
            CHECK(strstr(err.msg, where) != NULL);
            const char *decoder = batch == 1 ? "Unknown image file format" : "JPEG";
            CHECK(strstr(err.msg, decoder) != NULL);
            continue;
        }
        REQUIRE(rc == TFN_OK);
        size_t idx[4] = {first, first + 1, first + 2, first + 3};
        check_batch(&d, b, idx, first + 4 <= d.n ? 4 : d.n - first, &o);
        tfn_pipeline_batch_free(b);
    }
    CHECK_EQ_INT(tfn_pipeline_next(p, -1, &b, &err), TFN_END);
    tfn_pipeline_free(p);
    tfn_spec_free(spec);
    free_dataset(&d);
}

static void test_bad_image_skip(void)
{
    dataset d;
    make_dataset(&d, 23, BAD);
    tfn_spec *spec = image_spec();
    tfn_image_batch_options o;
    flowers_options(&o);
    o.on_error = TFN_IMAGE_SKIP;
    run_cfg cfg = {4, 2, &o, 0, NULL};
    tfn_pipeline_image stage;
    tfn_bytes buf;
    tfn_pipeline *p = start(&d, spec, &cfg, &stage, &buf);
    REQUIRE(p != NULL);
    size_t first = 0, total = 0;
    tfn_pipeline_batch *b;
    tfn_error err;
    int rc;
    while ((rc = tfn_pipeline_next(p, -1, &b, &err)) == TFN_OK) {
        size_t idx[4], n = 0;
        for (size_t k = first; k < first + 4 && k < d.n; k++)
            if (!BAD[k])
                idx[n++] = k;
        check_batch(&d, b, idx, n, &o);
        total += n;
        first += 4;
        tfn_pipeline_batch_free(b);
    }
    CHECK_EQ_INT(rc, TFN_END);
    CHECK_EQ_INT(total, d.n - 2);
    tfn_pipeline_stats st;
    tfn_pipeline_stats_get(p, &st);
    CHECK_EQ_INT(st.image_skipped, 2);
    CHECK_EQ_INT(st.parse_skipped, 0);
    tfn_pipeline_free(p);
    tfn_spec_free(spec);
    free_dataset(&d);
}

/* Two stages on the same feature (a float32 224-style input and a uint8 thumbnail
 * with a filter method), SKIP on both: each stage's block equals the batch call on the
 * kept records, and a record failing in one stage leaves every output. */
static void test_two_stages(void)
{
    dataset d;
    make_dataset(&d, 23, BAD);
    tfn_spec *spec = image_spec();
    tfn_image_batch_options a, t;
    flowers_options(&a);
    a.on_error = TFN_IMAGE_SKIP;
    memset(&t, 0, sizeof t);
    t.decode.channels = 1;
    t.height = t.width = 8;
    t.method = TFN_RESIZE_LANCZOS3 | TFN_RESIZE_ANTIALIAS;
    t.dtype = TFN_IMAGE_UINT8;
    t.on_error = TFN_IMAGE_SKIP;
    tfn_pipeline_image stages[2] = {{0, &a, 0, NULL}, {0, &t, 0, NULL}};
    static const char *const names[1] = {"images.tfrecord"};
    tfn_bytes buf = {d.stream.p, d.stream.n};
    tfn_pipeline_options o;
    tfn_pipeline_options_init(&o);
    o.buffers = &buf;
    o.names = names;
    o.ninputs = 1;
    o.batch_size = 6;
    o.spec = spec;
    o.num_threads = 2;
    o.images = stages;
    o.nimages = 2;
    tfn_pipeline *p = NULL;
    REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
    size_t first = 0, total = 0;
    tfn_pipeline_batch *b;
    while (tfn_pipeline_next(p, -1, &b, NULL) == TFN_OK) {
        size_t idx[6], n = 0;
        for (size_t k = first; k < first + 6 && k < d.n; k++)
            if (!BAD[k])
                idx[n++] = k;
        check_batch(&d, b, idx, n, &a); /* stage 0, labels, origins */
        size_t got_bytes = 0, want_bytes = 0;
        const void *got = tfn_pipeline_batch_image(b, 1, &got_bytes);
        REQUIRE(got != NULL);
        CHECK_EQ_INT((uintptr_t)got % 64, 0);
        uint8_t *want = expected_images(&d, idx, n, &t, &want_bytes);
        CHECK(got_bytes == want_bytes && memcmp(got, want, want_bytes) == 0);
        free(want);
        CHECK(tfn_pipeline_batch_image(b, 2, NULL) == NULL);
        total += n;
        first += 6;
        tfn_pipeline_batch_free(b);
    }
    CHECK_EQ_INT(total, d.n - 2);
    tfn_pipeline_stats st;
    tfn_pipeline_stats_get(p, &st);
    CHECK_EQ_INT(st.image_skipped, 2);
    tfn_pipeline_free(p);
    tfn_spec_free(spec);
    free_dataset(&d);
}

static void test_every_image_bad_skip(void)
{
    static const int all_bad[6] = {1, 2, 1, 2, 1, 1};
    dataset d;
    make_dataset(&d, 6, all_bad);
    tfn_spec *spec = image_spec();
    tfn_image_batch_options o;
    flowers_options(&o);
    o.on_error = TFN_IMAGE_SKIP;
    run_cfg cfg = {4, 1, &o, 0, NULL};
    tfn_pipeline_image stage;
    tfn_bytes buf;
    tfn_pipeline *p = start(&d, spec, &cfg, &stage, &buf);
    REQUIRE(p != NULL);
    tfn_pipeline_batch *b;
    CHECK_EQ_INT(tfn_pipeline_next(p, -1, &b, NULL), TFN_END);
    tfn_pipeline_stats st;
    tfn_pipeline_stats_get(p, &st);
    CHECK_EQ_INT(st.image_skipped, 6);
    tfn_pipeline_free(p);
    tfn_spec_free(spec);
    free_dataset(&d);
}

static void test_bmp_refused_by_decode_jpeg(void)
{
    static const int bmp_at_2[5] = {[2] = 3};
    dataset d;
    make_dataset(&d, 5, bmp_at_2);
    tfn_spec *spec = image_spec();
    tfn_image_batch_options o;
    flowers_options(&o);
    run_cfg cfg = {5, 1, &o, (1u << TFN_IMAGE_JPEG) | (1u << TFN_IMAGE_PNG), "DecodeJpeg"};
    tfn_pipeline_image stage;
    tfn_bytes buf;
    tfn_pipeline *p = start(&d, spec, &cfg, &stage, &buf);
    REQUIRE(p != NULL);
    tfn_pipeline_batch *b;
    tfn_error err;
    CHECK_EQ_INT(tfn_pipeline_next(p, -1, &b, &err), TFN_E_INVALID_ARG);
    CHECK(strncmp(err.msg,
                  "Trying to decode BMP format using a wrong op. Use `decode_bmp` or "
                  "`decode_image` instead. Op used: DecodeJpeg; file images.tfrecord, record 2",
                  strlen("Trying to decode BMP format using a wrong op. Use `decode_bmp` or "
                         "`decode_image` instead. Op used: DecodeJpeg; file images.tfrecord, "
                         "record 2")) == 0);
    tfn_pipeline_free(p);
    /* without the format mask (decode_image) the BMP decodes */
    cfg.formats = 0;
    cfg.op = NULL;
    p = start(&d, spec, &cfg, &stage, &buf);
    REQUIRE(p != NULL);
    CHECK_EQ_INT(tfn_pipeline_next(p, -1, &b, &err), TFN_OK);
    size_t idx[5] = {0, 1, 2, 3, 4};
    check_batch(&d, b, idx, 5, &o);
    tfn_pipeline_batch_free(b);
    tfn_pipeline_free(p);
    tfn_spec_free(spec);
    free_dataset(&d);
}

static void test_bad_stage_options(void)
{
    dataset d;
    make_dataset(&d, 2, NULL);
    tfn_spec *spec = image_spec();
    tfn_image_batch_options o;
    flowers_options(&o);
    tfn_pipeline_image stage = {0, &o, 0, NULL};
    tfn_bytes buf = {d.stream.p, d.stream.n};
    tfn_pipeline_options po;
    tfn_pipeline_options_init(&po);
    po.buffers = &buf;
    po.ninputs = 1;
    po.batch_size = 2;
    po.spec = spec;
    po.images = &stage;
    po.nimages = 1;
    tfn_pipeline *p = NULL;
    tfn_error err;
    stage.feature = 1; /* the int64 label */
    CHECK_EQ_INT(tfn_pipeline_new(&po, NULL, &p, &err), TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "label") != NULL);
    stage.feature = 2;
    CHECK_EQ_INT(tfn_pipeline_new(&po, NULL, &p, &err), TFN_E_INVALID_ARG);
    stage.feature = 0;
    o.height = 0;
    CHECK_EQ_INT(tfn_pipeline_new(&po, NULL, &p, &err), TFN_E_INVALID_ARG);
    flowers_options(&o);
    o.decode.channels = 0;
    CHECK_EQ_INT(tfn_pipeline_new(&po, NULL, &p, &err), TFN_E_INVALID_ARG);
    flowers_options(&o);
    o.on_error = 7;
    CHECK_EQ_INT(tfn_pipeline_new(&po, NULL, &p, &err), TFN_E_INVALID_ARG);
    flowers_options(&o);
    po.spec = NULL;
    CHECK_EQ_INT(tfn_pipeline_new(&po, NULL, &p, &err), TFN_E_INVALID_ARG);
    po.spec = spec;
    stage.image = NULL;
    CHECK_EQ_INT(tfn_pipeline_new(&po, NULL, &p, &err), TFN_E_INVALID_ARG);
    CHECK(p == NULL);
    tfn_spec_free(spec);
    free_dataset(&d);
}

static void test_batches_outlive_pipeline(void)
{
    dataset d;
    make_dataset(&d, 12, NULL);
    tfn_spec *spec = image_spec();
    tfn_image_batch_options o;
    flowers_options(&o);
    run_cfg cfg = {4, 2, &o, 0, NULL};
    tfn_pipeline_image stage;
    tfn_bytes buf;
    tfn_pipeline *p = start(&d, spec, &cfg, &stage, &buf);
    REQUIRE(p != NULL);
    tfn_pipeline_batch *held[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++)
        CHECK_EQ_INT(tfn_pipeline_next(p, -1, &held[i], NULL), TFN_OK);
    tfn_pipeline_free(p);
    o.height = 99; /* the pipeline copied its options */
    flowers_options(&o);
    for (size_t i = 0; i < 3; i++) {
        if (!held[i])
            continue;
        size_t idx[4] = {4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3};
        check_batch(&d, held[i], idx, 4, &o);
        tfn_pipeline_batch_free(held[i]);
    }
    tfn_spec_free(spec);
    free_dataset(&d);
}

static long minor_faults(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

/* After the first batches the image blocks are recycled: 40 batches of 4 images of
 * 64x64x3 floats (48 KiB each, 12 pages) must not fault page by page. */
static void test_warm_image_batches_do_not_fault(void)
{
    dataset d;
    make_dataset(&d, MAX_REC, NULL);
    tfn_spec *spec = image_spec();
    tfn_image_batch_options o;
    flowers_options(&o);
    o.height = o.width = 64;
    run_cfg cfg = {4, 1, &o, 0, NULL};
    tfn_pipeline_image stage;
    tfn_bytes buf;
    long faults = 0;
    for (int round = 0; round < 2; round++) {
        tfn_pipeline *p = start(&d, spec, &cfg, &stage, &buf);
        REQUIRE(p != NULL);
        tfn_pipeline_batch *b;
        size_t batches = 0;
        long before = 0;
        while (tfn_pipeline_next(p, -1, &b, NULL) == TFN_OK) {
            if (++batches == 6)
                before = minor_faults();
            tfn_pipeline_batch_free(b);
        }
        CHECK_EQ_INT(batches, MAX_REC / 4);
        faults = minor_faults() - before;
        tfn_pipeline_free(p);
    }
    /* 10 more batches of 4 x 48 KiB: fresh memory would be 10 * 4 * 12 = 480 faults.
     * Sanitizer runtimes and valgrind keep freed blocks in quarantine, so libjpeg's own
     * per-image allocations land on fresh pages there: nothing to compare under them. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
    const long limit = LONG_MAX;
#else
    const char *preload = getenv("LD_PRELOAD");
    const long limit = preload && strstr(preload, "vgpreload") ? LONG_MAX : 120;
#endif
    CHECK(faults < limit);
    if (faults >= limit)
        fprintf(stderr, "  %ld page faults in 10 warm image batches\n", faults);
    tfn_spec_free(spec);
    free_dataset(&d);
}

int main(void)
{
    RUN(test_images_equal_batch_call);
    RUN(test_bad_image_raise);
    RUN(test_bad_image_skip);
    RUN(test_every_image_bad_skip);
    RUN(test_two_stages);
    RUN(test_bmp_refused_by_decode_jpeg);
    RUN(test_bad_stage_options);
    RUN(test_batches_outlive_pipeline);
    RUN(test_warm_image_batches_do_not_fault);
    return harness_finish();
}

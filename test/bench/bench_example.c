/*
 * bench_example.c - tf.train.Example encode/parse speed (W1 "QUEST", W2 "image" of
 * shared/spec/performance.md), tfnano and the C++ libprotobuf peer in one run.
 *
 * Every case works on the same generated data and the same serialized records (which
 * are first checked: tfnano's columns, tfnano's builder and C++'s deterministic
 * serialization must give identical bytes, and every parse path must give back the
 * generated values). Times are ns per example; ratios compare within this run.
 *
 * Environment: see bench_util.h (BENCH_BUDGET, BENCH_RUNS, BENCH_QUICK), plus
 * BENCH_W1_N / BENCH_W2_N (examples generated; defaults 10000 / 2000) and
 * BENCH_BATCH (batch size of the batch cases, default 256).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "datagen.h"
#include "peer_protobuf.h"
#include "tfnano.h"

typedef struct ctx {
    size_t batch;

    /* W1 */
    w1_data w1;
    uint8_t *w1_rec;     /* reference records (tfn_encode_columns over all of w1) */
    uint64_t *w1_off;    /* n + 1 */
    tfn_bytes *w1_views; /* n */
    size_t w1_next;      /* next example of the rotating cursor */
    uint8_t *dst;        /* serialize destination, one batch */
    size_t dst_cap;
    uint64_t *dst_off; /* batch + 1 */
    tfn_example *ex;
    tfn_parser *w1_parser;
    int32_t *out_ints[W1_NINT]; /* [batch][W1_MAXLEN] */
    float *out_labels;          /* [batch][W1_LABELS] */

    /* W2 */
    w2_data w2;
    uint8_t *w2_rec;
    uint64_t *w2_off;
    tfn_bytes *w2_views;
    size_t *w2_image_pos; /* where each image sits in its record (for the memcpy floor) */
    size_t w2_next;
    tfn_parser *w2_parser;
    uint8_t *image_dst;
    size_t image_cap;
    uint8_t name_dst[64];

    peer_ctx *peer;
} ctx;

static int die(const char *what, const char *msg)
{
    fprintf(stderr, "bench_example: %s: %s\n", what, msg);
    return 1;
}

/* Start of the next batch of `b` examples out of `n`, cycling through the data. */
static size_t take(size_t *next, size_t n, size_t b)
{
    if (*next + b > n)
        *next = 0;
    size_t i0 = *next;
    *next += b;
    return i0;
}

/* ==================================================================== W1 setup */

static void w1_columns(const ctx *c, size_t i0, tfn_column cols[W1_NINT + 1])
{
    for (size_t j = 0; j < W1_NINT; j++)
        cols[j] = (tfn_column){w1_int_keys[j], strlen(w1_int_keys[j]), TFN_INT64,
                               w1_row(&c->w1, j, i0), W1_MAXLEN, NULL, NULL};
    cols[W1_NINT] = (tfn_column){w1_label_key, strlen(w1_label_key), TFN_FLOAT32,
                                 w1_label_row(&c->w1, i0), W1_LABELS, NULL, NULL};
}

static int w1_setup(ctx *c, size_t n)
{
    if (w1_generate(&c->w1, n, W1_SEED))
        return die("w1_generate", "out of memory");
    tfn_column cols[W1_NINT + 1];
    w1_columns(c, 0, cols);
    tfn_error err;
    uint64_t total = 0;
    if (tfn_encode_columns_size(cols, W1_NINT + 1, n, NULL, &total, &err))
        return die("tfn_encode_columns_size", err.msg);
    c->w1_rec = malloc((size_t)total);
    c->w1_off = malloc(sizeof(uint64_t) * (n + 1));
    c->w1_views = malloc(sizeof(tfn_bytes) * n);
    if (!c->w1_rec || !c->w1_off || !c->w1_views)
        return die("w1_setup", "out of memory");
    size_t written = 0;
    if (tfn_encode_columns(cols, W1_NINT + 1, n, c->w1_rec, (size_t)total, c->w1_off, &written,
                           &err))
        return die("tfn_encode_columns", err.msg);
    size_t max_rec = 0;
    for (size_t i = 0; i < n; i++) {
        c->w1_views[i].data = c->w1_rec + c->w1_off[i];
        c->w1_views[i].len = (size_t)(c->w1_off[i + 1] - c->w1_off[i]);
        if (c->w1_views[i].len > max_rec)
            max_rec = c->w1_views[i].len;
    }
    c->dst_cap = max_rec * c->batch;
    c->dst = malloc(c->dst_cap);
    c->dst_off = malloc(sizeof(uint64_t) * (c->batch + 1));
    c->ex = tfn_example_new(NULL);
    for (size_t j = 0; j < W1_NINT; j++)
        c->out_ints[j] = malloc(sizeof(int32_t) * W1_MAXLEN * c->batch);
    c->out_labels = malloc(sizeof(float) * W1_LABELS * c->batch);
    if (!c->dst || !c->dst_off || !c->ex || !c->out_labels)
        return die("w1_setup", "out of memory");

    static const int64_t ids_shape[1] = {W1_MAXLEN}, label_shape[1] = {W1_LABELS};
    tfn_feature_config cfg[W1_NINT + 1];
    memset(cfg, 0, sizeof cfg);
    for (size_t j = 0; j <= W1_NINT; j++) {
        int is_int = j < W1_NINT;
        cfg[j].key = is_int ? w1_int_keys[j] : w1_label_key;
        cfg[j].key_len = strlen(cfg[j].key);
        cfg[j].type = TFN_FIXED_LEN;
        cfg[j].dtype = is_int ? TFN_INT64 : TFN_FLOAT32;
        cfg[j].out_dtype = is_int ? TFN_INT32 : TFN_FLOAT32;
        cfg[j].shape = is_int ? ids_shape : label_shape;
        cfg[j].rank = 1;
    }
    tfn_spec *spec = NULL;
    if (tfn_spec_new(cfg, W1_NINT + 1, NULL, &spec, &err))
        return die("tfn_spec_new", err.msg);
    /* The parser keeps a pointer to the spec: it lives until exit. */
    c->w1_parser = tfn_parser_new(spec, NULL);
    if (!c->w1_parser)
        return die("tfn_parser_new", "out of memory");
    double varint_bytes = 0;
    for (size_t j = 0; j < W1_NINT; j++)
        for (size_t k = 0; k < n * W1_MAXLEN; k++) {
            uint64_t v = (uint64_t)c->w1.ints[j][k];
            int len = 1;
            while (v >= 0x80) {
                v >>= 7;
                len++;
            }
            varint_bytes += len;
        }
    printf("W1: %zu examples, %.0f bytes/example serialized, packed varints %.3f bytes/value\n",
           n, (double)total / (double)n, varint_bytes / ((double)n * W1_NINT * W1_MAXLEN));
    return 0;
}

/* ==================================================================== W1 cases */

static int w1_ser_columns_at(ctx *c, size_t i0, size_t b, size_t *written)
{
    tfn_column cols[W1_NINT + 1];
    w1_columns(c, i0, cols);
    tfn_error err;
    if (tfn_encode_columns(cols, W1_NINT + 1, b, c->dst, c->dst_cap, c->dst_off, written, &err))
        return die("tfn_encode_columns", err.msg);
    return 0;
}

static int w1_ser_builder_at(ctx *c, size_t i0, size_t b, size_t *written)
{
    tfn_error err;
    size_t pos = 0;
    c->dst_off[0] = 0;
    for (size_t i = i0; i < i0 + b; i++) {
        tfn_example_clear(c->ex);
        for (size_t j = 0; j < W1_NINT; j++)
            if (tfn_example_set_int64s(c->ex, w1_int_keys[j], strlen(w1_int_keys[j]),
                                       w1_row(&c->w1, j, i), W1_MAXLEN, &err))
                return die("tfn_example_set_int64s", err.msg);
        if (tfn_example_set_floats(c->ex, w1_label_key, strlen(w1_label_key),
                                   w1_label_row(&c->w1, i), W1_LABELS, &err))
            return die("tfn_example_set_floats", err.msg);
        size_t w = 0;
        if (tfn_example_serialize(c->ex, c->dst + pos, c->dst_cap - pos, &w, &err))
            return die("tfn_example_serialize", err.msg);
        pos += w;
        c->dst_off[i - i0 + 1] = pos;
    }
    *written = pos;
    return 0;
}

static int w1_ser_cpp_at(ctx *c, size_t i0, size_t b, int deterministic, size_t *written)
{
    if (peer_w1_serialize(c->peer, &c->w1, i0, b, deterministic, c->dst, c->dst_cap, c->dst_off))
        return die("peer_w1_serialize", peer_last_error(c->peer));
    *written = (size_t)c->dst_off[b];
    return 0;
}

static int case_w1_ser_columns(void *p, bench_work *w)
{
    ctx *c = p;
    size_t i0 = take(&c->w1_next, c->w1.n, c->batch), written;
    if (w1_ser_columns_at(c, i0, c->batch, &written))
        return 1;
    w->items += c->batch;
    w->bytes += written;
    return 0;
}

static int case_w1_ser_builder(void *p, bench_work *w)
{
    ctx *c = p;
    size_t i0 = take(&c->w1_next, c->w1.n, c->batch), written;
    if (w1_ser_builder_at(c, i0, c->batch, &written))
        return 1;
    w->items += c->batch;
    w->bytes += written;
    return 0;
}

static int case_w1_ser_cpp_det(void *p, bench_work *w)
{
    ctx *c = p;
    size_t i0 = take(&c->w1_next, c->w1.n, c->batch), written;
    if (w1_ser_cpp_at(c, i0, c->batch, 1, &written))
        return 1;
    w->items += c->batch;
    w->bytes += written;
    return 0;
}

static int case_w1_ser_cpp_fast(void *p, bench_work *w)
{
    ctx *c = p;
    size_t i0 = take(&c->w1_next, c->w1.n, c->batch), written;
    if (w1_ser_cpp_at(c, i0, c->batch, 0, &written))
        return 1;
    w->items += c->batch;
    w->bytes += written;
    return 0;
}

/* The physical floor: copying the batch's serialized bytes. */
static int case_w1_memcpy(void *p, bench_work *w)
{
    ctx *c = p;
    size_t i0 = take(&c->w1_next, c->w1.n, c->batch);
    size_t len = (size_t)(c->w1_off[i0 + c->batch] - c->w1_off[i0]);
    memcpy(c->dst, c->w1_rec + c->w1_off[i0], len);
    bench_keep(c->dst);
    w->items += c->batch;
    w->bytes += len;
    return 0;
}

static void w1_outputs(ctx *c, size_t row, size_t rows, tfn_output outs[W1_NINT + 1])
{
    memset(outs, 0, sizeof(tfn_output) * (W1_NINT + 1));
    for (size_t j = 0; j < W1_NINT; j++)
        outs[j] = (tfn_output){c->out_ints[j] + row * W1_MAXLEN, rows * W1_MAXLEN, -1, NULL,
                               NULL};
    outs[W1_NINT] = (tfn_output){c->out_labels + row * W1_LABELS, rows * W1_LABELS, -1, NULL,
                                 NULL};
}

static int w1_parse_batch_at(ctx *c, size_t i0, size_t b)
{
    tfn_output outs[W1_NINT + 1];
    w1_outputs(c, 0, b, outs);
    tfn_error err;
    if (tfn_parser_parse(c->w1_parser, c->w1_views + i0, b, NULL, TFN_PARSE_BATCH, outs, &err))
        return die("tfn_parser_parse (batch)", err.msg);
    return 0;
}

static int w1_parse_single_at(ctx *c, size_t i0, size_t b)
{
    tfn_output outs[W1_NINT + 1];
    tfn_error err;
    for (size_t i = 0; i < b; i++) {
        w1_outputs(c, i, 1, outs);
        if (tfn_parser_parse(c->w1_parser, c->w1_views + i0 + i, 1, NULL, TFN_PARSE_SINGLE,
                             outs, &err))
            return die("tfn_parser_parse (single)", err.msg);
    }
    return 0;
}

static int w1_parse_cpp_at(ctx *c, size_t i0, size_t b)
{
    if (peer_w1_parse(c->peer, c->w1_views + i0, b, c->out_ints, c->out_labels))
        return die("peer_w1_parse", peer_last_error(c->peer));
    return 0;
}

static uint64_t w1_bytes(const ctx *c, size_t i0, size_t b)
{
    return c->w1_off[i0 + b] - c->w1_off[i0];
}

static int case_w1_parse_batch(void *p, bench_work *w)
{
    ctx *c = p;
    size_t i0 = take(&c->w1_next, c->w1.n, c->batch);
    if (w1_parse_batch_at(c, i0, c->batch))
        return 1;
    w->items += c->batch;
    w->bytes += w1_bytes(c, i0, c->batch);
    return 0;
}

static int case_w1_parse_single(void *p, bench_work *w)
{
    ctx *c = p;
    size_t i0 = take(&c->w1_next, c->w1.n, c->batch);
    if (w1_parse_single_at(c, i0, c->batch))
        return 1;
    w->items += c->batch;
    w->bytes += w1_bytes(c, i0, c->batch);
    return 0;
}

static int case_w1_parse_cpp(void *p, bench_work *w)
{
    ctx *c = p;
    size_t i0 = take(&c->w1_next, c->w1.n, c->batch);
    if (w1_parse_cpp_at(c, i0, c->batch))
        return 1;
    w->items += c->batch;
    w->bytes += w1_bytes(c, i0, c->batch);
    return 0;
}

static int case_w1_parse_cpp_only(void *p, bench_work *w)
{
    ctx *c = p;
    size_t i0 = take(&c->w1_next, c->w1.n, c->batch);
    if (peer_w1_parse_only(c->peer, c->w1_views + i0, c->batch))
        return die("peer_w1_parse_only", peer_last_error(c->peer));
    w->items += c->batch;
    w->bytes += w1_bytes(c, i0, c->batch);
    return 0;
}

/* ==================================================================== W1 checks */

/* Every serializer gives the reference bytes, every parser the generated values. */
static int w1_verify(ctx *c)
{
    size_t b = c->batch, nb = c->w1.n / b;
    for (size_t k = 0; k < nb; k++) {
        size_t i0 = k * b, written;
        const uint8_t *ref = c->w1_rec + c->w1_off[i0];
        size_t ref_len = (size_t)w1_bytes(c, i0, b);
        static const char *const what[4] = {"tfn_encode_columns (batch)", "tfnano builder",
                                            "C++ deterministic", "C++ default"};
        for (int m = 0; m < 4; m++) {
            int rc = m == 0   ? w1_ser_columns_at(c, i0, b, &written)
                     : m == 1 ? w1_ser_builder_at(c, i0, b, &written)
                              : w1_ser_cpp_at(c, i0, b, m == 2, &written);
            if (rc)
                return 1;
            if (written != ref_len || (m != 3 && memcmp(c->dst, ref, ref_len) != 0)) {
                fprintf(stderr, "bench_example: %s bytes differ from the reference (batch %zu)\n",
                        what[m], k);
                return 1;
            }
        }
        for (int m = 0; m < 3; m++) {
            memset(c->out_labels, 0, sizeof(float) * W1_LABELS * b);
            for (size_t j = 0; j < W1_NINT; j++)
                memset(c->out_ints[j], 0, sizeof(int32_t) * W1_MAXLEN * b);
            int rc = m == 0   ? w1_parse_batch_at(c, i0, b)
                     : m == 1 ? w1_parse_single_at(c, i0, b)
                              : w1_parse_cpp_at(c, i0, b);
            if (rc)
                return 1;
            for (size_t i = 0; i < b; i++) {
                for (size_t j = 0; j < W1_NINT; j++) {
                    const int64_t *src = w1_row(&c->w1, j, i0 + i);
                    for (size_t t = 0; t < W1_MAXLEN; t++)
                        if (c->out_ints[j][i * W1_MAXLEN + t] != src[t]) {
                            fprintf(stderr, "bench_example: parse path %d: wrong value\n", m);
                            return 1;
                        }
                }
                if (memcmp(c->out_labels + i * W1_LABELS, w1_label_row(&c->w1, i0 + i),
                           sizeof(float) * W1_LABELS) != 0) {
                    fprintf(stderr, "bench_example: parse path %d: wrong labels\n", m);
                    return 1;
                }
            }
        }
    }
    printf("W1 checks: tfnano columns, tfnano builder and C++ deterministic serialization give "
           "identical bytes; all 3 parse paths give the generated values (%zu examples)\n",
           nb * b);
    return 0;
}

/* ==================================================================== W2 */

enum { W2_NFEAT = W2_NSCALAR + 2 }; /* scalars, image, name */

static int w2_setup(ctx *c, size_t n)
{
    if (w2_generate(&c->w2, n, W2_SEED))
        return die("w2_generate", "out of memory");
    tfn_column cols[W2_NFEAT];
    for (size_t j = 0; j < W2_NSCALAR; j++)
        cols[j] = (tfn_column){w2_scalar_keys[j], strlen(w2_scalar_keys[j]), TFN_INT64,
                               c->w2.scalars[j], 1, NULL, NULL};
    cols[W2_NSCALAR] = (tfn_column){w2_image_key, strlen(w2_image_key), TFN_BYTES,
                                    c->w2.images, 1, NULL, c->w2.image_offsets};
    cols[W2_NSCALAR + 1] = (tfn_column){w2_name_key, strlen(w2_name_key), TFN_BYTES,
                                        c->w2.names, 1, NULL, c->w2.name_offsets};
    tfn_error err;
    uint64_t total = 0;
    if (tfn_encode_columns_size(cols, W2_NFEAT, n, NULL, &total, &err))
        return die("tfn_encode_columns_size (W2)", err.msg);
    c->w2_rec = malloc((size_t)total);
    c->w2_off = malloc(sizeof(uint64_t) * (n + 1));
    c->w2_views = malloc(sizeof(tfn_bytes) * n);
    c->w2_image_pos = malloc(sizeof(size_t) * n);
    c->image_cap = c->w2.max_image;
    c->image_dst = malloc(c->image_cap);
    if (!c->w2_rec || !c->w2_off || !c->w2_views || !c->w2_image_pos || !c->image_dst)
        return die("w2_setup", "out of memory");
    size_t written;
    if (tfn_encode_columns(cols, W2_NFEAT, n, c->w2_rec, (size_t)total, c->w2_off, &written,
                           &err))
        return die("tfn_encode_columns (W2)", err.msg);
    for (size_t i = 0; i < n; i++) {
        c->w2_views[i].data = c->w2_rec + c->w2_off[i];
        c->w2_views[i].len = (size_t)(c->w2_off[i + 1] - c->w2_off[i]);
    }

    tfn_feature_config cfg[W2_NFEAT];
    memset(cfg, 0, sizeof cfg);
    for (size_t j = 0; j < W2_NFEAT; j++) {
        cfg[j].key = j < W2_NSCALAR ? w2_scalar_keys[j] : j == W2_NSCALAR ? w2_image_key
                                                                          : w2_name_key;
        cfg[j].key_len = strlen(cfg[j].key);
        cfg[j].type = TFN_FIXED_LEN;
        cfg[j].dtype = j < W2_NSCALAR ? TFN_INT64 : TFN_BYTES;
        cfg[j].rank = 0; /* scalars: shape [] */
    }
    tfn_spec *spec = NULL;
    if (tfn_spec_new(cfg, W2_NFEAT, NULL, &spec, &err))
        return die("tfn_spec_new (W2)", err.msg);
    c->w2_parser = tfn_parser_new(spec, NULL);
    if (!c->w2_parser)
        return die("tfn_parser_new", "out of memory");
    printf("W2: %zu examples, %.0f bytes/example serialized\n", n, (double)total / (double)n);
    return 0;
}

typedef struct w2_out {
    int64_t scalars[W2_NSCALAR];
    tfn_bytes image, name;
} w2_out;

static int w2_parse_view_at(ctx *c, size_t i, w2_out *o)
{
    tfn_output outs[W2_NFEAT];
    memset(outs, 0, sizeof outs);
    for (size_t j = 0; j < W2_NSCALAR; j++)
        outs[j] = (tfn_output){&o->scalars[j], 1, -1, NULL, NULL};
    outs[W2_NSCALAR] = (tfn_output){&o->image, 1, -1, NULL, NULL};
    outs[W2_NSCALAR + 1] = (tfn_output){&o->name, 1, -1, NULL, NULL};
    tfn_error err;
    if (tfn_parser_parse(c->w2_parser, c->w2_views + i, 1, NULL, TFN_PARSE_SINGLE, outs, &err))
        return die("tfn_parser_parse (W2)", err.msg);
    return 0;
}

static int w2_parse_copy_at(ctx *c, size_t i, w2_out *o)
{
    if (w2_parse_view_at(c, i, o))
        return 1;
    if (o->image.len > c->image_cap || o->name.len > sizeof c->name_dst)
        return die("W2", "image or name longer than its destination");
    memcpy(c->image_dst, o->image.data, o->image.len);
    memcpy(c->name_dst, o->name.data, o->name.len);
    return 0;
}

static int case_w2_parse_view(void *p, bench_work *w)
{
    ctx *c = p;
    size_t i = take(&c->w2_next, c->w2.n, 1);
    w2_out o;
    if (w2_parse_view_at(c, i, &o))
        return 1;
    bench_keep(&o);
    w->items += 1;
    w->bytes += c->w2_views[i].len;
    return 0;
}

static int case_w2_parse_copy(void *p, bench_work *w)
{
    ctx *c = p;
    size_t i = take(&c->w2_next, c->w2.n, 1);
    w2_out o;
    if (w2_parse_copy_at(c, i, &o))
        return 1;
    bench_keep(c->image_dst);
    w->items += 1;
    w->bytes += c->w2_views[i].len;
    return 0;
}

static int case_w2_parse_cpp(void *p, bench_work *w)
{
    ctx *c = p;
    size_t i = take(&c->w2_next, c->w2.n, 1);
    int64_t scalars[W2_NSCALAR];
    size_t image_len, name_len;
    if (peer_w2_parse(c->peer, c->w2_views + i, c->image_dst, c->image_cap, &image_len,
                      c->name_dst, sizeof c->name_dst, &name_len, scalars))
        return die("peer_w2_parse", peer_last_error(c->peer));
    bench_keep(c->image_dst);
    w->items += 1;
    w->bytes += c->w2_views[i].len;
    return 0;
}

/* The floor: one memcpy of the image bytes out of the record. */
static int case_w2_memcpy(void *p, bench_work *w)
{
    ctx *c = p;
    size_t i = take(&c->w2_next, c->w2.n, 1), len;
    (void)w2_image(&c->w2, i, &len);
    memcpy(c->image_dst, c->w2_views[i].data + c->w2_image_pos[i], len);
    bench_keep(c->image_dst);
    w->items += 1;
    w->bytes += c->w2_views[i].len;
    return 0;
}

static int w2_verify(ctx *c)
{
    for (size_t i = 0; i < c->w2.n; i++) {
        size_t len, nlen;
        const uint8_t *img = w2_image(&c->w2, i, &len);
        const uint8_t *name = w2_name(&c->w2, i, &nlen);
        w2_out o;
        if (w2_parse_copy_at(c, i, &o))
            return 1;
        int bad = o.image.len != len || memcmp(c->image_dst, img, len) != 0 ||
                  o.name.len != nlen || memcmp(c->name_dst, name, nlen) != 0;
        for (size_t j = 0; j < W2_NSCALAR; j++)
            bad |= o.scalars[j] != c->w2.scalars[j][i];
        /* The image view points into the record: that is where the floor copies from. */
        bad |= o.image.data < c->w2_views[i].data ||
               o.image.data + len > c->w2_views[i].data + c->w2_views[i].len;
        if (bad)
            return die("W2 check", "tfnano parse gave wrong values");
        c->w2_image_pos[i] = (size_t)(o.image.data - c->w2_views[i].data);

        int64_t scalars[W2_NSCALAR];
        size_t image_len, name_len;
        memset(c->image_dst, 0, c->image_cap);
        if (peer_w2_parse(c->peer, c->w2_views + i, c->image_dst, c->image_cap, &image_len,
                          c->name_dst, sizeof c->name_dst, &name_len, scalars))
            return die("peer_w2_parse", peer_last_error(c->peer));
        bad = image_len != len || memcmp(c->image_dst, img, len) != 0 || name_len != nlen ||
              memcmp(c->name_dst, name, nlen) != 0;
        for (size_t j = 0; j < W2_NSCALAR; j++)
            bad |= scalars[j] != c->w2.scalars[j][i];
        if (bad)
            return die("W2 check", "C++ parse gave wrong values");
    }
    printf("W2 checks: tfnano and C++ parses give the generated values (%zu examples)\n",
           c->w2.n);
    return 0;
}

/* ==================================================================== main */

static size_t env_size(const char *name, size_t dflt)
{
    const char *v = getenv(name);
    long x = v ? atol(v) : 0;
    return x > 0 ? (size_t)x : dflt;
}

int main(void)
{
    static ctx c;
    bench_config cfg = bench_config_from_env();
    c.batch = env_size("BENCH_BATCH", 256);
    size_t n1 = env_size("BENCH_W1_N", W1_DEFAULT_N), n2 = env_size("BENCH_W2_N", W2_DEFAULT_N);
    if (n1 < c.batch)
        n1 = c.batch;

    bench_print_env("bench_example");
    printf("bench_example: tfnano %s, libprotobuf %s; best and median of %d runs x %.2f s; "
           "batch %zu\n",
           TFN_VERSION_STRING, peer_version(), cfg.runs, cfg.budget_s, c.batch);
    c.peer = peer_new();
    if (!c.peer)
        return die("peer_new", "out of memory");
    if (w1_setup(&c, n1) || w1_verify(&c) || w2_setup(&c, n2) || w2_verify(&c))
        return 1;

    bench_result r_cols, r_build, r_cdet, r_cfast, r_copy;
    bench_print_title("W1 serialize from dense arrays (ns per example)");
    r_cols = bench_run("tfnano tfn_encode_columns (one call per batch)", case_w1_ser_columns,
                       &c, &cfg);
    bench_print_row(&r_cols, &r_cols);
    r_build = bench_run("tfnano builder set_* + serialize, per example", case_w1_ser_builder,
                        &c, &cfg);
    bench_print_row(&r_build, &r_cols);
    r_cdet = bench_run("C++ arena build + deterministic serialize", case_w1_ser_cpp_det, &c,
                       &cfg);
    bench_print_row(&r_cdet, &r_cols);
    r_cfast = bench_run("C++ arena build + default serialize (unsorted keys)",
                        case_w1_ser_cpp_fast, &c, &cfg);
    bench_print_row(&r_cfast, &r_cols);
    r_copy = bench_run("floor: memcpy of the serialized batch", case_w1_memcpy, &c, &cfg);
    bench_print_row(&r_copy, &r_cols);

    bench_result r_pb, r_ps, r_pcpp, r_pcpp_only;
    bench_print_title("W1 parse into int32 dense outputs (ns per example)");
    r_pb = bench_run("tfnano tfn_parser_parse, batches", case_w1_parse_batch, &c, &cfg);
    bench_print_row(&r_pb, &r_pb);
    r_ps = bench_run("tfnano tfn_parser_parse, one example per call", case_w1_parse_single, &c,
                     &cfg);
    bench_print_row(&r_ps, &r_pb);
    r_pcpp = bench_run("C++ arena ParseFromArray + copy to int32", case_w1_parse_cpp, &c, &cfg);
    bench_print_row(&r_pcpp, &r_pb);
    r_pcpp_only = bench_run("C++ arena ParseFromArray alone (no copy out)",
                            case_w1_parse_cpp_only, &c, &cfg);
    bench_print_row(&r_pcpp_only, &r_pb);
    bench_print_row(&r_copy, &r_pb);

    bench_result r_wv, r_wc, r_wcpp, r_wm;
    bench_print_title("W2 parse, one example per call (ns per example)");
    r_wm = bench_run("floor: memcpy of the image", case_w2_memcpy, &c, &cfg);
    bench_print_row(&r_wm, &r_wm);
    r_wv = bench_run("tfnano parse, image as a zero-copy view", case_w2_parse_view, &c, &cfg);
    bench_print_row(&r_wv, &r_wm);
    r_wc = bench_run("tfnano parse + memcpy of the image", case_w2_parse_copy, &c, &cfg);
    bench_print_row(&r_wc, &r_wm);
    r_wcpp = bench_run("C++ arena ParseFromArray + copy of the image", case_w2_parse_cpp, &c,
                       &cfg);
    bench_print_row(&r_wcpp, &r_wm);

    printf("\n");
    double ser = bench_ratio("W1 serialize: C++ deterministic / tfnano columns", &r_cols, &r_cdet);
    bench_ratio("W1 serialize: C++ deterministic / tfnano builder", &r_build, &r_cdet);
    bench_ratio("W1 serialize: C++ default order / tfnano columns", &r_cols, &r_cfast);
    double par = bench_ratio("W1 parse: C++ parse+copy / tfnano batch", &r_pb, &r_pcpp);
    bench_ratio("W1 parse: C++ parse+copy / tfnano one at a time", &r_ps, &r_pcpp);
    bench_ratio("W1 parse: tfnano batch / memcpy of the batch (floor)", &r_copy, &r_pb);
    bench_ratio("W2 parse: C++ parse+copy / tfnano parse+memcpy", &r_wc, &r_wcpp);
    double w2 = bench_ratio("W2 parse: tfnano parse+memcpy / memcpy (floor)", &r_wm, &r_wc);
    bench_ratio("W2 parse: tfnano parse (view) / memcpy (floor)", &r_wm, &r_wv);
    bench_target("W1 serialize >= 1.5x faster than C++", ser, 1.5);
    bench_target("W1 parse to int32 >= 2x faster than C++", par, 2.0);
    bench_target_at_most("W2 parse + memcpy within 2x of memcpy", w2, 2.0);
    const bench_result *all[] = {&r_cols, &r_build, &r_cdet, &r_cfast, &r_copy, &r_pb, &r_ps,
                                 &r_pcpp, &r_pcpp_only, &r_wv, &r_wc, &r_wcpp, &r_wm};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        if (all[k]->failed && !all[k]->skipped)
            return 1;
    return 0;
}

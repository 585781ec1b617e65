/* test_pipeline.c - the threaded pipeline (lib/pipeline): record order equal to
 * tf.data's interleave for several cycle/block lengths over uneven inputs, raw and
 * parsed batches identical to tfn_parser_parse on the same records, drop_remainder,
 * damaged inputs and parse errors under both policies (errors in order, then the
 * stream goes on), freeing while workers wait or hold batches, many inputs, no
 * records, timeouts. Run under ASan+UBSan and TSan by the Makefile's sanitizer modes. */
#include "harness.h"
#include "test_record_util.h"
#include "tfnano.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

/* ---------------------------------------------------------------- inputs */

/* Payload length of the framed record at p. */
static uint64_t tfn__test_load_len(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

enum { MAX_INPUTS = 80, MAX_RECORDS = 4096 };

/* Inputs built in memory (and written to files when a test wants paths). */
typedef struct inputs {
    size_t n;
    tbuf stream[MAX_INPUTS];
    tfn_bytes buffers[MAX_INPUTS];
    size_t counts[MAX_INPUTS];
    char dir[64];
    char *paths[MAX_INPUTS];
} inputs;

static void raw_payload(char *out, size_t cap, size_t input, size_t k)
{
    snprintf(out, cap, "input %zu record %zu%.*s", input, k, (int)((input * 7 + k) % 13),
             "xxxxxxxxxxxxx");
}

/* Input i holds counts[i] raw records "input i record k...". */
static void make_raw_inputs(inputs *in, const size_t *counts, size_t n)
{
    memset(in, 0, sizeof *in);
    in->n = n;
    for (size_t i = 0; i < n; i++) {
        in->counts[i] = counts[i];
        for (size_t k = 0; k < counts[i]; k++) {
            char p[64];
            raw_payload(p, sizeof p, i, k);
            tbuf_frame(&in->stream[i], p, strlen(p));
        }
        in->buffers[i].data = in->stream[i].p;
        in->buffers[i].len = in->stream[i].n;
    }
}

static void write_files(inputs *in)
{
    snprintf(in->dir, sizeof in->dir, "/tmp/tfn_pipeline_XXXXXX");
    if (!mkdtemp(in->dir))
        abort();
    for (size_t i = 0; i < in->n; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/part-%03zu.tfrecord", in->dir, i);
        FILE *f = fopen(path, "wb");
        if (!f || (in->stream[i].n && fwrite(in->stream[i].p, 1, in->stream[i].n, f) !=
                                          in->stream[i].n))
            abort();
        fclose(f);
        in->paths[i] = strdup(path);
    }
}

static void free_inputs(inputs *in)
{
    for (size_t i = 0; i < in->n; i++) {
        if (in->paths[i]) {
            unlink(in->paths[i]);
            free(in->paths[i]);
        }
        tbuf_free(&in->stream[i]);
    }
    if (in->dir[0])
        rmdir(in->dir);
}

/* The order of tf.data's interleave(cycle, block), written from its definition: the
 * expected (input, record) pairs. */
static size_t expected_order(const size_t *counts, size_t n, size_t cycle, size_t block,
                             size_t *out_input, size_t *out_record)
{
    size_t slot_input[64], slot_pos[64];
    int open[64] = {0};
    size_t next = 0, total = 0, idx = 0, taken = 0, nopen = 0;
    for (;;) {
        if (!open[idx]) {
            if (next < n) {
                slot_input[idx] = next++;
                slot_pos[idx] = 0;
                open[idx] = 1;
                nopen++;
                continue;
            }
            if (nopen == 0)
                return total;
            idx = (idx + 1) % cycle;
            taken = 0;
            continue;
        }
        size_t in = slot_input[idx];
        if (slot_pos[idx] == counts[in]) {
            open[idx] = 0;
            nopen--;
            idx = (idx + 1) % cycle;
            taken = 0;
            continue;
        }
        out_input[total] = in;
        out_record[total] = slot_pos[idx]++;
        total++;
        if (++taken == block) {
            taken = 0;
            idx = (idx + 1) % cycle;
        }
    }
}

static void init_opts(tfn_pipeline_options *o, const inputs *in, size_t batch)
{
    tfn_pipeline_options_init(o);
    o->buffers = in->buffers;
    o->ninputs = in->n;
    o->batch_size = batch;
}

/* Reads every batch; appends each record's origin. Returns the number of batches,
 * or -1 on an unexpected status. */
static long drain(tfn_pipeline *p, size_t *inputs_out, size_t *records_out, size_t *total,
                  size_t *sizes)
{
    long batches = 0;
    for (;;) {
        tfn_pipeline_batch *b;
        tfn_error err;
        int rc = tfn_pipeline_next(p, -1, &b, &err);
        if (rc == TFN_END)
            return batches;
        if (rc != TFN_OK) {
            fprintf(stderr, "unexpected status %d: %s\n", rc, err.msg);
            return -1;
        }
        size_t n = tfn_pipeline_batch_count(b);
        if (sizes)
            sizes[batches] = n;
        for (size_t i = 0; i < n; i++) {
            size_t input;
            uint64_t rec;
            if (tfn_pipeline_batch_origin(b, i, &input, &rec, NULL) != TFN_OK)
                return -1;
            inputs_out[*total] = input;
            records_out[*total] = (size_t)rec;
            (*total)++;
        }
        tfn_pipeline_batch_free(b);
        batches++;
    }
}

/* ---------------------------------------------------------------- order */

static void test_interleave_by_hand(void)
{
    /* cycle 2, block 1 over A(3) B(1) C(2): TF gives A0 B0 A1 A2 C0 C1 */
    const size_t counts[3] = {3, 1, 2};
    inputs in;
    make_raw_inputs(&in, counts, 3);
    tfn_pipeline_options o;
    init_opts(&o, &in, 4);
    o.cycle_length = 2;
    tfn_pipeline *p;
    REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
    size_t gi[8], gr[8], total = 0;
    CHECK_EQ_INT(drain(p, gi, gr, &total, NULL), 2);
    const size_t ei[6] = {0, 1, 0, 0, 2, 2}, er[6] = {0, 0, 1, 2, 0, 1};
    CHECK_EQ_INT(total, 6);
    for (size_t k = 0; k < 6 && k < total; k++) {
        CHECK_EQ_INT(gi[k], ei[k]);
        CHECK_EQ_INT(gr[k], er[k]);
    }
    tfn_pipeline_free(p);
    free_inputs(&in);
}

static void test_order_equals_interleave(void)
{
    const size_t counts[9] = {5, 0, 17, 1, 9, 30, 2, 0, 11};
    const size_t cycles[5] = {1, 2, 3, 4, 12}, blocks[4] = {1, 2, 3, 16};
    const size_t batch_sizes[3] = {1, 7, 64};
    inputs in;
    make_raw_inputs(&in, counts, 9);
    static size_t ei[MAX_RECORDS], er[MAX_RECORDS], gi[MAX_RECORDS], gr[MAX_RECORDS];
    for (size_t c = 0; c < 5; c++)
        for (size_t bl = 0; bl < 4; bl++)
            for (size_t bs = 0; bs < 3; bs++) {
                size_t want = expected_order(counts, 9, cycles[c], blocks[bl], ei, er);
                tfn_pipeline_options o;
                init_opts(&o, &in, batch_sizes[bs]);
                o.cycle_length = cycles[c];
                o.block_length = blocks[bl];
                o.num_threads = 1 + (c + bl + bs) % 3;
                tfn_pipeline *p;
                REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
                size_t total = 0;
                long nb = drain(p, gi, gr, &total, NULL);
                CHECK_EQ_INT(nb, (long)((want + batch_sizes[bs] - 1) / batch_sizes[bs]));
                CHECK_EQ_INT(total, want);
                size_t bad = 0;
                for (size_t k = 0; k < want && k < total; k++)
                    bad += gi[k] != ei[k] || gr[k] != er[k];
                CHECK_EQ_INT(bad, 0);
                tfn_pipeline_free(p);
            }
    free_inputs(&in);
}

/* The payload bytes are the records of the inputs, also read from files. */
static void test_raw_bytes_from_files(void)
{
    const size_t counts[4] = {40, 3, 25, 0};
    inputs in;
    make_raw_inputs(&in, counts, 4);
    write_files(&in);
    static size_t ei[MAX_RECORDS], er[MAX_RECORDS];
    size_t want = expected_order(counts, 4, 3, 2, ei, er);
    tfn_pipeline_options o;
    init_opts(&o, &in, 16);
    o.paths = (const char *const *)in.paths;
    o.buffers = NULL;
    o.cycle_length = 3;
    o.block_length = 2;
    o.buffer_size = 64; /* records straddle buffer refills */
    tfn_pipeline *p;
    REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
    size_t k = 0;
    for (;;) {
        tfn_pipeline_batch *b;
        int rc = tfn_pipeline_next(p, -1, &b, NULL);
        if (rc == TFN_END)
            break;
        REQUIRE(rc == TFN_OK);
        const uint8_t *data;
        size_t len;
        const uint64_t *off;
        tfn_pipeline_batch_records(b, &data, &len, &off);
        CHECK_EQ_INT(off[0], 0);
        CHECK_EQ_INT(off[tfn_pipeline_batch_count(b)], len);
        for (size_t i = 0; i < tfn_pipeline_batch_count(b); i++, k++) {
            char exp[64];
            raw_payload(exp, sizeof exp, ei[k], er[k]);
            CHECK_MEM(data + off[i], off[i + 1] - off[i], exp, strlen(exp));
        }
        tfn_pipeline_batch_free(b);
    }
    CHECK_EQ_INT(k, want);
    tfn_pipeline_stats st;
    tfn_pipeline_stats_get(p, &st);
    CHECK_EQ_INT(st.records_read, want);
    CHECK_EQ_INT(st.batches, (want + 15) / 16);
    tfn_pipeline_free(p);
    free_inputs(&in);
}

/* Not deterministic: every record once, batches as whole runs of the order. */
static void test_not_deterministic_same_records(void)
{
    const size_t counts[5] = {50, 13, 70, 9, 31};
    inputs in;
    make_raw_inputs(&in, counts, 5);
    tfn_pipeline_options o;
    init_opts(&o, &in, 8);
    o.cycle_length = 2;
    o.deterministic = 0;
    o.num_threads = 4;
    tfn_pipeline *p;
    REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
    static size_t gi[MAX_RECORDS], gr[MAX_RECORDS];
    size_t total = 0;
    CHECK(drain(p, gi, gr, &total, NULL) > 0);
    CHECK_EQ_INT(total, 173);
    static unsigned char seen[5][80];
    memset(seen, 0, sizeof seen);
    size_t dup = 0;
    for (size_t k = 0; k < total; k++)
        dup += seen[gi[k]][gr[k]]++ != 0;
    CHECK_EQ_INT(dup, 0);
    tfn_pipeline_free(p);
    free_inputs(&in);
}

static void test_drop_remainder(void)
{
    const size_t counts[2] = {6, 4};
    inputs in;
    make_raw_inputs(&in, counts, 2);
    for (int drop = 0; drop < 2; drop++) {
        tfn_pipeline_options o;
        init_opts(&o, &in, 4);
        o.cycle_length = 2;
        o.drop_remainder = drop;
        tfn_pipeline *p;
        REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
        size_t gi[16], gr[16], sizes[8], total = 0;
        long nb = drain(p, gi, gr, &total, sizes);
        CHECK_EQ_INT(nb, drop ? 2 : 3);
        CHECK_EQ_INT(total, drop ? 8 : 10);
        if (nb == 3)
            CHECK_EQ_INT(sizes[2], 2);
        tfn_pipeline_free(p);
    }
    /* exactly full batches: nothing dropped, no empty batch */
    tfn_pipeline_options o;
    init_opts(&o, &in, 5);
    o.drop_remainder = 1;
    tfn_pipeline *p;
    REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
    size_t gi[16], gr[16], total = 0;
    CHECK_EQ_INT(drain(p, gi, gr, &total, NULL), 2);
    CHECK_EQ_INT(total, 10);
    tfn_pipeline_free(p);
    free_inputs(&in);
}

static void test_no_records(void)
{
    tfn_pipeline_options o;
    tfn_pipeline_options_init(&o);
    o.batch_size = 3;
    tfn_pipeline *p;
    REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
    tfn_pipeline_batch *b = (tfn_pipeline_batch *)&o;
    CHECK_EQ_INT(tfn_pipeline_next(p, -1, &b, NULL), TFN_END);
    CHECK(b == NULL);
    CHECK_EQ_INT(tfn_pipeline_next(p, 10, &b, NULL), TFN_END);
    tfn_pipeline_free(p);

    const size_t counts[3] = {0, 0, 0};
    inputs in;
    make_raw_inputs(&in, counts, 3);
    write_files(&in);
    init_opts(&o, &in, 2);
    o.paths = (const char *const *)in.paths;
    o.cycle_length = 2;
    REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
    CHECK_EQ_INT(tfn_pipeline_next(p, -1, &b, NULL), TFN_END);
    CHECK_EQ_INT(tfn_pipeline_next(p, -1, &b, NULL), TFN_END);
    tfn_pipeline_free(p);
    free_inputs(&in);
}

static void test_many_inputs(void)
{
    size_t counts[MAX_INPUTS];
    for (size_t i = 0; i < MAX_INPUTS; i++)
        counts[i] = (i * 37) % 11;
    inputs in;
    make_raw_inputs(&in, counts, MAX_INPUTS);
    write_files(&in);
    static size_t ei[MAX_RECORDS], er[MAX_RECORDS], gi[MAX_RECORDS], gr[MAX_RECORDS];
    size_t want = expected_order(counts, MAX_INPUTS, 5, 2, ei, er);
    tfn_pipeline_options o;
    init_opts(&o, &in, 9);
    o.paths = (const char *const *)in.paths;
    o.cycle_length = 5;
    o.block_length = 2;
    o.num_threads = 3;
    tfn_pipeline *p;
    REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
    size_t total = 0;
    CHECK(drain(p, gi, gr, &total, NULL) > 0);
    CHECK_EQ_INT(total, want);
    size_t bad = 0;
    for (size_t k = 0; k < want && k < total; k++)
        bad += gi[k] != ei[k] || gr[k] != er[k];
    CHECK_EQ_INT(bad, 0);
    tfn_pipeline_free(p);
    free_inputs(&in);
}

static void test_bad_options(void)
{
    tfn_pipeline_options o;
    tfn_pipeline_options_init(&o);
    tfn_pipeline *p = NULL;
    tfn_error err;
    CHECK_EQ_INT(tfn_pipeline_new(&o, NULL, &p, &err), TFN_E_INVALID_ARG); /* batch 0 */
    CHECK(strstr(err.msg, "batch_size") != NULL);
    o.batch_size = 2;
    o.cycle_length = 0;
    CHECK_EQ_INT(tfn_pipeline_new(&o, NULL, &p, &err), TFN_E_INVALID_ARG);
    o.cycle_length = 1;
    o.ninputs = 2;
    CHECK_EQ_INT(tfn_pipeline_new(&o, NULL, &p, &err), TFN_E_INVALID_ARG);
    o.ninputs = 0;
    o.on_parse_error = 7;
    CHECK_EQ_INT(tfn_pipeline_new(&o, NULL, &p, &err), TFN_E_INVALID_ARG);
    CHECK(p == NULL);
    CHECK_EQ_INT(tfn_pipeline_new(NULL, NULL, &p, &err), TFN_E_INVALID_ARG);
    tfn_pipeline_free(NULL);
    tfn_pipeline_batch_free(NULL);
    CHECK_STR(tfn_status_str(TFN_TIMEOUT), "TFN_TIMEOUT");
}

/* ---------------------------------------------------------------- parsing */

static tfn_spec *make_spec(void)
{
    static const int64_t shape2[1] = {2}, shape3[1] = {3}, step2[1] = {2};
    static const int64_t seq_default = -7;
    tfn_feature_config c[4];
    memset(c, 0, sizeof c);
    c[0].key = "id";
    c[0].key_len = 2;
    c[0].type = TFN_FIXED_LEN;
    c[0].dtype = TFN_INT64;
    c[0].out_dtype = TFN_INT32;
    c[0].shape = shape2;
    c[0].rank = 1;
    c[1].key = "f";
    c[1].key_len = 1;
    c[1].type = TFN_FIXED_LEN;
    c[1].dtype = TFN_FLOAT32;
    c[1].shape = shape3;
    c[1].rank = 1;
    c[2].key = "name";
    c[2].key_len = 4;
    c[2].type = TFN_FIXED_LEN;
    c[2].dtype = TFN_BYTES;
    c[3].key = "seq";
    c[3].key_len = 3;
    c[3].type = TFN_FIXED_LEN_SEQUENCE;
    c[3].dtype = TFN_INT64;
    c[3].shape = step2;
    c[3].rank = 1;
    c[3].default_value = &seq_default;
    c[3].default_count = 1;
    c[3].allow_missing = 1;
    tfn_spec *s = NULL;
    if (tfn_spec_new(c, 4, NULL, &s, NULL) != TFN_OK)
        abort();
    return s;
}

/* Record k of input i as an Example for make_spec(); `bad` makes it fail to parse
 * (1: not a protobuf, 2: "id" of the wrong kind). */
static void example_payload(tbuf *out, size_t input, size_t k, int bad)
{
    if (bad == 1) {
        static const uint8_t junk[4] = {0x0a, 0x7f, 0x01, 0x02};
        tbuf_put(out, junk, sizeof junk);
        return;
    }
    tfn_example *ex = tfn_example_new(NULL);
    int64_t id[2] = {(int64_t)input, (int64_t)k};
    float f[3] = {(float)k * 0.5f, -1.0f, (float)input};
    if (bad == 2)
        tfn_example_set_floats(ex, "id", 2, f, 2, NULL);
    else
        tfn_example_set_int64s(ex, "id", 2, id, 2, NULL);
    tfn_example_set_floats(ex, "f", 1, f, 3, NULL);
    char name[32];
    snprintf(name, sizeof name, "n%zu-%zu", input, k);
    tfn_bytes nb = {(const uint8_t *)name, strlen(name)};
    tfn_example_set_bytes(ex, "name", 4, &nb, 1, NULL);
    size_t steps = (input + k) % 4;
    int64_t seq[8];
    for (size_t t = 0; t < 2 * steps; t++)
        seq[t] = (int64_t)(100 * k + t);
    if (steps)
        tfn_example_set_int64s(ex, "seq", 3, seq, 2 * steps, NULL);
    const uint8_t *bytes;
    size_t len;
    if (tfn_example_serialize_owned(ex, &bytes, &len, NULL) != TFN_OK)
        abort();
    tbuf_put(out, bytes, len);
    tfn_example_free(ex);
}

/* Inputs of Examples; bad[i] lists (input, record, kind) triples to spoil. */
static void make_example_inputs(inputs *in, const size_t *counts, size_t n, const size_t *bad,
                                size_t nbad)
{
    memset(in, 0, sizeof *in);
    in->n = n;
    for (size_t i = 0; i < n; i++) {
        in->counts[i] = counts[i];
        for (size_t k = 0; k < counts[i]; k++) {
            int kind = 0;
            for (size_t b = 0; b < nbad; b++)
                if (bad[3 * b] == i && bad[3 * b + 1] == k)
                    kind = (int)bad[3 * b + 2];
            tbuf rec = {0};
            example_payload(&rec, i, k, kind);
            tbuf_frame(&in->stream[i], rec.p, rec.n);
            tbuf_free(&rec);
        }
        in->buffers[i].data = in->stream[i].p;
        in->buffers[i].len = in->stream[i].n;
    }
}

static size_t out_size(int dtype)
{
    return dtype == TFN_INT32 || dtype == TFN_FLOAT32 ? 4 : dtype == TFN_INT64 ? 8 : 16;
}

/* The batch's columns equal tfn_parser_parse on its records. */
static int check_batch_columns(const tfn_spec *spec, tfn_parser *ref, tfn_pipeline_batch *b,
                               int64_t max_rows, int masks)
{
    size_t n = tfn_pipeline_batch_count(b);
    const uint8_t *data;
    size_t len;
    const uint64_t *off;
    tfn_pipeline_batch_records(b, &data, &len, &off);
    tfn_bytes *views = calloc(n, sizeof *views);
    for (size_t i = 0; i < n; i++) {
        views[i].data = data + off[i];
        views[i].len = (size_t)(off[i + 1] - off[i]);
    }
    int bad = 0;
    if (tfn_parser_scan(ref, views, n, NULL, TFN_PARSE_BATCH, NULL) != TFN_OK) {
        free(views);
        return 1;
    }
    size_t nf = tfn_spec_size(spec);
    tfn_output outs[8];
    void *bufs[8];
    memset(outs, 0, sizeof outs);
    for (size_t j = 0; j < nf; j++) {
        tfn_pipeline_column c;
        if (tfn_pipeline_batch_column(b, j, &c) != TFN_OK)
            return 1;
        size_t cap = c.count ? c.count : 1;
        bufs[j] = calloc(cap, 16);
        outs[j].values = bufs[j];
        outs[j].capacity = c.count;
        outs[j].max_rows = j == 3 ? max_rows : -1;
        if (masks && j == 3) {
            outs[j].mask = calloc(n * c.rows + 1, 1);
            outs[j].lengths = calloc(n + 1, 8);
        }
    }
    if (tfn_parser_fill(ref, outs, NULL) != TFN_OK)
        bad++;
    for (size_t j = 0; j < nf && !bad; j++) {
        tfn_pipeline_column c;
        tfn_pipeline_batch_column(b, j, &c);
        if (c.count && ((uintptr_t)c.values % 64) != 0)
            bad++;
        if (c.dtype == TFN_BYTES) {
            const tfn_bytes *got = c.values, *exp = bufs[j];
            for (size_t e = 0; e < c.count; e++)
                bad += got[e].len != exp[e].len ||
                       (got[e].len && memcmp(got[e].data, exp[e].data, got[e].len) != 0);
        } else if (c.count) {
            bad += memcmp(c.values, bufs[j], c.count * out_size(c.dtype)) != 0;
        }
        if (j == 3 && masks) {
            bad += !c.mask || !c.lengths;
            if (c.mask)
                bad += memcmp(c.mask, outs[j].mask, n * c.rows) != 0;
            if (c.lengths)
                bad += memcmp(c.lengths, outs[j].lengths, n * 8) != 0;
        } else {
            bad += c.mask != NULL;
        }
    }
    for (size_t j = 0; j < nf; j++) {
        free(bufs[j]);
        free(outs[j].mask);
        free(outs[j].lengths);
    }
    free(views);
    return bad;
}

static void test_parsed_equal_parser(void)
{
    const size_t counts[4] = {33, 7, 0, 61};
    inputs in;
    make_example_inputs(&in, counts, 4, NULL, 0);
    tfn_spec *spec = make_spec();
    tfn_parser *ref = tfn_parser_new(spec, NULL);
    static size_t ei[MAX_RECORDS], er[MAX_RECORDS];
    size_t want = expected_order(counts, 4, 2, 3, ei, er);
    for (int variant = 0; variant < 4; variant++) {
        tfn_pipeline_options o;
        init_opts(&o, &in, variant == 3 ? 1 : 10);
        o.cycle_length = 2;
        o.block_length = 3;
        o.spec = spec;
        o.num_threads = (size_t)variant + 1;
        o.max_rows = variant == 1 ? 2 : -1;
        o.masks = variant >= 2;
        tfn_pipeline *p;
        REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
        size_t k = 0, bad = 0;
        for (;;) {
            tfn_pipeline_batch *b;
            tfn_error err;
            int rc = tfn_pipeline_next(p, -1, &b, &err);
            if (rc == TFN_END)
                break;
            REQUIRE(rc == TFN_OK);
            bad += (size_t)check_batch_columns(spec, ref, b, o.max_rows, o.masks);
            /* records are the expected ones in order */
            for (size_t i = 0; i < tfn_pipeline_batch_count(b); i++, k++) {
                size_t input;
                uint64_t rec;
                tfn_pipeline_batch_origin(b, i, &input, &rec, NULL);
                bad += input != ei[k] || rec != er[k];
            }
            tfn_pipeline_column c;
            CHECK_EQ_INT(tfn_pipeline_batch_column(b, 4, &c), TFN_E_INVALID_ARG);
            tfn_pipeline_batch_free(b);
        }
        CHECK_EQ_INT(k, want);
        CHECK_EQ_INT(bad, 0);
        tfn_pipeline_free(p);
    }
    tfn_parser_free(ref);
    tfn_spec_free(spec);
    free_inputs(&in);
}

/* A raw batch has no columns. */
static void test_raw_batch_has_no_columns(void)
{
    const size_t counts[1] = {3};
    inputs in;
    make_raw_inputs(&in, counts, 1);
    tfn_pipeline_options o;
    init_opts(&o, &in, 8);
    tfn_pipeline *p;
    REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
    tfn_pipeline_batch *b;
    REQUIRE(tfn_pipeline_next(p, -1, &b, NULL) == TFN_OK);
    tfn_pipeline_column c;
    CHECK_EQ_INT(tfn_pipeline_batch_column(b, 0, &c), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_pipeline_batch_origin(b, 3, NULL, NULL, NULL), TFN_E_INVALID_ARG);
    tfn_pipeline_batch_free(b);
    tfn_pipeline_free(p);
    free_inputs(&in);
}

/* ---------------------------------------------------------------- errors */

/* The text tfn_parser_scan gives for records [first, first + n) of a stream (batch
 * style), or for record first + i alone (single style). */
static void expected_parse_message(const tfn_spec *spec, const tbuf *stream, size_t first,
                                   size_t n, size_t i, int single, char *out, size_t cap)
{
    tfn_bytes views[16];
    size_t off = 0;
    for (size_t k = 0; k < first + n; k++) {
        const uint8_t *payload;
        size_t len, used;
        if (tfn_record_unframe(stream->p + off, stream->n - off, 0, &payload, &len, &used,
                               NULL) != TFN_OK)
            abort();
        if (k >= first) {
            views[k - first].data = payload;
            views[k - first].len = len;
        }
        off += used;
    }
    tfn_parser *ref = tfn_parser_new(spec, NULL);
    tfn_error err;
    int rc = single ? tfn_parser_scan(ref, &views[i], 1, NULL, TFN_PARSE_SINGLE, &err)
                    : tfn_parser_scan(ref, views, n, NULL, TFN_PARSE_BATCH, &err);
    snprintf(out, cap, "%s", rc < 0 ? err.msg : "(no error)");
    tfn_parser_free(ref);
}

static void test_parse_error_raise_in_order(void)
{
    /* one input; record 5 is not a protobuf, record 9 has a float "id" */
    const size_t counts[1] = {14};
    const size_t bad[6] = {0, 5, 1, 0, 9, 2};
    inputs in;
    make_example_inputs(&in, counts, 1, bad, 2);
    write_files(&in);
    tfn_spec *spec = make_spec();
    for (int single = 0; single < 2; single++) {
        tfn_pipeline_options o;
        init_opts(&o, &in, 4);
        o.paths = (const char *const *)in.paths;
        o.spec = spec;
        o.num_threads = 3;
        o.parse_flags = single ? TFN_PARSE_SINGLE : TFN_PARSE_BATCH;
        tfn_pipeline *p;
        REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
        tfn_pipeline_batch *b;
        tfn_error err;
        /* batch 0: records 0-3 */
        REQUIRE(tfn_pipeline_next(p, -1, &b, &err) == TFN_OK);
        CHECK_EQ_INT(tfn_pipeline_batch_count(b), 4);
        tfn_pipeline_batch_free(b);
        /* batch 1: records 4-7, record 5 fails: the whole batch is the error */
        int rc = tfn_pipeline_next(p, -1, &b, &err);
        CHECK_EQ_INT(rc, TFN_E_CORRUPT);
        CHECK(b == NULL);
        CHECK_EQ_INT(err.record_index, 5);
        char expected[1400];
        expected_parse_message(spec, &in.stream[0], 4, 4, 1, single, expected,
                               sizeof expected);
        char where[256];
        snprintf(where, sizeof where, "; file %s, record 5, offset ", in.paths[0]);
        CHECK(strncmp(err.msg, expected, strlen(expected)) == 0);
        CHECK(strstr(err.msg, where) == err.msg + strlen(expected));
        /* the offset is record 5's: five framed records before it */
        uint64_t offset5 = 0;
        for (size_t k = 0; k < 5; k++) {
            uint64_t l = tfn__test_load_len(in.stream[0].p + offset5);
            offset5 += l + 16;
        }
        CHECK_EQ_INT(err.offset, offset5);
        /* batch 2: records 8-11, record 9's id is a float list */
        rc = tfn_pipeline_next(p, -1, &b, &err);
        CHECK_EQ_INT(rc, TFN_E_TYPE);
        CHECK(strstr(err.msg, "Data types don't match") != NULL);
        CHECK_EQ_INT(err.record_index, 9);
        expected_parse_message(spec, &in.stream[0], 8, 4, 1, single, expected,
                               sizeof expected);
        CHECK(strncmp(err.msg, expected, strlen(expected)) == 0);
        /* batch 3: records 12-13, then the end */
        REQUIRE(tfn_pipeline_next(p, -1, &b, &err) == TFN_OK);
        CHECK_EQ_INT(tfn_pipeline_batch_count(b), 2);
        size_t input;
        uint64_t rec;
        tfn_pipeline_batch_origin(b, 0, &input, &rec, NULL);
        CHECK_EQ_INT(rec, 12);
        tfn_pipeline_batch_free(b);
        CHECK_EQ_INT(tfn_pipeline_next(p, -1, &b, &err), TFN_END);
        tfn_pipeline_free(p);
    }
    tfn_spec_free(spec);
    free_inputs(&in);
}

/* A short last batch that drop_remainder drops: records parsed one by one (as
 * TensorFlow's map_and_batch maps them before dropping the batch) still report a parse
 * error in it; batch-style parsing (batch, then parse_example) drops it unparsed. */
static void test_drop_remainder_parse_error(void)
{
    const size_t counts[1] = {14};
    const size_t bad[3] = {0, 13, 1};
    inputs in;
    make_example_inputs(&in, counts, 1, bad, 1);
    write_files(&in);
    tfn_spec *spec = make_spec();
    for (int single = 0; single < 2; single++) {
        tfn_pipeline_options o;
        init_opts(&o, &in, 4);
        o.paths = (const char *const *)in.paths;
        o.spec = spec;
        o.drop_remainder = 1;
        o.parse_flags = single ? TFN_PARSE_SINGLE : TFN_PARSE_BATCH;
        tfn_pipeline *p;
        REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
        tfn_pipeline_batch *b;
        tfn_error err;
        for (int k = 0; k < 3; k++) {
            REQUIRE(tfn_pipeline_next(p, -1, &b, &err) == TFN_OK);
            CHECK_EQ_INT(tfn_pipeline_batch_count(b), 4);
            tfn_pipeline_batch_free(b);
        }
        if (single) {
            CHECK_EQ_INT(tfn_pipeline_next(p, -1, &b, &err), TFN_E_CORRUPT);
            CHECK(b == NULL);
            CHECK_EQ_INT(err.record_index, 13);
        }
        CHECK_EQ_INT(tfn_pipeline_next(p, -1, &b, &err), TFN_END);
        tfn_pipeline_free(p);
    }
    tfn_spec_free(spec);
    free_inputs(&in);
}

static void test_parse_error_skip(void)
{
    const size_t counts[2] = {10, 6};
    const size_t bad[12] = {0, 1, 1, 0, 2, 2, 1, 0, 1, 1, 5, 2};
    inputs in;
    make_example_inputs(&in, counts, 2, bad, 4);
    tfn_spec *spec = make_spec();
    tfn_parser *ref = tfn_parser_new(spec, NULL);
    tfn_pipeline_options o;
    init_opts(&o, &in, 4);
    o.spec = spec;
    o.num_threads = 2;
    o.on_parse_error = TFN_ON_PARSE_ERROR_SKIP;
    tfn_pipeline *p;
    REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
    size_t sizes[8], nb = 0, total = 0, bad_cols = 0, saw_bad = 0;
    for (;;) {
        tfn_pipeline_batch *b;
        int rc = tfn_pipeline_next(p, -1, &b, NULL);
        if (rc == TFN_END)
            break;
        REQUIRE(rc == TFN_OK);
        sizes[nb++] = tfn_pipeline_batch_count(b);
        for (size_t i = 0; i < tfn_pipeline_batch_count(b); i++) {
            size_t input;
            uint64_t rec;
            tfn_pipeline_batch_origin(b, i, &input, &rec, NULL);
            for (size_t k = 0; k < 4; k++)
                saw_bad += bad[3 * k] == input && bad[3 * k + 1] == rec;
        }
        total += tfn_pipeline_batch_count(b);
        bad_cols += (size_t)check_batch_columns(spec, ref, b, -1, 0);
        tfn_pipeline_batch_free(b);
    }
    /* batches of 4 over 16 records: 0:0-3 (1, 2 dropped), 0:4-7, 0:8-9 + 1:0-1 (1:0
     * dropped), 1:2-5 (1:5 dropped) */
    CHECK_EQ_INT(nb, 4);
    CHECK_EQ_INT(sizes[0], 2);
    CHECK_EQ_INT(sizes[1], 4);
    CHECK_EQ_INT(sizes[2], 3);
    CHECK_EQ_INT(sizes[3], 3);
    CHECK_EQ_INT(total, 12);
    CHECK_EQ_INT(saw_bad, 0);
    CHECK_EQ_INT(bad_cols, 0);
    tfn_pipeline_stats st;
    tfn_pipeline_stats_get(p, &st);
    CHECK_EQ_INT(st.parse_skipped, 4);
    CHECK_EQ_INT(st.records_read, 16);
    tfn_pipeline_free(p);

    /* a batch whose every record fails is not handed out */
    const size_t all_bad[9] = {0, 0, 1, 0, 1, 1, 0, 2, 2};
    inputs in2;
    const size_t c2[1] = {5};
    make_example_inputs(&in2, c2, 1, all_bad, 3);
    init_opts(&o, &in2, 3);
    o.spec = spec;
    o.on_parse_error = TFN_ON_PARSE_ERROR_SKIP;
    REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
    tfn_pipeline_batch *b;
    REQUIRE(tfn_pipeline_next(p, -1, &b, NULL) == TFN_OK);
    CHECK_EQ_INT(tfn_pipeline_batch_count(b), 2);
    tfn_pipeline_batch_free(b);
    CHECK_EQ_INT(tfn_pipeline_next(p, -1, &b, NULL), TFN_END);
    tfn_pipeline_free(p);
    free_inputs(&in2);

    tfn_parser_free(ref);
    tfn_spec_free(spec);
    free_inputs(&in);
}

/* Flips a payload byte of record k of input i. */
static void damage_record(inputs *in, size_t i, size_t k)
{
    uint64_t off = 0;
    for (size_t r = 0; r < k; r++)
        off += tfn__test_load_len(in->stream[i].p + off) + 16;
    in->stream[i].p[off + 12] ^= 0x20;
}

static void test_damage_raise_and_skip(void)
{
    const size_t counts[3] = {8, 5, 6};
    for (int skip = 0; skip < 2; skip++) {
        inputs in;
        make_raw_inputs(&in, counts, 3);
        damage_record(&in, 1, 2);
        write_files(&in);
        tfn_pipeline_options o;
        init_opts(&o, &in, 3);
        o.paths = (const char *const *)in.paths;
        o.on_damage = skip ? TFN_ON_DAMAGE_SKIP : TFN_ON_DAMAGE_RAISE;
        o.num_threads = 2;
        tfn_pipeline *p;
        REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
        size_t got_input[32], got_rec[32], total = 0, errors = 0;
        for (;;) {
            tfn_pipeline_batch *b;
            tfn_error err;
            int rc = tfn_pipeline_next(p, -1, &b, &err);
            if (rc == TFN_END)
                break;
            if (rc < 0) {
                errors++;
                CHECK_EQ_INT(rc, TFN_E_DATA_LOSS);
                CHECK(strstr(err.msg, "corrupted record at") != NULL);
                CHECK(strstr(err.msg, in.paths[1]) != NULL);
                CHECK_EQ_INT(err.record_index, 2);
                CHECK_EQ_INT(total, 9); /* batches 0-2 came before it, in order */
                continue;
            }
            for (size_t r = 0; r < tfn_pipeline_batch_count(b); r++) {
                tfn_pipeline_batch_origin(b, r, &got_input[total], NULL, NULL);
                uint64_t rec;
                tfn_pipeline_batch_origin(b, r, NULL, &rec, NULL);
                got_rec[total++] = (size_t)rec;
            }
            tfn_pipeline_batch_free(b);
        }
        tfn_pipeline_stats st;
        tfn_pipeline_stats_get(p, &st);
        if (skip) {
            /* everything but input 1's record 2 */
            CHECK_EQ_INT(errors, 0);
            CHECK_EQ_INT(total, 18);
            CHECK_EQ_INT(st.damaged_regions, 1);
            CHECK(st.damaged_bytes > 0);
            /* input 1 gives 4 records (the reader numbers the good records it
             * returns: the one after the damage is its record 2) */
            size_t per_input[3] = {0, 0, 0};
            for (size_t k = 0; k < total; k++)
                per_input[got_input[k]]++;
            CHECK_EQ_INT(per_input[0], 8);
            CHECK_EQ_INT(per_input[1], 4);
            CHECK_EQ_INT(per_input[2], 6);
        } else {
            /* batches 0-2 hold 0:0-7 and 1:0; batch 3 read 1:1, then met the damage:
             * it is the error (1:1 dropped, as batch() drops a partial batch); input 1
             * ends there and input 2's six records follow */
            CHECK_EQ_INT(errors, 1);
            CHECK_EQ_INT(total, 15);
            CHECK_EQ_INT(got_input[total - 1], 2);
            CHECK_EQ_INT(got_input[8], 1);
            CHECK_EQ_INT(got_rec[8], 0);
            CHECK_EQ_INT(got_input[9], 2);
            CHECK_EQ_INT(st.damaged_regions, 0);
        }
        tfn_pipeline_free(p);
        free_inputs(&in);
    }
}

/* TensorFlow, files of 6, 5 and 4 records, record 2 of the second damaged, batches
 * of 4: `batch(4)` gives [0:0-3] [0:4-5 1:0-1] error [2:0-3]; the fused
 * `map(f).batch(4)` gives [0:0-3] [0:4-5 1:0-1] error [2:3] (the error took one of
 * its batch's four places, 2:0-2 the others). */
static void test_error_fills_batch(void)
{
    const size_t counts[3] = {6, 5, 4};
    inputs in;
    make_raw_inputs(&in, counts, 3);
    damage_record(&in, 1, 2);
    for (int fills = 0; fills < 2; fills++) {
        tfn_pipeline_options o;
        init_opts(&o, &in, 4);
        o.error_fills_batch = fills;
        o.num_threads = 2;
        tfn_pipeline *p;
        REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
        size_t sizes[8], first[8], nb = 0;
        int statuses[8];
        for (;;) {
            tfn_pipeline_batch *b;
            int rc = tfn_pipeline_next(p, -1, &b, NULL);
            if (rc == TFN_END || nb == 8)
                break;
            statuses[nb] = rc;
            sizes[nb] = rc == TFN_OK ? tfn_pipeline_batch_count(b) : 0;
            first[nb] = 0;
            if (rc == TFN_OK) {
                size_t input;
                uint64_t rec;
                tfn_pipeline_batch_origin(b, 0, &input, &rec, NULL);
                first[nb] = input * 100 + (size_t)rec;
                tfn_pipeline_batch_free(b);
            }
            nb++;
        }
        CHECK_EQ_INT(nb, 4);
        CHECK_EQ_INT(statuses[0], TFN_OK);
        CHECK_EQ_INT(statuses[1], TFN_OK);
        CHECK_EQ_INT(first[1], 4);
        CHECK_EQ_INT(statuses[2], TFN_E_DATA_LOSS);
        CHECK_EQ_INT(statuses[3], TFN_OK);
        CHECK_EQ_INT(sizes[3], fills ? 1 : 4);
        CHECK_EQ_INT(first[3], fills ? 203 : 200);
        tfn_pipeline_free(p);
    }
    free_inputs(&in);
}

static void test_missing_file_then_next(void)
{
    const size_t counts[2] = {3, 2};
    inputs in;
    make_raw_inputs(&in, counts, 2);
    write_files(&in);
    const char *paths[3] = {in.paths[0], "/nonexistent/tfn/none.tfrecord", in.paths[1]};
    tfn_pipeline_options o;
    init_opts(&o, &in, 2);
    o.paths = paths;
    o.ninputs = 3;
    tfn_pipeline *p;
    REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
    tfn_pipeline_batch *b;
    tfn_error err;
    REQUIRE(tfn_pipeline_next(p, -1, &b, &err) == TFN_OK); /* 0:0 0:1 */
    tfn_pipeline_batch_free(b);
    /* 0:2, then the open fails: that batch is the error */
    CHECK_EQ_INT(tfn_pipeline_next(p, -1, &b, &err), TFN_E_IO);
    CHECK_EQ_INT(err.sys_errno, ENOENT);
    CHECK(strstr(err.msg, "No such file or directory") != NULL);
    REQUIRE(tfn_pipeline_next(p, -1, &b, &err) == TFN_OK); /* 2's two records */
    size_t input;
    tfn_pipeline_batch_origin(b, 0, &input, NULL, NULL);
    CHECK_EQ_INT(input, 2);
    CHECK_EQ_INT(tfn_pipeline_batch_count(b), 2);
    tfn_pipeline_batch_free(b);
    CHECK_EQ_INT(tfn_pipeline_next(p, -1, &b, &err), TFN_END);
    tfn_pipeline_free(p);
    free_inputs(&in);
}

/* ---------------------------------------------------------------- teardown, timeouts */

static void test_free_while_blocked(void)
{
    const size_t counts[3] = {400, 400, 400};
    inputs in;
    make_example_inputs(&in, counts, 3, NULL, 0);
    tfn_spec *spec = make_spec();
    for (int round = 0; round < 6; round++) {
        tfn_pipeline_options o;
        init_opts(&o, &in, 5);
        o.spec = round % 2 ? spec : NULL;
        o.cycle_length = 3;
        o.prefetch = 1;
        o.num_threads = 4;
        tfn_pipeline *p;
        REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
        tfn_pipeline_batch *held = NULL;
        if (round >= 2) {
            REQUIRE(tfn_pipeline_next(p, -1, &held, NULL) == TFN_OK);
        }
        if (round >= 4) {
            /* wait until the workers have filled the window and block */
            struct timespec ts = {0, 20 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        tfn_pipeline_free(p); /* workers wait for room: they must stop */
        if (held) {
            /* a batch outlives its pipeline */
            CHECK_EQ_INT(tfn_pipeline_batch_count(held), 5);
            const uint8_t *data;
            size_t len;
            const uint64_t *off;
            tfn_pipeline_batch_records(held, &data, &len, &off);
            CHECK_EQ_INT(off[5], len);
            tfn_pipeline_batch_free(held);
        }
    }
    tfn_spec_free(spec);
    free_inputs(&in);
}

typedef struct fifo_writer {
    const char *path;
    const tbuf *stream;
} fifo_writer;

static void *write_fifo(void *arg)
{
    fifo_writer *fw = arg;
    FILE *f = fopen(fw->path, "wb");
    if (!f)
        return NULL;
    fwrite(fw->stream->p, 1, fw->stream->n, f);
    fclose(f);
    return NULL;
}

static void test_timeout(void)
{
    /* the input is a FIFO nobody writes yet: the worker waits in open() */
    const size_t counts[1] = {7};
    inputs in;
    make_raw_inputs(&in, counts, 1);
    char dir[] = "/tmp/tfn_fifo_XXXXXX";
    REQUIRE(mkdtemp(dir) != NULL);
    char path[64];
    snprintf(path, sizeof path, "%s/in.fifo", dir);
    REQUIRE(mkfifo(path, 0600) == 0);
    const char *paths[1] = {path};
    tfn_pipeline_options o;
    init_opts(&o, &in, 4);
    o.paths = paths;
    tfn_pipeline *p;
    REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
    tfn_pipeline_batch *b = NULL;
    CHECK_EQ_INT(tfn_pipeline_next(p, 30, &b, NULL), TFN_TIMEOUT);
    CHECK(b == NULL);
    CHECK_EQ_INT(tfn_pipeline_next(p, 0, &b, NULL), TFN_TIMEOUT);
    fifo_writer fw = {path, &in.stream[0]};
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, write_fifo, &fw) == 0);
    size_t total = 0;
    for (;;) {
        int rc = tfn_pipeline_next(p, 20, &b, NULL);
        if (rc == TFN_TIMEOUT)
            continue;
        if (rc != TFN_OK) {
            CHECK_EQ_INT(rc, TFN_END);
            break;
        }
        total += tfn_pipeline_batch_count(b);
        tfn_pipeline_batch_free(b);
    }
    pthread_join(t, NULL);
    CHECK_EQ_INT(total, 7);
    tfn_pipeline_free(p);
    unlink(path);
    rmdir(dir);
    free_inputs(&in);
}

/* A worker blocked in an open() that never returns (a FIFO without a writer): free
 * lets it go after its wait and the worker frees the pipeline once the call returns. */
static void test_free_while_stuck_in_io(void)
{
    char dir[] = "/tmp/tfn_fifo_XXXXXX";
    REQUIRE(mkdtemp(dir) != NULL);
    char path[64];
    snprintf(path, sizeof path, "%s/stuck.fifo", dir);
    REQUIRE(mkfifo(path, 0600) == 0);
    const char *paths[1] = {path};
    tfn_pipeline_options o;
    tfn_pipeline_options_init(&o);
    o.paths = paths;
    o.ninputs = 1;
    o.batch_size = 2;
    tfn_pipeline *p;
    REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
    tfn_pipeline_batch *b;
    CHECK_EQ_INT(tfn_pipeline_next(p, 10, &b, NULL), TFN_TIMEOUT);
    tfn_pipeline_free(p); /* returns although the worker is still in open() */
    /* let the worker's open() return so that it can finish and free the pipeline. Not
     * blocking: on a loaded machine the worker may have seen the stop before it reached
     * open(), and a blocking open would then wait for a reader forever (ENXIO instead). */
    int fd = open(path, O_WRONLY | O_NONBLOCK);
    if (fd >= 0)
        close(fd);
    struct timespec ts = {0, 300 * 1000 * 1000};
    nanosleep(&ts, NULL);
    unlink(path);
    rmdir(dir);
}

static long minor_faults(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

/* A warm pipeline reuses its batches' memory: 40 more batches of 1 MB of records and
 * outputs take (almost) no page fault, where one fresh batch would take ~500. */
static void test_warm_pipeline_does_not_fault(void)
{
    enum { RECS = 64 * 60, WIDTH = 2048 };
    static const int64_t shape[1] = {WIDTH};
    tfn_feature_config c;
    memset(&c, 0, sizeof c);
    c.key = "v";
    c.key_len = 1;
    c.type = TFN_FIXED_LEN;
    c.dtype = TFN_INT64;
    c.shape = shape;
    c.rank = 1;
    tfn_spec *spec;
    REQUIRE(tfn_spec_new(&c, 1, NULL, &spec, NULL) == TFN_OK);
    inputs in;
    memset(&in, 0, sizeof in);
    in.n = 1;
    tfn_example *ex = tfn_example_new(NULL);
    static int64_t values[WIDTH];
    for (size_t k = 0; k < RECS; k++) {
        for (size_t t = 0; t < WIDTH; t++)
            values[t] = (int64_t)(k * 31 + t);
        tfn_example_set_int64s(ex, "v", 1, values, WIDTH, NULL);
        const uint8_t *bytes;
        size_t len;
        REQUIRE(tfn_example_serialize_owned(ex, &bytes, &len, NULL) == TFN_OK);
        tbuf_frame(&in.stream[0], bytes, len);
    }
    tfn_example_free(ex);
    in.buffers[0].data = in.stream[0].p;
    in.buffers[0].len = in.stream[0].n;
    tfn_pipeline_options o;
    init_opts(&o, &in, 64);
    o.spec = spec;
    o.num_threads = 2;
    tfn_pipeline *p;
    REQUIRE(tfn_pipeline_new(&o, NULL, &p, NULL) == TFN_OK);
    long before = 0;
    size_t batches = 0;
    for (;;) {
        tfn_pipeline_batch *b;
        int rc = tfn_pipeline_next(p, -1, &b, NULL);
        if (rc == TFN_END)
            break;
        REQUIRE(rc == TFN_OK);
        tfn_pipeline_batch_free(b);
        if (++batches == 20)
            before = minor_faults();
    }
    long faults = minor_faults() - before;
    CHECK_EQ_INT(batches, 60);
    /* sanitizer runtimes fault on their own bookkeeping: under ASan, only require
     * far fewer faults than fresh batches would take (256 pages each); TSan's shadow
     * memory is remapped as it likes, so there is nothing to compare under it */
#if defined(__SANITIZE_THREAD__)
    const long limit = LONG_MAX;
#elif defined(__SANITIZE_ADDRESS__)
    const long limit = 40 * 64;
#else
    /* valgrind (its preload library is in LD_PRELOAD) faults on its own too */
    const char *preload = getenv("LD_PRELOAD");
    /* on a loaded machine the workers may run ahead of this thread and take a few
     * more blocks into circulation (each 1 MiB: 256 pages) before the pool's count
     * settles; fresh batches would fault 40 x 256 times */
    const long limit = preload && strstr(preload, "vgpreload") ? 40 * 64 : 8 * 256;
#endif
    CHECK(faults < limit);
    if (faults >= limit)
        fprintf(stderr, "  %ld page faults in 40 warm batches\n", faults);
    tfn_pipeline_free(p);
    tfn_spec_free(spec);
    free_inputs(&in);
}

/* Many pipelines at once, each drained by its own thread (TSan's workout). */
typedef struct drain_job {
    const inputs *in;
    const tfn_spec *spec;
    size_t records;
} drain_job;

static void *drain_thread(void *arg)
{
    drain_job *j = arg;
    tfn_pipeline_options o;
    init_opts(&o, j->in, 7);
    o.spec = j->spec;
    o.cycle_length = 2;
    o.num_threads = 2;
    o.deterministic = 0;
    tfn_pipeline *p;
    if (tfn_pipeline_new(&o, NULL, &p, NULL) != TFN_OK)
        return NULL;
    tfn_pipeline_batch *b;
    while (tfn_pipeline_next(p, -1, &b, NULL) == TFN_OK) {
        j->records += tfn_pipeline_batch_count(b);
        tfn_pipeline_batch_free(b);
    }
    tfn_pipeline_free(p);
    return NULL;
}

static void test_concurrent_pipelines(void)
{
    const size_t counts[3] = {40, 25, 31};
    inputs in;
    make_example_inputs(&in, counts, 3, NULL, 0);
    tfn_spec *spec = make_spec();
    pthread_t t[4];
    drain_job jobs[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (drain_job){&in, i % 2 ? spec : NULL, 0};
        REQUIRE(pthread_create(&t[i], NULL, drain_thread, &jobs[i]) == 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        CHECK_EQ_INT(jobs[i].records, 96);
    }
    tfn_spec_free(spec);
    free_inputs(&in);
}

int main(void)
{
    RUN(test_interleave_by_hand);
    RUN(test_order_equals_interleave);
    RUN(test_raw_bytes_from_files);
    RUN(test_not_deterministic_same_records);
    RUN(test_drop_remainder);
    RUN(test_no_records);
    RUN(test_many_inputs);
    RUN(test_bad_options);
    RUN(test_parsed_equal_parser);
    RUN(test_raw_batch_has_no_columns);
    RUN(test_parse_error_raise_in_order);
    RUN(test_drop_remainder_parse_error);
    RUN(test_parse_error_skip);
    RUN(test_damage_raise_and_skip);
    RUN(test_error_fills_batch);
    RUN(test_missing_file_then_next);
    RUN(test_free_while_blocked);
    RUN(test_timeout);
    RUN(test_free_while_stuck_in_io);
    RUN(test_warm_pipeline_does_not_fault);
    RUN(test_concurrent_pipelines);
    return harness_finish();
}

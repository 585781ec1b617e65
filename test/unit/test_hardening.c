/*
 * test_hardening.c - untrusted lengths never drive allocation or arithmetic:
 *  - TFRecord headers claiming 2^60, 2^63 or about SIZE_MAX bytes, read from memory,
 *    files and callbacks, in every compression and damage policy, are reported as
 *    truncated or corrupt while a counting allocator sees only small allocations;
 *  - protobuf lengths nested inside an Example that claim more than what remains
 *    are TFN_E_CORRUPT for both tfn_example_decode and the parser;
 *  - size arithmetic on caller-given widths, row splits, offsets and lengths reports
 *    TFN_E_LIMIT / TFN_E_INVALID_ARG instead of wrapping around;
 *  - zlib errors stay put when retried (regressions found by fuzz_record_read).
 */
#include "harness.h"
#include "test_record_util.h"
#include "tfnano.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---------------------------------------------------------------- counting allocator */

/* Every block carries its size in a 16-byte prefix, so frees can be counted. */
typedef struct counter {
    size_t current, peak, largest, blocks;
} counter;

enum { PREFIX = 16 };

static void note(counter *c, size_t n)
{
    c->current += n;
    if (c->current > c->peak)
        c->peak = c->current;
    if (n > c->largest)
        c->largest = n;
}

static void *count_malloc(void *ctx, size_t n)
{
    counter *c = (counter *)ctx;
    if (n > SIZE_MAX - PREFIX)
        return NULL;
    uint8_t *p = (uint8_t *)malloc(n + PREFIX);
    if (!p)
        return NULL;
    memcpy(p, &n, sizeof n);
    note(c, n);
    c->blocks++;
    return p + PREFIX;
}

static void count_free(void *ctx, void *ptr)
{
    if (!ptr)
        return;
    counter *c = (counter *)ctx;
    uint8_t *p = (uint8_t *)ptr - PREFIX;
    size_t n;
    memcpy(&n, p, sizeof n);
    c->current -= n;
    c->blocks--;
    free(p);
}

static void *count_realloc(void *ctx, void *ptr, size_t old_size, size_t n)
{
    (void)old_size;
    if (!ptr)
        return count_malloc(ctx, n);
    void *q = count_malloc(ctx, n);
    if (!q)
        return NULL;
    size_t had;
    memcpy(&had, (uint8_t *)ptr - PREFIX, sizeof had);
    memcpy(q, ptr, had < n ? had : n);
    count_free(ctx, ptr);
    return q;
}

static tfn_alloc counting(counter *c)
{
    memset(c, 0, sizeof *c);
    tfn_alloc a = {count_malloc, count_realloc, count_free, c};
    return a;
}

/* What a reader may hold at most: its 1 MiB default buffer, zlib's 256 KiB input
 * buffer and inflate state, and small change. Far below any claimed length. */
#define READER_PEAK_LIMIT ((size_t)2 << 20)

/* ---------------------------------------------------------------- streams */

static void put_header(tbuf *b, uint64_t claimed)
{
    uint8_t h[12];
    for (int i = 0; i < 8; i++)
        h[i] = (uint8_t)(claimed >> (8 * i));
    uint32_t crc = tfn_crc32c_mask(tfn_crc32c(0, h, 8));
    for (int i = 0; i < 4; i++)
        h[8 + i] = (uint8_t)(crc >> (8 * i));
    tbuf_put(b, h, sizeof h);
}

/* A good record "ok", then a header with a valid CRC claiming `claimed` bytes, then
 * 100 bytes of filler. */
static void claiming_stream(uint64_t claimed, tbuf *b)
{
    memset(b, 0, sizeof *b);
    tbuf_frame(b, "ok", 2);
    put_header(b, claimed);
    uint8_t filler[100];
    memset(filler, 'z', sizeof filler);
    tbuf_put(b, filler, sizeof filler);
}

/* ZLIB (window bits 15) or GZIP (31) of src. */
static void deflate_to(const tbuf *src, int window_bits, tbuf *out)
{
    memset(out, 0, sizeof *out);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, 6, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        abort();
    uLong cap = deflateBound(&zs, (uLong)src->n);
    out->p = (uint8_t *)malloc(cap);
    out->cap = cap;
    zs.next_in = src->p;
    zs.avail_in = (uInt)src->n;
    zs.next_out = out->p;
    zs.avail_out = (uInt)cap;
    if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
        abort();
    out->n = cap - zs.avail_out;
    deflateEnd(&zs);
}

enum { KIND_MEM, KIND_FILE, KIND_IO, KINDS };

static const char *const kind_names[KINDS] = {"memory", "file", "callback"};

static int open_kind(int kind, const tbuf *data, const char *path, chunked_src *src,
                     const tfn_record_reader_options *o, const tfn_alloc *a,
                     tfn_record_reader **r, tfn_error *err)
{
    if (kind == KIND_MEM)
        return tfn_record_reader_open_mem(data->p, data->n, o, a, r, err);
    if (kind == KIND_FILE)
        return tfn_record_reader_open(path, o, a, r, err);
    *src = (chunked_src){data->p, data->n, 0, 1000}; /* at most 1000 bytes per read */
    tfn_io io = {.read = chunked_read, .ctx = src};
    return tfn_record_reader_open_io(&io, o, a, r, err);
}

/* ---------------------------------------------------------------- huge record headers */

static void check_claim(uint64_t claimed)
{
    static const int compressions[4] = {TFN_COMPRESSION_NONE, TFN_COMPRESSION_ZLIB,
                                         TFN_COMPRESSION_GZIP, TFN_COMPRESSION_AUTO};
    tbuf plain, streams[3];
    claiming_stream(claimed, &plain);
    streams[0] = plain;
    deflate_to(&plain, 15, &streams[1]);
    deflate_to(&plain, 31, &streams[2]);
    /* too large for size_t arithmetic: "record size too large"; else truncated */
    int too_large = claimed > SIZE_MAX - 16;
    for (int ci = 0; ci < 4; ci++) {
        /* AUTO reads the gzip stream (it must detect it) */
        const tbuf *data = ci == 3 ? &streams[2] : &streams[ci];
        char path[64];
        temp_path(path, sizeof path);
        REQUIRE(write_file(path, data->p, data->n) == 0);
        for (int kind = 0; kind < KINDS; kind++) {
            for (int skip = 0; skip < 2; skip++) {
                counter c;
                tfn_alloc a = counting(&c);
                tfn_record_reader_options o;
                tfn_record_reader_options_init(&o);
                o.compression = compressions[ci];
                o.on_damage = skip ? TFN_ON_DAMAGE_SKIP : TFN_ON_DAMAGE_RAISE;
                tfn_record_reader *r = NULL;
                chunked_src src;
                tfn_error err;
                REQUIRE(open_kind(kind, data, path, &src, &o, &a, &r, &err) == TFN_OK);
                const uint8_t *p;
                size_t n;
                CHECK_EQ_INT(tfn_record_reader_next(r, &p, &n, &err), TFN_OK);
                CHECK(n == 2 && memcmp(p, "ok", 2) == 0);
                int rc = tfn_record_reader_next(r, &p, &n, &err);
                if (too_large && skip) {
                    /* a length no record can have is damage: skipped to the end */
                    CHECK_EQ_INT(rc, TFN_END);
                } else if (too_large) {
                    CHECK_EQ_INT(rc, TFN_E_DATA_LOSS);
                    CHECK(strstr(err.msg, "record size too large") == err.msg);
                } else {
                    CHECK_EQ_INT(rc, TFN_E_TRUNCATED);
                    CHECK(strstr(err.msg, "truncated record at 18' failed with ") == err.msg);
                    CHECK_EQ_INT(err.offset, 18);
                    CHECK_EQ_INT(err.record_index, 1);
                }
                /* retrying gives the same answer, still without a big allocation */
                CHECK_EQ_INT(tfn_record_reader_next(r, &p, &n, &err), rc);
                if (c.peak > READER_PEAK_LIMIT || c.largest > ((size_t)1 << 20))
                    fprintf(stderr, "claim %llu, %s, compression %d, skip %d: peak %zu, "
                                    "largest %zu\n",
                            (unsigned long long)claimed, kind_names[kind], compressions[ci],
                            skip, c.peak, c.largest);
                CHECK(c.peak <= READER_PEAK_LIMIT);
                CHECK(c.largest <= ((size_t)1 << 20));
                tfn_record_reader_free(r);
                CHECK_EQ_INT(c.current, 0);
                CHECK_EQ_INT(c.blocks, 0);
            }
        }
        remove(path);
    }
    /* the index builder and the framing helper say the same */
    counter c;
    tfn_alloc a = counting(&c);
    tfn_record_reader *r = NULL;
    tfn_record_index *idx = NULL;
    tfn_error err;
    REQUIRE(tfn_record_reader_open_mem(plain.p, plain.n, NULL, &a, &r, &err) == TFN_OK);
    CHECK_EQ_INT(tfn_record_index_build(r, &a, &idx, &err),
                 too_large ? TFN_E_DATA_LOSS : TFN_E_TRUNCATED);
    CHECK(idx == NULL);
    tfn_record_reader_free(r);
    CHECK(c.peak < 4096);
    CHECK_EQ_INT(c.current, 0);
    const uint8_t *payload;
    size_t plen, consumed;
    CHECK_EQ_INT(tfn_record_unframe(plain.p + 18, plain.n - 18, 0, &payload, &plen, &consumed,
                                    &err),
                 too_large ? TFN_E_DATA_LOSS : TFN_E_TRUNCATED);
    if (!too_large)
        CHECK(consumed == (size_t)claimed + 16);
    for (int i = 0; i < 3; i++)
        tbuf_free(&streams[i]);
}

static void test_record_header_claims_2_60(void)
{
    check_claim((uint64_t)1 << 60);
}

static void test_record_header_claims_2_63(void)
{
    check_claim((uint64_t)1 << 63);
}

static void test_record_header_claims_size_max(void)
{
    check_claim((uint64_t)SIZE_MAX - 16); /* the largest that still fits a frame */
    check_claim((uint64_t)SIZE_MAX - 15); /* the smallest that does not */
    check_claim(UINT64_MAX);
}

/* Growing the window only as real data arrives: a header claiming 2^40 bytes followed
 * by 3 MiB of data makes the reader hold about that much, not 2^40. */
static void test_record_buffer_grows_with_data_only(void)
{
    tbuf b = {0};
    put_header(&b, (uint64_t)1 << 40);
    size_t more = (size_t)3 << 20;
    uint8_t *fill = (uint8_t *)calloc(1, more);
    REQUIRE(fill);
    tbuf_put(&b, fill, more);
    free(fill);
    chunked_src src;
    for (int kind = KIND_FILE; kind <= KIND_IO; kind++) {
        char path[64];
        temp_path(path, sizeof path);
        REQUIRE(write_file(path, b.p, b.n) == 0);
        counter c;
        tfn_alloc a = counting(&c);
        tfn_record_reader *r = NULL;
        tfn_error err;
        REQUIRE(open_kind(kind, &b, path, &src, NULL, &a, &r, &err) == TFN_OK);
        const uint8_t *p;
        size_t n;
        CHECK_EQ_INT(tfn_record_reader_next(r, &p, &n, &err), TFN_E_TRUNCATED);
        CHECK(c.largest <= ((size_t)8 << 20));
        tfn_record_reader_free(r);
        CHECK_EQ_INT(c.current, 0);
        remove(path);
    }
    tbuf_free(&b);
}

/* ---------------------------------------------------------------- nested protobuf lengths */

typedef struct msg {
    uint8_t b[128];
    size_t n;
} msg;

static void put_varint(msg *m, uint64_t v)
{
    while (v >= 0x80) {
        m->b[m->n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    m->b[m->n++] = (uint8_t)v;
}

static void put_raw(msg *m, const void *p, size_t n)
{
    memcpy(m->b + m->n, p, n);
    m->n += n;
}

/* A length-delimited field whose length is the truth. */
static void put_field(msg *m, unsigned field, const msg *inner)
{
    put_varint(m, (uint64_t)field << 3 | 2);
    put_varint(m, inner->n);
    put_raw(m, inner->b, inner->n);
}

/* A length-delimited field that claims `claimed` bytes but holds only `inner`. */
static void put_lying_field(msg *m, unsigned field, uint64_t claimed, const msg *inner)
{
    put_varint(m, (uint64_t)field << 3 | 2);
    put_varint(m, claimed);
    put_raw(m, inner->b, inner->n);
}

/* Example{features: Features{feature: {key: value}}} from a Feature message. */
static void wrap_feature(const msg *feature, msg *example)
{
    msg entry = {{0}, 0}, features = {{0}, 0};
    msg key = {{'a'}, 1};
    put_field(&entry, 1, &key);
    put_field(&entry, 2, feature);
    put_field(&features, 1, &entry);
    memset(example, 0, sizeof *example);
    put_field(example, 1, &features);
}

static const msg three = {{1, 2, 3}, 3};

/* Feature{<list_field>: List{<lying value field>}} */
static void lying_list(unsigned list_field, uint64_t claimed, msg *example)
{
    msg list = {{0}, 0}, feature = {{0}, 0};
    put_lying_field(&list, 1, claimed, &three);
    put_field(&feature, list_field, &list);
    wrap_feature(&feature, example);
}

/* What TensorFlow's fast parser (and so tfn_parser) makes of a lying length, as
 * checked against tensorflow 2.21: it reads list and packed-float lengths with
 * ReadVarint32, which keeps the low 32 bits, so a claim of 2^32, 2^62 or 2^63 is an
 * empty list there; it reads a packed int64 run up to the end of its list whatever
 * else the run claims. Everything else is "Can't parse serialized Example". (Where
 * TensorFlow itself crashes, on packed float/bytes claims of 2^31 or 2^63 - 1, tfnano
 * reports TFN_E_CORRUPT.) tfn_example_decode follows protobuf: always corrupt. */
enum { PARSE_CORRUPT, PARSE_EMPTY_IF_LOW32_ZERO, PARSE_READS_TO_LIST_END };

typedef struct nested_case {
    const char *what;
    int dtype; /* what the spec asks for key "a" */
    int parser_rule;
    msg example;
} nested_case;

static size_t nested_cases(nested_case *cases, uint64_t claimed)
{
    size_t k = 0;
    memset(cases, 0, 16 * sizeof *cases);
    nested_case *c;
    /* Example.features */
    c = &cases[k++];
    c->what = "Example.features";
    c->dtype = TFN_INT64;
    memset(&c->example, 0, sizeof c->example);
    put_lying_field(&c->example, 1, claimed, &three);
    /* Features.feature (a map entry) */
    c = &cases[k++];
    c->what = "Features map entry";
    c->dtype = TFN_INT64;
    {
        msg features = {{0}, 0};
        put_lying_field(&features, 1, claimed, &three);
        memset(&c->example, 0, sizeof c->example);
        put_field(&c->example, 1, &features);
    }
    /* map entry key */
    c = &cases[k++];
    c->what = "map entry key";
    c->dtype = TFN_INT64;
    {
        msg entry = {{0}, 0}, features = {{0}, 0};
        put_lying_field(&entry, 1, claimed, &three);
        put_field(&features, 1, &entry);
        memset(&c->example, 0, sizeof c->example);
        put_field(&c->example, 1, &features);
    }
    /* map entry value (the Feature) */
    c = &cases[k++];
    c->what = "map entry value";
    c->dtype = TFN_INT64;
    {
        msg entry = {{0}, 0}, features = {{0}, 0}, key = {{'a'}, 1};
        put_field(&entry, 1, &key);
        put_lying_field(&entry, 2, claimed, &three);
        put_field(&features, 1, &entry);
        memset(&c->example, 0, sizeof c->example);
        put_field(&c->example, 1, &features);
    }
    /* Feature.int64_list / float_list / bytes_list */
    static const unsigned list_fields[3] = {3, 2, 1};
    static const int list_dtypes[3] = {TFN_INT64, TFN_FLOAT32, TFN_BYTES};
    static const char *const list_names[3] = {"Feature.int64_list", "Feature.float_list",
                                              "Feature.bytes_list"};
    for (int i = 0; i < 3; i++) {
        c = &cases[k++];
        c->what = list_names[i];
        c->dtype = list_dtypes[i];
        c->parser_rule = PARSE_EMPTY_IF_LOW32_ZERO;
        msg feature = {{0}, 0};
        put_lying_field(&feature, list_fields[i], claimed, &three);
        wrap_feature(&feature, &c->example);
    }
    /* the value fields inside each list: packed runs and a bytes value */
    static const char *const value_names[3] = {"packed int64 run", "packed float run",
                                               "bytes value"};
    for (int i = 0; i < 3; i++) {
        c = &cases[k++];
        c->what = value_names[i];
        c->dtype = list_dtypes[i];
        c->parser_rule = i == 0 ? PARSE_READS_TO_LIST_END
                         : i == 1 ? PARSE_EMPTY_IF_LOW32_ZERO
                                  : PARSE_CORRUPT;
        lying_list(list_fields[i], claimed, &c->example);
    }
    return k;
}

static void check_nested(uint64_t claimed)
{
    nested_case cases[16];
    size_t n = nested_cases(cases, claimed);
    for (size_t i = 0; i < n; i++) {
        const nested_case *c = &cases[i];
        counter cnt;
        tfn_alloc a = counting(&cnt);
        tfn_error err;
        for (unsigned flags = 0; flags < 2; flags++) {
            tfn_example *ex = tfn_example_new(&a);
            REQUIRE(ex);
            int rc = tfn_example_decode(ex, c->example.b, c->example.n, flags, &err);
            if (rc != TFN_E_CORRUPT)
                fprintf(stderr, "decode %s claiming %llu: %d %s\n", c->what,
                        (unsigned long long)claimed, rc, err.msg);
            CHECK_EQ_INT(rc, TFN_E_CORRUPT);
            tfn_example_free(ex);
        }
        tfn_feature_config cfg = {.key = "a", .key_len = 1, .type = TFN_FIXED_LEN_SEQUENCE,
                                  .dtype = c->dtype, .allow_missing = 1};
        tfn_spec *spec = NULL;
        REQUIRE(tfn_spec_new(&cfg, 1, &a, &spec, &err) == TFN_OK);
        tfn_parser *p = tfn_parser_new(spec, &a);
        REQUIRE(p);
        tfn_bytes rec = {c->example.b, c->example.n};
        int want = TFN_E_CORRUPT;
        size_t rows = 0;
        if (c->parser_rule == PARSE_READS_TO_LIST_END) {
            want = TFN_OK;
            rows = (uint32_t)claimed == 0 ? 0 : 3;
        } else if (c->parser_rule == PARSE_EMPTY_IF_LOW32_ZERO && (uint32_t)claimed == 0) {
            want = TFN_OK;
        }
        for (unsigned flags = 0; flags < 2; flags++) {
            int rc = tfn_parser_scan(p, &rec, 1, NULL, flags, &err);
            if (rc != want)
                fprintf(stderr, "parse %s claiming %llu: %d %s\n", c->what,
                        (unsigned long long)claimed, rc, rc ? err.msg : "");
            CHECK_EQ_INT(rc, want);
            if (rc == TFN_OK)
                CHECK_EQ_INT(tfn_parser_rows(p, 0, 0), rows);
        }
        if (want == TFN_OK && rows == 3) {
            int64_t values[3] = {0, 0, 0};
            tfn_output out = {.values = values, .capacity = 3, .max_rows = -1};
            CHECK_EQ_INT(tfn_parser_parse(p, &rec, 1, NULL, TFN_PARSE_BATCH, &out, &err), TFN_OK);
            CHECK(values[0] == 1 && values[1] == 2 && values[2] == 3);
        }
        tfn_parser_free(p);
        tfn_spec_free(spec);
        CHECK(cnt.peak < 65536);
        CHECK_EQ_INT(cnt.current, 0);
    }
}

static void test_nested_lengths_beyond_input(void)
{
    check_nested(4);         /* one more than what follows */
    check_nested(127);       /* one-byte varint */
    check_nested(1u << 20);
    check_nested((uint64_t)1 << 31);
    check_nested((uint64_t)1 << 32);
}

static void test_nested_lengths_near_2_63(void)
{
    check_nested((uint64_t)1 << 62); /* times 4 (floats) wraps around */
    check_nested(((uint64_t)1 << 63) - 1);
    check_nested((uint64_t)1 << 63);
    check_nested(UINT64_MAX);
}

/* A packed run whose own length is right but whose count would overflow a size_t
 * multiplication can only be as long as the input: the length is checked first. */
static void test_nested_lengths_10_byte_varints(void)
{
    /* a length written as a 10-byte varint with high bits beyond 64 */
    static const uint8_t over[] = {0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0x7f, 0x01, 0x02};
    tfn_example *ex = tfn_example_new(NULL);
    tfn_error err;
    CHECK_EQ_INT(tfn_example_decode(ex, over, sizeof over, 0, &err), TFN_E_CORRUPT);
    tfn_example_free(ex);
    tfn_feature_config cfg = {.key = "a", .key_len = 1, .type = TFN_FIXED_LEN_SEQUENCE,
                              .dtype = TFN_INT64, .allow_missing = 1};
    tfn_spec *spec = NULL;
    REQUIRE(tfn_spec_new(&cfg, 1, NULL, &spec, &err) == TFN_OK);
    tfn_parser *p = tfn_parser_new(spec, NULL);
    tfn_bytes rec = {over, sizeof over};
    CHECK_EQ_INT(tfn_parser_scan(p, &rec, 1, NULL, TFN_PARSE_BATCH, &err), TFN_E_CORRUPT);
    tfn_parser_free(p);
    tfn_spec_free(spec);
}

/* ---------------------------------------------------------------- size arithmetic */

static void test_columns_huge_width(void)
{
    static const float f[4] = {1, 2, 3, 4};
    static const int64_t i64[4] = {1, 2, 3, 4};
    uint64_t total = 0, sizes[4];
    tfn_error err;
    /* 4 * width wraps around for floats; int64 values would be read far past the end */
    size_t widths[3] = {SIZE_MAX / 4 + 1, (size_t)1 << 40, (size_t)1 << 31};
    for (int w = 0; w < 3; w++) {
        tfn_column fc = {.key = "f", .key_len = 1, .dtype = TFN_FLOAT32, .values = f,
                         .width = widths[w]};
        CHECK_EQ_INT(tfn_encode_columns_size(&fc, 1, 1, sizes, &total, &err), TFN_E_LIMIT);
        tfn_column ic = {.key = "i", .key_len = 1, .dtype = TFN_INT64, .values = i64,
                         .width = widths[w]};
        CHECK_EQ_INT(tfn_encode_columns_size(&ic, 1, 1, sizes, &total, &err), TFN_E_LIMIT);
        uint8_t dst[64];
        size_t written = 0;
        CHECK_EQ_INT(tfn_encode_columns(&ic, 1, 1, dst, sizeof dst, NULL, &written, &err),
                     TFN_E_LIMIT);
    }
    /* n * width overflows size_t */
    tfn_column ic = {.key = "i", .key_len = 1, .dtype = TFN_INT64, .values = i64,
                     .width = SIZE_MAX / 2};
    CHECK_EQ_INT(tfn_encode_columns_size(&ic, 1, 4, sizes, &total, &err), TFN_E_LIMIT);
}

static void test_columns_huge_row_splits(void)
{
    static const float f[4] = {1, 2, 3, 4};
    static const int64_t i64[4] = {1, 2, 3, 4};
    static const char text[4] = "abcd";
    static const int64_t offs[3] = {0, 2, 4};
    uint64_t total = 0;
    tfn_error err;
    int64_t splits[3][2] = {{0, (int64_t)1 << 62}, {0, (int64_t)1 << 40}, {0, INT64_MAX}};
    for (int s = 0; s < 3; s++) {
        tfn_column fc = {.key = "f", .key_len = 1, .dtype = TFN_FLOAT32, .values = f,
                         .row_splits = splits[s]};
        CHECK_EQ_INT(tfn_encode_columns_size(&fc, 1, 1, NULL, &total, &err), TFN_E_LIMIT);
        tfn_column ic = {.key = "i", .key_len = 1, .dtype = TFN_INT64, .values = i64,
                         .row_splits = splits[s]};
        CHECK_EQ_INT(tfn_encode_columns_size(&ic, 1, 1, NULL, &total, &err), TFN_E_LIMIT);
        /* strings: the offsets array is not walked past what the rows could hold */
        tfn_column bc = {.key = "b", .key_len = 1, .dtype = TFN_BYTES, .values = text,
                         .row_splits = splits[s], .byte_offsets = offs};
        CHECK_EQ_INT(tfn_encode_columns_size(&bc, 1, 1, NULL, &total, &err), TFN_E_LIMIT);
    }
    /* one string of 2^63 - 1 bytes (sized, never read) */
    static const int64_t huge_offs[2] = {0, INT64_MAX};
    tfn_column bc = {.key = "b", .key_len = 1, .dtype = TFN_BYTES, .values = text, .width = 1,
                     .byte_offsets = huge_offs};
    CHECK_EQ_INT(tfn_encode_columns_size(&bc, 1, 1, NULL, &total, &err), TFN_E_LIMIT);
}

static void test_bytes_copy_out_overflow(void)
{
    static const uint8_t one[1] = {7};
    tfn_bytes views[2] = {{one, SIZE_MAX / 2 + 1}, {one, SIZE_MAX / 2 + 1}};
    uint8_t dst[8];
    uint64_t offsets[3];
    size_t needed = 0;
    tfn_error err;
    CHECK_EQ_INT(tfn_bytes_copy_out(views, 2, dst, sizeof dst, offsets, &needed, &err),
                 TFN_E_LIMIT);
    tfn_bytes big[2] = {{one, SIZE_MAX}, {one, 1}};
    CHECK_EQ_INT(tfn_bytes_copy_out(big, 2, dst, sizeof dst, offsets, &needed, &err),
                 TFN_E_LIMIT);
    /* a total that fits but exceeds the buffer is reported with the size needed */
    tfn_bytes fits[1] = {{one, SIZE_MAX / 2}};
    CHECK_EQ_INT(tfn_bytes_copy_out(fits, 1, dst, sizeof dst, offsets, &needed, &err),
                 TFN_E_BUF_TOO_SMALL);
    CHECK(needed == SIZE_MAX / 2);
}

static void test_writer_batch_offsets(void)
{
    static const uint8_t data[8] = "abcdefgh";
    tfn_record_writer *w = NULL;
    tfn_error err;
    counter c;
    tfn_alloc a = counting(&c);
    REQUIRE(tfn_record_writer_open_mem(NULL, &a, &w, &err) == TFN_OK);
    /* a record whose frame would not fit size_t: refused before anything is read */
    uint64_t huge[2] = {0, (uint64_t)SIZE_MAX - 3};
    CHECK_EQ_INT(tfn_record_writer_write_batch(w, data, huge, 1, &err), TFN_E_LIMIT);
    uint64_t max[2] = {0, UINT64_MAX};
    CHECK_EQ_INT(tfn_record_writer_write_batch(w, data, max, 1, &err), TFN_E_LIMIT);
    /* decreasing offsets: the records before are written, the bad one is named */
    uint64_t down[4] = {0, 4, 8, 2};
    CHECK_EQ_INT(tfn_record_writer_write_batch(w, data, down, 3, &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(err.record_index, 2);
    CHECK_EQ_INT(tfn_record_writer_count(w), 2);
    CHECK(c.largest < 65536 * 8);
    CHECK_EQ_INT(tfn_record_writer_close(w, &err), TFN_OK);
    tfn_record_writer_free(w);
    CHECK_EQ_INT(c.current, 0);
    /* the framing helpers */
    CHECK(tfn_record_frame_size(SIZE_MAX - 15) == 0);
    CHECK(tfn_record_frame_size(SIZE_MAX - 16) == SIZE_MAX);
    uint8_t dst[32];
    size_t written = 0;
    CHECK_EQ_INT(tfn_record_frame(dst, sizeof dst, data, SIZE_MAX - 3, &written, &err),
                 TFN_E_LIMIT);
}

/* ---------------------------------------------------------------- zlib errors stay put */

/* Three records, ZLIB-compressed, with the stream's adler32 check broken. */
static void broken_check_stream(tbuf *out)
{
    tbuf plain = {0};
    tbuf_frame(&plain, "first", 5);
    tbuf_frame(&plain, "second", 6);
    tbuf_frame(&plain, "third", 5);
    deflate_to(&plain, 15, out);
    out->p[out->n - 1] ^= 0x55;
    tbuf_free(&plain);
}

static void test_inflate_error_is_sticky(void)
{
    tbuf z;
    broken_check_stream(&z);
    tfn_record_reader_options o;
    tfn_record_reader_options_init(&o);
    o.compression = TFN_COMPRESSION_ZLIB;
    tfn_record_reader *r = NULL;
    tfn_error err, again;
    REQUIRE(tfn_record_reader_open_mem(z.p, z.n, &o, NULL, &r, &err) == TFN_OK);
    const uint8_t *p;
    size_t n;
    int rc;
    while ((rc = tfn_record_reader_next(r, &p, &n, &err)) == TFN_OK)
        ;
    CHECK_EQ_INT(rc, TFN_E_DATA_LOSS);
    CHECK(strstr(err.msg, "inflate() failed with error -3: incorrect data check") == err.msg);
    /* retrying must not turn it into "truncated ... EOF reached" */
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(tfn_record_reader_next(r, &p, &n, &again), TFN_E_DATA_LOSS);
        CHECK_STR(again.msg, err.msg);
    }
    tfn_record_reader_free(r);
    tbuf_free(&z);
}

/* next_batch reads ahead; a read-ahead that fails must not hide the records already
 * in the window: next_batch returns what next() would have returned first. */
static void test_batch_read_ahead_error_after_buffered_records(void)
{
    tbuf z;
    broken_check_stream(&z);
    for (size_t chunk_reads = 0; chunk_reads < 2; chunk_reads++) {
        tfn_record_reader_options o;
        tfn_record_reader_options_init(&o);
        o.compression = TFN_COMPRESSION_ZLIB;
        o.buffer_size = 64;
        tread by_next;
        memset(&by_next, 0, sizeof by_next);
        tfn_record_reader *r = NULL;
        tfn_error err;
        chunked_src src;
        REQUIRE(open_kind(chunk_reads ? KIND_IO : KIND_MEM, &z, NULL, &src, &o, NULL, &r,
                          &err) == TFN_OK);
        tread_run(r, &by_next);
        tfn_record_reader_free(r);
        REQUIRE(open_kind(chunk_reads ? KIND_IO : KIND_MEM, &z, NULL, &src, &o, NULL, &r,
                          &err) == TFN_OK);
        size_t count = 0, got = 0;
        tfn_bytes views[4];
        int rc;
        while ((rc = tfn_record_reader_next_batch(r, views, 4, &got, &err)) == TFN_OK)
            count += got;
        CHECK_EQ_INT(count, by_next.count);
        CHECK_EQ_INT(rc, by_next.rc);
        CHECK_STR(err.msg, by_next.err.msg);
        tfn_record_reader_free(r);
        tbuf_free(&by_next.data);
    }
    tbuf_free(&z);
}

/* How one reader ended on a stream. */
typedef struct outcome {
    size_t count;
    int rc;
    uint64_t offset, skipped_bytes;
} outcome;

static outcome read_outcome(const tbuf *data, int kind, int compression, int skip,
                            size_t bufsize)
{
    tfn_record_reader_options o;
    tfn_record_reader_options_init(&o);
    o.compression = compression;
    o.on_damage = skip ? TFN_ON_DAMAGE_SKIP : TFN_ON_DAMAGE_RAISE;
    o.buffer_size = bufsize;
    tfn_record_reader *r = NULL;
    tfn_error err;
    chunked_src src;
    outcome out = {0, TFN_E_INVALID_ARG, 0, 0};
    if (open_kind(kind, data, NULL, &src, &o, NULL, &r, &err) != TFN_OK)
        return out;
    tread t;
    memset(&t, 0, sizeof t);
    tread_run(r, &t);
    out = (outcome){t.count, t.rc, tfn_record_reader_offset(r), t.skipped_bytes};
    tbuf_free(&t.data);
    tfn_record_reader_free(r);
    return out;
}

/* A compressed stream with damage near its end, cut anywhere (a writer died): the
 * same records, end and offset come back whatever the buffer size and reader kind.
 * With a small buffer zlib may have consumed all the input while still holding output
 * (the rest of a long match); the reader must drain it at the end of the input
 * instead of ending the stream early (found by fuzz_record_read: the damage scan
 * reads in small steps, so it met this often). */
static void test_inflate_drains_output_at_end_of_input(void)
{
    tbuf plain = {0};
    uint8_t payload[69];
    uint32_t seed = 12345;
    for (int i = 0; i < 60; i++) {
        for (size_t k = 0; k < sizeof payload; k++) {
            seed = seed * 1103515245u + 12345u;
            payload[k] = (uint8_t)("abcdefgh"[(seed >> 16) % 8]);
        }
        tbuf_frame(&plain, payload, sizeof payload - (size_t)(i % 3) * 20);
    }
    for (size_t at = plain.n / 2; at < plain.n; at += 97)
        plain.p[at] ^= 0x10; /* damage all over the second half */
    static const size_t bufsizes[4] = {64, 100, 200, 1u << 16};
    for (int gzip = 0; gzip < 2; gzip++) {
        tbuf z;
        deflate_to(&plain, gzip ? 31 : 15, &z);
        int comp = gzip ? TFN_COMPRESSION_GZIP : TFN_COMPRESSION_ZLIB, shown = 0;
        for (size_t cut = z.n / 2; cut <= z.n; cut++) {
            tbuf prefix = {z.p, cut, cut};
            for (int skip = 0; skip < 2; skip++) {
                outcome ref = read_outcome(&prefix, KIND_MEM, comp, skip, 1u << 20);
                for (int kind = KIND_MEM; kind <= KIND_IO; kind += KIND_IO - KIND_MEM) {
                    for (int b = 0; b < 4; b++) {
                        outcome got = read_outcome(&prefix, kind, comp, skip, bufsizes[b]);
                        int same = got.count == ref.count && got.rc == ref.rc &&
                                   got.offset == ref.offset &&
                                   got.skipped_bytes == ref.skipped_bytes;
                        if (!same && shown++ < 5)
                            fprintf(stderr,
                                    "%s cut %zu/%zu skip %d %s buffer %zu: %zu records, rc %d, "
                                    "offset %llu; with 1 MiB: %zu, %d, %llu\n",
                                    gzip ? "GZIP" : "ZLIB", cut, z.n, skip, kind_names[kind],
                                    bufsizes[b], got.count, got.rc,
                                    (unsigned long long)got.offset, ref.count, ref.rc,
                                    (unsigned long long)ref.offset);
                        CHECK(same);
                    }
                }
            }
        }
        tbuf_free(&z);
    }
    tbuf_free(&plain);
}

/* ---------------------------------------------------------------- limits and slices */

/* max_record_size: a valid header claiming more is refused before anything is read
 * for it (RAISE), or is damage (SKIP); a record at the limit is read. */
static void test_max_record_size(void)
{
    tbuf b = {0};
    uint8_t big[300];
    memset(big, 'b', sizeof big);
    tbuf_frame(&b, "ok", 2);
    tbuf_frame(&b, big, sizeof big);
    tbuf_frame(&b, "end", 3);
    for (int skip = 0; skip < 2; skip++) {
        tfn_record_reader_options o;
        tfn_record_reader_options_init(&o);
        CHECK(o.max_record_size == 0 && o.resync_slice == 0);
        o.max_record_size = 299;
        o.on_damage = skip ? TFN_ON_DAMAGE_SKIP : TFN_ON_DAMAGE_RAISE;
        tfn_record_reader *r = NULL;
        tfn_error err;
        REQUIRE(tfn_record_reader_open_mem(b.p, b.n, &o, NULL, &r, &err) == TFN_OK);
        const uint8_t *p;
        size_t n;
        CHECK_EQ_INT(tfn_record_reader_next(r, &p, &n, &err), TFN_OK);
        int rc = tfn_record_reader_next(r, &p, &n, &err);
        if (skip) {
            CHECK_EQ_INT(rc, TFN_OK);
            CHECK(n == 3 && memcmp(p, "end", 3) == 0);
        } else {
            CHECK_EQ_INT(rc, TFN_E_DATA_LOSS);
            CHECK(strstr(err.msg, "record at 18 claims 300 bytes, more than the maximum "
                                  "record size 299 (max_record_size)") == err.msg);
            CHECK_EQ_INT(err.offset, 18);
        }
        tfn_record_reader_free(r);
        o.max_record_size = 300;
        REQUIRE(tfn_record_reader_open_mem(b.p, b.n, &o, NULL, &r, &err) == TFN_OK);
        CHECK_EQ_INT(tfn_record_reader_next(r, &p, &n, &err), TFN_OK);
        CHECK_EQ_INT(tfn_record_reader_next(r, &p, &n, &err), TFN_OK);
        CHECK(n == 300);
        tfn_record_reader_free(r);
    }
    tbuf_free(&b);
}

/* resync_slice: a long damaged region is skipped over several calls, each returning
 * TFN_TIMEOUT after the slice; the region is still one skip, the record after it
 * comes back whole. */
static void test_resync_in_slices(void)
{
    tbuf b = {0};
    tbuf_frame(&b, "ok", 2);
    size_t junk = 10000;
    uint8_t *zeros = (uint8_t *)calloc(1, junk);
    REQUIRE(zeros);
    tbuf_put(&b, zeros, junk);
    free(zeros);
    tbuf_frame(&b, "after", 5);
    for (int batch = 0; batch < 2; batch++) {
        tfn_record_reader_options o;
        tfn_record_reader_options_init(&o);
        o.on_damage = TFN_ON_DAMAGE_SKIP;
        o.resync_slice = 1000;
        tfn_record_reader *r = NULL;
        tfn_error err;
        REQUIRE(tfn_record_reader_open_mem(b.p, b.n, &o, NULL, &r, &err) == TFN_OK);
        const uint8_t *p;
        size_t n;
        CHECK_EQ_INT(tfn_record_reader_next(r, &p, &n, &err), TFN_OK);
        int timeouts = 0, rc;
        for (;;) {
            if (batch) {
                tfn_bytes v[4];
                rc = tfn_record_reader_next_batch(r, v, 4, &n, &err);
                if (rc == TFN_OK) {
                    CHECK_EQ_INT(n, 1);
                    p = v[0].data;
                    n = v[0].len;
                }
            } else {
                rc = tfn_record_reader_next(r, &p, &n, &err);
            }
            if (rc != TFN_TIMEOUT)
                break;
            timeouts++;
            REQUIRE(timeouts < 100);
        }
        CHECK_EQ_INT(rc, TFN_OK);
        CHECK(n == 5 && memcmp(p, "after", 5) == 0);
        CHECK_EQ_INT(timeouts, 9); /* 10,000 bytes: the 10th slice reaches the record */
        uint64_t regions = 0, bytes = 0;
        tfn_record_reader_skipped(r, &regions, &bytes);
        CHECK_EQ_INT(regions, 1);
        CHECK_EQ_INT(bytes, junk);
        tfn_record_skip last;
        tfn_record_reader_last_skip(r, &last);
        CHECK_EQ_INT(last.offset, 18);
        CHECK_EQ_INT(last.length, junk);
        CHECK_EQ_INT(tfn_record_reader_next(r, &p, &n, &err), TFN_END);
        tfn_record_reader_free(r);
    }
    tbuf_free(&b);
}

int main(void)
{
    RUN(test_record_header_claims_2_60);
    RUN(test_record_header_claims_2_63);
    RUN(test_record_header_claims_size_max);
    RUN(test_record_buffer_grows_with_data_only);
    RUN(test_nested_lengths_beyond_input);
    RUN(test_nested_lengths_near_2_63);
    RUN(test_nested_lengths_10_byte_varints);
    RUN(test_columns_huge_width);
    RUN(test_columns_huge_row_splits);
    RUN(test_bytes_copy_out_overflow);
    RUN(test_writer_batch_offsets);
    RUN(test_inflate_error_is_sticky);
    RUN(test_batch_read_ahead_error_after_buffered_records);
    RUN(test_inflate_drains_output_at_end_of_input);
    RUN(test_max_record_size);
    RUN(test_resync_in_slices);
    return harness_finish();
}

/* test_arrow.c - tfn_arrow_encode: record batches given through the Arrow C data
 * interface (structs built here by hand, as a producer exports them) give exactly the
 * Example builder's bytes; nulls, slices, nesting and every refused case. */
#include "harness.h"
#include "tfnano.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* ------------------------------------------------------------ building arrays */

/* One array with its schema; children are linked by pointer. */
typedef struct node {
    struct ArrowSchema s;
    struct ArrowArray a;
    const void *bufs[3];
    struct ArrowSchema *schild[20];
    struct ArrowArray *achild[20];
} node;

static void init(node *n, const char *format, const char *name, int64_t length, int64_t offset,
                 const uint8_t *validity, int64_t null_count, int64_t nbuf)
{
    memset(n, 0, sizeof *n);
    n->s.format = format;
    n->s.name = name;
    n->s.children = n->schild;
    n->a.length = length;
    n->a.offset = offset;
    n->a.null_count = null_count;
    n->a.n_buffers = nbuf;
    n->a.buffers = n->bufs;
    n->a.children = n->achild;
    n->bufs[0] = validity;
}

static void add_child(node *parent, node *child)
{
    parent->schild[parent->s.n_children++] = &child->s;
    parent->achild[parent->a.n_children++] = &child->a;
}

/* A primitive (values) or binary (offsets, data) array. */
static void leaf(node *n, const char *format, const char *name, int64_t length, int64_t offset,
                 const uint8_t *validity, int64_t null_count, const void *b1, const void *b2)
{
    bool binary = strchr("zZuU", format[0]) && format[1] == '\0';
    init(n, format, name, length, offset, validity, null_count, binary ? 3 : 2);
    n->bufs[1] = b1;
    n->bufs[2] = b2;
}

/* A list (+l, +L: offsets) or fixed-size list (+w:N) over `child`. */
static void nest(node *n, const char *format, const char *name, int64_t length, int64_t offset,
                 const uint8_t *validity, int64_t null_count, const void *offsets, node *child)
{
    bool fixed = format[1] == 'w';
    init(n, format, name, length, offset, validity, null_count, fixed ? 1 : 2);
    if (!fixed)
        n->bufs[1] = offsets;
    add_child(n, child);
}

static void batch(node *root, int64_t length, int64_t offset)
{
    init(root, "+s", "", length, offset, NULL, 0, 1);
}

/* ------------------------------------------------------------ reference bytes */

typedef struct encoded {
    uint8_t data[8192];
    uint64_t offsets[64];
    size_t written;
    int rc;
    tfn_error err;
} encoded;

static void encode(encoded *e, node *root)
{
    memset(e, 0, sizeof *e);
    e->rc = tfn_arrow_encode(&root->s, &root->a, e->data, sizeof e->data, e->offsets,
                             &e->written, &e->err);
    if (e->rc == TFN_OK) { /* the size function agrees row by row */
        uint64_t sizes[64], total = 0;
        tfn_error err;
        CHECK_EQ_INT(tfn_arrow_encode_size(&root->s, &root->a, sizes, &total, &err), TFN_OK);
        CHECK_EQ_INT(total, e->written);
        for (int64_t i = 0; i < root->a.length; i++)
            CHECK_EQ_INT(sizes[i], e->offsets[i + 1] - e->offsets[i]);
    }
}

/* Row i of e equals the builder's bytes for ex. */
static void check_row(const encoded *e, size_t i, tfn_example *ex)
{
    uint8_t want[4096];
    size_t len = tfn_example_serialized_size(ex);
    REQUIRE(len <= sizeof want);
    tfn_error err;
    size_t written = 0;
    REQUIRE(tfn_example_serialize(ex, want, sizeof want, &written, &err) == TFN_OK);
    CHECK_MEM(e->data + e->offsets[i], e->offsets[i + 1] - e->offsets[i], want, written);
    tfn_example_clear(ex);
}

static void set_ints(tfn_example *ex, const char *key, const int64_t *v, size_t n)
{
    CHECK_EQ_INT(tfn_example_set_int64s(ex, key, strlen(key), v, n, NULL), TFN_OK);
}

static void set_floats(tfn_example *ex, const char *key, const float *v, size_t n)
{
    CHECK_EQ_INT(tfn_example_set_floats(ex, key, strlen(key), v, n, NULL), TFN_OK);
}

static void set_strs(tfn_example *ex, const char *key, const char *const *v, size_t n)
{
    tfn_bytes b[8];
    for (size_t k = 0; k < n; k++)
        b[k] = (tfn_bytes){(const uint8_t *)v[k], strlen(v[k])};
    CHECK_EQ_INT(tfn_example_set_bytes(ex, key, strlen(key), b, n, NULL), TFN_OK);
}

/* ------------------------------------------------------------ tests */

static void test_every_primitive_type(void)
{
    static const int8_t i8[] = {-128, 0, 127};
    static const int16_t i16[] = {-300, 5, 32767};
    static const int32_t i32[] = {INT32_MIN, 0, INT32_MAX};
    static const int64_t i64[] = {INT64_MIN, 7, INT64_MAX};
    static const uint8_t u8[] = {0, 1, 255};
    static const uint16_t u16[] = {0, 9, 65535};
    static const uint32_t u32[] = {0, 1, UINT32_MAX};
    static const uint64_t u64[] = {0, 1, (uint64_t)INT64_MAX};
    static const uint8_t bits[] = {0x5}; /* true, false, true */
    static const uint16_t f16[] = {0x3800 /* 0.5 */, 0xc000 /* -2 */, 0x0001 /* 2^-24 */};
    static const float f32[] = {0.1f, -1e30f, -0.0f};
    static const double f64[] = {0.1, -1e300, 1e300};
    static const int32_t soffs[] = {0, 0, 2, 5};
    static const char sdata[] = "\x00\xff" "abc";
    static const int64_t loffs[] = {0, 1, 1, 4};
    static const char fixed[] = "aabbcc";
    static const int32_t days[] = {0, 19000, -1};
    static const int64_t stamps[] = {0, 1000000000, -5};
    node root, c[16];
    batch(&root, 3, 0);
    leaf(&c[0], "c", "i8", 3, 0, NULL, 0, i8, NULL);
    leaf(&c[1], "s", "i16", 3, 0, NULL, 0, i16, NULL);
    leaf(&c[2], "i", "i32", 3, 0, NULL, 0, i32, NULL);
    leaf(&c[3], "l", "i64", 3, 0, NULL, 0, i64, NULL);
    leaf(&c[4], "C", "u8", 3, 0, NULL, 0, u8, NULL);
    leaf(&c[5], "S", "u16", 3, 0, NULL, 0, u16, NULL);
    leaf(&c[6], "I", "u32", 3, 0, NULL, 0, u32, NULL);
    leaf(&c[7], "L", "u64", 3, 0, NULL, 0, u64, NULL);
    leaf(&c[8], "b", "flag", 3, 0, NULL, 0, bits, NULL);
    leaf(&c[9], "e", "f16", 3, 0, NULL, 0, f16, NULL);
    leaf(&c[10], "f", "f32", 3, 0, NULL, 0, f32, NULL);
    leaf(&c[11], "g", "f64", 3, 0, NULL, 0, f64, NULL);
    leaf(&c[12], "z", "bin", 3, 0, NULL, 0, soffs, sdata);
    leaf(&c[13], "U", "text", 3, 0, NULL, 0, loffs, "xyzw");
    leaf(&c[14], "w:2", "fixed", 3, 0, NULL, 0, fixed, NULL);
    c[14].a.n_buffers = 2;
    leaf(&c[15], "tdD", "day", 3, 0, NULL, 0, days, NULL);
    for (int k = 0; k < 16; k++)
        add_child(&root, &c[k]);
    node ts;
    leaf(&ts, "tsn:UTC", "stamp", 3, 0, NULL, 0, stamps, NULL);
    encoded e;
    encode(&e, &root);
    REQUIRE(e.rc == TFN_OK);
    tfn_example *ex = tfn_example_new(NULL);
    for (size_t i = 0; i < 3; i++) {
        int64_t v;
        v = i8[i], set_ints(ex, "i8", &v, 1);
        v = i16[i], set_ints(ex, "i16", &v, 1);
        v = i32[i], set_ints(ex, "i32", &v, 1);
        v = i64[i], set_ints(ex, "i64", &v, 1);
        v = u8[i], set_ints(ex, "u8", &v, 1);
        v = u16[i], set_ints(ex, "u16", &v, 1);
        v = (int64_t)u32[i], set_ints(ex, "u32", &v, 1);
        v = (int64_t)u64[i], set_ints(ex, "u64", &v, 1);
        v = (bits[0] >> i) & 1, set_ints(ex, "flag", &v, 1);
        v = days[i], set_ints(ex, "day", &v, 1);
        float f = i == 0 ? 0.5f : i == 1 ? -2.0f : ldexpf(1.0f, -24);
        set_floats(ex, "f16", &f, 1);
        set_floats(ex, "f32", &f32[i], 1);
        f = i == 0 ? 0.1f : i == 1 ? -INFINITY : INFINITY; /* float narrowing */
        set_floats(ex, "f64", &f, 1);
        tfn_bytes b = {(const uint8_t *)sdata + soffs[i], (size_t)(soffs[i + 1] - soffs[i])};
        CHECK_EQ_INT(tfn_example_set_bytes(ex, "bin", 3, &b, 1, NULL), TFN_OK);
        b = (tfn_bytes){(const uint8_t *)"xyzw" + loffs[i], (size_t)(loffs[i + 1] - loffs[i])};
        CHECK_EQ_INT(tfn_example_set_bytes(ex, "text", 4, &b, 1, NULL), TFN_OK);
        b = (tfn_bytes){(const uint8_t *)fixed + 2 * i, 2};
        CHECK_EQ_INT(tfn_example_set_bytes(ex, "fixed", 5, &b, 1, NULL), TFN_OK);
        check_row(&e, i, ex);
    }
    /* timestamps (with a time zone) are their integer */
    node root2;
    batch(&root2, 3, 0);
    add_child(&root2, &ts);
    encode(&e, &root2);
    REQUIRE(e.rc == TFN_OK);
    for (size_t i = 0; i < 3; i++) {
        set_ints(ex, "stamp", &stamps[i], 1);
        check_row(&e, i, ex);
    }
    tfn_example_free(ex);
}

static void test_half_floats(void)
{
    /* subnormals, the largest half, infinities, NaN and -0 widen exactly */
    static const uint16_t h[] = {0x0001, 0x03ff, 0x0400, 0x7bff, 0x7c00, 0xfc00, 0x8000, 0x7e00};
    node root, c;
    batch(&root, 1, 0);
    leaf(&c, "e", "h", 8, 0, NULL, 0, h, NULL);
    node l;
    static const int32_t offs[] = {0, 8};
    nest(&l, "+l", "h", 1, 0, NULL, 0, offs, &c);
    c.s.name = "item";
    add_child(&root, &l);
    encoded e;
    encode(&e, &root);
    REQUIRE(e.rc == TFN_OK);
    float want[8] = {ldexpf(1, -24), ldexpf(1023, -24), ldexpf(1, -14), 65504.0f,
                     INFINITY, -INFINITY, -0.0f, NAN};
    tfn_example *ex = tfn_example_new(NULL);
    set_floats(ex, "h", want, 8);
    check_row(&e, 0, ex);
    tfn_example_free(ex);
}

static void test_nulls_are_absent_features(void)
{
    static const int64_t a[] = {1, 2, 3, 4};
    static const uint8_t a_valid[] = {0x5}; /* rows 0 and 2 */
    static const int32_t soffs[] = {0, 0, 1, 2, 2};
    static const uint8_t s_valid[] = {0x6}; /* rows 1, 2 */
    static const float lv[] = {1, 2, 3};
    static const int32_t loffs[] = {0, 1, 3, 3, 3};
    static const uint8_t l_valid[] = {0x3};
    node root, ca, cs, cl, cli, cn;
    batch(&root, 4, 0);
    leaf(&ca, "l", "a", 4, 0, a_valid, 2, a, NULL);
    leaf(&cs, "u", "s", 4, 0, s_valid, 2, soffs, "xy");
    leaf(&cli, "f", "item", 3, 0, NULL, 0, lv, NULL);
    nest(&cl, "+l", "l", 4, 0, l_valid, 2, loffs, &cli);
    init(&cn, "n", "nothing", 4, 0, NULL, 4, 0);
    add_child(&root, &ca);
    add_child(&root, &cs);
    add_child(&root, &cl);
    add_child(&root, &cn);
    encoded e;
    encode(&e, &root);
    REQUIRE(e.rc == TFN_OK);
    tfn_example *ex = tfn_example_new(NULL);
    set_ints(ex, "a", &a[0], 1);
    set_floats(ex, "l", lv, 1);
    check_row(&e, 0, ex);
    const char *x[] = {"x"}, *y[] = {"y"};
    set_strs(ex, "s", x, 1);
    set_floats(ex, "l", lv + 1, 2);
    check_row(&e, 1, ex);
    set_ints(ex, "a", &a[2], 1);
    set_strs(ex, "s", y, 1);
    check_row(&e, 2, ex);
    /* no feature present: the empty Example, 0 bytes */
    CHECK_EQ_INT(e.offsets[4] - e.offsets[3], 0);
    tfn_example_free(ex);
}

static void test_lists_nesting_and_slices(void)
{
    /* list<int64> sliced at every level: the struct (offset 1), the list (offset 1),
     * its values (offset 2) */
    static const int64_t vals[] = {-1, -1, 10, 11, 12, 13, 14, 15, 16, 17};
    static const int32_t offs[] = {0, 1, 3, 3, 6, 8};
    /* large_list<fixed_size_list<int32, 2>> */
    static const int32_t pairs[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    static const int64_t loffs[] = {0, 1, 2, 2, 5};
    /* fixed_size_list<fixed_size_list<int64, 2>, 2>, sliced at the outer list */
    static const int64_t grid[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8,
                                   9, 10, 11, 12, 13, 14, 15, 16};
    /* list<utf8> */
    static const int32_t soffs[] = {0, 1, 3, 3, 6};
    static const int32_t tag_offs[] = {0, 2, 2, 4, 4};
    node root, cl, cli, cp, cpi, cpii, cg, cgi, cgii, ct, cti;
    batch(&root, 3, 1);
    leaf(&cli, "l", "item", 8, 2, NULL, 0, vals, NULL);
    /* rows 0..2 are struct elements 1..3 -> list entries 2..4 */
    nest(&cl, "+l", "ids", 4, 1, NULL, 0, offs, &cli);
    leaf(&cpii, "i", "item", 10, 0, NULL, 0, pairs, NULL);
    nest(&cpi, "+w:2", "item", 5, 0, NULL, 0, NULL, &cpii);
    nest(&cp, "+L", "pairs", 4, 0, NULL, 0, loffs, &cpi);
    leaf(&cgii, "l", "item", 24, 0, NULL, 0, grid, NULL);
    nest(&cgi, "+w:2", "item", 12, 0, NULL, 0, NULL, &cgii);
    nest(&cg, "+w:2", "grid", 4, 1, NULL, 0, NULL, &cgi);
    leaf(&cti, "u", "item", 4, 0, NULL, 0, soffs, "abcdef");
    nest(&ct, "+l", "tags", 4, 0, NULL, 0, tag_offs, &cti);
    add_child(&root, &cl);
    add_child(&root, &cp);
    add_child(&root, &cg);
    add_child(&root, &ct);
    encoded e;
    encode(&e, &root);
    REQUIRE(e.rc == TFN_OK);
    /* row r of the batch is struct element r + 1 */
    tfn_example *ex = tfn_example_new(NULL);
    for (size_t r = 0; r < 3; r++) {
        int64_t entry = 1 + 1 + (int64_t)r; /* list offset + struct offset + r */
        int64_t ids[8];
        size_t nids = 0;
        for (int32_t k = offs[entry]; k < offs[entry + 1]; k++)
                ids[nids++] = vals[2 + k];
        set_ints(ex, "ids", ids, nids);
        int64_t pr[8];
        size_t npr = 0;
        int64_t pe = 1 + (int64_t)r;
        for (int64_t k = loffs[pe]; k < loffs[pe + 1]; k++) {
            pr[npr++] = pairs[2 * k];
            pr[npr++] = pairs[2 * k + 1];
        }
        set_ints(ex, "pairs", pr, npr);
        int64_t ge = 1 + 1 + (int64_t)r; /* grid offset + struct offset + r */
        set_ints(ex, "grid", grid + 4 * ge, 4);
        const char *tags[4];
        char buf[4][8];
        size_t nt = 0;
        int64_t te = 1 + (int64_t)r;
        for (int32_t k = tag_offs[te]; k < tag_offs[te + 1]; k++, nt++) {
            memset(buf[nt], 0, 8);
            memcpy(buf[nt], "abcdef" + soffs[k], (size_t)(soffs[k + 1] - soffs[k]));
            tags[nt] = buf[nt];
        }
        set_strs(ex, "tags", tags, nt);
        check_row(&e, r, ex);
    }
    tfn_example_free(ex);
    /* 3 struct rows from offset 1 need 4 list elements: a list of 3 is refused */
    cl.a.length = 3;
    encode(&e, &root);
    CHECK_EQ_INT(e.rc, TFN_E_INVALID_ARG);
    CHECK(strstr(e.err.msg, "column 'ids'") != NULL);
}

static void test_refused_with_column_and_row(void)
{
    static const int64_t vals[] = {1, 2, 3};
    static const uint8_t inner_valid[] = {0x5}; /* element 1 is null */
    static const int32_t offs[] = {0, 1, 3};
    node root, l, li;
    encoded e;
    /* a null inside a list: column and row named, record_index is the row */
    batch(&root, 2, 0);
    leaf(&li, "l", "item", 3, 0, inner_valid, 1, vals, NULL);
    nest(&l, "+l", "toks", 2, 0, NULL, 0, offs, &li);
    add_child(&root, &l);
    encode(&e, &root);
    CHECK_EQ_INT(e.rc, TFN_E_INVALID_ARG);
    CHECK(strstr(e.err.msg, "column 'toks', row 1: null values inside lists") != NULL);
    CHECK_EQ_INT(e.err.record_index, 1);
    /* ... but a null element no row uses is fine */
    static const int32_t offs_skip[] = {0, 1, 1};
    l.bufs[1] = offs_skip;
    encode(&e, &root);
    CHECK_EQ_INT(e.rc, TFN_OK);

    /* list<list<int64>> */
    node root2, outer, inner, item;
    static const int32_t o2[] = {0, 1};
    batch(&root2, 1, 0);
    leaf(&item, "l", "item", 1, 0, NULL, 0, vals, NULL);
    nest(&inner, "+l", "item", 1, 0, NULL, 0, o2, &item);
    nest(&outer, "+l", "nested", 1, 0, NULL, 0, o2, &inner);
    add_child(&root2, &outer);
    encode(&e, &root2);
    CHECK_EQ_INT(e.rc, TFN_E_TYPE);
    CHECK(strstr(e.err.msg, "column 'nested': lists of variable-length lists") != NULL);

    /* decimals, dictionaries */
    node root3, dec;
    batch(&root3, 1, 0);
    leaf(&dec, "d:10,2", "price", 1, 0, NULL, 0, vals, NULL);
    add_child(&root3, &dec);
    encode(&e, &root3);
    CHECK_EQ_INT(e.rc, TFN_E_TYPE);
    CHECK(strstr(e.err.msg, "column 'price': Arrow format \"d:10,2\"") != NULL);
    node dict;
    leaf(&dict, "u", "dict", 1, 0, NULL, 0, offs, "abc");
    dec.s.format = "i";
    dec.s.dictionary = &dict.s;
    encode(&e, &root3);
    CHECK_EQ_INT(e.rc, TFN_E_TYPE);
    CHECK(strstr(e.err.msg, "dictionary-encoded") != NULL);

    /* uint64 past int64 */
    static const uint64_t big[] = {1, UINT64_MAX};
    node root4, u;
    batch(&root4, 2, 0);
    leaf(&u, "L", "count", 2, 0, NULL, 0, big, NULL);
    add_child(&root4, &u);
    encode(&e, &root4);
    CHECK_EQ_INT(e.rc, TFN_E_OUT_OF_RANGE);
    CHECK(strstr(e.err.msg, "column 'count', row 1: uint64 value 18446744073709551615") != NULL);

    /* duplicate names */
    node root5, d1, d2;
    batch(&root5, 1, 0);
    leaf(&d1, "l", "x", 1, 0, NULL, 0, vals, NULL);
    leaf(&d2, "l", "x", 1, 0, NULL, 0, vals, NULL);
    add_child(&root5, &d1);
    add_child(&root5, &d2);
    encode(&e, &root5);
    CHECK_EQ_INT(e.rc, TFN_E_INVALID_ARG);
    CHECK(strstr(e.err.msg, "'x' appears twice") != NULL);
}

static void test_inconsistent_arrays_are_refused(void)
{
    static const int64_t vals[] = {1, 2, 3};
    static const int32_t down[] = {0, 2, 1};
    static const int32_t past[] = {0, 1, 4};
    static const int32_t neg[] = {-1, 1, 2};
    node root, l, li, c;
    encoded e;
    batch(&root, 2, 0);
    leaf(&li, "l", "item", 3, 0, NULL, 0, vals, NULL);
    nest(&l, "+l", "t", 2, 0, NULL, 0, down, &li);
    add_child(&root, &l);
    encode(&e, &root);
    CHECK_EQ_INT(e.rc, TFN_E_INVALID_ARG);
    CHECK(strstr(e.err.msg, "offsets decrease") != NULL);
    l.bufs[1] = past;
    encode(&e, &root);
    CHECK_EQ_INT(e.rc, TFN_E_INVALID_ARG);
    CHECK(strstr(e.err.msg, "past the end") != NULL);
    l.bufs[1] = neg;
    encode(&e, &root);
    CHECK_EQ_INT(e.rc, TFN_E_INVALID_ARG);
    CHECK(strstr(e.err.msg, "negative") != NULL);
    /* a column shorter than the batch, a wrong buffer count, a NULL values buffer */
    node root2;
    batch(&root2, 4, 0);
    leaf(&c, "l", "x", 3, 0, NULL, 0, vals, NULL);
    add_child(&root2, &c);
    encode(&e, &root2);
    CHECK_EQ_INT(e.rc, TFN_E_INVALID_ARG);
    CHECK(strstr(e.err.msg, "fewer than the batch") != NULL);
    root2.a.length = 3;
    c.a.n_buffers = 3;
    encode(&e, &root2);
    CHECK_EQ_INT(e.rc, TFN_E_INVALID_ARG);
    c.a.n_buffers = 2;
    c.bufs[1] = NULL;
    encode(&e, &root2);
    CHECK_EQ_INT(e.rc, TFN_E_INVALID_ARG);
    CHECK(strstr(e.err.msg, "values buffer is NULL") != NULL);
    /* not a struct; NULL arguments */
    CHECK_EQ_INT(tfn_arrow_encode(&c.s, &c.a, NULL, 0, NULL, NULL, NULL), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_arrow_encode(NULL, NULL, NULL, 0, NULL, NULL, NULL), TFN_E_INVALID_ARG);
}

static void test_buffer_too_small_reports_the_total(void)
{
    static const int64_t vals[] = {300, 1, 2, 3};
    node root, c;
    batch(&root, 4, 0);
    leaf(&c, "l", "v", 4, 0, NULL, 0, vals, NULL);
    add_child(&root, &c);
    uint64_t total = 0;
    REQUIRE(tfn_arrow_encode_size(&root.s, &root.a, NULL, &total, NULL) == TFN_OK);
    uint8_t small[10];
    size_t written = 0;
    tfn_error err;
    CHECK_EQ_INT(tfn_arrow_encode(&root.s, &root.a, small, sizeof small, NULL, &written, &err),
                 TFN_E_BUF_TOO_SMALL);
    CHECK_EQ_INT(written, total);
    CHECK_EQ_INT(tfn_arrow_encode(&root.s, &root.a, NULL, 0, NULL, &written, &err),
                 TFN_E_BUF_TOO_SMALL);
    CHECK_EQ_INT(written, total);
    /* an empty batch writes nothing, dst may be NULL */
    root.a.length = 0;
    uint64_t offs[1] = {99};
    CHECK_EQ_INT(tfn_arrow_encode(&root.s, &root.a, NULL, 0, offs, &written, &err), TFN_OK);
    CHECK_EQ_INT(written, 0);
    CHECK_EQ_INT(offs[0], 0);
}

/* A copy of `len` bytes at an odd address of `store` (which has len + 8 bytes): the
 * misaligned buffers pickle-5 out-of-band buffers or IPC bodies can hand over. */
static const void *odd_copy(uint8_t *store, const void *src, size_t len, size_t shift)
{
    memcpy(store + shift, src, len);
    return store + shift;
}

static void test_unaligned_buffers(void)
{
    /* every numeric leaf, list offsets (int32 and int64), binary offsets (int32 and
     * int64), once aligned and once 1, 3 or 5 bytes off: the same bytes, no UB (the
     * ASan + UBSan build checks every load's alignment) */
    static const int16_t i16[] = {-300, 5, 32767, 7};
    static const uint16_t u16[] = {1, 65535, 2, 3};
    static const int32_t i32[] = {INT32_MIN, 0, 300, -1};
    static const uint32_t u32[] = {0, UINT32_MAX, 9, 10};
    static const int64_t i64[] = {INT64_MIN, 7, 1 << 20, -2};
    static const uint64_t u64[] = {0, 1, (uint64_t)INT64_MAX, 5};
    static const uint16_t f16[] = {0x3800, 0xc000, 0x0001, 0x7c00};
    static const float f32[] = {0.5f, -1e30f, 3.0f, -0.0f};
    static const double f64[] = {0.1, -1e300, 2.5, 1e-3};
    /* list<int64>: rows of 2, 0, 3, 1 values (12 of them, so the 8-value blocks of the
     * packed writer run too), large_list<int32>, utf8, large_binary */
    static const int64_t lv[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 300};
    static const int32_t lo32[] = {0, 2, 2, 5, 6};
    static const int32_t iv[] = {-1, 2, -3, 4, 5};
    static const int64_t lo64[] = {0, 1, 1, 4, 5};
    static const int32_t so32[] = {0, 1, 3, 3, 6};
    static const int64_t so64[] = {0, 2, 2, 5, 6};
    static const char sdata[] = "abcdef";
    /* fixed_size_list<int64, 8>: dense rows read 8 values at a time */
    int64_t grid[32];
    for (int k = 0; k < 32; k++)
        grid[k] = k * 1000 - 7;
    struct {
        const char *format, *name;
        const void *data;
        size_t size;
    } prim[] = {{"s", "i16", i16, sizeof i16}, {"S", "u16", u16, sizeof u16},
                {"i", "i32", i32, sizeof i32}, {"I", "u32", u32, sizeof u32},
                {"l", "i64", i64, sizeof i64}, {"L", "u64", u64, sizeof u64},
                {"e", "f16", f16, sizeof f16}, {"f", "f32", f32, sizeof f32},
                {"g", "f64", f64, sizeof f64}};
    enum { NPRIM = 9 };
    static _Alignas(16) uint8_t store[NPRIM + 9][160];
    encoded want, got;
    for (size_t shift = 0; shift <= 5; shift += shift ? 2 : 1) {
        node root, c[NPRIM], li, l, ii, il, s, b, gi, g;
        batch(&root, 4, 0);
        for (size_t k = 0; k < NPRIM; k++) {
            leaf(&c[k], prim[k].format, prim[k].name, 4, 0, NULL, 0,
                 odd_copy(store[k], prim[k].data, prim[k].size, shift), NULL);
            add_child(&root, &c[k]);
        }
        leaf(&li, "l", "item", 12, 0, NULL, 0, odd_copy(store[NPRIM], lv, sizeof lv, shift),
             NULL);
        nest(&l, "+l", "list", 4, 0, NULL, 0, odd_copy(store[NPRIM + 1], lo32, sizeof lo32, shift),
             &li);
        leaf(&ii, "i", "item", 5, 0, NULL, 0, odd_copy(store[NPRIM + 2], iv, sizeof iv, shift),
             NULL);
        nest(&il, "+L", "large_list", 4, 0, NULL, 0,
             odd_copy(store[NPRIM + 3], lo64, sizeof lo64, shift), &ii);
        leaf(&s, "u", "text", 4, 0, NULL, 0, odd_copy(store[NPRIM + 4], so32, sizeof so32, shift),
             sdata);
        leaf(&b, "Z", "blob", 4, 0, NULL, 0, odd_copy(store[NPRIM + 5], so64, sizeof so64, shift),
             sdata);
        leaf(&gi, "l", "item", 32, 0, NULL, 0,
             odd_copy(store[NPRIM + 6], grid, sizeof grid, shift), NULL);
        nest(&g, "+w:8", "grid", 4, 0, NULL, 0, NULL, &gi);
        add_child(&root, &l);
        add_child(&root, &il);
        add_child(&root, &s);
        add_child(&root, &b);
        add_child(&root, &g);
        encoded *e = shift ? &got : &want;
        encode(e, &root);
        REQUIRE(e->rc == TFN_OK);
        if (shift) {
            CHECK_MEM(got.data, got.written, want.data, want.written);
            for (int r = 0; r <= 4; r++)
                CHECK_EQ_INT(got.offsets[r], want.offsets[r]);
        }
        /* a uint64 out of range is still found at an odd address */
        static const uint64_t big[] = {1, 2, UINT64_MAX, 4};
        node root2, u;
        batch(&root2, 4, 0);
        leaf(&u, "L", "count", 4, 0, NULL, 0,
             odd_copy(store[NPRIM + 7], big, sizeof big, shift), NULL);
        add_child(&root2, &u);
        encode(&got, &root2);
        CHECK_EQ_INT(got.rc, TFN_E_OUT_OF_RANGE);
        CHECK_EQ_INT(got.err.record_index, 2);
    }
    /* the aligned bytes are the builder's */
    tfn_example *ex = tfn_example_new(NULL);
    for (size_t i = 0; i < 4; i++) {
        int64_t v;
        v = i16[i], set_ints(ex, "i16", &v, 1);
        v = u16[i], set_ints(ex, "u16", &v, 1);
        v = i32[i], set_ints(ex, "i32", &v, 1);
        v = (int64_t)u32[i], set_ints(ex, "u32", &v, 1);
        v = i64[i], set_ints(ex, "i64", &v, 1);
        v = (int64_t)u64[i], set_ints(ex, "u64", &v, 1);
        float h[] = {0.5f, -2.0f, ldexpf(1.0f, -24), INFINITY};
        set_floats(ex, "f16", &h[i], 1);
        set_floats(ex, "f32", &f32[i], 1);
        float d = i == 1 ? -INFINITY : (float)f64[i];
        set_floats(ex, "f64", &d, 1);
        set_ints(ex, "list", lv + lo32[i], (size_t)(lo32[i + 1] - lo32[i]));
        int64_t w[4];
        for (int64_t k = lo64[i]; k < lo64[i + 1]; k++)
            w[k - lo64[i]] = iv[k];
        set_ints(ex, "large_list", w, (size_t)(lo64[i + 1] - lo64[i]));
        tfn_bytes t = {(const uint8_t *)sdata + so32[i], (size_t)(so32[i + 1] - so32[i])};
        CHECK_EQ_INT(tfn_example_set_bytes(ex, "text", 4, &t, 1, NULL), TFN_OK);
        t = (tfn_bytes){(const uint8_t *)sdata + so64[i], (size_t)(so64[i + 1] - so64[i])};
        CHECK_EQ_INT(tfn_example_set_bytes(ex, "blob", 4, &t, 1, NULL), TFN_OK);
        set_ints(ex, "grid", grid + 8 * i, 8);
        check_row(&want, i, ex);
    }
    tfn_example_free(ex);
}

int main(void)
{
    RUN(test_every_primitive_type);
    RUN(test_half_floats);
    RUN(test_nulls_are_absent_features);
    RUN(test_lists_nesting_and_slices);
    RUN(test_refused_with_column_and_row);
    RUN(test_inconsistent_arrays_are_refused);
    RUN(test_buffer_too_small_reports_the_total);
    RUN(test_unaligned_buffers);
    return harness_finish();
}

/*
 * bench_varint.c - the varint code of the parser at each SIMD level this CPU runs
 * (lib/example/varint_x86.c; the portable code is level 0), on W1 data:
 *   - a whole W1 parse into int32 outputs, batches of 256 (tfn_parser_parse, which
 *     decodes FixedLen features during the scan), with the parser set to each level;
 *   - the kernels alone, on data in cache: decoding one token-id row (512 values, the
 *     ids then padding) and counting one example's four int64 rows.
 * Items are examples (rows for the decode case). Under callgrind (BENCH_CALLGRIND=1)
 * only the levels valgrind runs are measured: it hides AVX-512 from the CPU's
 * feature bits.
 *
 * Environment: bench_util.h's (BENCH_BUDGET, BENCH_RUNS, BENCH_QUICK, BENCH_FILTER),
 * BENCH_W1_N (examples; default 4096), BENCH_BATCH (default 256).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "datagen.h"
#include "tfnano.h"

#include "../../lib/example/parse_internal.h"
#include "../../lib/example/varint_internal.h"

static const char *const level_names[4] = {"portable", "SSE4.1", "AVX2", "AVX-512"};

enum { ROWS = 64 }; /* encoded rows kept for the kernel cases (in cache) */

typedef struct ctx {
    size_t n, batch, next;
    tfn_bytes *records;
    tfn_parser *parser;
    int32_t *out[5];
    tfn_output outs[5];
    const uint8_t *run[ROWS][4];
    size_t run_len[ROWS][4];
    size_t row;
    int32_t ids[512];
    int level;
} ctx;

static int die(const char *what, const char *msg)
{
    fprintf(stderr, "bench_varint: %s: %s\n", what, msg);
    return 1;
}

static size_t env_size(const char *name, size_t def)
{
    const char *v = getenv(name);
    return v && atol(v) > 0 ? (size_t)atol(v) : def;
}

static int case_parse(void *p, bench_work *w)
{
    ctx *c = p;
    if (c->next + c->batch > c->n)
        c->next = 0;
    tfn_error err;
    c->parser->simd = c->level;
    if (tfn_parser_parse(c->parser, c->records + c->next, c->batch, NULL, TFN_PARSE_BATCH,
                         c->outs, &err))
        return die("parse", err.msg);
    for (size_t i = c->next; i < c->next + c->batch; i++)
        w->bytes += c->records[i].len;
    c->next += c->batch;
    w->items += c->batch;
    return 0;
}

/* One id row: the SIMD decoder, then the byte loop for what it leaves. */
static int case_decode(void *p, bench_work *w)
{
    ctx *c = p;
    size_t r = c->row++ % ROWS;
    const uint8_t *q = c->run[r][0], *end = q + c->run_len[r][0];
    size_t got = tfn__decode_varints32_at(c->level, &q, end, c->ids, 512);
    while (got < 512) {
        uint64_t v;
        q = tfn__get_varint(q, end, &v);
        if (!q)
            return die("decode", "bad run");
        c->ids[got++] = (int32_t)v;
    }
    bench_keep(c->ids);
    w->items += 1;
    w->bytes += c->run_len[r][0];
    return 0;
}

static int case_count(void *p, bench_work *w)
{
    ctx *c = p;
    size_t r = c->row++ % ROWS, total = 0;
    for (int j = 0; j < 4; j++) {
        size_t k;
        if (!tfn__count_varints_at(c->level, c->run[r][j], c->run[r][j] + c->run_len[r][j], &k))
            return die("count", "bad run");
        total += k;
        w->bytes += c->run_len[r][j];
    }
    if (total != 4 * 512)
        return die("count", "wrong count");
    w->items += 1;
    return 0;
}

int main(void)
{
    bench_config cfg = bench_config_from_env();
    ctx c;
    memset(&c, 0, sizeof c);
    c.n = env_size("BENCH_W1_N", 4096);
    c.batch = env_size("BENCH_BATCH", 256);
    if (c.batch > c.n)
        c.batch = c.n;
    w1_data d;
    if (w1_generate(&d, c.n, W1_SEED))
        return die("w1_generate", "out of memory");
    tfn_column cols[5];
    for (int j = 0; j < W1_NINT; j++)
        cols[j] = (tfn_column){w1_int_keys[j], strlen(w1_int_keys[j]), TFN_INT64, d.ints[j],
                               W1_MAXLEN, NULL, NULL};
    cols[4] = (tfn_column){w1_label_key, strlen(w1_label_key), TFN_FLOAT32, d.labels, W1_LABELS,
                           NULL, NULL};
    tfn_error err;
    uint64_t total;
    if (tfn_encode_columns_size(cols, 5, c.n, NULL, &total, &err))
        return die("size", err.msg);
    uint8_t *buf = malloc(total);
    uint64_t *off = malloc((c.n + 1) * sizeof *off);
    c.records = malloc(c.n * sizeof *c.records);
    size_t written;
    if (!buf || !off || !c.records ||
        tfn_encode_columns(cols, 5, c.n, buf, total, off, &written, &err))
        return die("encode", err.msg);
    for (size_t i = 0; i < c.n; i++)
        c.records[i] = (tfn_bytes){buf + off[i], (size_t)(off[i + 1] - off[i])};
    /* the int64 rows of the first examples as packed runs, for the kernel cases */
    uint8_t *runs = malloc((size_t)ROWS * 4 * W1_MAXLEN * 10);
    for (size_t r = 0; r < ROWS; r++)
        for (int j = 0; j < 4; j++) {
            uint8_t *at = runs + (r * 4 + (size_t)j) * W1_MAXLEN * 10;
            c.run[r][j] = at;
            c.run_len[r][j] = (size_t)(tfn__put_int64s(at, w1_row(&d, (size_t)j, r % c.n),
                                                       W1_MAXLEN) - at);
        }
    int64_t s512[1] = {W1_MAXLEN}, s30[1] = {W1_LABELS};
    tfn_feature_config fc[5];
    memset(fc, 0, sizeof fc);
    for (int j = 0; j < 4; j++)
        fc[j] = (tfn_feature_config){.key = w1_int_keys[j], .key_len = strlen(w1_int_keys[j]),
                                     .type = TFN_FIXED_LEN, .dtype = TFN_INT64,
                                     .out_dtype = TFN_INT32, .shape = s512, .rank = 1};
    fc[4] = (tfn_feature_config){.key = w1_label_key, .key_len = strlen(w1_label_key),
                                 .type = TFN_FIXED_LEN, .dtype = TFN_FLOAT32, .shape = s30,
                                 .rank = 1};
    tfn_spec *spec;
    if (tfn_spec_new(fc, 5, NULL, &spec, &err))
        return die("spec", err.msg);
    c.parser = tfn_parser_new(spec, NULL);
    for (int j = 0; j < 5; j++) {
        size_t per = j < 4 ? W1_MAXLEN : W1_LABELS;
        c.out[j] = malloc(c.batch * per * sizeof(int32_t));
        c.outs[j] = (tfn_output){.values = c.out[j], .capacity = c.batch * per, .max_rows = -1};
    }
    /* check: every level gives the generated values */
    for (int level = 0; level <= tfn__simd_level(); level++) {
        c.level = level;
        c.next = 0;
        bench_work w = {0, 0};
        if (case_parse(&c, &w))
            return 1;
        for (size_t i = 0; i < c.batch; i++)
            for (int j = 0; j < 4; j++)
                for (size_t k = 0; k < W1_MAXLEN; k++)
                    if (c.out[j][i * W1_MAXLEN + k] != (int32_t)w1_row(&d, (size_t)j, i)[k])
                        return die("check", "a level gives wrong values");
    }
    printf("W1: %zu examples, %.0f bytes each; SIMD level of this CPU: %s\n", c.n,
           (double)total / (double)c.n, level_names[tfn__simd_level()]);

    static char names[3][4][96];
    bench_result parse[4], decode[4], count[4];
    const char *titles[3] = {"W1 parse into int32, batches (ns per example)",
                             "decode one token-id row of 512 values, in cache (ns per row)",
                             "count one example's four int64 rows, in cache (ns per example)"};
    bench_fn fns[3] = {case_parse, case_decode, case_count};
    bench_result *res[3] = {parse, decode, count};
    int top = tfn__simd_level();
    for (int k = 0; k < 3; k++) {
        bench_print_title(titles[k]);
        for (int level = 0; level <= top; level++) {
            if (k == 1 && level == 0) /* no SIMD decoder: the byte loop does all */
                snprintf(names[k][level], sizeof names[k][level], "decode, byte loop");
            else
                snprintf(names[k][level], sizeof names[k][level], "%s, %s varint code",
                         k == 0 ? "tfn_parser_parse" : k == 1 ? "decode" : "count",
                         level_names[level]);
            c.level = level;
            c.next = c.row = 0;
            res[k][level] = bench_run(names[k][level], fns[k], &c, &cfg);
            bench_print_row(&res[k][level], &res[k][0]);
        }
    }
    printf("\n");
    char what[128];
    for (int level = 1; level <= top; level++) {
        snprintf(what, sizeof what, "W1 parse: portable / %s", level_names[level]);
        bench_ratio(what, &parse[level], &parse[0]);
        snprintf(what, sizeof what, "id row decode: byte loop / %s", level_names[level]);
        bench_ratio(what, &decode[level], &decode[0]);
    }
    tfn_parser_free(c.parser);
    tfn_spec_free(spec);
    for (int j = 0; j < 5; j++)
        free(c.out[j]);
    free(runs);
    free(buf);
    free(off);
    free(c.records);
    w1_free(&d);
    return 0;
}

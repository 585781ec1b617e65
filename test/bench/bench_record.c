/*
 * bench_record.c - TFRecord file speed (W1 ~2.7 KB records, W2 ~100 KiB incompressible
 * records of shared/spec/performance.md) with the files in the page cache:
 *   - read + CRC check through tfn_record_reader (path; next() per record, and
 *     next_batch()), read without the payload CRC, read from memory (zero-copy);
 *   - the floor: one memcpy of the whole file (already in memory);
 *   - write (tfn_record_writer to a path, then close);
 *   - GZIP: tfn_record_reader on a GZIP file vs a bare zlib inflate of the same
 *     stream (MB/s of decompressed bytes);
 *   - CRC32C alone (SSE4.2 three-way vs the portable slice-by-8).
 * Items are records; MB/s count the uncompressed file bytes. The records are checked
 * once before timing (count and sum of lengths).
 *
 * Environment: bench_util.h's (BENCH_BUDGET, BENCH_RUNS, BENCH_QUICK, BENCH_FILTER),
 * BENCH_W1_N / BENCH_W2_N (records; defaults 10000 / 2000), BENCH_DIR (where the
 * files go; default build/bench).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "bench_util.h"
#include "datagen.h"
#include "tfnano.h"

/* From lib/base/crc32c_internal.h (linked from libtfnano.a): the two CRC loops. */
uint32_t tfn__crc32c_sw(uint32_t reg, const uint8_t *p, size_t n);
uint32_t tfn__crc32c_hw(uint32_t reg, const uint8_t *p, size_t n);
_Bool tfn__crc32c_hw_available(void);

typedef struct file_set {
    const char *label;
    char path[512];    /* uncompressed file */
    char gz_path[512]; /* GZIP file of the same records (W1 only) */
    uint8_t *payloads; /* records back to back */
    uint64_t *offsets; /* n + 1 */
    size_t n;
    uint8_t *file; /* the uncompressed file in memory */
    size_t file_len;
    uint8_t *copy; /* memcpy destination */
    uint8_t *gz;   /* the GZIP file in memory */
    size_t gz_len;
    uint8_t *inflated; /* inflate destination (file_len) */
    uint64_t payload_sum;
} file_set;

static int die(const char *what, const char *msg)
{
    fprintf(stderr, "bench_record: %s: %s\n", what, msg);
    return 1;
}

static size_t env_size(const char *name, size_t def)
{
    const char *v = getenv(name);
    return v && atol(v) > 0 ? (size_t)atol(v) : def;
}

static int encode(const tfn_column *cols, size_t ncols, size_t n, file_set *f)
{
    tfn_error err;
    uint64_t total = 0;
    if (tfn_encode_columns_size(cols, ncols, n, NULL, &total, &err))
        return die("tfn_encode_columns_size", err.msg);
    f->payloads = malloc((size_t)total);
    f->offsets = malloc(sizeof(uint64_t) * (n + 1));
    size_t written;
    if (!f->payloads || !f->offsets)
        return die("encode", "out of memory");
    if (tfn_encode_columns(cols, ncols, n, f->payloads, (size_t)total, f->offsets, &written,
                           &err))
        return die("tfn_encode_columns", err.msg);
    f->n = n;
    f->payload_sum = total;
    return 0;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
    if (p && n > 0 && fread(p, 1, (size_t)n, fp) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(fp);
    *len = (size_t)n;
    return p;
}

static int write_file(const file_set *f, const char *path, int compression)
{
    tfn_record_writer_options o;
    tfn_record_writer_options_init(&o);
    o.compression = compression;
    tfn_record_writer *w;
    tfn_error err;
    if (tfn_record_writer_open(path, &o, NULL, &w, &err) ||
        tfn_record_writer_write_batch(w, f->payloads, f->offsets, f->n, &err) ||
        tfn_record_writer_close(w, &err))
        return die("write", err.msg);
    tfn_record_writer_free(w);
    return 0;
}

/* Reads a whole file and checks count and total length. */
static int verify(const file_set *f, const char *path, int compression)
{
    tfn_record_reader_options o;
    tfn_record_reader_options_init(&o);
    o.compression = compression;
    tfn_record_reader *r;
    tfn_error err;
    if (tfn_record_reader_open(path, &o, NULL, &r, &err))
        return die("open", err.msg);
    const uint8_t *p;
    size_t n, count = 0;
    uint64_t sum = 0;
    int rc;
    while ((rc = tfn_record_reader_next(r, &p, &n, &err)) == TFN_OK) {
        if (count < f->n && (n != f->offsets[count + 1] - f->offsets[count] ||
                             memcmp(p, f->payloads + f->offsets[count], n) != 0))
            return die("verify", "a record differs");
        count++;
        sum += n;
    }
    tfn_record_reader_free(r);
    if (rc != TFN_END || count != f->n || sum != f->payload_sum)
        return die("verify", rc != TFN_END ? err.msg : "wrong count");
    return 0;
}

static int setup_files(file_set *f, const char *dir, const char *name, int with_gz)
{
    snprintf(f->path, sizeof f->path, "%s/%s.tfrecord", dir, name);
    snprintf(f->gz_path, sizeof f->gz_path, "%s/%s.tfrecord.gz", dir, name);
    if (write_file(f, f->path, TFN_COMPRESSION_NONE) || verify(f, f->path, TFN_COMPRESSION_NONE))
        return 1;
    f->file = slurp(f->path, &f->file_len);
    f->copy = malloc(f->file_len);
    if (!f->file || !f->copy)
        return die("setup", "out of memory");
    if (with_gz) {
        if (write_file(f, f->gz_path, TFN_COMPRESSION_GZIP) ||
            verify(f, f->gz_path, TFN_COMPRESSION_GZIP))
            return 1;
        f->gz = slurp(f->gz_path, &f->gz_len);
        f->inflated = malloc(f->file_len);
        if (!f->gz || !f->inflated)
            return die("setup", "out of memory");
    }
    return 0;
}

/* ---------------------------------------------------------------- cases */

static int read_path(file_set *f, const char *path, int compression, int no_crc, bench_work *w)
{
    tfn_record_reader_options o;
    tfn_record_reader_options_init(&o);
    o.compression = compression;
    o.skip_payload_crc = no_crc;
    tfn_record_reader *r;
    if (tfn_record_reader_open(path, &o, NULL, &r, NULL))
        return 1;
    const uint8_t *p;
    size_t n, count = 0;
    int rc;
    while ((rc = tfn_record_reader_next(r, &p, &n, NULL)) == TFN_OK) {
        bench_keep(p);
        count++;
    }
    tfn_record_reader_free(r);
    w->items += count;
    w->bytes += f->file_len;
    return rc != TFN_END || count != f->n;
}

static int case_read(void *ctx, bench_work *w)
{
    file_set *f = ctx;
    return read_path(f, f->path, TFN_COMPRESSION_NONE, 0, w);
}

static int case_read_nocrc(void *ctx, bench_work *w)
{
    file_set *f = ctx;
    return read_path(f, f->path, TFN_COMPRESSION_NONE, 1, w);
}

static int case_read_gz(void *ctx, bench_work *w)
{
    file_set *f = ctx;
    return read_path(f, f->gz_path, TFN_COMPRESSION_GZIP, 0, w);
}

static int case_read_batch(void *ctx, bench_work *w)
{
    file_set *f = ctx;
    tfn_record_reader *r;
    if (tfn_record_reader_open(f->path, NULL, NULL, &r, NULL))
        return 1;
    tfn_bytes views[256];
    size_t got, count = 0;
    int rc;
    while ((rc = tfn_record_reader_next_batch(r, views, 256, &got, NULL)) == TFN_OK) {
        bench_keep(views);
        count += got;
    }
    tfn_record_reader_free(r);
    w->items += count;
    w->bytes += f->file_len;
    return rc != TFN_END || count != f->n;
}

static int case_read_mem(void *ctx, bench_work *w)
{
    file_set *f = ctx;
    tfn_record_reader *r;
    if (tfn_record_reader_open_mem(f->file, f->file_len, NULL, NULL, &r, NULL))
        return 1;
    const uint8_t *p;
    size_t n, count = 0;
    int rc;
    while ((rc = tfn_record_reader_next(r, &p, &n, NULL)) == TFN_OK) {
        bench_keep(p);
        count++;
    }
    tfn_record_reader_free(r);
    w->items += count;
    w->bytes += f->file_len;
    return rc != TFN_END || count != f->n;
}

static int case_memcpy(void *ctx, bench_work *w)
{
    file_set *f = ctx;
    memcpy(f->copy, f->file, f->file_len);
    bench_keep(f->copy);
    w->items += f->n;
    w->bytes += f->file_len;
    return 0;
}

static int case_write(void *ctx, bench_work *w)
{
    file_set *f = ctx;
    char path[600];
    snprintf(path, sizeof path, "%s.out", f->path);
    tfn_record_writer *wr;
    if (tfn_record_writer_open(path, NULL, NULL, &wr, NULL))
        return 1;
    for (size_t i = 0; i < f->n; i++)
        if (tfn_record_writer_write(wr, f->payloads + f->offsets[i],
                                    (size_t)(f->offsets[i + 1] - f->offsets[i]), NULL))
            return 1;
    int rc = tfn_record_writer_close(wr, NULL);
    tfn_record_writer_free(wr);
    w->items += f->n;
    w->bytes += f->file_len;
    return rc;
}

/* zlib alone: inflate the whole GZIP stream into memory, 256 KiB at a time. */
static int case_inflate(void *ctx, bench_work *w)
{
    file_set *f = ctx;
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 31) != Z_OK)
        return 1;
    zs.next_in = f->gz;
    zs.avail_in = (uInt)f->gz_len;
    size_t out = 0;
    int rc;
    do {
        size_t chunk = f->file_len - out < (256u << 10) ? f->file_len - out : (256u << 10);
        zs.next_out = f->inflated + out;
        zs.avail_out = (uInt)chunk;
        rc = inflate(&zs, Z_NO_FLUSH);
        out += chunk - zs.avail_out;
    } while (rc == Z_OK);
    inflateEnd(&zs);
    w->items += f->n;
    w->bytes += f->file_len;
    return rc != Z_STREAM_END || out != f->file_len;
}

static int case_crc_hw(void *ctx, bench_work *w)
{
    file_set *f = ctx;
    uint32_t c = tfn__crc32c_hw(0xffffffffu, f->file, f->file_len);
    bench_keep(&c);
    w->items += 1;
    w->bytes += f->file_len;
    return 0;
}

static int case_crc_sw(void *ctx, bench_work *w)
{
    file_set *f = ctx;
    uint32_t c = tfn__crc32c_sw(0xffffffffu, f->file, f->file_len);
    bench_keep(&c);
    w->items += 1;
    w->bytes += f->file_len;
    return 0;
}

/* ---------------------------------------------------------------- main */

static void run_set(file_set *f, const bench_config *cfg, int with_gz)
{
    char title[128];
    snprintf(title, sizeof title, "%s: %zu records, %.1f MB file (ns per record)", f->label,
             f->n, (double)f->file_len / 1e6);
    bench_print_title(title);
    bench_result copy = bench_run("floor: one memcpy of the file", case_memcpy, f, cfg);
    bench_print_row(&copy, &copy);
    bench_result rd = bench_run("tfnano read + CRC, path, next()", case_read, f, cfg);
    bench_print_row(&rd, &copy);
    bench_result rb = bench_run("tfnano read + CRC, path, next_batch(256)", case_read_batch, f,
                                cfg);
    bench_print_row(&rb, &copy);
    bench_result rn = bench_run("tfnano read, no payload CRC, path", case_read_nocrc, f, cfg);
    bench_print_row(&rn, &copy);
    bench_result rm = bench_run("tfnano read + CRC, memory (zero-copy)", case_read_mem, f, cfg);
    bench_print_row(&rm, &copy);
    bench_result wr = bench_run("tfnano write (path, then close)", case_write, f, cfg);
    bench_print_row(&wr, &copy);
    char what[128];
    snprintf(what, sizeof what, "%s read+CRC (path) time / memcpy time", f->label);
    double vs_copy = rd.failed || copy.failed ? 0 : rd.best_ns / copy.best_ns;
    printf("summary: %-58s %6.2fx\n", what, vs_copy);
    snprintf(what, sizeof what, "%s read+CRC (path) GB/s", f->label);
    printf("summary: %-58s %6.2f\n", what, rd.mb_s / 1000);
    snprintf(what, sizeof what, "%s write (path) GB/s", f->label);
    printf("summary: %-58s %6.2f\n", what, wr.mb_s / 1000);
    if (strncmp(f->label, "W2", 2) == 0)
        bench_target("W2 read + verify GB/s >= 4 (path)", rd.mb_s / 1000, 4.0);
    if (with_gz) {
        snprintf(title, sizeof title, "%s GZIP: %.1f MB compressed (ns per record)", f->label,
                 (double)f->gz_len / 1e6);
        bench_print_title(title);
        bench_result inf = bench_run("zlib inflate of the same stream, in memory", case_inflate,
                                     f, cfg);
        bench_print_row(&inf, &inf);
        bench_result gz = bench_run("tfnano read + CRC, GZIP file", case_read_gz, f, cfg);
        bench_print_row(&gz, &inf);
        snprintf(what, sizeof what, "%s GZIP read MB/s (decompressed)", f->label);
        printf("summary: %-58s %6.0f (zlib inflate alone %.0f)\n", what, gz.mb_s, inf.mb_s);
        bench_target("GZIP read speed / zlib inflate speed", gz.failed || inf.failed ? 0
                     : inf.best_ns / gz.best_ns, 0.9);
    }
}

int main(void)
{
    bench_config cfg = bench_config_from_env();
    size_t n1 = env_size("BENCH_W1_N", W1_DEFAULT_N), n2 = env_size("BENCH_W2_N", W2_DEFAULT_N);
    const char *dir = getenv("BENCH_DIR") ? getenv("BENCH_DIR") : "build/bench";
    bench_print_env("bench_record");
    printf("bench_record: tfnano %s, zlib %s, CRC32C %s; best and median of %d runs x %.2f s\n",
           TFN_VERSION_STRING, zlibVersion(),
           tfn__crc32c_hw_available() ? "SSE4.2 three-way" : "portable slice-by-8", cfg.runs,
           cfg.budget_s);

    static file_set w1 = {.label = "W1"}, w2 = {.label = "W2"};
    w1_data d1;
    if (w1_generate(&d1, n1, W1_SEED))
        return die("w1_generate", "out of memory");
    tfn_column c1[W1_NINT + 1];
    for (size_t j = 0; j < W1_NINT; j++)
        c1[j] = (tfn_column){w1_int_keys[j], strlen(w1_int_keys[j]), TFN_INT64,
                             w1_row(&d1, j, 0), W1_MAXLEN, NULL, NULL};
    c1[W1_NINT] = (tfn_column){w1_label_key, strlen(w1_label_key), TFN_FLOAT32,
                               w1_label_row(&d1, 0), W1_LABELS, NULL, NULL};
    if (encode(c1, W1_NINT + 1, n1, &w1) || setup_files(&w1, dir, "bench_w1", 1))
        return 1;
    w1_free(&d1);

    w2_data d2;
    if (w2_generate(&d2, n2, W2_SEED))
        return die("w2_generate", "out of memory");
    tfn_column c2[W2_NSCALAR + 2];
    for (size_t j = 0; j < W2_NSCALAR; j++)
        c2[j] = (tfn_column){w2_scalar_keys[j], strlen(w2_scalar_keys[j]), TFN_INT64,
                             d2.scalars[j], 1, NULL, NULL};
    c2[W2_NSCALAR] = (tfn_column){w2_image_key, strlen(w2_image_key), TFN_BYTES, d2.images, 1,
                                  NULL, d2.image_offsets};
    c2[W2_NSCALAR + 1] = (tfn_column){w2_name_key, strlen(w2_name_key), TFN_BYTES, d2.names, 1,
                                      NULL, d2.name_offsets};
    if (encode(c2, W2_NSCALAR + 2, n2, &w2) || setup_files(&w2, dir, "bench_w2", 0))
        return 1;
    w2_free(&d2);

    run_set(&w1, &cfg, 1);
    run_set(&w2, &cfg, 0);

    bench_print_title("CRC32C over the W2 file in memory (ns per pass)");
    bench_result sw = bench_run("portable slice-by-8", case_crc_sw, &w2, &cfg);
    bench_print_row(&sw, &sw);
    if (tfn__crc32c_hw_available()) {
        bench_result hw = bench_run("SSE4.2 crc32, three interleaved streams", case_crc_hw, &w2,
                                    &cfg);
        bench_print_row(&hw, &sw);
        printf("summary: %-58s %6.2f GB/s (portable %.2f GB/s)\n", "CRC32C SSE4.2 three-way",
               hw.mb_s / 1000, sw.mb_s / 1000);
    }
    return 0;
}

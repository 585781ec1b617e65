/* test_pad_split.c - the Python binding's split copy (bindings/python/pyapi_pad_threads.c,
 * which has no Python in it): tfn_pad_rows over slices of rows on several threads gives
 * byte for byte what one call gives, masks included, for every output type and row
 * count (fewer rows than cores too); a row refused in a late slice makes it fail. Run
 * under ASan + UBSan and TSan with the other C tests. */
#include "harness.h"
#include "pyapi.h"
#include "tfnano.h"

#include <stdlib.h>
#include <string.h>

static uint64_t state = 42;
static uint64_t rnd(void)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* n rows of random lengths (0..2*width) of int32 or int64 values in the int32 range,
 * in one block. */
static tfn_pad_row *make_rows(size_t n, size_t width, void **block)
{
    tfn_pad_row *rows = calloc(n ? n : 1, sizeof *rows);
    int64_t *values = calloc(n * 2 * width + 1, sizeof *values);
    size_t used = 0;
    for (size_t r = 0; r < n; r++) {
        size_t len = (size_t)(rnd() % (2 * width + 1));
        int dtype = rnd() % 2 ? TFN_INT32 : TFN_INT64;
        int64_t *p64 = values + used;
        int32_t *p32 = (int32_t *)(void *)p64;
        for (size_t j = 0; j < len; j++) {
            int32_t v = (int32_t)(rnd() % 200001) - 100000;
            if (dtype == TFN_INT32)
                p32[j] = v;
            else
                p64[j] = v;
        }
        rows[r] = (tfn_pad_row){len ? p64 : NULL, len, dtype};
        used += len;
    }
    *block = values;
    return rows;
}

static void check_split(size_t n, size_t width, int out_dtype, int padding, int with_mask)
{
    void *block;
    tfn_pad_row *rows = make_rows(n, width, &block);
    tfn_pad_options opt;
    tfn_pad_options_init(&opt);
    opt.maxlen = (int64_t)width;
    opt.padding = padding;
    opt.truncating = 1 - padding;
    opt.value = -7;
    size_t es = out_dtype == TFN_INT64 ? 8 : 4, bytes = n * width * es;
    char *want = malloc(bytes + 1), *got = malloc(bytes + 1);
    uint8_t *want_mask = with_mask ? malloc(n * width + 1) : NULL;
    uint8_t *got_mask = with_mask ? malloc(n * width + 1) : NULL;
    tfn_error err;
    REQUIRE(tfn_pad_rows(rows, n, &opt, want, out_dtype, width, want_mask, NULL, &err) ==
            TFN_OK);
    memset(got, 0x5a, bytes + 1);
    /* split_at_bytes 0: split whenever there is more than one core */
    CHECK(tfn_py_pad_split(rows, n, &opt, got, out_dtype, width, got_mask, 0) == 1);
    CHECK_MEM(got, bytes, want, bytes);
    if (with_mask)
        CHECK_MEM(got_mask, n * width, want_mask, n * width);
    /* a threshold above the output: the calling thread alone, the same bytes */
    memset(got, 0, bytes + 1);
    CHECK(tfn_py_pad_split(rows, n, &opt, got, out_dtype, width, got_mask, bytes + 1) == 1);
    CHECK_MEM(got, bytes, want, bytes);
    free(want);
    free(got);
    free(want_mask);
    free(got_mask);
    free(rows);
    free(block);
}

static void test_split_equals_one_call(void)
{
    const int types[3] = {TFN_INT32, TFN_INT64, TFN_FLOAT32};
    const size_t counts[6] = {0, 1, 2, 3, 17, 1000};
    for (int t = 0; t < 3; t++)
        for (int c = 0; c < 6; c++)
            for (int side = 0; side < 2; side++)
                check_split(counts[c], 1 + (size_t)(rnd() % 40), types[t], side, c % 2);
}

static void test_a_refused_row_in_a_late_slice_fails(void)
{
    size_t n = 64, width = 4;
    int64_t *values = calloc(n * width, sizeof *values);
    tfn_pad_row *rows = calloc(n, sizeof *rows);
    for (size_t r = 0; r < n; r++)
        rows[r] = (tfn_pad_row){values + r * width, width, TFN_INT64};
    values[(n - 1) * width] = (int64_t)1 << 40; /* beyond the int32 output */
    tfn_pad_options opt;
    tfn_pad_options_init(&opt);
    opt.maxlen = (int64_t)width;
    int32_t *out = calloc(n * width, sizeof *out);
    CHECK(tfn_py_pad_split(rows, n, &opt, (char *)out, TFN_INT32, width, NULL, 0) == 0);
    values[(n - 1) * width] = 5;
    CHECK(tfn_py_pad_split(rows, n, &opt, (char *)out, TFN_INT32, width, NULL, 0) == 1);
    CHECK(out[(n - 1) * width] == 5);
    free(out);
    free(rows);
    free(values);
}

int main(void)
{
    RUN(test_split_equals_one_call);
    RUN(test_a_refused_row_in_a_late_slice_fails);
    return harness_finish();
}

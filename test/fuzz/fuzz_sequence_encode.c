/*
 * fuzz_sequence_encode.c - tfn_encode_sequences from byte-coded columns: up to 4
 * SequenceExamples with up to 3 feature lists (int64 / float32 / bytes, dense or
 * ragged steps, keys that may repeat) and an optional int64 context column. The
 * encoder must refuse what is invalid (repeated keys) with an error, never crash, and
 * what it writes must decode through tfn_sequence_lists to the same steps and values
 * and through the Example decoder to the same context.
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

enum { MAXN = 4, MAXL = 3, MAXSTEPS = 16, MAXVALS = 64 };
static const char *const key_names[4] = {"", "a", "ab", "\xff"};

typedef struct list_data {
    int dtype;
    int64_t ex_splits[MAXN + 1];
    int64_t st_splits[MAXSTEPS + 1];
    int64_t i64[MAXVALS];
    float f32[MAXVALS];
    char bytes[MAXVALS * 4];
    int64_t byte_offsets[MAXVALS + 1];
} list_data;

static uint8_t next(const uint8_t *data, size_t size, size_t *pos)
{
    return *pos < size ? data[(*pos)++] : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t pos = 0;
    size_t n = next(data, size, &pos) % (MAXN + 1);
    size_t nlists = next(data, size, &pos) % (MAXL + 1);
    int with_context = next(data, size, &pos) & 1;
    static list_data lists[MAXL];
    tfn_list_column cols[MAXL] = {0};  /* zeroed: gcc -O2 cannot see that nlists <= MAXL entries are set */
    int keys_repeat = 0;
    size_t key_of[MAXL];
    for (size_t l = 0; l < nlists; l++) {
        list_data *d = &lists[l];
        uint8_t b = next(data, size, &pos);
        key_of[l] = b % 4;
        for (size_t j = 0; j < l; j++)
            keys_repeat |= key_of[j] == key_of[l];
        d->dtype = (b >> 2) % 3 == 0 ? TFN_INT64 : (b >> 2) % 3 == 1 ? TFN_FLOAT32 : TFN_BYTES;
        size_t steps = 0, vals = 0, bytes = 0;
        d->ex_splits[0] = 0;
        d->st_splits[0] = 0;
        d->byte_offsets[0] = 0;
        for (size_t i = 0; i < n; i++) {
            size_t k = next(data, size, &pos) % 5;
            for (size_t s = 0; s < k && steps < MAXSTEPS; s++) {
                size_t m = next(data, size, &pos) % 5;
                for (size_t v = 0; v < m && vals < MAXVALS; v++, vals++) {
                    uint8_t x = next(data, size, &pos);
                    d->i64[vals] = (int64_t)(int8_t)x * 1000003;
                    d->f32[vals] = (float)x / 7.0f;
                    size_t len = x % 4;
                    memset(d->bytes + bytes, 'a' + (int)(x % 26), len);
                    bytes += len;
                    d->byte_offsets[vals + 1] = (int64_t)bytes;
                }
                d->st_splits[++steps] = (int64_t)vals;
            }
            d->ex_splits[i + 1] = (int64_t)steps;
        }
        const void *values = d->dtype == TFN_INT64     ? (const void *)d->i64
                             : d->dtype == TFN_FLOAT32 ? (const void *)d->f32
                                                       : (const void *)d->bytes;
        cols[l] = (tfn_list_column){{key_names[key_of[l]], strlen(key_names[key_of[l]]),
                                     d->dtype, values, 0, d->st_splits,
                                     d->dtype == TFN_BYTES ? d->byte_offsets : NULL},
                                    d->ex_splits};
    }
    int64_t ctx_values[MAXN];
    for (size_t i = 0; i < n; i++)
        ctx_values[i] = (int64_t)next(data, size, &pos) - 100;
    tfn_column ctx = {"c", 1, TFN_INT64, ctx_values, 1, NULL, NULL};

    uint64_t sizes[MAXN], total = 0;
    tfn_error err;
    int rc = tfn_encode_sequences_size(&ctx, with_context ? 1 : 0, cols, nlists, n, sizes,
                                       &total, &err);
    if (keys_repeat) {
        CHECK(rc == TFN_E_INVALID_ARG);
        return 0;
    }
    CHECK(rc == TFN_OK);
    uint8_t *buf = malloc(total ? (size_t)total : 1);
    CHECK(buf != NULL);
    uint64_t offsets[MAXN + 1];
    size_t written = 0;
    if (total)
        CHECK(tfn_encode_sequences(&ctx, with_context ? 1 : 0, cols, nlists, n, buf,
                                   (size_t)total - 1, offsets, &written,
                                   &err) == TFN_E_BUF_TOO_SMALL &&
              written == total);
    CHECK(tfn_encode_sequences(&ctx, with_context ? 1 : 0, cols, nlists, n, buf, (size_t)total,
                               offsets, &written, &err) == TFN_OK);
    CHECK(written == total && offsets[n] == total);
    tfn_bytes recs[MAXN];
    for (size_t i = 0; i < n; i++) {
        CHECK(offsets[i + 1] - offsets[i] == sizes[i]);
        recs[i] = (tfn_bytes){buf + offsets[i], (size_t)sizes[i]};
    }
    for (size_t l = 0; l < nlists; l++) {
        const list_data *d = &lists[l];
        tfn_list_config cfg = {cols[l].steps.key, cols[l].steps.key_len,
                               d->dtype == TFN_BYTES ? TFN_BYTES : d->dtype};
        int64_t ex[MAXN + 1], st[MAXSTEPS + 1];
        int64_t i64[MAXVALS + 1];
        float f32[MAXVALS + 1];
        tfn_bytes bv[MAXVALS + 1];
        void *out_values = d->dtype == TFN_INT64     ? (void *)i64
                           : d->dtype == TFN_FLOAT32 ? (void *)f32
                                                     : (void *)bv;
        tfn_list_output out = {MAXSTEPS, MAXVALS + 1, ex, st, out_values, NULL};
        CHECK(tfn_sequence_lists(recs, n, NULL, &cfg, 1, &out, &err) == TFN_OK);
        size_t steps = (size_t)d->ex_splits[n], vals = (size_t)d->st_splits[steps];
        CHECK(out.steps == steps && out.values == vals);
        CHECK(memcmp(ex, d->ex_splits, (n + 1) * sizeof *ex) == 0);
        CHECK(memcmp(st, d->st_splits, (steps + 1) * sizeof *st) == 0);
        for (size_t v = 0; v < vals; v++) {
            if (d->dtype == TFN_INT64)
                CHECK(i64[v] == d->i64[v]);
            else if (d->dtype == TFN_FLOAT32)
                CHECK(memcmp(&f32[v], &d->f32[v], 4) == 0);
            else
                CHECK(bv[v].len == (size_t)(d->byte_offsets[v + 1] - d->byte_offsets[v]) &&
                      (bv[v].len == 0 ||
                       memcmp(bv[v].data, d->bytes + d->byte_offsets[v], bv[v].len) == 0));
        }
    }
    if (with_context) {
        tfn_example *e = tfn_example_new(NULL);
        CHECK(e != NULL);
        for (size_t i = 0; i < n; i++) {
            tfn_feature f;
            CHECK(tfn_example_decode(e, recs[i].data, recs[i].len, 0, &err) == TFN_OK);
            CHECK(tfn_example_find(e, "c", 1, &f) == TFN_OK);
            CHECK(f.count == 1 && f.int64s[0] == ctx_values[i]);
        }
        tfn_example_free(e);
    }
    free(buf);
    return 0;
}

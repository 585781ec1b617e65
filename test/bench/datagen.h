/*
 * datagen.h - reproducible synthetic workloads of shared/spec/performance.md, generated
 * from fixed seeds with bench_util.h's PRNG (no tfnano, no protobuf: plain arrays that
 * every benchmarked implementation reads the same way).
 *
 *   W1 "QUEST": 4 int64 features of 512 values (ids + attention masks of a question
 *     and an answer; token ids log-uniform in [3, 50265), real lengths lognormal with
 *     median 250 and sigma 0.6 clipped to 8..512, then pad id 1) + 30 float32 labels.
 *   W2 "image": `image` bytes of 95..105 KiB (random: incompressible like JPEG),
 *     `height`, `width`, `channels`, `label` int64 scalars and a `name` bytes value.
 *   W3 "padding": ragged int32 token sequences, lengths lognormal (median 120,
 *     sigma 0.9) clipped to 1..2000.
 *
 * Each workload comes as columns (dense row-major matrices, or values + offsets, the
 * layout of tfn_column) and the per-example values are rows of those columns:
 * w1_row(), w2_image() etc. return pointers into them.
 */
#ifndef TFN_BENCH_DATAGEN_H
#define TFN_BENCH_DATAGEN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    W1_MAXLEN = 512,
    W1_LABELS = 30,
    W1_NINT = 4, /* int64 features */
    W1_PAD_ID = 1,
    W1_DEFAULT_N = 10000,
    W2_DEFAULT_N = 2000,
    W3_DEFAULT_N = 100000
};

#define W1_SEED 0x5155455354ull /* "QUEST" */
#define W2_SEED 0x494d414745ull /* "IMAGE" */
#define W3_SEED 0x50414444ull   /* "PADD" */

/* Feature keys of W1, in the order of w1_data.ints; then the float feature. */
extern const char *const w1_int_keys[W1_NINT]; /* q_input_ids, q_attention_mask, ... */
extern const char *const w1_label_key;         /* labels */

typedef struct w1_data {
    size_t n;
    int64_t *ints[W1_NINT]; /* each [n][W1_MAXLEN], row-major */
    float *labels;          /* [n][W1_LABELS] */
    int64_t *q_len, *a_len; /* real (unpadded) lengths, [n] */
} w1_data;

/* Fills `d` with n examples from `seed`. @return 0, or -1 when memory runs out. */
int w1_generate(w1_data *d, size_t n, uint64_t seed);
void w1_free(w1_data *d);

/* Row i of int feature j (W1_MAXLEN values). */
static inline const int64_t *w1_row(const w1_data *d, size_t j, size_t i)
{
    return d->ints[j] + i * (size_t)W1_MAXLEN;
}
static inline const float *w1_label_row(const w1_data *d, size_t i)
{
    return d->labels + i * (size_t)W1_LABELS;
}

/* W2: four int64 scalar features, then image and name. */
enum { W2_NSCALAR = 4 };
extern const char *const w2_scalar_keys[W2_NSCALAR]; /* height, width, channels, label */
extern const char *const w2_image_key;              /* image */
extern const char *const w2_name_key;               /* name */

typedef struct w2_data {
    size_t n;
    uint8_t *images;             /* all images back to back */
    int64_t *image_offsets;      /* [n + 1]: image i is images[off[i] .. off[i+1]) */
    int64_t *scalars[W2_NSCALAR]; /* each [n] */
    uint8_t *names;              /* all names back to back */
    int64_t *name_offsets;       /* [n + 1] */
    size_t max_image;            /* longest image, bytes */
} w2_data;

int w2_generate(w2_data *d, size_t n, uint64_t seed);
void w2_free(w2_data *d);

static inline const uint8_t *w2_image(const w2_data *d, size_t i, size_t *len)
{
    *len = (size_t)(d->image_offsets[i + 1] - d->image_offsets[i]);
    return d->images + d->image_offsets[i];
}
static inline const uint8_t *w2_name(const w2_data *d, size_t i, size_t *len)
{
    *len = (size_t)(d->name_offsets[i + 1] - d->name_offsets[i]);
    return d->names + d->name_offsets[i];
}

/* W3: n ragged int32 sequences, values + row offsets. */
typedef struct w3_data {
    size_t n;
    int32_t *values;     /* all tokens back to back */
    int64_t *row_splits; /* [n + 1] */
    size_t max_len;
} w3_data;

int w3_generate(w3_data *d, size_t n, uint64_t seed);
void w3_free(w3_data *d);

#ifdef __cplusplus
}
#endif

#endif /* TFN_BENCH_DATAGEN_H */

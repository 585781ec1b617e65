/*
 * peer_protobuf.h - the C++ libprotobuf peer of the benchmarks (peer_protobuf.cc),
 * callable from C. It does what a careful C++ user of Debian's libprotobuf would:
 * messages on a reused Arena (one big initial block, Reset() per example), generated
 * code from lib/example/proto/example.proto, map lookups by key, copies into dense arrays.
 * Every function returns 0, or -1 with a short reason in peer_last_error().
 */
#ifndef TFN_BENCH_PEER_PROTOBUF_H
#define TFN_BENCH_PEER_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

#include "datagen.h"
#include "tfnano.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct peer_ctx peer_ctx;

/* NULL when memory runs out. */
peer_ctx *peer_new(void);
void peer_free(peer_ctx *p);
const char *peer_last_error(const peer_ctx *p);
/* libprotobuf's version, e.g. "3.21.12". */
const char *peer_version(void);

/* Builds W1 examples i0 .. i0+n-1 (tensorflow::Example on the arena, one map entry
 * per feature, repeated fields filled from the rows) and serializes them back to back
 * into dst; offsets gets n+1 entries. deterministic != 0 sorts map keys as
 * SerializeToString(deterministic=True) does (the bytes tfnano must match). */
int peer_w1_serialize(peer_ctx *p, const w1_data *d, size_t i0, size_t n, int deterministic,
                      uint8_t *dst, size_t cap, uint64_t *offsets);

/* Parses n W1 records and copies each list into dense outputs: ints[j] is
 * [n][W1_MAXLEN] int32 (range-checked), labels [n][W1_LABELS]. Checks kinds and
 * counts like a FixedLenFeature would. */
int peer_w1_parse(peer_ctx *p, const tfn_bytes *records, size_t n, int32_t *const ints[W1_NINT],
                  float *labels);

/* ParseFromArray alone (no copy out), for context. */
int peer_w1_parse_only(peer_ctx *p, const tfn_bytes *records, size_t n);

/* Parses one W2 record: the image is copied into image_dst (cap bytes; *image_len its
 * size), the name into name_dst (name_cap), the four int64 scalars into scalars. */
int peer_w2_parse(peer_ctx *p, const tfn_bytes *record, uint8_t *image_dst, size_t cap,
                  size_t *image_len, uint8_t *name_dst, size_t name_cap, size_t *name_len,
                  int64_t scalars[W2_NSCALAR]);

#ifdef __cplusplus
}
#endif

#endif /* TFN_BENCH_PEER_PROTOBUF_H */

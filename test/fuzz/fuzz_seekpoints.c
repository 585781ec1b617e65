/*
 * fuzz_seekpoints.c - libFuzzer harness for seek points into GZIP / ZLIB streams.
 *
 * Input: two control bytes, then the compressed stream.
 *   byte 0: bits 0-1 compression (GZIP, ZLIB, AUTO, AUTO); bits 2-7 pick the offsets
 *           read back.
 *   byte 1: spacing between points, in 32 KiB steps (0 and 1 both mean 32 KiB).
 * Invariants (a failure aborts): no crash or sanitizer report; building either fails
 * with TFN_E_DATA_LOSS / TFN_E_NOMEM or gives at least one point; reading from any
 * offset gives exactly the bytes a read of the whole stream gives there (or the same
 * error), and nothing at or past the end.
 * Seeds (test/fuzz/corpus/seekpoints): small gzip and zlib streams made with Python's
 * zlib (text, noise, several flushes), truncated and damaged copies.
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

enum { MAX_FULL = 4 << 20 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    static const int comp[4] = {TFN_COMPRESSION_GZIP, TFN_COMPRESSION_ZLIB,
                                TFN_COMPRESSION_AUTO, TFN_COMPRESSION_AUTO};
    unsigned pick = data[0] >> 2;
    uint64_t spacing = (uint64_t)(data[1] ? data[1] : 1) * 32768u;
    const uint8_t *z = data + 2;
    size_t zlen = size - 2;
    tfn_seekpoints *sp = NULL;
    tfn_error err;
    int rc = tfn_seekpoints_build_mem(z, zlen, comp[data[0] & 3], spacing, NULL, &sp, &err);
    if (rc != TFN_OK) {
        CHECK(sp == NULL);
        CHECK(rc == TFN_E_DATA_LOSS || rc == TFN_E_NOMEM);
        return 0;
    }
    CHECK(sp != NULL && tfn_seekpoints_count(sp) >= 1);
    uint64_t total = tfn_seekpoints_total(sp);
    if (total <= MAX_FULL) {
        uint8_t *all = malloc(total ? (size_t)total : 1);
        size_t got = 0;
        int full = tfn_seekpoints_read_mem(sp, z, zlen, 0, all, (size_t)total, &got, &err);
        CHECK(full == TFN_OK || full == TFN_E_DATA_LOSS || full == TFN_E_NOMEM);
        if (full == TFN_OK) {
            CHECK(got == total);
            uint8_t buf[3000];
            for (unsigned k = 0; k < 6; k++) {
                uint64_t off = total ? ((uint64_t)pick * 2654435761u + k * 7919u * (k + 1)) %
                                           total
                                     : 0;
                if (k == 5)
                    off = total;
                size_t n = 1 + (k * 977u + pick) % sizeof buf;
                size_t g = 0;
                int r = tfn_seekpoints_read_mem(sp, z, zlen, off, buf, n, &g, &err);
                CHECK(r == TFN_OK);
                size_t expect = off >= total ? 0 : (total - off < n ? (size_t)(total - off) : n);
                CHECK(g == expect);
                CHECK(g == 0 || memcmp(buf, all + off, g) == 0);
            }
        }
        free(all);
    }
    tfn_seekpoints_free(sp);
    return 0;
}

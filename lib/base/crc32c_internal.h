/*
 * crc32c_internal.h - the two CRC-32C implementations behind tfn_crc32c(), visible to
 * the tests so that they can be compared. They work on the raw register (the
 * complement of the public CRC value): reg' = update(reg, bytes).
 */
#ifndef TFN_CRC32C_INTERNAL_H
#define TFN_CRC32C_INTERNAL_H

#include "tfn_internal.h"

/* Portable slice-by-8 loop. */
uint32_t tfn__crc32c_sw(uint32_t reg, const uint8_t *p, size_t n);

/* The instruction (SSE4.2 or ARMv8 CRC32) with three interleaved streams; call only when
 * tfn__crc32c_hw_available() (elsewhere it falls back to the portable loop). */
uint32_t tfn__crc32c_hw(uint32_t reg, const uint8_t *p, size_t n);

/* The same over src[0..n) while copying it to dst (the two must not overlap), in one
 * pass: what a reader that hands out copies of records needs. */
uint32_t tfn__crc32c_copy_sw(uint32_t reg, uint8_t *dst, const uint8_t *src, size_t n);
uint32_t tfn__crc32c_copy_hw(uint32_t reg, uint8_t *dst, const uint8_t *src, size_t n);

/* tfn_crc32c() of src (chained from `crc` as tfn_crc32c) while copying it to dst. */
uint32_t tfn__crc32c_copy(uint32_t crc, void *dst, const void *src, size_t len);

/* True when this CPU has the instruction (x86-64 SSE4.2, AArch64 CRC32). */
bool tfn__crc32c_hw_available(void);

/* The stream-combining shift: register advanced over the long (which != 0) or short
 * block of zero bytes. For tests. */
uint32_t tfn__crc32c_shift_test(uint32_t reg, int which);

/* Masked CRC of bytes, as stored in TFRecord files. */
static inline uint32_t tfn__masked_crc(const void *data, size_t len)
{
    return tfn_crc32c_mask(tfn_crc32c(0, data, len));
}

#endif /* TFN_CRC32C_INTERNAL_H */

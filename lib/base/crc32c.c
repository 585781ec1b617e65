/*
 * crc32c.c - CRC-32C (Castagnoli) and TFRecord's CRC mask.
 *
 * Two implementations with identical results: a CRC-32C instruction, chosen at run
 * time from the CPU's feature bits (x86-64: SSE4.2 `crc32`; AArch64: the ARMv8 CRC32
 * extension's `crc32c*`), which runs three independent streams over long inputs so
 * that the instruction's latency is hidden, and a portable slice-by-8 table loop for
 * every other machine (and for CPUs without the instruction).
 */
#include "crc32c_internal.h"
#include "crc32c_table.h"

#if defined(__x86_64__) && defined(__GNUC__)
#    define TFN_CRC32C_HAVE_HW 1
#    include <nmmintrin.h>
#    define TFN_CRC_TARGET __attribute__((target("sse4.2,crc32"))) /* clang 14+: crc32 apart */
#    define TFN_CRC_U8(reg, byte) _mm_crc32_u8((reg), (byte))
#    define TFN_CRC_U64(reg, word) _mm_crc32_u64((reg), (word))
#elif defined(__aarch64__) && defined(__GNUC__)
#    define TFN_CRC32C_HAVE_HW 1
#    include <arm_acle.h>
#    if defined(__clang__)
#        define TFN_CRC_TARGET __attribute__((target("crc")))
#    else
#        define TFN_CRC_TARGET __attribute__((target("+crc")))
#    endif
#    define TFN_CRC_U8(reg, byte) __crc32cb((uint32_t)(reg), (byte))
#    define TFN_CRC_U64(reg, word) __crc32cd((uint32_t)(reg), (word))
#    if defined(__linux__) && !defined(__ARM_FEATURE_CRC32)
#        include <sys/auxv.h>
#        ifndef HWCAP_CRC32
#            define HWCAP_CRC32 (1UL << 7) /* linux/arch/arm64/include/uapi/asm/hwcap.h */
#        endif
#    endif
#else
#    define TFN_CRC32C_HAVE_HW 0
#endif

/* ---------------------------------------------------------------- portable */

uint32_t tfn__crc32c_sw(uint32_t reg, const uint8_t *p, size_t n)
{
    /* Byte steps until p is 8-byte aligned keep the 8-byte loads cheap. */
    while (n > 0 && ((uintptr_t)p & 7) != 0) {
        reg = (reg >> 8) ^ tfn__crc32c_slice8[0][(reg ^ *p++) & 0xff];
        n--;
    }
    while (n >= 8) {
        uint32_t lo = reg ^ tfn__load_le32(p);
        uint32_t hi = tfn__load_le32(p + 4);
        reg = tfn__crc32c_slice8[7][lo & 0xff] ^ tfn__crc32c_slice8[6][(lo >> 8) & 0xff] ^
              tfn__crc32c_slice8[5][(lo >> 16) & 0xff] ^ tfn__crc32c_slice8[4][lo >> 24] ^
              tfn__crc32c_slice8[3][hi & 0xff] ^ tfn__crc32c_slice8[2][(hi >> 8) & 0xff] ^
              tfn__crc32c_slice8[1][(hi >> 16) & 0xff] ^ tfn__crc32c_slice8[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n > 0) {
        reg = (reg >> 8) ^ tfn__crc32c_slice8[0][(reg ^ *p++) & 0xff];
        n--;
    }
    return reg;
}

/* Copies in cache-sized pieces, each checksummed from the copy while it is in L1. */
uint32_t tfn__crc32c_copy_sw(uint32_t reg, uint8_t *dst, const uint8_t *src, size_t n)
{
    while (n > 0) {
        size_t k = n < 4096 ? n : 4096;
        memcpy(dst, src, k);
        reg = tfn__crc32c_sw(reg, dst, k);
        dst += k;
        src += k;
        n -= k;
    }
    return reg;
}

/* ---------------------------------------------------------------- the instruction */

/* Advances a register over LONG / SHORT zero bytes: how far the first of three
 * streams must move to line up with the third. */
static inline uint32_t shift_long(uint32_t r)
{
    return tfn__crc32c_shift_long[0][r & 0xff] ^ tfn__crc32c_shift_long[1][(r >> 8) & 0xff] ^
           tfn__crc32c_shift_long[2][(r >> 16) & 0xff] ^ tfn__crc32c_shift_long[3][r >> 24];
}

static inline uint32_t shift_short(uint32_t r)
{
    return tfn__crc32c_shift_short[0][r & 0xff] ^ tfn__crc32c_shift_short[1][(r >> 8) & 0xff] ^
           tfn__crc32c_shift_short[2][(r >> 16) & 0xff] ^ tfn__crc32c_shift_short[3][r >> 24];
}

#if TFN_CRC32C_HAVE_HW

bool tfn__crc32c_hw_available(void)
{
#    if defined(__x86_64__)
    return __builtin_cpu_supports("sse4.2") != 0;
#    elif defined(__ARM_FEATURE_CRC32) || defined(__APPLE__)
    return true; /* built for CPUs that have it (every Apple arm64 CPU does) */
#    elif defined(__linux__)
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#    else
    return false;
#    endif
}

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Three streams over consecutive blocks of `block` bytes each, combined as
 * reg(A|B|C) = shift(shift(reg(A)) ^ reg(B)) ^ reg(C) (the register is linear). */
#    define TFN_CRC32C_THREE_WAY(block, shift)                                              \
        while (n >= 3 * (size_t)(block)) {                                                  \
            uint64_t a = reg, b = 0, c = 0;                                                 \
            const uint8_t *end = p + (block);                                               \
            do {                                                                            \
                a = TFN_CRC_U64(a, load64(p));                                            \
                b = TFN_CRC_U64(b, load64(p + (block)));                                  \
                c = TFN_CRC_U64(c, load64(p + 2 * (block)));                              \
                p += 8;                                                                     \
            } while (p < end);                                                              \
            reg = shift(shift((uint32_t)a) ^ (uint32_t)b) ^ (uint32_t)c;                    \
            p += 2 * (size_t)(block);                                                       \
            n -= 3 * (size_t)(block);                                                       \
        }

TFN_CRC_TARGET uint32_t tfn__crc32c_hw(uint32_t reg, const uint8_t *p, size_t n)
{
    while (n > 0 && ((uintptr_t)p & 7) != 0) {
        reg = TFN_CRC_U8(reg, *p++);
        n--;
    }
    TFN_CRC32C_THREE_WAY(TFN__CRC32C_LONG, shift_long)
    TFN_CRC32C_THREE_WAY(TFN__CRC32C_SHORT, shift_short)
    uint64_t r = reg;
    while (n >= 8) {
        r = TFN_CRC_U64(r, load64(p));
        p += 8;
        n -= 8;
    }
    reg = (uint32_t)r;
    while (n > 0) {
        reg = TFN_CRC_U8(reg, *p++);
        n--;
    }
    return reg;
}

/* tfn__crc32c_hw over src while storing every 8 bytes it loads to dst: the copy rides
 * on the loads the CRC makes anyway (one pass over the source instead of two). */
#    define TFN_CRC32C_THREE_WAY_COPY(block, shift)                                         \
        while (n >= 3 * (size_t)(block)) {                                                  \
            uint64_t a = reg, b = 0, c = 0;                                                 \
            const uint8_t *end = p + (block);                                               \
            do {                                                                            \
                uint64_t x = load64(p), y = load64(p + (block)), z = load64(p + 2 * (block)); \
                memcpy(d, &x, 8);                                                           \
                memcpy(d + (block), &y, 8);                                                 \
                memcpy(d + 2 * (block), &z, 8);                                             \
                a = TFN_CRC_U64(a, x);                                                    \
                b = TFN_CRC_U64(b, y);                                                    \
                c = TFN_CRC_U64(c, z);                                                    \
                p += 8;                                                                     \
                d += 8;                                                                     \
            } while (p < end);                                                              \
            reg = shift(shift((uint32_t)a) ^ (uint32_t)b) ^ (uint32_t)c;                    \
            p += 2 * (size_t)(block);                                                       \
            d += 2 * (size_t)(block);                                                       \
            n -= 3 * (size_t)(block);                                                       \
        }

TFN_CRC_TARGET uint32_t tfn__crc32c_copy_hw(uint32_t reg, uint8_t *d, const uint8_t *p,
                                           size_t n)
{
    while (n > 0 && ((uintptr_t)p & 7) != 0) {
        *d = *p;
        reg = TFN_CRC_U8(reg, *p++);
        d++;
        n--;
    }
    TFN_CRC32C_THREE_WAY_COPY(TFN__CRC32C_LONG, shift_long)
    TFN_CRC32C_THREE_WAY_COPY(TFN__CRC32C_SHORT, shift_short)
    uint64_t r = reg;
    while (n >= 8) {
        uint64_t x = load64(p);
        memcpy(d, &x, 8);
        r = TFN_CRC_U64(r, x);
        p += 8;
        d += 8;
        n -= 8;
    }
    reg = (uint32_t)r;
    while (n > 0) {
        *d++ = *p;
        reg = TFN_CRC_U8(reg, *p++);
        n--;
    }
    return reg;
}

#else

bool tfn__crc32c_hw_available(void)
{
    return false;
}

uint32_t tfn__crc32c_copy_hw(uint32_t reg, uint8_t *dst, const uint8_t *src, size_t n)
{
    return tfn__crc32c_copy_sw(reg, dst, src, n);
}

/* Never called without the instruction; keeps the tables' users the same everywhere. */
uint32_t tfn__crc32c_hw(uint32_t reg, const uint8_t *p, size_t n)
{
    return tfn__crc32c_sw(reg, p, n);
}

#endif

uint32_t tfn__crc32c_shift_test(uint32_t reg, int which)
{
    return which ? shift_long(reg) : shift_short(reg);
}

/* ---------------------------------------------------------------- public */

uint32_t tfn_crc32c(uint32_t crc, const void *data, size_t len)
{
    if (len == 0 || data == NULL)
        return crc;
    const uint8_t *p = (const uint8_t *)data;
    /* The public value is the finished CRC; the register is its complement, so
     * chaining calls continues the same checksum. */
    uint32_t reg = ~crc;
#if TFN_CRC32C_HAVE_HW
    if (tfn__crc32c_hw_available())
        return ~tfn__crc32c_hw(reg, p, len);
#endif
    return ~tfn__crc32c_sw(reg, p, len);
}

uint32_t tfn__crc32c_copy(uint32_t crc, void *dst, const void *src, size_t len)
{
    if (len == 0)
        return crc;
    uint32_t reg = ~crc;
#if TFN_CRC32C_HAVE_HW
    if (tfn__crc32c_hw_available())
        return ~tfn__crc32c_copy_hw(reg, (uint8_t *)dst, (const uint8_t *)src, len);
#endif
    return ~tfn__crc32c_copy_sw(reg, (uint8_t *)dst, (const uint8_t *)src, len);
}

uint32_t tfn_crc32c_mask(uint32_t crc)
{
    return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

uint32_t tfn_crc32c_unmask(uint32_t masked)
{
    uint32_t rot = masked - 0xa282ead8u;
    return (rot >> 17) | (rot << 15);
}

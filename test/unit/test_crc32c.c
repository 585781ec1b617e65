/* test_crc32c.c - CRC-32C: published vectors, the TFRecord mask, chaining, the
 * committed tables (recomputed here from the polynomial), and the instruction (SSE4.2
 * or ARMv8 CRC32) and portable paths giving the same value at every length and
 * alignment. */
#include "crc32c_internal.h"
#include "crc32c_table.h"
#include "harness.h"

#include <stdint.h>
#include <stdlib.h>

#define POLY 0x82f63b78u

/* Bit-at-a-time reference register update. */
static uint32_t ref_reg(uint32_t reg, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        reg ^= p[i];
        for (int k = 0; k < 8; k++)
            reg = (reg & 1) ? (reg >> 1) ^ POLY : reg >> 1;
    }
    return reg;
}

static uint32_t ref_crc(const uint8_t *p, size_t n)
{
    return ~ref_reg(0xffffffffu, p, n);
}

static void test_vectors(void)
{
    uint8_t buf[48];
    CHECK_EQ_INT(tfn_crc32c(0, "123456789", 9), 0xe3069283u);
    CHECK_EQ_INT(tfn_crc32c(0, "", 0), 0);
    CHECK_EQ_INT(tfn_crc32c(0, NULL, 0), 0);
    CHECK_EQ_INT(tfn_crc32c(0, "foo", 3), 0xcfc4ae1du);
    CHECK_EQ_INT(tfn_crc32c(0, "hello", 5), 0x9a71bb4cu);
    memset(buf, 0, 32);
    CHECK_EQ_INT(tfn_crc32c(0, buf, 32), 0x8a9136aau);
    memset(buf, 0xff, 32);
    CHECK_EQ_INT(tfn_crc32c(0, buf, 32), 0x62a8ab43u);
    for (int i = 0; i < 32; i++)
        buf[i] = (uint8_t)i;
    CHECK_EQ_INT(tfn_crc32c(0, buf, 32), 0x46dd794eu);
    for (int i = 0; i < 32; i++)
        buf[i] = (uint8_t)(31 - i);
    CHECK_EQ_INT(tfn_crc32c(0, buf, 32), 0x113fdb5cu);
    /* RFC 3720 B.4: an iSCSI read command. */
    static const char *iscsi = "01 c0 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
                               "14 00 00 00 00 00 04 00 00 00 00 14 00 00 00 18"
                               "28 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00";
    size_t n = harness_hex(iscsi, buf, sizeof buf);
    CHECK_EQ_INT(n, 48);
    CHECK_EQ_INT(tfn_crc32c(0, buf, n), 0xd9963a56u);
}

static void test_mask(void)
{
    uint8_t buf[32];
    CHECK_EQ_INT(tfn_crc32c_mask(0), 0xa282ead8u);
    CHECK_EQ_INT(tfn_crc32c_mask(tfn_crc32c(0, "foo", 3)), 0xfebe8a61u);
    CHECK_EQ_INT(tfn_crc32c_mask(tfn_crc32c(0, "hello", 5)), 0x191c1fbbu);
    memset(buf, 0, 32);
    CHECK_EQ_INT(tfn_crc32c_mask(tfn_crc32c(0, buf, 32)), 0x0fd7fffau);
    memset(buf, 0xff, 32);
    CHECK_EQ_INT(tfn_crc32c_mask(tfn_crc32c(0, buf, 32)), 0xf909b029u);
    static const uint8_t len3[8] = {3, 0, 0, 0, 0, 0, 0, 0};
    CHECK_EQ_INT(tfn__masked_crc(len3, 8), 0x0e4999b0u);
    uint32_t x = 0x12345678u;
    for (int i = 0; i < 1000; i++) {
        CHECK_EQ_INT(tfn_crc32c_unmask(tfn_crc32c_mask(x)), x);
        CHECK(tfn_crc32c_mask(x) != x);
        x = x * 2654435761u + 12345u;
    }
}

static void test_chaining(void)
{
    uint8_t data[5000];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 131u + (i >> 7));
    uint32_t whole = tfn_crc32c(0, data, sizeof data);
    CHECK_EQ_INT(whole, ref_crc(data, sizeof data));
    for (size_t cut = 0; cut <= sizeof data; cut += 97) {
        uint32_t a = tfn_crc32c(0, data, cut);
        CHECK_EQ_INT(tfn_crc32c(a, data + cut, sizeof data - cut), whole);
    }
}

/* The committed tables are what the polynomial gives. */
static void test_tables(void)
{
    int bad = 0;
    for (unsigned v = 0; v < 256; v++) {
        uint8_t zeros[8] = {0};
        zeros[0] = (uint8_t)v;
        for (size_t k = 0; k < 8; k++) {
            /* byte v followed by k zero bytes, from a zero register */
            if (tfn__crc32c_slice8[k][v] != ref_reg(0, zeros, k + 1))
                bad++;
        }
    }
    CHECK_EQ_INT(bad, 0);
    /* Shift tables: register r advanced over the block of zero bytes. */
    static uint8_t zero_block[TFN__CRC32C_LONG];
    uint32_t basis_long[32], basis_short[32];
    for (int b = 0; b < 32; b++) {
        basis_long[b] = ref_reg(1u << b, zero_block, TFN__CRC32C_LONG);
        basis_short[b] = ref_reg(1u << b, zero_block, TFN__CRC32C_SHORT);
    }
    bad = 0;
    for (int k = 0; k < 4; k++) {
        for (uint32_t v = 0; v < 256; v++) {
            uint32_t x = v << (8 * k), rl = 0, rs = 0;
            for (int b = 0; b < 32; b++) {
                if ((x >> b) & 1) {
                    rl ^= basis_long[b];
                    rs ^= basis_short[b];
                }
            }
            bad += tfn__crc32c_shift_long[k][v] != rl;
            bad += tfn__crc32c_shift_short[k][v] != rs;
        }
    }
    CHECK_EQ_INT(bad, 0);
    uint32_t r = 0xdeadbeefu;
    CHECK_EQ_INT(tfn__crc32c_shift_test(r, 1), ref_reg(r, zero_block, TFN__CRC32C_LONG));
    CHECK_EQ_INT(tfn__crc32c_shift_test(r, 0), ref_reg(r, zero_block, TFN__CRC32C_SHORT));
}

/* Portable and instruction (SSE4.2 / ARMv8 CRC32) paths agree with the reference at
 * every length around the block sizes and at every alignment. */
static void test_paths_agree(void)
{
    size_t cap = 3 * TFN__CRC32C_LONG * 2 + 64;
    uint8_t *buf = (uint8_t *)malloc(cap);
    REQUIRE(buf != NULL);
    uint32_t s = 1;
    for (size_t i = 0; i < cap; i++) {
        s = s * 1103515245u + 12345u;
        buf[i] = (uint8_t)(s >> 16);
    }
    bool hw = tfn__crc32c_hw_available();
    printf("CRC-32C instruction (x86-64 SSE4.2, AArch64 CRC32): %s\n",
           hw ? "used" : "not available (portable only)");
    size_t lens[] = {0, 1, 7, 8, 9, 63, 64, 255, 256, 767, 768, 769, 1000, 3 * 256 * 2 + 5,
                     3 * TFN__CRC32C_LONG - 1, 3 * TFN__CRC32C_LONG, 3 * TFN__CRC32C_LONG + 1,
                     3 * TFN__CRC32C_LONG + 3 * TFN__CRC32C_SHORT + 9, 6 * TFN__CRC32C_LONG};
    int bad = 0;
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        for (size_t al = 0; al < 8; al++) {
            size_t n = lens[li];
            const uint8_t *p = buf + al;
            uint32_t ref = ref_reg(0x9e3779b9u, p, n);
            bad += tfn__crc32c_sw(0x9e3779b9u, p, n) != ref;
            if (hw)
                bad += tfn__crc32c_hw(0x9e3779b9u, p, n) != ref;
        }
    }
    CHECK_EQ_INT(bad, 0);
    /* Random lengths. */
    for (int t = 0; t < 200; t++) {
        s = s * 1103515245u + 12345u;
        size_t n = (s >> 8) % (cap - 8);
        size_t al = s & 7;
        uint32_t sw = tfn__crc32c_sw(0xffffffffu, buf + al, n);
        CHECK_EQ_INT(~sw, tfn_crc32c(0, buf + al, n));
        if (hw)
            CHECK_EQ_INT(tfn__crc32c_hw(0xffffffffu, buf + al, n), sw);
    }
    free(buf);
}

/* The copying CRC (what the reader's take() uses): the same register as the plain
 * one, and a byte-exact copy that writes nothing outside dst, for every length
 * around the block sizes and every source and destination alignment. */
static void test_copy_paths(void)
{
    size_t cap = 3 * TFN__CRC32C_LONG * 2 + 64;
    uint8_t *src = (uint8_t *)malloc(cap), *dst = (uint8_t *)malloc(cap + 16);
    REQUIRE(src != NULL && dst != NULL);
    uint32_t s = 7;
    for (size_t i = 0; i < cap; i++) {
        s = s * 1103515245u + 12345u;
        src[i] = (uint8_t)(s >> 16);
    }
    bool hw = tfn__crc32c_hw_available();
    size_t lens[] = {0, 1, 7, 8, 9, 255, 256, 769, 3 * 256 * 2 + 5, 3 * TFN__CRC32C_LONG - 1,
                     3 * TFN__CRC32C_LONG + 1, 3 * TFN__CRC32C_LONG + 3 * TFN__CRC32C_SHORT + 9,
                     6 * TFN__CRC32C_LONG};
    int bad = 0;
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        for (size_t al = 0; al < 8; al++) {
            for (size_t dal = 0; dal < 8; dal += 3) {
                size_t n = lens[li];
                const uint8_t *p = src + al;
                uint32_t ref = ref_reg(0x9e3779b9u, p, n);
                for (int path = 0; path < (hw ? 3 : 2); path++) {
                    memset(dst, 0xEE, cap + 16);
                    uint8_t *d = dst + 4 + dal;
                    uint32_t got = path == 0   ? tfn__crc32c_copy_sw(0x9e3779b9u, d, p, n)
                                   : path == 1 ? ~tfn__crc32c_copy(~0x9e3779b9u, d, p, n)
                                               : tfn__crc32c_copy_hw(0x9e3779b9u, d, p, n);
                    bad += got != ref;
                    bad += memcmp(d, p, n) != 0;
                    for (size_t k = 0; k < 4 + dal; k++)
                        bad += dst[k] != 0xEE;
                    bad += d[n] != 0xEE;
                }
            }
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(tfn__crc32c_copy(0x1234u, dst, src, 0), 0x1234u);
    free(src);
    free(dst);
}

int main(void)
{
    RUN(test_vectors);
    RUN(test_mask);
    RUN(test_chaining);
    RUN(test_tables);
    RUN(test_paths_agree);
    RUN(test_copy_paths);
    return harness_finish();
}

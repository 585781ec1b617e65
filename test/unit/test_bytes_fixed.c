/* test_bytes_fixed.c - tfn_bytes_copy_fixed: rows padded with zeros, strings with NUL
 * bytes of their own kept, the width and capacity checks, empty input. */
#include "harness.h"
#include "tfnano.h"

#include <stdint.h>

static void test_rows(void)
{
    tfn_bytes views[4] = {{(const uint8_t *)"abc", 3},
                          {(const uint8_t *)"", 0},
                          {(const uint8_t *)"a\0b\0", 4},
                          {(const uint8_t *)"wxyz", 4}};
    uint8_t dst[16];
    memset(dst, 0xee, sizeof dst);
    tfn_error err;
    REQUIRE(tfn_bytes_copy_fixed(views, 4, dst, 4, sizeof dst, &err) == TFN_OK);
    CHECK_MEM(dst, 16, "abc\0\0\0\0\0a\0b\0wxyz", 16);
}

static void test_limits(void)
{
    tfn_bytes views[2] = {{(const uint8_t *)"ab", 2}, {(const uint8_t *)"abcde", 5}};
    uint8_t dst[16];
    tfn_error err;
    CHECK_EQ_INT(tfn_bytes_copy_fixed(views, 2, dst, 4, sizeof dst, &err), TFN_E_BUF_TOO_SMALL);
    CHECK_EQ_INT(err.record_index, 1);
    CHECK_STR(err.msg, "string 1 has 5 bytes, more than the width 4");
    CHECK_EQ_INT(tfn_bytes_copy_fixed(views, 2, dst, 9, sizeof dst, &err), TFN_E_BUF_TOO_SMALL);
    CHECK_STR(err.msg, "buffer of 16 bytes is too small for 2 rows of 9 bytes");
    CHECK_EQ_INT(tfn_bytes_copy_fixed(views, 2, dst, SIZE_MAX, sizeof dst, &err),
                 TFN_E_BUF_TOO_SMALL);
    CHECK_EQ_INT(tfn_bytes_copy_fixed(NULL, 2, dst, 4, sizeof dst, &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_bytes_copy_fixed(views, 2, NULL, 4, sizeof dst, &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_bytes_copy_fixed(NULL, 0, NULL, 4, 0, &err), TFN_OK);
    REQUIRE(tfn_bytes_copy_fixed(views, 2, dst, 8, sizeof dst, &err) == TFN_OK);
    CHECK_MEM(dst, 16, "ab\0\0\0\0\0\0abcde\0\0\0", 16);
}

int main(void)
{
    RUN(test_rows);
    RUN(test_limits);
    return harness_finish();
}

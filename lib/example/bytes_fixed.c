/* bytes_fixed.c - byte strings into fixed-width rows (tfn_bytes_copy_fixed): numpy
 * turns an "S<width>" array into bytes objects in one pass of its own, several times
 * faster than Python slicing one bytes object per string out of a joined buffer. */
#include "../base/tfn_internal.h"

int tfn_bytes_copy_fixed(const tfn_bytes *views, size_t n, void *dst, size_t width, size_t cap,
                         tfn_error *err)
{
    if (!n)
        return TFN_OK;
    if (!views || !dst)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_bytes_copy_fixed: NULL array");
    size_t need;
    if (!tfn__mul_size(n, width, &need) || need > cap)
        return tfn__fail(err, TFN_E_BUF_TOO_SMALL,
                         "buffer of %zu bytes is too small for %zu rows of %zu bytes", cap, n,
                         width);
    uint8_t *row = dst;
    for (size_t i = 0; i < n; i++, row += width) {
        size_t len = views[i].len;
        if (len > width)
            return tfn__fail_at(err, TFN_E_BUF_TOO_SMALL, 0, i,
                                "string %zu has %zu bytes, more than the width %zu", i, len,
                                width);
        if (len)
            memcpy(row, views[i].data, len);
        memset(row + len, 0, width - len);
    }
    return TFN_OK;
}

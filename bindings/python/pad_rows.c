/*
 * pad_rows.c - the Python binding's padding kernel (compiled into tfnano._native only):
 * ragged rows (flat values + offsets) into a dense, pre-filled [n, maxlen] array with
 * keras pad_sequences placement, and an optional mask. One call per batch, so the
 * per-row cost is a memcpy (or a converting loop) instead of a numpy call.
 */
#include "pad_rows.h"

#include <string.h>

static size_t elem_size(int type)
{
    switch (type) {
    case TFN_PY_I32:
    case TFN_PY_F32:
        return 4;
    case TFN_PY_I64:
    case TFN_PY_F64:
        return 8;
    default:
        return 0;
    }
}

/* Reads element i of a source buffer as int64. */
static int64_t load(const void *src, int type, size_t i)
{
    if (type == TFN_PY_I32) {
        int32_t v;
        memcpy(&v, (const char *)src + i * 4, 4);
        return v;
    }
    int64_t v;
    memcpy(&v, (const char *)src + i * 8, 8);
    return v;
}

static void store(void *dst, int type, size_t i, int64_t v)
{
    char *p = (char *)dst;
    switch (type) {
    case TFN_PY_I32: {
        int32_t x = (int32_t)v; /* the caller checked the range */
        memcpy(p + i * 4, &x, 4);
        break;
    }
    case TFN_PY_I64:
        memcpy(p + i * 8, &v, 8);
        break;
    case TFN_PY_F32: {
        float x = (float)v;
        memcpy(p + i * 4, &x, 4);
        break;
    }
    default: {
        double x = (double)v;
        memcpy(p + i * 8, &x, 8);
        break;
    }
    }
}

int tfn_py_pad_rows(const void *values, int src_type, const int64_t *offsets, size_t n,
                    void *out, int out_type, size_t maxlen, int pre_padding,
                    int pre_truncating, uint8_t *mask)
{
    size_t in_size = elem_size(src_type), out_size = elem_size(out_type);
    /* Same type: plain copies; otherwise integer sources only. */
    if (!offsets || !out || out_size == 0 || in_size == 0 ||
        (src_type != out_type && src_type != TFN_PY_I32 && src_type != TFN_PY_I64))
        return -1;
    if (n && maxlen > SIZE_MAX / n)
        return -1;
    if (n && !values && offsets[n] > 0)
        return -1;
    for (size_t r = 0; r < n; r++) {
        int64_t a = offsets[r], b = offsets[r + 1];
        if (a < 0 || b < a)
            return -1;
        size_t len = (size_t)(b - a);
        size_t keep = len < maxlen ? len : maxlen;
        size_t from = (size_t)a + (pre_truncating ? len - keep : 0);
        size_t to = r * maxlen + (pre_padding ? maxlen - keep : 0);
        if (keep == 0)
            continue;
        if (src_type == out_type) {
            memcpy((char *)out + to * out_size, (const char *)values + from * in_size,
                   keep * in_size);
        } else {
            for (size_t i = 0; i < keep; i++)
                store(out, out_type, to + i, load(values, src_type, from + i));
        }
        if (mask)
            memset(mask + to, 1, keep);
    }
    return 0;
}

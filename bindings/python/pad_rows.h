/* pad_rows.h - the Python binding's padding kernel (see pad_rows.c). Not part of the
 * library's API; bindings/python/build_ffi.py declares it to cffi. */
#ifndef TFN_PY_PAD_ROWS_H
#define TFN_PY_PAD_ROWS_H

#include <stddef.h>
#include <stdint.h>

enum { TFN_PY_I32 = 1, TFN_PY_I64 = 2, TFN_PY_F32 = 3, TFN_PY_F64 = 4 };

/* Copies row r = values[offsets[r] .. offsets[r+1]) into out[r, :] (row-major
 * [n, maxlen], already filled with the padding value): the first (or, with
 * pre_truncating, the last) min(len, maxlen) elements, at the start of the row (or,
 * with pre_padding, at its end), converted to out_type (int64 -> int32 must have been
 * range-checked by the caller). mask (n * maxlen bytes, zeroed) gets 1 where a value
 * was written; may be NULL. Returns 0, or -1 for bad arguments or offsets. */
int tfn_py_pad_rows(const void *values, int src_type, const int64_t *offsets, size_t n,
                    void *out, int out_type, size_t maxlen, int pre_padding,
                    int pre_truncating, uint8_t *mask);

#endif

/*
 * pad_internal.h - the padding kernel shared by tfn_pad() (pad.c) and the
 * bucketing planner's tfn_bucket_plan_pad_batch() (bucket.c).
 */
#ifndef TFN_PAD_INTERNAL_H
#define TFN_PAD_INTERNAL_H

#include "../base/tfn_internal.h"

/* Checks dtype, NULL/alignment rules and offsets[0] <= count of `in` (not the rows:
 * each caller checks the rows it reads, see tfn__pad_check_row). `fn` names the
 * public function in messages. */
int tfn__pad_check_input(const tfn_ragged *in, const char *fn, tfn_error *err);

/* Checks row r of an input that passed tfn__pad_check_input: 0 <= offsets[r] <=
 * offsets[r+1] <= count. */
int tfn__pad_check_row(const tfn_ragged *in, size_t r, const char *fn, tfn_error *err);

/* Checks a padding or truncating side. */
int tfn__pad_check_side(int side, const char *what, const char *fn, tfn_error *err);

/* One padding job: rows[i] (or i when rows is NULL) of `in`, for i < nrows, into
 * out[nrows][width]; each keeps at most keep_limit values. The rows' offsets must have
 * been checked; everything else is checked here (out dtype, NULL pointers, alignment,
 * nrows * width overflow, the fill value's range). */
typedef struct tfn__pad_job {
    const tfn_ragged *in;
    const int64_t *rows;
    size_t nrows;
    size_t width;
    size_t keep_limit;
    int padding;
    int truncating;
    double value;
    void *out;
    int out_dtype;
    uint8_t *mask;
    int64_t *lengths;
} tfn__pad_job;

int tfn__pad_run(const tfn__pad_job *job, const char *fn, tfn_error *err);

/* Rounds len up to a multiple of m (m <= 1: unchanged). False on overflow. */
static inline bool tfn__round_up(size_t len, int64_t m, size_t *out)
{
    if (m <= 1) {
        *out = len;
        return true;
    }
    size_t um = (size_t)m, rem = len % um;
    if (rem == 0) {
        *out = len;
        return true;
    }
    return tfn__add_size(len, um - rem, out);
}

#endif /* TFN_PAD_INTERNAL_H */

/* pad.c - ragged rows into dense [nrows, width] arrays with keras pad_sequences
 * placement (tfn_pad), and the kernel that bucketed batches share (tfn__pad_run).
 *
 * Per row the work is one copy of the kept slice plus one fill of the rest (and the
 * same for the mask): a memcpy when the types match, a tight converting loop
 * otherwise, never a branch per element on the same-type path. */
#include "pad_internal.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>

static size_t dtype_size(int dtype)
{
    switch (dtype) {
    case TFN_INT32:
    case TFN_FLOAT32:
        return 4;
    case TFN_INT64:
        return 8;
    default:
        return 0;
    }
}

static const char *dtype_name(int dtype)
{
    switch (dtype) {
    case TFN_INT32:
        return "int32";
    case TFN_INT64:
        return "int64";
    default:
        return "float32";
    }
}

static bool misaligned(const void *p, size_t align)
{
    return p && (uintptr_t)p % align != 0;
}

/* ---------------------------------------------------------------- checks */

int tfn__pad_check_input(const tfn_ragged *in, const char *fn, tfn_error *err)
{
    if (!in)
        return tfn__fail(err, TFN_E_INVALID_ARG, "%s: the ragged input is NULL", fn);
    size_t es = dtype_size(in->dtype);
    if (es == 0)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "%s: values dtype %d is not supported; expected TFN_INT32, "
                         "TFN_INT64 or TFN_FLOAT32",
                         fn, in->dtype);
    if (!in->values && in->count)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "%s: values is NULL but count is %zu; expected a buffer of "
                         "count elements",
                         fn, in->count);
    if (in->count > SIZE_MAX / es)
        return tfn__fail(err, TFN_E_INVALID_ARG, "%s: count %zu of %s values overflows size_t",
                         fn, in->count, dtype_name(in->dtype));
    if (misaligned(in->values, es))
        return tfn__fail(err, TFN_E_INVALID_ARG, "%s: values is not aligned for %s", fn,
                         dtype_name(in->dtype));
    if (!in->offsets && in->nrows)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "%s: offsets is NULL but nrows is %zu; expected nrows + 1 offsets",
                         fn, in->nrows);
    if (misaligned(in->offsets, sizeof(int64_t)))
        return tfn__fail(err, TFN_E_INVALID_ARG, "%s: offsets is not aligned for int64", fn);
    return TFN_OK;
}

static inline bool row_ok(const tfn_ragged *in, size_t r)
{
    int64_t a = in->offsets[r], b = in->offsets[r + 1];
    return a >= 0 && b >= a && (uint64_t)b <= (uint64_t)in->count;
}

int tfn__pad_check_row(const tfn_ragged *in, size_t r, const char *fn, tfn_error *err)
{
    int64_t a = in->offsets[r], b = in->offsets[r + 1];
    if (a < 0)
        return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, r,
                            "%s: row %zu: offsets[%zu] = %" PRId64
                            " is negative; expected offsets >= 0",
                            fn, r, r, a);
    if (b < a)
        return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, r,
                            "%s: row %zu: offsets[%zu] = %" PRId64 " > offsets[%zu] = %" PRId64
                            "; expected non-decreasing offsets",
                            fn, r, r, a, r + 1, b);
    if ((uint64_t)b > (uint64_t)in->count)
        return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, r,
                            "%s: row %zu: offsets[%zu] = %" PRId64
                            " is beyond the %zu values; expected offsets <= count",
                            fn, r, r + 1, b, in->count);
    return TFN_OK;
}

int tfn__pad_check_side(int side, const char *what, const char *fn, tfn_error *err)
{
    if (side == TFN_PAD_PRE || side == TFN_PAD_POST)
        return TFN_OK;
    return tfn__fail(err, TFN_E_INVALID_ARG,
                     "%s: %s side %d not understood; expected TFN_PAD_PRE (0) or "
                     "TFN_PAD_POST (1)",
                     fn, what, side);
}

static int check_options(const tfn_pad_options *opt, const char *fn, tfn_error *err)
{
    if (opt->maxlen < 0 && opt->maxlen != TFN_PAD_MAXLEN_UNSET)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "%s: maxlen %" PRId64
                         " is negative; expected >= 0 or TFN_PAD_MAXLEN_UNSET (-1)",
                         fn, opt->maxlen);
    if ((uint64_t)opt->maxlen > SIZE_MAX && opt->maxlen > 0)
        return tfn__fail(err, TFN_E_INVALID_ARG, "%s: maxlen %" PRId64 " overflows size_t",
                         fn, opt->maxlen);
    if (opt->pad_to_multiple_of < 0)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "%s: pad_to_multiple_of %" PRId64 " is negative; expected >= 0", fn,
                         opt->pad_to_multiple_of);
    int rc = tfn__pad_check_side(opt->padding, "padding", fn, err);
    return rc ? rc : tfn__pad_check_side(opt->truncating, "truncating", fn, err);
}

/* ---------------------------------------------------------------- conversions */

/* A copy of k values into the output row; returns k, or the index of the first value
 * that does not fit the output type (nothing after it is written). */
typedef size_t (*copy_fn)(void *restrict dst, const void *restrict src, size_t k);

static size_t copy4(void *restrict dst, const void *restrict src, size_t k)
{
    memcpy(dst, src, k * 4);
    return k;
}

static size_t copy8(void *restrict dst, const void *restrict src, size_t k)
{
    memcpy(dst, src, k * 8);
    return k;
}

static size_t i32_to_i64(void *restrict dst, const void *restrict src, size_t k)
{
    int64_t *o = dst;
    const int32_t *x = src;
    for (size_t i = 0; i < k; i++)
        o[i] = x[i];
    return k;
}

static size_t i32_to_f32(void *restrict dst, const void *restrict src, size_t k)
{
    float *o = dst;
    const int32_t *x = src;
    for (size_t i = 0; i < k; i++)
        o[i] = (float)x[i];
    return k;
}

static size_t i64_to_f32(void *restrict dst, const void *restrict src, size_t k)
{
    float *o = dst;
    const int64_t *x = src;
    for (size_t i = 0; i < k; i++)
        o[i] = (float)x[i];
    return k;
}

static size_t i64_to_i32(void *restrict dst, const void *restrict src, size_t k)
{
    int32_t *o = dst;
    const int64_t *x = src;
    /* Range first (a branch-free reduction), then a plain narrowing loop. */
    int64_t lo = 0, hi = 0;
    for (size_t i = 0; i < k; i++) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    if (lo < INT32_MIN || hi > INT32_MAX) {
        for (size_t i = 0; i < k; i++)
            if (x[i] < INT32_MIN || x[i] > INT32_MAX)
                return i;
    }
    for (size_t i = 0; i < k; i++)
        o[i] = (int32_t)x[i];
    return k;
}

/* float -> integer keeps numpy's truncation toward zero; NaN, infinities and values
 * whose truncation is outside the type are refused (the comparisons are false for
 * NaN). */
static size_t f32_to_i32(void *restrict dst, const void *restrict src, size_t k)
{
    int32_t *o = dst;
    const float *x = src;
    for (size_t i = 0; i < k; i++) {
        double v = x[i];
        if (!(v > -2147483649.0 && v < 2147483648.0))
            return i;
        o[i] = (int32_t)v;
    }
    return k;
}

static size_t f32_to_i64(void *restrict dst, const void *restrict src, size_t k)
{
    int64_t *o = dst;
    const float *x = src;
    for (size_t i = 0; i < k; i++) {
        float v = x[i];
        if (!(v >= -9223372036854775808.0f && v < 9223372036854775808.0f))
            return i;
        o[i] = (int64_t)v;
    }
    return k;
}

static copy_fn pick_copy(int from, int to)
{
    if (from == to)
        return dtype_size(to) == 4 ? copy4 : copy8;
    switch (from) {
    case TFN_INT32:
        return to == TFN_INT64 ? i32_to_i64 : i32_to_f32;
    case TFN_INT64:
        return to == TFN_INT32 ? i64_to_i32 : i64_to_f32;
    default:
        return to == TFN_INT32 ? f32_to_i32 : f32_to_i64;
    }
}

/* The message for a value that does not fit: `v` points at it, of `dtype` (int64 or
 * float32: the only input types that can fail). */
static int value_out_of_range(int dtype, const void *v, size_t row, size_t pos, int out_dtype,
                              const char *fn, tfn_error *err)
{
    if (dtype == TFN_INT64) {
        int64_t x;
        memcpy(&x, v, sizeof x);
        return tfn__fail_at(err, TFN_E_OUT_OF_RANGE, 0, row,
                            "%s: row %zu, position %zu: value %" PRId64
                            " does not fit %s output (keras would wrap it; tfnano refuses)",
                            fn, row, pos, x, dtype_name(out_dtype));
    }
    float x;
    memcpy(&x, v, sizeof x);
    return tfn__fail_at(err, TFN_E_OUT_OF_RANGE, 0, row,
                        "%s: row %zu, position %zu: value %.9g does not fit %s output "
                        "(NaN, infinite or out of range; keras would cast it unsafely)",
                        fn, row, pos, (double)x, dtype_name(out_dtype));
}

/* The fill value as the output type's bits; refused where a value would be. */
static int fill_bits(double value, int out_dtype, uint64_t *bits, const char *fn,
                     tfn_error *err)
{
    switch (out_dtype) {
    case TFN_INT32:
        if (value > -2147483649.0 && value < 2147483648.0) {
            int32_t v = (int32_t)value;
            uint32_t u;
            memcpy(&u, &v, 4);
            *bits = u;
            return TFN_OK;
        }
        break;
    case TFN_INT64:
        if (value >= -9223372036854775808.0 && value < 9223372036854775808.0) {
            int64_t v = (int64_t)value;
            memcpy(bits, &v, 8);
            return TFN_OK;
        }
        break;
    default:
        /* NaN and infinities carry over; finite values must fit float32. */
        if (isnan(value) || isinf(value) ||
            (value >= -(double)FLT_MAX && value <= (double)FLT_MAX)) {
            *bits = tfn__float_bits((float)value);
            return TFN_OK;
        }
        break;
    }
    return tfn__fail(err, TFN_E_OUT_OF_RANGE, "%s: fill value %.17g does not fit %s output",
                     fn, value, dtype_name(out_dtype));
}

/* Writes k copies of the fill pattern. */
static inline void fill(char *dst, size_t k, size_t es, uint64_t bits, bool zero)
{
    if (zero) {
        memset(dst, 0, k * es);
    } else if (es == 4) {
        uint32_t v = (uint32_t)bits;
        uint32_t *o = (uint32_t *)(void *)dst;
        for (size_t i = 0; i < k; i++)
            o[i] = v;
    } else {
        uint64_t *o = (uint64_t *)(void *)dst;
        for (size_t i = 0; i < k; i++)
            o[i] = bits;
    }
}

/* ---------------------------------------------------------------- the kernel */

/* What every row of one call shares: checked once, then pad_row() per row. */
typedef struct pad_ctx {
    size_t width, limit, oes;
    uint64_t bits;
    bool zero, pre_pad, pre_trunc;
    int out_dtype;
    char *out;
    uint8_t *mask;
    int64_t *lengths;
} pad_ctx;

/* Checks the output side of a job (dtype, sides, sizes, alignment, fill value) and
 * fills `c`. */
static int pad_setup(pad_ctx *c, size_t nrows, size_t width, size_t keep_limit, int padding,
                     int truncating, double value, void *out, int out_dtype, uint8_t *mask,
                     int64_t *lengths, const char *fn, tfn_error *err)
{
    size_t oes = dtype_size(out_dtype);
    if (oes == 0)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "%s: out dtype %d is not supported; expected TFN_INT32, TFN_INT64 "
                         "or TFN_FLOAT32",
                         fn, out_dtype);
    int rc = tfn__pad_check_side(padding, "padding", fn, err);
    if (rc == TFN_OK)
        rc = tfn__pad_check_side(truncating, "truncating", fn, err);
    if (rc)
        return rc;
    size_t total, bytes;
    if (!tfn__mul_size(nrows, width, &total) || !tfn__mul_size(total, oes, &bytes))
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "%s: nrows %zu * width %zu of %s overflows size_t", fn, nrows, width,
                         dtype_name(out_dtype));
    if (total && !out)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "%s: out is NULL but nrows * width is %zu; expected a buffer of "
                         "that many elements",
                         fn, total);
    if (misaligned(out, oes))
        return tfn__fail(err, TFN_E_INVALID_ARG, "%s: out is not aligned for %s", fn,
                         dtype_name(out_dtype));
    if (misaligned(lengths, sizeof(int64_t)))
        return tfn__fail(err, TFN_E_INVALID_ARG, "%s: lengths is not aligned for int64", fn);
    rc = fill_bits(value, out_dtype, &c->bits, fn, err);
    if (rc)
        return rc;
    c->width = width;
    c->limit = keep_limit < width ? keep_limit : width;
    c->oes = oes;
    c->zero = c->bits == 0;
    c->pre_pad = padding == TFN_PAD_PRE;
    c->pre_trunc = truncating == TFN_PAD_PRE;
    c->out_dtype = out_dtype;
    c->out = out;
    c->mask = mask;
    c->lengths = lengths;
    return TFN_OK;
}

/* Output row i from the `len` values of `dtype` at base[start...] (row r in messages;
 * base is only offset when a value is read: it may be NULL for an empty row). */
static inline int pad_row(const pad_ctx *c, size_t i, size_t r, const char *base, size_t start,
                          size_t len, int dtype, copy_fn copy, const char *fn, tfn_error *err)
{
    size_t oes = c->oes, ies = dtype_size(dtype), width = c->width;
    size_t keep = len < c->limit ? len : c->limit, pad = width - keep;
    size_t from = c->pre_trunc ? len - keep : 0;
    char *row = c->out + i * width * oes;
    /* Written in address order (fill then values, or values then fill): the stores
     * stream, which matters for outputs larger than the caches. */
    if (pad && c->pre_pad)
        fill(row, pad, oes, c->bits, c->zero);
    if (keep) {
        const char *src = base + (start + from) * ies;
        size_t done = copy(row + (c->pre_pad ? pad : 0) * oes, src, keep);
        if (TFN_UNLIKELY(done != keep))
            return value_out_of_range(dtype, src + done * ies, r, from + done, c->out_dtype,
                                      fn, err);
    }
    if (pad && !c->pre_pad)
        fill(row + keep * oes, pad, oes, c->bits, c->zero);
    if (c->mask) {
        uint8_t *m = c->mask + i * width;
        memset(m, c->pre_pad ? 0 : 1, c->pre_pad ? pad : keep);
        memset(m + (c->pre_pad ? pad : keep), c->pre_pad ? 1 : 0, c->pre_pad ? keep : pad);
    }
    if (c->lengths)
        c->lengths[i] = (int64_t)keep;
    return TFN_OK;
}

int tfn__pad_run(const tfn__pad_job *job, const char *fn, tfn_error *err)
{
    const tfn_ragged *in = job->in;
    pad_ctx c;
    int rc = pad_setup(&c, job->nrows, job->width, job->keep_limit, job->padding,
                       job->truncating, job->value, job->out, job->out_dtype, job->mask,
                       job->lengths, fn, err);
    if (rc)
        return rc;
    copy_fn copy = pick_copy(in->dtype, job->out_dtype);
    for (size_t i = 0; i < job->nrows; i++) {
        size_t r = job->rows ? (size_t)job->rows[i] : i;
        size_t a = (size_t)in->offsets[r], len = (size_t)in->offsets[r + 1] - a;
        rc = pad_row(&c, i, r, in->values, a, len, in->dtype, copy, fn, err);
        if (TFN_UNLIKELY(rc))
            return rc;
    }
    return TFN_OK;
}

/* ---------------------------------------------------------------- public API */

void tfn_pad_options_init(tfn_pad_options *opt)
{
    if (!opt)
        return;
    opt->maxlen = TFN_PAD_MAXLEN_UNSET;
    opt->padding = TFN_PAD_PRE;
    opt->truncating = TFN_PAD_PRE;
    opt->value = 0.0;
    opt->pad_to_multiple_of = 0;
}

int tfn_pad_side_parse(const char *name, size_t len, const char *what, int *side,
                       tfn_error *err)
{
    if (!side || (!name && len))
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_pad_side_parse: NULL %s",
                         side ? "name" : "side");
    if (!what)
        what = "Side";
    static const struct {
        const char *name;
        size_t len;
        int side;
    } names[] = {{"pre", 3, TFN_PAD_PRE},
                 {"post", 4, TFN_PAD_POST},
                 {"left", 4, TFN_PAD_LEFT},
                 {"right", 5, TFN_PAD_RIGHT}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (len == names[i].len && memcmp(name, names[i].name, len) == 0) {
            *side = names[i].side;
            return TFN_OK;
        }
    }
    return tfn__fail(err, TFN_E_INVALID_ARG,
                     "%s type \"%.*s\" not understood; expected \"pre\", \"post\", \"left\" "
                     "or \"right\"",
                     what, (int)(len > 200 ? 200 : len), name ? name : "");
}

/* Validates input and options, checks every row, and computes the width. */
static int pad_width(const tfn_ragged *in, const tfn_pad_options *opt, size_t *width,
                     const char *fn, tfn_error *err)
{
    int rc = tfn__pad_check_input(in, fn, err);
    if (rc == TFN_OK)
        rc = check_options(opt, fn, err);
    if (rc)
        return rc;
    size_t longest = 0;
    for (size_t r = 0; r < in->nrows; r++) {
        if (TFN_UNLIKELY(!row_ok(in, r)))
            return tfn__pad_check_row(in, r, fn, err);
        size_t len = (size_t)(in->offsets[r + 1] - in->offsets[r]);
        longest = len > longest ? len : longest;
    }
    size_t base = opt->maxlen == TFN_PAD_MAXLEN_UNSET ? longest : (size_t)opt->maxlen;
    if (!tfn__round_up(base, opt->pad_to_multiple_of, width))
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "%s: width %zu rounded up to a multiple of %" PRId64
                         " overflows size_t",
                         fn, base, opt->pad_to_multiple_of);
    return TFN_OK;
}

int tfn_pad_width(const tfn_ragged *in, const tfn_pad_options *opt, size_t *width,
                  tfn_error *err)
{
    tfn_pad_options defaults;
    if (!opt) {
        tfn_pad_options_init(&defaults);
        opt = &defaults;
    }
    if (!width)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_pad_width: width is NULL");
    return pad_width(in, opt, width, "tfn_pad_width", err);
}

int tfn_pad(const tfn_ragged *in, const tfn_pad_options *opt, void *out, int out_dtype,
            size_t width, uint8_t *mask, int64_t *lengths, tfn_error *err)
{
    tfn_pad_options defaults;
    if (!opt) {
        tfn_pad_options_init(&defaults);
        opt = &defaults;
    }
    size_t need;
    int rc = pad_width(in, opt, &need, "tfn_pad", err);
    if (rc)
        return rc;
    if (width != need)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "tfn_pad: width %zu does not match the %zu these rows and options "
                         "give (see tfn_pad_width)",
                         width, need);
    tfn__pad_job job = {
        .in = in,
        .rows = NULL,
        .nrows = in->nrows,
        .width = width,
        .keep_limit = opt->maxlen == TFN_PAD_MAXLEN_UNSET ? SIZE_MAX : (size_t)opt->maxlen,
        .padding = opt->padding,
        .truncating = opt->truncating,
        .value = opt->value,
        .out = out,
        .out_dtype = out_dtype,
        .mask = mask,
        .lengths = lengths,
    };
    return tfn__pad_run(&job, "tfn_pad", err);
}

/* A row of tfn_pad_rows(): checked as tfn__pad_check_input checks a ragged input. */
static int check_row_view(const tfn_pad_row *row, size_t r, const char *fn, tfn_error *err)
{
    size_t es = dtype_size(row->dtype);
    if (es == 0)
        return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, r,
                            "%s: row %zu: dtype %d is not supported; expected TFN_INT32, "
                            "TFN_INT64 or TFN_FLOAT32",
                            fn, r, row->dtype);
    if (!row->values && row->count)
        return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, r,
                            "%s: row %zu: values is NULL but count is %zu; expected a buffer "
                            "of count elements",
                            fn, r, row->count);
    if (row->count > SIZE_MAX / es)
        return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, r,
                            "%s: row %zu: count %zu of %s values overflows size_t", fn, r,
                            row->count, dtype_name(row->dtype));
    if (misaligned(row->values, es))
        return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, r,
                            "%s: row %zu: values is not aligned for %s", fn, r,
                            dtype_name(row->dtype));
    return TFN_OK;
}

int tfn_pad_rows(const tfn_pad_row *rows, size_t nrows, const tfn_pad_options *opt, void *out,
                 int out_dtype, size_t width, uint8_t *mask, int64_t *lengths, tfn_error *err)
{
    const char *fn = "tfn_pad_rows";
    tfn_pad_options defaults;
    if (!opt) {
        tfn_pad_options_init(&defaults);
        opt = &defaults;
    }
    if (!rows && nrows)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "%s: rows is NULL but nrows is %zu; expected nrows row views", fn,
                         nrows);
    int rc = check_options(opt, fn, err);
    if (rc)
        return rc;
    size_t longest = 0;
    for (size_t r = 0; r < nrows; r++) {
        rc = check_row_view(&rows[r], r, fn, err);
        if (rc)
            return rc;
        longest = rows[r].count > longest ? rows[r].count : longest;
    }
    size_t base = opt->maxlen == TFN_PAD_MAXLEN_UNSET ? longest : (size_t)opt->maxlen, need;
    if (!tfn__round_up(base, opt->pad_to_multiple_of, &need))
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "%s: width %zu rounded up to a multiple of %" PRId64
                         " overflows size_t",
                         fn, base, opt->pad_to_multiple_of);
    if (width != need)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "%s: width %zu does not match the %zu these rows and options give",
                         fn, width, need);
    pad_ctx c;
    rc = pad_setup(&c, nrows, width,
                   opt->maxlen == TFN_PAD_MAXLEN_UNSET ? SIZE_MAX : (size_t)opt->maxlen,
                   opt->padding, opt->truncating, opt->value, out, out_dtype, mask, lengths,
                   fn, err);
    if (rc)
        return rc;
    for (size_t r = 0; r < nrows; r++) {
        int dtype = rows[r].dtype;
        rc = pad_row(&c, r, r, rows[r].values, 0, rows[r].count, dtype,
                     pick_copy(dtype, out_dtype), fn, err);
        if (TFN_UNLIKELY(rc))
            return rc;
    }
    return TFN_OK;
}

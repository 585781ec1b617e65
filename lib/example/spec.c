/* spec.c - compiling FixedLenFeature / FixedLenSequenceFeature / VarLen configs, with
 * the validation (and messages) of TensorFlow's parsing_config.py. */
#include "example_internal.h"
#include "parse_internal.h"

#include <stdio.h>

static int key_arg(const tfn_feature_config *c)
{
    return (int)(c->key_len > 200 ? 200 : c->key_len);
}

/* "(1, None)" - how Python prints the shape tuple TF shows in its message. */
static void python_shape(char *out, size_t cap, const int64_t *shape, size_t rank)
{
    size_t w = (size_t)snprintf(out, cap, "(");
    for (size_t i = 0; i < rank && w < cap; i++) {
        if (shape[i] < 0)
            w += (size_t)snprintf(out + w, cap - w, "%sNone", i ? ", " : "");
        else
            w += (size_t)snprintf(out + w, cap - w, "%s%lld", i ? ", " : "", (long long)shape[i]);
    }
    if (w < cap)
        snprintf(out + w, cap - w, rank == 1 ? ",)" : ")");
}

/* TF's TensorShape::DebugString: "[]", "[2,3]", "[?,2]" (unknown dimensions as "?"). */
static void tf_shape(char *out, size_t cap, bool leading_unknown, const int64_t *shape,
                     size_t rank)
{
    size_t w = (size_t)snprintf(out, cap, "[%s", leading_unknown ? "?" : "");
    for (size_t i = 0; i < rank && w < cap; i++) {
        const char *sep = (i || leading_unknown) ? "," : "";
        if (shape[i] < 0)
            w += (size_t)snprintf(out + w, cap - w, "%s?", sep);
        else
            w += (size_t)snprintf(out + w, cap - w, "%s%lld", sep, (long long)shape[i]);
    }
    if (w < cap)
        snprintf(out + w, cap - w, "]");
}

static size_t elem_size(int dtype)
{
    return dtype == TFN_INT64 ? sizeof(int64_t) : dtype == TFN_FLOAT32 ? sizeof(float)
                                                                       : sizeof(tfn_bytes);
}

/* prod(shape) of a config whose dimensions are known; false on overflow or when the
 * count would not fit TF's int32 element counts. */
static bool shape_elements(const tfn_feature_config *c, size_t *prod)
{
    *prod = 1;
    for (size_t i = 0; i < c->rank; i++)
        if (c->shape[i] < 0 || !tfn__mul_size(*prod, (size_t)c->shape[i], prod) ||
            *prod > INT32_MAX)
            return false;
    return true;
}

/* TensorFlow checks a features dict in stages, each over every feature before the
 * next one starts: allow_missing (parsing_ops.py, in the dict's order), then type and
 * shape (parsing_config.py, by sorted key), the defaults (reshaped while the op is
 * built), the dtypes (the op's attribute check) and unknown inner dimensions (the
 * kernel), both in sorted-key order too. So that a spec with several bad configs
 * gets TF's message, tfnano checks in the same stages; misuse of the C struct comes
 * first and tfnano's own limits last. */
enum {
    STAGE_ARGUMENTS,     /* config order */
    STAGE_ALLOW_MISSING, /* config order */
    STAGE_TYPE_AND_SHAPE,
    STAGE_DEFAULT,
    STAGE_DTYPE,
    STAGE_INNER_SHAPE,
    STAGE_LIMITS, /* config order */
    STAGE_COUNT
};

static bool stage_in_key_order(int stage)
{
    return stage != STAGE_ARGUMENTS && stage != STAGE_ALLOW_MISSING && stage != STAGE_LIMITS;
}

static bool key_less(const tfn_feature_config *a, const tfn_feature_config *b)
{
    return tfn__key_cmp(a->key, a->key_len, b->key, b->key_len) < 0;
}

/* Checks config i of cs[0..n) for one stage. err may be NULL (a probe). */
static int check_stage(const tfn_feature_config *cs, size_t n, size_t i, int stage,
                       tfn_error *err)
{
    const tfn_feature_config *c = &cs[i];
    bool fixed = c->type == TFN_FIXED_LEN;
    bool var_len = c->type == TFN_VAR_LEN;
    size_t prod = 0;
    char shape[128];
    if (var_len && stage != STAGE_ARGUMENTS && stage != STAGE_DTYPE && stage != STAGE_LIMITS)
        return TFN_OK; /* a VarLen config has only a key and a dtype */
    switch (stage) {
    case STAGE_ARGUMENTS:
        if (!c->key && c->key_len)
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i, "config %zu: key is NULL", i);
        if (c->type != TFN_FIXED_LEN && c->type != TFN_FIXED_LEN_SEQUENCE && !var_len)
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i,
                                "Unsupported feature type %d for feature %.*s (expected "
                                "TFN_FIXED_LEN, TFN_FIXED_LEN_SEQUENCE or TFN_VAR_LEN)",
                                c->type, key_arg(c), c->key);
        if (var_len && (c->rank || c->default_value || c->default_count))
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i,
                                "VarLen feature %.*s takes no shape and no default value",
                                key_arg(c), c->key);
        if (c->rank > 32)
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i,
                                "feature %.*s: shape of rank %zu is over the limit of 32",
                                key_arg(c), c->key, c->rank);
        if (c->default_count && !c->default_value)
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i,
                                "feature %.*s: default_value is NULL with %zu elements",
                                key_arg(c), c->key, c->default_count);
        return TFN_OK;
    case STAGE_ALLOW_MISSING:
        if (!fixed && !c->allow_missing)
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i,
                                "Unsupported: FixedLenSequenceFeature requires allow_missing "
                                "to be True.");
        return TFN_OK;
    case STAGE_TYPE_AND_SHAPE:
        if (c->dtype == TFN_DTYPE_NONE)
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i, "Missing type for feature %.*s.",
                                key_arg(c), c->key);
        if (c->rank && !c->shape)
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i,
                                "Missing shape for feature %.*s.", key_arg(c), c->key);
        if (fixed && c->rank && c->shape[0] < 0)
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i,
                                "First dimension of shape for feature %.*s unknown. Consider "
                                "using FixedLenSequenceFeature.",
                                key_arg(c), c->key);
        for (size_t k = 0; fixed && k < c->rank; k++)
            if (c->shape[k] < 0) {
                python_shape(shape, sizeof shape, c->shape, c->rank);
                return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i,
                                    "All dimensions of shape for feature %.*s need to be "
                                    "known but received %s.",
                                    key_arg(c), c->key, shape);
            }
        return TFN_OK;
    case STAGE_DEFAULT: {
        /* a non-NULL default is reshaped to the shape (FixedLen) or to a scalar
         * padding value (FixedLenSequence), even when it holds no element */
        if (!c->default_value || (fixed && !shape_elements(c, &prod)))
            return TFN_OK;
        size_t want = fixed ? prod : 1;
        if (c->default_count != want)
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i,
                                "Input to reshape is a tensor with %zu values, but the "
                                "requested shape has %zu",
                                c->default_count, want);
        return TFN_OK;
    }
    case STAGE_DTYPE:
        if (c->dtype != TFN_INT64 && c->dtype != TFN_FLOAT32 && c->dtype != TFN_BYTES)
            return tfn__fail_at(err, TFN_E_TYPE, 0, i,
                                "Value for attr '%s' of %s is not in the list of allowed "
                                "values: float, int64, string",
                                var_len ? "sparse_types" : "Tdense",
                                tfn__dtype_tf_name(c->dtype));
        return TFN_OK;
    case STAGE_INNER_SHAPE:
        for (size_t k = 0; !fixed && k < c->rank; k++)
            if (c->shape[k] < 0) {
                size_t sorted_index = 0; /* TF names the feature by its sorted position */
                for (size_t m = 0; m < n; m++)
                    sorted_index += key_less(&cs[m], c);
                tf_shape(shape, sizeof shape, true, c->shape, c->rank);
                return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i,
                                    "dense_shapes[%zu] has unknown rank or unknown inner "
                                    "dimensions: %s",
                                    sorted_index, shape);
            }
        return TFN_OK;
    default:
        if (c->out_dtype != TFN_DTYPE_NONE && c->out_dtype != c->dtype &&
            !(c->dtype == TFN_INT64 && c->out_dtype == TFN_INT32))
            return tfn__fail_at(err, TFN_E_TYPE, 0, i,
                                "feature %.*s: output type %s is not available for %s values "
                                "(only int64 features can be output as int32)",
                                key_arg(c), c->key, tfn__dtype_tf_name(c->out_dtype),
                                tfn__dtype_tf_name(c->dtype));
        if (!shape_elements(c, &prod))
            return tfn__fail_at(err, TFN_E_LIMIT, 0, i,
                                "feature %.*s: shape has too many elements", key_arg(c),
                                c->key);
        if (!fixed && prod == 0)
            /* TF divides by it (SIGFPE) */
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i,
                                "FixedLenSequenceFeature %.*s: a step shape with 0 elements "
                                "cannot hold any value",
                                key_arg(c), c->key);
        for (size_t k = 0; c->out_dtype == TFN_INT32 && k < c->default_count; k++) {
            int64_t v = ((const int64_t *)c->default_value)[k];
            if (v < INT32_MIN || v > INT32_MAX)
                return tfn__fail_at(err, TFN_E_OUT_OF_RANGE, 0, i,
                                    "feature %.*s: default value %lld at position %zu does "
                                    "not fit the int32 output",
                                    key_arg(c), c->key, (long long)v, k);
        }
        return TFN_OK;
    }
}

/* Reports the error TensorFlow would give first for configs[0..n), or TFN_OK. */
static int validate(const tfn_feature_config *cs, size_t n, tfn_error *err)
{
    for (int stage = 0; stage < STAGE_COUNT; stage++) {
        size_t bad = SIZE_MAX;
        for (size_t i = 0; i < n; i++) {
            if (check_stage(cs, n, i, stage, NULL) == TFN_OK)
                continue;
            if (!stage_in_key_order(stage)) {
                bad = i;
                break;
            }
            if (bad == SIZE_MAX || key_less(&cs[i], &cs[bad]))
                bad = i;
        }
        if (bad != SIZE_MAX)
            return check_stage(cs, n, bad, stage, err);
    }
    return TFN_OK;
}

static void index_insert(tfn_spec *s, size_t j)
{
    size_t mask = s->index_cap - 1;
    size_t h = tfn__key_hash(s->dense[j].key, s->dense[j].key_len) & mask;
    while (s->index[h])
        h = (h + 1) & mask;
    s->index[h] = (uint32_t)(j + 1);
}

size_t tfn__spec_find(const tfn_spec *s, const uint8_t *key, size_t key_len)
{
    size_t mask = s->index_cap - 1;
    for (size_t h = tfn__key_hash((const char *)key, key_len) & mask;; h = (h + 1) & mask) {
        uint32_t v = s->index[h];
        if (!v)
            return SIZE_MAX;
        const tfn__dense *d = &s->dense[v - 1];
        if (d->key_len == key_len && (key_len == 0 || memcmp(d->key, key, key_len) == 0))
            return v - 1;
    }
}

/* Insertion sort of feature indices by key (qsort has no context pointer in C11;
 * specs are small). */
static void sort_keys(tfn_spec *s)
{
    for (size_t i = 0; i < s->n; i++)
        s->sorted[i] = i;
    for (size_t i = 1; i < s->n; i++) {
        size_t v = s->sorted[i], k = i;
        const tfn__dense *dv = &s->dense[v];
        while (k > 0) {
            const tfn__dense *dk = &s->dense[s->sorted[k - 1]];
            if (tfn__key_cmp(dk->key, dk->key_len, dv->key, dv->key_len) <= 0)
                break;
            s->sorted[k] = s->sorted[k - 1];
            k--;
        }
        s->sorted[k] = v;
    }
}

static int copy_default(tfn_spec *s, tfn__dense *d, const tfn_feature_config *c)
{
    d->default_count = c->default_count;
    if (!c->default_count)
        return TFN_OK;
    size_t bytes;
    if (!tfn__mul_size(c->default_count, elem_size(c->dtype), &bytes))
        return TFN_E_LIMIT;
    d->default_value = tfn__arena_alloc(&s->arena, bytes);
    if (!d->default_value)
        return TFN_E_NOMEM;
    memcpy(d->default_value, c->default_value, bytes);
    if (c->dtype == TFN_BYTES) {
        tfn_bytes *b = d->default_value;
        for (size_t i = 0; i < c->default_count; i++) {
            if (!b[i].len)
                continue;
            if (!b[i].data)
                return TFN_E_INVALID_ARG;
            uint8_t *copy = tfn__arena_alloc(&s->arena, b[i].len);
            if (!copy)
                return TFN_E_NOMEM;
            memcpy(copy, b[i].data, b[i].len);
            b[i].data = copy;
        }
    }
    return TFN_OK;
}

void tfn_spec_free(tfn_spec *s)
{
    if (!s)
        return;
    tfn__alloc a = s->alloc;
    tfn__arena_free(&s->arena);
    tfn__free(&a, s->index);
    tfn__free(&a, s);
}

int tfn_spec_new(const tfn_feature_config *configs, size_t n, const tfn_alloc *alc,
                 tfn_spec **out, tfn_error *err)
{
    if (!out)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_spec_new: out is NULL");
    *out = NULL;
    if (n == 0 || !configs) /* tf.io.parse_example's text */
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "Argument `features` cannot be None or falsy. Got {}");
    if (n >= UINT32_MAX / 4)
        return tfn__fail(err, TFN_E_LIMIT, "too many features: %zu", n);
    int rc = validate(configs, n, err);
    if (rc)
        return rc;
    tfn__alloc a;
    tfn__alloc_init(&a, alc);
    tfn_spec *s = tfn__malloc(&a, sizeof *s);
    if (!s)
        return tfn__fail(err, TFN_E_NOMEM, "out of memory compiling the spec");
    memset(s, 0, sizeof *s);
    s->alloc = a;
    tfn__arena_init(&s->arena, &s->alloc);
    s->n = n;
    s->index_cap = 16;
    while (s->index_cap < n * 2)
        s->index_cap *= 2;
    s->index = tfn__malloc(&s->alloc, s->index_cap * sizeof *s->index);
    s->dense = tfn__arena_alloc(&s->arena, n * sizeof *s->dense);
    s->sorted = tfn__arena_alloc(&s->arena, n * sizeof *s->sorted);
    if (!s->index || !s->dense || !s->sorted) {
        tfn_spec_free(s);
        return tfn__fail(err, TFN_E_NOMEM, "out of memory compiling the spec");
    }
    memset(s->index, 0, s->index_cap * sizeof *s->index);
    memset(s->dense, 0, n * sizeof *s->dense);
    for (size_t i = 0; i < n; i++) {
        const tfn_feature_config *c = &configs[i];
        tfn__dense *d = &s->dense[i];
        shape_elements(c, &d->stride);
        d->type = c->type;
        d->dtype = c->dtype;
        d->out_dtype = c->out_dtype ? c->out_dtype : c->dtype;
        d->rank = c->rank;
        d->key_len = c->key_len;
        d->key = tfn__arena_alloc(&s->arena, c->key_len + 1);
        d->shape = tfn__arena_alloc(&s->arena, (c->rank ? c->rank : 1) * sizeof(int64_t));
        rc = d->key && d->shape ? copy_default(s, d, c) : TFN_E_NOMEM;
        if (rc) {
            tfn_spec_free(s);
            return tfn__fail_at(err, rc, 0, i, "feature %.*s: %s copying its configuration",
                                key_arg(c), c->key ? c->key : "",
                                rc == TFN_E_NOMEM ? "out of memory" : "bad default value");
        }
        if (c->key_len)
            memcpy(d->key, c->key, c->key_len);
        d->key[c->key_len] = '\0';
        if (c->rank)
            memcpy(d->shape, c->shape, c->rank * sizeof(int64_t));
        tf_shape(d->shape_str, sizeof d->shape_str, c->type == TFN_FIXED_LEN_SEQUENCE, d->shape,
                 d->rank);
        if (tfn__spec_find(s, (const uint8_t *)d->key, d->key_len) != SIZE_MAX) {
            tfn_spec_free(s);
            return tfn__fail_at(err, TFN_E_INVALID_ARG, 0, i, "Duplicate feature key %.*s",
                                key_arg(c), c->key);
        }
        index_insert(s, i);
    }
    sort_keys(s);
    *out = s;
    return TFN_OK;
}

size_t tfn_spec_size(const tfn_spec *s)
{
    return s ? s->n : 0;
}

size_t tfn_spec_stride(const tfn_spec *s, size_t j)
{
    return s && j < s->n ? s->dense[j].stride : 0;
}

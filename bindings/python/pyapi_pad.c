/*
 * pyapi_pad.c - padding a Python list of rows in C (keras pad_sequences, tfnano.pad):
 * the built-ins pad_lengths, learn_layout and pad_into (see pyapi.h).
 *
 * The list is walked here, each row handed to tfn_pad_rows() where it lies, without
 * first gathering every row into one flat array in Python (np.concatenate costs
 * ~0.4 us per row):
 *   - numpy int32 / int64 1-D arrays: their memory, data pointer, length and stride
 *     read from the array's fields once learn_layout() has checked them against
 *     numpy's own reports, else through the buffer protocol (Python >= 3.11, see
 *     pyapi_buffer.c);
 *   - lists or tuples of Python ints (what tokenizers return): the kept values,
 *     converted into a scratch buffer as the (integer) output type.
 * Anything else (another row type, a bool or float in a list, a value that does not
 * fit, any C error) makes the call return False, having written nothing the caller
 * relies on: the caller then takes its Python path, which gives keras' results and
 * errors. The GIL is held throughout (rows are borrowed from the list); no Python
 * code runs meanwhile. Long outputs are copied on several cores (pyapi_pad_threads.c).
 */
#include "pyapi_internal.h"

#ifndef PYPY_VERSION

enum { CHUNK_ROWS = 256, CHUNK_VALUES = 1 << 15 };

/* What identifies numpy rows: the exact type numpy.ndarray, and the native int32 and
 * int64 dtype objects (numpy's singletons; any other dtype object, such as a
 * byte-swapped one, is not taken). Passed by the caller as one tuple. */
typedef struct array_kinds {
    PyObject *type, *i32, *i64;
} array_kinds;

static int parse_kinds(PyObject *tuple, array_kinds *k)
{
    return PyArg_ParseTuple(tuple, "OOO", &k->type, &k->i32, &k->i64);
}

/* The tfnano dtype of numpy array x (int32 / int64), or -1. */
static int array_dtype(PyObject *x, const array_kinds *k)
{
    PyObject *d = PyObject_GetAttr(x, pyapi_dtype_name);
    if (!d) {
        PyErr_Clear();
        return -1;
    }
    int code = d == k->i32 ? TFN_INT32 : d == k->i64 ? TFN_INT64 : -1;
    Py_DECREF(d);
    return code;
}

/* ---------------------------------------------------------------- rows of a list */

typedef enum row_kind { ROW_OTHER, ROW_ARRAY, ROW_LIST, ROW_TUPLE } row_kind;

static int layout_rows; /* numpy rows read from their fields (learn_layout) */

static row_kind kind_of(PyObject *x, PyObject *ndarray)
{
    if ((PyObject *)Py_TYPE(x) == ndarray)
        return pyapi_use_buffers || layout_rows ? ROW_ARRAY : ROW_OTHER;
    if (PyList_CheckExact(x))
        return ROW_LIST;
    if (PyTuple_CheckExact(x))
        return ROW_TUPLE;
    return ROW_OTHER;
}

/* The list's (or tuple's) item i, borrowed; NULL past the end (no error set). */
static PyObject *item(PyObject *seq, int is_list, Py_ssize_t i)
{
    PyObject *x = is_list ? PyList_GetItem(seq, i) : PyTuple_GetItem(seq, i);
    if (!x)
        PyErr_Clear();
    return x;
}

/* Rows live anywhere in the heap: with tens of thousands of numpy rows, each row's
 * array object, shape and buffer-protocol cache and data are cache misses, which
 * cost more than the copy itself (0.42 against 0.21 us per W3 row, warm output).
 * The rows PREFETCH_ROWS ahead are asked for early. The addresses come from numpy's
 * PyArrayObject_fields (numpy/ndarraytypes.h, the layout numpy's own inline
 * accessors such as PyArray_DATA read; unchanged since numpy 1.22), read from exact
 * numpy.ndarray objects whose type is at least that large: a prefetch never faults,
 * so those hints are safe whatever the layout. The rows themselves are read from the
 * same fields only after learn_layout() has checked them (layout_row), else through
 * the buffer protocol. */
enum { PREFETCH_ROWS = 8, PREFETCH_LINES = 8 };

typedef struct ndarray_prefix {
    PyObject head;
    char *data;
    int nd;
    void *dimensions;
    void *strides;
    PyObject *base;
    void *descr;
    int flags;
    PyObject *weakreflist;
    void *buffer_info;
} ndarray_prefix;

/* 1 when exact `ndarray` objects are large enough for ndarray_prefix. */
static int prefix_fits(PyObject *ndarray)
{
    PyObject *size = PyObject_GetAttrString(ndarray, "__basicsize__");
    Py_ssize_t n = size ? PyLong_AsSsize_t(size) : -1;
    Py_XDECREF(size);
    if (PyErr_Occurred())
        PyErr_Clear();
    return n >= (Py_ssize_t)sizeof(ndarray_prefix);
}

static inline void prefetch_array(PyObject *x, PyObject *ndarray, int fits, int data_lines)
{
#if defined(__GNUC__) || defined(__clang__)
    if (!fits || !x || (PyObject *)Py_TYPE(x) != ndarray)
        return;
    const char *o = (const char *)x;
    void *data, *dims, *info;
    memcpy(&data, o + offsetof(ndarray_prefix, data), sizeof data);
    memcpy(&dims, o + offsetof(ndarray_prefix, dimensions), sizeof dims);
    memcpy(&info, o + offsetof(ndarray_prefix, buffer_info), sizeof info);
    for (int k = 0; k < data_lines; k++)
        __builtin_prefetch((const char *)data + 64 * k);
    __builtin_prefetch(dims);
    __builtin_prefetch((const void *)((uintptr_t)info & ~(uintptr_t)7)); /* tagged */
#else
    (void)x;
    (void)ndarray;
    (void)fits;
    (void)data_lines;
#endif
}

/* What an exact numpy.ndarray holds at the front of PyArrayObject_fields (the caller
 * has checked prefix_fits for its type). */
static void read_fields(PyObject *x, char **data, int *nd, Py_ssize_t *dim0,
                       Py_ssize_t *stride0, PyObject **descr)
{
    const char *o = (const char *)x;
    void *dims, *strides;
    memcpy(data, o + offsetof(ndarray_prefix, data), sizeof *data);
    memcpy(nd, o + offsetof(ndarray_prefix, nd), sizeof *nd);
    memcpy(&dims, o + offsetof(ndarray_prefix, dimensions), sizeof dims);
    memcpy(&strides, o + offsetof(ndarray_prefix, strides), sizeof strides);
    memcpy(descr, o + offsetof(ndarray_prefix, descr), sizeof *descr);
    *dim0 = *stride0 = 0;
    if (*nd >= 1) {
        memcpy(dim0, dims, sizeof *dim0); /* npy_intp is Py_ssize_t's size */
        memcpy(stride0, strides, sizeof *stride0);
    }
}

/* A numpy row read from its fields (layout_rows only; the caller has checked the exact
 * type): the same rows, checks and refusals as tfn_py_int_row, without a buffer
 * export (numpy allocates and fills a buffer-info record for every array exported:
 * a quarter of the time per W3 row). No view is held: the list holds the row, and the
 * GIL is held until its values have been copied. */
static int layout_row(PyObject *x, const array_kinds *k, tfn_pad_row *row)
{
    char *data;
    int nd;
    Py_ssize_t dim0, stride0;
    PyObject *descr;
    read_fields(x, &data, &nd, &dim0, &stride0, &descr);
    int dtype = descr == k->i32 ? TFN_INT32 : descr == k->i64 ? TFN_INT64 : -1;
    Py_ssize_t size = dtype == TFN_INT32 ? 4 : 8;
    if (dtype < 0 || nd != 1 || dim0 < 0 || (dim0 > 1 && stride0 != size) ||
        (uintptr_t)data % (uintptr_t)size != 0)
        return 0;
    *row = (tfn_pad_row){dim0 ? data : NULL, (size_t)dim0, dtype};
    return 1;
}

/* learn_layout(kinds, probes) -> bool. Turns layout_row on when, for every probe
 * (array, data address, ndim, shape[0], strides[0]) made by the caller from numpy's
 * own reports, the fields read in place say the same, dtype object included; off
 * otherwise (an empty list turns it off: the tests use this for the other paths).
 * numpy's C API reads these fields the same way (PyArray_DATA and friends are inline
 * struct reads compiled into every extension), so a numpy that moved them would
 * break its ABI; the probes make sure anyway. */
static PyObject *learn_layout(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *kinds_arg, *probes;
    array_kinds kinds;
    if (!PyArg_ParseTuple(args, "OO", &kinds_arg, &probes) || !parse_kinds(kinds_arg, &kinds))
        return NULL;
    layout_rows = 0;
    Py_ssize_t n = PyList_CheckExact(probes) ? PyObject_Size(probes) : -1;
    int ok = n > 0 && prefix_fits(kinds.type);
    for (Py_ssize_t i = 0; ok && i < n; i++) {
        PyObject *a;
        unsigned long long want_data;
        int want_nd;
        Py_ssize_t want_dim0, want_stride0;
        if (!PyArg_ParseTuple(PyList_GetItem(probes, i), "OKinn", &a, &want_data, &want_nd,
                              &want_dim0, &want_stride0) ||
            (PyObject *)Py_TYPE(a) != kinds.type) {
            ok = 0;
            break;
        }
        char *data;
        int nd;
        Py_ssize_t dim0, stride0;
        PyObject *descr, *dtype = PyObject_GetAttr(a, pyapi_dtype_name);
        read_fields(a, &data, &nd, &dim0, &stride0, &descr);
        ok = dtype && descr == dtype && (uintptr_t)data == (uintptr_t)want_data &&
             nd == want_nd && dim0 == want_dim0 && (nd == 0 || stride0 == want_stride0);
        Py_XDECREF(dtype);
    }
    if (PyErr_Occurred())
        PyErr_Clear();
    layout_rows = ok;
    return PyBool_FromLong(ok);
}

/* pad_lengths(seqs, kinds, lengths_address) -> the longest row, or None (kinds:
 * (numpy.ndarray, int32 dtype, int64 dtype)).
 * Writes len(row) of every row as int64 at lengths_address (0: not written) when
 * every row is a numpy array (read in C) or a list / tuple. */
static PyObject *pad_lengths(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *seqs, *kinds_arg;
    unsigned long long lengths_addr;
    array_kinds kinds;
    if (!PyArg_ParseTuple(args, "OOK", &seqs, &kinds_arg, &lengths_addr) ||
        !parse_kinds(kinds_arg, &kinds))
        return NULL;
    PyObject *ndarray = kinds.type;
    int is_list = PyList_CheckExact(seqs);
    if (!is_list && !PyTuple_CheckExact(seqs))
        Py_RETURN_NONE;
    int64_t *lengths = (int64_t *)(uintptr_t)lengths_addr;
    int fits = (pyapi_use_buffers || layout_rows) && prefix_fits(ndarray);
    Py_ssize_t n = PyObject_Size(seqs), longest = 0;
    for (Py_ssize_t r = 0; r < n; r++) {
        if (r + PREFETCH_ROWS < n)
            prefetch_array(item(seqs, is_list, r + PREFETCH_ROWS), ndarray, fits, 0);
        PyObject *x = item(seqs, is_list, r);
        if (!x || kind_of(x, ndarray) == ROW_OTHER)
            Py_RETURN_NONE;
        Py_ssize_t len = PyObject_Size(x);
        if (len < 0) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        if (lengths)
            lengths[r] = (int64_t)len;
        longest = len > longest ? len : longest;
    }
    return PyLong_FromSsize_t(longest);
}

/* One chunk of rows on its way to tfn_pad_rows: array rows hold a buffer view, list
 * rows point into the scratch (values of the output type, in int64 slots). */
typedef struct chunk {
    tfn_pad_row rows[CHUNK_ROWS];
    unsigned char held[CHUNK_ROWS];
    unsigned char *views; /* CHUNK_ROWS views of view_size bytes */
    size_t view_size;
    int64_t *scratch;
    size_t cap, used, n;
} chunk;

static void release_views(chunk *c)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->held[i]) {
            tfn_py_view_release(c->views + i * c->view_size);
            c->held[i] = 0;
        }
}

/* What every chunk of a call writes to. */
typedef struct target {
    tfn_pad_options opt;
    char *out;
    size_t row_bytes, width;
    int out_dtype;
    uint8_t *mask;
    size_t done; /* rows written so far */
} target;

static int flush(chunk *c, target *t)
{
    tfn_error err;
    int rc = tfn_pad_rows(c->rows, c->n, &t->opt, t->out + t->done * t->row_bytes,
                          t->out_dtype, t->width, t->mask ? t->mask + t->done * t->width : NULL,
                          NULL, &err);
    release_views(c);
    t->done += c->n;
    c->n = 0;
    c->used = 0;
    return rc == TFN_OK;
}

/* The kept values of a list / tuple row, converted into the scratch as the output's
 * integer type (so that tfn_pad_rows only copies them). 0 when a value is not an exact
 * int or does not fit that type (numpy, hence keras, raises for those: its path
 * decides). */
static int list_row(chunk *c, target *t, PyObject *x, int is_list, size_t len)
{
    size_t limit = (size_t)t->opt.maxlen, keep = len < limit ? len : limit;
    size_t es = t->out_dtype == TFN_INT32 ? 4 : 8;
    if (c->cap - c->used < keep) {
        if (c->n && !flush(c, t))
            return 0;
        if (c->cap < keep) {
            size_t cap = keep > CHUNK_VALUES ? keep : CHUNK_VALUES;
            int64_t *s = realloc(c->scratch, cap * sizeof *s);
            if (!s)
                return 0;
            c->scratch = s;
            c->cap = cap;
        }
    }
    size_t from = t->opt.truncating == TFN_PAD_PRE ? len - keep : 0;
    /* c->used counts values; int32 values take 4 bytes of the int64 slots */
    unsigned char *dst = keep ? (unsigned char *)c->scratch + c->used * es : NULL;
    int32_t *d32 = (int32_t *)(void *)dst;
    int64_t *d64 = (int64_t *)(void *)dst;
    for (size_t j = 0; j < keep; j++) {
        PyObject *v = item(x, is_list, (Py_ssize_t)(from + j));
        if (!v || Py_TYPE(v) != &PyLong_Type)
            return 0;
        int overflow;
        long long value = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow || (value == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return 0;
        }
        if (es == 4) {
            if (value < INT32_MIN || value > INT32_MAX)
                return 0;
            d32[j] = (int32_t)value;
        } else {
            d64[j] = value;
        }
    }
    c->rows[c->n] = (tfn_pad_row){dst, keep, t->out_dtype};
    c->held[c->n] = 0;
    c->n++;
    c->used += keep;
    return 1;
}

/* Lists of numpy rows padded into an output this large or larger are copied on every
 * usable core (pyapi_split.c): below it, starting threads costs more than it saves. */
enum { SPLIT_AT_BYTES = 8 << 20 };

/* A list whose rows are all numpy arrays read from their fields (layout_rows): every
 * row's descriptor first (prefetching only the array objects: the values are read
 * later, by the copy), then the copy, split across cores. Returns 1 (padded), 0
 * (tfn_pad_rows refused a row: the caller returns False) or -1 (a row of another kind
 * or an allocation failure, nothing written: the chunked walk decides). */
static int pad_arrays(PyObject *seqs, int is_list, Py_ssize_t n, const array_kinds *k,
                      const target *t, int64_t *lengths)
{
    tfn_pad_row *rows = n > 0 ? malloc((size_t)n * sizeof *rows) : NULL;
    if (!rows)
        return -1;
    int fits = prefix_fits(k->type);
    for (Py_ssize_t r = 0; r < n; r++) {
        if (r + PREFETCH_ROWS < n)
            prefetch_array(item(seqs, is_list, r + PREFETCH_ROWS), k->type, fits, 0);
        PyObject *x = item(seqs, is_list, r);
        if (!x || (PyObject *)Py_TYPE(x) != k->type || !layout_row(x, k, &rows[r])) {
            free(rows);
            return -1;
        }
        if (lengths)
            lengths[r] = (int64_t)rows[r].count;
    }
    int ok = tfn_py_pad_split(rows, (size_t)n, &t->opt, t->out, t->out_dtype, t->width,
                              t->mask, SPLIT_AT_BYTES);
    free(rows);
    return ok;
}

/* pad_into(seqs, kinds, out_address, out_dtype, width, maxlen, multiple, padding,
 *          truncating, value, mask_address, lengths_address) -> True / False.
 * Pads every row of seqs into the C-contiguous [len(seqs), width] output (and the
 * mask of as many bytes, when its address is not 0) with tfn_pad_rows's rules,
 * maxlen >= 0 values kept per row; writes len(row) of every row as int64 at
 * lengths_address (when not 0). False: a row this function does not take, or a value
 * tfn_pad_rows refuses (see the top of this file). */
static PyObject *pad_into(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *seqs, *kinds_arg;
    unsigned long long out_addr, mask_addr, lengths_addr;
    int out_dtype, padding, truncating;
    Py_ssize_t width, maxlen, multiple;
    double value;
    array_kinds kinds;
    if (!PyArg_ParseTuple(args, "OOKinnniidKK", &seqs, &kinds_arg, &out_addr, &out_dtype,
                          &width, &maxlen, &multiple, &padding, &truncating, &value, &mask_addr,
                          &lengths_addr) ||
        !parse_kinds(kinds_arg, &kinds))
        return NULL;
    PyObject *ndarray = kinds.type;
    int is_list = PyList_CheckExact(seqs);
    if ((!is_list && !PyTuple_CheckExact(seqs)) || width < 0 || maxlen < 0 || multiple < 0 ||
        (out_dtype != TFN_INT32 && out_dtype != TFN_INT64 && out_dtype != TFN_FLOAT32))
        Py_RETURN_FALSE;
    target t = {.out = (char *)(uintptr_t)out_addr,
                .width = (size_t)width,
                .row_bytes = (size_t)width * (out_dtype == TFN_INT64 ? 8 : 4),
                .out_dtype = out_dtype,
                .mask = (uint8_t *)(uintptr_t)mask_addr};
    tfn_pad_options_init(&t.opt);
    t.opt.maxlen = maxlen;
    t.opt.pad_to_multiple_of = multiple;
    t.opt.padding = padding;
    t.opt.truncating = truncating;
    t.opt.value = value;
    int64_t *lengths = (int64_t *)(uintptr_t)lengths_addr;

    Py_ssize_t n = PyObject_Size(seqs);
    if (layout_rows) {
        int arrays = pad_arrays(seqs, is_list, n, &kinds, &t, lengths);
        if (arrays >= 0)
            return PyBool_FromLong(arrays);
    }
    chunk *c = calloc(1, sizeof *c);
    if (!c)
        Py_RETURN_FALSE;
    c->view_size = tfn_py_view_size();
    if (pyapi_use_buffers && !(c->views = malloc(CHUNK_ROWS * c->view_size))) {
        free(c);
        Py_RETURN_FALSE;
    }
    int ok = 1, fits = (pyapi_use_buffers || layout_rows) && prefix_fits(ndarray);
    for (Py_ssize_t r = 0; ok && r < n; r++) {
        if (r + PREFETCH_ROWS < n)
            prefetch_array(item(seqs, is_list, r + PREFETCH_ROWS), ndarray, fits, PREFETCH_LINES);
        PyObject *x = item(seqs, is_list, r);
        row_kind kind = x ? kind_of(x, ndarray) : ROW_OTHER;
        if (kind == ROW_ARRAY && layout_rows) {
            ok = layout_row(x, &kinds, &c->rows[c->n]);
            if (ok) {
                c->held[c->n] = 0;
                if (lengths)
                    lengths[r] = (int64_t)c->rows[c->n].count;
                c->n++;
            }
        } else if (kind == ROW_ARRAY) {
            void *view = c->views + c->n * c->view_size;
            int dtype = array_dtype(x, &kinds);
            ok = dtype >= 0 && tfn_py_int_row(x, view, &c->rows[c->n], dtype);
            if (ok) {
                c->held[c->n] = 1;
                if (lengths)
                    lengths[r] = (int64_t)c->rows[c->n].count;
                c->n++;
            }
        } else if ((kind == ROW_LIST || kind == ROW_TUPLE) && out_dtype != TFN_FLOAT32) {
            Py_ssize_t len = PyObject_Size(x);
            ok = len >= 0 && list_row(c, &t, x, kind == ROW_LIST, (size_t)len);
            if (ok && lengths)
                lengths[r] = (int64_t)len;
        } else {
            ok = 0;
        }
        if (ok && c->n == CHUNK_ROWS)
            ok = flush(c, &t);
    }
    if (ok && c->n)
        ok = flush(c, &t);
    release_views(c);
    free(c->views);
    free(c->scratch);
    free(c);
    if (PyErr_Occurred())
        PyErr_Clear();
    return PyBool_FromLong(ok);
}

PyMethodDef pyapi_pad_methods[] = {
    {"pad_lengths", pad_lengths, METH_VARARGS,
     "pad_lengths(seqs, kinds, lengths_address) -> longest row or None (tfnano._pad)"},
    {"learn_layout", learn_layout, METH_VARARGS,
     "learn_layout(kinds, probes) -> bool: numpy rows read from their fields (tfnano._pad)"},
    {"pad_into", pad_into, METH_VARARGS,
     "pad_into(seqs, kinds, out, out_dtype, width, maxlen, multiple, padding, truncating, "
     "value, mask, lengths) -> bool (tfnano._pad)"},
    {NULL, NULL, 0, NULL},
};

#endif /* PYPY_VERSION */

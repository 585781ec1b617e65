/*
 * pyapi.c - built-ins of tfnano._native that walk Python objects in C (see pyapi.h).
 *
 * Reading TFRecord records as bytes (read_record): each record is copied once, into
 * the bytes object returned, its CRC computed during that copy.
 *
 * Padding a Python list of rows (keras pad_sequences, tfnano.pad): the list is walked
 * here, each row handed to tfn_pad_rows() where it lies, without first gathering
 * every row into one flat array in Python (np.concatenate costs ~0.4 us per row):
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
 * code runs meanwhile.
 */
#include <pyconfig.h>

#undef Py_LIMITED_API
#if !defined(Py_DEBUG) && !defined(Py_TRACE_REFS) && !defined(Py_REF_DEBUG) && \
    !defined(Py_GIL_DISABLED)
#define Py_LIMITED_API 0x03080000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "pyapi.h"

#ifdef PYPY_VERSION
/* PyPy loads cffi modules itself, not as CPython extensions: nothing to install. */
int tfn_py_install(const char *module, int buffers)
{
    (void)module;
    (void)buffers;
    return 0;
}
#else

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { CHUNK_ROWS = 256, CHUNK_VALUES = 1 << 15 };

static int use_buffers;
static PyObject *dtype_name; /* "dtype", interned */

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
    PyObject *d = PyObject_GetAttr(x, dtype_name);
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
        return use_buffers || layout_rows ? ROW_ARRAY : ROW_OTHER;
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
        PyObject *descr, *dtype = PyObject_GetAttr(a, dtype_name);
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
    int fits = (use_buffers || layout_rows) && prefix_fits(ndarray);
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
    if (use_buffers && !(c->views = malloc(CHUNK_ROWS * c->view_size))) {
        free(c);
        Py_RETURN_FALSE;
    }
    int ok = 1, fits = (use_buffers || layout_rows) && prefix_fits(ndarray);
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

/* ---------------------------------------------------------------- records as bytes */

/* Records this long or longer are copied with the GIL released. */
enum { RELEASE_GIL_AT = 64 << 10 };

/* read_record(reader_address, error_address) -> bytes, or the status (an int:
 * TFN_END or an error, described in the tfn_error) when no record is returned.
 * The record is copied once, from the reader's buffer into the bytes object that is
 * returned, its CRC computed during the copy (tfn_record_reader_peek / take); the
 * GIL is released while the reader may do I/O, and during the copy of big records. */
static PyObject *read_record(PyObject *self, PyObject *args)
{
    (void)self;
    unsigned long long reader_addr, err_addr;
    if (!PyArg_ParseTuple(args, "KK", &reader_addr, &err_addr))
        return NULL;
    tfn_record_reader *r = (tfn_record_reader *)(uintptr_t)reader_addr;
    tfn_error *err = (tfn_error *)(uintptr_t)err_addr;
    if (!r) {
        PyErr_SetString(PyExc_ValueError, "read_record: the reader is closed");
        return NULL;
    }
    size_t len = 0, got = 0;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = tfn_record_reader_peek(r, &len, err);
    Py_END_ALLOW_THREADS
    if (rc != TFN_OK)
        return PyLong_FromLong(rc);
    if (len > (size_t)PY_SSIZE_T_MAX)
        return PyErr_NoMemory();
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)len);
    if (!b)
        return NULL;
    char *dst = PyBytes_AsString(b);
    if (!dst) {
        Py_DECREF(b);
        return NULL;
    }
    if (len >= RELEASE_GIL_AT) {
        Py_BEGIN_ALLOW_THREADS
        rc = tfn_record_reader_take(r, dst, len, &got, err);
        Py_END_ALLOW_THREADS
    } else {
        rc = tfn_record_reader_take(r, dst, len, &got, err);
    }
    if (rc != TFN_OK || got != len) {
        Py_DECREF(b);
        return PyLong_FromLong(rc != TFN_OK ? rc : TFN_E_BUF_TOO_SMALL);
    }
    return b;
}

/* ---------------------------------------------------------------- strings
 *
 * String tensors are numpy object arrays of bytes. The functions below take one (1-D,
 * contiguous: read through the buffer protocol, Python >= 3.11) or a list of bytes
 * (what tolist() gives on 3.8-3.10) and hand each string to C as a (pointer, length)
 * view where its bytes object holds it: no joining, no length measured in Python.
 * An item that is not bytes (a str, None, ...) or another container makes them
 * decline (False / None): the caller then takes its Python path, which gives
 * TensorFlow's results and errors. Results that are strings are written into a fresh
 * object array (np.empty(n, object), all None) through its buffer, or returned as a
 * list when buffers are not used.
 *
 * Hashing and table lookups of STRINGS_RELEASE_AT strings or more run with the GIL
 * released, a chunk at a time (strs_run). */

enum { STRINGS_RELEASE_AT = 16384 };

/* What identifies an object array: the exact type numpy.ndarray and numpy's object
 * dtype (a singleton), passed by the caller as one tuple. */
typedef struct object_kinds {
    PyObject *type, *dtype;
} object_kinds;

/* The strings of a container, as views. */
typedef struct strs {
    tfn_bytes *v;
    Py_ssize_t n;
    PyObject **items;  /* the array's items (through `view`), or NULL for a list */
    PyObject *list;    /* the list, or NULL */
    unsigned char *view;
    int viewing;
} strs;

/* An object array of `kinds` viewed (writable when asked) into s->items / s->n. */
static int object_array(strs *s, PyObject *a, const object_kinds *k, int writable)
{
    if (!use_buffers || (PyObject *)Py_TYPE(a) != k->type)
        return 0;
    PyObject *d = PyObject_GetAttr(a, dtype_name);
    if (!d) {
        PyErr_Clear();
        return 0;
    }
    int is_object = d == k->dtype;
    Py_DECREF(d);
    if (!is_object || !(s->view = malloc(tfn_py_view_size())))
        return 0;
    if (!tfn_py_object_items(a, s->view, &s->items, &s->n, writable)) {
        free(s->view);
        s->view = NULL;
        return 0;
    }
    s->viewing = 1;
    return 1;
}

static void strs_close(strs *s)
{
    if (s->viewing)
        tfn_py_view_release(s->view);
    free(s->view);
    free(s->v);
    memset(s, 0, sizeof *s);
}

static inline PyObject *strs_item(const strs *s, Py_ssize_t i)
{
    if (s->items)
        return s->items[i];
    PyObject *x = PyList_GetItem(s->list, i); /* NULL: the list has shrunk meanwhile */
    if (!x)
        PyErr_Clear();
    return x;
}

/* Where an exact bytes object's characters start, from its address: learned at
 * install from PyBytes_AsString (bytes keep their characters inline, at one offset for
 * every exact bytes object), 0 when not known. It spares a call into the interpreter
 * per string; the length is the object's ob_size (Py_SIZE, in the limited API). */
static Py_ssize_t bytes_data_offset;

static void learn_bytes_offset(void)
{
    PyObject *b = PyBytes_FromStringAndSize("tfnano", 6);
    char *p = b ? PyBytes_AsString(b) : NULL;
    ptrdiff_t off = p ? p - (char *)b : 0;
    bytes_data_offset = 0;
    if (p && off >= (ptrdiff_t)sizeof(PyVarObject) && off <= 256 && Py_SIZE(b) == 6 &&
        memcmp((char *)b + off, "tfnano", 7) == 0)
        bytes_data_offset = (Py_ssize_t)off;
    Py_XDECREF(b);
    if (PyErr_Occurred())
        PyErr_Clear();
}

/* The bytes of x (bytes or a subclass, such as numpy.bytes_), or 0. */
static inline int bytes_view(PyObject *x, tfn_bytes *v)
{
    char *p;
    Py_ssize_t len;
    if (x && Py_TYPE(x) == &PyBytes_Type && bytes_data_offset) {
        v->data = (const uint8_t *)x + bytes_data_offset;
        v->len = (size_t)Py_SIZE(x);
        return 1;
    }
    if (!x || !PyBytes_Check(x))
        return 0;
    if (PyBytes_AsStringAndSize(x, &p, &len) != 0) {
        PyErr_Clear();
        return 0;
    }
    v->data = (const uint8_t *)p;
    v->len = (size_t)len;
    return 1;
}

/* The items of `seq`, a list or an object array of `kinds_arg` (numpy's ndarray type
 * and object dtype), borrowed into *s (read with strs_item, released by strs_close):
 * 1, or 0 (another container; nothing held). */
static int strs_items(strs *s, PyObject *seq, PyObject *kinds_arg)
{
    memset(s, 0, sizeof *s);
    object_kinds k;
    if (!PyArg_ParseTuple(kinds_arg, "OO", &k.type, &k.dtype)) {
        PyErr_Clear();
        return 0;
    }
    if (PyList_CheckExact(seq)) {
        s->list = seq;
        s->n = PyList_Size(seq);
    } else if (!object_array(s, seq, &k, 0)) {
        return 0;
    }
    return 1;
}

/* Opens the strings of `seq` (an object array or a list of bytes) as views, each item
 * borrowed (the GIL is held until strs_close): 1, or 0 (declined, nothing held). */
static int strs_open(strs *s, PyObject *seq, PyObject *kinds_arg)
{
    if (!strs_items(s, seq, kinds_arg))
        return 0;
    size_t n = (size_t)s->n;
    s->v = malloc((n ? n : 1) * sizeof *s->v);
    if (!s->v) {
        strs_close(s);
        return 0;
    }
    for (Py_ssize_t i = 0; i < s->n; i++) {
        if (!bytes_view(strs_item(s, i), &s->v[i])) {
            strs_close(s);
            return 0;
        }
    }
    return 1;
}

/* The C work of hash_strings, table_find and table_vocab. */
enum { JOB_HASH, JOB_FIND, JOB_VOCAB };

typedef struct strs_job {
    int op;
    int kind;                 /* JOB_HASH: a tfn_hash_kind, and */
    const uint64_t *key;      /* its SipHash key, */
    uint64_t buckets, *hashes; /* bucket count (0: none) and output */
    const tfn_table *table;   /* JOB_FIND, JOB_VOCAB (may be NULL) */
    int64_t missing;          /* JOB_FIND */
    const int64_t *values;    /* JOB_VOCAB */
    int64_t *rows;            /* JOB_FIND, JOB_VOCAB output */
} strs_job;

/* The job on n views, the strings from `from` on. */
static int job_run(const strs_job *j, const tfn_bytes *v, size_t from, size_t n)
{
    tfn_error err;
    switch (j->op) {
    case JOB_HASH:
        return tfn_hash_views(j->kind, v, n, j->key, j->buckets, j->hashes + from, &err);
    case JOB_FIND:
        return tfn_table_find_strings(j->table, v, n, j->missing, j->rows + from, &err);
    default:
        return tfn_table_vocab_strings(j->table, j->values, v, n, j->buckets, j->rows + from,
                                       &err);
    }
}

/* Strings go to C a chunk at a time: the chunk's views are made, then the job runs on
 * them, while the chunk's objects are still in the caches. With STRINGS_RELEASE_AT
 * strings or more, the job runs with the GIL released, a reference to each item of the
 * chunk held meanwhile (another thread may change the container). */
enum { STRINGS_CHUNK = 4096 };

/* Each string is a separate object, often not in the caches: its header (type, size,
 * and the refcount a held reference writes) is fetched this many items ahead, so that
 * the misses overlap instead of following one another (hashing 200k short strings in
 * shuffled order: 6.2 -> 4.3 ms; in allocation order no change). */
enum { STRINGS_PREFETCH = 16 };

/* Runs `job` over the strings of `seq` (an object array or a list of bytes): 1, or 0
 * (declined: an item that is not bytes, another container; or failed). */
static int strs_run(PyObject *seq, PyObject *kinds_arg, const strs_job *job)
{
    strs s;
    if (!strs_items(&s, seq, kinds_arg))
        return 0;
    int release = s.n >= STRINGS_RELEASE_AT, ok = 1;
    tfn_bytes *v = malloc(STRINGS_CHUNK * sizeof *v);
    PyObject **held = release ? malloc(STRINGS_CHUNK * sizeof *held) : NULL;
    if (!v || (release && !held))
        ok = 0;
    for (Py_ssize_t from = 0; ok && from < s.n; from += STRINGS_CHUNK) {
        size_t m = (size_t)(s.n - from < STRINGS_CHUNK ? s.n - from : STRINGS_CHUNK), got = 0;
        for (; got < m; got++) {
            if (s.items && from + (Py_ssize_t)got + STRINGS_PREFETCH < s.n)
                __builtin_prefetch(s.items[from + (Py_ssize_t)got + STRINGS_PREFETCH], 1);
            PyObject *x = strs_item(&s, from + (Py_ssize_t)got);
            if (!bytes_view(x, &v[got]))
                break;
            if (release) {
                Py_INCREF(x);
                held[got] = x;
            }
        }
        if (got == m) {
            int rc;
            if (release) {
                Py_BEGIN_ALLOW_THREADS
                rc = job_run(job, v, (size_t)from, m);
                Py_END_ALLOW_THREADS
            } else {
                rc = job_run(job, v, (size_t)from, m);
            }
            ok = rc == TFN_OK;
        } else {
            ok = 0;
        }
        if (release)
            for (size_t i = 0; i < got; i++)
                Py_DECREF(held[i]); /* bytes objects: no code runs when one goes */
    }
    free(v);
    free(held);
    strs_close(&s);
    return ok;
}

/* bytes_views(seq, kinds, out_address) -> bool. out (n tfn_bytes) = where each item
 * of a list or object array of exact bytes objects keeps its characters; False (out
 * unspecified) when an item is something else. The caller keeps the items alive for
 * as long as it uses the views (bytes never move). */
static PyObject *bytes_views(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *seq, *kinds_arg;
    unsigned long long out_addr;
    if (!PyArg_ParseTuple(args, "OOK", &seq, &kinds_arg, &out_addr))
        return NULL;
    strs s;
    if (!strs_items(&s, seq, kinds_arg))
        Py_RETURN_FALSE;
    tfn_bytes *out = (tfn_bytes *)(uintptr_t)out_addr;
    int ok = 1;
    for (Py_ssize_t i = 0; ok && i < s.n; i++) {
        PyObject *x = strs_item(&s, i);
        ok = x && Py_TYPE(x) == &PyBytes_Type && bytes_view(x, &out[i]);
    }
    strs_close(&s);
    return PyBool_FromLong(ok);
}

/* all_bytes(seq, kinds) -> bool: every item of an object array or list is exactly a
 * bytes object (no subclass). */
static PyObject *all_bytes(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *seq, *kinds_arg;
    if (!PyArg_ParseTuple(args, "OO", &seq, &kinds_arg))
        return NULL;
    strs s;
    if (!strs_items(&s, seq, kinds_arg))
        Py_RETURN_FALSE;
    int ok = 1;
    for (Py_ssize_t i = 0; ok && i < s.n; i++) {
        PyObject *x = strs_item(&s, i);
        ok = x && Py_TYPE(x) == &PyBytes_Type;
    }
    strs_close(&s);
    return PyBool_FromLong(ok);
}

/* pack_strings(seq, kinds, offsets_address) -> bytes or None. The strings of an object
 * array or list of exact bytes objects joined into one new bytes object, in one pass
 * that measures them and one that copies; offsets (n + 1 uint64) = where each starts,
 * the last the total. None when an item is something else. A string tensor packed
 * once is then read from contiguous memory by every later op, as TensorFlow's tstring
 * buffer is (tfnano._strviews.packed). */
static PyObject *pack_strings(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *seq, *kinds_arg;
    unsigned long long off_addr;
    if (!PyArg_ParseTuple(args, "OOK", &seq, &kinds_arg, &off_addr))
        return NULL;
    strs s;
    if (!strs_items(&s, seq, kinds_arg))
        Py_RETURN_NONE;
    uint64_t *off = (uint64_t *)(uintptr_t)off_addr;
    uint64_t total = 0;
    tfn_bytes v;
    for (Py_ssize_t i = 0; i < s.n; i++) {
        if (s.items && i + STRINGS_PREFETCH < s.n)
            __builtin_prefetch(s.items[i + STRINGS_PREFETCH], 0);
        PyObject *x = strs_item(&s, i);
        if (!x || Py_TYPE(x) != &PyBytes_Type || !bytes_view(x, &v)) {
            strs_close(&s);
            Py_RETURN_NONE;
        }
        off[i] = total;
        total += v.len;
    }
    off[s.n] = total;
    PyObject *blob = total <= (uint64_t)PY_SSIZE_T_MAX
        ? PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total) : NULL;
    if (!blob) {
        strs_close(&s);
        if (PyErr_Occurred())
            return NULL;
        Py_RETURN_NONE;
    }
    char *dst = PyBytes_AsString(blob);
    for (Py_ssize_t i = 0; dst && i < s.n; i++) {
        PyObject *x = strs_item(&s, i);
        /* the container may have changed meanwhile only through another thread, which
         * the GIL held here rules out; a list read again is checked all the same */
        if (!x || Py_TYPE(x) != &PyBytes_Type || !bytes_view(x, &v) ||
            v.len != off[i + 1] - off[i]) {
            Py_DECREF(blob);
            strs_close(&s);
            Py_RETURN_NONE;
        }
        if (v.len)
            memcpy(dst + off[i], v.data, v.len);
    }
    strs_close(&s);
    return blob;
}

/* same_items(a, b, kinds) -> bool: two object arrays (or lists) hold the very same
 * objects in the same order (their item pointers compared, no item read). */
static PyObject *same_items(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *a, *b, *kinds_arg;
    if (!PyArg_ParseTuple(args, "OOO", &a, &b, &kinds_arg))
        return NULL;
    strs sa, sb;
    if (!strs_items(&sa, a, kinds_arg))
        Py_RETURN_FALSE;
    if (!strs_items(&sb, b, kinds_arg)) {
        strs_close(&sa);
        Py_RETURN_FALSE;
    }
    int same = sa.n == sb.n && sa.items && sb.items &&
               (sa.n == 0 || memcmp(sa.items, sb.items, (size_t)sa.n * sizeof *sa.items) == 0);
    strs_close(&sa);
    strs_close(&sb);
    return PyBool_FromLong(same);
}

/* hash_strings(seq, kinds, kind, num_buckets, key_address, out_address) -> bool.
 * out (n uint64) = tfn_hash_views of the strings. */
static PyObject *hash_strings(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *seq, *kinds;
    strs_job j = {.op = JOB_HASH};
    unsigned long long key_addr, out_addr;
    if (!PyArg_ParseTuple(args, "OOiKKK", &seq, &kinds, &j.kind, &j.buckets, &key_addr,
                          &out_addr))
        return NULL;
    j.key = (const uint64_t *)(uintptr_t)key_addr;
    j.hashes = (uint64_t *)(uintptr_t)out_addr;
    return PyBool_FromLong(strs_run(seq, kinds, &j));
}

/* table_find(seq, kinds, table_address, missing, rows_address) -> bool.
 * rows (n int64) = tfn_table_find_strings of the strings. */
static PyObject *table_find(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *seq, *kinds;
    strs_job j = {.op = JOB_FIND};
    unsigned long long table_addr, rows_addr;
    long long missing;
    if (!PyArg_ParseTuple(args, "OOKLK", &seq, &kinds, &table_addr, &missing, &rows_addr))
        return NULL;
    j.table = (const tfn_table *)(uintptr_t)table_addr;
    j.missing = (int64_t)missing;
    j.rows = (int64_t *)(uintptr_t)rows_addr;
    return PyBool_FromLong(strs_run(seq, kinds, &j));
}

/* table_vocab(seq, kinds, table_address, values_address, oov_buckets, ids_address)
 * -> bool. ids (n int64) = tfn_table_vocab_strings of the strings (table 0: none). */
static PyObject *table_vocab(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *seq, *kinds;
    strs_job j = {.op = JOB_VOCAB};
    unsigned long long table_addr, values_addr, ids_addr;
    if (!PyArg_ParseTuple(args, "OOKKKK", &seq, &kinds, &table_addr, &values_addr, &j.buckets,
                          &ids_addr))
        return NULL;
    j.table = (const tfn_table *)(uintptr_t)table_addr;
    j.values = (const int64_t *)(uintptr_t)values_addr;
    j.rows = (int64_t *)(uintptr_t)ids_addr;
    return PyBool_FromLong(strs_run(seq, kinds, &j));
}

/* Where new strings go: the slots of a fresh object array (`out` viewed writable), or
 * a new list. */
typedef struct sink {
    strs out;
    PyObject *list;
    Py_ssize_t at, cap;
} sink;

/* Opens the output for `cap` strings: `out` an object array of that many (all None),
 * or None for a list. 1, or 0 (nothing held). */
static int sink_open(sink *k, PyObject *out, PyObject *kinds_arg, Py_ssize_t cap)
{
    memset(k, 0, sizeof *k);
    k->cap = cap;
    if (out == Py_None) {
        k->list = PyList_New(cap);
        if (!k->list) {
            PyErr_Clear();
            return 0;
        }
        return 1;
    }
    object_kinds kinds;
    if (!PyArg_ParseTuple(kinds_arg, "OO", &kinds.type, &kinds.dtype)) {
        PyErr_Clear();
        return 0;
    }
    if (!object_array(&k->out, out, &kinds, 1))
        return 0;
    if (k->out.n != cap) {
        strs_close(&k->out);
        return 0;
    }
    return 1;
}

/* Puts `x` (a new reference, stolen; NULL: out of memory) in the next slot. */
static int sink_put(sink *k, PyObject *x)
{
    if (!x || k->at >= k->cap) {
        Py_XDECREF(x);
        PyErr_Clear();
        return 0;
    }
    if (k->list) {
        PyList_SetItem(k->list, k->at++, x); /* steals x; the slot held NULL */
        return 1;
    }
    PyObject *old = k->out.items[k->at];
    k->out.items[k->at++] = x;
    Py_XDECREF(old); /* None, in a fresh array */
    return 1;
}

/* The result: True (the array was filled) or the list; NULL when not every slot was
 * filled (no error set: the caller returns False). */
static PyObject *sink_close(sink *k, int ok)
{
    PyObject *result = NULL;
    ok = ok && k->at == k->cap;
    if (k->list) {
        if (ok)
            result = k->list;
        else
            Py_DECREF(k->list);
    } else {
        strs_close(&k->out);
        if (ok) {
            Py_INCREF(Py_True);
            result = Py_True;
        }
    }
    return result;
}

static inline int ascii_space(uint8_t c)
{
    return c == ' ' || (c >= '\t' && c <= '\r'); /* \t \n \v \f \r */
}

enum { MAP_LOWER = 0, MAP_UPPER = 1, MAP_STRIP = 2 };

/* One string mapped: a new reference (x itself when unchanged and exact bytes). */
static PyObject *map_one(PyObject *x, const tfn_bytes *v, int op)
{
    const uint8_t *p = v->data;
    size_t len = v->len, from = 0, to = len;
    int exact = Py_TYPE(x) == &PyBytes_Type;
    if (op == MAP_STRIP) {
        while (from < to && ascii_space(p[from]))
            from++;
        while (to > from && ascii_space(p[to - 1]))
            to--;
        if (exact && from == 0 && to == len) {
            Py_INCREF(x);
            return x;
        }
        return PyBytes_FromStringAndSize((const char *)p + from, (Py_ssize_t)(to - from));
    }
    uint8_t lo = op == MAP_LOWER ? 'A' : 'a', hi = op == MAP_LOWER ? 'Z' : 'z';
    size_t i = 0;
    while (i < len && (p[i] < lo || p[i] > hi))
        i++;
    if (i == len && exact) { /* nothing to change */
        Py_INCREF(x);
        return x;
    }
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)len);
    char *d = b ? PyBytes_AsString(b) : NULL;
    if (!d) {
        Py_XDECREF(b);
        return NULL;
    }
    if (i)
        memcpy(d, p, i);
    for (; i < len; i++) /* no branch: the compiler makes this a vector loop */
        d[i] = (char)(p[i] ^ ((unsigned)(p[i] - lo) < 26u ? 0x20 : 0));
    return b;
}

/* bytes_map(seq, kinds, op, out) -> True (out filled), a list (out None) or False.
 * op: 0 lower, 1 upper (ASCII letters), 2 strip (ASCII whitespace at both ends). */
static PyObject *bytes_map(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *seq, *kinds, *out;
    int op;
    if (!PyArg_ParseTuple(args, "OOiO", &seq, &kinds, &op, &out))
        return NULL;
    strs s;
    if (op < MAP_LOWER || op > MAP_STRIP || !strs_open(&s, seq, kinds))
        Py_RETURN_FALSE;
    sink k;
    if (!sink_open(&k, out, kinds, s.n)) {
        strs_close(&s);
        Py_RETURN_FALSE;
    }
    int ok = 1;
    for (Py_ssize_t i = 0; ok && i < s.n; i++)
        ok = sink_put(&k, map_one(strs_item(&s, i), &s.v[i], op));
    strs_close(&s);
    PyObject *r = sink_close(&k, ok);
    if (!r)
        Py_RETURN_FALSE;
    return r;
}

/* ---------------------------------------------------------------- split */

typedef struct splitter {
    const uint8_t *sep;
    size_t sep_len; /* 0: runs of ASCII whitespace */
    Py_ssize_t maxsplit; /* < 0: no limit */
} splitter;

/* Where `sep` next starts in p[from, len), or len. */
static size_t find_sep(const splitter *sp, const uint8_t *p, size_t from, size_t len)
{
    while (from + sp->sep_len <= len) {
        const uint8_t *hit = memchr(p + from, sp->sep[0], len - from - sp->sep_len + 1);
        if (!hit)
            return len;
        size_t at = (size_t)(hit - p);
        if (memcmp(hit, sp->sep, sp->sep_len) == 0)
            return at;
        from = at + 1;
    }
    return len;
}

/* Tokens repeat (words of a text): the bytes objects made recently are kept in a
 * direct-mapped cache keyed by the token's Fingerprint64, and a token equal to one of
 * them is that object again (bytes are immutable) instead of a new one: a hash and a
 * compare instead of an allocation. The cache has about one entry per token of the
 * call (a power of two, at most TOKEN_CACHE_MAX). Tokens longer than TOKEN_CACHE_LEN
 * are always new. Split of 20,000 lines of 300,600 tokens: 17.1 -> 9.5 ms for words of
 * a Zipf distribution, 15.3 -> 14.6 ms for words drawn uniformly from 39,000. */
enum { TOKEN_CACHE_MIN = 256, TOKEN_CACHE_MAX = 65536, TOKEN_CACHE_LEN = 32 };

typedef struct token_cache {
    size_t mask;
    PyObject **slot; /* references held, or NULL */
} token_cache;

static int token_cache_open(token_cache *c, Py_ssize_t tokens)
{
    size_t size = TOKEN_CACHE_MIN;
    while (size < (size_t)tokens && size < TOKEN_CACHE_MAX)
        size *= 2;
    c->mask = size - 1;
    c->slot = calloc(size, sizeof *c->slot);
    return c->slot != NULL;
}

static void token_cache_close(token_cache *c)
{
    for (size_t i = 0; i <= c->mask; i++)
        Py_XDECREF(c->slot[i]);
    free(c->slot);
}

/* A new reference to a bytes object holding p[0, n), or NULL (out of memory). */
static PyObject *token(token_cache *c, const uint8_t *p, size_t n)
{
    if (!c || n > TOKEN_CACHE_LEN)
        return PyBytes_FromStringAndSize((const char *)p, (Py_ssize_t)n);
    PyObject **at = &c->slot[tfn_fingerprint64(p, n) & c->mask];
    PyObject *x = *at;
    if (x && (size_t)Py_SIZE(x) == n &&
        (n == 0 || memcmp((const char *)x + bytes_data_offset, p, n) == 0)) {
        Py_INCREF(x);
        return x;
    }
    x = PyBytes_FromStringAndSize((const char *)p, (Py_ssize_t)n);
    if (x) {
        Py_XDECREF(*at); /* a bytes object: no code runs when it goes */
        Py_INCREF(x);
        *at = x;
    }
    return x;
}

/* The tokens of one string as TensorFlow's StringSplitV2 gives them (Python's split,
 * except: maxsplit 0 gives the whole string, and when maxsplit is reached what is left
 * is a token even if empty), each put in `k` (NULL: only counted), through the cache
 * `c` (NULL: none). Returns the count, or -1 when a put fails. */
static Py_ssize_t split_one(const splitter *sp, const tfn_bytes *v, sink *k, token_cache *c)
{
    const uint8_t *p = v->data;
    size_t len = v->len, i = 0;
    Py_ssize_t count = 0, splits = 0;
#define PUT(from, n)                                                                        \
    do {                                                                                    \
        if (k && !sink_put(k, token(c, p + (from), (size_t)(n))))                           \
            return -1;                                                                      \
        count++;                                                                            \
    } while (0)
    if (sp->maxsplit == 0) {
        PUT(0, len);
        return count;
    }
    if (sp->sep_len == 0) {
        while (i < len && ascii_space(p[i]))
            i++;
        while (i < len) {
            size_t start = i;
            while (i < len && !ascii_space(p[i]))
                i++;
            PUT(start, i - start);
            while (i < len && ascii_space(p[i]))
                i++;
            if (sp->maxsplit > 0 && ++splits == sp->maxsplit) {
                PUT(i, len - i);
                return count;
            }
        }
        return count;
    }
    for (;;) {
        size_t at = find_sep(sp, p, i, len);
        PUT(i, at - i);
        if (at == len)
            return count;
        i = at + sp->sep_len;
        if (sp->maxsplit > 0 && ++splits == sp->maxsplit) {
            PUT(i, len - i);
            return count;
        }
    }
#undef PUT
}

static int parse_splitter(PyObject *sep, Py_ssize_t maxsplit, splitter *sp)
{
    sp->maxsplit = maxsplit;
    sp->sep = NULL;
    sp->sep_len = 0;
    if (sep == Py_None)
        return 1;
    tfn_bytes v;
    if (!bytes_view(sep, &v))
        return 0;
    sp->sep = v.data;
    sp->sep_len = v.len;
    return 1;
}

/* split_count(seq, kinds, sep, maxsplit, splits_address) -> total tokens, or None.
 * Writes the n + 1 row splits (int64) of the strings' tokens; sep None or b"":
 * whitespace. */
static PyObject *split_count(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *seq, *kinds, *sep;
    Py_ssize_t maxsplit;
    unsigned long long splits_addr;
    if (!PyArg_ParseTuple(args, "OOOnK", &seq, &kinds, &sep, &maxsplit, &splits_addr))
        return NULL;
    splitter sp;
    strs s;
    if (!parse_splitter(sep, maxsplit, &sp) || !strs_open(&s, seq, kinds))
        Py_RETURN_NONE;
    int64_t *splits = (int64_t *)(uintptr_t)splits_addr;
    Py_ssize_t n = s.n;
    splits[0] = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        splits[i + 1] = splits[i] + (int64_t)split_one(&sp, &s.v[i], NULL, NULL);
    strs_close(&s);
    return PyLong_FromLongLong((long long)splits[n]);
}

/* split_fill(seq, kinds, sep, maxsplit, out, total) -> True (out, an object array of
 * `total` Nones, filled), a list (out None) or False (the strings no longer give
 * `total` tokens, or any other failure). */
static PyObject *split_fill(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *seq, *kinds, *sep, *out;
    Py_ssize_t maxsplit, total;
    if (!PyArg_ParseTuple(args, "OOOnOn", &seq, &kinds, &sep, &maxsplit, &out, &total))
        return NULL;
    splitter sp;
    strs s;
    if (total < 0 || !parse_splitter(sep, maxsplit, &sp) || !strs_open(&s, seq, kinds))
        Py_RETURN_FALSE;
    sink k;
    if (!sink_open(&k, out, kinds, total)) {
        strs_close(&s);
        Py_RETURN_FALSE;
    }
    /* the cache only when exact bytes objects' characters can be read in place */
    token_cache cache;
    int cached = bytes_data_offset && token_cache_open(&cache, total);
    int ok = 1;
    for (Py_ssize_t i = 0; ok && i < s.n; i++)
        ok = split_one(&sp, &s.v[i], &k, cached ? &cache : NULL) >= 0;
    if (cached)
        token_cache_close(&cache);
    strs_close(&s);
    PyObject *r = sink_close(&k, ok);
    if (!r)
        Py_RETURN_FALSE;
    return r;
}

/* ---------------------------------------------------------------- install */

static PyMethodDef methods[] = {
    {"pad_lengths", pad_lengths, METH_VARARGS,
     "pad_lengths(seqs, kinds, lengths_address) -> longest row or None (tfnano._pad)"},
    {"learn_layout", learn_layout, METH_VARARGS,
     "learn_layout(kinds, probes) -> bool: numpy rows read from their fields (tfnano._pad)"},
    {"pad_into", pad_into, METH_VARARGS,
     "pad_into(seqs, kinds, out, out_dtype, width, maxlen, multiple, padding, truncating, "
     "value, mask, lengths) -> bool (tfnano._pad)"},
    {"read_record", read_record, METH_VARARGS,
     "read_record(reader, error) -> bytes or the status (tfnano._crecord.Reader)"},
    {"bytes_views", bytes_views, METH_VARARGS,
     "bytes_views(seq, kinds, out) -> bool (tfnano._parsing: records in place)"},
    {"all_bytes", all_bytes, METH_VARARGS,
     "all_bytes(seq, kinds) -> bool (tfnano._strviews)"},
    {"pack_strings", pack_strings, METH_VARARGS,
     "pack_strings(seq, kinds, offsets) -> bytes or None (tfnano._strviews)"},
    {"same_items", same_items, METH_VARARGS,
     "same_items(a, b, kinds) -> bool (tfnano._strviews)"},
    {"hash_strings", hash_strings, METH_VARARGS,
     "hash_strings(seq, kinds, kind, num_buckets, key, out) -> bool (tfnano._strviews)"},
    {"table_find", table_find, METH_VARARGS,
     "table_find(seq, kinds, table, missing, rows) -> bool (tfnano._strviews)"},
    {"table_vocab", table_vocab, METH_VARARGS,
     "table_vocab(seq, kinds, table, values, oov_buckets, ids) -> bool (tfnano._strviews)"},
    {"bytes_map", bytes_map, METH_VARARGS,
     "bytes_map(seq, kinds, op, out) -> True, a list or False (tfnano._strviews)"},
    {"split_count", split_count, METH_VARARGS,
     "split_count(seq, kinds, sep, maxsplit, splits) -> total or None (tfnano._strviews)"},
    {"split_fill", split_fill, METH_VARARGS,
     "split_fill(seq, kinds, sep, maxsplit, out, total) -> True, a list or False "
     "(tfnano._strviews)"},
    {NULL, NULL, 0, NULL},
};

int tfn_py_install(const char *module, int buffers)
{
#ifdef Py_GIL_DISABLED
    /* rows are borrowed from the list: not safe without the GIL */
    (void)module;
    (void)buffers;
    return 0;
#else
    PyGILState_STATE gil = PyGILState_Ensure();
    int result = 0;
    if (!dtype_name)
        dtype_name = PyUnicode_InternFromString("dtype");
    learn_bytes_offset();
    PyObject *m = module && dtype_name ? PyImport_ImportModule(module) : NULL;
    if (m) {
        result = 1;
        for (PyMethodDef *d = methods; d->ml_name && result; d++) {
            PyObject *f = PyCFunction_NewEx(d, NULL, NULL);
            if (!f || PyObject_SetAttrString(m, d->ml_name, f) != 0)
                result = 0;
            Py_XDECREF(f);
        }
        Py_DECREF(m);
    }
    if (PyErr_Occurred())
        PyErr_Clear();
    if (result)
        use_buffers = buffers && tfn_py_view_size() > 0;
    PyGILState_Release(gil);
    return result ? (use_buffers ? 3 : 1) : 0;
#endif
}

#endif /* PYPY_VERSION */

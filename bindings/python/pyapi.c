/*
 * pyapi.c - built-ins of tfnano._native that walk Python objects in C (see pyapi.h).
 *
 * Reading TFRecord records as bytes (read_record): each record is copied once, into
 * the bytes object returned, its CRC computed during that copy.
 *
 * Padding a Python list of rows (keras pad_sequences, tfnano.pad): the list is walked
 * here, each row handed to tfn_pad_rows() where it lies, without first gathering
 * every row into one flat array in Python (np.concatenate costs ~0.4 us per row):
 *   - numpy int32 / int64 1-D arrays: their memory, through the buffer protocol
 *     (Python >= 3.11, see pyapi_buffer.c);
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

static row_kind kind_of(PyObject *x, PyObject *ndarray)
{
    if ((PyObject *)Py_TYPE(x) == ndarray)
        return use_buffers ? ROW_ARRAY : ROW_OTHER;
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
 * numpy.ndarray objects whose type is at least that large: they are only prefetch
 * hints (a prefetch never faults), so another layout would make them useless, never
 * wrong. Everything that is used comes from the buffer protocol. */
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

static inline void prefetch_array(PyObject *x, PyObject *ndarray, int fits)
{
#if defined(__GNUC__) || defined(__clang__)
    if (!fits || !x || (PyObject *)Py_TYPE(x) != ndarray)
        return;
    const char *o = (const char *)x;
    void *data, *dims, *info;
    memcpy(&data, o + offsetof(ndarray_prefix, data), sizeof data);
    memcpy(&dims, o + offsetof(ndarray_prefix, dimensions), sizeof dims);
    memcpy(&info, o + offsetof(ndarray_prefix, buffer_info), sizeof info);
    for (int k = 0; k < PREFETCH_LINES; k++)
        __builtin_prefetch((const char *)data + 64 * k);
    __builtin_prefetch(dims);
    __builtin_prefetch((const void *)((uintptr_t)info & ~(uintptr_t)7)); /* tagged */
#else
    (void)x;
    (void)ndarray;
    (void)fits;
#endif
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
    int fits = use_buffers && prefix_fits(ndarray);
    Py_ssize_t n = PyObject_Size(seqs), longest = 0;
    for (Py_ssize_t r = 0; r < n; r++) {
        if (r + PREFETCH_ROWS < n)
            prefetch_array(item(seqs, is_list, r + PREFETCH_ROWS), ndarray, fits);
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

    chunk *c = calloc(1, sizeof *c);
    if (!c)
        Py_RETURN_FALSE;
    c->view_size = tfn_py_view_size();
    if (use_buffers && !(c->views = malloc(CHUNK_ROWS * c->view_size))) {
        free(c);
        Py_RETURN_FALSE;
    }
    int ok = 1, fits = use_buffers && prefix_fits(ndarray);
    Py_ssize_t n = PyObject_Size(seqs);
    for (Py_ssize_t r = 0; ok && r < n; r++) {
        if (r + PREFETCH_ROWS < n)
            prefetch_array(item(seqs, is_list, r + PREFETCH_ROWS), ndarray, fits);
        PyObject *x = item(seqs, is_list, r);
        row_kind kind = x ? kind_of(x, ndarray) : ROW_OTHER;
        if (kind == ROW_ARRAY) {
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

/* ---------------------------------------------------------------- install */

static PyMethodDef methods[] = {
    {"pad_lengths", pad_lengths, METH_VARARGS,
     "pad_lengths(seqs, kinds, lengths_address) -> longest row or None (tfnano._pad)"},
    {"pad_into", pad_into, METH_VARARGS,
     "pad_into(seqs, kinds, out, out_dtype, width, maxlen, multiple, padding, truncating, "
     "value, mask, lengths) -> bool (tfnano._pad)"},
    {"read_record", read_record, METH_VARARGS,
     "read_record(reader, error) -> bytes or the status (tfnano._crecord.Reader)"},
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

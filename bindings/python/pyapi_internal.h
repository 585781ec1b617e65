/*
 * pyapi_internal.h - what the files behind tfnano._native's built-ins share (pyapi.c
 * lists them): the Python headers under the 3.8 limited API, the state set by
 * tfn_py_install(), each file's table of built-ins, and the string views and sinks of
 * pyapi_strs.c. Cross-file names start with pyapi_; none leaves the extension
 * (-fvisibility=hidden). pyapi_buffer.c, built against a newer limited API, and
 * pyapi_pad_threads.c, which has no Python in it, include only pyapi.h.
 */
#ifndef TFN_PYAPI_INTERNAL_H
#define TFN_PYAPI_INTERNAL_H

#include <pyconfig.h>

#undef Py_LIMITED_API
#if !defined(Py_DEBUG) && !defined(Py_TRACE_REFS) && !defined(Py_REF_DEBUG) && \
    !defined(Py_GIL_DISABLED)
#define Py_LIMITED_API 0x03080000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "pyapi.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef PYPY_VERSION

/* Set by tfn_py_install(): numpy arrays are read through the buffer protocol
 * (Python >= 3.11); the interned "dtype". */
extern int pyapi_use_buffers;
extern PyObject *pyapi_dtype_name;

/* The built-ins of each file, NULL-terminated; tfn_py_install() adds them all. */
extern PyMethodDef pyapi_pad_methods[];    /* pyapi_pad.c */
extern PyMethodDef pyapi_record_methods[]; /* pyapi_record.c */
extern PyMethodDef pyapi_string_methods[]; /* pyapi_strings.c */
extern PyMethodDef pyapi_split_methods[];  /* pyapi_string_split.c */

/* ---------------------------------------------------------------- string views
 * (pyapi_strs.c; the per-string helpers are inline here, as they run once a string) */

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

/* Where an exact bytes object's characters start, from its address (0: not known);
 * learned by pyapi_learn_bytes_offset() at install. */
extern Py_ssize_t pyapi_bytes_data_offset;
void pyapi_learn_bytes_offset(void);

/* The items of `seq`, a list or an object array of `kinds_arg` (numpy's ndarray type
 * and object dtype), borrowed into *s (read with strs_item, released by
 * pyapi_strs_close): 1, or 0 (another container; nothing held). */
int pyapi_strs_items(strs *s, PyObject *seq, PyObject *kinds_arg);

/* Opens the strings of `seq` (an object array or a list of bytes) as views in s->v,
 * each item borrowed (the GIL is held until pyapi_strs_close): 1, or 0 (declined,
 * nothing held). */
int pyapi_strs_open(strs *s, PyObject *seq, PyObject *kinds_arg);
void pyapi_strs_close(strs *s);

static inline PyObject *strs_item(const strs *s, Py_ssize_t i)
{
    if (s->items)
        return s->items[i];
    PyObject *x = PyList_GetItem(s->list, i); /* NULL: the list has shrunk meanwhile */
    if (!x)
        PyErr_Clear();
    return x;
}


/* The bytes of x (bytes or a subclass, such as numpy.bytes_), or 0. */
static inline int bytes_view(PyObject *x, tfn_bytes *v)
{
    char *p;
    Py_ssize_t len;
    if (x && Py_TYPE(x) == &PyBytes_Type && pyapi_bytes_data_offset) {
        v->data = (const uint8_t *)x + pyapi_bytes_data_offset;
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


static inline int ascii_space(uint8_t c)
{
    return c == ' ' || (c >= '\t' && c <= '\r'); /* \t \n \v \f \r */
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
int pyapi_sink_open(sink *k, PyObject *out, PyObject *kinds_arg, Py_ssize_t cap);

/* Puts `x` (a new reference, stolen; NULL: out of memory) in the next slot. */
int pyapi_sink_put(sink *k, PyObject *x);

/* The result: True (the array was filled) or the list; NULL when not every slot was
 * filled (no error set: the caller returns False). */
PyObject *pyapi_sink_close(sink *k, int ok);

#endif /* PYPY_VERSION */

#endif /* TFN_PYAPI_INTERNAL_H */

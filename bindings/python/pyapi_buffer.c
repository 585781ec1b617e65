/*
 * pyapi_buffer.c - numpy arrays' memory through the buffer protocol, for pyapi_pad.c
 * and pyapi_strs.c.
 *
 * PyObject_GetBuffer / PyBuffer_Release and Py_buffer are in the limited API from
 * Python 3.11 (the struct has not changed since 3.3). This file alone is compiled
 * against the 3.11 limited API when the headers allow it; they only call it when
 * the running interpreter is 3.11 or newer (see pyapi.h).
 */
#include <patchlevel.h>
#include <pyconfig.h>

#undef Py_LIMITED_API
#if !defined(Py_DEBUG) && !defined(Py_TRACE_REFS) && !defined(Py_REF_DEBUG) && \
    !defined(Py_GIL_DISABLED)
#if PY_VERSION_HEX >= 0x030B0000
#define Py_LIMITED_API 0x030B0000
#else
#define Py_LIMITED_API 0x03080000
#endif
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "pyapi.h"

#include <stdint.h>

#if (!defined(Py_LIMITED_API) || Py_LIMITED_API >= 0x030B0000) && !defined(PYPY_VERSION)

size_t tfn_py_view_size(void)
{
    return sizeof(Py_buffer);
}

int tfn_py_int_row(PyObject *o, void *view, tfn_pad_row *row, int dtype)
{
    Py_buffer *v = view;
    /* No PyBUF_FORMAT: the caller knows the dtype (numpy builds a format string for
     * every request that asks for one, a fifth of the time per row) */
    if (PyObject_GetBuffer(o, v, PyBUF_STRIDES) != 0) {
        PyErr_Clear();
        return 0;
    }
    Py_ssize_t size = dtype == TFN_INT32 ? 4 : 8;
    if (v->ndim != 1 || !v->shape || v->shape[0] < 0 || v->itemsize != size ||
        (v->shape[0] > 1 && v->strides && v->strides[0] != size) ||
        (uintptr_t)v->buf % (uintptr_t)size != 0) {
        PyBuffer_Release(v);
        return 0;
    }
    row->values = v->shape[0] ? v->buf : NULL;
    row->count = (size_t)v->shape[0];
    row->dtype = dtype;
    return 1;
}

int tfn_py_object_items(PyObject *o, void *view, PyObject ***items, Py_ssize_t *n,
                        int writable)
{
    Py_buffer *v = view;
    if (PyObject_GetBuffer(o, v, PyBUF_STRIDES | (writable ? PyBUF_WRITABLE : 0)) != 0) {
        PyErr_Clear();
        return 0;
    }
    Py_ssize_t size = (Py_ssize_t)sizeof(PyObject *);
    if (v->ndim != 1 || !v->shape || v->shape[0] < 0 || v->itemsize != size ||
        (v->shape[0] > 1 && v->strides && v->strides[0] != size) ||
        (uintptr_t)v->buf % (uintptr_t)size != 0) {
        PyBuffer_Release(v);
        return 0;
    }
    *items = (PyObject **)v->buf;
    *n = v->shape[0];
    return 1;
}

void tfn_py_view_release(void *view)
{
    PyBuffer_Release((Py_buffer *)view);
}

#else /* headers older than 3.11: no buffers in the limited API */

size_t tfn_py_view_size(void)
{
    return 0;
}

int tfn_py_int_row(PyObject *o, void *view, tfn_pad_row *row, int dtype)
{
    (void)o;
    (void)view;
    (void)row;
    (void)dtype;
    return 0;
}

int tfn_py_object_items(PyObject *o, void *view, PyObject ***items, Py_ssize_t *n,
                        int writable)
{
    (void)o;
    (void)view;
    (void)items;
    (void)n;
    (void)writable;
    return 0;
}

void tfn_py_view_release(void *view)
{
    (void)view;
}

#endif

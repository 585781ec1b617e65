/*
 * pyapi_buffer.c - numpy arrays' memory through the buffer protocol, for pyapi.c.
 *
 * PyObject_GetBuffer / PyBuffer_Release and Py_buffer are in the limited API from
 * Python 3.11 (the struct has not changed since 3.3). This file alone is compiled
 * against the 3.11 limited API when the headers allow it; pyapi.c only calls it when
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
#include <string.h>

#if (!defined(Py_LIMITED_API) || Py_LIMITED_API >= 0x030B0000) && !defined(PYPY_VERSION)

size_t tfn_py_view_size(void)
{
    return sizeof(Py_buffer);
}

/* The tfnano dtype of a native signed integer format of `itemsize` bytes, or -1. */
static int int_dtype(const char *format, Py_ssize_t itemsize)
{
    if (!format)
        return -1;
    if (*format == '@')
        format++;
    if (format[0] == '\0' || format[1] != '\0' || !strchr("bhilq", format[0]))
        return -1;
    return itemsize == 4 ? TFN_INT32 : itemsize == 8 ? TFN_INT64 : -1;
}

int tfn_py_int_row(PyObject *o, void *view, tfn_pad_row *row)
{
    Py_buffer *v = view;
    if (PyObject_GetBuffer(o, v, PyBUF_RECORDS_RO) != 0) {
        PyErr_Clear();
        return 0;
    }
    int dtype = int_dtype(v->format, v->itemsize);
    if (dtype < 0 || v->ndim != 1 || !v->shape || v->shape[0] < 0 ||
        (v->shape[0] > 1 && v->strides && v->strides[0] != v->itemsize) ||
        (uintptr_t)v->buf % (uintptr_t)v->itemsize != 0) {
        PyBuffer_Release(v);
        return 0;
    }
    row->values = v->shape[0] ? v->buf : NULL;
    row->count = (size_t)v->shape[0];
    row->dtype = dtype;
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

int tfn_py_int_row(PyObject *o, void *view, tfn_pad_row *row)
{
    (void)o;
    (void)view;
    (void)row;
    return 0;
}

void tfn_py_view_release(void *view)
{
    (void)view;
}

#endif

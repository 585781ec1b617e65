/*
 * pyapi_record.c - reading TFRecord records as bytes objects: the built-in
 * read_record (see pyapi.h). Each record is copied once, into the bytes object
 * returned, its CRC computed during that copy.
 */
#include "pyapi_internal.h"

#ifndef PYPY_VERSION

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

PyMethodDef pyapi_record_methods[] = {
    {"read_record", read_record, METH_VARARGS,
     "read_record(reader, error) -> bytes or the status (tfnano._crecord.Reader)"},
    {NULL, NULL, 0, NULL},
};

#endif /* PYPY_VERSION */

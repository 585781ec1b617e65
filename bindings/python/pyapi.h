/*
 * pyapi.h - the parts of tfnano._native that take and return Python objects
 * (pyapi*.c, listed in pyapi.c), compiled into the cffi extension beside the C library.
 *
 * cffi's API-mode module is a CPython extension module, but a function declared in
 * its cdef only sees C types, and cffi releases the GIL around every call. So these
 * functions are plain CPython built-ins (PyMethodDef), added to the extension module
 * once by tfn_py_install(), the one function the cdef declares: Python then calls
 * them like any built-in, with the GIL held and Python objects as arguments.
 *
 * Limited API: the pyapi files use the 3.8 limited API (the wheel is cp38-abi3). Reading a
 * numpy array's memory needs PyObject_GetBuffer, in the limited API only from 3.11:
 * pyapi_buffer.c alone is compiled against the 3.11 limited API (when the headers
 * are 3.11 or newer) and is only called when the running interpreter is 3.11 or
 * newer; on 3.8-3.10 the callers take their pure-Python paths for arrays. The symbol
 * is a regular export of every CPython 3 interpreter, so the module loads on all.
 */
#ifndef TFN_PYAPI_H
#define TFN_PYAPI_H

#include "tfnano.h"

#include <stddef.h>

/* Adds the built-ins to the module named `module` (already imported). buffers: use
 * the buffer protocol for numpy arrays (the caller passes 1 only on Python >= 3.11).
 * Returns a bit set: 1 = installed, 2 = numpy arrays are read in C; 0 = nothing
 * installed (the callers keep their Python paths). Takes the GIL itself. Calling it
 * again sets `buffers` anew (the tests use this to run the 3.8-3.10 paths). */
int tfn_py_install(const char *module, int buffers);

/* From pyapi_pad_threads.c. tfn_pad_rows() of rows[0, n) into the row-major output `out`
 * (and `mask`, may be NULL), split into one slice of rows per usable core (at most
 * 16) when the output is at least split_at_bytes, else in the calling thread.
 * Returns 1 when every slice succeeded, 0 when one was refused (the output is then
 * partly written). Touches no Python object; the caller keeps the rows alive. */
int tfn_py_pad_split(const tfn_pad_row *rows, size_t n, const tfn_pad_options *opt,
                     char *out, int out_dtype, size_t width, uint8_t *mask,
                     size_t split_at_bytes);

#ifdef Py_PYTHON_H
/* From pyapi_buffer.c. The size of the opaque view (a Py_buffer), or 0 when this
 * build cannot read buffers (headers older than 3.11). */
size_t tfn_py_view_size(void);

/* Views `o`, a numpy array of dtype `dtype` (TFN_INT32 or TFN_INT64: the caller has
 * checked its dtype object), as a 1-D, contiguous, aligned row: fills `row` and keeps
 * `view` held, returns 1. Anything else (or a failing export): returns 0 with no view
 * held and no Python error set. */
int tfn_py_int_row(PyObject *o, void *view, tfn_pad_row *row, int dtype);

/* Views `o`, a numpy array of objects (the caller has checked its type and dtype), as
 * a 1-D contiguous array of object pointers, writable when asked: sets *items and *n
 * and keeps `view` held, returns 1. Anything else: returns 0 with no view held and no
 * Python error set. The items are the array's own references. */
int tfn_py_object_items(PyObject *o, void *view, PyObject ***items, Py_ssize_t *n,
                        int writable);

/* Releases a view filled by tfn_py_int_row or tfn_py_object_items. */
void tfn_py_view_release(void *view);
#endif

#endif /* TFN_PYAPI_H */

/*
 * pyapi.c - built-ins of tfnano._native that walk Python objects in C (see pyapi.h):
 * tfn_py_install() adds those of every file to the module, and the state they share.
 *
 *   pyapi_pad.c           padding a list of rows (keras pad_sequences, tfnano.pad),
 *   pyapi_pad_threads.c   ... its copy split over cores (no Python in it),
 *   pyapi_record.c        TFRecord records read into bytes objects,
 *   pyapi_strs.c          strings of a list or object array as views, and sinks,
 *   pyapi_strings.c       hashes, table lookups and ASCII maps over strings,
 *   pyapi_string_split.c  tf.strings.split,
 *   pyapi_buffer.c        numpy memory through the buffer protocol (Python >= 3.11).
 *
 * Each declines (returns False / None) rather than fail when given something it does
 * not take: the caller then takes its Python path, which gives TensorFlow's results
 * and errors. The GIL is held throughout unless a file says otherwise.
 */
#include "pyapi_internal.h"

#ifdef PYPY_VERSION
/* PyPy loads cffi modules itself, not as CPython extensions: nothing to install. */
int tfn_py_install(const char *module, int buffers)
{
    (void)module;
    (void)buffers;
    return 0;
}
#else

int pyapi_use_buffers;
PyObject *pyapi_dtype_name; /* "dtype", interned */

/* Every file's table of built-ins. */
static PyMethodDef *const tables[] = {pyapi_pad_methods, pyapi_record_methods,
                                      pyapi_string_methods, pyapi_split_methods};

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
    if (!pyapi_dtype_name)
        pyapi_dtype_name = PyUnicode_InternFromString("dtype");
    pyapi_learn_bytes_offset();
    PyObject *m = module && pyapi_dtype_name ? PyImport_ImportModule(module) : NULL;
    if (m) {
        result = 1;
        for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
            for (PyMethodDef *d = tables[t]; d->ml_name && result; d++) {
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
        pyapi_use_buffers = buffers && tfn_py_view_size() > 0;
    PyGILState_Release(gil);
    return result ? (pyapi_use_buffers ? 3 : 1) : 0;
#endif
}


#endif /* PYPY_VERSION */

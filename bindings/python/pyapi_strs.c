/*
 * pyapi_strs.c - the strings of a list or a numpy object array seen as C views, and
 * the sinks new strings go to: what pyapi_strings.c and pyapi_string_split.c share
 * (declared in pyapi_internal.h).
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
 */
#include "pyapi_internal.h"

#ifndef PYPY_VERSION

/* An object array of `kinds` viewed (writable when asked) into s->items / s->n. */
static int object_array(strs *s, PyObject *a, const object_kinds *k, int writable)
{
    if (!pyapi_use_buffers || (PyObject *)Py_TYPE(a) != k->type)
        return 0;
    PyObject *d = PyObject_GetAttr(a, pyapi_dtype_name);
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

void pyapi_strs_close(strs *s)
{
    if (s->viewing)
        tfn_py_view_release(s->view);
    free(s->view);
    free(s->v);
    memset(s, 0, sizeof *s);
}


/* Where an exact bytes object's characters start, from its address: learned at
 * install from PyBytes_AsString (bytes keep their characters inline, at one offset for
 * every exact bytes object), 0 when not known. It spares a call into the interpreter
 * per string; the length is the object's ob_size (Py_SIZE, in the limited API). */
Py_ssize_t pyapi_bytes_data_offset;

void pyapi_learn_bytes_offset(void)
{
    PyObject *b = PyBytes_FromStringAndSize("tfnano", 6);
    char *p = b ? PyBytes_AsString(b) : NULL;
    ptrdiff_t off = p ? p - (char *)b : 0;
    pyapi_bytes_data_offset = 0;
    if (p && off >= (ptrdiff_t)sizeof(PyVarObject) && off <= 256 && Py_SIZE(b) == 6 &&
        memcmp((char *)b + off, "tfnano", 7) == 0)
        pyapi_bytes_data_offset = (Py_ssize_t)off;
    Py_XDECREF(b);
    if (PyErr_Occurred())
        PyErr_Clear();
}


/* The items of `seq`, a list or an object array of `kinds_arg` (numpy's ndarray type
 * and object dtype), borrowed into *s (read with strs_item, released by pyapi_strs_close):
 * 1, or 0 (another container; nothing held). */
int pyapi_strs_items(strs *s, PyObject *seq, PyObject *kinds_arg)
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
 * borrowed (the GIL is held until pyapi_strs_close): 1, or 0 (declined, nothing held). */
int pyapi_strs_open(strs *s, PyObject *seq, PyObject *kinds_arg)
{
    if (!pyapi_strs_items(s, seq, kinds_arg))
        return 0;
    size_t n = (size_t)s->n;
    s->v = malloc((n ? n : 1) * sizeof *s->v);
    if (!s->v) {
        pyapi_strs_close(s);
        return 0;
    }
    for (Py_ssize_t i = 0; i < s->n; i++) {
        if (!bytes_view(strs_item(s, i), &s->v[i])) {
            pyapi_strs_close(s);
            return 0;
        }
    }
    return 1;
}

/* Opens the output for `cap` strings: `out` an object array of that many (all None),
 * or None for a list. 1, or 0 (nothing held). */
int pyapi_sink_open(sink *k, PyObject *out, PyObject *kinds_arg, Py_ssize_t cap)
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
        pyapi_strs_close(&k->out);
        return 0;
    }
    return 1;
}

/* Puts `x` (a new reference, stolen; NULL: out of memory) in the next slot. */
int pyapi_sink_put(sink *k, PyObject *x)
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
PyObject *pyapi_sink_close(sink *k, int ok)
{
    PyObject *result = NULL;
    ok = ok && k->at == k->cap;
    if (k->list) {
        if (ok)
            result = k->list;
        else
            Py_DECREF(k->list);
    } else {
        pyapi_strs_close(&k->out);
        if (ok) {
            Py_INCREF(Py_True);
            result = Py_True;
        }
    }
    return result;
}

#endif /* PYPY_VERSION */

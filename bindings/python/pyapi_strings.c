/*
 * pyapi_strings.c - the string built-ins: bytes_views and all_bytes (records parsed
 * in place), pack_strings and same_items (string tensors packed once),
 * hash_strings, table_find and table_vocab (tf.strings hashes and
 * tf.lookup tables, with the GIL released for long inputs), bytes_map (ASCII lower,
 * upper, strip). The views they read are made by pyapi_strs.c.
 */
#include "pyapi_internal.h"

#ifndef PYPY_VERSION

/* Hashing and table lookups of STRINGS_RELEASE_AT strings or more run with the GIL
 * released, a chunk at a time (strs_run). */
enum { STRINGS_RELEASE_AT = 16384 };

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
    if (!pyapi_strs_items(&s, seq, kinds_arg))
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
    pyapi_strs_close(&s);
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
    if (!pyapi_strs_items(&s, seq, kinds_arg))
        Py_RETURN_FALSE;
    tfn_bytes *out = (tfn_bytes *)(uintptr_t)out_addr;
    int ok = 1;
    for (Py_ssize_t i = 0; ok && i < s.n; i++) {
        PyObject *x = strs_item(&s, i);
        ok = x && Py_TYPE(x) == &PyBytes_Type && bytes_view(x, &out[i]);
    }
    pyapi_strs_close(&s);
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
    if (!pyapi_strs_items(&s, seq, kinds_arg))
        Py_RETURN_FALSE;
    int ok = 1;
    for (Py_ssize_t i = 0; ok && i < s.n; i++) {
        PyObject *x = strs_item(&s, i);
        ok = x && Py_TYPE(x) == &PyBytes_Type;
    }
    pyapi_strs_close(&s);
    return PyBool_FromLong(ok);
}

/* pack_strings(seq, kinds, offsets_address) -> bytes or None. The strings of an object
 * array or list of exact bytes objects joined into one new bytes object, in one pass
 * that measures them and one that copies; offsets (n + 1 uint64) = where each starts,
 * the last the total. None when an item is something else. A string tensor packed
 * once is then read from contiguous memory by every later op, as TensorFlow's tstring
 * buffer is (tfnano._c.strviews.packed). */
static PyObject *pack_strings(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *seq, *kinds_arg;
    unsigned long long off_addr;
    if (!PyArg_ParseTuple(args, "OOK", &seq, &kinds_arg, &off_addr))
        return NULL;
    strs s;
    if (!pyapi_strs_items(&s, seq, kinds_arg))
        Py_RETURN_NONE;
    uint64_t *off = (uint64_t *)(uintptr_t)off_addr;
    uint64_t total = 0;
    tfn_bytes v;
    for (Py_ssize_t i = 0; i < s.n; i++) {
        if (s.items && i + STRINGS_PREFETCH < s.n)
            __builtin_prefetch(s.items[i + STRINGS_PREFETCH], 0);
        PyObject *x = strs_item(&s, i);
        if (!x || Py_TYPE(x) != &PyBytes_Type || !bytes_view(x, &v)) {
            pyapi_strs_close(&s);
            Py_RETURN_NONE;
        }
        off[i] = total;
        total += v.len;
    }
    off[s.n] = total;
    PyObject *blob = total <= (uint64_t)PY_SSIZE_T_MAX
        ? PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total) : NULL;
    if (!blob) {
        pyapi_strs_close(&s);
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
            pyapi_strs_close(&s);
            Py_RETURN_NONE;
        }
        if (v.len)
            memcpy(dst + off[i], v.data, v.len);
    }
    pyapi_strs_close(&s);
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
    if (!pyapi_strs_items(&sa, a, kinds_arg))
        Py_RETURN_FALSE;
    if (!pyapi_strs_items(&sb, b, kinds_arg)) {
        pyapi_strs_close(&sa);
        Py_RETURN_FALSE;
    }
    int same = sa.n == sb.n && sa.items && sb.items &&
               (sa.n == 0 || memcmp(sa.items, sb.items, (size_t)sa.n * sizeof *sa.items) == 0);
    pyapi_strs_close(&sa);
    pyapi_strs_close(&sb);
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
    if (op < MAP_LOWER || op > MAP_STRIP || !pyapi_strs_open(&s, seq, kinds))
        Py_RETURN_FALSE;
    sink k;
    if (!pyapi_sink_open(&k, out, kinds, s.n)) {
        pyapi_strs_close(&s);
        Py_RETURN_FALSE;
    }
    int ok = 1;
    for (Py_ssize_t i = 0; ok && i < s.n; i++)
        ok = pyapi_sink_put(&k, map_one(strs_item(&s, i), &s.v[i], op));
    pyapi_strs_close(&s);
    PyObject *r = pyapi_sink_close(&k, ok);
    if (!r)
        Py_RETURN_FALSE;
    return r;
}

PyMethodDef pyapi_string_methods[] = {
    {"bytes_views", bytes_views, METH_VARARGS,
     "bytes_views(seq, kinds, out) -> bool (tfnano._parsing: records in place)"},
    {"all_bytes", all_bytes, METH_VARARGS,
     "all_bytes(seq, kinds) -> bool (tfnano._strviews)"},
    {"pack_strings", pack_strings, METH_VARARGS,
     "pack_strings(seq, kinds, offsets) -> bytes or None (tfnano._c.strviews)"},
    {"same_items", same_items, METH_VARARGS,
     "same_items(a, b, kinds) -> bool (tfnano._c.strviews)"},
    {"hash_strings", hash_strings, METH_VARARGS,
     "hash_strings(seq, kinds, kind, num_buckets, key, out) -> bool (tfnano._strviews)"},
    {"table_find", table_find, METH_VARARGS,
     "table_find(seq, kinds, table, missing, rows) -> bool (tfnano._strviews)"},
    {"table_vocab", table_vocab, METH_VARARGS,
     "table_vocab(seq, kinds, table, values, oov_buckets, ids) -> bool (tfnano._strviews)"},
    {"bytes_map", bytes_map, METH_VARARGS,
     "bytes_map(seq, kinds, op, out) -> True, a list or False (tfnano._strviews)"},
    {NULL, NULL, 0, NULL},
};

#endif /* PYPY_VERSION */

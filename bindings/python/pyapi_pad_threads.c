/*
 * pyapi_pad_threads.c - tfn_pad_rows() over slices of rows on every usable core, for
 * pyapi_pad.c's lists of numpy rows (see pyapi.h).
 *
 * Padding a long list into fresh memory is bound by the page faults of the output
 * (the kernel zeroes each new page) and the copy, both of which scale with cores;
 * walking the list does not, so pyapi_pad.c walks it once, with the GIL, and only the
 * copy is split here. The threads live for one call: a call this size takes
 * milliseconds, starting a thread tens of microseconds. No Python object is touched.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include "tfnano.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "pyapi.h"

enum { MAX_SLICES = 16 };

typedef struct slice {
    const tfn_pad_row *rows;
    size_t n;
    const tfn_pad_options *opt;
    char *out;
    int out_dtype;
    size_t width;
    uint8_t *mask;
    int rc;
} slice;

static size_t usable_cores(void)
{
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (size_t)CPU_COUNT(&set);
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (size_t)n : 1;
}

static void *pad_slice(void *arg)
{
    slice *s = arg;
    tfn_error err;
    s->rc = tfn_pad_rows(s->rows, s->n, s->opt, s->out, s->out_dtype, s->width, s->mask,
                         NULL, &err);
    return NULL;
}

int tfn_py_pad_split(const tfn_pad_row *rows, size_t n, const tfn_pad_options *opt,
                     char *out, int out_dtype, size_t width, uint8_t *mask,
                     size_t split_at_bytes)
{
    size_t row_bytes = width * (out_dtype == TFN_INT64 ? 8 : 4);
    size_t want = row_bytes && n * row_bytes >= split_at_bytes ? usable_cores() : 1;
    size_t slices = want < MAX_SLICES ? want : MAX_SLICES;
    if (slices > n)
        slices = n ? n : 1;
    slice s[MAX_SLICES];
    pthread_t threads[MAX_SLICES];
    int started[MAX_SLICES] = {0};
    for (size_t i = 0, first = 0; i < slices; i++) {
        size_t count = n / slices + (i < n % slices);
        s[i] = (slice){rows + first,
                       count,
                       opt,
                       out + first * row_bytes,
                       out_dtype,
                       width,
                       mask ? mask + first * width : NULL,
                       TFN_OK};
        first += count;
    }
    /* slice 0 is the caller's; a thread that cannot start leaves its slice to it */
    for (size_t i = 1; i < slices; i++)
        started[i] = pthread_create(&threads[i], NULL, pad_slice, &s[i]) == 0;
    pad_slice(&s[0]);
    int ok = s[0].rc == TFN_OK;
    for (size_t i = 1; i < slices; i++) {
        if (started[i])
            pthread_join(threads[i], NULL);
        else
            pad_slice(&s[i]);
        ok = ok && s[i].rc == TFN_OK;
    }
    return ok;
}

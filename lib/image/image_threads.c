/* image_threads.c - the worker pool of one batch call (see image_threads.h). Threads
 * live for one call: a batch of images takes milliseconds, starting a thread tens of
 * microseconds. */
#include "image_threads.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct pool {
    tfn__image_jobs *jobs;
    size_t worker_bytes;
    atomic_size_t next;
    atomic_bool stop;
    pthread_mutex_t lock;
    size_t failed_index; /* lowest failing index so far (n: none), under lock */
    int failed_rc;
    tfn_error failed_err;
} pool;

int tfn__image_threads(int requested, size_t jobs)
{
    long n = requested;
    if (n <= 0) {
        n = sysconf(_SC_NPROCESSORS_ONLN);
        if (n < 1)
            n = 1;
    }
    if (n > 256)
        n = 256;
    if ((size_t)n > jobs)
        n = (long)(jobs ? jobs : 1);
    return (int)n;
}

/* Takes jobs until none is left (or one failed under stop_on_error), with `state` as
 * this worker's own block; frees it at the end. */
static void run_worker(pool *p, void *state)
{
    tfn_error err;
    for (;;) {
        if (atomic_load_explicit(&p->stop, memory_order_relaxed))
            break;
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->jobs->n)
            break;
        tfn__clear_error(&err);
        int rc = p->jobs->run(p->jobs, i, state, &err);
        if (rc < 0) {
            pthread_mutex_lock(&p->lock);
            if (p->failed_rc == TFN_OK || i < p->failed_index) {
                p->failed_index = i;
                p->failed_rc = rc;
                p->failed_err = err;
            }
            pthread_mutex_unlock(&p->lock);
            if (p->jobs->stop_on_error)
                atomic_store(&p->stop, true);
        }
    }
    if (state && p->jobs->free_state)
        p->jobs->free_state(state);
    free(state);
}

/* A started thread whose state cannot be allocated takes no job: the others (at least
 * the calling thread, whose state exists) do all the work. */
static void *work(void *arg)
{
    pool *p = arg;
    void *state = NULL;
    if (p->worker_bytes && !(state = calloc(1, p->worker_bytes)))
        return NULL;
    run_worker(p, state);
    return NULL;
}

int tfn__image_run_jobs(tfn__image_jobs *jobs, int num_threads, size_t worker_bytes,
                        tfn_error *err)
{
    pool p;
    memset(&p, 0, sizeof p);
    p.jobs = jobs;
    p.worker_bytes = worker_bytes;
    atomic_init(&p.next, 0);
    atomic_init(&p.stop, false);
    p.failed_index = jobs->n;
    p.failed_rc = TFN_OK;
    if (pthread_mutex_init(&p.lock, NULL) != 0)
        return tfn__fail(err, TFN_E_NOMEM, "cannot create a mutex");
    void *own_state = NULL;
    if (worker_bytes && !(own_state = calloc(1, worker_bytes))) {
        pthread_mutex_destroy(&p.lock);
        return tfn__fail(err, TFN_E_NOMEM, "out of memory (image worker state)");
    }
    jobs->started = true;
    int nt = tfn__image_threads(num_threads, jobs->n);
    pthread_t tids[256];
    int started = 0;
    for (int t = 1; t < nt; t++) {
        if (pthread_create(&tids[started], NULL, work, &p) != 0)
            break; /* fewer threads: the others share the work */
        started++;
    }
    run_worker(&p, own_state);
    for (int t = 0; t < started; t++)
        pthread_join(tids[t], NULL);
    pthread_mutex_destroy(&p.lock);
    if (p.failed_rc != TFN_OK) {
        /* the record's own message, cut to leave room for the prefix */
        tfn__fail_at(err, p.failed_rc, p.failed_err.offset, p.failed_index, "record %zu: %.990s",
                     p.failed_index, p.failed_err.msg);
        return p.failed_rc;
    }
    return TFN_OK;
}

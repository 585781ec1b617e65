/* image_threads.h - running n independent image jobs on worker threads: indices handed
 * out in increasing order from an atomic counter; under stop_on_error the lowest
 * failing index's error is reported (every lower index was handed out before it and
 * still finishes), with "record <i>: " in front of its message. */
#ifndef TFN_IMAGE_THREADS_H
#define TFN_IMAGE_THREADS_H

#include "image_internal.h"

typedef struct tfn__image_jobs tfn__image_jobs;
struct tfn__image_jobs {
    /* Runs job i; worker_state is a per-thread block of worker_bytes (zeroed at
     * start, freed with free_state). Returns a tfn_status, filling err. */
    int (*run)(tfn__image_jobs *self, size_t i, void *worker_state, tfn_error *err);
    void (*free_state)(void *worker_state);
    size_t n;
    bool stop_on_error;
    bool started; /* set by tfn__image_run_jobs once jobs run (false: nothing ran) */
};

/* Runs every job; returns TFN_OK or the lowest failing job's status with its error.
 * TFN_E_NOMEM with jobs->started false: the calling thread's state could not be
 * allocated and no job ran. A started thread that cannot allocate its state takes
 * no job; the others do them all. */
int tfn__image_run_jobs(tfn__image_jobs *jobs, int num_threads, size_t worker_bytes,
                        tfn_error *err);

#endif

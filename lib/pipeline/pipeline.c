/*
 * pipeline.c - the worker threads and the ordered hand-over of batches.
 *
 * Each worker loops: reserve a place in the window (at most prefetch + workers
 * batches exist at once), take the reading lock, number the batch and read its
 * records in interleave order, release the lock, parse outside it, and put the batch
 * in its slot. The consumer takes slot `next_out` (deterministic) or the oldest
 * finished batch (not deterministic). Reading is the only serial part: each record is
 * copied once from its reader's buffer into the batch, its CRC computed during that
 * copy, a small share of the parse.
 */
#define _GNU_SOURCE
#include "pipeline_internal.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

/* Small shims for the calls Linux has and other systems (macOS) lack: the CPUs this
 * process may use, a join with a deadline, a condition variable on the monotonic
 * clock. On Linux they are the calls themselves. */
#if defined(__APPLE__)
#    define TFN_WAIT_CLOCK CLOCK_REALTIME /* no pthread_condattr_setclock */
#else
#    define TFN_WAIT_CLOCK CLOCK_MONOTONIC
#endif

void tfn_pipeline_options_init(tfn_pipeline_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->compression = TFN_COMPRESSION_NONE;
    opts->buffer_size = 256 * 1024;
    opts->cycle_length = 1;
    opts->block_length = 1;
    opts->deterministic = 1;
    opts->parse_flags = TFN_PARSE_BATCH;
    opts->max_rows = -1;
    opts->prefetch = 2;
    opts->on_damage = TFN_ON_DAMAGE_RAISE;
    opts->on_parse_error = TFN_ON_PARSE_ERROR_RAISE;
}

static size_t usable_cpus(void)
{
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return (size_t)n;
    }
#else
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n > 0)
        return (size_t)n;
#endif
    return 1;
}

/* ---------------------------------------------------------------- workers */

/* Puts a finished batch (or lets go of a reservation when b is NULL). mu held. */
static void place_locked(struct tfn_pipeline *p, tfn_pipeline_batch *b)
{
    if (!b) {
        /* the consumer may be waiting for the last reservation to go (the end) */
        p->outstanding--;
        pthread_cond_broadcast(&p->cv_space);
        pthread_cond_signal(&p->cv_ready);
        return;
    }
    size_t k;
    if (p->deterministic) {
        k = (size_t)(b->seq % p->window);
    } else {
        for (k = 0; k < p->window && p->slots[k]; k++) {
        }
    }
    p->slots[k] = b;
    pthread_cond_signal(&p->cv_ready);
}

/* Reads the records of batch b (read_mu held). Returns TFN_END when the inputs ran
 * out (b may hold records or an error too), else TFN_OK; a read error goes into
 * b->status and b->err. Without error_fills_batch the first error ends the batch
 * (batch()'s way); with it, the error takes a place and reading goes on until the
 * batch's places are taken (map_and_batch's way), later errors taking places too. */
static int read_batch_locked(struct tfn_pipeline *p, tfn_pipeline_batch *b)
{
    tfn_error later; /* errors after the first one of a batch, not reported */
    for (size_t taken = 0; taken < p->batch_size;) {
        tfn__origin origin;
        tfn_error *err = b->status < 0 ? &later : &b->err;
        /* records after an error only take their places */
        int rc = tfn__source_next(p, b->status == TFN_OK ? b : NULL, &origin, err);
        if (rc == TFN_END)
            return TFN_END;
        taken++;
        if (rc < 0) {
            if (b->status == TFN_OK)
                b->status = rc;
            if (!p->error_fills_batch)
                return TFN_OK;
        }
    }
    return TFN_OK;
}

static void worker_loop(tfn__worker *w)
{
    struct tfn_pipeline *p = w->pipe;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!atomic_load(&p->stop) && !p->done && p->outstanding >= p->window)
            pthread_cond_wait(&p->cv_space, &p->mu);
        if (atomic_load(&p->stop) || p->done) {
            pthread_mutex_unlock(&p->mu);
            return;
        }
        p->outstanding++;
        pthread_mutex_unlock(&p->mu);

        tfn_pipeline_batch *b = tfn__pool_get(p->pool);
        if (!b) {
            pthread_mutex_lock(&p->mu);
            if (!p->fatal) {
                p->fatal = TFN_E_NOMEM;
                tfn__fail(&p->fatal_err, TFN_E_NOMEM, "out of memory for a pipeline batch");
            }
            place_locked(p, NULL);
            pthread_cond_broadcast(&p->cv_ready);
            pthread_mutex_unlock(&p->mu);
            return;
        }

        pthread_mutex_lock(&p->read_mu);
        if (p->reading_done) {
            pthread_mutex_unlock(&p->read_mu);
            tfn__pool_put(b);
            pthread_mutex_lock(&p->mu);
            place_locked(p, NULL);
            pthread_mutex_unlock(&p->mu);
            return;
        }
        b->seq = p->next_seq++;
        tfn__clear_error(&b->err);
        int rc = read_batch_locked(p, b);
        bool end = rc == TFN_END;
        if (end)
            p->reading_done = true;
        uint64_t records = p->records_read, regions = p->closed_regions,
                 bytes = p->closed_bytes;
        for (size_t i = 0; i < p->cycle_length; i++) {
            if (p->cycle[i].reader) {
                uint64_t r = 0, by = 0;
                tfn_record_reader_skipped(p->cycle[i].reader, &r, &by);
                regions += r;
                bytes += by;
            }
        }
        pthread_mutex_unlock(&p->read_mu);

        bool keep = true, parse_dropped = false;
        if (b->status < 0) {
            /* the error stands for the batch; its records are dropped */
            b->n = 0;
            b->data_len = 0;
        } else if (end && (b->n == 0 || (p->drop_remainder && b->n < p->batch_size))) {
            keep = false;
            /* records parsed one by one (map(parse_single_example).batch(n): TF's
             * map_and_batch) are mapped before the short batch is dropped, so its
             * parse error is still reported */
            parse_dropped = b->n > 0 && p->spec && (p->parse_flags & TFN_PARSE_SINGLE);
        }
        /* (a dropped short batch of map_and_batch is mapped all the same: parsed and
         * its images decoded, so that its errors are reported as TensorFlow does) */
        uint64_t skipped = 0, images_skipped = 0;
        bool mapped = keep || parse_dropped;
        if (mapped && b->status == TFN_OK && p->spec && !atomic_load(&p->stop))
            tfn__batch_parse(w, b, &skipped);
        if (mapped && b->status == TFN_OK && p->nimages && !atomic_load(&p->stop))
            tfn__batch_images(w, b, &images_skipped);
        if (parse_dropped && b->status < 0)
            keep = true; /* the batch is its error */
        if (atomic_load(&p->stop))
            keep = false;

        pthread_mutex_lock(&p->mu);
        p->parse_skipped += skipped;
        p->image_skipped += images_skipped;
        /* workers finish out of order: keep the latest reading (the counters grow) */
        if (records > p->seen_records)
            p->seen_records = records;
        if (regions > p->seen_regions)
            p->seen_regions = regions;
        if (bytes > p->seen_bytes)
            p->seen_bytes = bytes;
        if (end) {
            p->done = true;
            p->end_seq = keep ? b->seq + 1 : b->seq;
            pthread_cond_broadcast(&p->cv_space);
            pthread_cond_broadcast(&p->cv_ready);
        }
        place_locked(p, keep ? b : NULL);
        pthread_mutex_unlock(&p->mu);
        if (!keep)
            tfn__pool_put(b);
    }
}

static void pipeline_destroy(struct tfn_pipeline *p, bool locks);

/* Drops one reference (mu not held); the last one frees the pipeline. */
static void release(struct tfn_pipeline *p)
{
    pthread_mutex_lock(&p->mu);
    bool last = --p->refs == 0;
    pthread_mutex_unlock(&p->mu);
    if (last)
        pipeline_destroy(p, true);
}

static void *worker_main(void *arg)
{
    tfn__worker *w = arg;
    struct tfn_pipeline *p = w->pipe;
    worker_loop(w);
    atomic_store(&w->finished, true); /* before release: p lives while stop_and_wait runs */
    release(p);
    return NULL;
}

/* Joins a worker unless it is still running at `deadline` (CLOCK_REALTIME): 0 when
 * joined. */
static int join_until(tfn__worker *w, const struct timespec *deadline)
{
#if defined(__linux__)
    return pthread_timedjoin_np(w->thread, NULL, deadline);
#else
    /* no timed join: poll the flag the worker sets as it ends */
    for (;;) {
        if (atomic_load(&w->finished))
            return pthread_join(w->thread, NULL);
        struct timespec now, nap = {0, 1000000};
        clock_gettime(CLOCK_REALTIME, &now);
        if (now.tv_sec > deadline->tv_sec ||
            (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec))
            return ETIMEDOUT;
        nanosleep(&nap, NULL);
    }
#endif
}

/* ---------------------------------------------------------------- new / free */

static void free_strings(const tfn__alloc *a, char **v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        tfn__free(a, v[i]);
    tfn__free(a, v);
}

static int copy_strings(const tfn__alloc *a, const char *const *src, size_t n, bool required,
                        char ***out, tfn_error *err)
{
    char **v = tfn__malloc(a, (n ? n : 1) * sizeof *v);
    if (!v)
        return tfn__fail(err, TFN_E_NOMEM, "out of memory");
    memset(v, 0, (n ? n : 1) * sizeof *v);
    *out = v;
    for (size_t i = 0; i < n; i++) {
        if (!src[i]) {
            if (required)
                return tfn__fail(err, TFN_E_INVALID_ARG, "input %zu: NULL path", i);
            continue;
        }
        size_t len = strlen(src[i]);
        v[i] = tfn__malloc(a, len + 1);
        if (!v[i])
            return tfn__fail(err, TFN_E_NOMEM, "out of memory");
        memcpy(v[i], src[i], len + 1);
    }
    return TFN_OK;
}

static int check_options(const tfn_pipeline_options *o, tfn_error *err)
{
    if (o->batch_size == 0)
        return tfn__fail(err, TFN_E_INVALID_ARG, "batch_size must be > 0");
    if (o->cycle_length == 0 || o->block_length == 0)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "cycle_length and block_length must be > 0 (got %zu, %zu)",
                         o->cycle_length, o->block_length);
    if (o->ninputs && !o->paths && !o->buffers)
        return tfn__fail(err, TFN_E_INVALID_ARG, "%zu inputs but neither paths nor buffers",
                         o->ninputs);
    if (o->compression < TFN_COMPRESSION_NONE || o->compression > TFN_COMPRESSION_AUTO)
        return tfn__fail(err, TFN_E_INVALID_ARG, "unknown compression %d", o->compression);
    if (o->on_damage != TFN_ON_DAMAGE_RAISE && o->on_damage != TFN_ON_DAMAGE_SKIP)
        return tfn__fail(err, TFN_E_INVALID_ARG, "unknown on_damage %d", o->on_damage);
    if (o->on_parse_error != TFN_ON_PARSE_ERROR_RAISE &&
        o->on_parse_error != TFN_ON_PARSE_ERROR_SKIP)
        return tfn__fail(err, TFN_E_INVALID_ARG, "unknown on_parse_error %d",
                         o->on_parse_error);
    if (o->parse_flags != TFN_PARSE_BATCH && o->parse_flags != TFN_PARSE_SINGLE)
        return tfn__fail(err, TFN_E_INVALID_ARG, "unknown parse_flags %u", o->parse_flags);
    if (o->max_rows < -1)
        return tfn__fail(err, TFN_E_INVALID_ARG, "max_rows must be >= -1");
    if (o->spec) {
        for (size_t j = 0; j < o->spec->n; j++) {
            int t = o->spec->dense[j].type;
            if (t != TFN_FIXED_LEN && t != TFN_FIXED_LEN_SEQUENCE)
                return tfn__fail(err, TFN_E_INVALID_ARG,
                                 "feature %s: the pipeline parses FixedLen and "
                                 "FixedLenSequence features only",
                                 o->spec->dense[j].key);
        }
    }
    return TFN_OK;
}

static int start_workers(struct tfn_pipeline *p, size_t n, tfn_error *err)
{
    p->workers = tfn__malloc(&p->alloc, n * sizeof *p->workers);
    if (!p->workers)
        return tfn__fail(err, TFN_E_NOMEM, "out of memory");
    memset(p->workers, 0, n * sizeof *p->workers);
    p->nworkers = n;
    for (size_t i = 0; i < n; i++) {
        tfn__worker *w = &p->workers[i];
        w->pipe = p;
        atomic_init(&w->finished, false);
        if (p->spec) {
            w->parser = tfn_parser_new(p->spec, &p->alloc.a);
            w->outs = tfn__malloc(&p->alloc, p->spec->n * sizeof *w->outs);
            if (!w->parser || !w->outs)
                return tfn__fail(err, TFN_E_NOMEM, "out of memory");
        }
    }
    /* Workers block every signal: they belong to the thread that waits in next(). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_mutex_lock(&p->mu);
    p->refs += n;
    pthread_mutex_unlock(&p->mu);
    int sys = 0;
    size_t started = 0;
    for (size_t i = 0; i < n; i++) {
        sys = pthread_create(&p->workers[i].thread, NULL, worker_main, &p->workers[i]);
        if (sys != 0)
            break;
        p->workers[i].started = true;
        started++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_mutex_lock(&p->mu);
    p->refs -= n - started;
    pthread_mutex_unlock(&p->mu);
    if (started == 0) {
        int rc = tfn__fail(err, TFN_E_IO, "cannot start a pipeline thread: %s",
                           tfn_status_str(TFN_E_IO));
        if (err)
            err->sys_errno = sys;
        return rc;
    }
    return TFN_OK;
}

/* Stops the workers and waits up to a second for them. One still running then is
 * blocked in a read or open that does not return (a FIFO, a hung network file system):
 * it is detached and frees the pipeline itself when that call returns. */
static void stop_and_wait(struct tfn_pipeline *p)
{
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->stop, true);
    pthread_cond_broadcast(&p->cv_space);
    pthread_cond_broadcast(&p->cv_ready);
    pthread_mutex_unlock(&p->mu);
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 1;
    for (size_t i = 0; i < p->nworkers; i++) {
        if (!p->workers[i].started)
            continue;
        if (join_until(&p->workers[i], &deadline) != 0)
            pthread_detach(p->workers[i].thread);
    }
}

static void pipeline_destroy(struct tfn_pipeline *p, bool locks)
{
    const tfn__alloc *a = &p->alloc;
    tfn__source_close_all(p);
    if (p->slots) {
        for (size_t k = 0; k < p->window; k++)
            if (p->slots[k])
                tfn__pool_put(p->slots[k]);
        tfn__free(a, p->slots);
    }
    if (p->pool)
        tfn__pool_close(p->pool);
    if (p->workers) {
        for (size_t i = 0; i < p->nworkers; i++) {
            tfn_parser_free(p->workers[i].parser);
            tfn__free(a, p->workers[i].outs);
            tfn__image_worker_free(&p->workers[i].image);
            tfn__free(a, p->workers[i].failed);
        }
        tfn__free(a, p->workers);
    }
    tfn__free(a, p->cycle);
    tfn__free(a, p->images);
    free_strings(a, p->paths, p->ninputs);
    free_strings(a, p->names, p->ninputs);
    if (locks) {
        pthread_mutex_destroy(&p->read_mu);
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->cv_ready);
        pthread_cond_destroy(&p->cv_space);
    }
    tfn__alloc copy = p->alloc;
    tfn__free(&copy, p);
}

static int init_locks(struct tfn_pipeline *p)
{
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0)
        return TFN_E_NOMEM;
#if !defined(__APPLE__)
    pthread_condattr_setclock(&ca, TFN_WAIT_CLOCK);
#endif
    int bad = pthread_mutex_init(&p->read_mu, NULL) | pthread_mutex_init(&p->mu, NULL) |
              pthread_cond_init(&p->cv_ready, &ca) | pthread_cond_init(&p->cv_space, NULL);
    pthread_condattr_destroy(&ca);
    return bad ? TFN_E_NOMEM : TFN_OK;
}

int tfn_pipeline_new(const tfn_pipeline_options *opts, const tfn_alloc *alc,
                     tfn_pipeline **out, tfn_error *err)
{
    tfn__clear_error(err);
    if (!opts || !out)
        return tfn__fail(err, TFN_E_INVALID_ARG, "NULL options or output");
    *out = NULL;
    int rc = check_options(opts, err);
    if (rc < 0)
        return rc;
    tfn__alloc a;
    tfn__alloc_init(&a, alc);
    struct tfn_pipeline *p = tfn__malloc(&a, sizeof *p);
    if (!p)
        return tfn__fail(err, TFN_E_NOMEM, "out of memory");
    memset(p, 0, sizeof *p);
    p->alloc = a;
    p->refs = 1;
    atomic_init(&p->stop, false);
    if (init_locks(p) != TFN_OK) {
        tfn__free(&a, p);
        return tfn__fail(err, TFN_E_NOMEM, "cannot create the pipeline's locks");
    }
    p->ninputs = opts->ninputs;
    p->compression = opts->compression;
    p->buffer_size = opts->buffer_size;
    p->cycle_length = opts->cycle_length;
    p->block_length = opts->block_length;
    p->deterministic = opts->deterministic != 0;
    p->batch_size = opts->batch_size;
    p->drop_remainder = opts->drop_remainder != 0;
    p->spec = opts->spec;
    p->parse_flags = opts->parse_flags;
    p->max_rows = opts->max_rows;
    p->masks = opts->masks != 0;
    p->on_damage = opts->on_damage;
    p->on_parse_error = opts->on_parse_error;
    p->error_fills_batch = opts->error_fills_batch != 0;
    p->max_record_size = opts->max_record_size;
    if (opts->paths) {
        rc = copy_strings(&a, opts->paths, p->ninputs, true, &p->paths, err);
    } else {
        p->buffers = opts->buffers;
        if (opts->names)
            rc = copy_strings(&a, opts->names, p->ninputs, false, &p->names, err);
    }
    if (rc == TFN_OK)
        rc = tfn__images_setup(p, opts, err);
    size_t nworkers = opts->num_threads ? opts->num_threads : usable_cpus();
    if (!p->spec)
        nworkers = 1; /* a raw batch is all reading, which is serial */
    p->window = (opts->prefetch ? opts->prefetch : 1) + nworkers;
    if (rc == TFN_OK) {
        p->cycle = tfn__malloc(&a, p->cycle_length * sizeof *p->cycle);
        p->slots = tfn__malloc(&a, p->window * sizeof *p->slots);
        if (!p->cycle || !p->slots) {
            rc = tfn__fail(err, TFN_E_NOMEM, "out of memory");
        } else {
            memset(p->cycle, 0, p->cycle_length * sizeof *p->cycle);
            memset(p->slots, 0, p->window * sizeof *p->slots);
        }
    }
    if (rc == TFN_OK && tfn__pool_new(&a, p->spec ? p->spec->n : 0, p->nimages,
                                      p->window + 2, &p->pool) != TFN_OK)
        rc = tfn__fail(err, TFN_E_NOMEM, "out of memory");
    if (rc == TFN_OK)
        rc = start_workers(p, nworkers, err);
    if (rc < 0) {
        stop_and_wait(p);
        release(p);
        return rc;
    }
    *out = p;
    return TFN_OK;
}

void tfn_pipeline_free(tfn_pipeline *p)
{
    if (!p)
        return;
    stop_and_wait(p);
    release(p);
}

/* ---------------------------------------------------------------- next / stats */

/* A finished batch to hand out, or NULL. mu held. */
static tfn_pipeline_batch *take_locked(struct tfn_pipeline *p)
{
    size_t k;
    if (p->deterministic) {
        k = (size_t)(p->next_out % p->window);
        tfn_pipeline_batch *b = p->slots[k];
        if (!b || b->seq != p->next_out)
            return NULL;
        p->next_out++;
    } else {
        size_t best = p->window;
        for (k = 0; k < p->window; k++)
            if (p->slots[k] && (best == p->window || p->slots[k]->seq < p->slots[best]->seq))
                best = k;
        if (best == p->window)
            return NULL;
        k = best;
    }
    tfn_pipeline_batch *b = p->slots[k];
    p->slots[k] = NULL;
    p->outstanding--;
    pthread_cond_signal(&p->cv_space);
    return b;
}

static bool at_end_locked(const struct tfn_pipeline *p)
{
    if (!p->done)
        return false;
    return p->deterministic ? p->next_out >= p->end_seq : p->outstanding == 0;
}

static void deadline_after(struct timespec *ts, int64_t ms)
{
    clock_gettime(TFN_WAIT_CLOCK, ts);
    ts->tv_sec += (time_t)(ms / 1000);
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

int tfn_pipeline_next(tfn_pipeline *p, int64_t timeout_ms, tfn_pipeline_batch **batch,
                      tfn_error *err)
{
    if (batch)
        *batch = NULL;
    if (!p || !batch)
        return tfn__fail(err, TFN_E_INVALID_ARG, "NULL pipeline or output");
    struct timespec deadline;
    if (timeout_ms >= 0)
        deadline_after(&deadline, timeout_ms);
    bool timed_out = false;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        tfn_pipeline_batch *b = take_locked(p);
        if (b) {
            if (b->status == TFN_OK && b->n == 0) {
                /* every record of it failed to parse and was skipped */
                pthread_mutex_unlock(&p->mu);
                tfn__pool_put(b);
                pthread_mutex_lock(&p->mu);
                continue;
            }
            pthread_mutex_unlock(&p->mu);
            if (b->status < 0) {
                int rc = b->status;
                if (err)
                    *err = b->err;
                tfn__pool_put(b);
                return rc;
            }
            tfn__clear_error(err);
            pthread_mutex_lock(&p->mu);
            p->batches_out++;
            pthread_mutex_unlock(&p->mu);
            *batch = b;
            return TFN_OK;
        }
        if (at_end_locked(p)) {
            pthread_mutex_unlock(&p->mu);
            return TFN_END;
        }
        if (p->fatal) {
            int rc = p->fatal;
            if (err)
                *err = p->fatal_err;
            pthread_mutex_unlock(&p->mu);
            return rc;
        }
        if (timed_out) {
            pthread_mutex_unlock(&p->mu);
            return TFN_TIMEOUT;
        }
        if (timeout_ms < 0)
            pthread_cond_wait(&p->cv_ready, &p->mu);
        else if (pthread_cond_timedwait(&p->cv_ready, &p->mu, &deadline) == ETIMEDOUT)
            timed_out = true; /* one more look before giving up */
    }
}

void tfn_pipeline_stats_get(const tfn_pipeline *cp, tfn_pipeline_stats *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (!cp)
        return;
    struct tfn_pipeline *p = (struct tfn_pipeline *)(uintptr_t)cp;
    pthread_mutex_lock(&p->mu);
    out->records_read = p->seen_records;
    out->damaged_regions = p->seen_regions;
    out->damaged_bytes = p->seen_bytes;
    out->batches = p->batches_out;
    out->parse_skipped = p->parse_skipped;
    out->image_skipped = p->image_skipped;
    pthread_mutex_unlock(&p->mu);
}

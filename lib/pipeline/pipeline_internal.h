/*
 * pipeline_internal.h - the pieces of a tfn_pipeline shared by its files:
 *   pipeline_source.c  the interleaved inputs (TensorFlow's interleave order),
 *   pipeline_batch.c   batch memory (a recycled pool) and parsing into a batch,
 *   pipeline_image.c   image stages: decode -> resize -> normalise a parsed bytes feature,
 *   pipeline.c         the worker threads, the ordered hand-over and the public calls.
 */
#ifndef TFN_PIPELINE_INTERNAL_H
#define TFN_PIPELINE_INTERNAL_H

#include "../base/tfn_internal.h"
#include "../example/parse_internal.h"
#include "../image/image_internal.h"

#include <pthread.h>
#include <stdatomic.h>

/* Where a record came from (messages name it; tfn_pipeline_batch_origin). */
typedef struct tfn__origin {
    size_t input;
    uint64_t index;
    uint64_t offset;
} tfn__origin;

typedef struct tfn__batch_pool tfn__batch_pool;

struct tfn_pipeline_batch {
    tfn__batch_pool *pool;
    tfn_pipeline_batch *next_free;
    uint64_t seq;  /* position in the stream of batches */
    int status;    /* TFN_OK, or the error this batch stands for */
    tfn_error err; /* filled when status < 0 */
    size_t n;      /* records */
    uint8_t *data; /* records back to back */
    size_t data_len, data_cap;
    uint64_t *offsets; /* n + 1 */
    size_t offsets_cap;
    tfn__origin *origin; /* n */
    size_t origin_cap;
    tfn_bytes *views; /* n, parsed batches: into data */
    size_t views_cap;
    uint8_t *block; /* every output of a parsed batch, each 64-byte aligned */
    size_t block_cap;
    tfn_pipeline_column *cols; /* spec size, NULL for raw batches */
    size_t ncols;
    uint8_t *images; /* every image stage's output, each 64-byte aligned */
    size_t images_cap;
    size_t *image_at; /* per stage: offset (from the aligned start) and bytes */
    size_t nimages;
};

/* Batches are recycled so that a warm pipeline reuses memory that is already mapped.
 * The pool outlives the pipeline while the caller still holds batches. */
struct tfn__batch_pool {
    pthread_mutex_t mu;
    tfn__alloc alloc;
    tfn_pipeline_batch *free_list;
    size_t nfree, max_free;
    size_t live;  /* batches in existence (in use or in free_list) */
    bool closed;  /* the pipeline is gone: returning batches are freed */
    size_t ncols; /* columns per batch */
    size_t nimages; /* image stages per batch */
};

int tfn__pool_new(const tfn__alloc *alloc, size_t ncols, size_t nimages, size_t max_free,
                  tfn__batch_pool **out);
/* A batch with n == 0 (recycled memory kept), or NULL when memory runs out. */
tfn_pipeline_batch *tfn__pool_get(tfn__batch_pool *pool);
void tfn__pool_put(tfn_pipeline_batch *b);
/* The pipeline lets go of the pool: it goes away with its last batch. */
void tfn__pool_close(tfn__batch_pool *pool);

/* Room for a record of len bytes at the end of b's data, not yet one of its records
 * (NULL when memory runs out); tfn__batch_commit() makes the bytes written there its
 * next record. */
uint8_t *tfn__batch_room(tfn_pipeline_batch *b, size_t len);
int tfn__batch_commit(tfn_pipeline_batch *b, size_t len, const tfn__origin *origin,
                      tfn_error *err);

/* What a worker keeps between batches. */
typedef struct tfn__worker {
    struct tfn_pipeline *pipe;
    tfn_parser *parser; /* NULL for raw batches */
    tfn_output *outs;   /* spec size */
    tfn__image_worker image; /* decode buffer and resize tables */
    uint8_t *failed;         /* per record of a batch: its image failed (SKIP) */
    size_t failed_cap;
    pthread_t thread;
    bool started;
    atomic_bool finished; /* set by the worker as it ends (join_until's shim) */
} tfn__worker;

/* Parses the records of b into its columns. On a parse error with the RAISE policy,
 * b becomes that error (status, err); with SKIP the failing records are dropped and
 * *skipped counts them. Returns TFN_OK, or TFN_E_NOMEM (b's status set too). */
int tfn__batch_parse(tfn__worker *w, tfn_pipeline_batch *b, uint64_t *skipped);

/* Removes record i from b (its bytes, offset and origin) and rebuilds the views. */
void tfn__batch_drop_record(tfn_pipeline_batch *b, size_t i);

/* Ends the message of b->err with where record i of b came from ("; file <path>,
 * record <r>, offset <o>") and sets its code, record_index, offset and b's status. */
void tfn__batch_locate_error(const struct tfn_pipeline *p, tfn_pipeline_batch *b, int rc,
                             size_t i);

/* One image stage, as the pipeline keeps it (options copied). */
typedef struct tfn__image_stage {
    size_t feature;
    tfn_image_batch_options opt;
    tfn__image_plan plan; /* points at opt */
    unsigned formats;
    char op_name[32];
} tfn__image_stage;

/* Runs the image stages on a parsed batch: decodes each record's image into b->images.
 * A failure under RAISE makes b that error; under SKIP the failing records are dropped
 * (b is parsed again without them) and *skipped counts them. Returns TFN_OK or
 * TFN_E_NOMEM (b's status set too). */
int tfn__batch_images(tfn__worker *w, tfn_pipeline_batch *b, uint64_t *skipped);

/* Checks the options' image stages and copies them into p (p->alloc set). */
int tfn__images_setup(struct tfn_pipeline *p, const tfn_pipeline_options *o, tfn_error *err);

/* One input of the interleave cycle. */
typedef struct tfn__cycle_slot {
    tfn_record_reader *reader; /* NULL: empty slot */
    size_t input;
} tfn__cycle_slot;

struct tfn_pipeline {
    tfn__alloc alloc;
    /* options (copied) */
    char **paths;           /* ninputs, or NULL */
    const tfn_bytes *buffers;
    char **names;           /* ninputs (entries may be NULL), or NULL */
    size_t ninputs;
    int compression;
    size_t buffer_size;
    size_t cycle_length, block_length;
    int deterministic;
    size_t batch_size;
    int drop_remainder;
    const tfn_spec *spec;
    unsigned parse_flags;
    int64_t max_rows;
    int masks;
    int on_damage, on_parse_error;
    int error_fills_batch;
    uint64_t max_record_size;
    tfn__image_stage *images; /* nimages */
    size_t nimages;

    /* reading: guarded by read_mu (one worker reads a whole batch at a time) */
    pthread_mutex_t read_mu;
    tfn__cycle_slot *cycle;
    size_t cycle_index, block_index, next_input, num_open;
    uint64_t next_seq;
    bool reading_done;
    uint64_t records_read;
    uint64_t closed_regions, closed_bytes; /* skipped in inputs already closed */

    /* hand-over: guarded by mu */
    pthread_mutex_t mu;
    pthread_cond_t cv_ready; /* a batch was placed, or the end is known */
    pthread_cond_t cv_space; /* room in the window, or stop */
    tfn_pipeline_batch **slots; /* window entries: finished batches */
    size_t window;              /* prefetch + workers */
    size_t outstanding;         /* batches reserved, being made, or waiting */
    uint64_t next_out;          /* deterministic: the seq handed out next */
    bool done;                  /* the inputs are exhausted; end_seq is known */
    uint64_t end_seq;           /* seqs below it are (or were) batches */
    int fatal;                  /* a worker could not get memory for a batch */
    tfn_error fatal_err;
    uint64_t batches_out, parse_skipped, image_skipped;
    /* the reading counters as of the last batch read (stats never wait for read_mu,
       which a worker stuck in I/O may hold) */
    uint64_t seen_records, seen_regions, seen_bytes;
    atomic_bool stop;
    size_t refs; /* under mu: the handle, plus each worker still running; the last
                    one out frees the pipeline (a worker stuck in I/O is let go) */

    tfn__worker *workers;
    size_t nworkers;
    tfn__batch_pool *pool;
};

/* Reads the next record in interleave order (caller holds read_mu) and, when `into`
 * is not NULL, appends it to that batch: copied once from the reader's buffer, its
 * CRC computed during the copy (tfn_record_reader_peek / take). With `into` NULL the
 * record is only consumed. TFN_END when every input is done. Errors are the reader's
 * (the failing input is closed), an open error, or TFN_E_NOMEM for the batch. */
int tfn__source_next(struct tfn_pipeline *p, tfn_pipeline_batch *into, tfn__origin *origin,
                     tfn_error *err);

/* Closes every open input (caller holds read_mu or is the last user). */
void tfn__source_close_all(struct tfn_pipeline *p);

/* Name of input i for messages (NULL for an unnamed buffer). */
const char *tfn__source_name(const struct tfn_pipeline *p, size_t i);

#endif /* TFN_PIPELINE_INTERNAL_H */

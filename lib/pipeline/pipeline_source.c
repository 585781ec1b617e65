/*
 * pipeline_source.c - the records of all inputs in the order of tf.data's
 * `interleave(cycle_length, block_length)` (InterleaveDatasetOp's loop): take
 * block_length records from the input at cycle_index, then move to the next position;
 * an empty position opens the next unopened input and reads from it at once; an input
 * that ends empties its position and the turn passes on.
 */
#define _GNU_SOURCE
#include "pipeline_internal.h"

#include <errno.h>
#include <sys/stat.h>

const char *tfn__source_name(const struct tfn_pipeline *p, size_t i)
{
    if (p->paths)
        return p->paths[i];
    return p->names ? p->names[i] : NULL;
}

static void advance_to_next_in_cycle(struct tfn_pipeline *p)
{
    p->block_index = 0;
    p->cycle_index = (p->cycle_index + 1) % p->cycle_length;
}

/* Bytes of input i from `offset` to its end, when that is known (uncompressed). */
static uint64_t bytes_after(const struct tfn_pipeline *p, size_t i, tfn_record_reader *r,
                            uint64_t offset)
{
    if (tfn_record_reader_compression(r) != TFN_COMPRESSION_NONE)
        return 0;
    uint64_t size = 0;
    if (p->paths) {
        struct stat st;
        if (stat(p->paths[i], &st) != 0 || st.st_size < 0)
            return 0;
        size = (uint64_t)st.st_size;
    } else {
        size = p->buffers[i].len;
    }
    return size > offset ? size - offset : 0;
}

static void close_slot(struct tfn_pipeline *p, tfn__cycle_slot *s)
{
    uint64_t regions = 0, bytes = 0;
    tfn_record_reader_skipped(s->reader, &regions, &bytes);
    p->closed_regions += regions;
    p->closed_bytes += bytes;
    tfn_record_reader_free(s->reader);
    s->reader = NULL;
    p->num_open--;
}

static int open_input(struct tfn_pipeline *p, size_t i, tfn_record_reader **out,
                      tfn_error *err)
{
    tfn_record_reader_options o;
    tfn_record_reader_options_init(&o);
    o.compression = p->compression;
    o.buffer_size = p->buffer_size;
    o.on_damage = p->on_damage;
    o.max_record_size = p->max_record_size;
    /* a long damaged region is scanned in slices, between which stop is checked */
    o.resync_slice = (uint64_t)4 << 20;
    if (p->paths)
        return tfn_record_reader_open(p->paths[i], &o, &p->alloc.a, out, err);
    o.name = p->names ? p->names[i] : NULL;
    return tfn_record_reader_open_mem(p->buffers[i].data, p->buffers[i].len, &o, &p->alloc.a,
                                      out, err);
}

/* The reader's next record into the batch (peek, room, take: one copy, the CRC
 * during it), or only consumed when `into` is NULL. */
static int read_record(tfn_record_reader *r, tfn_pipeline_batch *into, size_t *len,
                       bool *batch_full, tfn_error *err)
{
    *batch_full = false;
    if (!into) {
        const uint8_t *data;
        return tfn_record_reader_next(r, &data, len, err);
    }
    int rc = tfn_record_reader_peek(r, len, err);
    if (rc != TFN_OK)
        return rc;
    uint8_t *room = tfn__batch_room(into, *len);
    if (!room) {
        *batch_full = true;
        return tfn__fail(err, TFN_E_NOMEM, "out of memory for a batch of %zu records",
                         into->n + 1);
    }
    return tfn_record_reader_take(r, room, *len, len, err);
}

int tfn__source_next(struct tfn_pipeline *p, tfn_pipeline_batch *into, tfn__origin *origin,
                     tfn_error *err)
{
    for (;;) {
        if (atomic_load_explicit(&p->stop, memory_order_relaxed))
            return TFN_END;
        tfn__cycle_slot *s = &p->cycle[p->cycle_index];
        if (s->reader) {
            size_t len = 0;
            bool batch_full;
            int rc = read_record(s->reader, into, &len, &batch_full, err);
            if (batch_full)
                return rc; /* the batch's memory, not the input's fault: it stays open */
            if (rc == TFN_OK) {
                uint64_t end = tfn_record_reader_offset(s->reader);
                origin->input = s->input;
                origin->index = tfn_record_reader_index(s->reader) - 1;
                origin->offset = end >= len + 16u ? end - len - 16u : 0;
                if (into) {
                    rc = tfn__batch_commit(into, len, origin, err);
                    if (rc != TFN_OK)
                        return rc;
                }
                p->records_read++;
                if (++p->block_index == p->block_length)
                    advance_to_next_in_cycle(p);
                return TFN_OK;
            }
            if (rc == TFN_TIMEOUT)
                continue; /* mid-way through a damaged region: see stop, go on */
            if (rc == TFN_END) {
                close_slot(p, s);
                advance_to_next_in_cycle(p);
                continue;
            }
            /* Damage the reader could not skip (a truncated tail, a zlib error): with
             * SKIP it ends this input and counts as one region. */
            bool damage = rc == TFN_E_TRUNCATED || rc == TFN_E_DATA_LOSS ||
                          rc == TFN_E_DATA_LOSS_LENGTH || rc == TFN_E_CORRUPT;
            if (damage && p->on_damage == TFN_ON_DAMAGE_SKIP) {
                p->closed_regions++;
                p->closed_bytes += bytes_after(p, s->input, s->reader, err ? err->offset : 0);
                close_slot(p, s);
                advance_to_next_in_cycle(p);
                continue;
            }
            /* TensorFlow returns the error, then finds the input at its end on the next
             * call and moves on: the same as closing it now. */
            close_slot(p, s);
            advance_to_next_in_cycle(p);
            return rc;
        }
        if (p->next_input < p->ninputs) {
            size_t i = p->next_input++;
            int rc = open_input(p, i, &s->reader, err);
            if (rc < 0) {
                s->reader = NULL;
                advance_to_next_in_cycle(p);
                return rc;
            }
            s->input = i;
            p->num_open++;
            continue;
        }
        if (p->num_open == 0)
            return TFN_END;
        advance_to_next_in_cycle(p);
    }
}

void tfn__source_close_all(struct tfn_pipeline *p)
{
    if (!p->cycle)
        return;
    for (size_t i = 0; i < p->cycle_length; i++)
        if (p->cycle[i].reader)
            close_slot(p, &p->cycle[i]);
}

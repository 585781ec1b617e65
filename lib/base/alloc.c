/* alloc.c - the allocator indirection and the bump arena used by handles. */
#include "tfn_internal.h"

#include <stdlib.h>

static void *libc_malloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size);
}

static void *libc_realloc(void *ctx, void *p, size_t old_size, size_t new_size)
{
    (void)ctx;
    (void)old_size;
    return realloc(p, new_size);
}

static void libc_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

void tfn__alloc_init(tfn__alloc *dst, const tfn_alloc *user)
{
    if (user && user->malloc_fn && user->free_fn) {
        dst->a = *user;
    } else {
        dst->a.malloc_fn = libc_malloc;
        dst->a.realloc_fn = libc_realloc;
        dst->a.free_fn = libc_free;
        dst->a.ctx = NULL;
    }
}

void *tfn__malloc(const tfn__alloc *a, size_t size)
{
    return a->a.malloc_fn(a->a.ctx, size ? size : 1);
}

void *tfn__realloc(const tfn__alloc *a, void *p, size_t old_size, size_t new_size)
{
    if (a->a.realloc_fn)
        return a->a.realloc_fn(a->a.ctx, p, old_size, new_size ? new_size : 1);
    /* No realloc given: allocate, copy, free. */
    void *q = tfn__malloc(a, new_size);
    if (q && p)
        memcpy(q, p, old_size < new_size ? old_size : new_size);
    if (q)
        tfn__free(a, p);
    return q;
}

void tfn__free(const tfn__alloc *a, void *p)
{
    if (p)
        a->a.free_fn(a->a.ctx, p);
}

bool tfn__grow(const tfn__alloc *a, void **ptr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t new_cap = *cap ? *cap : 8;
    while (new_cap < need) {
        if (new_cap > SIZE_MAX / 2)
            return false;
        new_cap *= 2;
    }
    size_t old_bytes, new_bytes;
    if (!tfn__mul_size(new_cap, elem, &new_bytes) || !tfn__mul_size(*cap, elem, &old_bytes))
        return false;
    void *p = tfn__realloc(a, *ptr, old_bytes, new_bytes);
    if (!p)
        return false;
    *ptr = p;
    *cap = new_cap;
    return true;
}

/* ---------------------------------------------------------------- arena */

struct tfn__arena_chunk {
    tfn__arena_chunk *next;
    size_t size; /* usable bytes after the header */
    /* data follows, 16-byte aligned */
};

enum { CHUNK_HEADER = 16, MIN_CHUNK = 4096 };

void tfn__arena_init(tfn__arena *ar, const tfn__alloc *alloc)
{
    ar->alloc = alloc;
    ar->head = NULL;
    ar->used = 0;
}

static uint8_t *chunk_data(tfn__arena_chunk *c)
{
    return (uint8_t *)c + CHUNK_HEADER;
}

void *tfn__arena_alloc(tfn__arena *ar, size_t size)
{
    size_t rounded;
    if (!tfn__add_size(size, 7, &rounded))
        return NULL;
    rounded &= ~(size_t)7;
    if (ar->head && ar->head->size - ar->used >= rounded) {
        void *p = chunk_data(ar->head) + ar->used;
        ar->used += rounded;
        return p;
    }
    size_t want = ar->head ? ar->head->size * 2 : MIN_CHUNK;
    if (want < rounded)
        want = rounded;
    size_t total;
    if (!tfn__add_size(want, CHUNK_HEADER, &total))
        return NULL;
    tfn__arena_chunk *c = tfn__malloc(ar->alloc, total);
    if (!c)
        return NULL;
    c->size = want;
    c->next = ar->head;
    ar->head = c;
    ar->used = rounded;
    return chunk_data(c);
}

void tfn__arena_reset(tfn__arena *ar)
{
    /* Keep only the newest (largest) chunk: a warm loop then reuses it. */
    if (!ar->head)
        return;
    tfn__arena_chunk *c = ar->head->next;
    while (c) {
        tfn__arena_chunk *next = c->next;
        tfn__free(ar->alloc, c);
        c = next;
    }
    ar->head->next = NULL;
    ar->used = 0;
}

void tfn__arena_free(tfn__arena *ar)
{
    tfn__arena_chunk *c = ar->head;
    while (c) {
        tfn__arena_chunk *next = c->next;
        tfn__free(ar->alloc, c);
        c = next;
    }
    ar->head = NULL;
    ar->used = 0;
}

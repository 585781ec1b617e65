/*
 * varint_wide.h - packed varint runs decoded 64 bytes at a time with AVX2 (x86-64,
 * chosen at run time from the CPU's feature bits); elsewhere nothing is decoded and
 * the caller's scalar loop does all of it.
 */
#ifndef TFN_VARINT_WIDE_H
#define TFN_VARINT_WIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when tfn__varints_wide() decodes anything on this CPU. */
bool tfn__varints_wide_available(void);

/* Decodes the leading varints of the packed run [*p, end) into out[0..), at most
 * `max` of them, and advances *p past the last one decoded; returns how many. It
 * takes whole blocks of 64 bytes (the varints ending in them) while 72 bytes are left
 * and out has room for the block's values and 8 more, so the caller finishes the run
 * with its own loop. Varints of 5 to 10 bytes are decoded one at a time inside a
 * block; a longer one, or a block of continuation bytes only, stops it (the caller's
 * reader then decides). May write garbage into out[k] for k below `max` beyond the
 * count returned (the caller overwrites them); never reads at or past end, never
 * writes at or past out[max]. */
size_t tfn__varints_wide(const uint8_t **p, const uint8_t *end, int64_t *out, size_t max);

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * loss_summary.h - what a full ring buffer cost, thread by thread, and
 * the ring that would have held it, said after record's summary.
 */
#ifndef ETDUMP_LOSS_SUMMARY_H
#define ETDUMP_LOSS_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

struct collector;

/* threads named one by one; the others counted together */
#define LOSS_SUMMARY_THREADS 8
/* the ring suggested: this many times the one that lost records */
#define LOSS_SUMMARY_GROWTH 4
/* the largest ring record accepts (--ring-size) */
#define LOSS_SUMMARY_MAX_RING (1ull << 30)

/*
 * After collector_close(): the threads whose runs were left out because
 * the ring lost records, the most hit first, then (drops non-zero) the
 * --ring-size to try; ring_bytes 0: the ring's size is not known.
 */
void loss_summary_say(const struct collector *c, uint64_t drops,
		      uint64_t ring_bytes);
/* "32M": a power of two in K, M or G, as --ring-size takes it. */
void loss_summary_size(uint64_t bytes, char *buf, size_t len);

#endif

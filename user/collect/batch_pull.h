/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * batch_pull.h - what threads hold in their batched buffers, read from
 * the process's memory: a run that ended since a thread's last flush is
 * seen while the thread idles, and what threads hold when the recording
 * stops is not lost. Each buffer read becomes a batch record
 * (ETDUMP_REC_F_PULLED) for the same path as the ring's, raw capture
 * included, so that a later flush of the same buffer repeats nothing.
 */
#ifndef ETDUMP_BATCH_PULL_H
#define ETDUMP_BATCH_PULL_H

#include <stddef.h>
#include "collect/batch_threads.h"

typedef int (*batch_pull_fn)(void *ctx, const void *rec, size_t len);

/*
 * Every known thread's buffer past what was taken of it, through fn, of
 * the threads whose last flush is `idle_ns` or more before `now` (a busy
 * thread's buffer comes whole soon: read now, a flush of it the ring then
 * lost would be counted lost whole); a thread gone, a buffer being flushed
 * or a process that cannot be read gives nothing. 0 or fn's error.
 */
int batch_pull(const struct batch_threads *bt, uint64_t now, uint64_t idle_ns,
	       batch_pull_fn fn, void *ctx);

#endif /* ETDUMP_BATCH_PULL_H */

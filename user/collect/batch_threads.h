/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * batch_threads.h - what the recorder has of each thread's batched buffers:
 * which buffer (its sequence number) and how far into it, so that a flush
 * repeats nothing the recorder read from the process before (an idle
 * thread's buffer, read at the end or while it idles), and where the
 * buffer lives, to read it. A thread has a buffer in each copy of the
 * runtime it runs (two libraries carrying the probes, each its own
 * thread-local buffer): an entry is a buffer, found by its thread and its
 * address, so that one copy's flushes never move how far another's came.
 */
#ifndef ETDUMP_BATCH_THREADS_H
#define ETDUMP_BATCH_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct batch_thread {
	uint32_t pid;
	uint32_t tid;       /* the writer of the buffer; 0: a free slot */
	uint64_t addr;      /* its buffer in the process: with tid, the key */
	uint64_t seq;       /* the last buffer taken from */
	uint32_t taken;     /* bytes of its records taken */
	uint32_t skipped;   /* runs it said were left out (--every) */
	bool lent;          /* its memory is a vfork child's too: not read */
	uint64_t flushed_at; /* its last flush's time (CLOCK_MONOTONIC ns) */
	uint32_t read_events; /* events of buffer `seq` read from the process,
			       * of which no flush came yet */
};

struct batch_threads {
	struct batch_thread *slot;
	size_t cap;         /* a power of two, or 0 */
	size_t n;
};

void batch_threads_init(struct batch_threads *bt);
void batch_threads_free(struct batch_threads *bt);

/* A buffer of a thread's, as its head describes it. */
struct batch_buffer {
	uint32_t pid, tid;
	uint64_t addr, seq;
	uint32_t len;       /* bytes of records */
	uint32_t skipped;   /* runs left out in it */
	uint64_t flushed_at; /* a flush's time; 0: read from the process */
	uint32_t nevents;   /* ETDump events in it */
};

/*
 * 0 and *skip, the bytes of its records taken before (they are the
 * recorder's already), *skipped_new, the runs left out it says of that
 * the recorder has not counted; 1 when it holds nothing new; -ENOMEM.
 * *read_lost: the events of an earlier buffer read from the process whose
 * flush never came (the ring lost it, and the kernel counted them lost
 * with the rest of it, though they were written).
 */
int batch_threads_take(struct batch_threads *bt, const struct batch_buffer *b,
		       uint32_t *skip, uint32_t *skipped_new,
		       uint32_t *read_lost);

/*
 * The thread's memory is shared with a vfork child (lent), or the child
 * left: the records its buffer holds as `b` says are not the thread's.
 */
int batch_threads_lend(struct batch_threads *bt, const struct batch_buffer *b,
		       bool lent);

/* The entry of the thread's buffer at addr, or NULL. */
const struct batch_thread *batch_threads_find(const struct batch_threads *bt,
					      uint32_t tid, uint64_t addr);

#endif /* ETDUMP_BATCH_THREADS_H */

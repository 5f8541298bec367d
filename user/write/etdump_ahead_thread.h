/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * etdump_ahead_thread.h - a long run's events written into the ETDump on
 * a thread of their own, while the recorder goes on reading the ring.
 *
 * At millions of events a second the recorder's one thread both reads
 * the ring and builds the file, and the ring fills while it builds. Put
 * in front of an etdump_stream as collector_set_ahead()'s taker, this
 * copies each chunk of a run that goes ahead into a free buffer of its
 * own and queues it; its thread writes the chunks in the order taken.
 * Everything else that touches the stream (a run's end, the file) is
 * done by the caller after etdump_ahead_thread_wait(), the queue empty,
 * so the stream is only ever used by one thread at a time.
 */
#ifndef ETDUMP_AHEAD_THREAD_H
#define ETDUMP_AHEAD_THREAD_H

#include "model/run_log.h"
#include "write/etdump_log_writer.h"

struct etdump_ahead_thread;

/*
 * A thread writing ahead into es, in chunks of `every` events
 * (collector_set_ahead()'s), its buffers and the stream's first MiBs
 * backed now: at the start of a recording of a busy process the ring
 * fills fastest, while fresh memory would slow the recorder most. A
 * negative errno.
 */
int etdump_ahead_thread_start(struct etdump_ahead_thread **out,
			      struct etdump_stream *es, size_t every);
/*
 * A long run's events go ahead in chunks of this many: 192 KiB of them
 * held (48 bytes each), reused, where a run of millions would hold fresh
 * memory for all, and still in the cache when they are written. record
 * and convert take the same, so that they build the same file.
 */
#define ETDUMP_AHEAD_EVENTS 4096
/*
 * The collector's log whose runs, the ones that ended before a chunk, are
 * written before the chunk is taken: the file is then built in the order
 * of the records, the same whenever the caller drains.
 */
void etdump_ahead_thread_follow(struct etdump_ahead_thread *t,
				struct run_log *log);
/*
 * collector_set_ahead()'s taker and drop, for the stream the thread
 * writes: r is copied (r->events and r->meta; a chunk holding full
 * events is written at once, after the queue, as they are the
 * collector's). The thread's first error comes back from the next take.
 */
int etdump_ahead_thread_take(void *ctx, struct run_view *r);
void etdump_ahead_thread_drop(void *ctx, const struct run_view *r);
/* Once every chunk taken is written: the thread's first error, or 0. */
int etdump_ahead_thread_wait(struct etdump_ahead_thread *t);
/*
 * etdump_stream_drain() of the stream, once every chunk taken is written
 * when a run ended (a run's end takes its refs of the chunks); a
 * negative errno, the thread's first error included.
 */
int etdump_ahead_thread_drain(struct etdump_ahead_thread *t,
			      struct run_log *log, bool all);
/* Wait, end the thread and free it; NULL is fine. */
void etdump_ahead_thread_stop(struct etdump_ahead_thread *t);

#endif /* ETDUMP_AHEAD_THREAD_H */

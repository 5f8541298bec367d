/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * collector_state.h - the collector's state (collector.h), shared by its
 * files and no other: collector_feed.c (records in, the runs out),
 * collector_scopes.c (the per-scope probes' records) and collector_runs.c
 * (events into runs).
 */
#ifndef ETDUMP_COLLECTOR_STATE_H
#define ETDUMP_COLLECTOR_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "collect/batch_threads.h"
#include "collect/collector.h"
#include "collect/rec_fields.h"
#include "collect/value_capture.h"
#include "lib/strtab.h"
#include "model/run_log.h"
#include "schema/etdump_record.h"

struct scope {
	bool delegate;
	uint64_t token;
	const char *name;       /* interned */
	int32_t chain;
	int32_t instr;
	int64_t id_int;
	uint64_t start;
	/*
	 * The thread's losses when it began (loss_epoch): an end after a later
	 * loss may close another instance of the scope (this one's end lost,
	 * the other's begin), and its ids may come from a state lost.
	 */
	uint32_t loss_epoch;
	bool ids_lost;
	/* counters as read at begin */
	uint32_t cpu;
	uint8_t ncounters;
	uint64_t switches;
	struct etdump_counter_sample counters[ETDUMP_MAX_COUNTERS];
};

/* An event of a thread with no run open, and when it was written. */
struct held_event {
	struct etd_event ev;    /* names interned, metadata owned */
	uint64_t at;
};

/*
 * A thread's records of one stream: the per-scope probes' (stream 0), or a
 * batched buffer's (its address). Each copy of the runtime a thread runs
 * (two libraries carrying the probes) keeps a buffer of its own there and
 * flushes it when it fills (mid-run) or a run ends late enough, so one
 * copy's run may arrive in parts with the other's between: each stream
 * keeps its own scopes, run and losses, and is named as its thread is.
 */
struct thread_state {
	uint32_t tid;
	uint64_t stream;
	/* its comm as its last THREAD_NAME record said, or "" */
	char name[ETDUMP_THREAD_NAME_LEN];
	/*
	 * The note its runs' outermost events carry (run_note_thread_text()),
	 * made once, not at every run: valid while note_gen is the
	 * collector's (0: never)
	 */
	char note[256];
	size_t note_len;
	uint32_t note_gen;
	int32_t chain;          /* instruction state, as ETDumpGen keeps it */
	int32_t instr;
	bool in_run;            /* run holds the run open on this thread */
	bool had_block;         /* opened a run since the capture started */
	bool mid_run;           /* ended a scope begun before the capture */
	bool after_gap;         /* probes were away since its last block */
	bool lost_at_end;       /* the ring lost its records after its last */
	bool lost_tail_clean;   /* ... the first of them a block (LOST_TAIL) */
	bool state_lost;        /* an instruction record may have been lost */
	uint32_t loss_epoch;    /* losses the ring flagged for the thread */
	bool flush_lost;        /* a flush before the one being expanded */
	bool flush_lost_block;  /* ... holding a block */
	bool flush_lost_clean;  /* ... first: none of the open run's */
	bool worker;            /* gave events to another thread's run */
	size_t run_allocations; /* allocation events in the open run */
	size_t ahead_events;    /* of the open run, sent ahead (c->on_ahead) */
	uint64_t lost_runs;     /* runs left out: the ring lost some of each */
	uint64_t lost_received; /* ... their events that did arrive */
	struct run_view run;
	size_t events_cap, meta_cap, full_cap;
	struct scope *stack;
	size_t depth;
	size_t cap;
	/*
	 * Events of a thread that has opened no run: a worker's (it never
	 * opens one) go into the run open in the process when they were
	 * written, as ETDumpGen's one current block takes them; a thread
	 * that opens a run later, or ends a scope begun before the capture,
	 * was attached mid-run, and they are lost.
	 */
	struct held_event *held;
	size_t nheld;
	size_t held_cap;
};

struct collector {
	struct run_log *log;    /* the complete runs */
	struct strtab *names;
	collector_run_fn on_run; /* where a complete run goes; NULL: log */
	void *on_run_ctx;
	collector_run_fn on_ahead; /* collector_set_ahead() */
	collector_drop_fn on_drop;
	void *ahead_ctx;
	size_t ahead_every;
	collector_event_fn on_event; /* sees every event, in a run or not */
	void *on_event_ctx;
	uint64_t runs_opened;
	struct thread_state *threads;
	size_t nthreads;
	size_t last;            /* most threads send long bursts */
	struct collector_stats stats;
	uint64_t events_seen;
	/* the name of the batched record fed now, interned with its flush */
	const char *flush_name;
	uint64_t flush_stream;  /* the buffer feed_batched() is given now */
	uint64_t min_ts;        /* every probe in place: runs open after it */
	/* the kernel's clock as lines of the counter, in the order read */
	struct etdump_rec_clock *lines;
	size_t nlines;
	bool gapped;            /* collector_gap() was called */
	char *run_note;         /* collector_set_run_note() */
	uint32_t note_gen;      /* changes with run_note: threads' notes stale */
	uint32_t ncounters;
	char *counter_names[ETDUMP_MAX_COUNTERS];
	uint8_t counter_kind[ETDUMP_MAX_COUNTERS];
	struct value_capture *values;  /* record --values: made at the first */
	char **allocators;      /* track_allocator's names, by id - 1 */
	uint32_t nallocators;
	struct batch_threads batches; /* how far each thread's buffers came */
};

/* collector_feed.c */
/* A bounded name from a record, interned, made valid UTF-8 for flatc. */
const char *collector_name_intern(struct collector *c, const char *name,
				  uint16_t len);

/* collector_runs.c */
/* A copy of a string the event only borrows; NULL stays NULL. */
int collector_own_str(char **s);
/* What a held event owns that no run took: its metadata copy, its value. */
void collector_event_unowned_free(struct etd_event *ev);
/* The thread's held events dropped: no run will take them. */
/* The ring lost records of the thread since scope s began. */
static inline bool scope_spans_loss(const struct thread_state *t,
				    const struct scope *s)
{
	return s->loss_epoch != t->loss_epoch;
}

/*
 * Where a thread's leftovers are counted: after record --duty took the
 * probes away, until its next block, they are the cut runs'.
 */
static inline uint64_t *collector_leftover(struct collector *c,
					   const struct thread_state *t,
					   uint64_t *stat)
{
	return t->after_gap ? &c->stats.cut_events : stat;
}

void collector_held_drop(struct collector *c, struct thread_state *t);
/* The thread's name from its THREAD_NAME record. */
static inline void collector_thread_named(struct thread_state *t,
					  const struct etdump_rec_thread_name *r)
{
	memcpy(t->name, r->name, sizeof(t->name));
	t->name[sizeof(t->name) - 1] = '\0';
	t->note_gen = 0;
}
/* `at`: when the event was written (its end, or its log). */
int collector_add_event(struct collector *c, struct thread_state *t,
			struct etd_event *ev, uint64_t at);
/*
 * The thread's run is over (a new block at `until`, or the end of the
 * capture): a run with events goes to the sink, the buffers stay for the
 * next. One the ring lost records of is left out.
 */
int collector_close_run(struct collector *c, struct thread_state *t,
			uint64_t until);
/* Drop the thread's open run: a scope is still open in it. */
void collector_discard_run(struct collector *c, struct thread_state *t);

/* collector_scopes.c */
/* a ring record's fields or a batched flush's (rec_fields.h) */
int collector_on_block(struct collector *c, struct thread_state *t,
		       const struct rec_fields *r);
int collector_on_begin(struct collector *c, struct thread_state *t,
		       const struct rec_fields *r);
int collector_on_end(struct collector *c, struct thread_state *t,
		     const struct rec_fields *r);
int collector_on_delegate_log(struct collector *c, struct thread_state *t,
			      const struct rec_fields *r);
/* record --values: a DebugEvent in the thread's run when one is whole */
int collector_on_value(struct collector *c, struct thread_state *t,
		       const struct etdump_rec_hdr *h);
/*
 * record --allocations: an allocation event where the thread is, with the
 * instruction state and the time (not schema fields of AllocationEvent:
 * for report --memory and the timeline); the ETDump writer leaves them out
 * unless asked (etd_dump.with_allocations).
 */
int collector_on_allocation(struct collector *c, struct thread_state *t,
			    const struct etdump_rec_allocation *r);
/* Ids from 1, as the tracer numbers them: a run's allocators are these. */
int collector_on_allocator(struct collector *c,
			   const struct etdump_rec_allocator *r);
/* Every run names the allocators the recording saw (NULL: unnamed). */
void collector_name_allocators(struct collector *c, struct etd_run *run);

#endif /* ETDUMP_COLLECTOR_STATE_H */

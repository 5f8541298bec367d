/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * collector.h - turn the record stream (schema/etdump_record.h), live from
 * the ring buffer or read back from a raw capture, into the runs and events
 * ETDumpGen would have written for the same execution.
 *
 * Rules, as ETDumpGen applies them within one thread:
 *  - a `block` record opens a new run on its thread; each thread's runs are
 *    its own, and runs come out ordered by the time they were opened;
 *  - a scope's event is written when it ends (inner scopes first), with the
 *    chain/instruction given at begin, or the thread's instruction state
 *    when begin passed chain -1;
 *  - delegate-logged events are written when logged;
 *  - a batched-mode flush is first turned into the records the per-scope
 *    probes would have sent (user/collect/batch.h), so both modes give one result.
 * And where a capture differs from a whole process lifetime:
 *  - events of a thread that never opens a block (a worker of a pool) go
 *    into the run opened last, on any thread, before they were written
 *    (ETDumpGen's one current block), after that run's own events;
 *  - events a thread produces before its first block, when it opens one
 *    later (attached mid-run), are not written, and counted as
 *    outside_run;
 *  - an end whose begin was not seen is counted as unmatched_end;
 *  - a run whose thread still has a scope open when the capture ends, one
 *    opened in that run (the target died or recording stopped
 *    mid-execution), is incomplete: it is left out and counted, so every
 *    run in the file is whole;
 *  - a run that lost records in the ring (the kernel flags the thread's
 *    next record) is left out and counted, and so is the run the thread
 *    was in when it lost a block: what follows is never merged into it;
 *  - a scope never closed (an early return) is lost and counted as
 *    unclosed: when a later end of an outer scope skips over it, or when
 *    the capture ends with it open from an earlier run. The runs around it
 *    are kept.
 */
#ifndef ETDUMP_COLLECTOR_H
#define ETDUMP_COLLECTOR_H

#include <stddef.h>
#include <stdint.h>
#include "model/etdump_model.h"
#include "model/run_log.h"

struct collector;

struct collector_stats {
	uint64_t records;         /* records fed */
	uint64_t events;          /* events in the runs kept */
	uint64_t runs;            /* runs kept */
	uint64_t incomplete_runs; /* left out: a scope was still open */
	uint64_t empty_runs;      /* left out: no event at all */
	uint64_t lost_runs;       /* left out: the ring lost some of it */
	uint64_t outside_run;     /* events before the thread's first block */
	uint64_t unmatched_ends;  /* ends whose begin was not captured */
	uint64_t unclosed_scopes; /* begins never ended: lost */
	uint64_t bad_records;     /* malformed or of unknown type */
	uint64_t truncated;       /* names or metadata cut to the bound */
	uint64_t unreadable;      /* names the probe could not read */
	uint64_t stale;           /* batched records from before this capture */
	uint64_t lost_in_flush;   /* batched records the tracer could not read */
	uint64_t old_batch_layout; /* flushes of an older etdump_usdt.h */
	uint64_t counter_flushes; /* stamped with the CPU's counter */
	uint64_t flushes_on_line; /* ... turned into the clock on the kernel's
				   * own line (ETDUMP_REC_CLOCK) */
	uint64_t flushes_between_anchors; /* ... between their anchors */
	uint64_t pulled;          /* buffers read from the process */
	uint64_t runs_skipped;    /* left out by the runtime (record --every) */
	uint64_t cut_runs;        /* left out: cut by a detach or an attach
				   * (collector_gap()) */
	uint64_t cut_events;      /* their events, begins and ends not in a
				   * run, counted here, not as outside_run,
				   * unmatched_ends or unclosed_scopes */
	uint64_t read_then_lost;  /* events the kernel counted lost with a
				   * buffer the recorder had read before */
	uint64_t worker_events;   /* of threads with no run: in another's */
	uint32_t worker_threads;  /* threads that opened no run */
	uint32_t threads;         /* threads seen */
	uint64_t allocations;     /* track_allocation records */
	uint64_t doubtful_unowned; /* of threads with no run, around a loss */
	uint64_t left_out;        /* every event received and not written */
};

struct collector *collector_new(void);
struct batch_threads;
/* Each thread's batched buffers: where they are, how far they came. */
const struct batch_threads *collector_batch_threads(const struct collector *c);
/*
 * The counters the records carry (enum etdump_counter_kind each), so that
 * scope events get their deltas; the names go into the dump.
 */
int collector_set_counters(struct collector *c, const char *const *names,
			   const uint8_t *kinds, uint32_t n);
/*
 * When the capture started, every probe attached (CLOCK_MONOTONIC ns): a
 * run opened earlier is left out (its events count as outside any run),
 * and batched records stamped earlier, which sat in a runtime's buffer
 * from a previous attach, are left out and counted as stale.
 */
void collector_set_start(struct collector *c, uint64_t ts);
/*
 * Metadata for the outermost framework event of each run (the scope that
 * ends a run's work): symbol mode says there how much of its probes' own
 * time it took out. Copied; -ENOMEM.
 */
int collector_set_run_note(struct collector *c, const char *text);
/* collector_set_run_note()'s text, or NULL. */
const char *collector_run_note(const struct collector *c);
/*
 * record --duty, before its probes are taken away and once more after,
 * every record they sent fed each time: a run with a scope still open was
 * cut, and is left out and counted (cut_runs); a whole one is closed.
 * Until its next block a thread is as at the start of a capture (what it
 * sends is outside any run, and the run it was in when the probes came
 * back counts as cut). Runs opened before collector_set_start()'s time
 * count as cut from now on. -ENOMEM.
 */
int collector_gap(struct collector *c);
/* One record; -EINVAL for a malformed one (also counted), -ENOMEM. */
int collector_feed(struct collector *c, const void *rec, size_t len);
/* Runs so far (including the one open on each thread); cheap. */
uint64_t collector_runs_seen(const struct collector *c);
uint64_t collector_events_seen(const struct collector *c);
/*
 * Close the capture: move every complete run, in time order, into *out
 * (which must be zeroed) and fill *stats. The collector can then only be
 * freed.
 */
int collector_finish(struct collector *c, struct etd_dump *out,
		     struct collector_stats *stats);
void collector_free(struct collector *c);
/*
 * record --values: the DebugEvents' debug buffer and counts
 * (value_capture.h); NULL when no value was recorded. Valid until freed.
 */
struct value_capture;
const struct value_capture *collector_values(const struct collector *c);

/*
 * Where each complete run goes as it completes (its thread opened the
 * next, or the capture closed); by default into the collector's log. The
 * run's pointers are valid during the call only (its names as long as the
 * collector); it may take the full events by setting r->nfull to 0.
 */
typedef int (*collector_run_fn)(void *ctx, struct run_view *r);
/*
 * Every event as it ends, in a run or not (a live view); names interned.
 * The thread it ended on: its id and its name ("" when none was said),
 * valid during the call.
 */
typedef void (*collector_event_fn)(void *ctx, const struct etd_event *ev,
				   uint32_t tid, const char *thread);
void collector_set_event_hook(struct collector *c, collector_event_fn fn,
			      void *ctx);
void collector_set_run_sink(struct collector *c, collector_run_fn fn,
			    void *ctx);
/*
 * Where a long open run's events go ahead of its end (the ETDump being
 * built as runs complete), so that the run never holds more than `every`
 * events in memory: each time it does, ahead(ctx, r) takes them (r holds
 * only those; its tid and open_time say which run) and the run keeps what
 * follows, its complete part then going to the log as before. drop(ctx, r)
 * is told of a run some of whose events went ahead and that was then lost
 * or left incomplete. For the log only (no run sink): the default is off.
 */
typedef void (*collector_drop_fn)(void *ctx, const struct run_view *r);
void collector_set_ahead(struct collector *c, collector_run_fn ahead,
			 collector_drop_fn drop, void *ctx, size_t every);
/*
 * Close the capture without building an etd_dump: every complete run goes
 * to the sink (or the log), *stats filled. Then collector_log() holds the
 * runs, in the order they completed, for a writer that streams them
 * (etdump_log_writer.h); their names live as long as the collector.
 */
int collector_close(struct collector *c, struct collector_stats *stats);
/*
 * After collector_close(): the log's runs as one etd_dump, in time order,
 * the log left empty (what collector_finish() gives). -ENOMEM.
 */
int collector_dump_log(struct collector *c, struct etd_dump *out);
struct run_log *collector_log(struct collector *c);
/*
 * After collector_close(): each thread that had runs left out because the
 * ring lost some of their records, with how many, and how many of their
 * events did arrive (the kernel counts its drops for the whole ring).
 */
typedef void (*collector_loss_fn)(void *ctx, uint32_t tid, uint64_t runs,
				  uint64_t received);
void collector_each_loss(const struct collector *c, collector_loss_fn fn,
			 void *ctx);
const char *const *collector_counter_names(const struct collector *c,
					   uint32_t *n);

#endif /* ETDUMP_COLLECTOR_H */

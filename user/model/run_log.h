/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_log.h - the complete runs of a recording, held compactly until they
 * are written: 48 bytes an event, names as interned pointers (strtab.h),
 * delegate metadata in one block per run, in big mapped slabs that are
 * handed back to the system as soon as their runs are written. Events the
 * compact form cannot hold (counters, debug values) stay whole etd_events.
 */
#ifndef ETDUMP_RUN_LOG_H
#define ETDUMP_RUN_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/etdump_model.h"

enum {
	PACKED_DELEGATE = 1,  /* str is the delegate's string id; has metadata */
	PACKED_FULL = 2,      /* the event is full[aux] of its run */
	/* str is the name of a framework event with metadata (a run's note) */
	PACKED_NOTE = 4,
};

struct packed_event {
	uint64_t start;
	uint64_t end;
	const char *str;      /* name, or delegate string id; interned */
	int32_t chain;
	int32_t instr;
	int32_t id_int;       /* delegate int id */
	uint32_t aux;         /* metadata offset in the run's meta, or full index */
	uint16_t meta_len;
	uint8_t flags;
};

/* A run: the collector's open one, or one of a log. */
struct run_view {
	const char *name;     /* interned */
	uint32_t tid;
	uint64_t open_time;
	struct packed_event *events;
	size_t nevents;
	uint8_t *meta;
	size_t meta_len;
	struct etd_event *full;  /* owned by the run */
	size_t nfull;
	bool lost_events;        /* the ring lost some: never logged */
};

/* A compact event that is not PACKED_FULL, by its parts. */
void packed_event_profile(const struct run_view *r,
			  const struct packed_event *p, struct etd_profile *out);
/* The etd_event a packed one stands for, its pointers borrowed from r. */
void packed_event_view(const struct run_view *r, const struct packed_event *p,
		       struct etd_event *out);
/* Wall time of a run: its first event's start to its last event's end. */
uint64_t run_view_span(const struct run_view *r);

struct run_log;

struct run_log *run_log_new(void);
/*
 * Copy the run in; its full events move with it (r->nfull is set to 0,
 * the array r->full stays the caller's). -ENOMEM.
 */
int run_log_append(struct run_log *l, struct run_view *r);
/*
 * The same, but a run of many events, whose events head a 2 MiB-aligned
 * mapping of `mapped` bytes (grow_array.h; 0: they do not), takes that
 * mapping's pages instead of a copy: r->events is NULL after, the mapping
 * the log's. A long run is then not in fresh memory twice.
 */
int run_log_append_taking(struct run_log *l, struct run_view *r,
			  size_t mapped);
size_t run_log_runs(const struct run_log *l);
size_t run_log_events(const struct run_log *l);
/* Bytes held (slabs, full events not counted). */
size_t run_log_bytes(const struct run_log *l);

typedef int (*run_log_fn)(void *ctx, struct run_view *r);
/*
 * Every run in the order appended; with drain, each slab is returned to
 * the system once its runs were visited, and the log is left empty: fn
 * takes a run's full events by setting r->nfull to 0, else they are
 * freed. Stops at fn's first error (a drained log is then only to free).
 */
int run_log_each(struct run_log *l, bool drain, run_log_fn fn, void *ctx);
/*
 * run_log_each, and with drain each slab's mapping goes to give(ctx, mem,
 * len), which owns it from then on, instead of being unmapped: the writer
 * grows into those pages rather than fresh ones.
 */
typedef void (*run_log_pages_fn)(void *ctx, void *mem, size_t len);
int run_log_drain_to(struct run_log *l, bool drain, run_log_fn fn, void *ctx,
		     run_log_pages_fn give);
/*
 * The runs of the oldest slab only, then the slab as run_log_drain_to()
 * leaves it; the last slab, which appends fill, only with last_too. 1 when
 * a slab was drained, 0 when none was ready, or fn's error (the slab is
 * drained all the same). Without give, a drained slab is kept (one at
 * most) for the runs appended next, its pages already there.
 */
int run_log_drain_slab(struct run_log *l, bool last_too, run_log_fn fn,
		       void *ctx, run_log_pages_fn give);
void run_log_free(struct run_log *l);

#endif /* ETDUMP_RUN_LOG_H */

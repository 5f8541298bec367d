/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dump_builder.h - ETDumps built in memory for the report tests: runs,
 * profile, delegate and debug events in a line each. Allocation failures
 * abort: a test cannot go on without its input.
 */
#ifndef DUMP_BUILDER_H
#define DUMP_BUILDER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/etdump_model.h"

static inline char *db_strdup(const char *s)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		abort();
	return d;
}

static inline struct etd_run *db_run(struct etd_dump *d, const char *name)
{
	struct etd_run *run;

	if (etd_dump_add_run(d, name, &run))
		abort();
	return run;
}

/* A run whose events vector is present but empty. */
static inline struct etd_run *db_empty_run(struct etd_dump *d,
					   const char *name)
{
	struct etd_run *run = db_run(d, name);

	run->events = calloc(1, sizeof(*run->events));
	if (!run->events)
		abort();
	run->cap = 1;
	return run;
}

static inline struct etd_event *db_add(struct etd_run *run,
				       const struct etd_event *ev)
{
	if (etd_run_add_event(run, ev))
		abort();
	return &run->events[run->nevents - 1];
}

static inline struct etd_event *db_profile(struct etd_run *run,
					   const char *name, int32_t chain,
					   int32_t instr, uint64_t start,
					   uint64_t end)
{
	struct etd_event ev;

	etd_event_init(&ev, ETD_PROFILE);
	ev.name = db_strdup(name);
	ev.chain_index = chain;
	ev.instruction_id = instr;
	ev.start_time = start;
	ev.end_time = end;
	return db_add(run, &ev);
}

/* A delegate's event: a string id, or id_str NULL and an int id. */
static inline struct etd_event *db_delegate(struct etd_run *run,
					    const char *id_str,
					    int32_t id_int, int32_t instr,
					    uint64_t start, uint64_t end)
{
	struct etd_event *ev = db_profile(run, NULL, 0, instr, start, end);

	ev->delegate_id_str = db_strdup(id_str);
	ev->delegate_id_int = id_int;
	return ev;
}

/* An Int debug value; output marks a program output. */
static inline struct etd_event *db_debug(struct etd_run *run,
					 const char *name, uint64_t chain,
					 int32_t instr, bool output)
{
	struct etd_event ev;

	etd_event_init(&ev, ETD_DEBUG);
	ev.name = db_strdup(name);
	ev.debug_chain_index = chain;
	ev.instruction_id = instr;
	ev.debug_entry = calloc(1, sizeof(*ev.debug_entry));
	if (!ev.debug_entry)
		abort();
	ev.debug_entry->type = ETD_VALUE_INT;
	ev.debug_entry->int_val = 42;
	ev.debug_entry->has_output = output;
	ev.debug_entry->output = output;
	return db_add(run, &ev);
}

static inline void db_counters(struct etd_dump *d, const char *a,
			       const char *b)
{
	d->counter_names[0] = db_strdup(a);
	d->counter_names[1] = db_strdup(b);
	d->ncounters = 2;
}

/* Counter values of one event; ~0 marks an invalid one. */
static inline void db_event_counters(struct etd_event *ev, uint64_t a,
				     uint64_t b)
{
	ev->counters.n = 2;
	ev->counters.value[0] = a == ~0ull ? 0 : a;
	ev->counters.valid[0] = a != ~0ull;
	ev->counters.value[1] = b == ~0ull ? 0 : b;
	ev->counters.valid[1] = b != ~0ull;
}

#endif /* DUMP_BUILDER_H */

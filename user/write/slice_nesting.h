/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slice_nesting.h - how a recording's runs and profile events nest on
 * their threads, derived from their times alone (an ETDump stores no
 * parent): the timeline (chrome_writer.c) draws it, the profile
 * (pprof_samples.c) turns it into stacks. One walk for both, so that a
 * flame graph and a timeline of one file never disagree on who called whom.
 */
#ifndef ETDUMP_SLICE_NESTING_H
#define ETDUMP_SLICE_NESTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/etdump_model.h"

/* A run or a profile event as it nests on its thread. */
struct nest_slice {
	uint64_t start, end;
	uint32_t tid;
	size_t run;
	size_t ev;              /* NEST_RUN: the run itself */
	bool parent;            /* encloses another slice (set by the walk) */
};

#define NEST_RUN SIZE_MAX

/*
 * Every run (spanning the events on its own thread) and every profile
 * event, sorted as the walk needs them: by thread, then start, a run
 * before its events, what lasts no time before the rest, the longer
 * first. A pool worker's event is on its own thread (etd_event.tid).
 * A run of debug events only, with no time of its own, is left out.
 */
int nest_collect(const struct etd_dump *dump, struct nest_slice **out,
		 size_t *n);

/*
 * Called as each slice opens and closes, with the slices open around it:
 * stack[0..depth) indexes v, outermost first. A non-zero return stops the
 * walk and is returned.
 */
struct nest_visitor {
	int (*begin)(void *ctx, struct nest_slice *v, const size_t *stack,
		     size_t depth, size_t i);
	int (*end)(void *ctx, struct nest_slice *v, const size_t *stack,
		   size_t depth, size_t i);
	void *ctx;
};

/*
 * Walk the sorted slices with a stack of the open ones: a slice closes
 * when the next one does not fit inside it. A slice that starts inside
 * another but ends after it (no scope does that; a damaged or foreign
 * file may) is cut at its parent's end, so that every reader nests the
 * file the same way; *clipped counts them. 0, -ENOMEM or the visitor's.
 */
int nest_walk(struct nest_slice *v, size_t n, const struct nest_visitor *vis,
	      size_t *clipped);

#endif /* ETDUMP_SLICE_NESTING_H */

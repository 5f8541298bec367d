/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pprof_samples.h - a recording as a profile's samples: each profile
 * event is a stack, its block (the run's name) at the root, then the
 * events open around it on its thread (Method::execute, OPERATOR_CALL
 * with its instruction, ...), itself at the leaf, nested by their times as
 * the timeline nests them (slice_nesting.h).
 *
 * A sample's values are the event's own: 1 event, and its wall time and
 * each counter's delta less those of the events inside it. So pprof's
 * flat column is an event's self time, and its cum column (the samples
 * with the event anywhere in their stack) adds back its children: an
 * operator's cum is the sum of its durations, what report sums. Where
 * events of several threads share a track and overlap (an ETDump keeps no
 * thread), a parent's own wall time can come out below 0 so that every
 * cum stays that sum. The samples of one stack, run and thread are added
 * into one.
 */
#ifndef ETDUMP_PPROF_SAMPLES_H
#define ETDUMP_PPROF_SAMPLES_H

#include <stddef.h>
#include <stdint.h>
#include "model/etdump_model.h"
#include "write/string_index.h"

/* A stack, as its leaf frame below the stack that calls it. */
struct pprof_stack {
	uint32_t parent;        /* a stack id; 0: the leaf is the root */
	uint32_t frame;         /* a frame: its name's number in frames */
};

struct pprof_sample {
	uint32_t stack;         /* id: index in stacks + 1 */
	uint32_t tid;           /* etd_event.tid, else its run's */
	size_t run;             /* index in etd_dump.runs */
};

/* Values of a sample, in this order, then one per counter. */
enum { PPROF_EVENTS, PPROF_WALL_NS, PPROF_COUNTERS };

struct pprof_samples {
	struct string_index frames;
	struct pprof_stack *stacks;
	size_t nstacks, stacks_cap;
	struct pprof_sample *v;
	int64_t *values;        /* n * nvalues */
	size_t n, cap, nvalues, values_cap;
	uint64_t first, last;   /* the events' span, 0 0 without any */
	size_t clipped;         /* events cut at their parent's end */
	/* by key: where a stack or a sample already is */
	struct pprof_slot *slots;
	size_t nslots, used;
};

/* 0 or -ENOMEM. */
int pprof_samples_build(const struct etd_dump *dump, struct pprof_samples *out);
void pprof_samples_free(struct pprof_samples *s);

#endif /* ETDUMP_PPROF_SAMPLES_H */

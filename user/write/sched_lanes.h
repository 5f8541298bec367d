/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sched_lanes.h - the switches record --sched captured (ETDUMP_REC_SCHED),
 * set aside from the collector, for the timeline's lane per thread: on
 * which CPU it ran, and when it was off CPU, preempted or blocked.
 */
#ifndef ETDUMP_SCHED_LANES_H
#define ETDUMP_SCHED_LANES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sched_switch {
	uint64_t ts;
	uint32_t tid;
	uint32_t cpu;
	bool out;
	bool preempted;
};

struct sched_lanes {
	struct sched_switch *v;
	size_t n, cap;
};

/* Is this ring-buffer record a switch (whole, or damaged)? */
bool sched_record_is(const void *rec, size_t len);
/* Keep a switch record: 0, -EINVAL when malformed, -ENOMEM. */
int sched_lanes_add(struct sched_lanes *l, const void *rec, size_t len);
/* In order of thread, then time. */
void sched_lanes_sort(struct sched_lanes *l);
void sched_lanes_free(struct sched_lanes *l);

#endif /* ETDUMP_SCHED_LANES_H */

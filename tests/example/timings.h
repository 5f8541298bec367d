/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * timings.h - the runtime's own measurements (--timings): one row per event
 * it emitted, buffered per thread and written as TSV at exit, so that a
 * test can hold a recorded ETDump against the runtime's own clock reads.
 */
#ifndef EXAMPLE_TIMINGS_H
#define EXAMPLE_TIMINGS_H

#include <stddef.h>
#include <stdint.h>

struct timing {
	const char *name;	/* event name, string delegate id, or NULL */
	long long id;		/* the int delegate id when name is NULL */
	int run;		/* per-thread block: 0 Default, 1.. Execute */
	long long chain, instr;	/* what ETDumpGen records for the event */
	uint64_t start_ns, end_ns;
};

/* one per thread, so appending needs no lock; freed by exit */
struct timings {
	long tid;
	size_t len, cap;
	struct timing *rows;
};

/* CLOCK_MONOTONIC in ns: the clock the tracer stamps events with */
uint64_t timings_now(void);
void timings_add(struct timings *t, const struct timing *row);
/* header, then every row of logs[0..n); 0 or -1 with errno set */
int timings_write(const char *path, const struct timings *logs, int n);

#endif /* EXAMPLE_TIMINGS_H */

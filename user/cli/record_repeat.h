/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * record_repeat.h - record --repeat N: the command recorded N times, one
 * process after the other, each into its own files numbered as a series
 * is (run.0001.etdp, run.0001.raw, ...). diff compares recordings, not the
 * runs of one process: runs of one process share its placement, its
 * neighbours and its memory layout, and look surer than they are.
 *
 * --alternate-with FILE: a second command's N recordings, into FILE
 * numbered alike, taking turns with the first's (A B A B ...), as
 * Chromium's Pinpoint and hyperfine run what they compare: a machine whose
 * pace drifts over the minutes of a comparison (a neighbour, the host)
 * then slows both sides alike, where N of one and then N of the other
 * would put the drift between them.
 */
#ifndef ETDUMP_RECORD_REPEAT_H
#define ETDUMP_RECORD_REPEAT_H

#include <stdbool.h>

/* What record_repeat() returns in the recording process. */
#define RECORD_REPEAT_CHILD (-1)

struct record_repeat {
	unsigned int n;
	const char *output;      /* -o, or NULL */
	const char *raw;         /* --raw, or NULL */
	bool force;
	bool values;             /* its debug buffer beside each ETDump */
	const char *alternate;   /* --alternate-with FILE, or NULL */
};

/*
 * Checks every name first (none is overwritten without force), then
 * forks one recording at a time. In each recording process it returns
 * RECORD_REPEAT_CHILD with *output and *raw set to that recording's names
 * and *second telling whether it records the second command;
 * in the caller, the exit status once all are done, or once one failed or
 * SIGINT/SIGTERM stopped one: its status (EXIT_LOST when any lost events).
 */
int record_repeat(const struct record_repeat *r, const char **output,
		  const char **raw, bool *second);

#endif /* ETDUMP_RECORD_REPEAT_H */

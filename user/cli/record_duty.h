/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * record_duty.h - record --duty PCT[/PERIOD]: symbol mode's probes
 * attached PCT % of the time, in one window at the start of each PERIOD
 * (default 1 s), taken out for the rest: a recorder a service can carry,
 * its traps paid only in the windows. Only whole executions are written:
 * at each window's end, once every record the probes sent is in, a run
 * still open is left out and counted as cut, and so is the run a thread
 * is in when the probes come back (collector_gap()). What attaching and
 * detaching took is measured each time, and said.
 */
#ifndef ETDUMP_RECORD_DUTY_H
#define ETDUMP_RECORD_DUTY_H

#include <stdbool.h>
#include <stdint.h>

struct capture;
struct collector;
struct collector_stats;
struct symbol_mode;

struct record_duty {
	uint32_t permille;      /* of the period, attached */
	uint64_t period_ns;
	/* the recording, once it runs */
	struct symbol_mode *sm;
	struct capture *cap;
	struct collector *col;
	bool attached;
	uint64_t start_ns;      /* the first window's start */
	uint64_t window_ns;     /* when the probes of this window came */
	uint64_t next_ns;       /* when the probes come or go next */
	uint64_t traced_ns;     /* attached, in windows ended */
	uint64_t end_ns;        /* when the recording ended */
	uint64_t windows;
	uint64_t stretched_ns;  /* the longest period made longer, or 0 */
	/* what taking the probes out and putting them back took */
	uint64_t detach_ns, detach_max_ns, detaches, last_detach_ns;
	uint64_t attach_ns, attach_max_ns, attaches;
};

/*
 * PCT[/PERIOD]: a percentage (0.1 to 99.9, fractions allowed) and a
 * duration (parse_duration(), default 1 s, at least 10 ms). -EINVAL.
 */
int record_duty_parse(const char *arg, struct record_duty *d);
/*
 * The ETDump's note: each run's outermost event says that it was recorded
 * in windows, and which share of the time they cover ("...;duty=10/1000ms").
 * Appended to the note symbol mode set. -ENOMEM.
 */
int record_duty_annotate(const struct record_duty *d, struct collector *col);
/* The probes are attached from now_ns on: the first window. */
void record_duty_start(struct record_duty *d, struct symbol_mode *sm,
		       struct capture *cap, struct collector *col,
		       uint64_t now_ns);
/*
 * At each turn of the recording loop: a window ended takes the probes out
 * (the ring drained, cut runs left out); a period begun puts them back.
 * Negative errno, said.
 */
int record_duty_tick(struct record_duty *d, uint64_t now_ns);
/* How long the recording loop may sleep: at most max_ms, less when the
   probes come or go sooner. */
int record_duty_timeout_ms(const struct record_duty *d, int max_ms);
/* The recording ended at now_ns: the last window's share counted. */
void record_duty_stop(struct record_duty *d, uint64_t now_ns);
/* The summary's line: the share traced, cut runs, attach and detach cost. */
void record_duty_say(const struct record_duty *d,
		     const struct collector_stats *st);

#endif /* ETDUMP_RECORD_DUTY_H */

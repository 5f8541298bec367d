/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report_stats.h - the statistics ExecuTorch's Inspector prints for each
 * event of each event block (ExecuTorch: devtools/inspector/_inspector.py), computed the way
 * it computes them, floating point included, so that every number matches
 * the Inspector's to its last digit:
 *
 * - a duration is end - start; start > end is a 32-bit wrap, taken as
 *   (2^32-1 - start) + end (one tick short, as the Inspector does), and an
 *   error when either exceeds 2^32-1;
 * - times are ns and scaled to the unit asked for: float(duration) / f for
 *   ordinary events; for delegated ones start / f and end / f are taken
 *   first and then subtracted (the Inspector's delegate time converter);
 * - p10, p50, p90 are numpy.percentile's "linear" method, avg is
 *   numpy.mean (pairwise summation), min and max are exact;
 * - perf counters (etd_dump.counter_names): p50 and avg over the runs
 *   where the value is valid, as scripts/etdump_counters.py computes them
 *   (median, statistics.fmean: the exact sum divided once).
 */
#ifndef ETDUMP_REPORT_STATS_H
#define ETDUMP_REPORT_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/etdump_model.h"

enum report_unit { REPORT_NS, REPORT_US, REPORT_MS, REPORT_S };

struct report_stats {
	double p10, p50, p90, avg, min, max;
};

enum report_id_kind { REPORT_ID_NONE, REPORT_ID_INT, REPORT_ID_STR };

struct report_event {
	/* The Inspector's name: a delegated event takes its delegate id. */
	char *name;
	bool delegated;                 /* is_delegated_op */
	enum report_id_kind id_kind;    /* delegate_debug_identifier */
	int32_t id_int;
	char *id_str;
	bool op_call;                   /* name contains "OPERATOR_CALL" */
	bool has_time;                  /* false: only debug events */
	struct report_stats time;
	uint64_t *start_times;          /* the Inspector's start_time, per run */
	size_t nstart_times;
	double share;                   /* avg / block total avg, in % */
	bool has_counter[ETD_MAX_COUNTERS]; /* some run had a valid value */
	double counter_p50[ETD_MAX_COUNTERS];
	double counter_avg[ETD_MAX_COUNTERS];
};

struct report_block {
	char *name;
	size_t nruns;                   /* runs merged into it */
	struct report_event *events;
	size_t nevents;
	struct report_stats total;      /* report_total.h; zero without times */
};

struct report {
	enum report_unit unit;
	size_t nruns;                   /* runs with an events vector */
	struct report_block *blocks;
	size_t nblocks;
	char *counter_names[ETD_MAX_COUNTERS];
	uint32_t ncounters;
};

/* "ns", "us", "ms", "s": 0, or -EINVAL for anything else. */
int report_unit_parse(const char *s, enum report_unit *out);
const char *report_unit_name(enum report_unit unit);

/*
 * Duration in ticks with the wrap rule: 0, or -ERANGE when start > end
 * and one of them exceeds 2^32-1.
 */
int report_elapsed(uint64_t start, uint64_t end, uint64_t *out);
/* One profile event's duration in unit: 0 or -ERANGE (see above). */
int report_duration(const struct etd_event *pe, bool delegated,
		    enum report_unit unit, double *out);
/* numpy.percentile(v, pct) of ascending sorted v, n > 0. */
double report_percentile(const double *sorted, size_t n, double pct);
/* numpy.mean(v), n > 0. */
double report_mean(const double *v, size_t n);
/* All six of v (n > 0, any order; v is left as it is). */
int report_stats_of(const double *v, size_t n, struct report_stats *out);

/*
 * The whole report. -EINVAL with one sentence in err for a file the
 * Inspector cannot turn into a table: what report_group() refuses, a
 * duration it rejects, a present but empty events vector, no event block
 * at all; -ENOMEM. Free with report_free() on success.
 */
int report_build(const struct etd_dump *dump, enum report_unit unit,
		 struct report *out, char *err, size_t errlen);
void report_free(struct report *r);

#endif /* ETDUMP_REPORT_STATS_H */

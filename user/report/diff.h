/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * diff.h - two recordings side by side, operator by operator: what
 * `etdump-bpf diff` prints and a CI job gates on.
 *
 * Each ETDump is grouped into event blocks and events as the Inspector
 * groups it (report_group.h, report_stats.h names). A block of the base
 * pairs with the block of the new recording that has the same name and
 * the same place among blocks of that name; an event pairs with the event
 * of the paired block with the same name and the same place among events
 * of that name (a model that runs convolution twice has two rows). What
 * has no partner is listed as only in one recording. Debug-only events
 * have no time and no row.
 *
 * For each pair: p50 and avg of the per-run durations (ns), their change,
 * the Mann-Whitney U test of the two sets of runs (mann_whitney.h), its
 * p-value adjusted by Holm over every row tested (a CI job asks "did
 * anything regress", one question over many rows), and the p50 and avg
 * of each perf counter both recordings hold. A row is slower (faster)
 * when the adjusted p-value is below alpha, the runs of the new recording
 * tend to take longer (shorter), and its p50 changed by at least
 * min_change_pct percent and min_delta_ns.
 *
 * With several recordings on a side (or on both) each recording is one
 * sample: a side's p50 is the median of its recordings' p50s (avg the
 * mean of their avgs, counters alike), the test is Welch's t on the logs
 * of the recordings' p50s (welch.h; logs: a process's noise scales its
 * times), each less its recording's pace over the other rows
 * (diff_pace.h: a process's pace moves all its events together, a
 * change of one operator moves it alone), and the noise is the spread
 * between recordings of one side at one pace (the standard deviation of
 * their p50s so adjusted, the larger side's): a change not larger than
 * that is not significant, whatever the test says. The pace itself is one
 * more question of the Holm family when the sides' paces differ by
 * min_change_pct: when significant, every row changed that way by
 * min_change_pct and min_delta_ns is called with it (a build slower
 * throughout). A side's
 * recording off its others' pace throughout is left out first (diff.c,
 * DIFF_PACE_LIMIT) and said in left_out_note. Holm's
 * family there is the rows whose change could be called (diff.c), as a
 * change and as a change beyond the row's pace (own_pct). Rows
 * are those of each side's first recording; the side's other recordings
 * join by the same pairing.
 */
#ifndef ETDUMP_DIFF_H
#define ETDUMP_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include "model/etdump_model.h"
#include "report/diff_across.h"
#include "report/report_stats.h"

#define DIFF_DEFAULT_ALPHA 0.01
/*
 * Across recordings, Holm's family is the rows that pass the gates
 * (diff.c, asked()). scripts/diff_alarms.py over three pools of 20
 * recordings and three draws of 20 comparisons each, 5 a side in turns,
 * rows judged on their raw p50s: at 0.05, 0-5 of 20 same-build
 * comparisons alarmed (relu, whose processes differ by ~9%, and the
 * one-shot load events); at 0.01, 0-1, while 17-20 of 20 1.3x slowdowns
 * of one operator were named. Against their recordings' pace: 0-1
 * alarms, 19-20 named, in every set.
 */
#define DIFF_DEFAULT_ALPHA_ACROSS 0.01
#define DIFF_DEFAULT_MIN_CHANGE 5.0
/*
 * Two processes of one build differ by some ns in a sub-microsecond
 * operator (code and data placed elsewhere, ASLR), enough for a test over
 * 20 runs to notice and for 5% of it; a change below this is not called.
 */
#define DIFF_DEFAULT_MIN_DELTA_NS 100.0
/*
 * A recording whose events all ran this much slower (or faster) than its
 * side's others is left out of its side (diff.c): 1.25x.
 */
#define DIFF_PACE_LIMIT 1.25

struct diff_options {
	double alpha;
	double min_change_pct;
	double min_delta_ns;
	bool operator_call;               /* keep OPERATOR_CALL rows */
};

struct diff {
	struct diff_row *rows;            /* sorted by impact, largest first */
	size_t nrows;
	size_t ntested;                   /* rows in the Holm adjustment */
	const char *counter_names[ETD_MAX_COUNTERS]; /* in both files */
	uint32_t ncounters;
	size_t base_runs, new_runs;
	size_t base_recordings, new_recordings;
	char left_out_note[512];          /* which, and why; "" for none */
	struct diff_pace_change pace;     /* across recordings */
	struct report reports[2];         /* own the names rows point to */
};

/*
 * dumps: nbase recordings of the base, then nnew of the new (1 or more
 * each). 0; -EINVAL with err "base K: why" or "new K: why" (K from 1)
 * for a file the Inspector could not tabulate; -ENOMEM.
 */
int diff_build(const struct etd_dump *dumps, size_t nbase, size_t nnew,
	       const struct diff_options *o, struct diff *out, char *err,
	       size_t errlen);

/* Several recordings on a side: the test is across recordings. */
bool diff_across(const struct diff *d);
void diff_free(struct diff *d);

/* A row a --fail-above gate of pct percent stops on. */
bool diff_is_regression(const struct diff_row *r, double pct);

const char *diff_verdict_name(enum diff_verdict v);

#endif /* ETDUMP_DIFF_H */

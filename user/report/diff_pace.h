/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * diff_pace.h - how fast each recording ran as a whole, so that `diff`
 * can judge one operator against the rest of its own process.
 *
 * Processes of one build differ in pace (frequency, neighbours, where
 * the hypervisor placed them), and that pace moves every event of a
 * recording together: over 20 recordings of the example runtime on a
 * busy 2-CPU VM, relu's p50 varied by 16% between processes, 92% of it
 * shared with the recording's other events; taken out, 6.5%. A slowdown
 * of one operator moves that operator alone, so it stands out of its
 * recording's pace far more clearly than out of the raw spread.
 *
 * A row's log p50 in each recording is its `log`; a recording's pace
 * without row i is the median, over the other rows it has, of their log
 * distance from each row's median over all recordings (both sides): the
 * median, so that the one row that changed does not move the pace of
 * the rows it is tested against.
 */
#ifndef ETDUMP_DIFF_PACE_H
#define ETDUMP_DIFF_PACE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Fewer other rows than this (a model of one or two timed events): no
 * pace for judging a row, each judged on its own times.
 */
#define DIFF_PACE_MIN_ROWS 3

struct diff_pace {
	const double *logs;     /* nrows x nrec, NAN: not in that recording */
	size_t nrows, nrec;
	size_t min_rows;        /* fewer rows to take it from: pace 0 */
	double *median;         /* each row's median log over recordings */
	bool *whole;            /* the row is in every recording kept */
	double *scratch;
};

/*
 * logs[i * nrec + k]: row i's log p50 in recording k, NAN where the
 * recording lacks it; a recording left out entirely is NAN throughout
 * and ignored. min_rows: DIFF_PACE_MIN_ROWS to judge rows by; 1 to judge
 * whole recordings (diff.c, leave_out_off_pace). 0 or -ENOMEM.
 */
int diff_pace_init(struct diff_pace *p, const double *logs, size_t nrows,
		   size_t nrec, size_t min_rows);

/*
 * Each recording's pace (log; 0 when fewer than min_rows rows, NAN for a
 * recording left out or where no row is in every recording) into
 * pace[nrec], from every row but `skip` (nrows: all).
 */
void diff_pace_of(const struct diff_pace *p, size_t skip, double *pace);

void diff_pace_free(struct diff_pace *p);

#endif /* ETDUMP_DIFF_PACE_H */

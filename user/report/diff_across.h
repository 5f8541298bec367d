/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * diff_across.h - with several recordings a side, each row's test:
 * Welch's t on each recording's log p50 less its pace over the other
 * rows (diff_pace.h), and the sides' paces as one more question (diff.h).
 */
#ifndef ETDUMP_DIFF_ACROSS_H
#define ETDUMP_DIFF_ACROSS_H

#include <stddef.h>
#include "report/diff_row.h"

/* new's pace over every row against base's */
struct diff_pace_change {
	double factor;          /* ratio of the sides' median paces; 0 untested */
	double t, p;            /* Welch's t; p Holm-adjusted once judged */
	bool changed;           /* significant, by min_change or more */
};

/*
 * rows[0..nrows) with logs[i * total + k]: row i's log p50 in recording k (nbase of the base,
 * then d->new_recordings of the new; NAN where absent or left out).
 * total = nbase + nnew. Sets each row's p (unadjusted), noise and
 * significant (direction and noise), and pace's factor, t and p.
 * 0 or -ENOMEM.
 */
int diff_test_across(struct diff_row *rows, size_t nrows, const double *logs,
		     size_t nbase, size_t nnew, struct diff_pace_change *pace);

#endif /* ETDUMP_DIFF_ACROSS_H */

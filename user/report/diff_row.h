/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * diff_row.h - one row of a diff: one event as each side held it, its
 * change and what the test said of it (diff.h tells how).
 */
#ifndef ETDUMP_DIFF_ROW_H
#define ETDUMP_DIFF_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include "model/etdump_model.h"

enum diff_verdict {
	DIFF_SAME,        /* no significant change of min_change or more */
	DIFF_SLOWER,
	DIFF_FASTER,
	DIFF_ONLY_BASE,
	DIFF_ONLY_NEW,
};

struct diff_side {
	bool present;
	size_t nruns;                     /* over its recordings */
	size_t nrec;                      /* recordings holding the event */
	double spread;                    /* std. deviation of their p50s, ns */
	double p50, avg;                  /* ns */
	bool has_counter[ETD_MAX_COUNTERS]; /* diff.counter_names order */
	double counter_p50[ETD_MAX_COUNTERS];
	double counter_avg[ETD_MAX_COUNTERS];
};

struct diff_row {
	const char *block;                /* names live in struct diff */
	size_t block_ordinal;             /* among blocks of that name */
	const char *event;
	bool op_call;
	struct diff_side base, new;
	double delta_p50;                 /* new - base, ns */
	double p50_pct, avg_pct;          /* change in % of base */
	double noise;                     /* ns; NAN with one recording a side */
	double own_pct;                   /* across recordings: its change
					     beyond its recording's pace, % */
	double p;                         /* Holm-adjusted; 1 untested */
	bool significant;                 /* p < alpha, direction agrees,
					     beyond the noise */
	bool large;                       /* |delta_p50| >= min_delta_ns */
	bool with_pace;                   /* significant as every row is:
					     the pace of the sides changed */
	enum diff_verdict verdict;
	size_t order;                     /* in file order, for equal impact */
};

#endif /* ETDUMP_DIFF_ROW_H */

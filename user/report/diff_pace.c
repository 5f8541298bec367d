// SPDX-License-Identifier: BSD-3-Clause
/*
 * diff_pace.c - each recording's pace, a row left out (diff_pace.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "report/diff_pace.h"
#include "report/sample_stats.h"

/* A recording with no row at all was left out of its side. */
static bool kept(const struct diff_pace *p, size_t k)
{
	size_t i;

	for (i = 0; i < p->nrows; i++)
		if (!isnan(p->logs[i * p->nrec + k]))
			return true;
	return false;
}

int diff_pace_init(struct diff_pace *p, const double *logs, size_t nrows,
		   size_t nrec, size_t min_rows)
{
	bool *keep;
	size_t i, k, n;

	*p = (struct diff_pace){ .logs = logs, .nrows = nrows, .nrec = nrec,
				 .min_rows = min_rows };
	p->median = calloc(nrows + 1, sizeof(*p->median));
	p->whole = calloc(nrows + 1, sizeof(*p->whole));
	p->scratch = calloc(nrows + nrec + 1, sizeof(*p->scratch));
	keep = calloc(nrec + 1, sizeof(*keep));
	if (!p->median || !p->whole || !p->scratch || !keep) {
		free(keep);
		diff_pace_free(p);
		return -ENOMEM;
	}
	for (k = 0; k < nrec; k++)
		keep[k] = kept(p, k);
	for (i = 0; i < nrows; i++) {
		p->whole[i] = true;
		for (k = n = 0; k < nrec; k++) {
			double v = logs[i * nrec + k];

			if (!keep[k])
				continue;
			if (isnan(v))
				p->whole[i] = false;
			else
				p->scratch[n++] = v;
		}
		p->whole[i] = p->whole[i] && n;
		p->median[i] = n ? sample_median(p->scratch, n) : NAN;
	}
	free(keep);
	return 0;
}

void diff_pace_of(const struct diff_pace *p, size_t skip, double *pace)
{
	size_t i, k, n;

	for (k = 0; k < p->nrec; k++) {
		for (i = n = 0; i < p->nrows; i++) {
			double v = p->logs[i * p->nrec + k];

			if (i != skip && p->whole[i] && !isnan(v))
				p->scratch[n++] = v - p->median[i];
		}
		if (!n)
			pace[k] = NAN;
		else
			pace[k] = n < p->min_rows ? 0 :
				  sample_median(p->scratch, n);
	}
}

void diff_pace_free(struct diff_pace *p)
{
	free(p->median);
	free(p->whole);
	free(p->scratch);
	*p = (struct diff_pace){ 0 };
}

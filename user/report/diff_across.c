// SPDX-License-Identifier: BSD-3-Clause
/*
 * diff_across.c - each row tested across recordings, against its
 * recording's pace (diff_across.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "report/diff_across.h"
#include "report/diff_pace.h"
#include "report/inspector_stats.h"
#include "report/sample_stats.h"
#include "report/welch.h"

/*
 * The values of one side of a row, NAN (absent) skipped: each recording's
 * log p50 less its pace.
 */
static size_t side_values(const double *logs, const double *pace, size_t n,
			  double *out)
{
	size_t k, m = 0;

	for (k = 0; k < n; k++)
		if (!isnan(logs[k]) && !isnan(pace[k]))
			out[m++] = logs[k] - pace[k];
	return m;
}

/* The spread of a side's p50s at one pace, ns (see diff_pace.h). */
static double paced_spread(const double *v, size_t n)
{
	double *ns = calloc(n + 1, sizeof(*ns)), s;
	size_t k;

	if (!ns)
		return NAN;
	for (k = 0; k < n; k++)
		ns[k] = exp(v[k]);
	s = sample_sd(ns, n);
	free(ns);
	return s;
}

/*
 * Across recordings: Welch's t on each recording's log p50 less its pace
 * (diff_pace.h), new against base; the noise is the spread of those, and
 * the row's own change the ratio of their means, as the test compares.
 */
static int test_across(struct diff_row *r, const double *logs,
		       const double *pace, size_t nbase, size_t nnew)
{
	double *b = calloc(nbase + 1, sizeof(*b));
	double *n = calloc(nnew + 1, sizeof(*n));
	size_t nb, nn;
	double t;
	int ret = b && n ? 0 : -ENOMEM;

	if (ret)
		goto out;
	nb = side_values(logs, pace, nbase, b);
	nn = side_values(logs + nbase, pace + nbase, nnew, n);
	r->noise = fmax(paced_spread(b, nb), paced_spread(n, nn));
	if (nb && nn)
		r->own_pct = (exp(report_mean(n, nn) -
				  report_mean(b, nb)) - 1) * 100;
	if (nb && nn && nb + nn >= 3) {
		ret = welch_t(n, nn, b, nb, &t, &r->p);
		r->significant = (t > 0) == (r->delta_p50 > 0) &&
				 fabs(r->delta_p50) > r->noise;
	}
out:
	free(b);
	free(n);
	return ret;
}

/*
 * The pace of the new side against the base's: Welch's t on the
 * recordings' paces over every row, its factor the ratio of the sides'
 * median paces. A build slower throughout moves every row together, and
 * each row against its own recording's pace shows none of it.
 */
static int test_pace(struct diff_pace_change *out, const double *pace,
		     size_t nbase, size_t nnew)
{
	double *b = calloc(nbase + 1, sizeof(*b));
	double *n = calloc(nnew + 1, sizeof(*n));
	size_t k, nb = 0, nn = 0;
	int ret = b && n ? 0 : -ENOMEM;

	for (k = 0; !ret && k < nbase + nnew; k++) {
		if (isnan(pace[k]))
			continue;
		if (k < nbase)
			b[nb++] = pace[k];
		else
			n[nn++] = pace[k];
	}
	*out = (struct diff_pace_change){ .p = 1 };
	if (!ret && nb && nn && nb + nn >= 3) {
		ret = welch_t(n, nn, b, nb, &out->t, &out->p);
		out->factor = exp(sample_median(n, nn) - sample_median(b, nb));
	}
	free(b);
	free(n);
	return ret;
}

int diff_test_across(struct diff_row *rows, size_t nrows, const double *logs,
		     size_t nbase, size_t nnew, struct diff_pace_change *out)
{
	size_t i, total = nbase + nnew;
	double *pace = calloc(total + 1, sizeof(*pace));
	struct diff_pace dp;
	int ret = pace ? diff_pace_init(&dp, logs, nrows, total,
						 DIFF_PACE_MIN_ROWS) : -ENOMEM;

	if (ret) {
		free(pace);
		return ret;
	}
	diff_pace_of(&dp, nrows, pace);
	ret = test_pace(out, pace, nbase, nnew);
	for (i = 0; !ret && i < nrows; i++) {
		struct diff_row *r = &rows[i];

		if (!r->base.present || !r->new.present)
			continue;
		diff_pace_of(&dp, i, pace);
		ret = test_across(r, logs + i * total, pace, nbase, nnew);
	}
	diff_pace_free(&dp);
	free(pace);
	return ret;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * report_total.c - top-level events of a run by one sweep over them in
 * start order (longest first at equal starts): an event is top-level
 * when it starts at or after the end of every top-level event before it.
 */
#include <errno.h>
#include <stdlib.h>
#include "report/report_total.h"

static int cmp_outer_first(const void *pa, const void *pb)
{
	const struct etd_event *a = *(const struct etd_event *const *)pa;
	const struct etd_event *b = *(const struct etd_event *const *)pb;

	if (a->start_time != b->start_time)
		return a->start_time < b->start_time ? -1 : 1;
	return (a->end_time < b->end_time) - (a->end_time > b->end_time);
}

static bool is_delegated(const struct etd_event *ev)
{
	return ev->delegate_id_int != ETD_UNSET ||
	       (ev->delegate_id_str && *ev->delegate_id_str);
}

static int run_total(const struct rg_block *b, size_t r,
		     enum report_unit unit, const struct etd_event **evs,
		     double *total)
{
	uint64_t reach = 0;
	size_t k, n = 0;
	double d;

	for (k = 0; k < b->nsigs; k++)
		if (b->occ[r * b->nsigs + k])
			evs[n++] = b->occ[r * b->nsigs + k];
	qsort(evs, n, sizeof(*evs), cmp_outer_first);
	*total = 0;
	for (k = 0; k < n; k++) {
		if (k && evs[k]->start_time < reach)
			continue; /* inside an event already counted */
		if (report_duration(evs[k], is_delegated(evs[k]), unit, &d))
			return -ERANGE;
		*total += d;
		reach = evs[k]->end_time;
	}
	return 0;
}

int report_block_total(const struct rg_block *b, enum report_unit unit,
		       struct report_stats *out)
{
	const struct etd_event **evs;
	double *totals;
	size_t r;
	int ret = 0;

	evs = calloc(b->nsigs ? b->nsigs : 1, sizeof(*evs));
	totals = calloc(b->nruns ? b->nruns : 1, sizeof(*totals));
	if (!evs || !totals)
		ret = -ENOMEM;
	for (r = 0; !ret && r < b->nruns; r++)
		ret = run_total(b, r, unit, evs, &totals[r]);
	if (!ret && b->nruns)
		ret = report_stats_of(totals, b->nruns, out);
	free(evs);
	free(totals);
	return ret;
}

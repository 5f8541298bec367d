// SPDX-License-Identifier: BSD-3-Clause
/*
 * inspector_stats.c - the numbers of `etdump-bpf report`, as the Inspector
 * computes them.
 *
 * Every operation below is one IEEE double operation in the order numpy
 * and CPython perform it; nothing may be fused or reordered: the build
 * has no -ffast-math and says -ffp-contract=off, without which aarch64 GCC
 * fuses a*b+c into one fmadd (p90 then differed in the last digit).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "report/inspector_stats.h"

#define MAX_UINT32_TICKS 4294967295ull

static const struct {
	const char *name;
	double factor; /* the Inspector's scale factor: 1e9 / units per s */
} units[] = {
	[REPORT_NS] = { "ns", 1.0 },
	[REPORT_US] = { "us", 1000.0 },
	[REPORT_MS] = { "ms", 1000000.0 },
	[REPORT_S] = { "s", 1000000000.0 },
};

int report_unit_parse(const char *s, enum report_unit *out)
{
	size_t i;

	for (i = 0; s && i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(s, units[i].name)) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *report_unit_name(enum report_unit unit)
{
	return units[unit].name;
}

int report_elapsed(uint64_t start, uint64_t end, uint64_t *out)
{
	if (start <= end) {
		*out = end - start;
		return 0;
	}
	if (start > MAX_UINT32_TICKS || end > MAX_UINT32_TICKS)
		return -ERANGE;
	*out = (MAX_UINT32_TICKS - start) + end;
	return 0;
}

int report_duration(const struct etd_event *pe, bool delegated,
		    enum report_unit unit, double *out)
{
	const double max32 = (double)MAX_UINT32_TICKS;
	double f = units[unit].factor, start, end;
	uint64_t ticks;

	if (!delegated) {
		if (report_elapsed(pe->start_time, pe->end_time, &ticks))
			return -ERANGE;
		*out = (double)ticks / f;
		return 0;
	}
	/* the delegate converter scales each time, then the wrap rule runs */
	start = (double)pe->start_time / f;
	end = (double)pe->end_time / f;
	if (start <= end) {
		*out = end - start;
		return 0;
	}
	if (start > max32 || end > max32)
		return -ERANGE;
	*out = (max32 - start) + end;
	return 0;
}

double report_percentile(const double *sorted, size_t n, double pct)
{
	double vi = (double)(n - 1) * (pct / 100.0), gamma, a, diff;
	size_t lo;

	if (vi >= (double)(n - 1))
		return sorted[n - 1];
	lo = (size_t)vi; /* vi >= 0: truncation is numpy's floor */
	gamma = vi - (double)lo;
	a = sorted[lo];
	diff = sorted[lo + 1] - a;
	/* numpy's _lerp: from the nearer end, for monotonicity */
	if (gamma >= 0.5)
		return sorted[lo + 1] - diff * (1 - gamma);
	return a + diff * gamma;
}

/* numpy's pairwise_sum for float64, with its block of 8 and of 128. */
static double pairwise_sum(const double *a, size_t n)
{
	double r[8], res = 0.;
	size_t i, j, half;

	if (n < 8) {
		for (i = 0; i < n; i++)
			res += a[i];
		return res;
	}
	if (n <= 128) {
		for (j = 0; j < 8; j++)
			r[j] = a[j];
		for (i = 8; i < n - n % 8; i += 8)
			for (j = 0; j < 8; j++)
				r[j] += a[i + j];
		res = ((r[0] + r[1]) + (r[2] + r[3])) +
		      ((r[4] + r[5]) + (r[6] + r[7]));
		for (; i < n; i++)
			res += a[i];
		return res;
	}
	half = n / 2;
	half -= half % 8;
	return pairwise_sum(a, half) + pairwise_sum(a + half, n - half);
}

double report_mean(const double *v, size_t n)
{
	/* add.reduce starts from its identity, then true_divide by n */
	return (0. + pairwise_sum(v, n)) / (double)n;
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

int report_stats_of(const double *v, size_t n, struct report_stats *out)
{
	double *s = malloc(n * sizeof(*s));

	if (!s)
		return -ENOMEM;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	out->p10 = report_percentile(s, n, 10);
	out->p50 = report_percentile(s, n, 50);
	out->p90 = report_percentile(s, n, 90);
	out->avg = report_mean(v, n);
	out->min = s[0];
	out->max = s[n - 1];
	free(s);
	return 0;
}

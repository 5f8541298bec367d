// SPDX-License-Identifier: BSD-3-Clause
/*
 * sample_stats.c - median and standard deviation of a few values.
 */
#include <math.h>
#include <stdlib.h>
#include "report/inspector_stats.h"
#include "report/sample_stats.h"

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

double sample_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return report_percentile(v, n, 50);
}

double sample_sd(const double *v, size_t n)
{
	double mean = 0, ss = 0;
	size_t k;

	if (n < 2)
		return 0;
	for (k = 0; k < n; k++)
		mean += v[k] / (double)n;
	for (k = 0; k < n; k++)
		ss += (v[k] - mean) * (v[k] - mean);
	return sqrt(ss / (double)(n - 1));
}

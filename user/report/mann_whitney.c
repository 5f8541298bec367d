// SPDX-License-Identifier: BSD-3-Clause
/*
 * mann_whitney.c - ranks, U, and its p-value: exact by counting for small
 * samples without ties, the normal approximation otherwise.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "report/mann_whitney.h"

struct ranked {
	double v;
	int from_x;
};

static int cmp_ranked(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;

	return (a->v > b->v) - (a->v < b->v);
}

/*
 * P(U <= u) with no ties: the number of arrangements of nx x's and ny
 * y's with U = k satisfies f(m, n, k) = f(m - 1, n, k - n) + f(m, n - 1, k),
 * counted here one m at a time over every n.
 */
static int exact_cdf(size_t nx, size_t ny, double u, double *cdf)
{
	size_t width = nx * ny + 1, m, n, k;
	double *prev, *cur, total = 0, below = 0;

	prev = calloc((ny + 1) * width, sizeof(*prev));
	cur = calloc((ny + 1) * width, sizeof(*cur));
	if (!prev || !cur) {
		free(prev);
		free(cur);
		return -ENOMEM;
	}
	for (n = 0; n <= ny; n++)
		prev[n * width] = 1; /* m = 0: one arrangement, U = 0 */
	for (m = 1; m <= nx; m++) {
		memset(cur, 0, (ny + 1) * width * sizeof(*cur));
		cur[0] = 1; /* n = 0 */
		for (n = 1; n <= ny; n++)
			for (k = 0; k <= m * n; k++)
				cur[n * width + k] =
					(k >= n ? prev[n * width + k - n] : 0) +
					cur[(n - 1) * width + k];
		memcpy(prev, cur, (ny + 1) * width * sizeof(*cur));
	}
	for (k = 0; k < width; k++) {
		total += prev[ny * width + k];
		if ((double)k <= u)
			below += prev[ny * width + k];
	}
	*cdf = below / total;
	free(prev);
	free(cur);
	return 0;
}

int mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		 double *u, double *p)
{
	size_t n = nx + ny, i, j;
	double rank_sum = 0, tie_term = 0, mean, var, z, umin, cdf;
	struct ranked *all;
	bool ties = false;
	int err;

	all = calloc(n, sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (i = 0; i < nx; i++)
		all[i] = (struct ranked){ x[i], 1 };
	for (i = 0; i < ny; i++)
		all[nx + i] = (struct ranked){ y[i], 0 };
	qsort(all, n, sizeof(*all), cmp_ranked);
	for (i = 0; i < n; i = j) {
		double t, avg_rank;

		for (j = i + 1; j < n && all[j].v == all[i].v; j++)
			;
		t = (double)(j - i);
		avg_rank = (double)(i + 1 + j) / 2; /* ranks i+1 .. j */
		if (t > 1) {
			ties = true;
			tie_term += t * t * t - t;
		}
		for (size_t k = i; k < j; k++)
			if (all[k].from_x)
				rank_sum += avg_rank;
	}
	free(all);
	*u = rank_sum - (double)nx * (double)(nx + 1) / 2;
	umin = fmin(*u, (double)nx * (double)ny - *u);
	if (!ties && nx <= MW_EXACT_MAX && ny <= MW_EXACT_MAX) {
		err = exact_cdf(nx, ny, umin, &cdf);
		if (err)
			return err;
		*p = fmin(1, 2 * cdf);
		return 0;
	}
	mean = (double)nx * (double)ny / 2;
	var = (double)nx * (double)ny / 12 *
	      ((double)(n + 1) - tie_term / ((double)n * (double)(n - 1)));
	if (var <= 0) {
		*p = 1;
		return 0;
	}
	z = (fabs(*u - mean) - 0.5) / sqrt(var);
	*p = z <= 0 ? 1 : fmin(1, erfc(z / sqrt(2)));
	return 0;
}

struct indexed {
	double p;
	size_t i;
};

static int cmp_indexed(const void *pa, const void *pb)
{
	const struct indexed *a = pa, *b = pb;

	return (a->p > b->p) - (a->p < b->p);
}

int holm_adjust(double *p, size_t n)
{
	struct indexed *s;
	double running = 0, adj;
	size_t k;

	if (!n)
		return 0;
	s = calloc(n, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (k = 0; k < n; k++)
		s[k] = (struct indexed){ p[k], k };
	qsort(s, n, sizeof(*s), cmp_indexed);
	for (k = 0; k < n; k++) {
		adj = fmin(1, (double)(n - k) * s[k].p);
		running = fmax(running, adj); /* adjusted p never decreases */
		p[s[k].i] = running;
	}
	free(s);
	return 0;
}

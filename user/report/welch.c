// SPDX-License-Identifier: BSD-3-Clause
/*
 * welch.c - t, its degrees of freedom, and Student's t distribution by
 * the regularized incomplete beta function.
 */
#include <errno.h>
#include <math.h>
#include "report/welch.h"

/*
 * The continued fraction of I_x(a, b) (DLMF 8.17.22), evaluated by the
 * modified Lentz method; it converges fast for x < (a + 1) / (a + b + 2),
 * the caller swaps the arguments otherwise.
 */
static double beta_fraction(double x, double a, double b)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), f, num, delta;
	int m;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	f = d;
	for (m = 1; m < 300; m++) {
		/* the even term, then the odd one */
		num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 + num * d;
		c = 1 + num / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		f *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		delta = d * c;
		f *= delta;
		if (fabs(delta - 1) < 1e-15)
			break;
	}
	return f;
}

static double inc_beta(double x, double a, double b)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		    b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_fraction(x, a, b) / a;
	return 1 - front * beta_fraction(1 - x, b, a) / b;
}

double student_t_two_sided(double t, double df)
{
	if (isnan(t))
		return 1;
	if (isinf(t))
		return 0;
	return inc_beta(df / (df + t * t), df / 2, 0.5);
}

static void moments(const double *v, size_t n, double *mean, double *var)
{
	double s = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += v[i];
	*mean = s / (double)n;
	for (i = 0; i < n; i++)
		ss += (v[i] - *mean) * (v[i] - *mean);
	*var = n > 1 ? ss / (double)(n - 1) : 0;
}

int welch_t(const double *x, size_t nx, const double *y, size_t ny,
	    double *t, double *p)
{
	double mx, my, vx, vy, ax, ay, se2, df;

	if (!nx || !ny || nx + ny < 3)
		return -EINVAL;
	moments(x, nx, &mx, &vx);
	moments(y, ny, &my, &vy);
	if (nx == 1 || ny == 1) {
		/* the side with runs to spare speaks for both */
		double v = nx == 1 ? vy : vx;

		se2 = v * (1 / (double)nx + 1 / (double)ny);
		df = (double)(nx == 1 ? ny : nx) - 1;
	} else {
		ax = vx / (double)nx;
		ay = vy / (double)ny;
		se2 = ax + ay;
		df = se2 * se2 / (ax * ax / (double)(nx - 1) +
				  ay * ay / (double)(ny - 1));
	}
	if (!(se2 > 0)) {
		*t = mx == my ? 0 : copysign(INFINITY, mx - my);
		*p = mx == my ? 1 : 0;
		return 0;
	}
	*t = (mx - my) / sqrt(se2);
	*p = student_t_two_sided(*t, df);
	return 0;
}

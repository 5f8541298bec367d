// SPDX-License-Identifier: BSD-3-Clause
/*
 * mann_whitney: U and its two-sided p-value, exact (counted by hand over
 * every arrangement) and by the normal approximation with ties, and
 * Holm's adjustment.
 */
#include <math.h>
#include "report/mann_whitney.h"
#include "testlib.h"

#define CHECK_NEAR(a, b) CHECK(fabs((a) - (b)) < 1e-12)

TEST(exact_separated)
{
	const double x[] = { 1, 2, 3 }, y[] = { 4, 5, 6 };
	double u, p;

	/* 1 arrangement of C(6,3) = 20 has U = 0; two-sided: 2/20 */
	CHECK_EQ_INT(mann_whitney(x, 3, y, 3, &u, &p), 0);
	CHECK(u == 0);
	CHECK_NEAR(p, 0.1);
	CHECK_EQ_INT(mann_whitney(y, 3, x, 3, &u, &p), 0);
	CHECK(u == 9);
	CHECK_NEAR(p, 0.1);
}

TEST(exact_ten_each)
{
	double x[10], y[10], u, p;
	int i;

	for (i = 0; i < 10; i++) {
		x[i] = 100 + i;
		y[i] = 200 - i;
	}
	CHECK_EQ_INT(mann_whitney(x, 10, y, 10, &u, &p), 0);
	CHECK(u == 0);
	CHECK_NEAR(p, 2.0 / 184756); /* 2 / C(20, 10) */
}

TEST(exact_no_difference)
{
	const double x[] = { 1, 4 }, y[] = { 2, 3 };
	double u, p;

	/* U = 2 is the middle of 0..4: nothing to see */
	CHECK_EQ_INT(mann_whitney(x, 2, y, 2, &u, &p), 0);
	CHECK(u == 2);
	CHECK(p == 1);
}

TEST(normal_with_ties)
{
	const double x[] = { 1, 2, 2, 3 }, y[] = { 2, 3, 4, 5 };
	double u, p;

	/*
	 * ranks: 1, 3, 3, 5.5 -> U = 12.5 - 10 = 2.5; ties (3 twos, 2
	 * threes) shrink the variance to 16/12 * (9 - 30/56); continuity
	 * correction 0.5
	 */
	CHECK_EQ_INT(mann_whitney(x, 4, y, 4, &u, &p), 0);
	CHECK(u == 2.5);
	CHECK_NEAR(p, 0.13665824773814753);
}

TEST(all_equal)
{
	const double x[] = { 5, 5, 5 }, y[] = { 5, 5 };
	double u, p;

	CHECK_EQ_INT(mann_whitney(x, 3, y, 2, &u, &p), 0);
	CHECK(u == 3);
	CHECK(p == 1);
}

TEST(holm)
{
	double p[] = { 0.01, 0.04, 0.03 };

	/* sorted 0.01 0.03 0.04, times 3 2 1: 0.03 0.06 0.04 -> monotone */
	CHECK_EQ_INT(holm_adjust(p, 3), 0);
	CHECK_NEAR(p[0], 0.03);
	CHECK_NEAR(p[1], 0.06);
	CHECK_NEAR(p[2], 0.06);
}

int main(void)
{
	RUN(exact_separated);
	RUN(exact_ten_each);
	RUN(exact_no_difference);
	RUN(normal_with_ties);
	RUN(all_equal);
	RUN(holm);
	return TEST_SUMMARY();
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * welch: Student's t tail against values from published tables, Welch's
 * t and its degrees of freedom worked by hand, the one-recording case.
 */
#include <errno.h>
#include <math.h>
#include "report/welch.h"
#include "testlib.h"

#define CHECK_CLOSE(a, b, tol) CHECK(fabs((a) - (b)) < (tol))

TEST(student_tail_table)
{
	/* two-sided critical values: t(0.975, df) and t(0.995, df) */
	CHECK_CLOSE(student_t_two_sided(12.706, 1), 0.05, 1e-4);
	CHECK_CLOSE(student_t_two_sided(2.306, 8), 0.05, 1e-4);
	CHECK_CLOSE(student_t_two_sided(3.355, 8), 0.01, 1e-4);
	CHECK_CLOSE(student_t_two_sided(-2.228, 10), 0.05, 1e-4);
	/* df = 1 is Cauchy: P(|T| >= 1) = 1/2 exactly */
	CHECK_CLOSE(student_t_two_sided(1, 1), 0.5, 1e-12);
	CHECK(student_t_two_sided(0, 5) == 1);
	CHECK(student_t_two_sided(INFINITY, 5) == 0);
}

TEST(welch_by_hand)
{
	const double x[] = { 1, 2, 3, 4, 5 }, y[] = { 3, 5, 7 };
	double t, p;

	/*
	 * mean 3 var 2.5 (/5 = 0.5); mean 5 var 4 (/3 = 4/3): se^2 = 11/6,
	 * t = -2 / sqrt(11/6); df = (11/6)^2 / (0.25/4 + (16/9)/2)
	 */
	CHECK_EQ_INT(welch_t(x, 5, y, 3, &t, &p), 0);
	CHECK_CLOSE(t, -2 / sqrt(11.0 / 6), 1e-12);
	CHECK_CLOSE(p, student_t_two_sided(t, (121.0 / 36) /
					      (0.0625 + 8.0 / 9)), 1e-12);
	CHECK(p > 0.1 && p < 0.3);
}

TEST(one_recording_judged_by_the_other_side)
{
	const double x[] = { 10 }, y[] = { 1, 2, 3 };
	double t, p;

	/* var 1, se^2 = 1 * (1 + 1/3), df 2 */
	CHECK_EQ_INT(welch_t(x, 1, y, 3, &t, &p), 0);
	CHECK_CLOSE(t, 8 / sqrt(4.0 / 3), 1e-12);
	CHECK_CLOSE(p, student_t_two_sided(t, 2), 1e-12);
	CHECK_EQ_INT(welch_t(x, 1, y, 1, &t, &p), -EINVAL);
}

TEST(no_spread)
{
	const double x[] = { 2, 2 }, y[] = { 2, 2, 2 }, z[] = { 3, 3 };
	double t, p;

	CHECK_EQ_INT(welch_t(x, 2, y, 3, &t, &p), 0);
	CHECK(p == 1);
	CHECK_EQ_INT(welch_t(z, 2, y, 3, &t, &p), 0);
	CHECK(p == 0 && t > 0);
}

int main(void)
{
	RUN(student_tail_table);
	RUN(welch_by_hand);
	RUN(one_recording_judged_by_the_other_side);
	RUN(no_spread);
	return TEST_SUMMARY();
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * diff_pace: a recording's pace is the median of its rows' distances from
 * their medians, the row under test left out; too few rows give none; a
 * recording left out (no row at all) has none.
 */
#include <math.h>
#include "report/diff_pace.h"
#include "testlib.h"

#define CHECK_CLOSE(a, b, tol) CHECK(fabs((a) - (b)) < (tol))

/* rows x 3 recordings of logs, recording k running at speed[k] */
static void fill(double *logs, size_t nrows, const double *speed)
{
	size_t i, k;

	for (i = 0; i < nrows; i++)
		for (k = 0; k < 3; k++)
			logs[i * 3 + k] = log(100.0 * (double)(i + 1)) +
					  log(speed[k]);
}

TEST(pace_is_the_rest_of_the_recording)
{
	const double speed[] = { 1.0, 1.2, 0.9 };
	double logs[5 * 3], pace[3];
	struct diff_pace p;

	fill(logs, 5, speed);
	/* row 0 ran 1.5x in recording 1 alone: its own pace does not see it */
	logs[0 * 3 + 1] += log(1.5);
	CHECK_EQ_INT(diff_pace_init(&p, logs, 5, 3, DIFF_PACE_MIN_ROWS), 0);
	diff_pace_of(&p, 0, pace);
	/* distances from each row's median (recording 0's speed) */
	CHECK_CLOSE(pace[0], 0, 1e-12);
	CHECK_CLOSE(pace[1], log(1.2), 1e-12);
	CHECK_CLOSE(pace[2], log(0.9), 1e-12);
	CHECK_CLOSE(logs[0 * 3 + 1] - pace[1] - (logs[0] - pace[0]),
		    log(1.5), 1e-12);
	/* the others' pace: the median is not moved by that one row */
	diff_pace_of(&p, 5, pace);
	CHECK_CLOSE(pace[1], log(1.2), 1e-12);
	diff_pace_free(&p);
}

TEST(too_few_rows_no_pace)
{
	const double speed[] = { 1.0, 1.2, 0.9 };
	double logs[3 * 3], pace[3];
	struct diff_pace p;

	fill(logs, 3, speed);
	CHECK_EQ_INT(diff_pace_init(&p, logs, 3, 3, DIFF_PACE_MIN_ROWS), 0);
	/* two other rows are fewer than DIFF_PACE_MIN_ROWS */
	diff_pace_of(&p, 0, pace);
	CHECK(pace[0] == 0 && pace[1] == 0 && pace[2] == 0);
	/* all three are enough */
	diff_pace_of(&p, 3, pace);
	CHECK_CLOSE(pace[1], log(1.2), 1e-12);
	diff_pace_free(&p);
}

TEST(absent_rows_and_recordings)
{
	const double speed[] = { 1.0, 1.2, 0.9 };
	double logs[5 * 3], pace[3];
	struct diff_pace p;
	size_t i;

	fill(logs, 5, speed);
	/* recording 2 left out: NAN throughout, and no pace */
	for (i = 0; i < 5; i++)
		logs[i * 3 + 2] = NAN;
	/* row 4 missing from recording 0: no part of anyone's pace */
	logs[4 * 3 + 0] = NAN;
	logs[4 * 3 + 1] += log(3);
	CHECK_EQ_INT(diff_pace_init(&p, logs, 5, 3, DIFF_PACE_MIN_ROWS), 0);
	diff_pace_of(&p, 0, pace);
	CHECK(isnan(pace[2]));
	/* rows 1-3 (median of each: between the two) */
	CHECK_CLOSE(pace[1] - pace[0], log(1.2), 1e-12);
	diff_pace_free(&p);
}

int main(void)
{
	RUN(pace_is_the_rest_of_the_recording);
	RUN(too_few_rows_no_pace);
	RUN(absent_rows_and_recordings);
	return TEST_SUMMARY();
}

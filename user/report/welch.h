/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * welch.h - Welch's t test, what `diff` asks of the recording-level
 * values (each recording's p50 of one operator) of two sets of recordings.
 *
 * Why across recordings and why t: runs of one process share its state
 * (placement, frequency, neighbours), so the noise that matters is between
 * processes and a test over runs is too sure. Each recording is then one
 * sample; with 5 a side Mann-Whitney cannot go below p = 0.008 before any
 * correction for many rows, while a recording's p50 is already a median
 * of many runs, near enough normal for t. Welch's form does not assume
 * both sides vary alike. With one recording on one side there is no
 * spread of its own: the other side's variance stands for both (Student's
 * pooled test, the new recording judged against the spread of the base).
 */
#ifndef ETDUMP_WELCH_H
#define ETDUMP_WELCH_H

#include <stddef.h>

/*
 * t of x against y (positive: x larger) and its two-sided p-value.
 * nx, ny >= 1 and nx + ny >= 3; -EINVAL otherwise. Two sides without
 * any spread give p = 1 when their means are equal, 0 when not.
 */
int welch_t(const double *x, size_t nx, const double *y, size_t ny,
	    double *t, double *p);

/* P(|T| >= |t|) for Student's t with df > 0 degrees of freedom. */
double student_t_two_sided(double t, double df);

#endif /* ETDUMP_WELCH_H */

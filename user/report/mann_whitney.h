/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mann_whitney.h - the Mann-Whitney U test (Wilcoxon rank-sum), what
 * `diff` asks of two recordings' per-run durations of one operator.
 *
 * Why this test: per-run durations are not normal (a floor set by the
 * work, a long right tail from interrupts, preemption and cache misses),
 * so a t-test's assumptions do not hold and one outlier run moves its
 * mean; U compares ranks only, needs no distribution, tolerates outliers
 * and unequal run counts, and asks exactly "does one recording tend to
 * take longer than the other".
 *
 * The p-value is two-sided. Without ties and with at most
 * MW_EXACT_MAX runs on each side it is exact (the distribution of U
 * counted over every arrangement); otherwise it is the normal
 * approximation with the tie correction of the variance and a continuity
 * correction of 0.5, as scipy.stats.mannwhitneyu computes it.
 */
#ifndef ETDUMP_MANN_WHITNEY_H
#define ETDUMP_MANN_WHITNEY_H

#include <stddef.h>

#define MW_EXACT_MAX 30

/*
 * U of x (the count of pairs x[i] > y[j], ties one half) and the two-sided
 * p-value of x against y. nx, ny > 0; 0, or -ENOMEM. A test with no
 * information (every value equal) gives p = 1.
 */
int mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		 double *u, double *p);

/*
 * Holm's step-down adjustment of n p-values in place, so that "adjusted
 * p < alpha" holds the chance of any false alarm among the n below alpha.
 * 0 or -ENOMEM.
 */
int holm_adjust(double *p, size_t n);

#endif /* ETDUMP_MANN_WHITNEY_H */

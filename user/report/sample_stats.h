/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sample_stats.h - the median and standard deviation of a few values:
 * what `diff` takes over recordings (a handful a side, not runs).
 */
#ifndef ETDUMP_SAMPLE_STATS_H
#define ETDUMP_SAMPLE_STATS_H

#include <stddef.h>

/* The median of v[0..n), n >= 1; sorts v. */
double sample_median(double *v, size_t n);

/* The sample standard deviation (n - 1); 0 for fewer than 2 values. */
double sample_sd(const double *v, size_t n);

#endif /* ETDUMP_SAMPLE_STATS_H */

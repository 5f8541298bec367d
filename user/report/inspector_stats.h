/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * inspector_stats.h - the statistics ExecuTorch's Inspector prints for each
 * event of each event block (ExecuTorch: devtools/inspector/_inspector.py),
 * computed the way it computes them, floating point included, so that
 * every number matches the Inspector's to its last digit:
 *
 * - a duration is end - start; start > end is a 32-bit wrap, taken as
 *   (2^32-1 - start) + end (one tick short, as the Inspector does), and an
 *   error when either exceeds 2^32-1;
 * - times are ns and scaled to the unit asked for: float(duration) / f for
 *   ordinary events; for delegated ones start / f and end / f are taken
 *   first and then subtracted (the Inspector's delegate time converter);
 * - p10, p50, p90 are numpy.percentile's "linear" method, avg is
 *   numpy.mean (pairwise summation), min and max are exact.
 */
#ifndef ETDUMP_INSPECTOR_STATS_H
#define ETDUMP_INSPECTOR_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/etdump_model.h"

enum report_unit { REPORT_NS, REPORT_US, REPORT_MS, REPORT_S };

struct report_stats {
	double p10, p50, p90, avg, min, max;
};

/* "ns", "us", "ms", "s": 0, or -EINVAL for anything else. */
int report_unit_parse(const char *s, enum report_unit *out);
const char *report_unit_name(enum report_unit unit);

/*
 * Duration in ticks with the wrap rule: 0, or -ERANGE when start > end
 * and one of them exceeds 2^32-1.
 */
int report_elapsed(uint64_t start, uint64_t end, uint64_t *out);
/* One profile event's duration in unit: 0 or -ERANGE (see above). */
int report_duration(const struct etd_event *pe, bool delegated,
		    enum report_unit unit, double *out);
/* numpy.percentile(v, pct) of ascending sorted v, n > 0. */
double report_percentile(const double *sorted, size_t n, double pct);
/* numpy.mean(v), n > 0. */
double report_mean(const double *v, size_t n);
/* All six of v (n > 0, any order; v is left as it is). */
int report_stats_of(const double *v, size_t n, struct report_stats *out);

#endif /* ETDUMP_INSPECTOR_STATS_H */

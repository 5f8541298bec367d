/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * diff_format.h - a struct diff as an aligned table for people, CSV
 * (RFC 4180) or JSON for programs; the same columns in all three:
 *
 *   event_block_name, event_name, runs_base, runs_new,
 *   p50_base (U), p50_new (U), p50_change (U), p50_change_pct,
 *   avg_base (U), avg_new (U), avg_change_pct, p_value, verdict,
 *   <counter>_p50_base, <counter>_p50_new, <counter>_p50_change_pct
 *
 * CSV and JSON also carry event_block_ordinal and significant. The table
 * rounds to 6 significant digits, percentages to one decimal; CSV and
 * JSON give every number in full precision; what does not exist (a
 * side the event is missing from) is "-", an empty field, null.
 */
#ifndef ETDUMP_DIFF_FORMAT_H
#define ETDUMP_DIFF_FORMAT_H

#include <stdio.h>
#include "diff.h"
#include "report_format.h"

struct diff_output {
	enum report_format format;
	enum report_unit unit;
	const char *base, *new;          /* named in the table's first line */
	double alpha, min_change_pct, min_delta_ns;
	size_t top;                      /* 0: every row */
};

/* 0, -EIO when f reports a write error, -ENOMEM. */
int diff_print(FILE *f, const struct diff *d, const struct diff_output *o);

#endif /* ETDUMP_DIFF_FORMAT_H */

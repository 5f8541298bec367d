/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * diff_format.h - a struct diff as an aligned table for people, CSV
 * (RFC 4180) or JSON for programs; the same columns in all three:
 *
 *   event_block_name, event_name, runs_base, runs_new,
 *   [recordings_base, recordings_new,]
 *   p50_base (U), p50_new (U), p50_change (U), p50_change_pct, [noise (U),]
 *   avg_base (U), avg_new (U), avg_change_pct, p_value, verdict,
 *   <counter>_p50_base, <counter>_p50_new, <counter>_p50_change_pct
 *
 * the bracketed ones in the table and markdown only with several
 * recordings on a side. Markdown is the table as a GitHub table, for a CI
 * job's summary or a pull-request comment. CSV and JSON also carry
 * event_block_ordinal and significant, and always the bracketed ones
 * (noise null with one recording a side). The table
 * rounds to 6 significant digits, percentages to one decimal; CSV and
 * JSON give every number in full precision; what does not exist (a
 * side the event is missing from) is "-", an empty field, null.
 */
#ifndef ETDUMP_DIFF_FORMAT_H
#define ETDUMP_DIFF_FORMAT_H

#include <stdio.h>
#include "report/diff.h"
#include "report/report_format.h"

enum diff_format { DIFF_TABLE, DIFF_CSV, DIFF_JSON, DIFF_MARKDOWN };

struct diff_output {
	enum diff_format format;
	enum report_unit unit;
	const char *base, *new;          /* named in the table's first line */
	const char *repeat_hint;         /* how to record several: the note */
	double alpha, min_change_pct, min_delta_ns;
	size_t top;                      /* 0: every row */
};

/* 0, -EIO when f reports a write error, -ENOMEM. */
int diff_print(FILE *f, const struct diff *d, const struct diff_output *o);

#endif /* ETDUMP_DIFF_FORMAT_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report_format.h - a struct report as text: an aligned table for people,
 * CSV (RFC 4180) and JSON for programs. All three show the same columns,
 * named as the Inspector's to_dataframe() names them:
 *
 *   event_block_name, event_name, runs, p10 (U) .. max (U),
 *   is_delegated_op, delegate_backend_name, op_call,
 *   <counter>_p50, <counter>_avg (one pair per recorded counter),
 *
 * CSV and JSON add event_block_index (blocks may share a name) and
 * delegate_debug_identifier. delegate_backend_name is always empty: it
 * needs an ETRecord. op_call marks the rows print_data_tabular() drops
 * (names containing "OPERATOR_CALL"); with no_operator_call they are
 * dropped here too.
 *
 * Numbers: the table shows 6 significant digits, the digits the
 * Inspector's tabulate output shows ("%g"), but never in exponent form
 * (1234567 stays 1234567), aligned on the decimal point; CSV and JSON
 * give the shortest text that reads back as the same double. A value that
 * does not exist (a debug-only event has no times; a counter with no valid
 * value in any run) is "-" in the table, an empty CSV field, JSON null.
 */
#ifndef ETDUMP_REPORT_FORMAT_H
#define ETDUMP_REPORT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "report_stats.h"

enum report_format { REPORT_TABLE, REPORT_CSV, REPORT_JSON };

struct report_output {
	enum report_format format;
	bool no_operator_call;
	const char *source;     /* named in the table's first line */
};

/* 0, or -EIO when f reports a write error, -ENOMEM. */
int report_print(FILE *f, const struct report *r,
		 const struct report_output *o);

/* The two number formats above, into buf (REPORT_NUM_LEN bytes suffice). */
#define REPORT_NUM_LEN 48
void report_fmt_readable(double v, char *buf, size_t len);
void report_fmt_exact(double v, char *buf, size_t len);
/* One CSV field, quoted when RFC 4180 asks for it. */
void report_csv_field(FILE *f, const char *s);

#endif /* ETDUMP_REPORT_FORMAT_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report_format.h - a struct report as text: an aligned table for people,
 * CSV (RFC 4180) and JSON for programs, columns named as the Inspector's
 * to_dataframe() names them.
 *
 * The table is print_data_tabular()'s: event_block_name, event_name,
 * p10 (U) .. max (U), op_types, is_delegated_op, delegate_backend_name,
 * then what it lacks: runs, share (%) of the block's total, the counters'
 * <counter>_p50 and _avg, and start_time (the Inspector's list of per-run
 * start times, last as the widest: more than 4 values are shortened as
 * its truncated_list() does); a "(block total)" line ends each block
 * (report_total.h). OPERATOR_CALL rows are left out there unless asked.
 *
 * CSV and JSON hold every column: event_block_name, event_block_index
 * (blocks may share a name), event_name, runs, p10 (U) .. max (U),
 * is_delegated_op, delegate_backend_name, op_call,
 * delegate_debug_identifier, the counters, op_types, start_time (whole),
 * share (%), block_total_avg (U).
 *
 * op_types and delegate_backend_name need an ETRecord: empty, as in the
 * Inspector without one.
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
#include "report/report_stats.h"

enum report_format { REPORT_TABLE, REPORT_CSV, REPORT_JSON };

/* --sort: within each block; numbers largest first, names A to Z */
enum report_sort {
	REPORT_SORT_FILE,       /* the file's (and the Inspector's) order */
	REPORT_SORT_P10, REPORT_SORT_P50, REPORT_SORT_P90, REPORT_SORT_AVG,
	REPORT_SORT_MIN, REPORT_SORT_MAX, REPORT_SORT_SHARE, REPORT_SORT_RUNS,
	REPORT_SORT_NAME,
};

struct report_output {
	enum report_format format;
	bool no_operator_call;
	const char *source;     /* named in the table's first line */
	/* the recording's instruction ids follow call order (report_note.h) */
	bool call_order_ids;
	uint32_t kept_every;      /* record --every N: N, else 0 */
	/* recorded in windows: record --duty's PCT/PERIOD, or "" */
	char duty[32];
	enum report_sort sort;
	size_t top;             /* 0: every row; else N per block */
};

/* "p10" .. "max", "share", "runs", "event_name"/"name": 0 or -EINVAL. */
int report_sort_parse(const char *s, enum report_sort *out);

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

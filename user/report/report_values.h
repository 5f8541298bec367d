/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report_values.h - `report --values`: the DebugEvents of an ETDump (ours
 * from record --values, or ETDumpGen's) with their debug buffer, one row
 * per value: where it was logged (run, chain, instruction, the operator
 * whose output it is), dtype, shape, min, max, mean, NaN and Inf counts,
 * and whether record cut it short (the buffer's trailer, debug_buffer.h).
 *
 * Given two recordings, the values are paired in order (run by run, value
 * by value) and each row says how far B is from A: elements that differ
 * by more than the tolerance, the largest absolute and relative
 * difference; a last line names the first operator, in execution order,
 * whose output differs.
 */
#ifndef ETDUMP_REPORT_VALUES_H
#define ETDUMP_REPORT_VALUES_H

#include <stdio.h>

struct report_values_input {
	const char *etdump;
	const char *debug_buffer;  /* NULL: beside the ETDump */
};

/*
 * b NULL: one recording. Returns 0 (printed), 1 (an input could not be
 * read: one line said why) or, comparing, 0 whatever the differences.
 */
int report_values(FILE *out, const struct report_values_input *a,
		  const struct report_values_input *b, double atol);

#endif /* ETDUMP_REPORT_VALUES_H */

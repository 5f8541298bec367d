/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doctor_modes.h - whether each way of recording works on this kernel,
 * found by doing it: record, run by this same binary as a user runs it,
 * records its own doctor target (doctor_target.h) in each mode into a
 * directory of its own, removed after. What a version number or a feature
 * list would only guess (a verifier that refuses a program, a link type
 * missing) shows as the mode's own error.
 */
#ifndef ETDUMP_DOCTOR_MODES_H
#define ETDUMP_DOCTOR_MODES_H

#include <stdbool.h>

#define DOCTOR_MODE_WHY_MAX 256

struct doctor_mode_result {
	const char *name;   /* "batched", "--precise", ... */
	const char *what;   /* what the mode records, for the line */
	bool works;
	/* record's first error line, or what degraded (its summary's notes) */
	char why[DOCTOR_MODE_WHY_MAX];
};

/* The modes checked, one result each; *n set; NULL when none could run. */
struct doctor_mode_result *doctor_modes_check(const char *self, int *n,
					      char *err, int errlen);

#endif /* ETDUMP_DOCTOR_MODES_H */

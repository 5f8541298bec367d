/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * counters.h - the perf counters a recording reads at every scope: parse
 * perf's event names, open what the machine allows, fall back to software
 * counters with one line saying why.
 */
#ifndef ETDUMP_COUNTERS_H
#define ETDUMP_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>
#include "schema/etdump_record.h"

struct counter_spec {
	char name[32];          /* as the user wrote it: perf's name or rNNNN */
	uint8_t kind;           /* enum etdump_counter_kind */
	uint32_t type;          /* perf_event_attr, ETDUMP_CTR_PERF only */
	uint64_t config;
};

struct counter_set {
	uint32_t n;
	struct counter_spec spec[ETDUMP_MAX_COUNTERS];
	int ncpus;
	int *fds;               /* ETDUMP_CTR_PERF: n * ncpus, i * ncpus + cpu */
	bool required;          /* asked for by name (-e): no fallback */
};

/* "cycles,instructions": -EINVAL with the offending name in err. */
int counters_parse(const char *list, struct counter_set *set, char *err,
		   size_t errlen);
/*
 * Open what `set` asks for on every CPU. Counters the machine cannot count
 * are dropped, and a set that lost them all falls back to task-clock,
 * page-faults and context-switches; one line says what was chosen and why.
 * A required set (-e) is not changed: a counter the machine cannot count
 * is an error (-EOPNOTSUPP) whose line names what it can count. Negative
 * errno only for errors other than "not supported".
 */
int counters_open(struct counter_set *set);
void counters_close(struct counter_set *set);
/* The default request: cycles and instructions. */
void counters_default(struct counter_set *set);

#endif /* ETDUMP_COUNTERS_H */

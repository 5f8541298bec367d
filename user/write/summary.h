/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * summary.h - the closing lines of `record` and `convert`: what was
 * written, then what the collector left out and why.
 */
#ifndef ETDUMP_SUMMARY_H
#define ETDUMP_SUMMARY_H

#include <stdint.h>
#include "collect/collector.h"
#include "model/etdump_model.h"
#include "model/run_log.h"

/*
 * "<how>; wrote <files>: 21 runs (1 Default + 20 Execute), 338 events,
 * 0 dropped"
 */
void summary_totals(const char *how, const char *files,
		    const struct etd_dump *dump,
		    const struct collector_stats *st, uint64_t drops);
/* The same, the runs described as summary_describe_log() does. */
void summary_totals_text(const char *how, const char *files, const char *runs,
			 const struct collector_stats *st, uint64_t drops);
/*
 * The runs' names counted as they go by: up to 32 names (interned: known
 * by address), each with its earliest open time.
 */
#define RUN_NAMES_MAX 32
struct run_names {
	struct run_name_count {
		const char *name;
		uint64_t first;
		size_t n;
	} nc[RUN_NAMES_MAX];
};

void run_names_add(struct run_names *rn, const struct run_view *r);
/* "1 Default + 20 Execute": the names by first open time. */
void run_names_describe(const struct run_names *rn, char *buf, size_t len);
/* The same for the runs of a log. */
void summary_describe_log(struct run_log *log, char *buf, size_t len);
/*
 * record --every N: "kept 1 run in N: K runs written, M left out by the
 * runtime (the ETDump holds P% of the runs)"; runs another recorder's N
 * left out are said too.
 */
void summary_every(uint32_t every, const struct collector_stats *st);
/* One line per kind of event left out, lost or unreadable. */
void summary_notes(const struct collector_stats *st, uint64_t drops);

#endif /* ETDUMP_SUMMARY_H */

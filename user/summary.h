/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * summary.h - the closing lines of `record` and `convert`: what was
 * written, then what the collector left out and why.
 */
#ifndef ETDUMP_SUMMARY_H
#define ETDUMP_SUMMARY_H

#include <stdint.h>
#include "collector.h"
#include "etdump_model.h"

/*
 * "<how>; wrote <files>: 21 runs (1 Default + 20 Execute), 338 events,
 * 0 dropped"
 */
void summary_totals(const char *how, const char *files,
		    const struct etd_dump *dump,
		    const struct collector_stats *st, uint64_t drops);
/* One line per kind of event left out, lost or unreadable. */
void summary_notes(const struct collector_stats *st, uint64_t drops);

#endif /* ETDUMP_SUMMARY_H */

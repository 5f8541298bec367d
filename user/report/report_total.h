/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report_total.h - what a block's run takes as a whole, which the
 * Inspector does not give: per run, the sum of the durations of its
 * top-level profile events (those no other event of the run encloses, so
 * Method::execute counts once and the operators inside it not again);
 * over the runs, the same six statistics as an event's. Each event's share
 * is its avg over the total's avg.
 */
#ifndef ETDUMP_REPORT_TOTAL_H
#define ETDUMP_REPORT_TOTAL_H

#include "report/inspector_stats.h"
#include "report/report_group.h"

/* 0, -ENOMEM, or -ERANGE for a duration report_duration() rejects. */
int report_block_total(const struct rg_block *b, enum report_unit unit,
		       struct report_stats *out);

#endif /* ETDUMP_REPORT_TOTAL_H */

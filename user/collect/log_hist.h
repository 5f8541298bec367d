/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * log_hist.h - a histogram of durations in log-scale buckets (each power
 * of two split in 8), for percentiles without keeping the values: within
 * an eighth of the value, in 2 KiB whatever the count.
 */
#ifndef ETDUMP_LOG_HIST_H
#define ETDUMP_LOG_HIST_H

#include <stdint.h>

#define LOG_HIST_SUB 8
#define LOG_HIST_BUCKETS (64 * LOG_HIST_SUB)

struct log_hist {
	uint64_t count;
	uint32_t n[LOG_HIST_BUCKETS];
};

void log_hist_add(struct log_hist *h, uint64_t v);
/* The upper bound of the bucket holding the pct-th percentile; 0 if empty. */
uint64_t log_hist_percentile(const struct log_hist *h, unsigned int pct);

#endif /* ETDUMP_LOG_HIST_H */

// SPDX-License-Identifier: BSD-3-Clause
#include "collect/log_hist.h"

static unsigned int bucket_of(uint64_t v)
{
	unsigned int log = 63 - __builtin_clzll(v | 1);
	unsigned int sub = log >= 3 ? (v >> (log - 3)) & (LOG_HIST_SUB - 1) : 0;

	return log * LOG_HIST_SUB + sub;
}

static uint64_t bucket_top(unsigned int b)
{
	unsigned int log = b / LOG_HIST_SUB, sub = b % LOG_HIST_SUB;

	if (log < 3)
		return (2ull << log) - 1;
	/* the top bucket's bound does not fit: the largest value does */
	if (log == 63 && sub == LOG_HIST_SUB - 1)
		return UINT64_MAX;
	return ((uint64_t)(LOG_HIST_SUB + sub + 1) << (log - 3)) - 1;
}

void log_hist_add(struct log_hist *h, uint64_t v)
{
	h->n[bucket_of(v)]++;
	h->count++;
}

uint64_t log_hist_percentile(const struct log_hist *h, unsigned int pct)
{
	uint64_t want = (h->count * pct + 99) / 100, seen = 0;
	unsigned int b;

	if (!h->count)
		return 0;
	if (!want)
		want = 1;
	for (b = 0; b < LOG_HIST_BUCKETS; b++) {
		seen += h->n[b];
		if (seen >= want)
			return bucket_top(b);
	}
	return bucket_top(LOG_HIST_BUCKETS - 1);
}

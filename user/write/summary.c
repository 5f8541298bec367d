// SPDX-License-Identifier: BSD-3-Clause
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/log.h"
#include "schema/etdump_record.h"
#include "write/summary.h"
/* the ABI version only */
#define ETDUMP_USDT_DISABLE
#include "schema/etdump_usdt.h"

/* "1 Default + 20 Execute": run names in first-seen order with counts. */
static void describe_runs(const struct etd_dump *dump, char *buf, size_t len)
{
	size_t i, j, off = 0;

	buf[0] = '\0';
	for (i = 0; i < dump->nruns && off < len; i++) {
		size_t n = 0;

		for (j = 0; j < i; j++)
			if (!strcmp(dump->runs[j].name, dump->runs[i].name))
				break;
		if (j < i)
			continue;
		for (j = i; j < dump->nruns; j++)
			n += !strcmp(dump->runs[j].name, dump->runs[i].name);
		off += snprintf(buf + off, len - off, "%s%zu %s",
				off ? " + " : "", n, dump->runs[i].name);
	}
}

void run_names_add(struct run_names *rn, const struct run_view *r)
{
	struct run_name_count *nc = rn->nc;
	size_t i;

	/* names are interned: the pointer is the name */
	for (i = 0; i < RUN_NAMES_MAX && nc[i].name && nc[i].name != r->name;
	     i++)
		;
	if (i == RUN_NAMES_MAX)
		return;
	if (!nc[i].name || r->open_time < nc[i].first)
		nc[i].first = r->open_time;
	nc[i].name = r->name;
	nc[i].n++;
}

static int count_name(void *ctx, struct run_view *r)
{
	run_names_add(ctx, r);
	return 0;
}

static int first_cmp(const void *a, const void *b)
{
	const struct run_name_count *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

void run_names_describe(const struct run_names *rn, char *buf, size_t len)
{
	struct run_names sorted = *rn;
	size_t i, n, off = 0;

	for (n = 0; n < RUN_NAMES_MAX && sorted.nc[n].name; n++)
		;
	qsort(sorted.nc, n, sizeof(*sorted.nc), first_cmp);
	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%zu %s",
				off ? " + " : "", sorted.nc[i].n,
				sorted.nc[i].name);
}

void summary_describe_log(struct run_log *log, char *buf, size_t len)
{
	struct run_names rn = { 0 };

	run_log_each(log, false, count_name, &rn);
	run_names_describe(&rn, buf, len);
}

void summary_totals(const char *how, const char *files,
		    const struct etd_dump *dump,
		    const struct collector_stats *st, uint64_t drops)
{
	char runs[256];

	describe_runs(dump, runs, sizeof(runs));
	summary_totals_text(how, files, runs, st, drops);
}

void summary_totals_text(const char *how, const char *files, const char *runs,
			 const struct collector_stats *st, uint64_t drops)
{
	p_info("%s; wrote %s: %llu runs%s%s%s, %llu events, %llu dropped",
	       how, files, (unsigned long long)st->runs,
	       st->runs && *runs ? " (" : "", runs,
	       st->runs && *runs ? ")" : "",
	       (unsigned long long)st->events, (unsigned long long)drops);
}

void summary_every(uint32_t every, const struct collector_stats *st)
{
	uint64_t all = st->runs + st->runs_skipped;
	double held = all ? 100.0 * (double)st->runs / (double)all : 0;

	if (every > 1)
		p_info("kept 1 run in %u: %llu runs written, %llu left out by the runtime (the ETDump holds %.1f%% of the runs)",
		       every, (unsigned long long)st->runs,
		       (unsigned long long)st->runs_skipped, held);
	else if (st->runs_skipped)
		p_info("%llu runs left out by the runtime (another recorder's --every): the ETDump holds %.1f%% of the runs",
		       (unsigned long long)st->runs_skipped, held);
}

void summary_notes(const struct collector_stats *st, uint64_t drops)
{
	if (st->incomplete_runs)
		p_info("%llu run(s) left out: still executing when recording stopped",
		       (unsigned long long)st->incomplete_runs);
	if (st->outside_run || st->unmatched_ends)
		p_info("%llu event(s) before the first run of their thread and %llu end(s) without a begin left out (attached mid-run: start the target under record, or attach before its runs, to have them)",
		       (unsigned long long)st->outside_run,
		       (unsigned long long)st->unmatched_ends);
	if (st->worker_events)
		p_info("%llu event(s) of %u thread(s) that opened no run of their own (a worker pool) put into the run open when they ended",
		       (unsigned long long)st->worker_events, st->worker_threads);
	if (st->truncated)
		p_info("%llu name(s) or metadata cut to the probes' bound (%d and %d bytes)",
		       (unsigned long long)st->truncated, ETDUMP_NAME_MAX - 1,
		       ETDUMP_META_MAX);
	if (st->lost_runs)
		p_info("%llu run(s) left out: the ring buffer lost some of their events",
		       (unsigned long long)st->lost_runs);
	if (st->doubtful_unowned)
		p_info("%llu event(s) of threads outside any run left out: the ring buffer lost records around them",
		       (unsigned long long)st->doubtful_unowned);
	if (st->left_out && drops)
		p_info("in all, %llu event(s) that arrived were not written",
		       (unsigned long long)st->left_out);
	if (st->empty_runs)
		p_info("%llu run(s) left out: no event at all",
		       (unsigned long long)st->empty_runs);
	if (st->unclosed_scopes)
		p_info("%llu scope(s) never closed (an early return?) left out",
		       (unsigned long long)st->unclosed_scopes);
	if (st->unreadable)
		p_warn("%llu name(s) could not be read in the probe (their page was not present)",
		       (unsigned long long)st->unreadable);
	if (st->bad_records)
		p_warn("%llu malformed record(s) ignored",
		       (unsigned long long)st->bad_records);
	if (st->flushes_on_line && !st->flushes_between_anchors)
		p_info("batched stamps: the CPU's counter, turned into CLOCK_MONOTONIC on the kernel's own line of it: the clock to the ns");
	else if (st->flushes_on_line)
		p_info("batched stamps: the CPU's counter, turned into CLOCK_MONOTONIC on the kernel's own line of it (to the ns) in %llu buffer(s), between the anchors each carries (within tens of ns) in %llu",
		       (unsigned long long)st->flushes_on_line,
		       (unsigned long long)st->flushes_between_anchors);
	else if (st->counter_flushes)
		p_info("batched stamps: the CPU's counter, turned into CLOCK_MONOTONIC between the anchors each buffer carries (within tens of ns)");
	if (st->old_batch_layout)
		p_warn("%llu batched flush(es) ignored: the runtime was built with an older schema/etdump_usdt.h (rebuild it with this one's, ABI %d)",
		       (unsigned long long)st->old_batch_layout,
		       ETDUMP_USDT_ABI_VERSION);
	if (drops)
		p_warn("%llu event(s) lost: the ring buffer was full; try a larger --ring-size",
		       (unsigned long long)drops);
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * report_stats.c - the table of `etdump-bpf report`: each block's events
 * with the Inspector's statistics (report/inspector_stats.c) and the
 * block's total.
 *
 * The counters' numbers below are CPython's, one IEEE operation at a time
 * as in report/inspector_stats.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/report_group.h"
#include "report/report_stats.h"
#include "report/report_total.h"

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return (a > b) - (a < b);
}

/* statistics.median and statistics.fmean of integers, n > 0. */
static void counter_stats(uint64_t *v, size_t n, double *p50, double *avg)
{
	unsigned __int128 sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += v[i];
	*avg = (double)sum / (double)n;
	qsort(v, n, sizeof(*v), cmp_u64);
	if (n % 2)
		*p50 = (double)v[n / 2];
	else /* halving a rounded sum is the rounded half */
		*p50 = (double)((unsigned __int128)v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Scratch shared by every event: one slot per merged run. */
struct build {
	const struct etd_dump *dump;
	enum report_unit unit;
	double *raw;
	uint64_t *counts;
	char *err;
	size_t errlen;
};

static bool is_delegated(const struct etd_event *ev)
{
	return ev->delegate_id_int != ETD_UNSET ||
	       (ev->delegate_id_str && *ev->delegate_id_str);
}

/*
 * The Inspector's _populate_event_signature_fields: the profile part, then
 * the debug part, each overriding the delegate fields, and the name when
 * it gives a non-empty one.
 */
static int apply_part(struct report_event *re, const struct etd_event *ev)
{
	const char *name;
	char num[16];
	char *dup;

	if (!ev)
		return 0;
	free(re->id_str);
	re->id_str = NULL;
	re->id_kind = REPORT_ID_NONE;
	if (ev->delegate_id_int != ETD_UNSET) {
		re->id_kind = REPORT_ID_INT;
		re->id_int = ev->delegate_id_int;
		snprintf(num, sizeof(num), "%d", (int)ev->delegate_id_int);
		name = num;
	} else if (ev->delegate_id_str && *ev->delegate_id_str) {
		re->id_str = strdup(ev->delegate_id_str);
		if (!re->id_str)
			return -ENOMEM;
		re->id_kind = REPORT_ID_STR;
		name = re->id_str;
	} else {
		name = ev->name ? ev->name : "";
	}
	re->delegated = re->id_kind != REPORT_ID_NONE;
	if (!*name)
		return 0;
	dup = strdup(name);
	if (!dup)
		return -ENOMEM;
	free(re->name);
	re->name = dup;
	return 0;
}

static int time_error(const struct build *bd, const struct rg_block *b,
		      size_t r, const struct etd_event *pe)
{
	size_t ri = b->run_index[r];

	snprintf(bd->err, bd->errlen, "the Inspector cannot load this file: run_data[%zu].events[%zu] starts at %llu and ends at %llu, earlier, and that is no 32-bit wrap-around (ValueError: Expected start_time and end_time to be less than 4294967295)",
		 ri, (size_t)(pe - bd->dump->runs[ri].events),
		 (unsigned long long)pe->start_time,
		 (unsigned long long)pe->end_time);
	return -EINVAL;
}

static int event_times(const struct build *bd, const struct rg_block *b,
		       size_t k, struct report_event *re)
{
	bool delegated = is_delegated(b->sigs[k].pe);
	const struct etd_event *pe;
	size_t r;

	re->start_times = calloc(b->nruns, sizeof(*re->start_times));
	if (!re->start_times)
		return -ENOMEM;
	for (r = 0; r < b->nruns; r++) {
		pe = b->occ[r * b->nsigs + k];
		if (report_duration(pe, delegated, bd->unit, &bd->raw[r]))
			return time_error(bd, b, r, pe);
		re->start_times[re->nstart_times++] = pe->start_time;
	}
	re->has_time = true;
	return report_stats_of(bd->raw, b->nruns, &re->time);
}

static void event_counters(const struct build *bd, const struct rg_block *b,
			   size_t k, struct report_event *re)
{
	const struct etd_event *pe;
	uint32_t c;
	size_t r, n;

	for (c = 0; c < bd->dump->ncounters && c < ETD_MAX_COUNTERS; c++) {
		for (r = n = 0; r < b->nruns; r++) {
			pe = b->occ[r * b->nsigs + k];
			if (pe && c < pe->counters.n && pe->counters.valid[c])
				bd->counts[n++] = pe->counters.value[c];
		}
		re->has_counter[c] = n > 0;
		if (n)
			counter_stats(bd->counts, n, &re->counter_p50[c],
				      &re->counter_avg[c]);
	}
}

static int make_event(const struct build *bd, const struct rg_block *b,
		      size_t k, struct report_event *re)
{
	const struct rg_sig *sig = &b->sigs[k];
	int err;

	re->name = strdup("");
	if (!re->name)
		return -ENOMEM;
	err = apply_part(re, sig->pe);
	if (!err)
		err = apply_part(re, sig->de);
	if (err)
		return err;
	re->op_call = strstr(re->name, "OPERATOR_CALL") != NULL;
	event_counters(bd, b, k, re);
	return sig->pe ? event_times(bd, b, k, re) : 0;
}

static int make_block(const struct build *bd, const struct rg_block *b,
		      struct report_block *rb)
{
	size_t k;
	int err;

	rb->name = strdup(b->run->name);
	rb->events = calloc(b->nsigs ? b->nsigs : 1, sizeof(*rb->events));
	if (!rb->name || !rb->events)
		return -ENOMEM;
	rb->nruns = b->nruns;
	for (k = 0; k < b->nsigs; k++) {
		err = make_event(bd, b, k, &rb->events[rb->nevents++]);
		if (err)
			return err;
	}
	/* every duration passed make_event(): only -ENOMEM is left */
	err = report_block_total(b, bd->unit, &rb->total);
	for (k = 0; !err && k < rb->nevents; k++)
		if (rb->events[k].has_time && rb->total.avg > 0)
			rb->events[k].share = rb->events[k].time.avg /
					      rb->total.avg * 100;
	return err;
}

/* What pandas refuses when the Inspector builds its table. */
static int check_tabular(const struct build *bd, const struct rg_blocks *g)
{
	const char *why = "the Inspector cannot tabulate this file";
	size_t i, ri;

	if (!g->n) {
		snprintf(bd->err, bd->errlen, "%s: no run has events, so there is no event block (ValueError: No objects to concatenate)",
			 why);
		return -EINVAL;
	}
	for (i = 0; i < g->n; i++) {
		if (g->b[i].nsigs)
			continue;
		ri = g->b[i].run_index[0];
		snprintf(bd->err, bd->errlen, "%s: run_data[%zu] (\"%s\") has an empty events vector (ValueError: No objects to concatenate)",
			 why, ri, bd->dump->runs[ri].name);
		return -EINVAL;
	}
	return 0;
}

static int copy_counter_names(const struct etd_dump *dump, struct report *r)
{
	uint32_t c;

	for (c = 0; c < dump->ncounters && c < ETD_MAX_COUNTERS; c++) {
		r->counter_names[c] = strdup(dump->counter_names[c] ?
					     dump->counter_names[c] : "");
		if (!r->counter_names[c])
			return -ENOMEM;
		r->ncounters = c + 1;
	}
	return 0;
}

int report_build(const struct etd_dump *dump, enum report_unit unit,
		 struct report *out, char *err, size_t errlen)
{
	struct build bd = { .dump = dump, .unit = unit, .err = err,
			    .errlen = errlen };
	struct rg_blocks g;
	size_t i, maxruns = 1;
	int ret;

	memset(out, 0, sizeof(*out));
	out->unit = unit;
	ret = report_group(dump, &g, err, errlen);
	if (ret)
		return ret;
	for (i = 0; i < g.n; i++) {
		out->nruns += g.b[i].nruns;
		if (g.b[i].nruns > maxruns)
			maxruns = g.b[i].nruns;
	}
	bd.raw = calloc(maxruns, sizeof(*bd.raw));
	bd.counts = calloc(maxruns, sizeof(*bd.counts));
	out->blocks = calloc(g.n ? g.n : 1, sizeof(*out->blocks));
	ret = bd.raw && bd.counts && out->blocks ? 0 : -ENOMEM;
	if (!ret)
		ret = copy_counter_names(dump, out);
	for (i = 0; !ret && i < g.n; i++) {
		ret = make_block(&bd, &g.b[i], &out->blocks[i]);
		out->nblocks = i + 1;
	}
	if (!ret)
		ret = check_tabular(&bd, &g);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory computing the statistics");
	free(bd.raw);
	free(bd.counts);
	report_group_free(&g);
	if (ret)
		report_free(out);
	return ret;
}

void report_free(struct report *r)
{
	size_t i, k;

	for (i = 0; r->blocks && i < r->nblocks; i++) {
		for (k = 0; k < r->blocks[i].nevents; k++) {
			free(r->blocks[i].events[k].name);
			free(r->blocks[i].events[k].id_str);
			free(r->blocks[i].events[k].start_times);
		}
		free(r->blocks[i].events);
		free(r->blocks[i].name);
	}
	free(r->blocks);
	for (i = 0; i < r->ncounters; i++)
		free(r->counter_names[i]);
	memset(r, 0, sizeof(*r));
}

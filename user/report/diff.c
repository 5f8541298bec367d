// SPDX-License-Identifier: BSD-3-Clause
/*
 * diff.c - pair the events of two recordings, compare their runs.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diff.h"
#include "mann_whitney.h"
#include "report_group.h"

/* One timed event of one recording, with its runs. */
struct entry {
	const struct report_block *block;
	size_t block_ordinal;
	const struct report_event *ev;
	size_t ordinal;                 /* among same-named events */
	size_t block_index, sig;        /* its rg_block and signature */
	double *t;                      /* per-run durations, ns */
	size_t n;
	bool paired;
};

struct side {
	const struct etd_dump *dump;
	struct rg_blocks g;
	struct entry *e;
	size_t n;
	int counter_of[ETD_MAX_COUNTERS]; /* diff counter -> dump counter */
};

static size_t same_name_before(const struct report_block *blocks, size_t i)
{
	size_t j, n = 0;

	for (j = 0; j < i; j++)
		n += !strcmp(blocks[j].name, blocks[i].name);
	return n;
}

static size_t same_event_before(const struct report_block *b, size_t k)
{
	size_t j, n = 0;

	for (j = 0; j < k; j++)
		n += !strcmp(b->events[j].name, b->events[k].name);
	return n;
}

static bool delegated(const struct etd_event *pe)
{
	return pe->delegate_id_int != ETD_UNSET ||
	       (pe->delegate_id_str && *pe->delegate_id_str);
}

static int take_runs(const struct rg_block *b, size_t k, struct entry *e)
{
	const struct etd_event *pe;
	size_t r;

	e->t = calloc(b->nruns, sizeof(*e->t));
	if (!e->t)
		return -ENOMEM;
	for (r = 0; r < b->nruns; r++) {
		pe = b->occ[r * b->nsigs + k];
		/* report_build() accepted every duration already */
		if (report_duration(pe, delegated(pe), REPORT_NS, &e->t[e->n]))
			return -EINVAL;
		e->n++;
	}
	return 0;
}

/* Every timed event of rep, in the order report_build() made them. */
static int gather(struct side *s, const struct report *rep, char *err,
		  size_t errlen)
{
	size_t i, k, total = 0;
	int ret;

	ret = report_group(s->dump, &s->g, err, errlen);
	if (ret)
		return ret;
	for (i = 0; i < rep->nblocks; i++)
		total += rep->blocks[i].nevents;
	s->e = calloc(total ? total : 1, sizeof(*s->e));
	if (!s->e)
		return -ENOMEM;
	for (i = 0; i < rep->nblocks && i < s->g.n; i++) {
		const struct report_block *rb = &rep->blocks[i];

		for (k = 0; k < rb->nevents; k++) {
			struct entry *e = &s->e[s->n];

			if (!rb->events[k].has_time)
				continue;
			*e = (struct entry){
				.block = rb,
				.block_ordinal = same_name_before(rep->blocks, i),
				.ev = &rb->events[k],
				.ordinal = same_event_before(rb, k),
				.block_index = i,
				.sig = k,
			};
			s->n++;
			ret = take_runs(&s->g.b[i], k, e);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

static int side_stats(const struct entry *e, struct diff_side *out)
{
	double *s = malloc(e->n * sizeof(*s));

	if (!s)
		return -ENOMEM;
	memcpy(s, e->t, e->n * sizeof(*s));
	qsort(s, e->n, sizeof(*s), cmp_double);
	out->present = true;
	out->nruns = e->n;
	out->p50 = report_percentile(s, e->n, 50);
	out->avg = report_mean(e->t, e->n);
	free(s);
	return 0;
}

/* Counter c of the diff over the runs of e: p50 and avg, where valid. */
static int counter_stats(const struct side *s, const struct entry *e,
			 uint32_t c, struct diff_side *out)
{
	const struct rg_block *b = &s->g.b[e->block_index];
	size_t k = e->sig;
	int dc = s->counter_of[c];
	const struct etd_event *pe;
	double *v;
	size_t r, n = 0;

	v = calloc(b->nruns, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (r = 0; r < b->nruns; r++) {
		pe = b->occ[r * b->nsigs + k];
		if (pe && (uint32_t)dc < pe->counters.n &&
		    pe->counters.valid[dc])
			v[n++] = (double)pe->counters.value[dc];
	}
	if (n) {
		out->has_counter[c] = true;
		out->counter_avg[c] = report_mean(v, n);
		qsort(v, n, sizeof(*v), cmp_double);
		out->counter_p50[c] = report_percentile(v, n, 50);
	}
	free(v);
	return 0;
}

static int fill_side(const struct side *s, const struct entry *e,
		     uint32_t ncounters, struct diff_side *out)
{
	uint32_t c;
	int ret;

	ret = side_stats(e, out);
	for (c = 0; !ret && c < ncounters; c++)
		ret = counter_stats(s, e, c, out);
	return ret;
}

static bool same_event(const struct entry *a, const struct entry *b)
{
	return a->block_ordinal == b->block_ordinal &&
	       a->ordinal == b->ordinal &&
	       !strcmp(a->block->name, b->block->name) &&
	       !strcmp(a->ev->name, b->ev->name);
}

static double pct(double from, double to)
{
	return from > 0 ? (to - from) / from * 100 : (to > 0 ? INFINITY : 0);
}

static int add_row(struct diff *d, const struct side *sides,
		   const struct entry *b, const struct entry *n)
{
	const struct entry *any = b ? b : n;
	struct diff_row *r = &d->rows[d->nrows++];
	int ret = 0;

	*r = (struct diff_row){
		.block = any->block->name,
		.block_ordinal = any->block_ordinal,
		.event = any->ev->name,
		.op_call = any->ev->op_call,
		.p = 1,
		.order = d->nrows - 1,
	};
	if (b)
		ret = fill_side(&sides[0], b, d->ncounters, &r->base);
	if (!ret && n)
		ret = fill_side(&sides[1], n, d->ncounters, &r->new);
	if (ret)
		return ret;
	r->verdict = !b ? DIFF_ONLY_NEW : !n ? DIFF_ONLY_BASE : DIFF_SAME;
	r->delta_p50 = (n ? r->new.p50 : 0) - (b ? r->base.p50 : 0);
	if (b && n) {
		double u;

		r->p50_pct = pct(r->base.p50, r->new.p50);
		r->avg_pct = pct(r->base.avg, r->new.avg);
		/* U of new against base: above its mean, new tends longer */
		ret = mann_whitney(n->t, n->n, b->t, b->n, &u, &r->p);
		r->significant = (u > (double)n->n * (double)b->n / 2) ==
				 (r->delta_p50 > 0) && r->delta_p50 != 0;
	}
	return ret;
}

static void match_counters(struct diff *d, struct side *sides)
{
	const struct etd_dump *b = sides[0].dump, *n = sides[1].dump;
	uint32_t i, j;

	for (i = 0; i < b->ncounters && i < ETD_MAX_COUNTERS; i++) {
		for (j = 0; j < n->ncounters && j < ETD_MAX_COUNTERS; j++) {
			if (!b->counter_names[i] || !n->counter_names[j] ||
			    strcmp(b->counter_names[i], n->counter_names[j]))
				continue;
			d->counter_names[d->ncounters] =
				d->reports[0].counter_names[i];
			sides[0].counter_of[d->ncounters] = (int)i;
			sides[1].counter_of[d->ncounters] = (int)j;
			d->ncounters++;
			break;
		}
	}
}

static int pair_rows(struct diff *d, struct side *sides,
		     const struct diff_options *o)
{
	size_t i, j;
	int ret = 0;

	d->rows = calloc(sides[0].n + sides[1].n + 1, sizeof(*d->rows));
	if (!d->rows)
		return -ENOMEM;
	for (i = 0; !ret && i < sides[0].n; i++) {
		struct entry *b = &sides[0].e[i], *n = NULL;

		if (b->ev->op_call && !o->operator_call)
			continue;
		for (j = 0; j < sides[1].n && !n; j++)
			if (!sides[1].e[j].paired &&
			    same_event(b, &sides[1].e[j]))
				n = &sides[1].e[j];
		if (n)
			n->paired = true;
		ret = add_row(d, sides, b, n);
	}
	for (j = 0; !ret && j < sides[1].n; j++) {
		struct entry *n = &sides[1].e[j];

		if (!n->paired && (!n->ev->op_call || o->operator_call))
			ret = add_row(d, sides, NULL, n);
	}
	return ret;
}

static int judge(struct diff *d, const struct diff_options *o)
{
	double *p;
	size_t i, k = 0;
	int ret;

	p = calloc(d->nrows + 1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (i = 0; i < d->nrows; i++)
		if (d->rows[i].base.present && d->rows[i].new.present)
			p[k++] = d->rows[i].p;
	ret = holm_adjust(p, k);
	d->ntested = k;
	for (i = k = 0; !ret && i < d->nrows; i++) {
		struct diff_row *r = &d->rows[i];

		if (!r->base.present || !r->new.present)
			continue;
		r->p = p[k++];
		r->significant = r->significant && r->p < o->alpha;
		r->large = fabs(r->delta_p50) >= o->min_delta_ns;
		if (r->significant && r->large &&
		    fabs(r->p50_pct) >= o->min_change_pct)
			r->verdict = r->delta_p50 > 0 ? DIFF_SLOWER :
							DIFF_FASTER;
	}
	free(p);
	return ret;
}

static bool changed(const struct diff_row *r)
{
	return r->verdict == DIFF_SLOWER || r->verdict == DIFF_FASTER;
}

/*
 * Significant changes first, then the largest change of p50: the time it
 * adds to (or saves from) a run. A one-off event (a single run's load)
 * can move by more than a real regression and still be noise.
 */
static int cmp_impact(const void *pa, const void *pb)
{
	const struct diff_row *a = pa, *b = pb;
	double ia = fabs(a->delta_p50), ib = fabs(b->delta_p50);

	if (changed(a) != changed(b))
		return changed(a) ? -1 : 1;
	if (ia != ib)
		return ia < ib ? 1 : -1;
	return (a->order > b->order) - (a->order < b->order);
}

static void free_side(struct side *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->e[i].t);
	free(s->e);
	report_group_free(&s->g);
}

int diff_build(const struct etd_dump *base, const struct etd_dump *new,
	       const struct diff_options *o, struct diff *out, char *err,
	       size_t errlen)
{
	struct side sides[2] = { { .dump = base }, { .dump = new } };
	const char *which[2] = { "base", "new" };
	size_t i;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; !ret && i < 2; i++) {
		char why[400];

		ret = report_build(sides[i].dump, REPORT_NS, &out->reports[i],
				   why, sizeof(why));
		if (!ret)
			ret = gather(&sides[i], &out->reports[i], why,
				     sizeof(why));
		if (ret == -EINVAL)
			snprintf(err, errlen, "%s: %s", which[i], why);
	}
	if (!ret) {
		out->base_runs = out->reports[0].nruns;
		out->new_runs = out->reports[1].nruns;
		match_counters(out, sides);
		ret = pair_rows(out, sides, o);
	}
	if (!ret)
		ret = judge(out, o);
	if (!ret)
		qsort(out->rows, out->nrows, sizeof(*out->rows), cmp_impact);
	for (i = 0; i < 2; i++)
		free_side(&sides[i]);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory comparing the recordings");
	if (ret)
		diff_free(out);
	return ret;
}

void diff_free(struct diff *d)
{
	free(d->rows);
	report_free(&d->reports[0]);
	report_free(&d->reports[1]);
	memset(d, 0, sizeof(*d));
}

bool diff_is_regression(const struct diff_row *r, double pct_limit)
{
	return r->significant && r->large && r->delta_p50 > 0 &&
	       r->p50_pct > pct_limit;
}

const char *diff_verdict_name(enum diff_verdict v)
{
	static const char *const names[] = {
		[DIFF_SAME] = "",
		[DIFF_SLOWER] = "slower",
		[DIFF_FASTER] = "faster",
		[DIFF_ONLY_BASE] = "only in base",
		[DIFF_ONLY_NEW] = "only in new",
	};

	return names[v];
}

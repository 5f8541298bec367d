// SPDX-License-Identifier: BSD-3-Clause
/*
 * diff.c - pair the events of two recordings, compare their runs.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/diff.h"
#include "report/diff_pace.h"
#include "report/mann_whitney.h"
#include "report/report_group.h"
#include "report/sample_stats.h"

/* One timed event of one recording, with its runs. */
struct entry {
	const struct report_block *block;
	size_t block_ordinal;
	const struct report_event *ev;
	size_t ordinal;                 /* among same-named events */
	size_t block_index, sig;        /* its rg_block and signature */
	double *t;                      /* per-run durations, ns */
	size_t n;
	double p50;                     /* of t */
	bool paired;
};

/* One recording: the first of each side keeps its report in struct diff. */
struct side {
	const struct etd_dump *dump;
	struct report *rep;
	struct rg_blocks g;
	struct entry *e;
	size_t n;
	int counter_of[ETD_MAX_COUNTERS]; /* diff counter -> dump counter */
	bool left_out;          /* a whole recording off its side's pace */
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

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

/* The median of e's runs, once: the pace and the side both read it. */
static int entry_p50(struct entry *e)
{
	double *s = malloc((e->n ? e->n : 1) * sizeof(*s));

	if (!s)
		return -ENOMEM;
	memcpy(s, e->t, e->n * sizeof(*s));
	qsort(s, e->n, sizeof(*s), cmp_double);
	e->p50 = report_percentile(s, e->n, 50);
	free(s);
	return 0;
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
	return entry_p50(e);
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

static void side_stats(const struct entry *e, struct diff_side *out)
{
	out->present = true;
	out->nruns = e->n;
	out->p50 = e->p50;
	out->avg = report_mean(e->t, e->n);
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

static int fill_one(const struct side *s, const struct entry *e,
		    uint32_t ncounters, struct diff_side *out)
{
	uint32_t c;
	int ret = 0;

	side_stats(e, out);
	for (c = 0; !ret && c < ncounters; c++)
		ret = counter_stats(s, e, c, out);
	return ret;
}

/*
 * A side over its recordings (ones[k] from recording k, absent where the
 * recording lacks the event): median of the p50s, mean of the avgs, the
 * spread of the p50s; the p50s themselves, in file order, into p50s.
 */
static void combine(const struct diff_side *ones, size_t n, uint32_t ncounters,
		    struct diff_side *out, double *p50s, double *scratch)
{
	size_t k, m;
	uint32_t c;
	double sum;

	*out = (struct diff_side){ .present = true };
	for (k = 0, sum = 0; k < n; k++) {
		if (!ones[k].present)
			continue;
		p50s[out->nrec++] = ones[k].p50;
		out->nruns += ones[k].nruns;
		sum += ones[k].avg;
	}
	out->avg = sum / (double)out->nrec;
	memcpy(scratch, p50s, out->nrec * sizeof(*scratch));
	out->p50 = sample_median(scratch, out->nrec);
	out->spread = sample_sd(p50s, out->nrec);
	for (c = 0; c < ncounters; c++) {
		for (k = m = 0, sum = 0; k < n; k++) {
			if (!ones[k].present || !ones[k].has_counter[c])
				continue;
			scratch[m++] = ones[k].counter_p50[c];
			sum += ones[k].counter_avg[c];
		}
		if (!m)
			continue;
		out->has_counter[c] = true;
		out->counter_avg[c] = sum / (double)m;
		out->counter_p50[c] = sample_median(scratch, m);
	}
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

/* The entry of recording s that pairs with e, or NULL. */
static const struct entry *find_entry(const struct side *s,
				      const struct entry *e)
{
	size_t j;

	for (j = 0; j < s->n; j++)
		if (same_event(e, &s->e[j]))
			return &s->e[j];
	return NULL;
}

/*
 * Side `first` (n recordings from recs) of a row whose event is e in the
 * side's first recording; logs[k] gets the log of recording k's p50 (NAN
 * where it lacks the event or was left out).
 */
static int fill_side(const struct diff *d, const struct side *recs, size_t n,
		     const struct entry *e, struct diff_side *out, double *logs)
{
	struct diff_side *ones = calloc(n, sizeof(*ones));
	double *scratch = calloc(n, sizeof(*scratch));
	double *p50s = calloc(n, sizeof(*p50s));
	size_t k;
	int ret = ones && scratch && p50s ? 0 : -ENOMEM;

	for (k = 0; !ret && k < n; k++) {
		const struct entry *ek = k ? find_entry(&recs[k], e) : e;

		logs[k] = NAN;
		if (ek && !recs[k].left_out)
			ret = fill_one(&recs[k], ek, d->ncounters, &ones[k]);
		/* a p50 of 0 ns (a probe's resolution) counts as 1 ns */
		if (!ret && ones[k].present)
			logs[k] = log(fmax(ones[k].p50, 1));
	}
	if (!ret)
		combine(ones, n, d->ncounters, out, p50s, scratch);
	free(ones);
	free(scratch);
	free(p50s);
	return ret;
}

/*
 * The log of each recording's p50 of the event e of the side's first:
 * false when a recording lacks it or it took no time.
 */
static bool log_p50s(const struct side *recs, size_t n, const struct entry *e,
		     double *out)
{
	const struct entry *ek;
	size_t k;

	for (k = 0; k < n; k++) {
		ek = k ? find_entry(&recs[k], e) : e;
		if (!ek || !ek->n || ek->p50 <= 0)
			return false;
		out[k] = log(ek->p50);
	}
	return true;
}

/*
 * A recording whose every event ran slower (or faster) together than its
 * side's others, by DIFF_PACE_LIMIT or more, was recorded while the
 * machine was not as for the others (a busy neighbour, a frequency
 * change): one such recording in five inflates the noise between them
 * until no change can be called. Its pace is the median, over the events
 * of the side's first recording, of its p50's log distance from the
 * events' medians (diff_pace.h). It is off pace when that is DIFF_PACE_LIMIT or more
 * from the others' median pace and beyond 4 robust standard deviations
 * (1.4826 MAD) of the others' paces: each judged against the rest, since
 * a far recording among five inflates a spread taken over all of them (a
 * side recorded over a drift of 10% hid a 1.5x recording so, and two such
 * recordings hid each other). Fewer than 4 recordings, or half of them or
 * more off pace: none is left out.
 */
static int leave_out_off_pace(struct side *recs, size_t n, double *factor)
{
	double *lp, *logs, *others, m, sd;
	size_t i, j, k, far = 0;
	struct diff_pace dp;
	int ret = 0;

	if (n < 4)
		return 0;
	lp = calloc(n, sizeof(*lp));
	others = calloc(n, sizeof(*others));
	logs = calloc(n * recs[0].n + 1, sizeof(*logs));
	if (!lp || !others || !logs) {
		ret = -ENOMEM;
		goto out;
	}
	/* the events every recording timed, each recording a column */
	for (i = 0; i < recs[0].n; i++)
		if (!log_p50s(recs, n, &recs[0].e[i], &logs[i * n]))
			for (k = 0; k < n; k++)
				logs[i * n + k] = NAN;
	ret = diff_pace_init(&dp, logs, recs[0].n, n, 1);
	if (ret)
		goto out;
	diff_pace_of(&dp, recs[0].n, lp);
	diff_pace_free(&dp);
	if (isnan(lp[0]))
		goto out; /* no event in all of them */
	for (k = 0; k < n; k++) {
		for (i = j = 0; i < n; i++)
			if (i != k)
				others[j++] = lp[i];
		m = sample_median(others, n - 1);
		for (i = 0; i < n - 1; i++)
			others[i] = fabs(others[i] - m);
		sd = 1.4826 * sample_median(others, n - 1);
		recs[k].left_out = fabs(lp[k] - m) >= log(DIFF_PACE_LIMIT) &&
				   fabs(lp[k] - m) > 4 * sd;
		far += recs[k].left_out;
		factor[k] = exp(lp[k] - m);
	}
	/* half or more off the pace: the side's pace is not one */
	for (k = 0; 2 * far >= n && k < n; k++)
		recs[k].left_out = false;
out:
	free(lp);
	free(others);
	free(logs);
	return ret;
}

/* Say which recordings were left out, and why, in d->left_out_note. */
static void note_left_out(struct diff *d, const struct side *sides,
			  size_t nbase, size_t total, const double *factor)
{
	size_t k, len = 0;

	for (k = 0; k < total && len < sizeof(d->left_out_note); k++) {
		if (!sides[k].left_out)
			continue;
		len += (size_t)snprintf(d->left_out_note + len,
			sizeof(d->left_out_note) - len,
			"%s%s %zu left out: its events ran %.2fx its side's others' pace (recorded while the machine was busy?)",
			len ? "; " : "", k < nbase ? "base" : "new",
			(k < nbase ? k : k - nbase) + 1, factor[k]);
	}
}

/* Over runs: U of new against base; above its mean, new tends longer. */
static int test_runs(struct diff_row *r, const struct entry *b,
		     const struct entry *n)
{
	double stat, mid;
	int ret;

	ret = mann_whitney(n->t, n->n, b->t, b->n, &stat, &r->p);
	mid = (double)n->n * (double)b->n / 2;
	r->significant = (stat > mid) == (r->delta_p50 > 0) &&
			 r->delta_p50 != 0;
	return ret;
}

/*
 * Row logs: each recording's log p50 (base recordings, then new), for the
 * test across recordings once every row is known.
 */
static int add_row(struct diff *d, const struct side *sides, size_t nbase,
		   const struct entry *b, const struct entry *n, double *logs)
{
	const struct entry *any = b ? b : n;
	struct diff_row *r = &d->rows[d->nrows++];
	size_t k, nnew = d->new_recordings;
	int ret = 0;

	*r = (struct diff_row){
		.block = any->block->name,
		.block_ordinal = any->block_ordinal,
		.event = any->ev->name,
		.op_call = any->ev->op_call,
		.noise = NAN, .own_pct = NAN,
		.p = 1,
		.order = d->nrows - 1,
	};
	for (k = 0; k < nbase + nnew; k++)
		logs[k] = NAN;
	if (b)
		ret = fill_side(d, sides, nbase, b, &r->base, logs);
	if (!ret && n)
		ret = fill_side(d, sides + nbase, nnew, n, &r->new,
				logs + nbase);
	if (!ret) {
		r->verdict = !b ? DIFF_ONLY_NEW : !n ? DIFF_ONLY_BASE : DIFF_SAME;
		r->delta_p50 = (n ? r->new.p50 : 0) - (b ? r->base.p50 : 0);
	}
	if (!ret && b && n) {
		r->p50_pct = pct(r->base.p50, r->new.p50);
		r->avg_pct = pct(r->base.avg, r->new.avg);
		if (!diff_across(d))
			ret = test_runs(r, b, n);
	}
	return ret;
}

static int counter_in(const struct etd_dump *dump, const char *name)
{
	uint32_t i;

	for (i = 0; i < dump->ncounters && i < ETD_MAX_COUNTERS; i++)
		if (dump->counter_names[i] && !strcmp(dump->counter_names[i], name))
			return (int)i;
	return -1;
}

/*
 * The counters of both first recordings, by name; each recording's index
 * of each (-1: it lacks it and is left out of that counter's numbers).
 */
static void match_counters(struct diff *d, struct side *sides, size_t nbase,
			   size_t total)
{
	const struct etd_dump *b = sides[0].dump, *n = sides[nbase].dump;
	uint32_t i;
	size_t k;

	for (i = 0; i < b->ncounters && i < ETD_MAX_COUNTERS; i++) {
		if (!b->counter_names[i] || counter_in(n, b->counter_names[i]) < 0)
			continue;
		d->counter_names[d->ncounters] = d->reports[0].counter_names[i];
		for (k = 0; k < total; k++)
			sides[k].counter_of[d->ncounters] =
				counter_in(sides[k].dump, b->counter_names[i]);
		d->ncounters++;
	}
}

/*
 * Rows from the first recording of each side, paired; across recordings,
 * each tested once all are known (a row is judged against its
 * recording's pace over the others).
 */
static int pair_rows(struct diff *d, struct side *sides, size_t nbase,
		     const struct diff_options *o)
{
	struct side *first_new = &sides[nbase];
	size_t i, j, cap = sides[0].n + first_new->n + 1;
	size_t total = nbase + d->new_recordings;
	double *logs;
	int ret = 0;

	d->rows = calloc(cap, sizeof(*d->rows));
	logs = calloc(cap * total, sizeof(*logs));
	if (!d->rows || !logs) {
		free(logs);
		return -ENOMEM;
	}
	for (i = 0; !ret && i < sides[0].n; i++) {
		struct entry *b = &sides[0].e[i], *n = NULL;

		if (b->ev->op_call && !o->operator_call)
			continue;
		for (j = 0; j < first_new->n && !n; j++)
			if (!first_new->e[j].paired &&
			    same_event(b, &first_new->e[j]))
				n = &first_new->e[j];
		if (n)
			n->paired = true;
		ret = add_row(d, sides, nbase, b, n, logs + d->nrows * total);
	}
	for (j = 0; !ret && j < first_new->n; j++) {
		struct entry *n = &first_new->e[j];

		if (!n->paired && (!n->ev->op_call || o->operator_call))
			ret = add_row(d, sides, nbase, NULL, n,
				      logs + d->nrows * total);
	}
	if (!ret && diff_across(d))
		ret = diff_test_across(d->rows, d->nrows, logs, nbase,
				       d->new_recordings, &d->pace);
	free(logs);
	return ret;
}

/* A change that could be called: --min-delta, --min-change, the noise. */
static bool passes_gates(double delta_ns, double pct, double noise,
			 const struct diff_options *o)
{
	return fabs(delta_ns) >= o->min_delta_ns &&
	       fabs(pct) >= o->min_change_pct && fabs(delta_ns) > noise;
}

/*
 * Across recordings, a row whose change could not be called anyway (below
 * min_delta or min_change, or within the noise) is no question asked: the
 * Holm family is the rows that could be, which keeps a few recordings a
 * side able to name one operator among many (the gates are the guard
 * against alarms there, scripts/diff_alarms.py measures them). Over runs,
 * every row is asked, as always.
 */
static bool asked(const struct diff *d, const struct diff_row *r,
		  const struct diff_options *o)
{
	if (!r->base.present || !r->new.present)
		return false;
	if (!diff_across(d))
		return true;
	/*
	 * A row is tested against its recording's pace, so what could be
	 * called on its own is its change beyond that pace, and the gates
	 * hold for it too: in a build 1.29x slower throughout, a row 1.2901x
	 * slower has not changed by itself, however sure the test is of the
	 * 0.01% (copies of one recording differ by their rounding alone, and
	 * a test on them is sure of anything). It changed with the pace.
	 */
	return passes_gates(r->delta_p50, r->p50_pct, r->noise, o) &&
	       passes_gates(r->base.p50 * r->own_pct / 100, r->own_pct,
			    r->noise, o);
}

/*
 * The pace of the sides is a question too when it moved by min_change or
 * more: a row that did not change against its recording's pace changed
 * with it, in the pace's direction.
 */
static bool pace_asked(const struct diff *d, const struct diff_options *o)
{
	return diff_across(d) && d->pace.factor > 0 &&
	       fabs(d->pace.factor - 1) * 100 >= o->min_change_pct;
}

static bool with_pace(const struct diff *d, const struct diff_row *r)
{
	return d->pace.changed && r->base.present && r->new.present &&
	       (r->delta_p50 > 0) == (d->pace.factor > 1);
}

static int judge(struct diff *d, const struct diff_options *o)
{
	double *p;
	size_t i, k = 0;
	int ret;

	p = calloc(d->nrows + 2, sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (i = 0; i < d->nrows; i++)
		if (asked(d, &d->rows[i], o))
			p[k++] = d->rows[i].p;
	if (pace_asked(d, o))
		p[k++] = d->pace.p;
	ret = holm_adjust(p, k);
	d->ntested = k;
	if (pace_asked(d, o)) {
		d->pace.p = p[k - 1];
		d->pace.changed = d->pace.p < o->alpha;
	}
	for (i = k = 0; !ret && i < d->nrows; i++) {
		struct diff_row *r = &d->rows[i];

		if (asked(d, r, o)) {
			r->p = p[k++];
			r->significant = r->significant && r->p < o->alpha;
		} else
			r->significant = false;
		if (!r->significant && with_pace(d, r)) {
			r->significant = r->with_pace = true;
			r->p = d->pace.p;
		}
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

/* Report and groups of each recording; the first of each side's report is out's. */
static int read_sides(struct side *sides, size_t nbase, size_t total,
		      struct diff *out, char *err, size_t errlen)
{
	size_t k;
	int ret = 0;

	for (k = 0; !ret && k < total; k++) {
		char why[400];

		if (k == 0 || k == nbase)
			sides[k].rep = &out->reports[k ? 1 : 0];
		else
			sides[k].rep = calloc(1, sizeof(*sides[k].rep));
		if (!sides[k].rep)
			return -ENOMEM;
		ret = report_build(sides[k].dump, REPORT_NS, sides[k].rep, why,
				   sizeof(why));
		if (!ret)
			ret = gather(&sides[k], sides[k].rep, why, sizeof(why));
		if (ret == -EINVAL)
			snprintf(err, errlen, "%s %zu: %s",
				 k < nbase ? "base" : "new",
				 (k < nbase ? k : k - nbase) + 1, why);
	}
	return ret;
}

static int leave_out_sides(struct diff *d, struct side *sides, size_t nbase,
			   size_t total)
{
	double *factor = calloc(total, sizeof(*factor));
	int ret;

	if (!factor)
		return -ENOMEM;
	ret = leave_out_off_pace(sides, nbase, factor);
	if (!ret)
		ret = leave_out_off_pace(sides + nbase, total - nbase,
					 factor + nbase);
	if (!ret)
		note_left_out(d, sides, nbase, total, factor);
	free(factor);
	return ret;
}

int diff_build(const struct etd_dump *dumps, size_t nbase, size_t nnew,
	       const struct diff_options *o, struct diff *out, char *err,
	       size_t errlen)
{
	size_t i, total = nbase + nnew;
	struct side *sides;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!nbase || !nnew)
		return -EINVAL;
	sides = calloc(total, sizeof(*sides));
	if (!sides) {
		snprintf(err, errlen, "out of memory comparing the recordings");
		return -ENOMEM;
	}
	for (i = 0; i < total; i++)
		sides[i].dump = &dumps[i];
	out->base_recordings = nbase;
	out->new_recordings = nnew;
	ret = read_sides(sides, nbase, total, out, err, errlen);
	if (!ret) {
		for (i = 0; i < total; i++)
			*(i < nbase ? &out->base_runs : &out->new_runs) +=
				sides[i].rep->nruns;
		match_counters(out, sides, nbase, total);
		ret = leave_out_sides(out, sides, nbase, total);
	}
	if (!ret) {
		ret = pair_rows(out, sides, nbase, o);
	}
	if (!ret)
		ret = judge(out, o);
	if (!ret)
		qsort(out->rows, out->nrows, sizeof(*out->rows), cmp_impact);
	for (i = 0; i < total; i++) {
		free_side(&sides[i]);
		if (i != 0 && i != nbase && sides[i].rep) {
			report_free(sides[i].rep);
			free(sides[i].rep);
		}
	}
	free(sides);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory comparing the recordings");
	if (ret)
		diff_free(out);
	return ret;
}

bool diff_across(const struct diff *d)
{
	return d->base_recordings > 1 || d->new_recordings > 1;
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

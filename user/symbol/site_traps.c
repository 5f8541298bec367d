// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "schema/etdump_record.h"
#include "symbol/site_traps.h"

/* the blocks open on one thread, innermost last */
#define TALLY_DEPTH 8
/* a run opened before every probe was in place: it may lack traps */
#define NOT_COUNTED SIZE_MAX

struct site_tally_thread {
	uint32_t tid;
	uint32_t open[TALLY_DEPTH];     /* block sites' ids */
	size_t run[TALLY_DEPTH];        /* their runs' index in runs, or
					   NOT_COUNTED */
	size_t depth;
};

/* What the kernel does without stepping, in its own word for the site's. */
static enum site_treatment unstepped(const struct symbol_site *s)
{
	return s->aarch64 ? SITE_SIMULATED : SITE_EMULATED;
}

enum site_treatment site_traps_entry(const struct symbol_site *s)
{
	/* a call rel32, which is emulated; single_step is its exit's */
	if (s->desc.kind == ETDUMP_FUNC_XNN_OP)
		return SITE_EMULATED;
	if (s->single_step)
		return SITE_SINGLE_STEPPED;
	return s->optimized ? SITE_OPTIMIZED : unstepped(s);
}

/* What the kernel does at the site's return while it is probed. */
static enum site_treatment probed_exit(const struct symbol_site *s)
{
	if (!s->nexits)
		return SITE_URETPROBE;
	return s->exit_stepped ? SITE_SINGLE_STEPPED : unstepped(s);
}

enum site_treatment site_traps_exit(const struct symbol_site *s)
{
	if (s->ends_at_next)
		return SITE_NEXT_EVENT;
	if (!s->nexits)
		return SITE_URETPROBE;
	return s->exit_stepped ? SITE_SINGLE_STEPPED : unstepped(s);
}

const char *site_treatment_name(enum site_treatment t)
{
	static const char *const names[] = {
		[SITE_EMULATED] = "emulated",
		[SITE_SIMULATED] = "simulated",
		[SITE_SINGLE_STEPPED] = "single-stepped",
		[SITE_OPTIMIZED] = "optimized nop",
		[SITE_URETPROBE] = "uretprobe",
		[SITE_NEXT_EVENT] = "next event",
	};

	return names[t];
}

static unsigned int traps_of(enum site_treatment t)
{
	return t == SITE_NEXT_EVENT ? 0 : t == SITE_SINGLE_STEPPED ? 2 : 1;
}

unsigned int site_traps_per_call(const struct symbol_site *s)
{
	return traps_of(site_traps_entry(s)) + traps_of(site_traps_exit(s));
}

int site_traps_stepped(const struct symbol_site *s)
{
	return (site_traps_entry(s) == SITE_SINGLE_STEPPED) +
	       (site_traps_exit(s) == SITE_SINGLE_STEPPED);
}

/*
 * x86-64's words (emulated, optimized nop) when a site is x86-64 code,
 * aarch64's (simulated) when one is aarch64 code: each says all three
 * kinds of entry it may have, even none of one.
 */
static int describe_entries(const struct symbol_sites *s, const size_t *entry,
			    char *buf, size_t len)
{
	bool x86 = false, arm = false;
	size_t i;

	for (i = 0; i < s->n; i++) {
		arm |= s->sites[i].aarch64;
		x86 |= !s->sites[i].aarch64;
	}
	if (!arm)
		return snprintf(buf, len, "entries %zu emulated, %zu single-stepped, %zu optimized nop",
				entry[SITE_EMULATED],
				entry[SITE_SINGLE_STEPPED],
				entry[SITE_OPTIMIZED]);
	if (!x86)
		return snprintf(buf, len, "entries %zu simulated, %zu single-stepped",
				entry[SITE_SIMULATED],
				entry[SITE_SINGLE_STEPPED]);
	return snprintf(buf, len, "entries %zu emulated, %zu simulated, %zu single-stepped, %zu optimized nop",
			entry[SITE_EMULATED], entry[SITE_SIMULATED],
			entry[SITE_SINGLE_STEPPED], entry[SITE_OPTIMIZED]);
}

void site_traps_describe(const struct symbol_sites *s, char *buf,
			 size_t len)
{
	size_t entry[SITE_TREATMENTS] = { 0 }, exit[SITE_TREATMENTS] = { 0 };
	size_t i, probes = 0;
	int t, n;

	for (i = 0; i < s->n; i++) {
		entry[site_traps_entry(&s->sites[i])]++;
		exit[site_traps_exit(&s->sites[i])]++;
		probes += s->sites[i].nexits;
	}
	n = snprintf(buf, len, "%zu site(s): ", s->n);
	if (n >= 0 && (size_t)n < len)
		n += describe_entries(s, entry, buf + n, len - n);
	if (n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n, "; returns %zu uretprobe",
			      exit[SITE_URETPROBE]);
	for (t = 0; t < SITE_TREATMENTS && n >= 0 && (size_t)n < len; t++)
		if (t != SITE_URETPROBE && t != SITE_NEXT_EVENT && exit[t])
			n += snprintf(buf + n, len - n, ", %zu exit %s",
				      exit[t], site_treatment_name(t));
	/* an aarch64 function's exits: a probe on each of its rets */
	if (n >= 0 && (size_t)n < len && probes > s->n - exit[SITE_URETPROBE])
		n += snprintf(buf + n, len - n, " (%zu exit probes)", probes);
	if (n >= 0 && (size_t)n < len && exit[SITE_NEXT_EVENT])
		snprintf(buf + n, len - n, "; %zu kernel(s) end at the next event (their returns probed only while the gaps after them are measured)",
			 exit[SITE_NEXT_EVENT]);
}

static struct site_tally_thread *thread_of(struct site_tally *t, uint32_t tid)
{
	struct site_tally_thread *grown;
	size_t i;

	for (i = 0; i < t->nthreads; i++)
		if (t->threads[i].tid == tid)
			return &t->threads[i];
	grown = realloc(t->threads, (t->nthreads + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	t->threads = grown;
	memset(&grown[t->nthreads], 0, sizeof(*grown));
	grown[t->nthreads].tid = tid;
	return &grown[t->nthreads++];
}

/* The run named so, added when new: its index, or -ENOMEM. */
static long run_of(struct site_tally *t, const char *name, size_t len)
{
	struct site_tally_run *grown;
	size_t i;

	if (len >= sizeof(t->runs->name))
		len = sizeof(t->runs->name) - 1;
	for (i = 0; i < t->nruns; i++)
		if (!strncmp(t->runs[i].name, name, len) &&
		    !t->runs[i].name[len])
			return (long)i;
	grown = realloc(t->runs, (t->nruns + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	t->runs = grown;
	memset(&grown[t->nruns], 0, sizeof(*grown));
	memcpy(grown[t->nruns].name, name, len);
	return (long)t->nruns++;
}

/* The counted run open on th (the innermost), or NULL. */
static struct site_tally_run *open_run(struct site_tally *t,
				       const struct site_tally_thread *th)
{
	if (!th->depth || th->depth > TALLY_DEPTH ||
	    th->run[th->depth - 1] == NOT_COUNTED)
		return NULL;
	return &t->runs[th->run[th->depth - 1]];
}

/* Traps to the run open on th (the innermost), else outside any. */
static void count(struct site_tally *t, const struct site_tally_thread *th,
		  unsigned int traps, int stepped)
{
	struct site_tally_run *r = open_run(t, th);

	if (!th->depth || th->depth > TALLY_DEPTH)
		t->outside += traps;
	if (!r)
		return;
	r->open_traps += traps;
	r->open_stepped += stepped;
}

static int on_call(struct site_tally *t, struct site_tally_thread *th,
		    const struct symbol_site *s, uint64_t ts)
{
	const struct etdump_func_site *d = &s->desc;
	enum site_treatment e = site_traps_entry(s);
	struct site_tally_run *r;
	long run;

	if (d->kind == ETDUMP_FUNC_BLOCK) {
		if (th->depth < TALLY_DEPTH) {
			run = ts < t->start ? 0 : run_of(t, d->arg, d->arg_len);
			if (run < 0)
				return (int)run;
			th->open[th->depth] = d->id;
			th->run[th->depth] = ts < t->start ? NOT_COUNTED :
					     (size_t)run;
		}
		th->depth++;
	}
	r = s->ends_at_next ? open_run(t, th) : NULL;
	if (r)
		r->open_next_calls++;
	count(t, th, traps_of(e), e == SITE_SINGLE_STEPPED);
	return 0;
}

static void on_return(struct site_tally *t, struct site_tally_thread *th,
		    const struct symbol_site *s)
{
	enum site_treatment x = probed_exit(s);
	struct site_tally_run *r;

	count(t, th, traps_of(x), x == SITE_SINGLE_STEPPED);
	/* a kernel's return probed only to measure the gap after it */
	r = s->ends_at_next ? open_run(t, th) : NULL;
	if (r)
		r->open_next_returns++;
	if (s->desc.kind != ETDUMP_FUNC_BLOCK || !th->depth)
		return;
	th->depth--;
	if (th->depth >= TALLY_DEPTH || th->open[th->depth] != s->desc.id ||
	    th->run[th->depth] == NOT_COUNTED)
		return;
	/* the run is whole: what it took counts */
	r = &t->runs[th->run[th->depth]];
	if (r->open_next_returns && r->open_next_returns == r->open_next_calls) {
		r->gap_runs++;
		r->gap_traps += r->open_traps;
		r->gap_stepped += r->open_stepped;
	} else if (!r->open_next_returns) {
		r->runs++;
		r->traps += r->open_traps;
		r->stepped += r->open_stepped;
	}
	r->open_traps = r->open_stepped = 0;
	r->open_next_calls = r->open_next_returns = 0;
}

int site_tally_feed(struct site_tally *t, const struct symbol_sites *s,
		    const void *rec, size_t len)
{
	const struct etdump_rec_hdr *h = rec;
	const struct symbol_site *site;
	struct site_tally_thread *th;
	uint32_t id;

	if (len < sizeof(*h))
		return 0;
	if (h->type == ETDUMP_REC_FUNC_ENTRY &&
	    len >= sizeof(struct etdump_rec_func_entry))
		id = ((const struct etdump_rec_func_entry *)rec)->site.id;
	else if (h->type == ETDUMP_REC_FUNC_EXIT &&
		 len >= sizeof(struct etdump_rec_func_exit))
		id = ((const struct etdump_rec_func_exit *)rec)->id;
	else if (h->type == ETDUMP_REC_FUNC_ALLOC &&
		 len >= sizeof(struct etdump_rec_func_alloc))
		id = ((const struct etdump_rec_func_alloc *)rec)->id;
	else
		return 0;
	if (id >= s->n)
		return 0;
	site = &s->sites[id];
	th = thread_of(t, h->tid);
	if (!th)
		return -ENOMEM;
	if (h->type == ETDUMP_REC_FUNC_EXIT) {
		on_return(t, th, site);
		return 0;
	}
	if (h->type == ETDUMP_REC_FUNC_ALLOC) {
		/* entry and return in one record */
		count(t, th, site_traps_per_call(site),
		      site_traps_stepped(site));
		return 0;
	}
	return on_call(t, th, site, h->ts);
}

static int by_runs(const void *a, const void *b)
{
	const struct site_tally_run *x = a, *y = b;
	uint64_t nx = x->runs + x->gap_runs, ny = y->runs + y->gap_runs;

	return nx < ny ? 1 : nx > ny ? -1 : 0;
}

/* "22" or "21.5": whole traps when every run took the same, as they do */
static int per_run(char *buf, size_t len, uint64_t n, uint64_t runs)
{
	if (n % runs)
		return snprintf(buf, len, "%.1f", (double)n / runs);
	return snprintf(buf, len, "%llu", (unsigned long long)(n / runs));
}

void site_tally_describe(const struct site_tally *t, char *buf, size_t len)
{
	struct site_tally_run *sorted;
	char traps[32], stepped[32], gap[32];
	size_t i, shown = 0;
	int n = 0;

	buf[0] = '\0';
	/* no run opened once every probe was in: nothing to say */
	if (!t->nruns)
		return;
	sorted = malloc(t->nruns * sizeof(*sorted));
	if (!sorted)
		return;
	memcpy(sorted, t->runs, t->nruns * sizeof(*sorted));
	qsort(sorted, t->nruns, sizeof(*sorted), by_runs);
	for (i = 0; i < t->nruns && n >= 0 && (size_t)n < len; i++) {
		const struct site_tally_run *r = &sorted[i];
		bool all_gap = !r->runs && r->gap_runs;

		if (!r->runs && !r->gap_runs)
			continue;
		per_run(traps, sizeof(traps), all_gap ? r->gap_traps : r->traps,
			all_gap ? r->gap_runs : r->runs);
		per_run(stepped, sizeof(stepped),
			all_gap ? r->gap_stepped : r->stepped,
			all_gap ? r->gap_runs : r->runs);
		n += snprintf(buf + n, len - n, "%s%s traps per '%s' run (%s single-stepped hits)",
			      shown++ ? ", " : "", traps, r->name, stepped);
		if (n < 0 || (size_t)n >= len || !r->gap_runs)
			continue;
		per_run(gap, sizeof(gap), r->gap_traps, r->gap_runs);
		if (all_gap)
			n += snprintf(buf + n, len - n, ", all %llu of which measured the gaps after the kernels' returns",
				      (unsigned long long)r->gap_runs);
		else
			n += snprintf(buf + n, len - n, " and %s in the %llu run(s) that measured the gaps",
				      gap, (unsigned long long)r->gap_runs);
	}
	free(sorted);
}

void site_tally_gap(struct site_tally *t)
{
	size_t i;

	for (i = 0; i < t->nthreads; i++)
		t->threads[i].depth = 0;
	for (i = 0; i < t->nruns; i++) {
		t->runs[i].open_traps = t->runs[i].open_stepped = 0;
		t->runs[i].open_next_calls = t->runs[i].open_next_returns = 0;
	}
}

void site_tally_set_start(struct site_tally *t, uint64_t ts)
{
	/* the probes change: a run open now may lose some of its traps */
	site_tally_gap(t);
	t->start = ts;
}

void site_tally_free(struct site_tally *t)
{
	free(t->runs);
	free(t->threads);
	memset(t, 0, sizeof(*t));
}

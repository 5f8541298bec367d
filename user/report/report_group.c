// SPDX-License-Identifier: BSD-3-Clause
/*
 * report_group.c - the Inspector's event blocks, built by sorting instead
 * of Python dicts: equal keys become neighbours, and the address of an
 * event in its run's array stands for its place in the file.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/report_group.h"

/* An event signature as one run produced it, before duplicates collapse. */
struct entry {
	struct rg_sig sig;
	const struct etd_event *occ;
	size_t pos;
};

/* One instruction group: n neighbours in the sorted array. */
struct range {
	const struct etd_event **first;
	size_t n;
};

/* Scratch for one run, sized for its events. */
struct run_work {
	const struct etd_event **by_key;
	struct range *ranges;
	struct entry *entries;
	struct entry *sorted;
	const struct etd_event **occ;
	bool *keep;
	struct rg_sig *sigs;
	size_t nsigs;
};

bool rg_is_output(const struct etd_event *ev)
{
	return ev->kind == ETD_DEBUG && ev->debug_entry &&
	       ev->debug_entry->has_output && ev->debug_entry->output;
}

static int cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_ptr(const void *a, const void *b)
{
	return (a > b) - (a < b);
}

/* The group key keeps an absent string apart from an empty one. */
static int cmp_raw_str(const char *a, const char *b)
{
	if (!a || !b)
		return !!a - !!b;
	return strcmp(a, b);
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

/*
 * chain_index as the number Python compares: int32 in ProfileEvent, uint64
 * in DebugEvent, so a profile event's -1 and a debug event's 2^64-1 differ.
 */
static void chain_key(const struct etd_event *ev, bool *neg, uint64_t *v)
{
	if (ev->kind == ETD_PROFILE) {
		*neg = ev->chain_index < 0;
		*v = (uint64_t)(int64_t)ev->chain_index;
	} else {
		*neg = false;
		*v = ev->debug_chain_index;
	}
}

static int cmp_group_key(const struct etd_event *a, const struct etd_event *b)
{
	uint64_t va, vb;
	bool na, nb;
	int c;

	c = cmp_i64(a->instruction_id, b->instruction_id);
	if (c)
		return c;
	chain_key(a, &na, &va);
	chain_key(b, &nb, &vb);
	if (na != nb)
		return na ? -1 : 1;
	if (va != vb)
		return va < vb ? -1 : 1;
	c = cmp_i64(a->delegate_id_int, b->delegate_id_int);
	if (c)
		return c;
	return cmp_raw_str(a->delegate_id_str, b->delegate_id_str);
}

static int cmp_by_key(const void *pa, const void *pb)
{
	const struct etd_event *a = *(const struct etd_event *const *)pa;
	const struct etd_event *b = *(const struct etd_event *const *)pb;
	int c = cmp_group_key(a, b);

	return c ? c : cmp_ptr(a, b);
}

static int cmp_range(const void *pa, const void *pb)
{
	const struct range *a = pa, *b = pb;

	return cmp_ptr(a->first[0], b->first[0]);
}

/*
 * A Profile/DebugEventSignature: name or "", instruction id, delegate ids,
 * where -1 / absent / "" all mean None (a bijection for the ints, and
 * absent and "" alike for the string).
 */
static int cmp_part(const struct etd_event *a, const struct etd_event *b)
{
	int c;

	if (!a || !b)
		return !!a - !!b;
	c = strcmp(or_empty(a->name), or_empty(b->name));
	if (!c)
		c = cmp_i64(a->instruction_id, b->instruction_id);
	if (!c)
		c = cmp_i64(a->delegate_id_int, b->delegate_id_int);
	if (!c)
		c = strcmp(or_empty(a->delegate_id_str),
			   or_empty(b->delegate_id_str));
	return c;
}

static int cmp_sig(const struct rg_sig *a, const struct rg_sig *b)
{
	int c = cmp_i64(a->instr, b->instr);

	if (!c)
		c = cmp_part(a->pe, b->pe);
	if (!c)
		c = cmp_part(a->de, b->de);
	return c;
}

static int cmp_entry(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	int c = cmp_sig(&a->sig, &b->sig);

	return c ? c : cmp_i64((int64_t)a->pos, (int64_t)b->pos);
}

/* FNV-1a: equal signatures hash alike, so most run comparisons stop here. */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ull;
	return h;
}

static uint64_t mix_part(uint64_t h, const struct etd_event *ev)
{
	const char *name, *dstr;
	int32_t ids[2];

	h = mix(h, ev ? "P" : "-", 1);
	if (!ev)
		return h;
	name = or_empty(ev->name);
	dstr = or_empty(ev->delegate_id_str);
	ids[0] = ev->instruction_id;
	ids[1] = ev->delegate_id_int;
	h = mix(h, name, strlen(name) + 1);
	h = mix(h, ids, sizeof(ids));
	return mix(h, dstr, strlen(dstr) + 1);
}

static uint64_t run_hash(const struct etd_run *run, const struct rg_sig *sigs,
			 size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	h = mix(h, run->name, strlen(run->name) + 1);
	h = mix(h, &run->bundled_input_index, sizeof(run->bundled_input_index));
	for (i = 0; i < n; i++) {
		h = mix(h, &sigs[i].instr, sizeof(sigs[i].instr));
		h = mix_part(h, sigs[i].pe);
		h = mix_part(h, sigs[i].de);
	}
	return h;
}

/* Room for one more of n: the (moved) array, or NULL with arr untouched. */
static void *reserve(void *arr, size_t *cap, size_t n, size_t elem)
{
	size_t ncap = *cap ? *cap * 2 : 4;
	void *p;

	if (n < *cap)
		return arr;
	if (ncap < *cap || ncap > SIZE_MAX / elem)
		return NULL;
	p = reallocarray(arr, ncap, elem);
	if (p)
		*cap = ncap;
	return p;
}

/* What the Inspector's decoder refuses before it looks at any event. */
static int check_decodable(const struct etd_dump *dump, char *err,
			   size_t errlen)
{
	const char *why = "the Inspector cannot decode this file";
	size_t i, j;

	for (i = 0; i < dump->nruns; i++) {
		const struct etd_run *run = &dump->runs[i];

		if (!run->name) {
			snprintf(err, errlen, "%s: run_data[%zu] has no name (TypeError: Invalid Buffer. Received no value for field: name)",
				 why, i);
			return -EINVAL;
		}
		for (j = 0; j < run->nallocators; j++) {
			if (run->allocators[j])
				continue;
			snprintf(err, errlen, "%s: run_data[%zu].allocators[%zu] has no name (TypeError: Invalid Buffer. Received no value for field: name)",
				 why, i, j);
			return -EINVAL;
		}
		for (j = 0; j < run->nevents; j++) {
			const struct etd_event *ev = &run->events[j];

			if (ev->kind != ETD_DEBUG || ev->debug_entry)
				continue;
			snprintf(err, errlen, "%s: run_data[%zu].events[%zu] is a debug event without a debug_entry (TypeError: Invalid Buffer. Received no value for field: debug_entry)",
				 why, i, j);
			return -EINVAL;
		}
	}
	return 0;
}

static void run_work_free(struct run_work *w)
{
	free(w->by_key);
	free(w->ranges);
	free(w->entries);
	free(w->sorted);
	free(w->occ);
	free(w->keep);
	free(w->sigs);
	memset(w, 0, sizeof(*w));
}

static int run_work_alloc(struct run_work *w, size_t n)
{
	memset(w, 0, sizeof(*w));
	n = n ? n : 1;
	w->by_key = calloc(n, sizeof(*w->by_key));
	w->ranges = calloc(n, sizeof(*w->ranges));
	w->entries = calloc(n, sizeof(*w->entries));
	w->sorted = calloc(n, sizeof(*w->sorted));
	w->occ = calloc(n, sizeof(*w->occ));
	w->keep = calloc(n, sizeof(*w->keep));
	w->sigs = calloc(n, sizeof(*w->sigs));
	if (w->by_key && w->ranges && w->entries && w->sorted && w->occ &&
	    w->keep && w->sigs)
		return 0;
	run_work_free(w);
	return -ENOMEM;
}

/* Instruction groups, in the order their first event appears. */
static size_t make_groups(const struct etd_run *run, struct run_work *w)
{
	size_t i, ngroups = 0;

	for (i = 0; i < run->nevents; i++)
		w->by_key[i] = &run->events[i];
	qsort(w->by_key, run->nevents, sizeof(*w->by_key), cmp_by_key);
	for (i = 0; i < run->nevents; i++) {
		if (i && !cmp_group_key(w->by_key[i - 1], w->by_key[i])) {
			w->ranges[ngroups - 1].n++;
			continue;
		}
		w->ranges[ngroups++] = (struct range){ &w->by_key[i], 1 };
	}
	qsort(w->ranges, ngroups, sizeof(*w->ranges), cmp_range);
	return ngroups;
}

/* The signatures of one group, appended to w->entries. */
static size_t group_entries(const struct range *g, struct entry *out,
			    size_t pos)
{
	const struct etd_event *de = NULL, *ev;
	size_t i, n = 0;

	for (i = 0; i < g->n && !de; i++)
		if (g->first[i]->kind == ETD_DEBUG && !rg_is_output(g->first[i]))
			de = g->first[i];
	for (i = 0; i < g->n; i++) {
		ev = g->first[i];
		if (ev->kind != ETD_PROFILE)
			continue;
		out[n] = (struct entry){ { ev->instruction_id, ev, de }, ev,
					 pos + n };
		n++;
	}
	/*
	 * Debug events only: one signature. Program outputs only: none, the
	 * Inspector keeps them as the run's output.
	 */
	if (!n && de) {
		out[n] = (struct entry){ { de->instruction_id, NULL, de }, NULL,
					 pos };
		n++;
	}
	return n;
}

/*
 * w->sigs / w->occ: the run's signatures as the Inspector's OrderedDict
 * holds them: a repeated key keeps its first place and takes the last
 * value.
 */
static void collapse(struct run_work *w, size_t n)
{
	size_t i, j, k;

	memcpy(w->sorted, w->entries, n * sizeof(*w->sorted));
	qsort(w->sorted, n, sizeof(*w->sorted), cmp_entry);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n; j++)
			if (cmp_sig(&w->sorted[i].sig, &w->sorted[j].sig))
				break;
		w->keep[w->sorted[i].pos] = true;
		w->occ[w->sorted[i].pos] = w->sorted[j - 1].occ;
	}
	for (i = k = 0; i < n; i++) {
		if (!w->keep[i])
			continue;
		w->sigs[k] = w->entries[i].sig;
		w->occ[k++] = w->occ[i];
	}
	w->nsigs = k;
}

/* The run's signatures, or -EINVAL for an allocation event. */
static int run_signatures(const struct etd_run *run, size_t ri,
			  struct run_work *w, char *err, size_t errlen)
{
	size_t i, ngroups, n = 0;

	for (i = 0; i < run->nevents; i++) {
		if (run->events[i].kind != ETD_ALLOCATION)
			continue;
		snprintf(err, errlen, "the Inspector cannot load this file: run_data[%zu].events[%zu] is an allocation event (ValueError: Unable to find populated event)",
			 ri, i);
		return -EINVAL;
	}
	ngroups = make_groups(run, w);
	for (i = 0; i < ngroups; i++)
		n += group_entries(&w->ranges[i], w->entries + n, n);
	collapse(w, n);
	return 0;
}

static bool same_run(const struct rg_block *b, const struct etd_run *run,
		     const struct run_work *w, uint64_t hash)
{
	size_t i;

	if (b->hash != hash || b->nsigs != w->nsigs ||
	    b->run->bundled_input_index != run->bundled_input_index ||
	    strcmp(b->run->name, run->name))
		return false;
	for (i = 0; i < w->nsigs; i++)
		if (cmp_sig(&b->sigs[i], &w->sigs[i]))
			return false;
	return true;
}

static int new_block(struct rg_blocks *g, const struct etd_run *run,
		     const struct run_work *w, uint64_t hash)
{
	struct rg_block *b;

	b = reserve(g->b, &g->cap, g->n, sizeof(*g->b));
	if (!b)
		return -ENOMEM;
	g->b = b;
	b = &g->b[g->n];
	memset(b, 0, sizeof(*b));
	b->sigs = calloc(w->nsigs ? w->nsigs : 1, sizeof(*b->sigs));
	if (!b->sigs)
		return -ENOMEM;
	memcpy(b->sigs, w->sigs, w->nsigs * sizeof(*b->sigs));
	b->nsigs = w->nsigs;
	b->run = run;
	b->hash = hash;
	g->n++;
	return 0;
}

static int add_occurrences(struct rg_block *b, const struct run_work *w,
			   size_t ri)
{
	size_t per = b->nsigs ? b->nsigs : 1, cap = b->cap;
	void *p;

	/* both arrays are counted in runs and share b->cap */
	p = reserve(b->run_index, &cap, b->nruns, sizeof(*b->run_index));
	if (!p)
		return -ENOMEM;
	b->run_index = p;
	cap = b->cap;
	p = reserve(b->occ, &cap, b->nruns, per * sizeof(*b->occ));
	if (!p)
		return -ENOMEM;
	b->occ = p;
	b->cap = cap;
	memcpy(b->occ + b->nruns * b->nsigs, w->occ,
	       b->nsigs * sizeof(*b->occ));
	b->run_index[b->nruns++] = ri;
	return 0;
}

static int add_run(struct rg_blocks *g, const struct etd_dump *dump,
		   size_t ri, char *err, size_t errlen)
{
	const struct etd_run *run = &dump->runs[ri];
	struct run_work w;
	uint64_t hash;
	size_t i;
	int ret;

	ret = run_work_alloc(&w, run->nevents);
	if (ret)
		return ret;
	ret = run_signatures(run, ri, &w, err, errlen);
	if (ret)
		goto cleanup;
	hash = run_hash(run, w.sigs, w.nsigs);
	for (i = 0; i < g->n; i++)
		if (same_run(&g->b[i], run, &w, hash))
			break;
	if (i == g->n) {
		ret = new_block(g, run, &w, hash);
		if (ret)
			goto cleanup;
	}
	ret = add_occurrences(&g->b[i], &w, ri);
cleanup:
	run_work_free(&w);
	return ret;
}

int report_group(const struct etd_dump *dump, struct rg_blocks *out,
		 char *err, size_t errlen)
{
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = check_decodable(dump, err, errlen);
	for (i = 0; !ret && i < dump->nruns; i++)
		if (dump->runs[i].events)
			ret = add_run(out, dump, i, err, errlen);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory grouping the runs");
	if (ret)
		report_group_free(out);
	return ret;
}

void report_group_free(struct rg_blocks *g)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		free(g->b[i].sigs);
		free(g->b[i].occ);
		free(g->b[i].run_index);
	}
	free(g->b);
	memset(g, 0, sizeof(*g));
}

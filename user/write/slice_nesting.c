// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include "write/slice_nesting.h"

static bool zero_length(const struct nest_slice *s)
{
	return s->start == s->end;
}

/*
 * Thread, then start; a run before its events, then what lasts no time
 * (see nests_in()), then the longer first.
 */
static int slice_cmp(const void *a, const void *b)
{
	const struct nest_slice *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if ((x->ev == NEST_RUN) != (y->ev == NEST_RUN))
		return x->ev == NEST_RUN ? -1 : 1;
	if (zero_length(x) != zero_length(y))
		return zero_length(x) ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	if (x->ev == y->ev)
		return 0;
	/* instants in the order they were logged */
	if (zero_length(x))
		return x->ev < y->ev ? -1 : 1;
	/* same times: ETDumpGen wrote the inner scope first */
	return x->ev > y->ev ? -1 : 1;
}

/*
 * Whether s goes inside the open slice top. A slice that lasts no time
 * does only strictly inside (or in its own run): at its parent's first or
 * last instant speedscope would take its end as the parent's, as it ends
 * slices before it begins others at equal times.
 */
static bool nests_in(const struct nest_slice *s, const struct nest_slice *top)
{
	if (top->tid != s->tid)
		return false;
	if (zero_length(s))
		return (top->start < s->start && s->start < top->end) ||
		       (top->ev == NEST_RUN && top->run == s->run);
	return s->end <= top->end;
}

int nest_collect(const struct etd_dump *dump, struct nest_slice **out,
		 size_t *n)
{
	struct nest_slice *v;
	size_t r, e, k = 0, total = 0;

	for (r = 0; r < dump->nruns; r++)
		total += dump->runs[r].nevents + 1;
	v = calloc(total ? total : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (r = 0; r < dump->nruns; r++) {
		const struct etd_run *run = &dump->runs[r];
		size_t at = k++;
		struct nest_slice *rs = &v[at];
		bool any = false;

		*rs = (struct nest_slice){ .start = run->open_time,
			.end = run->open_time, .tid = run->tid, .run = r,
			.ev = NEST_RUN };
		for (e = 0; e < run->nevents; e++) {
			const struct etd_event *ev = &run->events[e];

			if (ev->kind != ETD_PROFILE)
				continue;
			any = true;
			v[k++] = (struct nest_slice){ .start = ev->start_time,
				.end = ev->end_time > ev->start_time ?
				       ev->end_time : ev->start_time,
				.tid = ev->tid ? ev->tid : run->tid, .run = r,
				.ev = e };
			if (ev->tid)
				continue;
			if (ev->start_time < rs->start)
				rs->start = ev->start_time;
			if (v[k - 1].end > rs->end)
				rs->end = v[k - 1].end;
		}
		if (!any && !run->open_time)
			k = at;
	}
	if (k)
		qsort(v, k, sizeof(*v), slice_cmp);
	*out = v;
	*n = k;
	return 0;
}

int nest_walk(struct nest_slice *v, size_t n, const struct nest_visitor *vis,
	      size_t *clipped)
{
	size_t *stack, depth = 0, i;
	int err = 0;

	stack = calloc(n ? n : 1, sizeof(*stack));
	if (!stack)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		struct nest_slice *s = &v[i];

		while (depth && !err) {
			struct nest_slice *top = &v[stack[depth - 1]];

			if (top->tid == s->tid && s->start < top->end &&
			    s->end > top->end) {
				s->end = top->end;
				(*clipped)++;
			}
			if (nests_in(s, top))
				break;
			depth--;
			err = vis->end(vis->ctx, v, stack, depth, stack[depth]);
		}
		if (err)
			break;
		if (depth)
			v[stack[depth - 1]].parent = true;
		err = vis->begin(vis->ctx, v, stack, depth, i);
		stack[depth++] = i;
	}
	while (depth && !err) {
		depth--;
		err = vis->end(vis->ctx, v, stack, depth, stack[depth]);
	}
	free(stack);
	return err;
}

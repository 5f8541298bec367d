// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/grow_array.h"
#include "write/pprof_samples.h"
#include "write/slice_nesting.h"

/*
 * One table finds both a stack (by parent and frame) and a sample (by
 * stack, thread and run), so that a recording of millions of events in
 * repeated nestings becomes as many samples as it has distinct ones.
 */
struct pprof_slot {
	uint64_t a, b;
	uint32_t kind;          /* SLOT_* */
	uint32_t id;            /* index + 1; 0: free */
};

enum { SLOT_STACK, SLOT_SAMPLE };

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

static size_t find_slot(const struct pprof_samples *s, uint32_t kind,
			uint64_t a, uint64_t b)
{
	size_t mask = s->nslots - 1;
	size_t i = mix(a * 31 + mix(b) + kind) & mask;

	while (s->slots[i].id && (s->slots[i].kind != kind ||
				  s->slots[i].a != a || s->slots[i].b != b))
		i = (i + 1) & mask;
	return i;
}

/* Room for one more key, the table kept at most half full. */
static int slots_room(struct pprof_samples *s)
{
	struct pprof_slot *old = s->slots;
	size_t oldn = s->nslots, i;

	if (2 * (s->used + 1) <= s->nslots)
		return 0;
	s->nslots = oldn ? 2 * oldn : 1024;
	s->slots = calloc(s->nslots, sizeof(*s->slots));
	if (!s->slots) {
		s->slots = old;
		s->nslots = oldn;
		return -ENOMEM;
	}
	for (i = 0; i < oldn; i++)
		if (old[i].id)
			s->slots[find_slot(s, old[i].kind, old[i].a,
					   old[i].b)] = old[i];
	free(old);
	return 0;
}

/* The id of the stack of frame below parent (0: a root). */
static int stack_id(struct pprof_samples *s, uint32_t parent, size_t frame,
		    uint32_t *out)
{
	size_t at;

	if (slots_room(s))
		return -ENOMEM;
	at = find_slot(s, SLOT_STACK, parent, frame);
	if (!s->slots[at].id) {
		if (s->nstacks >= UINT32_MAX - 1 ||
		    grow_array((void **)&s->stacks, &s->stacks_cap, s->nstacks,
			       1, sizeof(*s->stacks)))
			return -ENOMEM;
		s->stacks[s->nstacks++] = (struct pprof_stack){
			.parent = parent, .frame = (uint32_t)frame };
		s->slots[at] = (struct pprof_slot){ .a = parent, .b = frame,
			.kind = SLOT_STACK, .id = (uint32_t)s->nstacks };
		s->used++;
	}
	*out = s->slots[at].id;
	return 0;
}

/* The sample of stack, tid and run, zeroed when new. */
static int64_t *sample_values(struct pprof_samples *s, uint32_t stack,
			      uint32_t tid, size_t run)
{
	uint64_t a = (uint64_t)tid << 32 | stack;
	size_t at;

	if (slots_room(s))
		return NULL;
	at = find_slot(s, SLOT_SAMPLE, a, run);
	if (!s->slots[at].id) {
		if (s->n >= UINT32_MAX - 1 ||
		    grow_array((void **)&s->v, &s->cap, s->n, 1,
			       sizeof(*s->v)) ||
		    grow_array((void **)&s->values, &s->values_cap,
			       s->n * s->nvalues, s->nvalues,
			       sizeof(*s->values)))
			return NULL;
		memset(&s->values[s->n * s->nvalues], 0,
		       s->nvalues * sizeof(*s->values));
		s->v[s->n++] = (struct pprof_sample){ .stack = stack,
			.tid = tid, .run = run };
		s->slots[at] = (struct pprof_slot){ .a = a, .b = run,
			.kind = SLOT_SAMPLE, .id = (uint32_t)s->n };
		s->used++;
	}
	return &s->values[(s->slots[at].id - 1) * s->nvalues];
}

/*
 * A frame's name: the event's; an OPERATOR_CALL or DELEGATE_CALL with its
 * instruction, which tells calls of one name apart as ExecuTorch's plan
 * orders them; a delegate's event by its id, as the Inspector names it.
 */
static int frame_of(struct pprof_samples *s, const struct etd_event *ev,
		    size_t *out)
{
	char buf[96];
	const char *name = buf;

	if (ev->name && ev->instruction_id != ETD_UNSET &&
	    (!strcmp(ev->name, "OPERATOR_CALL") ||
	     !strcmp(ev->name, "DELEGATE_CALL")))
		snprintf(buf, sizeof(buf), "%s instruction %" PRId32, ev->name,
			 ev->instruction_id);
	else if (ev->name)
		name = ev->name;
	else if (ev->delegate_id_str)
		name = ev->delegate_id_str;
	else
		snprintf(buf, sizeof(buf), "%" PRId32, ev->delegate_id_int);
	return string_index_add(&s->frames, name, out);
}

static int block_frame(struct pprof_samples *s, const struct etd_run *run,
		       size_t *out)
{
	return string_index_add(&s->frames, run->name ? run->name : "run",
				out);
}

/* The walk's state, per depth of the open slices. */
struct walk {
	const struct etd_dump *dump;
	struct pprof_samples *s;
	uint32_t *stack;        /* the stack id of the slice at each depth */
	uint64_t *inner;        /* the slices inside it: wall, counters */
	size_t cap, width;      /* width: 1 + counters */
};

static int depth_room(struct walk *w, size_t depth)
{
	size_t cap = w->cap;
	uint32_t *st;
	uint64_t *in;

	if (depth < w->cap)
		return 0;
	cap = cap ? 2 * cap : 16;
	st = realloc(w->stack, cap * sizeof(*st));
	if (st)
		w->stack = st;
	in = st ? realloc(w->inner, cap * w->width * sizeof(*in)) : NULL;
	if (!in)
		return -ENOMEM;
	w->inner = in;
	w->cap = cap;
	return 0;
}

static int on_begin(void *ctx, struct nest_slice *v, const size_t *open,
		    size_t depth, size_t i)
{
	struct walk *w = ctx;
	const struct etd_run *run = &w->dump->runs[v[i].run];
	uint32_t parent = 0;
	size_t frame;
	int err;

	(void)open;
	err = depth_room(w, depth);
	if (err)
		return err;
	/* a run is its block's frame; an event no slice encloses (a pool
	 * worker's, on its own thread) is put under its run's block */
	if (v[i].ev == NEST_RUN || !depth) {
		err = block_frame(w->s, run, &frame);
		if (!err)
			err = stack_id(w->s, 0, frame, v[i].ev == NEST_RUN ?
				       &w->stack[depth] : &parent);
	} else {
		parent = w->stack[depth - 1];
	}
	if (!err && v[i].ev != NEST_RUN) {
		err = frame_of(w->s, &run->events[v[i].ev], &frame);
		if (!err)
			err = stack_id(w->s, parent, frame, &w->stack[depth]);
	}
	if (!err)
		memset(&w->inner[depth * w->width], 0,
		       w->width * sizeof(*w->inner));
	return err;
}

/* An event's own values: what the events inside it took, taken away. */
static int on_end(void *ctx, struct nest_slice *v, const size_t *open,
		  size_t depth, size_t i)
{
	struct walk *w = ctx;
	const struct etd_event *ev;
	const uint64_t *in = &w->inner[depth * w->width];
	uint64_t *up = depth ? &w->inner[(depth - 1) * w->width] : NULL;
	int64_t *vals, took;
	size_t c;

	(void)open;
	if (v[i].ev == NEST_RUN)
		return 0;
	ev = &w->dump->runs[v[i].run].events[v[i].ev];
	vals = sample_values(w->s, w->stack[depth], v[i].tid, v[i].run);
	if (!vals)
		return -ENOMEM;
	vals[PPROF_EVENTS]++;
	/*
	 * Its whole time, not the slice the walk clipped, less its children's
	 * whole times: the cum of every frame is then the sum of its events'
	 * durations, what report sums, even where events of several threads
	 * share a track (an ETDump keeps no thread: a pool worker's events in
	 * its caller's run) and the children overlap: there, and only there,
	 * the parent's own time comes out below 0.
	 */
	took = ev->end_time > ev->start_time ?
		       (int64_t)(ev->end_time - ev->start_time) : 0;
	vals[PPROF_WALL_NS] += took - (int64_t)in[0];
	if (up)
		up[0] += (uint64_t)took;
	for (c = 1; c < w->width; c++) {
		uint64_t x;

		/* a counter not read is 0, and its parent keeps the share */
		if (c > ev->counters.n || !ev->counters.valid[c - 1])
			continue;
		x = ev->counters.value[c - 1];
		vals[PPROF_COUNTERS + c - 1] += (int64_t)(x > in[c] ?
							  x - in[c] : 0);
		if (up)
			up[c] += x;
	}
	return 0;
}

static void event_span(struct pprof_samples *s, const struct nest_slice *v,
		       size_t n)
{
	bool any = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i].ev == NEST_RUN)
			continue;
		if (!any || v[i].start < s->first)
			s->first = v[i].start;
		if (!any || v[i].end > s->last)
			s->last = v[i].end;
		any = true;
	}
}

int pprof_samples_build(const struct etd_dump *dump, struct pprof_samples *out)
{
	uint32_t ncounters = dump->ncounters < ETD_MAX_COUNTERS ?
			     dump->ncounters : ETD_MAX_COUNTERS;
	struct walk w = { .dump = dump, .s = out, .width = 1 + ncounters };
	struct nest_visitor vis = { on_begin, on_end, &w };
	struct nest_slice *v = NULL;
	size_t n = 0;
	int err;

	memset(out, 0, sizeof(*out));
	out->nvalues = PPROF_COUNTERS + ncounters;
	err = nest_collect(dump, &v, &n);
	if (!err) {
		event_span(out, v, n);
		err = nest_walk(v, n, &vis, &out->clipped);
	}
	free(v);
	free(w.stack);
	free(w.inner);
	if (err)
		pprof_samples_free(out);
	return err;
}

void pprof_samples_free(struct pprof_samples *s)
{
	string_index_free(&s->frames);
	grow_array_free(s->stacks, s->stacks_cap, sizeof(*s->stacks));
	grow_array_free(s->v, s->cap, sizeof(*s->v));
	grow_array_free(s->values, s->values_cap, sizeof(*s->values));
	free(s->slots);
	memset(s, 0, sizeof(*s));
}

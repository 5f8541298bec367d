// SPDX-License-Identifier: BSD-3-Clause
/*
 * collector_scopes.c - the per-scope probes' records turned into events: a
 * block opens a run, begin and end make a scope (with its counters), a
 * delegate's log, a value, an allocation and an allocator's name.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "collect/collector_state.h"
#include "model/run_note.h"

int collector_on_block(struct collector *c, struct thread_state *t,
		       const struct rec_fields *r)
{
	const char *name;
	int err;

	/* a run begun while record --duty's probes came or went */
	if (c->gapped && r->ts < c->min_ts) {
		c->stats.cut_runs++;
		t->after_gap = true;
		collector_held_drop(c, t);
		t->depth = 0;
		return collector_close_run(c, t, r->ts);
	}
	/* what it did before was the end of a run begun before attaching */
	if (t->after_gap && (t->nheld || t->mid_run))
		c->stats.cut_runs++;
	if (!t->had_block) {
		collector_held_drop(c, t);
		t->had_block = true;
	}
	/* what it began before is the cut run's */
	if (t->after_gap)
		t->depth = 0;
	t->after_gap = false;
	err = collector_close_run(c, t, r->ts);
	if (err)
		return err;
	/*
	 * Probes attach one by one: a run opened before the last one was in
	 * place may miss events, so its events count as outside any run.
	 */
	if (r->ts < c->min_ts)
		return 0;
	name = collector_name_intern(c, r->name, r->name_len);
	if (!name)
		return -ENOMEM;
	c->runs_opened++;
	t->in_run = true;
	t->run.name = name;
	t->run.tid = t->tid;
	t->run.open_time = r->ts;
	return 0;
}

/*
 * The thread's instruction state, as an event that takes it. When the ring
 * may have lost an instruction record since, the ids cannot be trusted and
 * neither can the run that would hold them.
 */
static bool state_ids(struct thread_state *t, int32_t *chain, int32_t *instr)
{
	*chain = t->chain;
	*instr = t->instr;
	if (t->state_lost && t->in_run)
		t->run.lost_events = true;
	return t->state_lost;
}

int collector_on_begin(struct collector *c, struct thread_state *t,
		       const struct rec_fields *r)
{
	struct scope *s;

	if (t->depth == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;

		s = realloc(t->stack, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		t->stack = s;
		t->cap = cap;
	}
	s = &t->stack[t->depth];
	s->delegate = r->type == ETDUMP_REC_DELEGATE_BEGIN;
	s->token = r->token;
	s->id_int = r->id_int;
	s->start = r->ts;
	s->name = NULL;
	if (r->token) {
		s->name = collector_name_intern(c, r->name, r->name_len);
		if (!s->name)
			return -ENOMEM;
	}
	s->cpu = r->cpu;
	s->ncounters = r->ncounters;
	s->switches = r->switches;
	if (s->ncounters)
		memcpy(s->counters, r->counters,
		       s->ncounters * sizeof(s->counters[0]));
	s->loss_epoch = t->loss_epoch;
	s->ids_lost = false;
	if (s->delegate || r->chain == -1) {
		s->ids_lost = state_ids(t, &s->chain, &s->instr);
	} else {
		s->chain = r->chain;
		s->instr = r->instr;
	}
	t->depth++;
	return 0;
}

static void meta_check(struct collector *c, uint32_t len, uint32_t len_orig)
{
	if (len_orig > len)
		c->stats.truncated++;
}

/*
 * Deltas over the scope. A per-CPU perf event counts for our thread only if
 * the thread stayed on that CPU, never switched out, and the event ran; a
 * multiplexed one is scaled as perf scales it.
 */
static void counter_deltas(const struct collector *c, const struct scope *s,
			   const struct rec_fields *r, struct etd_counters *out)
{
	bool alone = s->cpu == r->cpu && s->switches == r->switches;
	uint32_t i;

	if (!c->ncounters || s->ncounters != c->ncounters ||
	    r->ncounters != c->ncounters)
		return;
	out->n = c->ncounters;
	for (i = 0; i < out->n; i++) {
		const struct etdump_counter_sample *a = &s->counters[i];
		const struct etdump_counter_sample *b = &r->counters[i];
		uint64_t enabled, running, delta = b->value - a->value;

		out->valid[i] = b->value >= a->value;
		/* read in one generation of the accounting (capture.bpf.c) */
		if (c->counter_kind[i] == ETDUMP_CTR_TASK_CLOCK)
			out->valid[i] = out->valid[i] && a->running &&
					b->running && a->enabled == b->enabled;
		if (c->counter_kind[i] == ETDUMP_CTR_PERF) {
			enabled = b->enabled - a->enabled;
			running = b->running - a->running;
			out->valid[i] = out->valid[i] && alone && running &&
					b->running;
			if (out->valid[i] && running < enabled) {
				double scaled = (double)delta * enabled / running;

				/* past 2^64 it is no measurement (and no uint64) */
				out->valid[i] = scaled < 0x1p64;
				delta = out->valid[i] ? (uint64_t)scaled : 0;
			}
		}
		out->value[i] = out->valid[i] ? delta : 0;
	}
}

/* Find the scope this end closes: the innermost of the same kind and token. */
static bool find_scope(struct thread_state *t, bool delegate, uint64_t token,
		       size_t *at)
{
	size_t i;

	for (i = t->depth; i-- > 0;) {
		if (t->stack[i].delegate == delegate &&
		    (delegate || t->stack[i].token == token)) {
			*at = i;
			return true;
		}
	}
	return false;
}

/*
 * An event that may not be what the thread did (it spans a loss, or its
 * ids come from a state the ring may have lost): the run it would go into
 * is left out; outside a run (a worker's) it goes alone, counted.
 */
static int doubtful_event(struct collector *c, struct thread_state *t)
{
	if (t->in_run) {
		t->run.lost_events = true;
		c->stats.left_out++;
	} else {
		c->stats.doubtful_unowned++;
		c->stats.left_out++;
	}
	return 0;
}

/* The note of the thread's runs (its name), made once for all of them. */
static size_t thread_note(const struct collector *c, struct thread_state *t)
{
	if (t->note_gen != c->note_gen) {
		t->note_len = run_note_thread_text(c->run_note, t->name,
						   t->note, sizeof(t->note));
		t->note_gen = c->note_gen;
	}
	return t->note_len;
}

int collector_on_end(struct collector *c, struct thread_state *t,
		     const struct rec_fields *r)
{
	bool delegate = r->type == ETDUMP_REC_DELEGATE_END;
	size_t note_len = 0;
	struct etd_event ev;
	struct scope *s;
	size_t at;

	if (!find_scope(t, delegate, r->token, &at)) {
		/* after a loss, the begin the ring lost: in the drop count */
		if (t->loss_epoch)
			return 0;
		(*collector_leftover(c, t, &c->stats.unmatched_ends))++;
		/* a scope begun before the capture: not a worker's */
		if (!t->had_block && !t->mid_run) {
			t->mid_run = true;
			collector_held_drop(c, t);
		}
		return 0;
	}
	/* scopes opened inside this one and never ended */
	while (t->depth > at + 1) {
		t->depth--;
		/* after a loss, its end may be what the ring lost: counted */
		if (scope_spans_loss(t, &t->stack[t->depth]))
			continue;
		(*collector_leftover(c, t, &c->stats.unclosed_scopes))++;
	}
	s = &t->stack[--t->depth];
	if (s->ids_lost || scope_spans_loss(t, s))
		return doubtful_event(c, t);

	etd_event_init(&ev, ETD_PROFILE);
	ev.chain_index = s->chain;
	ev.instruction_id = s->instr;
	ev.start_time = s->start;
	ev.end_time = r->ts;
	counter_deltas(c, s, r, &ev.counters);
	if (!delegate) {
		ev.name = (char *)s->name;
		/* the run's outermost event says its thread's name */
		if (!t->depth && t->in_run && t->name[0] && !ev.counters.n)
			note_len = thread_note(c, t);
		if (note_len) {
			ev.has_metadata = true;
			ev.metadata = (uint8_t *)t->note;
			ev.metadata_len = note_len;
		} else if (c->run_note && !t->depth) {
			ev.has_metadata = true;
			ev.metadata = (uint8_t *)c->run_note;
			ev.metadata_len = strlen(c->run_note);
		} else if (r->flags & ETDUMP_REC_F_TIME_KEPT) {
			ev.has_metadata = true;
			ev.metadata = (uint8_t *)RUN_NOTE_TIME_KEPT;
			ev.metadata_len = strlen(RUN_NOTE_TIME_KEPT);
		}
		return collector_add_event(c, t, &ev, r->ts);
	}
	/* ETDumpGen: a string id when one was given, else the int id */
	if (s->name)
		ev.delegate_id_str = (char *)s->name;
	else
		ev.delegate_id_int = s->id_int;
	ev.has_metadata = true;
	ev.metadata_len = r->meta_len;
	ev.metadata = (uint8_t *)r->meta;
	meta_check(c, r->meta_len, r->meta_len_orig);
	return collector_add_event(c, t, &ev, r->ts);
}

int collector_on_delegate_log(struct collector *c, struct thread_state *t,
			      const struct rec_fields *r)
{
	struct etd_event ev;

	etd_event_init(&ev, ETD_PROFILE);
	if (state_ids(t, &ev.chain_index, &ev.instruction_id))
		return doubtful_event(c, t);
	ev.start_time = r->start;
	ev.end_time = r->end;
	if (r->name_len && r->name_len != ETDUMP_NAME_UNREAD) {
		ev.delegate_id_str = (char *)collector_name_intern(c, r->name,
							 r->name_len);
		if (!ev.delegate_id_str)
			return -ENOMEM;
	} else {
		ev.delegate_id_int = r->id_int;
	}
	ev.has_metadata = true;
	ev.metadata_len = r->meta_len;
	ev.metadata = (uint8_t *)r->meta;
	meta_check(c, r->meta_len, r->meta_len_orig);
	return collector_add_event(c, t, &ev, r->ts);
}

/* record --values: a DebugEvent in the thread's run when one is whole */
int collector_on_value(struct collector *c, struct thread_state *t,
		       const struct etdump_rec_hdr *h)
{
	struct etd_event ev;
	const char *name;
	bool ready;
	int err;

	if (!c->values && !(c->values = value_capture_new()))
		return -ENOMEM;
	if (h->type == ETDUMP_REC_VALUE_DATA)
		return value_capture_data(c->values, (const void *)h);
	err = value_capture_value(c->values, (const void *)h, &ev, &ready);
	if (err || !ready)
		return err;
	/* events borrow their names from the collector's table */
	if (ev.delegate_id_str) {
		name = strtab_intern(c->names, ev.delegate_id_str,
				     strlen(ev.delegate_id_str));
		free(ev.delegate_id_str);
		ev.delegate_id_str = (char *)name;
		if (!name) {
			etd_event_free(&ev);
			return -ENOMEM;
		}
	}
	return collector_add_event(c, t, &ev, h->ts);
}

/*
 * record --allocations: an allocation event where the thread is, with the
 * instruction state and the time (not schema fields of AllocationEvent:
 * for report --memory and the timeline); the ETDump writer leaves them out
 * unless asked (etd_dump.with_allocations).
 */
int collector_on_allocation(struct collector *c, struct thread_state *t,
			    const struct etdump_rec_allocation *r)
{
	struct etd_event ev;

	c->stats.allocations++;
	etd_event_init(&ev, ETD_ALLOCATION);
	ev.allocator_id = r->allocator_id;
	ev.allocation_size = r->size;
	ev.chain_index = t->chain;
	ev.instruction_id = t->instr;
	ev.start_time = ev.end_time = r->hdr.ts;
	if (t->in_run)
		t->run_allocations++;
	return collector_add_event(c, t, &ev, r->hdr.ts);
}

/* Ids from 1, as the tracer numbers them: a run's allocators are these. */
int collector_on_allocator(struct collector *c,
			   const struct etdump_rec_allocator *r)
{
	uint32_t id = r->allocator_id, i;
	const char *name;
	char **names;

	if (r->allocator_id < 1 || id > 4096)
		return 0;
	if (id > c->nallocators) {
		names = realloc(c->allocators, id * sizeof(*names));
		if (!names)
			return -ENOMEM;
		for (i = c->nallocators; i < id; i++)
			names[i] = NULL;
		c->allocators = names;
		c->nallocators = id;
	}
	free(c->allocators[id - 1]);
	name = collector_name_intern(c, r->name, r->name_len);
	c->allocators[id - 1] = name ? strdup(name) : NULL;
	return c->allocators[id - 1] ? 0 : -ENOMEM;
}

/* Every run names the allocators the recording saw (NULL: unnamed). */
void collector_name_allocators(struct collector *c, struct etd_run *run)
{
	uint32_t i;

	if (!c->nallocators || run->allocators)
		return;
	run->allocators = calloc(c->nallocators, sizeof(char *));
	if (!run->allocators)
		return;
	run->nallocators = c->nallocators;
	for (i = 0; i < c->nallocators; i++)
		if (c->allocators[i])
			run->allocators[i] = strdup(c->allocators[i]);
}

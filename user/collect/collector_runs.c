// SPDX-License-Identifier: BSD-3-Clause
/*
 * collector_runs.c - the collector's runs built: an event goes into the run
 * open on its thread (or the process's, for a worker), is held while no
 * run is open, a long run's events are sent ahead, and a closed run goes
 * to its sink or the log.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "collect/collector_state.h"
#include "lib/grow_array.h"

/* Room for one more element of an array that grows by doubling. */
static int room_for(void **arr, size_t *cap, size_t n, size_t more,
		    size_t elem)
{
	size_t ncap = *cap ? *cap : 16;
	void *p;

	if (n + more <= *cap)
		return 0;
	while (ncap < n + more)
		ncap *= 2;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

/* A copy of a string the event only borrows; NULL stays NULL. */
int collector_own_str(char **s)
{
	if (*s && !(*s = strdup(*s)))
		return -ENOMEM;
	return 0;
}

/*
 * An event the packed form cannot hold, kept whole: its names and
 * metadata copied (they are borrowed), its other heap pointers taken.
 */
static int add_full_event(struct thread_state *t, struct etd_event *ev,
			  struct packed_event *p)
{
	struct run_view *r = &t->run;
	uint8_t *meta = NULL;
	int err;

	err = room_for((void **)&r->full, &t->full_cap, r->nfull, 1,
		       sizeof(*r->full));
	if (err)
		return err;
	if (ev->has_metadata) {
		meta = malloc(ev->metadata_len ? ev->metadata_len : 1);
		if (!meta)
			return -ENOMEM;
		if (ev->metadata_len)
			memcpy(meta, ev->metadata, ev->metadata_len);
	}
	ev->metadata = meta;
	if (collector_own_str(&ev->name) || collector_own_str(&ev->delegate_id_str)) {
		ev->name = ev->delegate_id_str = NULL;
		free(meta);
		return -ENOMEM;
	}
	p->flags = PACKED_FULL;
	p->aux = r->nfull;
	r->full[r->nfull++] = *ev;
	return 0;
}

/* A value (record --values) no run took: the event owned it. */
static void event_value_drop(struct etd_event *ev)
{
	etd_value_free(ev->debug_entry);
	free(ev->debug_entry);
	ev->debug_entry = NULL;
}

/* What a held event owns that no run took: its metadata copy, its value. */
void collector_event_unowned_free(struct etd_event *ev)
{
	free(ev->metadata);
	ev->metadata = NULL;
	event_value_drop(ev);
}

/* The thread's held events dropped: no run will take them. */
void collector_held_drop(struct collector *c, struct thread_state *t)
{
	*collector_leftover(c, t, &c->stats.outside_run) += t->nheld;
	c->stats.left_out += t->nheld;
	c->events_seen -= t->nheld;
	while (t->nheld)
		collector_event_unowned_free(&t->held[--t->nheld].ev);
}

/* Keep an event of a thread with no run (its metadata copied). */
static int hold_event(struct collector *c, struct thread_state *t,
		      const struct etd_event *ev, uint64_t at)
{
	struct held_event *h;
	int err;

	err = room_for((void **)&t->held, &t->held_cap, t->nheld, 1,
		       sizeof(*t->held));
	if (err)
		return err;
	h = &t->held[t->nheld];
	h->ev = *ev;
	h->at = at;
	h->ev.tid = t->tid;
	if (ev->has_metadata) {
		h->ev.metadata = malloc(ev->metadata_len ? ev->metadata_len : 1);
		if (!h->ev.metadata)
			return -ENOMEM;
		memcpy(h->ev.metadata, ev->metadata, ev->metadata_len);
	}
	t->nheld++;
	c->events_seen++;
	return 0;
}

/*
 * The open run's events so far, ahead of its end: its memory is then that
 * of `every` events, reused, instead of growing with the run (fresh memory
 * is most of what a long run costs the recorder).
 */
static int send_ahead(struct collector *c, struct thread_state *t)
{
	struct run_view *r = &t->run;
	int err = c->on_ahead(c->ahead_ctx, r);

	if (err)
		return err;
	while (r->nfull)
		etd_event_free(&r->full[--r->nfull]);
	t->ahead_events += r->nevents;
	r->nevents = 0;
	r->meta_len = 0;
	return 0;
}

/* A run some of whose events went ahead is gone: the taker forgets them. */
static void drop_ahead(struct collector *c, struct thread_state *t)
{
	if (t->ahead_events && c->on_drop)
		c->on_drop(c->ahead_ctx, &t->run);
	t->ahead_events = 0;
}

/*
 * Add an event to the thread's open run. Its name, delegate string id and
 * metadata are borrowed (names interned); the event is kept in 48 bytes
 * unless it carries what only an etd_event holds (a worker's thread too).
 */
static int add_to_run(struct collector *c, struct thread_state *t,
		      struct etd_event *ev)
{
	struct run_view *r = &t->run;
	struct packed_event *p;
	bool delegate = ev->has_metadata && !ev->name;
	bool ids = ev->delegate_id_str || ev->delegate_id_int != ETD_UNSET;
	int err;

	/*
	 * A run the ring lost records of is left out at its end: kept, a long
	 * one's events would only grow the recorder, slower in fresh memory
	 * while the ring fills faster (at 7 M/s a loss became 50% of its CPU
	 * clearing pages).
	 */
	if (r->lost_events) {
		c->events_seen++;
		if (ev->kind == ETD_ALLOCATION)
			t->run_allocations--;
		else
			c->stats.left_out++;
		event_value_drop(ev);
		return 0;
	}
	err = grow_array((void **)&r->events, &t->events_cap, r->nevents, 1,
			 sizeof(*r->events));
	if (err)
		return err;
	p = &r->events[r->nevents];
	memset(p, 0, sizeof(*p));
	/*
	 * A framework event with metadata (each run's outermost, which says
	 * its thread's name) is compact too: its note goes with the run's
	 * metadata, not into a copy of its own to free with the run.
	 */
	if (ev->kind != ETD_PROFILE || ev->counters.n || ev->tid ||
	    ev->metadata_len > UINT16_MAX || (!delegate && ids)) {
		err = add_full_event(t, ev, p);
	} else {
		p->start = ev->start_time;
		p->end = ev->end_time;
		p->chain = ev->chain_index;
		p->instr = ev->instruction_id;
		p->str = delegate ? ev->delegate_id_str : ev->name;
		p->id_int = ev->delegate_id_int;
		if (ev->has_metadata) {
			p->flags = delegate ? PACKED_DELEGATE : PACKED_NOTE;
			p->meta_len = ev->metadata_len;
			p->aux = r->meta_len;
			err = grow_array((void **)&r->meta, &t->meta_cap,
					 r->meta_len, ev->metadata_len, 1);
			if (!err && ev->metadata_len)
				memcpy(r->meta + r->meta_len, ev->metadata,
				       ev->metadata_len);
			if (!err)
				r->meta_len += ev->metadata_len;
		}
	}
	if (err)
		return err;
	r->nevents++;
	c->events_seen++;
	if (c->on_ahead && !c->on_run && r->nevents >= c->ahead_every &&
	    !r->lost_events)
		return send_ahead(c, t);
	return 0;
}

/* `at`: when the event was written (its end, or its log). */
int collector_add_event(struct collector *c, struct thread_state *t,
			struct etd_event *ev, uint64_t at)
{
	/*
	 * Before every probe was in place a scope's records came only from
	 * the probes attached so far (batched events of that time are stale):
	 * the live view counts none of them, as no run takes them.
	 */
	if (c->on_event && at >= c->min_ts)
		c->on_event(c->on_event_ctx, ev, t->tid, t->name);
	if (t->in_run)
		return add_to_run(c, t, ev);
	if (!t->had_block && !t->mid_run)
		return hold_event(c, t, ev, at);
	(*collector_leftover(c, t, &c->stats.outside_run))++;
	c->stats.left_out++;
	event_value_drop(ev); /* its metadata is the record's */
	return 0;
}

/*
 * Is t's run the one a worker's event written at `at` belongs to: opened
 * last, of the runs open now on any thread, at or before it?
 */
static bool run_owns(const struct collector *c, const struct thread_state *t,
		     uint64_t at, uint64_t until)
{
	const struct thread_state *u;
	size_t i;

	if (at < t->run.open_time || at >= until)
		return false;
	for (i = 0; i < c->nthreads; i++) {
		u = &c->threads[i];
		if (u != t && u->in_run && u->run.open_time > t->run.open_time &&
		    u->run.open_time <= at)
			return false;
	}
	return true;
}

/* When an event of the run ended; 0 for one that has no time. */
static uint64_t packed_end(const struct run_view *r,
			   const struct packed_event *p)
{
	const struct etd_event *e;

	if (!(p->flags & PACKED_FULL))
		return p->end;
	e = &r->full[p->aux];
	return e->kind == ETD_PROFILE ? e->end_time : 0;
}

/*
 * ETDumpGen writes an event as it ends, whichever thread ends it: the run's
 * last event, a worker's written at `at`, goes before the events that ended
 * after it (not past one without a time, whose place its thread gave it).
 */
static void place_by_end(struct run_view *r, uint64_t at)
{
	size_t k = r->nevents - 1;
	struct packed_event last = r->events[k];
	uint64_t end;

	while (k > 0) {
		end = packed_end(r, &r->events[k - 1]);
		if (!end || end <= at)
			break;
		k--;
	}
	if (k == r->nevents - 1)
		return;
	memmove(&r->events[k + 1], &r->events[k],
		(r->nevents - 1 - k) * sizeof(*r->events));
	r->events[k] = last;
}

/*
 * Before t's run closes (its thread opens the next at `until`, or the
 * capture ends): the workers' events it owns join it, each in the place
 * its end gives it among the run's own.
 */
static int take_held(struct collector *c, struct thread_state *t,
		     uint64_t until)
{
	struct thread_state *w;
	size_t i, j, kept, had;
	uint8_t *held_meta;
	int err = 0;

	for (i = 0; i < c->nthreads; i++) {
		w = &c->threads[i];
		for (j = kept = 0; j < w->nheld; j++) {
			struct held_event *h = &w->held[j];

			if (err || !run_owns(c, t, h->at, until)) {
				w->held[kept++] = *h;
				continue;
			}
			c->events_seen--;   /* counted again as it joins */
			held_meta = h->ev.metadata; /* the run keeps a copy */
			had = t->run.nevents;
			err = add_to_run(c, t, &h->ev);
			free(held_meta);
			if (err) {
				event_value_drop(&h->ev);
				continue;
			}
			c->stats.worker_events++;
			w->worker = true;
			/* not when it went ahead with the rest, or was left out */
			if (t->run.nevents == had + 1)
				place_by_end(&t->run, h->at);
		}
		w->nheld = kept;
	}
	return err;
}

/* The events of the open run so far, sent ahead or not. */
static uint64_t run_events(const struct thread_state *t)
{
	return t->run.nevents + t->ahead_events - t->run_allocations;
}

/*
 * The thread's run is over (a new block at `until`, or the end of the
 * capture): a run with events goes to the sink, the buffers stay for the
 * next. One the ring lost records of is left out.
 */
int collector_close_run(struct collector *c, struct thread_state *t,
			uint64_t until)
{
	struct run_view *r = &t->run;
	size_t i;
	int err;

	if (!t->in_run)
		return 0;
	err = take_held(c, t, until);
	if (err)
		return err;
	t->in_run = false;
	if (r->lost_events) {
		c->stats.lost_runs++;
		c->stats.left_out += run_events(t);
		t->lost_runs++;
		t->lost_received += run_events(t);
		drop_ahead(c, t);
	} else if (!r->nevents && !t->ahead_events) {
		c->stats.empty_runs++;
	} else {
		c->stats.runs++;
		c->stats.events += r->nevents + t->ahead_events -
				   t->run_allocations;
		t->ahead_events = 0;
		err = c->on_run ? c->on_run(c->on_run_ctx, r) :
				  run_log_append_taking(c->log, r,
					grow_array_mapped(t->events_cap,
							  sizeof(*r->events)));
		/* a long run's pages went to the log: the next one grows anew */
		if (!r->events)
			t->events_cap = 0;
	}
	/* full events the sink did not take */
	for (i = 0; i < r->nfull; i++)
		etd_event_free(&r->full[i]);
	r->nfull = 0;
	r->nevents = 0;
	r->meta_len = 0;
	r->lost_events = false;
	t->run_allocations = 0;
	return err;
}

/* Drop the thread's open run: a scope is still open in it. */
void collector_discard_run(struct collector *c, struct thread_state *t)
{
	c->stats.incomplete_runs++;
	c->stats.left_out += run_events(t);
	drop_ahead(c, t);
	t->run.nevents = 0;
	t->run.meta_len = 0;
	while (t->run.nfull)
		etd_event_free(&t->run.full[--t->run.nfull]);
	t->in_run = false;
}


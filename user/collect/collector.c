// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "batch.h"
#include "batch_threads.h"
#include "grow_array.h"
#include "collector.h"
#include "etdump_record.h"
#include "run_log.h"
#include "strtab.h"
#include "value_capture.h"

struct scope {
	bool delegate;
	uint64_t token;
	const char *name;       /* interned */
	int32_t chain;
	int32_t instr;
	int64_t id_int;
	uint64_t start;
	/*
	 * The thread's losses when it began (loss_epoch): an end after a later
	 * loss may close another instance of the scope (this one's end lost,
	 * the other's begin), and its ids may come from a state lost.
	 */
	uint32_t loss_epoch;
	bool ids_lost;
	/* counters as read at begin */
	uint32_t cpu;
	uint8_t ncounters;
	uint64_t switches;
	struct etdump_counter_sample counters[ETDUMP_MAX_COUNTERS];
};

/* An event of a thread with no run open, and when it was written. */
struct held_event {
	struct etd_event ev;    /* names interned, metadata owned */
	uint64_t at;
};

struct thread_state {
	uint32_t tid;
	int32_t chain;          /* instruction state, as ETDumpGen keeps it */
	int32_t instr;
	bool in_run;            /* run holds the run open on this thread */
	bool had_block;         /* opened a run since the capture started */
	bool mid_run;           /* ended a scope begun before the capture */
	bool state_lost;        /* an instruction record may have been lost */
	uint32_t loss_epoch;    /* losses the ring flagged for the thread */
	bool flush_lost;        /* a flush before the one being expanded */
	bool flush_lost_block;  /* ... holding a block */
	bool flush_lost_clean;  /* ... first: none of the open run's */
	bool worker;            /* gave events to another thread's run */
	size_t run_allocations; /* allocation events in the open run */
	size_t ahead_events;    /* of the open run, sent ahead (c->on_ahead) */
	uint64_t lost_runs;     /* runs left out: the ring lost some of each */
	uint64_t lost_received; /* ... their events that did arrive */
	struct run_view run;
	size_t events_cap, meta_cap, full_cap;
	struct scope *stack;
	size_t depth;
	size_t cap;
	/*
	 * Events of a thread that has opened no run: a worker's (it never
	 * opens one) go into the run open in the process when they were
	 * written, as ETDumpGen's one current block takes them; a thread
	 * that opens a run later, or ends a scope begun before the capture,
	 * was attached mid-run, and they are lost.
	 */
	struct held_event *held;
	size_t nheld;
	size_t held_cap;
};

struct collector {
	struct run_log *log;    /* the complete runs */
	struct strtab *names;
	collector_run_fn on_run; /* where a complete run goes; NULL: log */
	void *on_run_ctx;
	collector_run_fn on_ahead; /* collector_set_ahead() */
	collector_drop_fn on_drop;
	void *ahead_ctx;
	size_t ahead_every;
	collector_event_fn on_event; /* sees every event, in a run or not */
	void *on_event_ctx;
	uint64_t runs_opened;
	struct thread_state *threads;
	size_t nthreads;
	size_t last;            /* most threads send long bursts */
	struct collector_stats stats;
	uint64_t events_seen;
	/* the name of the batched record fed now, interned with its flush */
	const char *flush_name;
	uint64_t min_ts;        /* every probe in place: runs open after it */
	char *run_note;         /* collector_set_run_note() */
	uint32_t ncounters;
	char *counter_names[ETDUMP_MAX_COUNTERS];
	uint8_t counter_kind[ETDUMP_MAX_COUNTERS];
	struct value_capture *values;  /* record --values: made at the first */
	char **allocators;      /* track_allocator's names, by id - 1 */
	uint32_t nallocators;
	struct batch_threads batches; /* how far each thread's buffers came */
};

struct collector *collector_new(void)
{
	struct collector *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	batch_threads_init(&c->batches);
	c->log = run_log_new();
	c->names = strtab_new();
	if (!c->log || !c->names) {
		collector_free(c);
		return NULL;
	}
	return c;
}

void collector_set_event_hook(struct collector *c, collector_event_fn fn,
			      void *ctx)
{
	c->on_event = fn;
	c->on_event_ctx = ctx;
}

void collector_set_run_sink(struct collector *c, collector_run_fn fn,
			    void *ctx)
{
	c->on_run = fn;
	c->on_run_ctx = ctx;
}

void collector_set_ahead(struct collector *c, collector_run_fn ahead,
			 collector_drop_fn drop, void *ctx, size_t every)
{
	c->on_ahead = ahead;
	c->on_drop = drop;
	c->ahead_ctx = ctx;
	c->ahead_every = every;
}

int collector_set_run_note(struct collector *c, const char *text)
{
	free(c->run_note);
	c->run_note = strdup(text);
	return c->run_note ? 0 : -ENOMEM;
}

void collector_set_start(struct collector *c, uint64_t ts)
{
	c->min_ts = ts;
}

int collector_set_counters(struct collector *c, const char *const *names,
			   const uint8_t *kinds, uint32_t n)
{
	uint32_t i;

	if (n > ETDUMP_MAX_COUNTERS)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		c->counter_names[i] = strdup(names[i]);
		if (!c->counter_names[i])
			return -ENOMEM;
		c->counter_kind[i] = kinds[i];
		c->ncounters = i + 1;
	}
	return 0;
}

static struct thread_state *thread_get(struct collector *c, uint32_t tid)
{
	struct thread_state *t;
	size_t i;

	if (c->nthreads && c->threads[c->last].tid == tid)
		return &c->threads[c->last];
	for (i = 0; i < c->nthreads; i++) {
		if (c->threads[i].tid == tid) {
			c->last = i;
			return &c->threads[i];
		}
	}
	t = realloc(c->threads, (c->nthreads + 1) * sizeof(*t));
	if (!t)
		return NULL;
	c->threads = t;
	t = &c->threads[c->nthreads];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->chain = -1;
	t->instr = 0;
	c->last = c->nthreads++;
	return t;
}

/* A bounded name from a record, interned, made valid UTF-8 for flatc. */
static const char *name_intern(struct collector *c, const char *name,
			       uint16_t len)
{
	if (len == ETDUMP_NAME_UNREAD) {
		c->stats.unreadable++;
		len = 0;
	} else if (len >= ETDUMP_NAME_MAX - 1) {
		len = ETDUMP_NAME_MAX - 1;
		c->stats.truncated++;
	}
	/* a batched flush's names are interned once per flush */
	if (c->flush_name)
		return c->flush_name;
	return strtab_intern(c->names, name, strnlen(name, len));
}

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
static int own_str(char **s)
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
	if (own_str(&ev->name) || own_str(&ev->delegate_id_str)) {
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
static void event_unowned_free(struct etd_event *ev)
{
	free(ev->metadata);
	ev->metadata = NULL;
	event_value_drop(ev);
}

static void held_drop(struct collector *c, struct thread_state *t)
{
	c->stats.outside_run += t->nheld;
	c->stats.left_out += t->nheld;
	c->events_seen -= t->nheld;
	while (t->nheld)
		event_unowned_free(&t->held[--t->nheld].ev);
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
	bool delegate = ev->has_metadata;
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
	if (ev->kind != ETD_PROFILE || ev->counters.n || ev->tid ||
	    ev->metadata_len > UINT16_MAX ||
	    (delegate ? ev->name != NULL :
			ev->delegate_id_str || ev->delegate_id_int != ETD_UNSET)) {
		err = add_full_event(t, ev, p);
	} else {
		p->start = ev->start_time;
		p->end = ev->end_time;
		p->chain = ev->chain_index;
		p->instr = ev->instruction_id;
		p->str = delegate ? ev->delegate_id_str : ev->name;
		p->id_int = ev->delegate_id_int;
		if (delegate) {
			p->flags = PACKED_DELEGATE;
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
static int add_event(struct collector *c, struct thread_state *t,
		     struct etd_event *ev, uint64_t at)
{
	/*
	 * Before every probe was in place a scope's records came only from
	 * the probes attached so far (batched events of that time are stale):
	 * the live view counts none of them, as no run takes them.
	 */
	if (c->on_event && at >= c->min_ts)
		c->on_event(c->on_event_ctx, ev);
	if (t->in_run)
		return add_to_run(c, t, ev);
	if (!t->had_block && !t->mid_run)
		return hold_event(c, t, ev, at);
	c->stats.outside_run++;
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

/*
 * Before t's run closes (its thread opens the next at `until`, or the
 * capture ends): the workers' events it owns join it, after its own.
 */
static int take_held(struct collector *c, struct thread_state *t,
		     uint64_t until)
{
	struct thread_state *w;
	size_t i, j, kept;
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
			err = add_to_run(c, t, &h->ev);
			free(held_meta);
			if (err) {
				event_value_drop(&h->ev);
			} else {
				c->stats.worker_events++;
				w->worker = true;
			}
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
static int close_run(struct collector *c, struct thread_state *t,
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

static int on_block(struct collector *c, struct thread_state *t,
		    const struct etdump_rec_block *r)
{
	const char *name;
	int err;

	/* what it did before was the end of a run begun before attaching */
	if (!t->had_block) {
		held_drop(c, t);
		t->had_block = true;
	}
	err = close_run(c, t, r->hdr.ts);
	if (err)
		return err;
	/*
	 * Probes attach one by one: a run opened before the last one was in
	 * place may miss events, so its events count as outside any run.
	 */
	if (r->hdr.ts < c->min_ts)
		return 0;
	name = name_intern(c, r->name, r->name_len);
	if (!name)
		return -ENOMEM;
	c->runs_opened++;
	t->in_run = true;
	t->run.name = name;
	t->run.tid = t->tid;
	t->run.open_time = r->hdr.ts;
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

static int on_begin(struct collector *c, struct thread_state *t,
		    const struct etdump_rec_begin *r)
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
	s->delegate = r->hdr.type == ETDUMP_REC_DELEGATE_BEGIN;
	s->token = r->token;
	s->id_int = r->id_int;
	s->start = r->hdr.ts;
	s->name = NULL;
	if (r->token) {
		s->name = name_intern(c, r->name, r->name_len);
		if (!s->name)
			return -ENOMEM;
	}
	s->cpu = r->hdr.cpu;
	s->ncounters = r->hdr.ncounters;
	s->switches = r->switches;
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
			   const struct etdump_rec_end *r, struct etd_counters *out)
{
	bool alone = s->cpu == r->hdr.cpu && s->switches == r->switches;
	uint32_t i;

	if (!c->ncounters || s->ncounters != c->ncounters ||
	    r->hdr.ncounters != c->ncounters)
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

static int on_end(struct collector *c, struct thread_state *t,
		  const struct etdump_rec_end *r)
{
	bool delegate = r->hdr.type == ETDUMP_REC_DELEGATE_END;
	struct etd_event ev;
	struct scope *s;
	size_t at;

	if (!find_scope(t, delegate, r->token, &at)) {
		/* after a loss, the begin the ring lost: in the drop count */
		if (t->loss_epoch)
			return 0;
		c->stats.unmatched_ends++;
		/* a scope begun before the capture: not a worker's */
		if (!t->had_block && !t->mid_run) {
			t->mid_run = true;
			held_drop(c, t);
		}
		return 0;
	}
	/* scopes opened inside this one and never ended */
	while (t->depth > at + 1) {
		t->depth--;
		c->stats.unclosed_scopes++;
	}
	s = &t->stack[--t->depth];
	if (s->ids_lost || s->loss_epoch != t->loss_epoch)
		return doubtful_event(c, t);

	etd_event_init(&ev, ETD_PROFILE);
	ev.chain_index = s->chain;
	ev.instruction_id = s->instr;
	ev.start_time = s->start;
	ev.end_time = r->hdr.ts;
	counter_deltas(c, s, r, &ev.counters);
	if (!delegate) {
		ev.name = (char *)s->name;
		if (c->run_note && !t->depth) {
			ev.has_metadata = true;
			ev.metadata = (uint8_t *)c->run_note;
			ev.metadata_len = strlen(c->run_note);
		}
		return add_event(c, t, &ev, r->hdr.ts);
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
	return add_event(c, t, &ev, r->hdr.ts);
}

static int on_delegate_log(struct collector *c, struct thread_state *t,
			   const struct etdump_rec_delegate_log *r)
{
	struct etd_event ev;

	etd_event_init(&ev, ETD_PROFILE);
	if (state_ids(t, &ev.chain_index, &ev.instruction_id))
		return doubtful_event(c, t);
	ev.start_time = r->start;
	ev.end_time = r->end;
	if (r->name_len && r->name_len != ETDUMP_NAME_UNREAD) {
		ev.delegate_id_str = (char *)name_intern(c, r->name,
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
	return add_event(c, t, &ev, r->hdr.ts);
}

/* The smallest size each record type can have. */
static size_t record_min_size(uint8_t type)
{
	switch (type) {
	case ETDUMP_REC_BLOCK:
		return sizeof(struct etdump_rec_block);
	case ETDUMP_REC_PROFILE_BEGIN:
	case ETDUMP_REC_DELEGATE_BEGIN:
		return offsetof(struct etdump_rec_begin, counters);
	case ETDUMP_REC_PROFILE_END:
	case ETDUMP_REC_DELEGATE_END:
		return offsetof(struct etdump_rec_end, counters);
	case ETDUMP_REC_INSTRUCTION:
		return sizeof(struct etdump_rec_instruction);
	case ETDUMP_REC_DELEGATE_LOG:
		return sizeof(struct etdump_rec_delegate_log);
	case ETDUMP_REC_BATCH:
		return offsetof(struct etdump_rec_batch, data);
	case ETDUMP_REC_VALUE:
		return sizeof(struct etdump_rec_value);
	case ETDUMP_REC_VALUE_DATA:
		return offsetof(struct etdump_rec_value_data, data);
	case ETDUMP_REC_ALLOCATION:
		return sizeof(struct etdump_rec_allocation);
	case ETDUMP_REC_ALLOCATOR:
		return sizeof(struct etdump_rec_allocator);
	default:
		return 0;
	}
}

/*
 * The counter samples the header announces lie inside the record: a raw
 * capture keeps records at the length the ring gave, which may stop there.
 */
static bool counters_fit(const struct etdump_rec_hdr *h, size_t at)
{
	return h->ncounters <= ETDUMP_MAX_COUNTERS &&
	       h->size >= at + h->ncounters *
				       sizeof(struct etdump_counter_sample);
}

static bool record_valid(const struct etdump_rec_hdr *h, size_t len)
{
	size_t min = record_min_size(h->type);
	const struct etdump_rec_begin *b = (const void *)h;
	const struct etdump_rec_end *e = (const void *)h;
	const struct etdump_rec_delegate_log *d = (const void *)h;

	if (!min || h->size > len || h->size < min)
		return false;
	switch (h->type) {
	case ETDUMP_REC_DELEGATE_BEGIN:
		/*
		 * ETDumpGen wants a string or an int id: with neither, the
		 * event would pass for a framework one, metadata and all
		 * (the int is an int32 in the ETDump)
		 */
		if (!b->token && (int32_t)b->id_int == -1)
			return false;
		/* fall through */
	case ETDUMP_REC_PROFILE_BEGIN:
		return counters_fit(h, offsetof(struct etdump_rec_begin,
						counters));
	case ETDUMP_REC_PROFILE_END:
	case ETDUMP_REC_DELEGATE_END:
		return e->meta_len <= ETDUMP_META_MAX &&
		       counters_fit(h, offsetof(struct etdump_rec_end, counters));
	case ETDUMP_REC_DELEGATE_LOG:
		return d->meta_len <= ETDUMP_META_MAX &&
		       ((d->name_len && d->name_len != ETDUMP_NAME_UNREAD) ||
			(int32_t)d->id_int != -1);
	case ETDUMP_REC_BATCH:
		return ((const struct etdump_rec_batch *)h)->len <=
		       h->size - offsetof(struct etdump_rec_batch, data);
	case ETDUMP_REC_VALUE:
	case ETDUMP_REC_VALUE_DATA:
		return value_record_valid(h);
	}
	return true;
}

/* record --values: a DebugEvent in the thread's run when one is whole */
static int on_value(struct collector *c, struct thread_state *t,
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
	return add_event(c, t, &ev, h->ts);
}

/*
 * record --allocations: an allocation event where the thread is, with the
 * instruction state and the time (not schema fields of AllocationEvent:
 * for report --memory and the timeline); the ETDump writer leaves them out
 * unless asked (etd_dump.with_allocations).
 */
static int on_allocation(struct collector *c, struct thread_state *t,
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
	return add_event(c, t, &ev, r->hdr.ts);
}

/* Ids from 1, as the tracer numbers them: a run's allocators are these. */
static int on_allocator(struct collector *c, const struct etdump_rec_allocator *r)
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
	name = name_intern(c, r->name, r->name_len);
	c->allocators[id - 1] = name ? strdup(name) : NULL;
	return c->allocators[id - 1] ? 0 : -ENOMEM;
}

/* Every run names the allocators the recording saw (NULL: unnamed). */
static void name_allocators(struct collector *c, struct etd_run *run)
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

static int feed_expanded(void *ctx, const void *rec, size_t len,
			 const char *name)
{
	struct collector *c = ctx;
	int err;

	c->flush_name = name;
	err = collector_feed(c, rec, len);
	c->flush_name = NULL;
	return err;
}

static const char *intern_flush_name(void *ctx, const char *s, size_t len)
{
	struct collector *c = ctx;

	return strtab_intern(c->names, s, len);
}

/*
 * A flush of batched mode, or a buffer the recorder read from the process:
 * the records its probes would have sent, but those the recorder has
 * already.
 */
static int on_batch(struct collector *c, const struct etdump_rec_batch *b)
{
	struct etdump_batch_head head;
	struct batch_stats bs = { 0 };
	uint32_t skip = 0;
	int err;

	err = b->len ? batch_head(b, &head) : 0;
	if (!err && b->len) {
		c->stats.counter_flushes +=
			head.clock == ETDUMP_BATCH_CLOCK_COUNTER;
		c->stats.pulled += !!(b->hdr.flags & ETDUMP_REC_F_PULLED);
		struct batch_buffer buf = {
			.pid = b->hdr.pid, .tid = head.tid, .addr = b->addr,
			.seq = head.seq, .len = head.len, .skipped = head.skipped,
			.flushed_at = b->hdr.flags & ETDUMP_REC_F_PULLED ?
					      0 : b->hdr.ts,
			.nevents = head.nevents,
		};
		uint32_t skipped, read_lost;

		if (b->hdr.flags & (ETDUMP_REC_F_LENT | ETDUMP_REC_F_NOT_ITS_OWN))
			return batch_threads_lend(&c->batches, &buf,
						  b->hdr.flags & ETDUMP_REC_F_LENT);
		err = batch_threads_take(&c->batches, &buf, &skip, &skipped,
					 &read_lost);
		c->stats.read_then_lost += read_lost;
		if (err)
			return err < 0 ? err : 0;
		c->stats.runs_skipped += skipped;
	}
	if (!err)
		err = batch_expand(b, skip, c->min_ts, feed_expanded,
				   intern_flush_name, c, &bs);
	c->stats.stale += bs.stale;
	c->stats.lost_in_flush += bs.lost;
	if (err == -EINVAL)
		c->stats.bad_records++;
	if (err == -EPROTO)
		c->stats.old_batch_layout++;
	return err == -EPROTO ? 0 : err;
}

const struct batch_threads *collector_batch_threads(const struct collector *c)
{
	return &c->batches;
}

/* Has the thread a scope open that it opened in its current run? */
static bool run_has_open_scope(const struct thread_state *t)
{
	size_t i;

	if (!t->in_run)
		return false;
	for (i = 0; i < t->depth; i++)
		if (t->stack[i].start >= t->run.open_time)
			return true;
	return false;
}

/*
 * A thread outside any run lost a block: what follows is that run's, never
 * a worker's to lend to another thread's run. It is held open as a run
 * the ring lost (left out at its end, its events counted), from `ts` (the
 * block's own time is gone: a worker's event between the two is not told
 * apart).
 */
static void open_unseen_run(struct collector *c, struct thread_state *t,
			    uint64_t ts)
{
	if (!t->had_block) {
		held_drop(c, t);
		t->had_block = true;
	}
	t->in_run = true;
	t->run.name = NULL;
	t->run.tid = t->tid;
	t->run.open_time = ts;
	t->run.lost_events = true;
}

/*
 * The ring lost some of this thread's records just before `h`: the run it
 * is in lost events, or the block of the run they belong to. A batched
 * flush lost before one that opens a run, while the last run had ended,
 * held whole runs: nothing received is short of them.
 */
static int note_loss(struct collector *c, struct thread_state *t,
		     const struct etdump_rec_hdr *h)
{
	bool whole_runs = t->flush_lost && h->type == ETDUMP_REC_BLOCK &&
			  !run_has_open_scope(t);

	bool lost_block = (h->flags & ETDUMP_REC_F_LOST_BLOCK) ||
			  t->flush_lost_block;
	bool clean = t->flush_lost_clean ||
		     (h->flags & ETDUMP_REC_F_LOST_CLEAN);
	int err = 0;

	t->flush_lost = false;
	t->flush_lost_block = false;
	t->flush_lost_clean = false;
	if (whole_runs)
		return 0;
	t->loss_epoch++;
	/* the lost buffers began with the next run: this one is whole */
	if (t->in_run && clean && lost_block && !run_has_open_scope(t))
		err = close_run(c, t, h->ts);
	if (t->in_run)
		t->run.lost_events = true;
	else if (lost_block)
		open_unseen_run(c, t, h->ts);
	t->state_lost = true;
	return err;
}

int collector_feed(struct collector *c, const void *rec, size_t len)
{
	const struct etdump_rec_hdr *h = rec;
	struct thread_state *t;

	c->stats.records++;
	if (len < sizeof(*h) || !record_valid(h, len)) {
		c->stats.bad_records++;
		return -EINVAL;
	}
	t = thread_get(c, h->tid);
	if (!t)
		return -ENOMEM;
	if (h->type == ETDUMP_REC_BATCH) {
		t->flush_lost = h->flags & ETDUMP_REC_F_LOST_BEFORE;
		t->flush_lost_block = h->flags & ETDUMP_REC_F_LOST_BLOCK;
		t->flush_lost_clean = h->flags & ETDUMP_REC_F_LOST_CLEAN;
	} else if ((h->flags & ETDUMP_REC_F_LOST_BEFORE) || t->flush_lost) {
		int err = note_loss(c, t, h);

		if (err)
			return err;
	}
	switch (h->type) {
	case ETDUMP_REC_BLOCK:
		return on_block(c, t, rec);
	case ETDUMP_REC_PROFILE_BEGIN:
	case ETDUMP_REC_DELEGATE_BEGIN:
		return on_begin(c, t, rec);
	case ETDUMP_REC_PROFILE_END:
	case ETDUMP_REC_DELEGATE_END:
		return on_end(c, t, rec);
	case ETDUMP_REC_INSTRUCTION:
		t->state_lost = false;
		t->chain = ((const struct etdump_rec_instruction *)rec)->chain;
		t->instr = ((const struct etdump_rec_instruction *)rec)->instr;
		return 0;
	case ETDUMP_REC_DELEGATE_LOG:
		return on_delegate_log(c, t, rec);
	case ETDUMP_REC_BATCH:
		return on_batch(c, rec);
	case ETDUMP_REC_VALUE:
	case ETDUMP_REC_VALUE_DATA:
		return on_value(c, t, rec);
	case ETDUMP_REC_ALLOCATION:
		return on_allocation(c, t, rec);
	case ETDUMP_REC_ALLOCATOR:
		return on_allocator(c, rec);
	}
	return 0;
}

const struct value_capture *collector_values(const struct collector *c)
{
	return c->values;
}

uint64_t collector_runs_seen(const struct collector *c)
{
	return c->runs_opened;
}

uint64_t collector_events_seen(const struct collector *c)
{
	return c->events_seen;
}

/* Drop the thread's open run: a scope is still open in it. */
static void discard_run(struct collector *c, struct thread_state *t)
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

int collector_close(struct collector *c, struct collector_stats *stats)
{
	size_t i;
	int err = 0;

	if (c->values && value_capture_seal(c->values))
		return -ENOMEM;
	/*
	 * Scopes still open: one opened in the thread's current run means
	 * the capture stopped mid-run, and that run is incomplete. Ones
	 * opened in earlier runs were never closed (an early return): they
	 * are lost, counted, and the runs after them are whole.
	 */
	for (i = 0; i < c->nthreads && !err; i++) {
		struct thread_state *t = &c->threads[i];

		if (run_has_open_scope(t)) {
			discard_run(c, t);
			continue;
		}
		if (t->in_run)
			c->stats.unclosed_scopes += t->depth;
		err = close_run(c, t, UINT64_MAX);
	}
	/* workers' events no run was open for */
	for (i = 0; i < c->nthreads; i++) {
		if (c->threads[i].worker)
			c->stats.worker_threads++;
		held_drop(c, &c->threads[i]);
	}
	c->stats.threads = c->nthreads;
	if (stats)
		*stats = c->stats;
	return err;
}

void collector_each_loss(const struct collector *c, collector_loss_fn fn,
			 void *ctx)
{
	for (size_t i = 0; i < c->nthreads; i++)
		if (c->threads[i].lost_runs)
			fn(ctx, c->threads[i].tid, c->threads[i].lost_runs,
			   c->threads[i].lost_received);
}

struct run_log *collector_log(struct collector *c)
{
	return c->log;
}

const char *const *collector_counter_names(const struct collector *c,
					   uint32_t *n)
{
	*n = c->ncounters;
	return (const char *const *)c->counter_names;
}

/* A run of the log as an etd_run that owns everything it points to. */
static int materialize_run(void *ctx, struct run_view *r)
{
	struct etd_dump *dump = ctx;
	struct etd_event ev;
	struct etd_run *run;
	size_t i;
	int err;

	err = etd_dump_add_run(dump, r->name, &run);
	if (err)
		return err;
	run->tid = r->tid;
	run->open_time = r->open_time;
	for (i = 0; i < r->nevents && !err; i++) {
		packed_event_view(r, &r->events[i], &ev);
		if (r->events[i].flags & PACKED_FULL) {
			/* taken: the log no longer frees it */
			r->full[r->events[i].aux].debug_entry = NULL;
			r->full[r->events[i].aux].name = NULL;
			r->full[r->events[i].aux].delegate_id_str = NULL;
			r->full[r->events[i].aux].metadata = NULL;
		} else {
			if (own_str(&ev.name) || own_str(&ev.delegate_id_str))
				err = -ENOMEM;
			if (!err && ev.has_metadata) {
				ev.metadata = malloc(ev.metadata_len ?
							     ev.metadata_len : 1);
				if (!ev.metadata)
					err = -ENOMEM;
				else if (ev.metadata_len)
					memcpy(ev.metadata,
					       r->meta + r->events[i].aux,
					       ev.metadata_len);
			}
		}
		err = err ? err : etd_run_add_event(run, &ev);
		if (err)
			etd_event_free(&ev);
	}
	return err;
}

static int run_cmp_open_time(const void *a, const void *b)
{
	const struct etd_run *x = a, *y = b;

	if (x->open_time != y->open_time)
		return x->open_time < y->open_time ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return 0;
}

int collector_dump_log(struct collector *c, struct etd_dump *out)
{
	struct etd_dump dump = { 0 };
	uint32_t i;
	int err;

	err = run_log_each(c->log, true, materialize_run, &dump);
	for (i = 0; !err && i < c->ncounters; i++) {
		dump.counter_names[i] = strdup(c->counter_names[i]);
		if (!dump.counter_names[i])
			err = -ENOMEM;
		dump.ncounters = i + 1;
	}
	if (err) {
		etd_dump_free(&dump);
		return err;
	}
	for (size_t r = 0; r < dump.nruns; r++)
		name_allocators(c, &dump.runs[r]); /* without memory, none */
	/* one thread's blocks have distinct times, so this order is total */
	if (dump.nruns)
		qsort(dump.runs, dump.nruns, sizeof(*dump.runs),
		      run_cmp_open_time);
	*out = dump;
	return 0;
}

int collector_finish(struct collector *c, struct etd_dump *out,
		     struct collector_stats *stats)
{
	int err = collector_close(c, stats);

	return err ? err : collector_dump_log(c, out);
}

void collector_free(struct collector *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nthreads; i++) {
		struct thread_state *t = &c->threads[i];

		while (t->run.nfull)
			etd_event_free(&t->run.full[--t->run.nfull]);
		free(t->run.full);
		grow_array_free(t->run.events, t->events_cap,
				sizeof(*t->run.events));
		grow_array_free(t->run.meta, t->meta_cap, 1);
		free(t->stack);
		while (t->nheld)
			event_unowned_free(&t->held[--t->nheld].ev);
		free(t->held);
	}
	free(c->threads);
	value_capture_free(c->values);
	for (i = 0; i < c->nallocators; i++)
		free(c->allocators[i]);
	free(c->allocators);
	for (i = 0; i < c->ncounters; i++)
		free(c->counter_names[i]);
	run_log_free(c->log);
	free(c->run_note);
	strtab_free(c->names);
	batch_threads_free(&c->batches);
	free(c);
}

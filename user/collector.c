// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "batch.h"
#include "collector.h"
#include "etdump_record.h"
#include "utf8.h"
#include "value_capture.h"

#define NO_RUN ((size_t)-1)

struct scope {
	bool delegate;
	uint64_t token;
	char *name;
	int32_t chain;
	int32_t instr;
	int64_t id_int;
	uint64_t start;
	/* counters as read at begin */
	uint32_t cpu;
	uint8_t ncounters;
	uint64_t switches;
	struct etdump_counter_sample counters[ETDUMP_MAX_COUNTERS];
};

struct thread_state {
	uint32_t tid;
	int32_t chain;          /* instruction state, as ETDumpGen keeps it */
	int32_t instr;
	size_t run;             /* index in collector.dump.runs, or NO_RUN */
	struct scope *stack;
	size_t depth;
	size_t cap;
};

struct collector {
	struct etd_dump dump;
	struct thread_state *threads;
	size_t nthreads;
	size_t last;            /* most threads send long bursts */
	struct collector_stats stats;
	uint64_t events_seen;
	uint64_t min_ts;        /* every probe in place: runs open after it */
	uint32_t ncounters;
	char *counter_names[ETDUMP_MAX_COUNTERS];
	uint8_t counter_kind[ETDUMP_MAX_COUNTERS];
	struct value_capture *values;  /* record --values: made at the first */
	char **allocators;      /* track_allocator's names, by id - 1 */
	uint32_t nallocators;
};

struct collector *collector_new(void)
{
	return calloc(1, sizeof(struct collector));
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
	t->run = NO_RUN;
	c->last = c->nthreads++;
	return t;
}

/* A copy of a bounded name from a record, made valid UTF-8 for flatc. */
static char *name_dup(struct collector *c, const char *name, uint16_t len)
{
	char *s;

	if (len == ETDUMP_NAME_UNREAD) {
		c->stats.unreadable++;
		len = 0;
	} else if (len >= ETDUMP_NAME_MAX - 1) {
		len = ETDUMP_NAME_MAX - 1;
		c->stats.truncated++;
	}
	s = strndup(name, len);
	if (s)
		utf8_sanitize(s);
	return s;
}

static int add_event(struct collector *c, struct thread_state *t,
		     struct etd_event *ev)
{
	int err;

	if (t->run == NO_RUN) {
		c->stats.outside_run++;
		err = 0;
		goto drop;
	}
	err = etd_run_add_event(&c->dump.runs[t->run], ev);
	if (err)
		goto drop;
	c->events_seen++;
	return 0;
drop:
	etd_event_free(ev);
	return err;
}

static int on_block(struct collector *c, struct thread_state *t,
		    const struct etdump_rec_block *r)
{
	struct etd_run *run;
	char *name;
	int err;

	/*
	 * Probes attach one by one: a run opened before the last one was in
	 * place may miss events, so its events count as outside any run.
	 */
	if (r->hdr.ts < c->min_ts) {
		t->run = NO_RUN;
		return 0;
	}
	name = name_dup(c, r->name, r->name_len);
	if (!name)
		return -ENOMEM;
	err = etd_dump_add_run(&c->dump, name, &run);
	free(name);
	if (err)
		return err;
	run->tid = t->tid;
	run->open_time = r->hdr.ts;
	t->run = c->dump.nruns - 1;
	return 0;
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
		s->name = name_dup(c, r->name, r->name_len);
		if (!s->name)
			return -ENOMEM;
	}
	s->cpu = r->hdr.cpu;
	s->ncounters = r->hdr.ncounters;
	s->switches = r->switches;
	memcpy(s->counters, r->counters,
	       s->ncounters * sizeof(s->counters[0]));
	if (s->delegate || r->chain == -1) {
		s->chain = t->chain;
		s->instr = t->instr;
	} else {
		s->chain = r->chain;
		s->instr = r->instr;
	}
	t->depth++;
	return 0;
}

static uint8_t *meta_dup(struct collector *c, const uint8_t *meta,
			 uint32_t len, uint32_t len_orig)
{
	uint8_t *m;

	if (len_orig > len)
		c->stats.truncated++;
	/* an empty vector is still a vector: keep a non-NULL pointer */
	m = malloc(len ? len : 1);
	if (m && len)
		memcpy(m, meta, len);
	return m;
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

static int on_end(struct collector *c, struct thread_state *t,
		  const struct etdump_rec_end *r)
{
	bool delegate = r->hdr.type == ETDUMP_REC_DELEGATE_END;
	struct etd_event ev;
	struct scope *s;
	size_t at;

	if (!find_scope(t, delegate, r->token, &at)) {
		c->stats.unmatched_ends++;
		return 0;
	}
	/* scopes opened inside this one and never ended */
	while (t->depth > at + 1) {
		free(t->stack[--t->depth].name);
		c->stats.unclosed_scopes++;
	}
	s = &t->stack[--t->depth];

	etd_event_init(&ev, ETD_PROFILE);
	ev.chain_index = s->chain;
	ev.instruction_id = s->instr;
	ev.start_time = s->start;
	ev.end_time = r->hdr.ts;
	counter_deltas(c, s, r, &ev.counters);
	if (!delegate) {
		ev.name = s->name;
		return add_event(c, t, &ev);
	}
	/* ETDumpGen: a string id when one was given, else the int id */
	if (s->name)
		ev.delegate_id_str = s->name;
	else
		ev.delegate_id_int = s->id_int;
	ev.has_metadata = true;
	ev.metadata_len = r->meta_len;
	ev.metadata = meta_dup(c, r->meta, r->meta_len, r->meta_len_orig);
	if (!ev.metadata) {
		free(s->name);
		return -ENOMEM;
	}
	return add_event(c, t, &ev);
}

static int on_delegate_log(struct collector *c, struct thread_state *t,
			   const struct etdump_rec_delegate_log *r)
{
	struct etd_event ev;

	etd_event_init(&ev, ETD_PROFILE);
	ev.chain_index = t->chain;
	ev.instruction_id = t->instr;
	ev.start_time = r->start;
	ev.end_time = r->end;
	if (r->name_len && r->name_len != ETDUMP_NAME_UNREAD) {
		ev.delegate_id_str = name_dup(c, r->name, r->name_len);
		if (!ev.delegate_id_str)
			return -ENOMEM;
	} else {
		ev.delegate_id_int = r->id_int;
	}
	ev.has_metadata = true;
	ev.metadata_len = r->meta_len;
	ev.metadata = meta_dup(c, r->meta, r->meta_len, r->meta_len_orig);
	if (!ev.metadata) {
		free(ev.delegate_id_str);
		return -ENOMEM;
	}
	return add_event(c, t, &ev);
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
	bool ready;
	int err;

	if (!c->values && !(c->values = value_capture_new()))
		return -ENOMEM;
	if (h->type == ETDUMP_REC_VALUE_DATA)
		return value_capture_data(c->values, (const void *)h);
	err = value_capture_value(c->values, (const void *)h, &ev, &ready);
	return err || !ready ? err : add_event(c, t, &ev);
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
	return add_event(c, t, &ev);
}

/* Ids from 1, as the tracer numbers them: a run's allocators are these. */
static int on_allocator(struct collector *c, const struct etdump_rec_allocator *r)
{
	uint32_t id = r->allocator_id, i;
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
	c->allocators[id - 1] = name_dup(c, r->name, r->name_len);
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

static int feed_expanded(void *ctx, const void *rec, size_t len)
{
	return collector_feed(ctx, rec, len);
}

/* A flush of batched mode: the records its probes would have sent. */
static int on_batch(struct collector *c, const struct etdump_rec_batch *b)
{
	struct batch_stats bs = { 0 };
	int err;

	err = batch_expand(b, c->min_ts, feed_expanded, c, &bs);
	c->stats.stale += bs.stale;
	c->stats.lost_in_flush += bs.lost;
	if (err == -EINVAL)
		c->stats.bad_records++;
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
	return c->dump.nruns;
}

uint64_t collector_events_seen(const struct collector *c)
{
	return c->events_seen;
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

int collector_finish(struct collector *c, struct etd_dump *out,
		     struct collector_stats *stats)
{
	bool *incomplete;
	size_t i, kept = 0;

	if (c->values && value_capture_seal(c->values))
		return -ENOMEM;
	incomplete = calloc(c->dump.nruns + 1, sizeof(*incomplete));
	if (!incomplete)
		return -ENOMEM;
	for (i = 0; i < c->nthreads; i++)
		if (c->threads[i].depth && c->threads[i].run != NO_RUN)
			incomplete[c->threads[i].run] = true;

	for (i = 0; i < c->dump.nruns; i++) {
		struct etd_run *run = &c->dump.runs[i];

		if (incomplete[i] || !run->nevents) {
			if (incomplete[i])
				c->stats.incomplete_runs++;
			else
				c->stats.empty_runs++;
			etd_run_free(run);
			continue;
		}
		c->stats.events += run->nevents;
		for (size_t j = 0; j < run->nevents; j++)
			c->stats.events -= run->events[j].kind == ETD_ALLOCATION;
		name_allocators(c, run); /* without memory, without names */
		c->dump.runs[kept++] = *run;
	}
	free(incomplete);
	c->dump.nruns = kept;
	c->stats.runs = kept;
	c->stats.threads = c->nthreads;
	/* one thread's blocks have distinct times, so this order is total */
	if (c->dump.nruns)
		qsort(c->dump.runs, c->dump.nruns, sizeof(*c->dump.runs),
		      run_cmp_open_time);

	*out = c->dump;
	memset(&c->dump, 0, sizeof(c->dump));
	out->ncounters = c->ncounters;
	memcpy(out->counter_names, c->counter_names, sizeof(c->counter_names));
	memset(c->counter_names, 0, sizeof(c->counter_names));
	if (stats)
		*stats = c->stats;
	return 0;
}

void collector_free(struct collector *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nthreads; i++) {
		while (c->threads[i].depth)
			free(c->threads[i].stack[--c->threads[i].depth].name);
		free(c->threads[i].stack);
	}
	free(c->threads);
	value_capture_free(c->values);
	for (i = 0; i < c->nallocators; i++)
		free(c->allocators[i]);
	free(c->allocators);
	for (i = 0; i < c->ncounters; i++)
		free(c->counter_names[i]);
	etd_dump_free(&c->dump);
	free(c);
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * collector_feed.c - records into runs: the collector made and set up, each
 * record checked (record_check.c) and handed to its kind
 * (collector_scopes.c; batched buffers expanded here), losses noted, and
 * the runs given out at the end (collector_runs.c builds them).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "collect/batch.h"
#include "collect/collector.h"
#include "collect/collector_state.h"
#include "collect/record_check.h"
#include "lib/grow_array.h"
#include "model/run_note.h"

struct collector *collector_new(void)
{
	struct collector *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	batch_threads_init(&c->batches);
	c->note_gen = 1;
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
	c->note_gen++;
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

/*
 * The state of thread tid's stream (collector_state.h), not the last one
 * fed: found, or added. A stream new to a thread takes the name the
 * thread's others have.
 */
static struct thread_state *thread_find(struct collector *c, uint32_t tid,
					uint64_t stream)
{
	struct thread_state *t;
	size_t i, named = c->nthreads;

	for (i = 0; i < c->nthreads; i++) {
		if (c->threads[i].tid != tid)
			continue;
		if (c->threads[i].stream == stream) {
			c->last = i;
			return &c->threads[i];
		}
		named = i;
	}
	t = realloc(c->threads, (c->nthreads + 1) * sizeof(*t));
	if (!t)
		return NULL;
	c->threads = t;
	t = &c->threads[c->nthreads];
	memset(t, 0, sizeof(*t));
	if (named < c->nthreads)
		memcpy(t->name, c->threads[named].name, sizeof(t->name));
	t->tid = tid;
	t->stream = stream;
	t->chain = -1;
	t->instr = 0;
	c->last = c->nthreads++;
	return t;
}

/* Most records are of the stream the last one was: a batched flush's all. */
static inline struct thread_state *thread_get(struct collector *c,
					      uint32_t tid, uint64_t stream)
{
	struct thread_state *t = c->nthreads ? &c->threads[c->last] : NULL;

	if (t && t->tid == tid && t->stream == stream)
		return t;
	return thread_find(c, tid, stream);
}

/* A bounded name from a record, interned, made valid UTF-8 for flatc. */
const char *collector_name_intern(struct collector *c, const char *name,
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

/* record --every N: each run says the share its ETDump holds. */
static int on_kept_every(struct collector *c, const void *rec)
{
	const struct etdump_rec_kept_every *r = rec;
	char note[64];

	if (r->every < 2)
		return 0;
	run_note_every_text(r->every, note, sizeof(note));
	return collector_set_run_note(c, note);
}

static int note_loss(struct collector *c, struct thread_state *t,
		     uint8_t type, uint16_t flags, uint64_t ts);
static int feed_fields(struct collector *c, struct thread_state *t,
		       const struct rec_fields *f);

/*
 * A batched flush's record, from its fields (batch_each()): what
 * collector_feed() does with the record they make, without making it and
 * reading it back. Such a record is valid by its making but for a
 * delegate's ids.
 */
static int feed_batched(void *ctx, const struct rec_fields *f,
			const char *name)
{
	struct collector *c = ctx;
	struct thread_state *t;
	int err;

	c->stats.records++;
	if (!record_delegate_ids_valid(f->type, f->token, f->id_int, f->name_len)) {
		c->stats.bad_records++;
		return -EINVAL;
	}
	t = thread_get(c, f->tid, c->flush_stream);
	if (!t)
		return -ENOMEM;
	if (t->flush_lost) {
		err = note_loss(c, t, f->type, f->flags, f->ts);
		if (err)
			return err;
	}
	c->flush_name = name;
	err = feed_fields(c, t, f);
	c->flush_name = NULL;
	return err;
}

static const char *intern_flush_name(void *ctx, const char *s, size_t len)
{
	struct collector *c = ctx;

	return strtab_intern(c->names, s, len);
}

static int on_clock(struct collector *c, const struct etdump_rec_clock *r)
{
	struct etdump_rec_clock *grown;

	/* a clocksource's shift is below 32, its mask a run of low bits */
	if (r->shift >= 64 || !r->mult || !r->mask || (r->mask & (r->mask + 1))) {
		c->stats.bad_records++;
		return -EINVAL;
	}
	grown = realloc(c->lines, (c->nlines + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	c->lines = grown;
	c->lines[c->nlines++] = *r;
	return 0;
}

/*
 * The kernel's line a buffer's stamps lie on: the last read before its
 * first stamp (the kernel changes its rate at a tick, and the recorder
 * reads a new line after), else the first read.
 */
static const struct etdump_rec_clock *line_of(const struct collector *c,
					      const struct etdump_batch_head *h)
{
	size_t i = c->nlines;

	while (i > 1 && (int64_t)(h->from_ctr - c->lines[i - 1].cycle_last) < 0)
		i--;
	return i ? &c->lines[i - 1] : NULL;
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
	/* its records are its buffer's stream's */
	c->flush_stream = b->addr;
	if (!err)
		err = batch_each(b, skip, c->min_ts,
				 b->len ? line_of(c, &head) : NULL,
				 feed_batched, intern_flush_name, c, &bs);
	c->flush_stream = 0;
	c->stats.flushes_on_line += bs.on_line;
	c->stats.flushes_between_anchors += bs.between_anchors;
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
		collector_held_drop(c, t);
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
 * is in lost events, or the block of the run they belong to. Batched
 * flushes lost before one that opens a run, while the last run had ended,
 * held whole runs when the first of them began with a block: nothing
 * received is short of them. (Begun mid-run, it held the end of a run
 * whose scopes are side by side, which no open scope tells.)
 */
static int note_loss(struct collector *c, struct thread_state *t,
		     uint8_t type, uint16_t flags, uint64_t ts)
{
	bool whole_runs = t->flush_lost && t->flush_lost_clean &&
			  type == ETDUMP_REC_BLOCK && !run_has_open_scope(t);

	bool lost_block = (flags & ETDUMP_REC_F_LOST_BLOCK) ||
			  t->flush_lost_block;
	bool clean = t->flush_lost_clean ||
		     (flags & ETDUMP_REC_F_LOST_CLEAN);
	int err = 0;

	t->flush_lost = false;
	t->flush_lost_block = false;
	t->flush_lost_clean = false;
	if (whole_runs)
		return 0;
	t->loss_epoch++;
	/* the lost buffers began with the next run: this one is whole */
	if (t->in_run && clean && lost_block && !run_has_open_scope(t))
		err = collector_close_run(c, t, ts);
	if (t->in_run)
		t->run.lost_events = true;
	else if (lost_block)
		open_unseen_run(c, t, ts);
	t->state_lost = true;
	return err;
}

/*
 * The ring lost records of thread t's before this flush of one stream of
 * its. The kernel keeps a thread's losses, not a buffer's: with two copies
 * of the runtime on the thread, what was lost may be the other copy's
 * flush. The flush's own stream takes the loss as a thread with one copy
 * does (it lost nothing when its next run begins whole); the thread's
 * other streams take one they cannot tell the kind of: whatever run each
 * has open is left out, and so is what comes before its next block.
 */
static void flush_loss(struct collector *c, struct thread_state *t,
		       uint16_t flags)
{
	struct thread_state *u;

	if (!(flags & ETDUMP_REC_F_LOST_BEFORE))
		return;
	/* a loss no record took yet is older: the run open lost records */
	t->flush_lost_clean = !t->flush_lost && (flags & ETDUMP_REC_F_LOST_CLEAN);
	t->flush_lost_block |= !!(flags & ETDUMP_REC_F_LOST_BLOCK);
	t->flush_lost = true;
	for (size_t i = 0; i < c->nthreads; i++) {
		u = &c->threads[i];
		if (u == t || u->tid != t->tid || !u->stream)
			continue;
		u->flush_lost = true;
		u->flush_lost_block = true;
		u->flush_lost_clean = false;
	}
}

/*
 * What the ring says of a thread, not of one of its streams: its name
 * (before its first record of any), and that its last records were lost
 * (which stream's, the kernel does not tell: each takes it).
 */
static void on_thread_record(struct collector *c, const struct etdump_rec_hdr *h)
{
	struct thread_state *u;

	for (size_t i = 0; i < c->nthreads; i++) {
		u = &c->threads[i];
		if (u->tid != h->tid)
			continue;
		if (h->type == ETDUMP_REC_THREAD_NAME) {
			collector_thread_named(u, (const void *)h);
			continue;
		}
		u->lost_at_end = true;
		u->lost_tail_clean = (h->flags & ETDUMP_REC_F_LOST_BLOCK) &&
				     (h->flags & ETDUMP_REC_F_LOST_CLEAN);
	}
}

/* A scope's record (a block, begin, end, instruction or log) as its fields. */
static void fields_of_record(const struct etdump_rec_hdr *h,
			     struct rec_fields *f)
{
	const struct etdump_rec_block *blk = (const void *)h;
	const struct etdump_rec_begin *b = (const void *)h;
	const struct etdump_rec_end *e = (const void *)h;
	const struct etdump_rec_instruction *in = (const void *)h;
	const struct etdump_rec_delegate_log *d = (const void *)h;

	rec_fields_clear(f);
	f->type = h->type;
	f->ncounters = h->ncounters;
	f->flags = h->flags;
	f->cpu = h->cpu;
	f->pid = h->pid;
	f->tid = h->tid;
	f->ts = h->ts;
	switch (h->type) {
	case ETDUMP_REC_BLOCK:
		f->name = blk->name;
		f->name_len = blk->name_len;
		break;
	case ETDUMP_REC_PROFILE_BEGIN:
	case ETDUMP_REC_DELEGATE_BEGIN:
		f->token = b->token;
		f->chain = b->chain;
		f->instr = b->instr;
		f->id_int = b->id_int;
		f->name = b->name;
		f->name_len = b->name_len;
		f->switches = b->switches;
		f->counters = b->counters;
		break;
	case ETDUMP_REC_PROFILE_END:
	case ETDUMP_REC_DELEGATE_END:
		f->token = e->token;
		f->meta = e->meta;
		f->meta_len = e->meta_len;
		f->meta_len_orig = e->meta_len_orig;
		f->switches = e->switches;
		f->counters = e->counters;
		break;
	case ETDUMP_REC_INSTRUCTION:
		f->chain = in->chain;
		f->instr = in->instr;
		break;
	case ETDUMP_REC_DELEGATE_LOG:
		f->start = d->start;
		f->end = d->end;
		f->id_int = d->id_int;
		f->name = d->name;
		f->name_len = d->name_len;
		f->meta = d->meta;
		f->meta_len = d->meta_len;
		f->meta_len_orig = d->meta_len_orig;
		break;
	}
}

/* A scope's record into the thread's runs, whichever way it came. */
static int feed_fields(struct collector *c, struct thread_state *t,
		       const struct rec_fields *f)
{
	switch (f->type) {
	case ETDUMP_REC_BLOCK:
		return collector_on_block(c, t, f);
	case ETDUMP_REC_PROFILE_BEGIN:
	case ETDUMP_REC_DELEGATE_BEGIN:
		return collector_on_begin(c, t, f);
	case ETDUMP_REC_PROFILE_END:
	case ETDUMP_REC_DELEGATE_END:
		return collector_on_end(c, t, f);
	case ETDUMP_REC_INSTRUCTION:
		t->state_lost = false;
		t->chain = f->chain;
		t->instr = f->instr;
		return 0;
	case ETDUMP_REC_DELEGATE_LOG:
		return collector_on_delegate_log(c, t, f);
	}
	return 0;
}

int collector_feed(struct collector *c, const void *rec, size_t len)
{
	const struct etdump_rec_hdr *h = rec;
	struct thread_state *t;
	uint64_t stream = 0; /* per-scope records' (a flush's: feed_batched) */

	if (len < sizeof(*h) || !record_check(h, len)) {
		c->stats.records++;
		c->stats.bad_records++;
		return -EINVAL;
	}
	/* the recorder's own, before any probe fired: not one of theirs */
	if (h->type == ETDUMP_REC_CLOCK)
		return on_clock(c, rec);
	c->stats.records++;
	if (h->type == ETDUMP_REC_KEPT_EVERY)
		return on_kept_every(c, rec);
	if (h->type == ETDUMP_REC_BATCH)
		stream = ((const struct etdump_rec_batch *)rec)->addr;
	t = thread_get(c, h->tid, stream);
	if (!t)
		return -ENOMEM;
	/* not a record of a run's: a loss before it is the next record's */
	if (h->type == ETDUMP_REC_THREAD_NAME ||
	    h->type == ETDUMP_REC_LOST_TAIL) {
		on_thread_record(c, h);
		return 0;
	}
	if (h->type == ETDUMP_REC_BATCH)
		flush_loss(c, t, h->flags);
	else if ((h->flags & ETDUMP_REC_F_LOST_BEFORE) || t->flush_lost) {
		int err = note_loss(c, t, h->type, h->flags, h->ts);

		if (err)
			return err;
	}
	switch (h->type) {
	case ETDUMP_REC_BLOCK:
	case ETDUMP_REC_PROFILE_BEGIN:
	case ETDUMP_REC_DELEGATE_BEGIN:
	case ETDUMP_REC_PROFILE_END:
	case ETDUMP_REC_DELEGATE_END:
	case ETDUMP_REC_INSTRUCTION:
	case ETDUMP_REC_DELEGATE_LOG: {
		struct rec_fields f;

		fields_of_record(h, &f);
		return feed_fields(c, t, &f);
	}
	case ETDUMP_REC_BATCH:
		return on_batch(c, rec);
	case ETDUMP_REC_VALUE:
	case ETDUMP_REC_VALUE_DATA:
		return collector_on_value(c, t, rec);
	case ETDUMP_REC_ALLOCATION:
		return collector_on_allocation(c, t, rec);
	case ETDUMP_REC_ALLOCATOR:
		return collector_on_allocator(c, rec);
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

int collector_gap(struct collector *c)
{
	size_t i;
	int err = 0;

	c->gapped = true;
	for (i = 0; i < c->nthreads && !err; i++) {
		struct thread_state *t = &c->threads[i];

		if (run_has_open_scope(t)) {
			collector_discard_run(c, t);
			c->stats.incomplete_runs--;
			c->stats.cut_runs++;
		} else {
			err = collector_close_run(c, t, UINT64_MAX);
		}
		/*
		 * As at the start: what comes before its next block is lost,
		 * and no instruction is under way. The instruction record that
		 * would have closed one cut by the gap never comes (symbol
		 * mode's kernel probed at its entry alone is ended by its
		 * thread's next event, and none came); kept, its ids went to
		 * the next run's Method::execute.
		 */
		t->depth = 0;
		t->chain = -1;
		t->instr = 0;
		t->had_block = false;
		t->mid_run = false;
		t->after_gap = true;
	}
	return err;
}

const char *collector_run_note(const struct collector *c)
{
	return c->run_note;
}

/*
 * Has an earlier state the thread of state i (a worker's, when `worker`)?
 * A thread is counted once, whatever streams it has.
 */
static bool thread_counted(const struct collector *c, size_t i, bool worker)
{
	for (size_t j = 0; j < i; j++)
		if (c->threads[j].tid == c->threads[i].tid &&
		    (!worker || c->threads[j].worker))
			return true;
	return false;
}

/* Scopes begun in runs before and never ended, not across a loss. */
static uint64_t unclosed(const struct thread_state *t)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < t->depth; i++)
		n += !scope_spans_loss(t, &t->stack[i]);
	return n;
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
	c->gapped = true;
	for (i = 0; i < c->nthreads && !err; i++) {
		struct thread_state *t = &c->threads[i];
		bool open = run_has_open_scope(t);
		bool empty = t->in_run && !t->run.nevents && !t->ahead_events;

		/*
		 * A scope open, or a run with no event yet, where the ring
		 * lost the thread's last records: what it lacks is in them,
		 * and it is left out as lost, not as still executing or empty.
		 * With no scope open it is whole only when the first record
		 * lost began the next run: else it lost its own last scopes
		 * (a run of scopes side by side, which ends only at the next
		 * block), and written it would be a run that never happened.
		 */
		if (t->lost_at_end && (open || empty || !t->lost_tail_clean)) {
			t->run.lost_events = true;
		} else if (open) {
			collector_discard_run(c, t);
			continue;
		} else if (t->in_run && !t->lost_at_end) {
			c->stats.unclosed_scopes += unclosed(t);
		}
		err = collector_close_run(c, t, UINT64_MAX);
	}
	/* workers' events no run was open for */
	for (i = 0; i < c->nthreads; i++) {
		if (c->threads[i].worker && !thread_counted(c, i, true))
			c->stats.worker_threads++;
		c->stats.threads += !thread_counted(c, i, false);
		collector_held_drop(c, &c->threads[i]);
	}
	if (stats)
		*stats = c->stats;
	return err;
}

void collector_each_loss(const struct collector *c, collector_loss_fn fn,
			 void *ctx)
{
	uint64_t runs, received;

	for (size_t i = 0; i < c->nthreads; i++) {
		if (thread_counted(c, i, false))
			continue;
		runs = received = 0;
		for (size_t j = i; j < c->nthreads; j++) {
			if (c->threads[j].tid != c->threads[i].tid)
				continue;
			runs += c->threads[j].lost_runs;
			received += c->threads[j].lost_received;
		}
		if (runs)
			fn(ctx, c->threads[i].tid, runs, received);
	}
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
			if (collector_own_str(&ev.name) || collector_own_str(&ev.delegate_id_str))
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
		collector_name_allocators(c, &dump.runs[r]); /* without memory, none */
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
	free(c->lines);
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
			collector_event_unowned_free(&t->held[--t->nheld].ev);
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

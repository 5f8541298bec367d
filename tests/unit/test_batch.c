// SPDX-License-Identifier: BSD-3-Clause
/*
 * Batched mode: buffers written with schema/etdump_usdt.h's own functions,
 * read back as the fields the collector takes of each event (batch_each())
 * and through the collector into events.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "schema/etdump_usdt.h"
#include "collect/batch.h"
#include "collect/batch_threads.h"
#include "collect/collector.h"
#include "testlib.h"

static struct etdump_batch_state st;

static void start_buffer(unsigned int clock)
{
	struct etdump_batch_head *h = etdump__head(&st);

	memset(&st, 0, sizeof(st));
	h->magic = ETDUMP_BATCH_MAGIC;
	h->clock = clock;
	h->tid = 9;
	h->seq = 100;
}

/* A record as the runtime's sites write it, with a stamp of the test's. */
static struct etdump_batch_rec *add(unsigned short type, const char *name,
				    int a, int b, unsigned long long ts,
				    unsigned int payload)
{
	struct etdump_batch_rec *r;
	struct etdump_batch_args *args;
	unsigned int size = etdump__rec_size(payload), slot, dt = 0;

	if (!etdump__head(&st)->magic)
		start_buffer(ETDUMP_BATCH_CLOCK_NS);
	slot = etdump__room(&st, type == ETDUMP_BATCH_INSTRUCTION ? NULL : name,
			    size);
	if (type != ETDUMP_BATCH_INSTRUCTION &&
	    type != ETDUMP_BATCH_DELEGATE_LOG)
		dt = etdump__delta(&st, ts);
	r = etdump__next(&st, type, size, slot);
	r->dt = dt;
	if (payload >= sizeof(*args) && type != ETDUMP_BATCH_DELEGATE_LOG) {
		args = (struct etdump_batch_args *)(r + 1);
		args->a = a;
		args->b = b;
	}
	etdump__publish(&st, size, type == ETDUMP_BATCH_END ||
			type == ETDUMP_BATCH_DELEGATE_END ||
			type == ETDUMP_BATCH_DELEGATE_LOG);
	return r;
}

#define ARGS sizeof(struct etdump_batch_args)

static struct etdump_rec_batch *flush_of(uint32_t tid)
{
	struct etdump_rec_batch *b = calloc(1, sizeof(*b));
	struct etdump_batch_head *h = etdump__head(&st);

	b->hdr.type = ETDUMP_REC_BATCH;
	b->hdr.size = sizeof(*b);
	b->hdr.tid = tid;
	b->hdr.pid = 1;
	h->tid = tid;
	b->len = sizeof(*h) + h->len;
	b->nevents = h->nevents;
	b->addr = 0x1000;
	memcpy(b->data, st.buf, b->len);
	memset(&st, 0, sizeof(st));
	return b;
}

static const char *const EXEC = "Method::execute";
static const char *const OP = "OPERATOR_CALL";
static const char *const LIN = "linear #0";

TEST(flush_becomes_the_per_scope_events)
{
	struct collector *c = collector_new();
	struct etdump_batch_log log = { 0 };
	struct etdump_batch_rec *r;
	struct etdump_rec_batch *b;
	unsigned long long end = 170;
	struct collector_stats stats;
	struct etd_dump d = { 0 };
	struct etd_event *ev;

	add(ETDUMP_BATCH_BLOCK, "Execute", 0, 0, 100, 0);
	add(ETDUMP_BATCH_BEGIN, EXEC, -1, 0, 110, ARGS);
	add(ETDUMP_BATCH_INSTRUCTION, NULL, 0, 4, 0, ARGS);
	add(ETDUMP_BATCH_BEGIN, OP, -1, 0, 120, ARGS);
	r = add(ETDUMP_BATCH_DELEGATE_LOG, LIN, -1, 3, 150,
		sizeof(struct etdump_batch_log) + 3);
	log.start = 150;
	log.end = end;
	log.id_int = -1;
	log.meta_len = 3;
	log.meta_len_orig = 3;
	memcpy(r + 1, &log, sizeof(log));
	memcpy((char *)(r + 1) + sizeof(log), "abc", 3);
	add(ETDUMP_BATCH_END, OP, 0, 0, 180, 0);
	add(ETDUMP_BATCH_INSTRUCTION, NULL, -1, 0, 0, ARGS);
	add(ETDUMP_BATCH_END, EXEC, 0, 0, 200, 0);
	b = flush_of(9);
	CHECK_EQ_INT(collector_feed(c, b, sizeof(*b)), 0);
	CHECK_EQ_INT(collector_finish(c, &d, &stats), 0);
	CHECK_EQ_INT(d.nruns, 1);
	CHECK_EQ_STR(d.runs[0].name, "Execute");
	CHECK_EQ_INT(d.runs[0].tid, 9);
	CHECK_EQ_INT(d.runs[0].nevents, 3);
	ev = &d.runs[0].events[0];
	CHECK_EQ_STR(ev->delegate_id_str, LIN);
	CHECK_EQ_INT(ev->start_time, 150);
	CHECK_EQ_INT(ev->end_time, 170);
	CHECK_EQ_INT(ev->instruction_id, 4);
	CHECK(ev->metadata_len == 3 && !memcmp(ev->metadata, "abc", 3));
	ev = &d.runs[0].events[1];
	CHECK_EQ_STR(ev->name, OP);
	CHECK_EQ_INT(ev->chain_index, 0);
	CHECK_EQ_INT(ev->instruction_id, 4);
	CHECK_EQ_INT(ev->start_time, 120);
	CHECK_EQ_INT(ev->end_time, 180);
	ev = &d.runs[0].events[2];
	CHECK_EQ_STR(ev->name, EXEC);
	CHECK_EQ_INT(ev->chain_index, -1);
	CHECK_EQ_INT(stats.unreadable, 0);
	free(b);
	collector_free(c);
	etd_dump_free(&d);
}

TEST(names_are_given_once_per_flush)
{
	unsigned int names = 0, off;

	add(ETDUMP_BATCH_BEGIN, OP, -1, 0, 1, ARGS);
	add(ETDUMP_BATCH_END, OP, 0, 0, 2, 0);
	add(ETDUMP_BATCH_BEGIN, OP, -1, 0, 3, ARGS);
	add(ETDUMP_BATCH_END, OP, 0, 0, 4, 0);
	for (off = 0; off < etdump__head(&st)->len; off += ETDUMP_BATCH_SIZE(
		     ((struct etdump_batch_rec *)(etdump__records(&st) + off))->word))
		names += ETDUMP_BATCH_TYPE(((struct etdump_batch_rec *)
			 (etdump__records(&st) + off))->word) == ETDUMP_BATCH_NAME;
	CHECK_EQ_INT(names, 1);
	/* 1 NAME, 2 BEGIN, 2 END: two events */
	CHECK_EQ_INT(etdump__head(&st)->nevents, 2);
	memset(&st, 0, sizeof(st));
}

static int count(void *ctx, const struct rec_fields *f, const char *name)
{
	(void)f;
	(void)name;
	(*(int *)ctx)++;
	return 0;
}

struct interned_seen {
	unsigned int interned, named, mismatched, records;
	char copies[4][64];
};

static const char *intern_copy(void *ctx, const char *s, size_t len)
{
	struct interned_seen *x = ctx;
	char *copy = x->copies[x->interned++ % 4];

	memcpy(copy, s, len);
	copy[len] = '\0';
	return copy;
}

static int check_name(void *ctx, const struct rec_fields *f,
		      const char *name)
{
	struct interned_seen *x = ctx;
	bool names = f->type == ETDUMP_REC_PROFILE_BEGIN ||
		     f->type == ETDUMP_REC_DELEGATE_LOG;

	x->records++;
	/* a record naming something has the interned copy; others none */
	x->mismatched += names != !!name ||
			 (name && (strlen(name) != f->name_len ||
				   memcmp(name, f->name, f->name_len)));
	x->named += name != NULL;
	return 0;
}

TEST(a_flushs_names_are_interned_once_each)
{
	struct interned_seen x = { 0 };
	struct batch_stats bs = { 0 };
	struct etdump_rec_batch *b;
	int i;

	for (i = 0; i < 3; i++) {
		add(ETDUMP_BATCH_BEGIN, OP, -1, i, 10 + i, ARGS);
		add(ETDUMP_BATCH_END, OP, 0, 0, 20 + i, 0);
	}
	add(ETDUMP_BATCH_DELEGATE_LOG, LIN, -1, 0, 30,
	    sizeof(struct etdump_batch_log));
	b = flush_of(1);
	CHECK_EQ_INT(batch_each(b, 0, 0, NULL, check_name, intern_copy, &x, &bs), 0);
	CHECK_EQ_INT(x.records, 7);
	CHECK_EQ_INT(x.named, 4);
	CHECK_EQ_INT(x.interned, 2);
	CHECK_EQ_INT(x.mismatched, 0);
	free(b);
}

TEST(stale_records_are_skipped)
{
	struct batch_stats bs = { 0 };
	struct etdump_rec_batch *b;
	int n = 0;

	add(ETDUMP_BATCH_BEGIN, OP, -1, 0, 10, ARGS);
	add(ETDUMP_BATCH_END, OP, 0, 0, 2000, 0);
	b = flush_of(1);
	CHECK_EQ_INT(batch_each(b, 0, 1000, NULL, count, NULL, &n, &bs), 0);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_INT(bs.stale, 1);
	free(b);
}

TEST(malformed_flushes_are_refused)
{
	struct batch_stats bs = { 0 };
	struct etdump_rec_batch *b;
	struct etdump_batch_rec *r;
	int n = 0;

	add(ETDUMP_BATCH_BEGIN, OP, -1, 0, 10, ARGS);
	b = flush_of(1);
	/* the NAME record */
	r = (struct etdump_batch_rec *)(b->data + sizeof(struct etdump_batch_head));
	r->word &= ~0xff0u;                       /* size 0 */
	CHECK(batch_each(b, 0, 0, NULL, count, NULL, &n, &bs) == -EINVAL);
	r->word |= 0xff0u;                        /* past the buffer */
	CHECK(batch_each(b, 0, 0, NULL, count, NULL, &n, &bs) == -EINVAL);
	r->word = (r->word & ~0xff0u) | 2 << 4;
	memset(r + 1, 'x', 8);                    /* no NUL in the name */
	CHECK(batch_each(b, 0, 0, NULL, count, NULL, &n, &bs) == -EINVAL);
	((struct etdump_batch_head *)b->data)->len = 4090; /* past the flush */
	CHECK(batch_each(b, 0, 0, NULL, count, NULL, &n, &bs) == -EINVAL);
	b->len = 5000;
	CHECK(batch_each(b, 0, 0, NULL, count, NULL, &n, &bs) == -EINVAL);
	b->len = 0;
	b->nevents = 7;                           /* the tracer could not read it */
	CHECK_EQ_INT(batch_each(b, 0, 0, NULL, count, NULL, &n, &bs), 0);
	CHECK_EQ_INT(bs.lost, 7);
	CHECK_EQ_INT(n, 0);
	free(b);
}

/* An older runtime's flush: records straight from the first byte. */
TEST(a_buffer_of_another_layout_is_told_apart)
{
	struct batch_stats bs = { 0 };
	struct etdump_rec_batch *b = calloc(1, sizeof(*b));
	uint16_t old[8] = { ETDUMP_BATCH_BEGIN, 32 };
	int n = 0;

	b->hdr.type = ETDUMP_REC_BATCH;
	b->hdr.size = sizeof(*b);
	b->len = 128;
	memcpy(b->data, old, sizeof(old));
	CHECK(batch_each(b, 0, 0, NULL, count, NULL, &n, &bs) == -EPROTO);
	CHECK_EQ_INT(n, 0);
	free(b);
}

/*
 * A runtime built with the header before names took slots by their text
 * ("ETB3": slots 1-64, the same records) is still read.
 */
TEST(a_buffer_of_the_layout_before_is_read)
{
	struct batch_stats bs = { 0 };
	struct etdump_rec_batch *b;
	int n = 0;

	add(ETDUMP_BATCH_BEGIN, OP, -1, 0, 1, ARGS);
	add(ETDUMP_BATCH_END, OP, 0, 0, 2, 0);
	etdump__head(&st)->magic = ETDUMP_BATCH_MAGIC_ETB3;
	b = flush_of(9);
	CHECK_EQ_INT(batch_each(b, 0, 0, NULL, count, NULL, &n, &bs), 0);
	CHECK_EQ_INT(n, 2);
	free(b);
}

static int keep_ts(void *ctx, const struct rec_fields *f, const char *name)
{
	uint64_t *ts = ctx;

	(void)name;
	while (*ts)
		ts++;
	*ts = f->ts;
	return 0;
}

/* Counter stamps lie between the head's anchors: CLOCK_MONOTONIC there. */
TEST(counter_stamps_become_monotonic_ns_between_the_anchors)
{
	struct batch_stats bs = { 0 };
	struct etdump_batch_head *h;
	struct etdump_rec_batch *b;
	uint64_t ts[4] = { 0 };

	start_buffer(ETDUMP_BATCH_CLOCK_COUNTER);
	h = etdump__head(&st);
	h->from_ctr = 1000000;
	h->from_ns = 5000000000ull;
	st.last = h->from_ctr;
	add(ETDUMP_BATCH_BEGIN, OP, -1, 0, 1000000, ARGS);
	add(ETDUMP_BATCH_END, OP, 0, 0, 2000000, 0);
	add(ETDUMP_BATCH_BLOCK, "Execute", 0, 0, 3000000, 0);
	h->to_ctr = 4000000;                      /* 3 ticks a ns... */
	h->to_ns = 5001000000ull;                 /* ...over 1 ms */
	b = flush_of(1);
	CHECK_EQ_INT(batch_each(b, 0, 0, NULL, keep_ts, NULL, ts, &bs), 0);
	CHECK(ts[0] == 5000000000ull);
	CHECK(ts[1] == 5000333333ull);
	CHECK(ts[2] == 5000666666ull);
	free(b);
}

/*
 * With the kernel's own line (mult/2^shift ns a tick from a point), a
 * stamp is the clock there to the ns, before the line's point too; a head
 * whose anchor is off the line (a clock of another namespace) keeps its
 * anchors.
 */
TEST(counter_stamps_on_the_kernels_line_are_the_clock_to_the_ns)
{
	/* 1/3 ns a tick (mult 2^24 / 3 = 5592405, shift 24), from tick 2000000 */
	struct etdump_rec_clock line = {
		.cycle_last = 2000000, .mask = ~0ull, .sec = 5,
		.nsec_shifted = 333333ull << 24, .mult = 5592405, .shift = 24,
	};
	struct batch_stats bs = { 0 };
	struct etdump_batch_head *h;
	struct etdump_rec_batch *b;
	uint64_t ts[4] = { 0 };

	start_buffer(ETDUMP_BATCH_CLOCK_COUNTER);
	h = etdump__head(&st);
	h->from_ctr = 1000000;
	h->from_ns = 5000000010ull;               /* an anchor 10 ns off */
	st.last = h->from_ctr;
	add(ETDUMP_BATCH_BEGIN, OP, -1, 0, 1000000, ARGS);
	add(ETDUMP_BATCH_END, OP, 0, 0, 2000000, 0);
	add(ETDUMP_BATCH_BLOCK, "Execute", 0, 0, 3000000, 0);
	h->to_ctr = 4000000;
	h->to_ns = 5001000000ull;
	b = flush_of(1);
	h = (struct etdump_batch_head *)b->data;
	CHECK_EQ_INT(batch_each(b, 0, 0, &line, keep_ts, NULL, ts, &bs), 0);
	/* (tick - 2000000) * 5592405 / 2^24 ns from 5.000333333 s, floored */
	CHECK(ts[0] == 4999999999ull);
	CHECK(ts[1] == 5000333333ull);
	CHECK(ts[2] == 5000666666ull);
	CHECK(bs.on_line == 1 && bs.between_anchors == 0);
	CHECK(batch_stamp_ns(h, &line, 2000003) == 5000333333ull);
	CHECK(batch_stamp_ns(h, &line, 1999999) == 5000333332ull);
	/* the head's anchors 2 s from the line: not this clock's */
	line.sec = 7;
	memset(ts, 0, sizeof(ts));
	CHECK_EQ_INT(batch_each(b, 0, 0, &line, keep_ts, NULL, ts, &bs), 0);
	CHECK(ts[0] == 5000000010ull);
	CHECK(bs.on_line == 1 && bs.between_anchors == 1);
	free(b);
}

/*
 * The collector takes the kernel's lines as the recorder gives them and
 * turns each counter-stamped flush on the last read before its first
 * stamp; a line no clocksource could have is a bad record.
 */
TEST(the_collector_turns_flushes_on_the_line_read_before_them)
{
	struct etdump_rec_clock line = {
		.hdr = { .type = ETDUMP_REC_CLOCK, .size = sizeof(line) },
		.cycle_last = 1000, .mask = ~0ull, .sec = 0, .nsec_shifted = 0,
		.mult = 1u << 24, .shift = 24,   /* 1 ns a tick from 1000 at 0 */
	};
	struct collector *c = collector_new();
	struct collector_stats stats;
	struct etdump_batch_head *h;
	struct etdump_rec_batch *b;
	struct etd_dump d = { 0 };

	CHECK_EQ_INT(collector_feed(c, &line, sizeof(line)), 0);
	line.cycle_last = 5000;     /* a later line: 2 ns a tick from 5000 */
	line.sec = 10;
	line.mult = 2u << 24;
	CHECK_EQ_INT(collector_feed(c, &line, sizeof(line)), 0);
	line.shift = 64;
	CHECK(collector_feed(c, &line, sizeof(line)) == -EINVAL);
	start_buffer(ETDUMP_BATCH_CLOCK_COUNTER);
	h = etdump__head(&st);
	h->from_ctr = 2000;
	h->from_ns = 1000;
	st.last = h->from_ctr;
	add(ETDUMP_BATCH_BLOCK, "Execute", 0, 0, 2000, 0);
	add(ETDUMP_BATCH_BEGIN, OP, -1, 0, 2100, ARGS);
	add(ETDUMP_BATCH_END, OP, 0, 0, 2300, 0);
	h->to_ctr = 3000;
	h->to_ns = 2500;            /* between the anchors: 1.5 ns a tick */
	b = flush_of(9);
	CHECK_EQ_INT(collector_feed(c, b, sizeof(*b)), 0);
	CHECK_EQ_INT(collector_finish(c, &d, &stats), 0);
	CHECK_EQ_INT(d.nruns, 1);
	/* on the first line, read before: tick - 1000 ns */
	CHECK_EQ_INT(d.runs[0].events[0].start_time, 1100);
	CHECK_EQ_INT(d.runs[0].events[0].end_time, 1300);
	CHECK_EQ_INT(stats.flushes_on_line, 1);
	CHECK_EQ_INT(stats.bad_records, 1);
	free(b);
	collector_free(c);
	etd_dump_free(&d);
}

static int take(struct batch_threads *bt, uint32_t pid, uint64_t addr,
		uint64_t seq, uint32_t len, uint32_t skipped, uint32_t *skip,
		uint32_t *skipped_new)
{
	struct batch_buffer b = { .pid = pid, .tid = 5, .addr = addr,
				  .seq = seq, .len = len, .skipped = skipped };
	uint32_t read_lost;

	return batch_threads_take(bt, &b, skip, skipped_new, &read_lost);
}

/*
 * What the recorder read of a buffer from the process is not emitted again
 * when the buffer comes as a flush; its names still are.
 */
TEST(a_flush_repeats_nothing_read_before)
{
	struct batch_threads bt;
	struct batch_stats bs = { 0 };
	struct etdump_rec_batch *b;
	struct interned_seen x = { 0 };
	uint32_t skip, skipped, first, len;

	batch_threads_init(&bt);
	add(ETDUMP_BATCH_BEGIN, OP, -1, 0, 10, ARGS);
	add(ETDUMP_BATCH_END, OP, 0, 0, 20, 0);
	first = etdump__head(&st)->len;
	add(ETDUMP_BATCH_BEGIN, OP, -1, 0, 30, ARGS);
	add(ETDUMP_BATCH_END, OP, 0, 0, 40, 0);
	b = flush_of(5);
	len = ((struct etdump_batch_head *)b->data)->len;
	/* the first two records were read from the process, one run skipped */
	CHECK_EQ_INT(take(&bt, 1, 0x1000, 100, first, 1, &skip, &skipped), 0);
	CHECK_EQ_INT(skip, 0);
	CHECK_EQ_INT(skipped, 1);
	CHECK_EQ_INT(take(&bt, 1, 0x1000, 100, len, 3, &skip, &skipped), 0);
	CHECK_EQ_INT(skip, first);
	CHECK_EQ_INT(skipped, 2);
	CHECK_EQ_INT(batch_each(b, skip, 0, NULL, check_name, intern_copy, &x, &bs), 0);
	CHECK_EQ_INT(x.records, 2);
	CHECK_EQ_INT(x.named, 1);
	CHECK_EQ_INT(x.mismatched, 0);
	/* the same again, or an older buffer: nothing new */
	CHECK_EQ_INT(take(&bt, 1, 0x1000, 100, len, 3, &skip, &skipped), 1);
	CHECK_EQ_INT(take(&bt, 1, 0x1000, 99, 500, 0, &skip, &skipped), 1);
	/* the next buffer, and another process's thread of the same id */
	CHECK_EQ_INT(take(&bt, 1, 0x1000, 101, 8, 1, &skip, &skipped), 0);
	CHECK_EQ_INT(skip, 0);
	CHECK_EQ_INT(skipped, 1);
	CHECK_EQ_INT(take(&bt, 2, 0x2000, 3, 8, 0, &skip, &skipped), 0);
	CHECK_EQ_INT(skip, 0);
	CHECK(batch_threads_find(&bt, 5, 0x2000)->pid == 2);
	free(b);
	batch_threads_free(&bt);
}

/*
 * The runtime's sites: a run that ends before the bound stays in the
 * buffer; one that ends after it is handed over, and the next buffer is
 * numbered on.
 */
TEST(a_run_is_handed_over_once_the_bound_has_passed)
{
	struct etdump_batch_state *self;
	struct etdump_batch_head *h;
	unsigned long long seq;

	etdump_semaphores.s.batch = 1;
	ETDUMP_BLOCK("Execute");
	self = &etdump_batch_state;
	h = etdump__head(self);
	CHECK(h->magic == ETDUMP_BATCH_MAGIC);
	self->deadline = ~0ull;
	ETDUMP_PROFILE_BEGIN(EXEC, -1, 0);
	ETDUMP_PROFILE_END(EXEC);
	CHECK(h->len > 0);
	CHECK_EQ_INT(h->nevents, 1);
	seq = h->seq;
	self->deadline = 0;
	ETDUMP_BLOCK("Execute");
	ETDUMP_PROFILE_BEGIN(EXEC, -1, 0);
	ETDUMP_PROFILE_END(EXEC);
	CHECK_EQ_INT(h->len, 0);
	CHECK(h->seq == seq + 1);
	CHECK(h->to_ns == h->from_ns);
	etdump_semaphores.s.batch = 0;
}

/* --every 3: runs 1, 4, 7 are kept, the others cost a check and a count. */
TEST(every_nth_run_is_kept_and_the_others_counted)
{
	struct etdump_batch_head *h = etdump__head(&etdump_batch_state);
	int i;

	etdump_semaphores.s.batch = 1;
	etdump_semaphores.every = 3;
	etdump_batch_state.deadline = ~0ull;
	etdump_batch_state.runs = 0;
	etdump__flush(&etdump_batch_state);
	for (i = 0; i < 7; i++) {
		ETDUMP_BLOCK("Execute");
		ETDUMP_PROFILE_BEGIN(EXEC, -1, 0);
		ETDUMP_DELEGATE_LOG(LIN, -1, 1, 2, NULL, 0);
		ETDUMP_PROFILE_END(EXEC);
	}
	CHECK_EQ_INT(h->blocks, 3);
	CHECK_EQ_INT(h->nevents, 6);
	CHECK_EQ_INT(h->skipped, 4);
	etdump_semaphores.every = 0;
	etdump_semaphores.s.batch = 0;
}

#define KEPT_MAX 24

struct kept {
	unsigned int n;
	uint8_t type[KEPT_MAX];
	int32_t chain[KEPT_MAX], instr[KEPT_MAX];
	uint64_t token[KEPT_MAX], ts[KEPT_MAX];
	char name[KEPT_MAX][64];
};

static int keep(void *ctx, const struct rec_fields *f, const char *name)
{
	struct kept *k = ctx;
	unsigned int i = k->n++;

	(void)name;
	if (i >= KEPT_MAX)
		return -1;
	k->type[i] = f->type;
	k->ts[i] = f->ts;
	if (f->type == ETDUMP_REC_PROFILE_BEGIN) {
		k->chain[i] = f->chain;
		k->instr[i] = f->instr;
		k->token[i] = f->token;
		/* a name never said is "" to its length, ETDUMP_NAME_UNREAD */
		snprintf(k->name[i], sizeof(k->name[i]), "%.*s",
			 (int)f->name_len, f->name);
	} else if (f->type == ETDUMP_REC_PROFILE_END) {
		k->token[i] = f->token;
	} else if (f->type == ETDUMP_REC_INSTRUCTION) {
		k->chain[i] = f->chain;
		k->instr[i] = f->instr;
	}
	return 0;
}

/* The thread's buffer as a flush would hand it over now. */
static void snapshot(struct etdump_rec_batch *b,
		     struct etdump_batch_state *self)
{
	struct etdump_batch_head *h = (struct etdump_batch_head *)b->data;

	memset(b, 0, sizeof(*b));
	b->hdr.type = ETDUMP_REC_BATCH;
	b->len = sizeof(*h) + etdump__head(self)->len;
	memcpy(b->data, self->buf, b->len);
	etdump__anchor(&h->to_ctr, &h->to_ns);
}

/*
 * The sites' own buffer: a begin with the last begin's instruction state
 * in 8 bytes, a stamp too far from the last one after a TIME record, an
 * end whose begin was named in an earlier buffer paired by the name's text.
 */
TEST(the_sites_compact_records_come_back_whole)
{
	static const char kernel[] = "native_call_add.out";
	struct etdump_batch_state *self = &etdump_batch_state;
	struct etdump_rec_batch *b = calloc(1, sizeof(*b));
	struct batch_stats bs = { 0 };
	struct kept k = { 0 }, later = { 0 };
	struct etdump_batch_head *h;
	uint32_t len;

	etdump_semaphores.s.batch = 1;
	etdump__flush(self);                      /* what tests before left */
	self->depth = 0;
	ETDUMP_BLOCK("Execute");
	h = etdump__head(self);
	self->deadline = ~0ull;
	ETDUMP_PROFILE_BEGIN(OP, 0, 7);
	len = h->len;
	ETDUMP_PROFILE_BEGIN(kernel, 0, 7);
	/* a NAME record, then the begin in 8 bytes */
	CHECK_EQ_INT(h->len - len, etdump__rec_size(sizeof(kernel)) + 8);
	len = h->len;
	self->last -= 1ull << 33;                 /* the next delta overflows */
	ETDUMP_PROFILE_END(kernel);
	CHECK_EQ_INT(h->len - len, ETDUMP__TIME_BYTES + 8);
	snapshot(b, self);
	CHECK_EQ_INT(batch_each(b, 0, 0, NULL, keep, NULL, &k, &bs), 0);
	CHECK_EQ_INT(k.n, 4);
	CHECK_EQ_INT(k.type[0], ETDUMP_REC_BLOCK);
	CHECK_EQ_STR(k.name[1], OP);
	CHECK_EQ_STR(k.name[2], kernel);
	CHECK(k.chain[2] == 0 && k.instr[2] == 7);
	CHECK_EQ_INT(k.type[3], ETDUMP_REC_PROFILE_END);
	CHECK(k.token[3] == k.token[2]);
	CHECK(k.ts[0] <= k.ts[1] && k.ts[1] <= k.ts[2] && k.ts[2] <= k.ts[3]);
	/* the next buffer names the end's scope again, by its text */
	etdump__flush(self);
	self->deadline = ~0ull;
	ETDUMP_PROFILE_END(OP);
	CHECK_EQ_INT(h->len, etdump__rec_size(sizeof("OPERATOR_CALL")) + 8);
	snapshot(b, self);
	CHECK_EQ_INT(batch_each(b, 0, 0, NULL, keep, NULL, &later, &bs), 0);
	CHECK_EQ_INT(later.n, 1);
	CHECK(later.token[0] == k.token[1]);
	CHECK(later.ts[0] >= k.ts[3]);
	etdump__flush(self);
	etdump_semaphores.s.batch = 0;
	free(b);
}

/*
 * XNNPACK's operators, as the EventTracer logs them: the instruction state
 * set before each and unset after. The state goes into the buffer where a
 * record takes it, once while it stays: before the begin whose chain is
 * unset, before the first operator; and again in the next buffer. The
 * records come back as the recorder reads them in per-scope mode, less
 * the repeats, each operator with the same state taken.
 */
TEST(the_instruction_state_is_said_where_it_is_taken)
{
	static const uint8_t want[] = {
		ETDUMP_REC_BLOCK, ETDUMP_REC_INSTRUCTION,
		ETDUMP_REC_PROFILE_BEGIN, ETDUMP_REC_PROFILE_BEGIN,
		ETDUMP_REC_INSTRUCTION, ETDUMP_REC_DELEGATE_LOG,
		ETDUMP_REC_DELEGATE_LOG, ETDUMP_REC_DELEGATE_LOG,
		ETDUMP_REC_PROFILE_END, ETDUMP_REC_PROFILE_END,
	};
	struct etdump_batch_state *self = &etdump_batch_state;
	struct etdump_rec_batch *b = calloc(1, sizeof(*b));
	struct batch_stats bs = { 0 };
	struct kept k = { 0 }, next = { 0 };
	unsigned int i;

	etdump_semaphores.s.batch = 1;
	etdump__flush(self);                      /* what tests before left */
	self->depth = 0;
	ETDUMP_BLOCK("Execute");
	self->deadline = ~0ull;
	ETDUMP_PROFILE_BEGIN(EXEC, ETDUMP_UNSET_CHAIN, 0);
	ETDUMP_PROFILE_BEGIN("DELEGATE_CALL", 0, 3);
	for (i = 0; i < 3; i++) {
		ETDUMP_INSTRUCTION(0, 3);
		ETDUMP_DELEGATE_LOG(LIN, -1, 10 * i, 10 * i + 5, NULL, 0);
		ETDUMP_INSTRUCTION(ETDUMP_UNSET_CHAIN,
				   ETDUMP_UNSET_DEBUG_HANDLE);
	}
	ETDUMP_PROFILE_END("DELEGATE_CALL");
	ETDUMP_PROFILE_END(EXEC);
	snapshot(b, self);
	CHECK_EQ_INT(batch_each(b, 0, 0, NULL, keep, NULL, &k, &bs), 0);
	CHECK_EQ_INT(k.n, sizeof(want));
	for (i = 0; i < k.n && i < sizeof(want); i++)
		CHECK_EQ_INT(k.type[i], want[i]);
	CHECK(k.chain[1] == ETDUMP_UNSET_CHAIN &&
	      k.instr[1] == ETDUMP_UNSET_DEBUG_HANDLE);
	CHECK(k.chain[4] == 0 && k.instr[4] == 3);
	/* the next buffer says the unset state before the begin that takes it */
	etdump__flush(self);
	self->deadline = ~0ull;
	ETDUMP_PROFILE_BEGIN(EXEC, ETDUMP_UNSET_CHAIN, 0);
	ETDUMP_PROFILE_BEGIN(OP, 0, 4);
	snapshot(b, self);
	CHECK_EQ_INT(batch_each(b, 0, 0, NULL, keep, NULL, &next, &bs), 0);
	CHECK_EQ_INT(next.n, 3);
	CHECK_EQ_INT(next.type[0], ETDUMP_REC_INSTRUCTION);
	CHECK(next.chain[0] == ETDUMP_UNSET_CHAIN);
	CHECK_EQ_INT(next.type[1], ETDUMP_REC_PROFILE_BEGIN);
	CHECK(next.chain[2] == 0 && next.instr[2] == 4);
	self->depth = 0;
	etdump__flush(self);
	etdump_semaphores.s.batch = 0;
	free(b);
}

/*
 * A name the runtime built in a buffer it reuses is given again when its
 * text changed; a literal of the executable is known by its pointer.
 */
TEST(a_reused_name_buffer_is_named_again_a_literal_is_not)
{
	static const char literal[] = "native_call_relu.out";
	struct etdump_batch_state *self = &etdump_batch_state;
	struct etdump_rec_batch *b = calloc(1, sizeof(*b));
	struct batch_stats bs = { 0 };
	struct kept k = { 0 };
	char built[32];
	uint32_t len;

	etdump_semaphores.s.batch = 1;
	etdump__flush(self);
	self->depth = 0;
	ETDUMP_BLOCK("Execute");
	self->deadline = ~0ull;
	CHECK((unsigned long)literal - etdump_batch_ro_lo < etdump_batch_ro_len);
	CHECK((unsigned long)built - etdump_batch_ro_lo >= etdump_batch_ro_len);
	snprintf(built, sizeof(built), "%s", "linear #0");
	ETDUMP_PROFILE_BEGIN(built, 0, 1);
	ETDUMP_PROFILE_END(built);
	snprintf(built, sizeof(built), "%s", "linear #1");
	len = etdump__head(self)->len;
	ETDUMP_PROFILE_BEGIN(built, 0, 1);
	/* a NAME record before the begin */
	CHECK_EQ_INT(etdump__head(self)->len - len,
		     etdump__rec_size(sizeof("linear #1")) + 8);
	ETDUMP_PROFILE_END(built);
	ETDUMP_PROFILE_BEGIN(literal, 0, 1);
	ETDUMP_PROFILE_END(literal);
	len = etdump__head(self)->len;
	ETDUMP_PROFILE_BEGIN(literal, 0, 1);
	CHECK_EQ_INT(etdump__head(self)->len - len, 8);
	ETDUMP_PROFILE_END(literal);
	snapshot(b, self);
	CHECK_EQ_INT(batch_each(b, 0, 0, NULL, keep, NULL, &k, &bs), 0);
	CHECK_EQ_INT(k.n, 9);
	CHECK_EQ_STR(k.name[1], "linear #0");
	CHECK_EQ_STR(k.name[3], "linear #1");
	CHECK_EQ_STR(k.name[5], literal);
	CHECK_EQ_STR(k.name[7], literal);
	etdump__flush(self);
	etdump_semaphores.s.batch = 0;
	free(b);
}

/*
 * XNNPACK's profiler formats each operator's name in one std::string of a
 * loop: many names at one address. Each is said once a buffer, by its
 * text, and every record names the text it had; a name longer than the
 * NAME record holds too.
 */
TEST(names_built_in_one_reused_buffer_are_said_once_each)
{
	static const char *const texts[4] = {
		"Fully Connected (NC, F32) GEMM #1", "Add (ND) #1",
		"Clamp (NC) #1", "Fully Connected (NC, F32) GEMM #2",
	};
	struct etdump_batch_state *self = &etdump_batch_state;
	struct etdump_rec_batch *b = calloc(1, sizeof(*b));
	struct batch_stats bs = { 0 };
	struct kept k = { 0 };
	char built[96], longest[96];
	uint32_t len;
	int pass, i;

	memset(longest, 'x', 80);
	longest[80] = '\0';
	etdump_semaphores.s.batch = 1;
	etdump__flush(self);
	self->depth = 0;
	ETDUMP_BLOCK("Execute");
	self->deadline = ~0ull;
	for (pass = 0; pass < 2; pass++) {
		len = etdump__head(self)->len;
		for (i = 0; i < 5; i++) {
			snprintf(built, sizeof(built), "%s",
				 i < 4 ? texts[i] : longest);
			ETDUMP_PROFILE_BEGIN(built, 0, i);
			ETDUMP_PROFILE_END(built);
		}
		/* the second time: a begin and an end each, no NAME */
		if (pass)
			CHECK_EQ_INT(etdump__head(self)->len - len, 5 * (16 + 8));
	}
	snapshot(b, self);
	CHECK_EQ_INT(batch_each(b, 0, 0, NULL, keep, NULL, &k, &bs), 0);
	CHECK_EQ_INT(k.n, 21);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < 4; i++)
			CHECK_EQ_STR(k.name[1 + 10 * pass + 2 * i], texts[i]);
		CHECK_EQ_INT((int)strlen(k.name[9 + 10 * pass]),
			     ETDUMP_BATCH_NAME_MAX);
	}
	etdump__flush(self);
	etdump_semaphores.s.batch = 0;
	free(b);
}

/*
 * A name whose NUL is the last byte before a page the process cannot
 * read: the tracer's 8-byte loads stop at the page, and the name comes
 * back whole.
 */
TEST(a_name_at_the_end_of_a_page_is_read_within_it)
{
	struct etdump_batch_state *self = &etdump_batch_state;
	struct etdump_rec_batch *b = calloc(1, sizeof(*b));
	long page = sysconf(_SC_PAGESIZE);
	struct batch_stats bs = { 0 };
	struct kept k = { 0 };
	char *mem, *name;

	mem = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(mem != MAP_FAILED);
	CHECK_EQ_INT(mprotect(mem + page, page, PROT_NONE), 0);
	name = mem + page - sizeof("Clamp (NC) #1");
	memcpy(name, "Clamp (NC) #1", sizeof("Clamp (NC) #1"));
	etdump_semaphores.s.batch = 1;
	etdump__flush(self);
	self->depth = 0;
	ETDUMP_BLOCK("Execute");
	self->deadline = ~0ull;
	ETDUMP_PROFILE_BEGIN(name, 0, 1);
	ETDUMP_PROFILE_END(name);
	ETDUMP_PROFILE_BEGIN(name, 0, 2);
	ETDUMP_PROFILE_END(name);
	snapshot(b, self);
	CHECK_EQ_INT(batch_each(b, 0, 0, NULL, keep, NULL, &k, &bs), 0);
	CHECK_EQ_INT(k.n, 5);
	CHECK_EQ_STR(k.name[1], "Clamp (NC) #1");
	CHECK_EQ_STR(k.name[3], "Clamp (NC) #1");
	etdump__flush(self);
	etdump_semaphores.s.batch = 0;
	munmap(mem, 2 * page);
	free(b);
}

/* A delegate's logged event as the collector takes it. */
struct log_fields {
	uint64_t start, end;
	int64_t id_int;
	uint16_t name_len;
	char name[ETDUMP_NAME_MAX];
	uint32_t meta_len;
	uint8_t meta[8];
};

struct logs {
	unsigned int n;
	struct log_fields rec[5];
};

static int keep_log(void *ctx, const struct rec_fields *f, const char *name)
{
	struct logs *l = ctx;
	struct log_fields *r;

	(void)name;
	if (f->type != ETDUMP_REC_DELEGATE_LOG || l->n >= 5)
		return 0;
	r = &l->rec[l->n++];
	r->start = f->start;
	r->end = f->end;
	r->id_int = f->id_int;
	r->name_len = f->name_len;
	snprintf(r->name, sizeof(r->name), "%.*s", (int)f->name_len, f->name);
	r->meta_len = f->meta_len;
	if (f->meta_len)
		memcpy(r->meta, f->meta, f->meta_len < sizeof(r->meta) ?
		       f->meta_len : sizeof(r->meta));
	return 0;
}

/*
 * A delegate's logged event by its name, with no metadata (each XNNPACK
 * operator's), takes 16 bytes; one with metadata, an int id, or a
 * duration past 32 bits the whole record. Each comes back as logged.
 */
TEST(a_named_log_without_metadata_is_short_and_comes_back_whole)
{
	struct etdump_batch_state *self = &etdump_batch_state;
	struct etdump_rec_batch *b = calloc(1, sizeof(*b));
	struct batch_stats bs = { 0 };
	struct logs l = { 0 };
	char op[64] = "Add (ND) #1";
	uint32_t len;

	etdump_semaphores.s.batch = 1;
	etdump__flush(self);
	self->depth = 0;
	ETDUMP_BLOCK("Execute");
	self->deadline = ~0ull;
	ETDUMP_DELEGATE_LOG(op, -1, 1000, 1500, NULL, 0);
	len = etdump__head(self)->len;
	ETDUMP_DELEGATE_LOG(op, -1, 1500, 1900, NULL, 0);
	CHECK_EQ_INT(etdump__head(self)->len - len, 16);
	ETDUMP_DELEGATE_LOG(op, -1, 1900, 2000, "abc", 3);
	ETDUMP_DELEGATE_LOG(NULL, 7, 2000, 2100, NULL, 0);
	snapshot(b, self);
	ETDUMP_DELEGATE_LOG(op, -1, 5, 5 + (1ull << 33), NULL, 0);
	CHECK_EQ_INT(etdump__head(self)->len - (b->len - 72), 40);
	snapshot(b, self);
	CHECK_EQ_INT(batch_each(b, 0, 0, NULL, keep_log, NULL, &l, &bs), 0);
	CHECK_EQ_INT(l.n, 5);
	CHECK(l.rec[0].start == 1000 && l.rec[0].end == 1500);
	CHECK(l.rec[1].start == 1500 && l.rec[1].end == 1900);
	CHECK(l.rec[0].id_int == -1 && l.rec[1].id_int == -1);
	CHECK_EQ_STR(l.rec[1].name, "Add (ND) #1");
	CHECK_EQ_INT(l.rec[1].meta_len, 0);
	CHECK_EQ_INT(l.rec[2].meta_len, 3);
	CHECK(!memcmp(l.rec[2].meta, "abc", 3));
	CHECK(l.rec[3].id_int == 7 && l.rec[3].name_len == 0);
	CHECK(l.rec[3].start == 2000 && l.rec[3].end == 2100);
	CHECK(l.rec[4].start == 5 && l.rec[4].end == 5 + (1ull << 33));
	etdump__flush(self);
	etdump_semaphores.s.batch = 0;
	free(b);
}

/*
 * A buffer of thread 7's at `addr`, numbered `seq`, as its head says it,
 * flushed `at` (0: read from the process), holding `len` bytes and `ev`
 * events; what the recorder had of it before (`skip` bytes) and the events
 * it said read from the process and lost.
 */
struct take_step {
	uint64_t addr, seq, at;
	uint32_t len, ev, skip, lost;
};

static void take_steps(const struct take_step *steps, size_t n, size_t entries)
{
	struct batch_threads bt;
	struct batch_buffer b = { .pid = 1, .tid = 7 };
	uint32_t skip, skipped, read_lost;
	size_t i;

	batch_threads_init(&bt);
	for (i = 0; i < n; i++) {
		b.addr = steps[i].addr;
		b.seq = steps[i].seq;
		b.flushed_at = steps[i].at;
		b.len = steps[i].len;
		b.nevents = steps[i].ev;
		CHECK_EQ_INT(batch_threads_take(&bt, &b, &skip, &skipped,
						&read_lost), 0);
		CHECK_EQ_INT(skip, steps[i].skip);
		CHECK_EQ_INT(read_lost, steps[i].lost);
		CHECK_EQ_INT(batch_threads_find(&bt, 7, b.addr)->seq, b.seq);
	}
	CHECK_EQ_INT(bt.n, entries);
	batch_threads_free(&bt);
}

/*
 * A buffer read from the process whose flush the ring lost: the next
 * flush of the thread says how many of the events the kernel counted lost
 * were written; a flush that came says none.
 */
TEST(events_read_before_their_flush_was_lost_are_told)
{
	static const struct take_step steps[] = {
		{ 0x1000, 10, 0, 64, 3, 0, 0 },   /* read from the process */
		{ 0x1000, 11, 5, 64, 9, 0, 3 },   /* the next flush: 10's was lost */
		{ 0x1000, 12, 0, 64, 2, 0, 0 },   /* read again... */
		{ 0x1000, 12, 6, 128, 4, 64, 0 }, /* ...then its own flush came */
		{ 0x1000, 13, 6, 128, 4, 0, 0 },
	};

	take_steps(steps, sizeof(steps) / sizeof(steps[0]), 1);
}

/*
 * A thread's buffers in two copies of the runtime are two entries: one
 * copy's flush moves nothing of the other's, whose flush then repeats
 * nothing read before, and a read whose flush the ring lost is counted
 * lost for its own buffer alone.
 */
TEST(a_threads_buffers_in_two_copies_are_kept_apart)
{
	static const struct take_step steps[] = {
		{ 0x1000, 100, 0, 64, 3, 0, 0 },    /* the first's, read */
		{ 0x2000, 900, 7, 32, 2, 0, 0 },    /* the second's flush */
		{ 0x1000, 100, 8, 128, 6, 64, 0 },  /* the first's, after the read */
		{ 0x1000, 100, 0, 160, 7, 128, 0 }, /* read again... */
		{ 0x2000, 901, 9, 32, 2, 0, 0 },    /* ...the second's next loses none */
		{ 0x1000, 101, 9, 32, 1, 0, 7 },    /* the first's next: its read's lost */
	};

	take_steps(steps, sizeof(steps) / sizeof(steps[0]), 2);
}

/*
 * A run whose scopes are all closed, then buffers the ring lost that
 * held the next run's start: the first lost one began with that start
 * (LOST_CLEAN), so the run before is whole and written; without that
 * word it may have lost events, and is left out.
 */
TEST(a_run_before_lost_buffers_that_began_with_the_next_is_whole)
{
	int clean;

	for (clean = 0; clean < 2; clean++) {
		struct collector *c = collector_new();
		struct collector_stats stats;
		struct etd_dump d = { 0 };
		struct etdump_rec_batch *b1, *b2;

		add(ETDUMP_BATCH_BLOCK, "Default", 0, 0, 100, 0);
		add(ETDUMP_BATCH_BEGIN, EXEC, -1, 0, 110, ARGS);
		add(ETDUMP_BATCH_END, EXEC, 0, 0, 120, 0);
		b1 = flush_of(9);
		/* the lost buffers held "Execute" and OP's begin */
		add(ETDUMP_BATCH_END, OP, 0, 0, 300, 0);
		b2 = flush_of(9);
		((struct etdump_batch_head *)b2->data)->seq = 103;
		b2->hdr.flags = ETDUMP_REC_F_LOST_BEFORE | ETDUMP_REC_F_LOST_BLOCK |
				(clean ? ETDUMP_REC_F_LOST_CLEAN : 0);
		CHECK_EQ_INT(collector_feed(c, b1, sizeof(*b1)), 0);
		CHECK_EQ_INT(collector_feed(c, b2, sizeof(*b2)), 0);
		CHECK_EQ_INT(collector_finish(c, &d, &stats), 0);
		CHECK_EQ_INT(d.nruns, clean);
		if (clean && d.nruns)
			CHECK_EQ_STR(d.runs[0].name, "Default");
		free(b1);
		free(b2);
		collector_free(c);
		etd_dump_free(&d);
	}
}

/* Buffer `addr`'s flush, its number `seq`: one copy's of the runtime. */
static struct etdump_rec_batch *flush_of_copy(uint32_t tid, uint64_t addr,
					      uint64_t seq)
{
	struct etdump_rec_batch *b = flush_of(tid);

	b->addr = addr;
	((struct etdump_batch_head *)b->data)->seq = seq;
	return b;
}

static void count_named(void *ctx, const struct etd_event *ev, uint32_t tid,
			const char *thread)
{
	int *named = ctx;

	(void)ev;
	(void)tid;
	*named += !strcmp(thread, "host");
}

/* The run's last event carries the note naming the thread "host". */
static bool notes_host(const struct etd_run *r)
{
	const struct etd_event *ev = &r->events[r->nevents - 1];

	return ev->has_metadata &&
	       memmem(ev->metadata, ev->metadata_len, "thread=host", 11);
}

/*
 * Two copies of the runtime on one thread, each with its buffer there:
 * the first copy's buffer filled mid-run, and the second's run came
 * before the rest of it. Each copy's run is whole and its own, both named
 * as the thread is (its name was said once, before either).
 */
TEST(two_copies_on_one_thread_keep_their_runs_apart)
{
	struct etdump_rec_thread_name n = {
		.hdr = { .type = ETDUMP_REC_THREAD_NAME, .size = sizeof(n),
			 .pid = 1, .tid = 9 },
		.name = "host",
	};
	struct collector *c = collector_new();
	struct collector_stats stats;
	struct etdump_rec_batch *b[3];
	struct etd_dump d = { 0 };
	int i, named = 0;

	collector_set_event_hook(c, count_named, &named);
	add(ETDUMP_BATCH_BLOCK, "Execute", 0, 0, 100, 0);
	add(ETDUMP_BATCH_BEGIN, EXEC, -1, 0, 110, ARGS);
	add(ETDUMP_BATCH_BEGIN, OP, -1, 0, 120, ARGS);
	b[0] = flush_of_copy(9, 0x1000, 100);
	add(ETDUMP_BATCH_BLOCK, "Execute", 0, 0, 130, 0);
	add(ETDUMP_BATCH_BEGIN, EXEC, -1, 0, 140, ARGS);
	add(ETDUMP_BATCH_END, EXEC, 0, 0, 150, 0);
	b[1] = flush_of_copy(9, 0x2000, 500);
	add(ETDUMP_BATCH_END, OP, 0, 0, 160, 0);
	add(ETDUMP_BATCH_END, EXEC, 0, 0, 170, 0);
	b[2] = flush_of_copy(9, 0x1000, 101);
	CHECK_EQ_INT(collector_feed(c, &n, sizeof(n)), 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ_INT(collector_feed(c, b[i], sizeof(*b[i])), 0);
	CHECK_EQ_INT(collector_finish(c, &d, &stats), 0);
	CHECK_EQ_INT(stats.runs, 2);
	CHECK_EQ_INT(stats.incomplete_runs, 0);
	CHECK_EQ_INT(stats.threads, 1);
	CHECK_EQ_INT(named, 3);
	CHECK_EQ_INT(d.nruns, 2);
	if (d.nruns == 2) {
		CHECK_EQ_INT(d.runs[0].open_time, 100);
		CHECK_EQ_INT(d.runs[0].nevents, 2);
		CHECK_EQ_STR(d.runs[0].events[0].name, OP);
		CHECK_EQ_INT(d.runs[0].events[0].start_time, 120);
		CHECK_EQ_INT(d.runs[0].events[0].end_time, 160);
		CHECK_EQ_INT(d.runs[0].events[1].end_time, 170);
		CHECK_EQ_INT(d.runs[1].open_time, 130);
		CHECK_EQ_INT(d.runs[1].nevents, 1);
		CHECK_EQ_INT(d.runs[1].events[0].end_time, 150);
		CHECK(notes_host(&d.runs[0]) && notes_host(&d.runs[1]));
	}
	for (i = 0; i < 3; i++)
		free(b[i]);
	collector_free(c);
	etd_dump_free(&d);
}

/*
 * The ring lost a flush of the first of two copies on a thread, and the
 * kernel says so on the thread's next flush, the second copy's. That copy
 * takes it as a thread of one copy does: its flush began with its run, so
 * it lost nothing. The first copy cannot tell what was lost: it leaves out
 * the run it had open (its end may have been lost) and keeps the next.
 */
TEST(a_loss_on_a_thread_of_two_copies_writes_no_run_short)
{
	struct collector *c = collector_new();
	struct collector_stats stats;
	struct etdump_rec_batch *b[3];
	struct etd_dump d = { 0 };
	int i;

	add(ETDUMP_BATCH_BLOCK, "Execute", 0, 0, 100, 0);
	add(ETDUMP_BATCH_BEGIN, EXEC, -1, 0, 110, ARGS);
	add(ETDUMP_BATCH_END, EXEC, 0, 0, 120, 0);
	b[0] = flush_of_copy(9, 0x1000, 100);
	/* 0x1000's buffer 101 lost: it held the end of a run, a scope ended */
	add(ETDUMP_BATCH_BLOCK, "Execute", 0, 0, 200, 0);
	add(ETDUMP_BATCH_BEGIN, EXEC, -1, 0, 210, ARGS);
	add(ETDUMP_BATCH_END, EXEC, 0, 0, 220, 0);
	b[1] = flush_of_copy(9, 0x2000, 500);
	b[1]->hdr.flags = ETDUMP_REC_F_LOST_BEFORE | ETDUMP_REC_F_LOST_BLOCK |
			  ETDUMP_REC_F_LOST_CLEAN;
	/* a buffer says the instruction state before a record takes it */
	add(ETDUMP_BATCH_BLOCK, "Execute", 0, 0, 300, 0);
	add(ETDUMP_BATCH_INSTRUCTION, NULL, -1, 0, 0, ARGS);
	add(ETDUMP_BATCH_BEGIN, EXEC, -1, 0, 310, ARGS);
	add(ETDUMP_BATCH_END, EXEC, 0, 0, 320, 0);
	b[2] = flush_of_copy(9, 0x1000, 102);
	for (i = 0; i < 3; i++)
		CHECK_EQ_INT(collector_feed(c, b[i], sizeof(*b[i])), 0);
	CHECK_EQ_INT(collector_finish(c, &d, &stats), 0);
	CHECK_EQ_INT(stats.lost_runs, 1);
	CHECK_EQ_INT(d.nruns, 2);
	if (d.nruns == 2) {
		CHECK_EQ_INT(d.runs[0].open_time, 200);
		CHECK_EQ_INT(d.runs[1].open_time, 300);
	}
	for (i = 0; i < 3; i++)
		free(b[i]);
	collector_free(c);
	etd_dump_free(&d);
}

int main(void)
{
	RUN(flush_becomes_the_per_scope_events);
	RUN(names_are_given_once_per_flush);
	RUN(a_flushs_names_are_interned_once_each);
	RUN(stale_records_are_skipped);
	RUN(malformed_flushes_are_refused);
	RUN(a_buffer_of_another_layout_is_told_apart);
	RUN(a_buffer_of_the_layout_before_is_read);
	RUN(counter_stamps_become_monotonic_ns_between_the_anchors);
	RUN(counter_stamps_on_the_kernels_line_are_the_clock_to_the_ns);
	RUN(the_collector_turns_flushes_on_the_line_read_before_them);
	RUN(a_flush_repeats_nothing_read_before);
	RUN(a_run_is_handed_over_once_the_bound_has_passed);
	RUN(every_nth_run_is_kept_and_the_others_counted);
	RUN(the_sites_compact_records_come_back_whole);
	RUN(the_instruction_state_is_said_where_it_is_taken);
	RUN(a_reused_name_buffer_is_named_again_a_literal_is_not);
	RUN(names_built_in_one_reused_buffer_are_said_once_each);
	RUN(a_name_at_the_end_of_a_page_is_read_within_it);
	RUN(a_named_log_without_metadata_is_short_and_comes_back_whole);
	RUN(events_read_before_their_flush_was_lost_are_told);
	RUN(a_run_before_lost_buffers_that_began_with_the_next_is_whole);
	RUN(a_threads_buffers_in_two_copies_are_kept_apart);
	RUN(two_copies_on_one_thread_keep_their_runs_apart);
	RUN(a_loss_on_a_thread_of_two_copies_writes_no_run_short);
	return TEST_SUMMARY();
}

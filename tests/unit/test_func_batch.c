// SPDX-License-Identifier: BSD-3-Clause
/*
 * test_func_batch.c - a thread's kept hits handed out as the records the
 * probes sent one at a time (user/symbol/func_batch.h).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "schema/etdump_record.h"
#include "symbol/func_batch.h"
#include "testlib.h"

#define SEEN_MAX 8

struct seen {
	union {
		struct etdump_rec_hdr hdr;
		struct etdump_rec_func_call call;
		struct etdump_rec_func_exit exit;
		struct etdump_rec_xnn_call xnn;
	} rec[SEEN_MAX];
	size_t len[SEEN_MAX];
	size_t n;
	int fail_at;            /* the call that fails (1-based), 0: none */
};

static int keep(void *ctx, const void *rec, size_t len)
{
	struct seen *s = ctx;

	if (s->n >= SEEN_MAX || len > sizeof(s->rec[0]))
		return -1;
	memcpy(&s->rec[s->n], rec, len);
	s->len[s->n++] = len;
	return (int)s->n == s->fail_at ? -5 : 0;
}

static void slot(struct etdump_rec_func_batch *b, uint16_t kind, uint32_t id,
		 uint64_t ts)
{
	struct etdump_func_slot *s = &b->slots[b->nslots++];

	s->ts = ts;
	s->id = id;
	s->kind = kind;
	s->cpu = 1;
	b->nrecords++;
}

/* A run's hits: a call, an operator's call and both returns. */
static size_t a_run(struct etdump_rec_func_batch *b)
{
	struct etdump_xnn_slot *x;
	size_t size;

	memset(b, 0, sizeof(*b));
	slot(b, ETDUMP_SLOT_CALL, 3, 100);
	slot(b, ETDUMP_SLOT_XNN, 7, 110);
	x = (struct etdump_xnn_slot *)&b->slots[b->nslots++];
	x->type = 26;
	x->sub = 2;
	x->ukernel = 5;
	x->part = 9;
	slot(b, ETDUMP_SLOT_EXIT, 7, 120);
	slot(b, ETDUMP_SLOT_EXIT, 3, 130);
	size = offsetof(struct etdump_rec_func_batch, slots) +
	       b->nslots * sizeof(b->slots[0]);
	b->hdr.type = ETDUMP_REC_FUNC_BATCH;
	b->hdr.size = size;
	b->hdr.flags = ETDUMP_REC_F_LOST_BEFORE;
	b->hdr.pid = 40;
	b->hdr.tid = 41;
	b->hdr.cpu = 0;
	b->hdr.ts = 130;
	return size;
}

/* Record i handed out: its type, size, site and stamp, the batch's thread. */
static void check_record(const struct seen *s, size_t i, int type, size_t len,
			 uint32_t id, uint64_t ts)
{
	CHECK_EQ_INT(s->rec[i].hdr.type, type);
	CHECK_EQ_INT(s->len[i], len);
	CHECK_EQ_INT(s->rec[i].hdr.size, len);
	/* the site's id follows the header in each kind */
	CHECK_EQ_INT(s->rec[i].call.id, id);
	CHECK_EQ_INT(s->rec[i].hdr.ts, ts);
	CHECK_EQ_INT(s->rec[i].hdr.tid, 41);
	CHECK_EQ_INT(s->rec[i].hdr.pid, 40);
	CHECK_EQ_INT(s->rec[i].hdr.cpu, 1);
}

TEST(each_hit_comes_as_the_probe_sent_it)
{
	static struct etdump_rec_func_batch b;
	size_t size = a_run(&b);
	struct seen s = { 0 };
	int err = 1;

	CHECK(func_batch_each(&b, size, keep, &s, &err));
	CHECK_EQ_INT(err, 0);
	CHECK_EQ_INT(s.n, 4);
	check_record(&s, 0, ETDUMP_REC_FUNC_CALL,
		     sizeof(struct etdump_rec_func_call), 3, 100);
	check_record(&s, 1, ETDUMP_REC_XNN_CALL,
		     sizeof(struct etdump_rec_xnn_call), 7, 110);
	check_record(&s, 2, ETDUMP_REC_FUNC_EXIT,
		     sizeof(struct etdump_rec_func_exit), 7, 120);
	check_record(&s, 3, ETDUMP_REC_FUNC_EXIT,
		     sizeof(struct etdump_rec_func_exit), 3, 130);
	/* the loss was before the thread's first record, not each */
	CHECK_EQ_INT(s.rec[0].hdr.flags, ETDUMP_REC_F_LOST_BEFORE);
	CHECK_EQ_INT(s.rec[1].hdr.flags, 0);
	CHECK_EQ_INT(s.rec[1].xnn.type, 26);
	CHECK_EQ_INT(s.rec[1].xnn.sub, 2);
	CHECK_EQ_INT(s.rec[1].xnn.ukernel, 5);
	CHECK_EQ_INT(s.rec[1].xnn.part, 9);
}

TEST(a_cut_batch_stops_where_it_is_cut)
{
	static struct etdump_rec_func_batch b;
	size_t size = a_run(&b);
	struct seen s = { 0 };
	int err;

	/* the operator's fields are past the record's end: not handed out */
	b.hdr.size = offsetof(struct etdump_rec_func_batch, slots) +
		     2 * sizeof(b.slots[0]);
	CHECK(func_batch_each(&b, size, keep, &s, &err));
	CHECK_EQ_INT(s.n, 1);
	CHECK_EQ_INT(s.rec[0].hdr.type, ETDUMP_REC_FUNC_CALL);
}

TEST(the_first_error_stops_it)
{
	static struct etdump_rec_func_batch b;
	size_t size = a_run(&b);
	struct seen s = { .fail_at = 2 };
	int err;

	CHECK(func_batch_each(&b, size, keep, &s, &err));
	CHECK_EQ_INT(err, -5);
	CHECK_EQ_INT(s.n, 2);
}

TEST(anything_else_is_not_a_batch)
{
	struct etdump_rec_func_exit e = { 0 };
	struct seen s = { 0 };
	int err;

	e.hdr.type = ETDUMP_REC_FUNC_EXIT;
	e.hdr.size = sizeof(e);
	CHECK(!func_batch_each(&e, sizeof(e), keep, &s, &err));
	CHECK_EQ_INT(s.n, 0);
}

int main(void)
{
	RUN(each_hit_comes_as_the_probe_sent_it);
	RUN(a_cut_batch_stops_where_it_is_cut);
	RUN(the_first_error_stops_it);
	RUN(anything_else_is_not_a_batch);
	return TEST_SUMMARY();
}

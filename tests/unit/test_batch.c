// SPDX-License-Identifier: BSD-3-Clause
/*
 * Batched mode: buffers written with schema/etdump_usdt.h's own functions,
 * turned back into records and through the collector into events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "batch.h"
#include "collector.h"
#include "etdump_usdt.h"
#include "testlib.h"

static struct etdump_batch_state st;

static struct etdump_batch_rec *add(unsigned short type, const char *name,
				    int a, int b, unsigned long long ts,
				    unsigned int payload)
{
	struct etdump_batch_rec *r;

	etdump__room(&st, type == ETDUMP_BATCH_END ? NULL : name, payload);
	r = etdump__put(&st, type, etdump__rec_size(payload));
	r->a = a;
	r->b = b;
	r->ts = ts;
	r->token = (unsigned long long)name;
	return r;
}

static struct etdump_rec_batch *flush_of(uint32_t tid)
{
	struct etdump_rec_batch *b = calloc(1, sizeof(*b));

	b->hdr.type = ETDUMP_REC_BATCH;
	b->hdr.size = sizeof(*b);
	b->hdr.tid = tid;
	b->hdr.pid = 1;
	b->len = st.len;
	b->nevents = st.nevents;
	memcpy(b->data, st.buf, st.len);
	memset(&st, 0, sizeof(st));
	return b;
}

static const char *const EXEC = "Method::execute";
static const char *const OP = "OPERATOR_CALL";
static const char *const LIN = "linear #0";

TEST(flush_becomes_the_per_scope_events)
{
	struct collector *c = collector_new();
	struct etdump_batch_rec *r;
	struct etdump_rec_batch *b;
	unsigned long long end = 170;
	struct collector_stats stats;
	struct etd_dump d = { 0 };
	struct etd_event *ev;

	add(ETDUMP_BATCH_BLOCK, "Execute", 0, 0, 100, 0);
	add(ETDUMP_BATCH_BEGIN, EXEC, -1, 0, 110, 0);
	add(ETDUMP_BATCH_INSTRUCTION, NULL, 0, 4, 0, 0);
	add(ETDUMP_BATCH_BEGIN, OP, -1, 0, 120, 0);
	r = add(ETDUMP_BATCH_DELEGATE_LOG, LIN, -1, 3, 150, 8 + 3);
	memcpy(r + 1, &end, 8);
	memcpy((char *)(r + 1) + 8, "abc", 3);
	r->b_len_orig = 3;
	add(ETDUMP_BATCH_END, OP, 0, 0, 180, 0);
	add(ETDUMP_BATCH_INSTRUCTION, NULL, -1, 0, 0, 0);
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

	add(ETDUMP_BATCH_BEGIN, OP, -1, 0, 1, 0);
	add(ETDUMP_BATCH_END, OP, 0, 0, 2, 0);
	add(ETDUMP_BATCH_BEGIN, OP, -1, 0, 3, 0);
	add(ETDUMP_BATCH_END, OP, 0, 0, 4, 0);
	for (off = 0; off < st.len;
	     off += ((struct etdump_batch_rec *)((char *)st.buf + off))->size)
		names += ((struct etdump_batch_rec *)((char *)st.buf + off))->type ==
			 ETDUMP_BATCH_NAME;
	CHECK_EQ_INT(names, 1);
	/* 1 NAME, 2 BEGIN, 2 END: two events */
	CHECK_EQ_INT(st.nevents, 2);
	memset(&st, 0, sizeof(st));
}

static int count(void *ctx, const void *rec, size_t len, const char *name)
{
	(void)rec;
	(void)len;
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

static int check_name(void *ctx, const void *rec, size_t len,
		      const char *name)
{
	const struct etdump_rec_hdr *h = rec;
	struct interned_seen *x = ctx;
	const char *bytes = NULL;

	(void)len;
	x->records++;
	if (h->type == ETDUMP_REC_PROFILE_BEGIN)
		bytes = ((const struct etdump_rec_begin *)rec)->name;
	else if (h->type == ETDUMP_REC_DELEGATE_LOG)
		bytes = ((const struct etdump_rec_delegate_log *)rec)->name;
	/* a record naming something has the interned copy; others none */
	x->mismatched += !bytes != !name || (name && strcmp(name, bytes));
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
		add(ETDUMP_BATCH_BEGIN, OP, -1, i, 10 + i, 0);
		add(ETDUMP_BATCH_END, OP, 0, 0, 20 + i, 0);
	}
	add(ETDUMP_BATCH_DELEGATE_LOG, LIN, -1, 0, 30, 8);
	b = flush_of(1);
	CHECK_EQ_INT(batch_expand(b, 0, check_name, intern_copy, &x, &bs), 0);
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

	add(ETDUMP_BATCH_BEGIN, OP, -1, 0, 10, 0);
	add(ETDUMP_BATCH_END, OP, 0, 0, 2000, 0);
	b = flush_of(1);
	CHECK_EQ_INT(batch_expand(b, 1000, count, NULL, &n, &bs), 0);
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

	add(ETDUMP_BATCH_BEGIN, OP, -1, 0, 10, 0);
	b = flush_of(1);
	r = (struct etdump_batch_rec *)b->data;   /* the NAME record */
	r->size = 12;
	CHECK(batch_expand(b, 0, count, NULL, &n, &bs) == -EINVAL);
	r->size = 4000;
	CHECK(batch_expand(b, 0, count, NULL, &n, &bs) == -EINVAL);
	r->size = 40;
	memset(r + 1, 'x', 8);                    /* no NUL in the name */
	CHECK(batch_expand(b, 0, count, NULL, &n, &bs) == -EINVAL);
	b->len = 5000;
	CHECK(batch_expand(b, 0, count, NULL, &n, &bs) == -EINVAL);
	b->len = 0;
	b->nevents = 7;                           /* the tracer could not read it */
	CHECK_EQ_INT(batch_expand(b, 0, count, NULL, &n, &bs), 0);
	CHECK_EQ_INT(bs.lost, 7);
	CHECK_EQ_INT(n, 0);
	free(b);
}

int main(void)
{
	RUN(flush_becomes_the_per_scope_events);
	RUN(names_are_given_once_per_flush);
	RUN(a_flushs_names_are_interned_once_each);
	RUN(stale_records_are_skipped);
	RUN(malformed_flushes_are_refused);
	return TEST_SUMMARY();
}

// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "collect/batch_threads.h"

void batch_threads_init(struct batch_threads *bt)
{
	memset(bt, 0, sizeof(*bt));
}

void batch_threads_free(struct batch_threads *bt)
{
	free(bt->slot);
	batch_threads_init(bt);
}

/* a buffer's address is 64-byte aligned: its low bits say nothing */
static size_t home(const struct batch_threads *bt, uint32_t tid, uint64_t addr)
{
	uint64_t key = ((uint64_t)tid << 32 ^ addr >> 6) * 0x9e3779b97f4a7c15ull;

	return (size_t)(key >> 32) & (bt->cap - 1);
}

static struct batch_thread *lookup(const struct batch_threads *bt, uint32_t tid,
				   uint64_t addr)
{
	size_t i;

	if (!bt->cap)
		return NULL;
	for (i = home(bt, tid, addr); bt->slot[i].tid;
	     i = (i + 1) & (bt->cap - 1))
		if (bt->slot[i].tid == tid && bt->slot[i].addr == addr)
			return &bt->slot[i];
	return NULL;
}

const struct batch_thread *batch_threads_find(const struct batch_threads *bt,
					      uint32_t tid, uint64_t addr)
{
	return lookup(bt, tid, addr);
}

static int grow(struct batch_threads *bt)
{
	struct batch_threads bigger = { .cap = bt->cap ? bt->cap * 2 : 64 };
	size_t i, j;

	bigger.slot = calloc(bigger.cap, sizeof(*bigger.slot));
	if (!bigger.slot)
		return -ENOMEM;
	for (i = 0; i < bt->cap; i++) {
		if (!bt->slot[i].tid)
			continue;
		for (j = home(&bigger, bt->slot[i].tid, bt->slot[i].addr);
		     bigger.slot[j].tid;
		     j = (j + 1) & (bigger.cap - 1))
			;
		bigger.slot[j] = bt->slot[i];
	}
	bigger.n = bt->n;
	free(bt->slot);
	*bt = bigger;
	return 0;
}

static struct batch_thread *add(struct batch_threads *bt, uint32_t tid,
				uint64_t addr)
{
	size_t i;

	if ((bt->n + 1) * 2 > bt->cap && grow(bt))
		return NULL;
	for (i = home(bt, tid, addr); bt->slot[i].tid;
	     i = (i + 1) & (bt->cap - 1))
		;
	bt->n++;
	bt->slot[i].tid = tid;
	bt->slot[i].addr = addr;
	return &bt->slot[i];
}

int batch_threads_take(struct batch_threads *bt, const struct batch_buffer *b,
		       uint32_t *skip, uint32_t *skipped_new,
		       uint32_t *read_lost)
{
	struct batch_thread *t = lookup(bt, b->tid, b->addr);

	*skip = 0;
	*skipped_new = b->skipped;
	*read_lost = 0;
	if (!t) {
		t = add(bt, b->tid, b->addr);
		if (!t)
			return -ENOMEM;
	} else if (t->pid == b->pid) {
		/* an earlier buffer, or this one read as far before */
		if (b->seq < t->seq ||
		    (b->seq == t->seq && b->len <= t->taken &&
		     b->skipped <= t->skipped)) {
			if (b->seq == t->seq && b->flushed_at)
				t->read_events = 0; /* its flush came */
			return 1;
		}
		if (b->seq == t->seq) {
			*skip = t->taken;
			*skipped_new = b->skipped - t->skipped;
		} else {
			/* one thread's flushes come in order: that one is lost */
			*read_lost = t->read_events;
		}
	}
	t->pid = b->pid;
	t->seq = b->seq;
	t->taken = b->len;
	t->skipped = b->skipped;
	t->read_events = b->flushed_at ? 0 : b->nevents;
	if (b->flushed_at)
		t->flushed_at = b->flushed_at;
	return 0;
}

int batch_threads_lend(struct batch_threads *bt, const struct batch_buffer *b,
		       bool lent)
{
	struct batch_thread *t = lookup(bt, b->tid, b->addr);

	if (!t) {
		t = add(bt, b->tid, b->addr);
		if (!t)
			return -ENOMEM;
	}
	t->lent = lent;
	if (lent)
		return 0;
	/* the child's: taken, never emitted */
	t->pid = b->pid;
	t->seq = b->seq;
	t->taken = b->len;
	t->skipped = b->skipped;
	return 0;
}

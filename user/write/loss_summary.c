// SPDX-License-Identifier: BSD-3-Clause
#include <stdio.h>
#include <stdlib.h>
#include "collect/collector.h"
#include "lib/log.h"
#include "write/loss_summary.h"

struct thread_loss {
	uint32_t tid;
	uint64_t runs;
	uint64_t received;
};

struct losses {
	struct thread_loss *t;
	size_t n;
	size_t cap;
	int err;
};

static void add_loss(void *ctx, uint32_t tid, uint64_t runs,
		     uint64_t received)
{
	struct losses *l = ctx;
	struct thread_loss *grown;

	if (l->err)
		return;
	if (l->n == l->cap) {
		grown = realloc(l->t, (l->cap ? 2 * l->cap : 16) * sizeof(*grown));
		if (!grown) {
			l->err = 1;
			return;
		}
		l->t = grown;
		l->cap = l->cap ? 2 * l->cap : 16;
	}
	l->t[l->n++] = (struct thread_loss){ tid, runs, received };
}

/* the most runs lost first, then the most events, then by TID */
static int loss_cmp(const void *a, const void *b)
{
	const struct thread_loss *x = a, *y = b;

	if (x->runs != y->runs)
		return x->runs > y->runs ? -1 : 1;
	if (x->received != y->received)
		return x->received > y->received ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

void loss_summary_size(uint64_t bytes, char *buf, size_t len)
{
	static const char unit[] = { 'G', 'M', 'K' };
	int shift = 30;

	for (size_t i = 0; i < sizeof(unit); i++, shift -= 10)
		if (bytes >= (1ull << shift) && !(bytes & ((1ull << shift) - 1))) {
			snprintf(buf, len, "%llu%c",
				 (unsigned long long)(bytes >> shift), unit[i]);
			return;
		}
	snprintf(buf, len, "%llu", (unsigned long long)bytes);
}

static void say_threads(const struct losses *l)
{
	char line[1024];
	size_t i, at = 0;
	uint64_t runs = 0, received = 0;

	for (i = 0; i < l->n; i++) {
		runs += l->t[i].runs;
		received += l->t[i].received;
	}
	for (i = 0; i < l->n && i < LOSS_SUMMARY_THREADS; i++)
		at += (size_t)snprintf(line + at, sizeof(line) - at,
				       "%sTID %u: %llu run(s), %llu event(s)",
				       i ? ", " : "", l->t[i].tid,
				       (unsigned long long)l->t[i].runs,
				       (unsigned long long)l->t[i].received);
	if (l->n > LOSS_SUMMARY_THREADS)
		snprintf(line + at, sizeof(line) - at, ", %zu more thread(s)",
			 l->n - LOSS_SUMMARY_THREADS);
	p_warn("%llu run(s) of %zu thread(s) left out, the full ring lost some of each (%llu of their events arrived); by thread: %s",
	       (unsigned long long)runs, l->n, (unsigned long long)received,
	       line);
}

static void say_ring(uint64_t ring_bytes)
{
	char now[32], next[32];
	uint64_t more = ring_bytes * LOSS_SUMMARY_GROWTH;

	loss_summary_size(ring_bytes, now, sizeof(now));
	if (ring_bytes >= LOSS_SUMMARY_MAX_RING) {
		p_info("the ring (--ring-size %s) is the largest record takes: record fewer threads, or one run in N (--every N)",
		       now);
		return;
	}
	if (more > LOSS_SUMMARY_MAX_RING)
		more = LOSS_SUMMARY_MAX_RING;
	loss_summary_size(more, next, sizeof(next));
	p_info("to lose none, record with a larger ring: --ring-size %s (this one: %s)",
	       next, now);
}

void loss_summary_say(const struct collector *c, uint64_t drops,
		      uint64_t ring_bytes)
{
	struct losses l = { 0 };

	collector_each_loss(c, add_loss, &l);
	if (!l.err && l.n) {
		qsort(l.t, l.n, sizeof(*l.t), loss_cmp);
		say_threads(&l);
	}
	free(l.t);
	if (drops && ring_bytes)
		say_ring(ring_bytes);
}

// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "schema/etdump_record.h"
#include "write/sched_lanes.h"

bool sched_record_is(const void *rec, size_t len)
{
	const struct etdump_rec_hdr *h = rec;

	return len >= sizeof(*h) && h->type == ETDUMP_REC_SCHED;
}

int sched_lanes_add(struct sched_lanes *l, const void *rec, size_t len)
{
	struct etdump_rec_sched r;
	struct sched_switch *v;

	if (len < sizeof(r))
		return -EINVAL;
	memcpy(&r, rec, sizeof(r));
	if (r.hdr.size != sizeof(r) || r.out > 1 || r.preempted > 1)
		return -EINVAL;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;

		v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (struct sched_switch){ .ts = r.hdr.ts,
		.tid = r.hdr.tid, .cpu = r.hdr.cpu, .out = r.out,
		.preempted = r.preempted };
	return 0;
}

static int switch_cmp(const void *a, const void *b)
{
	const struct sched_switch *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	/* at one instant a thread goes out before it comes back in */
	if (x->out != y->out)
		return x->out ? -1 : 1;
	return 0;
}

void sched_lanes_sort(struct sched_lanes *l)
{
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), switch_cmp);
}

void sched_lanes_free(struct sched_lanes *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include "collect/batch.h"
#include "collect/batch_pull.h"
#include "lib/clock.h"
#include "lib/counter_clock.h"

static int read_from(uint32_t pid, uint64_t addr, void *dst, size_t len)
{
	struct iovec local = { .iov_base = dst, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr,
				.iov_len = len };

	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len ?
		       0 : -1;
}

/*
 * The recorder's own anchor closes what it read: every stamp is before it.
 * The counter halfway around the clock, the narrowest of three reads, as
 * the runtime takes its own (schema/etdump_usdt.h): the recorder shares
 * its CPUs, and one read it was interrupted in puts every stamp of the
 * buffer off by half its width.
 */
static void anchor_now(struct etdump_batch_head *h)
{
	uint64_t c0, c1, ns, width = UINT64_MAX;

	for (int i = 0; i < 3; i++) {
		c0 = counter_now();
		ns = monotonic_ns();
		c1 = counter_now();
		if (c1 - c0 >= width)
			continue;
		width = c1 - c0;
		h->to_ns = ns;
		h->to_ctr = h->clock == ETDUMP_BATCH_CLOCK_COUNTER ?
				    c0 + width / 2 : ns;
	}
}

static int pull_one(const struct batch_thread *t, struct etdump_rec_batch *r,
		    batch_pull_fn fn, void *ctx)
{
	struct etdump_batch_head h;
	uint64_t seq;

	if (t->lent || read_from(t->pid, t->addr, &h, sizeof(h)) ||
	    !ETDUMP_BATCH_MAGIC_READ(h.magic) || h.tid != t->tid || !h.len ||
	    h.len > ETDUMP_BATCH_BYTES - sizeof(h))
		return 0;
	/* the next buffer while the last flush is still in the ring: later */
	if (h.seq == t->seq ? h.len <= t->taken && h.skipped <= t->skipped :
			      h.seq != t->seq + 1)
		return 0;
	if (read_from(t->pid, t->addr + sizeof(h), r->data + sizeof(h), h.len) ||
	    read_from(t->pid, t->addr + offsetof(struct etdump_batch_head, seq),
		      &seq, sizeof(seq)) || seq != h.seq)
		return 0; /* flushed meanwhile: the ring has it whole */
	anchor_now(&h);
	memcpy(r->data, &h, sizeof(h));
	memset(&r->hdr, 0, sizeof(r->hdr));
	r->hdr.type = ETDUMP_REC_BATCH;
	r->hdr.flags = ETDUMP_REC_F_PULLED;
	r->hdr.pid = t->pid;
	r->hdr.tid = t->tid;
	r->hdr.ts = h.to_ns;
	r->len = sizeof(h) + h.len;
	r->nevents = h.nevents;
	r->addr = t->addr;
	r->hdr.size = offsetof(struct etdump_rec_batch, data) + r->len;
	return fn(ctx, r, r->hdr.size);
}

int batch_pull(const struct batch_threads *bt, uint64_t now, uint64_t idle_ns,
	       batch_pull_fn fn, void *ctx)
{
	struct etdump_rec_batch *r;
	struct batch_thread *known;
	size_t i, n = 0;
	int err = 0;

	if (!bt->n)
		return 0;
	/* feeding a record moves the table: go through a copy */
	known = malloc(bt->n * sizeof(*known));
	r = malloc(sizeof(*r));
	if (!known || !r) {
		free(known);
		free(r);
		return -ENOMEM;
	}
	for (i = 0; i < bt->cap; i++)
		if (bt->slot[i].tid && bt->slot[i].flushed_at + idle_ns <= now)
			known[n++] = bt->slot[i];
	for (i = 0; i < n && !err; i++)
		err = pull_one(&known[i], r, fn, ctx);
	free(known);
	free(r);
	return err;
}

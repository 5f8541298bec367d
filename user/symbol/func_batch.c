// SPDX-License-Identifier: BSD-3-Clause
#include <string.h>
#include "schema/etdump_record.h"
#include "symbol/func_batch.h"

union func_record {
	struct etdump_rec_hdr hdr;
	struct etdump_rec_func_call call;
	struct etdump_rec_func_exit exit;
	struct etdump_rec_xnn_call xnn;
};

/* The record slot i stands for, in r: its size, or 0 when none. */
static size_t slot_record(const struct etdump_rec_func_batch *b, size_t i,
			  size_t nslots, union func_record *r)
{
	const struct etdump_func_slot *s = &b->slots[i];
	const struct etdump_xnn_slot *x;
	size_t size;

	memset(r, 0, sizeof(*r));
	r->hdr = b->hdr;
	/* the batch's loss flags are the thread's first record's */
	if (i)
		r->hdr.flags = 0;
	r->hdr.cpu = s->cpu;
	r->hdr.ts = s->ts;
	switch (s->kind) {
	case ETDUMP_SLOT_CALL:
		r->hdr.type = ETDUMP_REC_FUNC_CALL;
		r->call.id = s->id;
		size = sizeof(r->call);
		break;
	case ETDUMP_SLOT_EXIT:
		r->hdr.type = ETDUMP_REC_FUNC_EXIT;
		r->exit.id = s->id;
		size = sizeof(r->exit);
		break;
	case ETDUMP_SLOT_XNN:
		if (i + 1 >= nslots)
			return 0;
		x = (const struct etdump_xnn_slot *)&b->slots[i + 1];
		r->hdr.type = ETDUMP_REC_XNN_CALL;
		r->xnn.id = s->id;
		r->xnn.part = x->part;
		r->xnn.type = x->type;
		r->xnn.sub = x->sub;
		r->xnn.ukernel = x->ukernel;
		size = sizeof(r->xnn);
		break;
	default:
		return 0;
	}
	r->hdr.size = size;
	return size;
}

bool func_batch_each(const void *rec, size_t len, func_batch_fn fn,
		     void *ctx, int *err)
{
	const struct etdump_rec_func_batch *b = rec;
	size_t head = offsetof(struct etdump_rec_func_batch, slots);
	size_t i, nslots, size;
	union func_record r;

	*err = 0;
	if (len < head || b->hdr.type != ETDUMP_REC_FUNC_BATCH ||
	    b->hdr.size > len || b->hdr.size < head)
		return false;
	nslots = (b->hdr.size - head) / sizeof(b->slots[0]);
	if (b->nslots < nslots)
		nslots = b->nslots;
	for (i = 0; i < nslots && !*err; i++) {
		size = slot_record(b, i, nslots, &r);
		if (size)
			*err = fn(ctx, &r, size);
		if (b->slots[i].kind == ETDUMP_SLOT_XNN)
			i++;
	}
	return true;
}

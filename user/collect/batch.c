// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "batch.h"

_Static_assert(ETDUMP_REC_BATCH_MAX == ETDUMP_BATCH_BYTES,
	       "a flush must fit one ring-buffer record");
_Static_assert(ETDUMP_BATCH_NAME_MAX == ETDUMP_NAME_MAX - 1,
	       "both modes cut names alike");
_Static_assert(ETDUMP_BATCH_META_MAX == ETDUMP_META_MAX,
	       "both modes cut metadata alike");

/* the fields before the first name or metadata of any record emitted */
#define FIXED_BYTES offsetof(struct etdump_rec_delegate_log, name)
_Static_assert(FIXED_BYTES >= offsetof(struct etdump_rec_begin, name) &&
	       FIXED_BYTES >= offsetof(struct etdump_rec_block, name) &&
	       FIXED_BYTES >= offsetof(struct etdump_rec_end, meta),
	       "every record's fixed fields are cleared");

/* The NAME records of one flush: token -> string in the flush. */
#define MAX_NAMES (ETDUMP_BATCH_BYTES / 24)

struct names {
	uint32_t token[MAX_NAMES];
	const char *str[MAX_NAMES];
	/* cut to ETDUMP_NAME_MAX - 1 once per flush, not per event naming it */
	uint16_t len[MAX_NAMES];
	/* the caller's copy, made when a record first names it */
	const char *interned[MAX_NAMES];
	unsigned int n;
	batch_intern_fn intern;
	void *ctx;
};

/* The index of token's name, or -1. */
static int name_of(const struct names *names, uint32_t token)
{
	unsigned int i;

	for (i = names->n; i-- > 0;)
		if (names->token[i] == token)
			return (int)i;
	return -1;
}

/*
 * A name into a record's bounded field; its length, or UNREAD if unknown.
 * *interned: the intern function's copy of it, or NULL.
 */
static uint16_t put_name(struct names *names, uint32_t token, char *dst,
			 const char **interned)
{
	size_t n;
	int i;

	*interned = NULL;
	if (!token)
		return 0;
	i = name_of(names, token);
	if (i < 0)
		return ETDUMP_NAME_UNREAD;
	n = names->len[i];
	memcpy(dst, names->str[i], n);
	dst[n] = '\0';
	if (!names->interned[i] && names->intern)
		names->interned[i] = names->intern(names->ctx, names->str[i], n);
	*interned = names->interned[i];
	return n;
}

/* The writer of the records: a flush at exit hands over other threads'. */
static void header(struct etdump_rec_hdr *h, const struct etdump_rec_hdr *flush,
		   uint32_t tid, uint8_t type, uint16_t size, uint64_t ts)
{
	memset(h, 0, sizeof(*h));
	h->type = type;
	h->size = size;
	h->cpu = flush->cpu;
	h->pid = flush->pid;
	h->tid = tid;
	h->ts = ts;
}

/*
 * A stamp of the head's clock in CLOCK_MONOTONIC ns: the counter runs at
 * one rate between the head's two anchors. The rate is a 32.32 fixed-point
 * ns a tick, found once a flush, so a stamp costs a multiply.
 */
struct stamp_rate {
	int counter;
	int64_t from_ctr, from_ns;
	__int128 ns_per_tick; /* << 32 */
};

static void stamp_rate_of(const struct etdump_batch_head *h,
			  struct stamp_rate *r)
{
	__int128 span_ctr = (__int128)h->to_ctr - h->from_ctr;

	r->counter = h->clock == ETDUMP_BATCH_CLOCK_COUNTER;
	r->from_ctr = (int64_t)h->from_ctr;
	r->from_ns = (int64_t)h->from_ns;
	r->ns_per_tick = span_ctr > 0 ?
		(((__int128)h->to_ns - h->from_ns) << 32) / span_ctr : 0;
}

static uint64_t stamp_at(const struct stamp_rate *r, uint64_t ts)
{
	if (!r->counter)
		return ts;
	return (uint64_t)(r->from_ns +
			  (int64_t)((((__int128)(int64_t)(ts - r->from_ctr)) *
				     r->ns_per_tick) >> 32));
}

uint64_t batch_stamp_ns(const struct etdump_batch_head *h, uint64_t ts)
{
	struct stamp_rate r;

	stamp_rate_of(h, &r);
	return stamp_at(&r, ts);
}

/* One record of the flush, as the probe of the same name would have sent it. */
static int emit(const struct etdump_rec_batch *b,
		const struct etdump_batch_head *head, struct names *names,
		const struct etdump_batch_rec *r, uint64_t ts,
		const uint8_t *payload, batch_record_fn fn, void *ctx)
{
	size_t plen = r->size - sizeof(*r);
	union {
		struct etdump_rec_block block;
		struct etdump_rec_begin begin;
		struct etdump_rec_end end;
		struct etdump_rec_instruction instr;
		struct etdump_rec_delegate_log log;
	} o;
	struct etdump_batch_args args = { 0, 0 };
	struct etdump_batch_log log;
	const char *name = NULL;
	uint8_t type;
	uint16_t size;
	uint32_t meta;

	if (r->type != ETDUMP_BATCH_DELEGATE_LOG && r->type != ETDUMP_BATCH_BLOCK &&
	    r->type != ETDUMP_BATCH_END) {
		if (plen < sizeof(args))
			return -EINVAL;
		memcpy(&args, payload, sizeof(args));
		payload += sizeof(args);
		plen -= sizeof(args);
	}
	/*
	 * Only the fixed fields are cleared: names and metadata are read to
	 * their lengths, and no counter follows (ncounters 0). This runs for
	 * every event of batched mode.
	 */
	memset(&o, 0, FIXED_BYTES);
	switch (r->type) {
	case ETDUMP_BATCH_BLOCK:
		header(&o.block.hdr, &b->hdr, head->tid, ETDUMP_REC_BLOCK,
		       sizeof(o.block), ts);
		o.block.name_len = put_name(names, r->token, o.block.name, &name);
		break;
	case ETDUMP_BATCH_BEGIN:
	case ETDUMP_BATCH_DELEGATE_BEGIN:
		type = r->type == ETDUMP_BATCH_BEGIN ? ETDUMP_REC_PROFILE_BEGIN :
						       ETDUMP_REC_DELEGATE_BEGIN;
		header(&o.begin.hdr, &b->hdr, head->tid, type, sizeof(o.begin),
		       ts);
		o.begin.token = r->token;
		o.begin.chain = r->type == ETDUMP_BATCH_BEGIN ? args.a : -1;
		o.begin.instr = r->type == ETDUMP_BATCH_BEGIN ? args.b : 0;
		o.begin.id_int = r->type == ETDUMP_BATCH_BEGIN ? -1 : args.a;
		o.begin.name_len = put_name(names, r->token, o.begin.name,
					    &name);
		o.begin.switches = 0;
		break;
	case ETDUMP_BATCH_END:
	case ETDUMP_BATCH_DELEGATE_END:
		type = r->type == ETDUMP_BATCH_END ? ETDUMP_REC_PROFILE_END :
						     ETDUMP_REC_DELEGATE_END;
		header(&o.end.hdr, &b->hdr, head->tid, type, sizeof(o.end), ts);
		o.end.token = r->type == ETDUMP_BATCH_END ? r->token : 0;
		meta = r->type == ETDUMP_BATCH_END ? 0 : (uint32_t)args.a;
		if (meta > plen || meta > ETDUMP_META_MAX)
			return -EINVAL;
		memcpy(o.end.meta, payload, meta);
		o.end.meta_len = meta;
		o.end.meta_len_orig = r->type == ETDUMP_BATCH_END ?
					      0 : (uint32_t)args.b;
		o.end.switches = 0;
		break;
	case ETDUMP_BATCH_INSTRUCTION:
		header(&o.instr.hdr, &b->hdr, head->tid, ETDUMP_REC_INSTRUCTION,
		       sizeof(o.instr), ts);
		o.instr.chain = args.a;
		o.instr.instr = args.b;
		break;
	case ETDUMP_BATCH_DELEGATE_LOG:
		if (plen < sizeof(log))
			return -EINVAL;
		memcpy(&log, payload, sizeof(log));
		meta = log.meta_len;
		if (meta > plen - sizeof(log) || meta > ETDUMP_META_MAX)
			return -EINVAL;
		/* the delegate's own times, as given: no stamp of ours */
		header(&o.log.hdr, &b->hdr, head->tid, ETDUMP_REC_DELEGATE_LOG,
		       sizeof(o.log), r->ts);
		o.log.start = r->ts;
		o.log.end = log.end;
		o.log.id_int = log.id_int;
		o.log.name_len = put_name(names, r->token, o.log.name, &name);
		memcpy(o.log.meta, payload + sizeof(log), meta);
		o.log.meta_len = meta;
		o.log.meta_len_orig = log.meta_len_orig;
		break;
	default:
		return 0; /* a newer runtime's record: skip it */
	}
	size = ((struct etdump_rec_hdr *)&o)->size;
	return fn(ctx, &o, size, name);
}

int batch_head(const struct etdump_rec_batch *b, struct etdump_batch_head *head)
{
	if (b->len > ETDUMP_REC_BATCH_MAX || b->len < sizeof(*head))
		return -EINVAL;
	memcpy(head, b->data, sizeof(*head));
	if (head->magic != ETDUMP_BATCH_MAGIC)
		return -EPROTO;
	if (head->len > b->len - sizeof(*head))
		return -EINVAL;
	return 0;
}

int batch_expand(const struct etdump_rec_batch *b, uint32_t skip,
		 uint64_t min_ts, batch_record_fn fn, batch_intern_fn intern,
		 void *ctx, struct batch_stats *stats)
{
	const uint8_t *data = b->data + sizeof(struct etdump_batch_head);
	struct etdump_batch_head head;
	struct etdump_batch_rec r;
	struct stamp_rate rate;
	struct names names;
	uint32_t off;
	uint64_t ts;
	int err;

	names.n = 0;
	names.intern = intern;
	names.ctx = ctx;
	if (!b->len && b->nevents) {
		stats->lost += b->nevents;
		return 0;
	}
	err = batch_head(b, &head);
	if (err)
		return err;
	stamp_rate_of(&head, &rate);
	for (off = 0; off + sizeof(r) <= head.len; off += r.size) {
		memcpy(&r, data + off, sizeof(r));
		if (r.size < sizeof(r) || r.size % 8 || r.size > head.len - off)
			return -EINVAL;
		if (r.type == ETDUMP_BATCH_NAME) {
			const char *s = (const char *)data + off + sizeof(r);
			const char *nul;

			/* the string must end inside its record */
			nul = memchr(s, '\0', r.size - sizeof(r));
			if (!nul || names.n == MAX_NAMES)
				return -EINVAL;
			names.token[names.n] = r.token;
			names.len[names.n] = nul - s < ETDUMP_NAME_MAX - 1 ?
						     nul - s : ETDUMP_NAME_MAX - 1;
			names.interned[names.n] = NULL;
			names.str[names.n++] = s;
			continue;
		}
		/* the recorder has these already: read from the process */
		if (off < skip)
			continue;
		ts = stamp_at(&rate, r.ts);
		/*
		 * A logged delegate event carries the delegate's own times
		 * (XNNPACK's start at its own epoch): no stamp to judge by.
		 */
		if (r.type != ETDUMP_BATCH_INSTRUCTION &&
		    r.type != ETDUMP_BATCH_DELEGATE_LOG && ts < min_ts) {
			stats->stale++;
			continue;
		}
		err = emit(b, &head, &names, &r, ts, data + off + sizeof(r), fn,
			   ctx);
		if (err)
			return err;
	}
	return off == head.len ? 0 : -EINVAL;
}

// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include "collect/batch.h"
#include "lib/counter_clock.h"

_Static_assert(ETDUMP_REC_BATCH_MAX == ETDUMP_BATCH_BYTES,
	       "a flush must fit one ring-buffer record");
_Static_assert(ETDUMP_BATCH_NAME_MAX == ETDUMP_NAME_MAX - 1,
	       "both modes cut names alike");
_Static_assert(ETDUMP_BATCH_META_MAX == ETDUMP_META_MAX,
	       "both modes cut metadata alike");

/* The NAME records of one buffer, by slot (1-320; 0: none). */
struct names {
	const char *str[ETDUMP_BATCH_SLOTS + 1];
	/* cut to ETDUMP_NAME_MAX - 1 once per flush, not per event naming it */
	uint16_t len[ETDUMP_BATCH_SLOTS + 1];
	/* pairs a begin with its end across buffers: the text's hash */
	uint64_t token[ETDUMP_BATCH_SLOTS + 1];
	/* the caller's copy, made when a record first names it */
	const char *interned[ETDUMP_BATCH_SLOTS + 1];
	batch_intern_fn intern;
	void *ctx;
};

/* FNV-1a: a name's token, the same for the same text in any buffer. */
static uint64_t text_token(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
	return h ? h : 1;
}

/*
 * The token of a slot's name: 0 for no name, one of the slot's own when
 * the buffer never named it (so an end still pairs with its begin).
 */
static uint64_t token_of(const struct names *names, unsigned int slot)
{
	if (!slot)
		return 0;
	return names->str[slot] ? names->token[slot] : slot;
}

/*
 * A slot's name into f: its bytes in the flush and length, ETDUMP_NAME_UNREAD
 * (and "") if the buffer never said it. *interned: the intern function's
 * copy of it, made once a flush, or NULL.
 */
static void name_of(struct names *names, unsigned int slot,
		    struct rec_fields *f, const char **interned)
{
	*interned = NULL;
	f->name = "";
	f->name_len = 0;
	if (!slot)
		return;
	if (!names->str[slot]) {
		f->name_len = ETDUMP_NAME_UNREAD;
		return;
	}
	f->name = names->str[slot];
	f->name_len = names->len[slot];
	if (!names->interned[slot] && names->intern)
		names->interned[slot] = names->intern(names->ctx, f->name,
						      f->name_len);
	*interned = names->interned[slot];
}

/*
 * A stamp of the head's clock in CLOCK_MONOTONIC ns. On the kernel's own
 * line (struct etdump_rec_clock) when the recorder read it and the head's
 * first anchor lies on it: the clock to the ns. Else the counter runs at
 * one rate between the head's two anchors, within their reads' error: the
 * rate is a 32.32 fixed-point ns a tick, found once a flush, so a stamp
 * costs a multiply.
 */
struct stamp_rate {
	int counter;
	const struct etdump_rec_clock *line;
	uint64_t from_ctr, from_ns;
	__int128 ns_per_tick; /* << 32 */
};

/*
 * An anchor's clock read lies within its two counter reads, microseconds
 * apart at worst (a thread preempted in all three tries is further off,
 * and a time namespace's clock is seconds away): off the line by more,
 * the head is not of this line's clock.
 */
#define LINE_ANCHOR_NS 1000000

static bool on_line(const struct etdump_rec_clock *line, uint64_t ctr,
		    uint64_t ns)
{
	uint64_t at = counter_clock_ns(line, ctr);

	return (at > ns ? at - ns : ns - at) <= LINE_ANCHOR_NS;
}

static void stamp_rate_of(const struct etdump_batch_head *h,
			  const struct etdump_rec_clock *line,
			  struct stamp_rate *r)
{
	__int128 span_ctr = (__int128)h->to_ctr - h->from_ctr;
	__int128 span_ns = (__int128)h->to_ns - h->from_ns;

	r->counter = h->clock == ETDUMP_BATCH_CLOCK_COUNTER;
	r->line = r->counter && line && on_line(line, h->from_ctr, h->from_ns) ?
			  line : NULL;
	r->from_ctr = h->from_ctr;
	r->from_ns = h->from_ns;
	r->ns_per_tick = 0;
	/* a counter runs forward at well under 2^16 ns a tick, or not at all */
	if (span_ctr > 0 && span_ns >= 0 && span_ns < ((__int128)1 << 62))
		r->ns_per_tick = span_ns * ((__int128)1 << 32) / span_ctr;
	if (r->ns_per_tick >= ((__int128)1 << 48))
		r->ns_per_tick = 0;
}

static uint64_t stamp_at(const struct stamp_rate *r, uint64_t ts)
{
	__int128 ticks = (int64_t)(ts - r->from_ctr);

	if (!r->counter)
		return ts;
	if (r->line)
		return counter_clock_ns(r->line, ts);
	/* unsigned: a wrong stamp wraps, it never overflows */
	return r->from_ns + (uint64_t)(ticks * r->ns_per_tick /
				       ((__int128)1 << 32));
}

uint64_t batch_stamp_ns(const struct etdump_batch_head *h,
			const struct etdump_rec_clock *line, uint64_t ts)
{
	struct stamp_rate r;

	stamp_rate_of(h, line, &r);
	return stamp_at(&r, ts);
}

/* What a record of the buffer carries, decoded. */
struct batch_item {
	unsigned int type;
	unsigned int slot;
	uint32_t dt;                  /* DELEGATE_LOG_SHORT: end - start */
	uint64_t ts;                  /* CLOCK_MONOTONIC ns */
	struct etdump_batch_args args;
	const uint8_t *payload;       /* past the args */
	size_t plen;
};

/*
 * A logged delegate event's fields, from its whole record or its short
 * one (by its name, no metadata: the start, and the duration in dt);
 * -1 for one that does not hold what it says.
 */
static int log_of(const struct batch_item *it, struct etdump_batch_log *log)
{
	if (it->type == ETDUMP_BATCH_DELEGATE_LOG_SHORT) {
		if (it->plen < sizeof(log->start))
			return -1;
		memset(log, 0, sizeof(*log));
		memcpy(&log->start, it->payload, sizeof(log->start));
		log->end = log->start + it->dt;
		log->id_int = -1;
		return 0;
	}
	if (it->plen < sizeof(*log))
		return -1;
	memcpy(log, it->payload, sizeof(*log));
	return log->meta_len > it->plen - sizeof(*log) ||
	       log->meta_len > ETDUMP_META_MAX ? -1 : 0;
}

/*
 * One record of the flush, as the probe of the same name would have sent
 * it, into f: 1, or 0 for a newer runtime's record (skipped), -EINVAL.
 */
static int fields_of(const struct etdump_rec_batch *b,
		     const struct etdump_batch_head *head, struct names *names,
		     const struct batch_item *it, struct rec_fields *f,
		     const char **name)
{
	struct etdump_batch_log log;
	bool begin = it->type == ETDUMP_BATCH_BEGIN;
	bool end = it->type == ETDUMP_BATCH_END;

	/* no counter follows (ncounters 0) */
	rec_fields_clear(f);
	f->cpu = b->hdr.cpu;
	f->pid = b->hdr.pid;
	f->tid = head->tid;
	f->ts = it->ts;
	*name = NULL;
	switch (it->type) {
	case ETDUMP_BATCH_BLOCK:
		f->type = ETDUMP_REC_BLOCK;
		name_of(names, it->slot, f, name);
		return 1;
	case ETDUMP_BATCH_BEGIN:
	case ETDUMP_BATCH_DELEGATE_BEGIN:
		f->type = begin ? ETDUMP_REC_PROFILE_BEGIN :
				  ETDUMP_REC_DELEGATE_BEGIN;
		f->token = token_of(names, it->slot);
		f->chain = begin ? it->args.a : -1;
		f->instr = begin ? it->args.b : 0;
		f->id_int = begin ? -1 : it->args.a;
		name_of(names, it->slot, f, name);
		return 1;
	case ETDUMP_BATCH_END:
	case ETDUMP_BATCH_DELEGATE_END:
		f->type = end ? ETDUMP_REC_PROFILE_END : ETDUMP_REC_DELEGATE_END;
		f->token = end ? token_of(names, it->slot) : 0;
		f->meta_len = end ? 0 : (uint32_t)it->args.a;
		if (f->meta_len > it->plen || f->meta_len > ETDUMP_META_MAX)
			return -EINVAL;
		f->meta = it->payload;
		f->meta_len_orig = end ? 0 : (uint32_t)it->args.b;
		return 1;
	case ETDUMP_BATCH_INSTRUCTION:
		f->type = ETDUMP_REC_INSTRUCTION;
		f->chain = it->args.a;
		f->instr = it->args.b;
		return 1;
	case ETDUMP_BATCH_DELEGATE_LOG:
	case ETDUMP_BATCH_DELEGATE_LOG_SHORT:
		if (log_of(it, &log))
			return -EINVAL;
		f->type = ETDUMP_REC_DELEGATE_LOG;
		/* the delegate's own times, as given: no stamp of ours */
		f->ts = log.start;
		f->start = log.start;
		f->end = log.end;
		f->id_int = log.id_int;
		name_of(names, it->slot, f, name);
		f->meta = it->payload + sizeof(log);
		f->meta_len = log.meta_len;
		f->meta_len_orig = log.meta_len_orig;
		return 1;
	default:
		return 0; /* a newer runtime's record: skip it */
	}
}

int batch_head(const struct etdump_rec_batch *b, struct etdump_batch_head *head)
{
	if (b->len > ETDUMP_REC_BATCH_MAX || b->len < sizeof(*head))
		return -EINVAL;
	memcpy(head, b->data, sizeof(*head));
	if (!ETDUMP_BATCH_MAGIC_READ(head->magic))
		return -EPROTO;
	/* a head alone says where a buffer stands, records not copied */
	if (b->hdr.flags & (ETDUMP_REC_F_LENT | ETDUMP_REC_F_NOT_ITS_OWN))
		return head->len > ETDUMP_BATCH_BYTES - sizeof(*head) ?
			-EINVAL : 0;
	if (head->len > b->len - sizeof(*head))
		return -EINVAL;
	return 0;
}

int batch_each(const struct etdump_rec_batch *b, uint32_t skip,
	       uint64_t min_ts, const struct etdump_rec_clock *line,
	       batch_fields_fn fn, batch_intern_fn intern, void *ctx,
	       struct batch_stats *stats)
{
	const uint8_t *data = b->data + sizeof(struct etdump_batch_head);
	struct etdump_batch_args last_begin = { 0, 0 };
	bool have_begin = false;
	struct etdump_batch_head head;
	struct etdump_batch_rec r;
	struct stamp_rate rate;
	struct batch_item it;
	struct rec_fields f;
	struct names names;
	const char *name;
	uint64_t stamp;
	uint32_t off, size;
	bool logged;
	int err;

	memset(&names, 0, sizeof(names));
	names.intern = intern;
	names.ctx = ctx;
	if (!b->len && b->nevents) {
		stats->lost += b->nevents;
		return 0;
	}
	err = batch_head(b, &head);
	if (err)
		return err;
	stamp_rate_of(&head, line, &rate);
	stats->on_line += rate.line != NULL;
	stats->between_anchors += rate.counter && !rate.line;
	stamp = head.from_ctr;
	for (off = 0; off + sizeof(r) <= head.len; off += size) {
		memcpy(&r, data + off, sizeof(r));
		size = ETDUMP_BATCH_SIZE(r.word);
		it.type = ETDUMP_BATCH_TYPE(r.word);
		it.slot = ETDUMP_BATCH_SLOT(r.word);
		if (size < sizeof(r) || size > head.len - off ||
		    it.slot > ETDUMP_BATCH_SLOTS)
			return -EINVAL;
		it.payload = data + off + sizeof(r);
		it.plen = size - sizeof(r);
		if (it.type == ETDUMP_BATCH_NAME) {
			const char *s = (const char *)it.payload;
			const char *nul;

			/* the string must end inside its record */
			nul = memchr(s, '\0', it.plen);
			if (!nul || !it.slot)
				return -EINVAL;
			names.str[it.slot] = s;
			names.len[it.slot] = nul - s < ETDUMP_NAME_MAX - 1 ?
						     nul - s : ETDUMP_NAME_MAX - 1;
			names.token[it.slot] = text_token(s, names.len[it.slot]);
			names.interned[it.slot] = NULL;
			continue;
		}
		if (it.type == ETDUMP_BATCH_TIME) {
			if (it.plen < sizeof(stamp))
				return -EINVAL;
			memcpy(&stamp, it.payload, sizeof(stamp));
			continue;
		}
		/* the deltas run through every record, taken or not */
		it.dt = r.dt;
		if (it.type != ETDUMP_BATCH_DELEGATE_LOG_SHORT)
			stamp += r.dt;
		if (it.type == ETDUMP_BATCH_BEGIN_AGAIN) {
			if (!have_begin)
				return -EINVAL;
			it.type = ETDUMP_BATCH_BEGIN;
			it.args = last_begin;
		} else if (it.type == ETDUMP_BATCH_BEGIN ||
			   it.type == ETDUMP_BATCH_INSTRUCTION ||
			   it.type == ETDUMP_BATCH_DELEGATE_BEGIN ||
			   it.type == ETDUMP_BATCH_DELEGATE_END) {
			if (it.plen < sizeof(it.args))
				return -EINVAL;
			memcpy(&it.args, it.payload, sizeof(it.args));
			it.payload += sizeof(it.args);
			it.plen -= sizeof(it.args);
		}
		if (it.type == ETDUMP_BATCH_BEGIN) {
			last_begin = it.args;
			have_begin = true;
		}
		/* the recorder has these already: read from the process */
		if (off < skip)
			continue;
		logged = it.type == ETDUMP_BATCH_DELEGATE_LOG ||
			 it.type == ETDUMP_BATCH_DELEGATE_LOG_SHORT;
		it.ts = it.type == ETDUMP_BATCH_INSTRUCTION || logged ?
			0 : stamp_at(&rate, stamp);
		/*
		 * A logged delegate event carries the delegate's own times
		 * (XNNPACK's start at its own epoch): no stamp to judge by.
		 */
		if (it.type != ETDUMP_BATCH_INSTRUCTION && !logged &&
		    it.ts < min_ts) {
			stats->stale++;
			continue;
		}
		err = fields_of(b, &head, &names, &it, &f, &name);
		if (err > 0)
			err = fn(ctx, &f, name);
		if (err)
			return err;
	}
	return off == head.len ? 0 : -EINVAL;
}

// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "batch.h"
#include "etdump_usdt.h"

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

/* The NAME records of one flush: pointer -> string in the flush. */
#define MAX_NAMES (ETDUMP_BATCH_BYTES / 40)

struct names {
	uint64_t token[MAX_NAMES];
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
static int name_of(const struct names *names, uint64_t token)
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
static uint16_t put_name(struct names *names, uint64_t token, char *dst,
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

static void header(struct etdump_rec_hdr *h, const struct etdump_rec_hdr *flush,
		   uint8_t type, uint16_t size, uint64_t ts)
{
	memset(h, 0, sizeof(*h));
	h->type = type;
	h->size = size;
	h->cpu = flush->cpu;
	h->pid = flush->pid;
	h->tid = flush->tid;
	h->ts = ts;
}

/* One record of the flush, as the probe of the same name would have sent it. */
static int emit(const struct etdump_rec_batch *b, struct names *names,
		const struct etdump_batch_rec *r, const uint8_t *payload,
		batch_record_fn fn, void *ctx)
{
	size_t plen = r->size - sizeof(*r);
	union {
		struct etdump_rec_block block;
		struct etdump_rec_begin begin;
		struct etdump_rec_end end;
		struct etdump_rec_instruction instr;
		struct etdump_rec_delegate_log log;
	} o;
	const char *name = NULL;
	uint8_t type;
	uint16_t size;
	uint32_t meta;

	/*
	 * Only the fixed fields are cleared: names and metadata are read to
	 * their lengths, and no counter follows (ncounters 0). This runs for
	 * every event of batched mode.
	 */
	memset(&o, 0, FIXED_BYTES);
	switch (r->type) {
	case ETDUMP_BATCH_BLOCK:
		header(&o.block.hdr, &b->hdr, ETDUMP_REC_BLOCK,
		       sizeof(o.block), r->ts);
		o.block.name_len = put_name(names, r->token, o.block.name, &name);
		break;
	case ETDUMP_BATCH_BEGIN:
	case ETDUMP_BATCH_DELEGATE_BEGIN:
		type = r->type == ETDUMP_BATCH_BEGIN ? ETDUMP_REC_PROFILE_BEGIN :
						       ETDUMP_REC_DELEGATE_BEGIN;
		header(&o.begin.hdr, &b->hdr, type, sizeof(o.begin), r->ts);
		o.begin.token = r->token;
		o.begin.chain = r->type == ETDUMP_BATCH_BEGIN ? r->a : -1;
		o.begin.instr = r->type == ETDUMP_BATCH_BEGIN ? r->b : 0;
		o.begin.id_int = r->type == ETDUMP_BATCH_BEGIN ? -1 : r->a;
		o.begin.name_len = put_name(names, r->token, o.begin.name,
					    &name);
		o.begin.switches = 0;
		break;
	case ETDUMP_BATCH_END:
	case ETDUMP_BATCH_DELEGATE_END:
		type = r->type == ETDUMP_BATCH_END ? ETDUMP_REC_PROFILE_END :
						     ETDUMP_REC_DELEGATE_END;
		header(&o.end.hdr, &b->hdr, type, sizeof(o.end), r->ts);
		o.end.token = r->type == ETDUMP_BATCH_END ? r->token : 0;
		meta = r->type == ETDUMP_BATCH_END ? 0 : r->b;
		if (meta > plen || meta > ETDUMP_META_MAX)
			return -EINVAL;
		memcpy(o.end.meta, payload, meta);
		o.end.meta_len = meta;
		o.end.meta_len_orig = r->type == ETDUMP_BATCH_END ? 0 : r->b_len_orig;
		o.end.switches = 0;
		break;
	case ETDUMP_BATCH_INSTRUCTION:
		header(&o.instr.hdr, &b->hdr, ETDUMP_REC_INSTRUCTION,
		       sizeof(o.instr), r->ts);
		o.instr.chain = r->a;
		o.instr.instr = r->b;
		break;
	case ETDUMP_BATCH_DELEGATE_LOG:
		meta = r->b;
		if (plen < 8 || meta > plen - 8 || meta > ETDUMP_META_MAX)
			return -EINVAL;
		header(&o.log.hdr, &b->hdr, ETDUMP_REC_DELEGATE_LOG,
		       sizeof(o.log), r->ts);
		o.log.start = r->ts;
		memcpy(&o.log.end, payload, 8);
		o.log.id_int = r->a;
		o.log.name_len = put_name(names, r->token, o.log.name, &name);
		memcpy(o.log.meta, payload + 8, meta);
		o.log.meta_len = meta;
		o.log.meta_len_orig = r->b_len_orig;
		break;
	default:
		return 0; /* a newer runtime's record: skip it */
	}
	size = ((struct etdump_rec_hdr *)&o)->size;
	return fn(ctx, &o, size, name);
}

int batch_expand(const struct etdump_rec_batch *b, uint64_t min_ts,
		 batch_record_fn fn, batch_intern_fn intern, void *ctx,
		 struct batch_stats *stats)
{
	struct etdump_batch_rec r;
	struct names names;
	uint32_t off, seen = 0;
	int err;

	names.n = 0;
	names.intern = intern;
	names.ctx = ctx;
	if (b->len > ETDUMP_REC_BATCH_MAX)
		return -EINVAL;
	if (!b->len && b->nevents) {
		stats->lost += b->nevents;
		return 0;
	}
	for (off = 0; off + sizeof(r) <= b->len; off += r.size, seen++) {
		memcpy(&r, b->data + off, sizeof(r));
		if (r.size < sizeof(r) || r.size % 8 || r.size > b->len - off)
			return -EINVAL;
		if (r.type == ETDUMP_BATCH_NAME) {
			const char *s = (const char *)b->data + off + sizeof(r);
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
		/*
		 * A logged delegate event carries the delegate's own times
		 * (XNNPACK's start at its own epoch): no stamp to judge by.
		 */
		if (r.type != ETDUMP_BATCH_INSTRUCTION &&
		    r.type != ETDUMP_BATCH_DELEGATE_LOG && r.ts < min_ts) {
			stats->stale++;
			continue;
		}
		err = emit(b, &names, &r, b->data + off + sizeof(r), fn, ctx);
		if (err)
			return err;
	}
	return off == b->len ? 0 : -EINVAL;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * batch.h - turn one flush of batched mode (schema/etdump_usdt.h records,
 * carried by ETDUMP_REC_BATCH) into the fields of the records the
 * per-scope probes would have produced for the same calls (rec_fields.h),
 * so the collector treats both modes alike.
 */
#ifndef ETDUMP_BATCH_H
#define ETDUMP_BATCH_H

#include <stddef.h>
#include <stdint.h>
#include "collect/rec_fields.h"
#include "schema/etdump_record.h"
/* the buffer's layout; a file that runs the sites includes it first */
#ifndef ETDUMP_USDT_H
#define ETDUMP_USDT_DISABLE
#endif
#include "schema/etdump_usdt.h"

/* s[0..len) (no NUL in it) as the caller keeps names, or NULL. */
typedef const char *(*batch_intern_fn)(void *ctx, const char *s, size_t len);

struct batch_stats {
	uint64_t stale;   /* records older than min_ts: from an earlier attach */
	uint64_t lost;    /* events the flush held but could not be read */
	/* counter-stamped flushes turned into the clock on the kernel's
	   line, and between their anchors (no line, or not the head's) */
	uint64_t on_line, between_anchors;
};

/*
 * The flush's head, checked: -EPROTO for a buffer of another layout (a
 * runtime built with an older schema/etdump_usdt.h), -EINVAL if malformed.
 */
int batch_head(const struct etdump_rec_batch *b, struct etdump_batch_head *head);

/*
 * A stamp of the head's clock as CLOCK_MONOTONIC ns: on the kernel's line
 * (NULL: none read) when the head's anchor lies on it, else between the
 * head's anchors.
 */
uint64_t batch_stamp_ns(const struct etdump_batch_head *head,
			const struct etdump_rec_clock *line, uint64_t ts);

/*
 * A record's fields (f's pointers into the flush, valid during the call),
 * as the per-scope probe of the same name would have sent them, and the
 * name it carries as the flush's intern function made it: once per name
 * and flush, not per event naming it (NULL when the record names nothing,
 * or without an intern function or its result).
 */
typedef int (*batch_fields_fn)(void *ctx, const struct rec_fields *f,
			       const char *name);

/*
 * Give each record of the flush to fn, in order, stamped in
 * CLOCK_MONOTONIC ns (as batch_stamp_ns() with line); records before byte `skip` of the records (the
 * recorder has them already) and records stamped before min_ts are
 * skipped; intern (may be NULL) is asked for each name of the flush a
 * record given carries, once. -EINVAL for a malformed flush (what came
 * before the fault is given), -EPROTO as batch_head(), or fn's error.
 */
int batch_each(const struct etdump_rec_batch *b, uint32_t skip,
	       uint64_t min_ts, const struct etdump_rec_clock *line,
	       batch_fields_fn fn, batch_intern_fn intern, void *ctx,
	       struct batch_stats *stats);

#endif /* ETDUMP_BATCH_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rec_fields.h - what a scope's record says (a block, a begin, an end, an
 * instruction, a delegate's log: schema/etdump_record.h), as the collector
 * reads it: from a ring record, or straight from a batched flush's event
 * (batch.h), which then is never made a record to be parsed again.
 */
#ifndef ETDUMP_REC_FIELDS_H
#define ETDUMP_REC_FIELDS_H

#include <stddef.h>
#include <stdint.h>
#include "schema/etdump_record.h"

struct rec_fields {
	uint8_t type;           /* enum etdump_rec_type */
	uint8_t ncounters;      /* begin, end: samples in counters */
	uint16_t flags;         /* ETDUMP_REC_F_* */
	uint16_t cpu;
	uint32_t pid;
	uint32_t tid;
	uint64_t ts;            /* CLOCK_MONOTONIC ns */
	uint64_t token;         /* begin, end */
	int32_t chain;          /* begin, instruction */
	int32_t instr;
	int64_t id_int;         /* begin, delegate log */
	/* block, begin, log: name_len bytes, a NUL at or past them; never NULL */
	const char *name;
	uint16_t name_len;      /* or ETDUMP_NAME_UNREAD */
	const uint8_t *meta;    /* end, log: meta_len bytes */
	uint32_t meta_len;
	uint32_t meta_len_orig;
	uint64_t start;         /* log: the delegate's own times */
	uint64_t end;
	uint64_t switches;      /* begin, end, with counters */
	const struct etdump_counter_sample *counters;
};

/*
 * Every field cleared, each by a store of its own: for this struct GCC
 * made memset() `rep stos`, whose start-up was a third of the time a
 * batched flush took to read (this runs for every event).
 */
static inline void rec_fields_clear(struct rec_fields *f)
{
	f->type = 0;
	f->ncounters = 0;
	f->flags = 0;
	f->cpu = 0;
	f->pid = 0;
	f->tid = 0;
	f->ts = 0;
	f->token = 0;
	f->chain = 0;
	f->instr = 0;
	f->id_int = 0;
	f->name = "";
	f->name_len = 0;
	f->meta = NULL;
	f->meta_len = 0;
	f->meta_len_orig = 0;
	f->start = 0;
	f->end = 0;
	f->switches = 0;
	f->counters = NULL;
}

#endif /* ETDUMP_REC_FIELDS_H */

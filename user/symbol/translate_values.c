// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/translate_state.h"

/* Is the innermost call an instruction call inside another one? */
static bool nested_instruction(const struct thread *th)
{
	size_t i;

	if (!th->depth || !th->calls[th->depth - 1].instruction)
		return false;
	for (i = 0; i + 1 < th->depth; i++)
		if (th->calls[i].instruction)
			return true;
	return false;
}

/*
 * record --values: a kernel's out tensor, read at its return before the
 * exit record (bpf/symbols.bpf.c, ETDUMP_VREC_AT_RETURN), takes the
 * instruction its call has, and the time last handed on (its own stamp
 * has the probes' time in it). Its data chunks and it wait with the run's
 * BLOCK as the rest does. The value probe's records (a thread inside no
 * probed call) pass as they are.
 */
int translate_value(struct symbol_translator *t, const void *rec, size_t len)
{
	const struct etdump_rec_hdr *h = rec;
	struct thread *th = translate_thread_found(t, h->tid);
	struct etdump_rec_value v;

	if (!th || (!th->depth && !th->block_pending))
		return t->sink(t->sink_ctx, rec, len);
	/*
	 * a kernel another kernel calls: ETDumpGen logs the outputs of the
	 * operator the plan calls, not of what it calls in turn
	 */
	if (nested_instruction(th))
		return 0;
	if (h->type == ETDUMP_REC_VALUE_DATA)
		return translate_emit(t, th, rec, len);
	memcpy(&v, rec, sizeof(v));
	if (!(v.rec_flags & ETDUMP_VREC_AT_RETURN))
		return translate_emit(t, th, rec, len);
	v.chain = th->chain;
	v.instr = th->instr;
	if (th->last_ts)
		v.hdr.ts = th->last_ts;
	return translate_emit(t, th, &v, sizeof(v));
}

/* The allocator at `self`, numbered from 1 as ETDumpGen numbers them. */
static int allocator_id(struct symbol_translator *t, struct thread *th,
			const struct etdump_rec_func_alloc *r,
			const struct etdump_rec_hdr *hdr, int32_t *id)
{
	struct etdump_rec_allocator a;
	uint64_t *grown;
	char name[ETDUMP_NAME_MAX];
	size_t i;

	for (i = 0; i < t->nallocators; i++) {
		if (t->allocators[i] == r->self) {
			*id = i + 1;
			return 0;
		}
	}
	grown = realloc(t->allocators, (i + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	t->allocators = grown;
	t->allocators[t->nallocators++] = r->self;
	*id = i + 1;
	/* its kind, as the rule names it, and its number: one object each */
	translate_copy_name(name, r->name, r->name_len);
	memset(&a, 0, sizeof(a));
	translate_stamp(&a.hdr, hdr, ETDUMP_REC_ALLOCATOR, sizeof(a));
	a.allocator_id = *id;
	snprintf(a.name, sizeof(a.name), "%.50s %d", name, *id);
	a.name_len = strlen(a.name);
	return translate_emit(t, th, &a, sizeof(a));
}

/*
 * record --allocations: an allocate function handed out memory. It is a
 * probed call inside the thread's outermost one: what it cost is taken
 * out of what follows, as for any probed call (symbol_translate.h).
 */
int translate_alloc(struct symbol_translator *t, struct thread *th,
		    const struct etdump_rec_func_alloc *r)
{
	struct etdump_rec_allocation out;
	struct etdump_rec_hdr hdr = r->hdr;
	int32_t id;
	int err, k;

	hdr.ts = r->hdr.ts > th->probe_ns ? r->hdr.ts - th->probe_ns : 0;
	if (hdr.ts < th->last_ts)
		hdr.ts = th->last_ts;
	if (t->cal.done && th->depth) {
		k = r->flags & ETDUMP_FUNC_STEPPED ? SYMBOL_ENTRY_STEPPED :
						     SYMBOL_ENTRY_EMULATED;
		th->probe_ns += t->cal.call_ns[k];
	}
	err = allocator_id(t, th, r, &hdr, &id);
	if (err)
		return err;
	memset(&out, 0, sizeof(out));
	translate_stamp(&out.hdr, &hdr, ETDUMP_REC_ALLOCATION, sizeof(out));
	out.allocator_id = id;
	out.size = r->size;
	return translate_emit(t, th, &out, sizeof(out));
}


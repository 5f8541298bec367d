// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "collect/collector.h"
#include "lib/log.h"
#include "schema/etdump_record.h"
#include "symbol/gap_table.h"
#include "symbol/plan_walk.h"
#include "symbol/pte_reader.h"
#include "symbol/symbol_calibrate.h"
#include "symbol/symbol_translate.h"
#include "symbol/translate_state.h"

int symbol_translator_new(struct symbol_translator **out,
			  const struct pte_plan *plan, capture_record_fn sink,
			  void *sink_ctx)
{
	struct symbol_translator *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->plan = plan;
	t->sink = sink;
	t->sink_ctx = sink_ctx;
	*out = t;
	return 0;
}

/* The thread's state, if it has any. */
struct thread *translate_thread_found(struct symbol_translator *t, uint32_t tid)
{
	size_t i;

	for (i = t->nthreads; i-- > 0;)
		if (t->threads[i]->tid == tid)
			return t->threads[i];
	return NULL;
}

static struct thread *thread_of(struct symbol_translator *t, uint32_t tid)
{
	struct thread **grown, *th;
	size_t i;

	for (i = t->nthreads; i-- > 0;)
		if (t->threads[i]->tid == tid)
			return t->threads[i];
	th = calloc(1, sizeof(*th));
	grown = realloc(t->threads, (t->nthreads + 1) * sizeof(*grown));
	if (!th || !grown) {
		free(th);
		if (grown)
			t->threads = grown;
		return NULL;
	}
	th->tid = tid;
	th->chain = -1;
	th->xnn_last = -1;
	th->before_run = t->mid_run;
	t->threads = grown;
	t->threads[t->nthreads++] = th;
	return th;
}

/* A record of `type` stamped like the symbol record it comes from. */
void translate_stamp(struct etdump_rec_hdr *h, const struct etdump_rec_hdr *from,
		  uint8_t type, size_t size)
{
	*h = *from;
	h->type = type;
	h->ncounters = 0;
	h->size = size;
}

uint16_t translate_copy_name(char *dst, const char *src, size_t len)
{
	if (len >= ETDUMP_NAME_MAX)
		len = ETDUMP_NAME_MAX - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
	return len;
}

/* Hand a record on, or hold it while its run's BLOCK waits. */
int translate_emit(struct symbol_translator *t, struct thread *th,
		const void *rec, size_t len)
{
	size_t room = (len + 7) & ~(size_t)7;
	uint8_t *held;

	if (!th->block_pending)
		return t->sink(t->sink_ctx, rec, len);
	if (th->held_len + room > th->held_cap) {
		size_t cap = th->held_cap ? th->held_cap * 2 : 1024;

		while (cap < th->held_len + room)
			cap *= 2;
		held = realloc(th->held, cap);
		if (!held)
			return -ENOMEM;
		th->held = held;
		th->held_cap = cap;
	}
	memcpy(th->held + th->held_len, rec, len);
	th->held_len += room;
	return 0;
}

static int emit_instruction(struct symbol_translator *t, struct thread *th,
			    const struct etdump_rec_hdr *from, int32_t chain,
			    int32_t instr)
{
	struct etdump_rec_instruction r = { .chain = chain, .instr = instr };

	th->chain = chain;
	th->instr = instr;
	translate_stamp(&r.hdr, from, ETDUMP_REC_INSTRUCTION, sizeof(r));
	return translate_emit(t, th, &r, sizeof(r));
}

/* A site's scope pairs by token; never 0, which means "no name". */
static uint64_t site_token(uint32_t site)
{
	return (uint64_t)site + 1;
}

/* The OPERATOR_CALL around a site's kernel: apart from any site's token. */
static uint64_t operator_token(uint32_t site)
{
	return ((uint64_t)1 << 32) + site + 1;
}

static const char operator_call[] = "OPERATOR_CALL";

static int emit_begin(struct symbol_translator *t, struct thread *th,
		      const struct etdump_rec_hdr *from, uint64_t token,
		      const char *name, size_t len)
{
	struct etdump_rec_begin r;

	memset(&r, 0, sizeof(r));
	translate_stamp(&r.hdr, from, ETDUMP_REC_PROFILE_BEGIN, sizeof(r));
	r.token = token;
	/* chain -1: the instruction state applies, as for ETDumpGen */
	r.chain = -1;
	r.instr = 0;
	r.id_int = -1;
	r.name_len = translate_copy_name(r.name, name, len);
	return translate_emit(t, th, &r, sizeof(r));
}

/* The run waiting for its first event to end, then what it held back. */
static int flush_block(struct symbol_translator *t, struct thread *th)
{
	const struct etdump_rec_hdr *h;
	struct etdump_rec_block r;
	size_t len = strlen(th->run), at;
	int err;

	if (!th->block_pending)
		return 0;
	th->block_pending = false;
	memset(&r, 0, sizeof(r));
	translate_stamp(&r.hdr, &th->block_hdr, ETDUMP_REC_BLOCK, sizeof(r));
	/* ETDumpGen's name, which tools look for ("Execute") */
	memcpy(r.name, th->run, len + 1);
	r.name_len = len;
	err = t->sink(t->sink_ctx, &r, sizeof(r));
	for (at = 0; !err && at < th->held_len;
	     at += (h->size + 7) & ~(size_t)7) {
		h = (const void *)(th->held + at);
		err = t->sink(t->sink_ctx, h, h->size);
	}
	th->held_len = 0;
	return err;
}

/*
 * Give an instruction call its chain and instruction: true when the call
 * sets the instruction state, false when its instruction is not known and
 * it keeps the state there is. A kernel's name may become the plan's.
 */
static bool assign_ids(struct symbol_translator *t, struct thread *th,
		       uint8_t kind, char name[ETDUMP_NAME_MAX],
		       int32_t *chain, int32_t *instr)
{
	char planned[ETDUMP_NAME_MAX] = "";
	struct plan_pos at;

	if (!t->plan) {
		*chain = 0;
		*instr = th->calls_in_run++;
		return true;
	}
	if (plan_walk_find(t->plan, th->next, kind == ETDUMP_FUNC_DELEGATE,
			   name, &at, planned)) {
		t->stats.plan_matched++;
		*chain = at.chain;
		*instr = at.instr;
		th->next = (struct plan_pos){ at.chain, at.instr + 1 };
		if (kind == ETDUMP_FUNC_KERNEL)
			strcpy(name, planned);
		return true;
	}
	if (!t->stats.plan_unmatched++)
		p_warn("'%s' matches no %s instruction of the program's method '%s' (another program?); such calls keep chain -1, instruction 0",
		       name, kind == ETDUMP_FUNC_KERNEL ? "KernelCall" :
							   "DelegateCall",
		       t->plan->method);
	return false;
}

/* Inside another instruction call (a kernel calling a kernel)? */
static bool in_instruction(const struct thread *th)
{
	size_t i;

	for (i = 0; i < th->depth; i++)
		if (th->calls[i].instruction)
			return true;
	return false;
}

static int push_call(struct thread *th, uint32_t site, bool instruction,
		     bool sets_state, bool op_call, bool stepped, bool xnn)
{
	struct open_call *calls;

	if (th->depth == th->cap) {
		size_t cap = th->cap ? th->cap * 2 : 16;

		calls = realloc(th->calls, cap * sizeof(*calls));
		if (!calls)
			return -ENOMEM;
		th->calls = calls;
		th->cap = cap;
	}
	if (th->depth)
		th->calls[th->depth - 1].has_child = true;
	th->calls[th->depth++] = (struct open_call){
		.site = site, .instruction = instruction,
		.sets_state = sets_state, .operator_call = op_call,
		.stepped = stepped, .xnn = xnn };
	return 0;
}

/*
 * A probe's time stamp without the time the thread's probes took so far
 * (symbol_translate.h). Of a call's whole cost, the part within its own
 * scope is split between the entry's tail and the return's head, the rest
 * between the entry's head and the return's tail.
 */
/* What a probe's trap takes before its stamp, and after it. */
static void trap_split(const struct symbol_translator *t, bool stepped,
		       bool entry, uint64_t *before, uint64_t *after)
{
	const struct symbol_calibration *c = &t->cal;
	int k = stepped ? SYMBOL_ENTRY_STEPPED : SYMBOL_ENTRY_EMULATED;
	uint64_t scope = c->scope_ns[k], rest = c->call_ns[k] - scope;

	*before = entry ? rest / 2 : scope / 2;
	*after = entry ? scope - scope / 2 : rest - rest / 2;
	if (!c->done)
		*before = *after = 0;
}

/*
 * trapped false: a time no probe stamped (a kernel's end, from the next
 * event's): nothing to add, only kept in order.
 */
static uint64_t corrected_by(const struct symbol_translator *t,
			     struct thread *th, uint64_t ts, bool stepped,
			     bool entry, bool trapped)
{
	uint64_t before = 0, after = 0, at;

	if (!t->cal.done)
		return ts;
	if (trapped)
		trap_split(t, stepped, entry, &before, &after);
	/* what the kernel's one trap took, less its split's (end_at_next()) */
	if (!trapped && th->untrapped_ns < 0 &&
	    (uint64_t)-th->untrapped_ns > th->probe_ns)
		th->probe_ns = 0;
	else if (!trapped)
		th->probe_ns += th->untrapped_ns;
	th->untrapped_ns = 0;
	th->probe_ns += before;
	at = ts > th->probe_ns ? ts - th->probe_ns : 0;
	/*
	 * A measure off by noise never runs time backwards, nor stops it:
	 * the probes' own stamps strictly increase, and so do these, so two
	 * calls never touch and no call lasts no time (a viewer takes
	 * touching calls of one name for parent and child). What was taken
	 * out too much is given back, or the error of every gap between
	 * calls adds up until it eats the calls that follow.
	 */
	if (at <= th->last_ts && th->last_ts) {
		at = th->last_ts + 1;
		th->probe_ns = ts > at ? ts - at : 0;
	}
	th->last_ts = at;
	th->probe_ns += after;
	return at;
}

static uint64_t corrected(const struct symbol_translator *t, struct thread *th,
			  uint64_t ts, bool stepped, bool entry)
{
	return corrected_by(t, th, ts, stepped, entry, true);
}

/*
 * A kernel's return seen while returns are probed: the next event
 * measures, probe stamp to probe stamp (gap_table.h).
 */
static void gap_from(struct thread *th, const struct open_call *call,
		     uint64_t at)
{
	th->gap_open = call->ends_at_next;
	th->gap_from = call->site;
	th->gap_from_at = at;
}

/* The thread's next event after a kernel's return: the gap between. */
static int gap_to(struct symbol_translator *t, struct thread *th,
		  uint32_t site, bool exit, uint64_t at)
{
	if (!th->gap_open)
		return 0;
	th->gap_open = false;
	if (at <= th->gap_from_at)
		return 0;
	th->gap_in_run = true;
	return gap_table_add(&t->gaps, th->gap_from, site, exit,
			     at - th->gap_from_at);
}

static bool site_ends_at_next(const struct symbol_translator *t, uint32_t id)
{
	return id < t->nends && t->ends_at_next[id];
}

static int learn_site(struct symbol_translator *t,
		      const struct etdump_func_site *s)
{
	bool *grown;

	if (!(s->flags & ETDUMP_FUNC_ENDS_AT_NEXT) || site_ends_at_next(t, s->id))
		return 0;
	if (s->id >= t->nends) {
		grown = realloc(t->ends_at_next, (s->id + 1) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		memset(grown + t->nends, 0,
		       (s->id + 1 - t->nends) * sizeof(*grown));
		t->ends_at_next = grown;
		t->nends = s->id + 1;
	}
	t->ends_at_next[s->id] = true;
	return 0;
}

/*
 * The operator done, as ETDumpGen's XNNPACK profiler logs it: a delegate
 * event named by string, in the delegate call's instruction, before the
 * delegate call's own end. One whose return was not seen is dropped.
 */
static int xnn_flush(struct symbol_translator *t, struct thread *th)
{
	struct xnn_op *op = &th->xnn;
	struct etdump_rec_delegate_log r;

	if (!op->open)
		return 0;
	op->open = false;
	if (!op->ended)
		return 0;
	memset(&r, 0, sizeof(r));
	translate_stamp(&r.hdr, &op->end_hdr, ETDUMP_REC_DELEGATE_LOG, sizeof(r));
	r.start = op->start;
	r.end = op->end;
	r.id_int = -1;
	r.name_len = translate_copy_name(r.name, op->name, strlen(op->name));
	return translate_emit(t, th, &r, sizeof(r));
}

/* The k of " #k": the how-many-th operator of this name in the runtime. */
static int xnn_count(struct thread *th, const char *name, uint32_t *k)
{
	struct xnn_count *grown;
	size_t i;

	for (i = 0; i < th->xnn_ncounts; i++) {
		if (!strcmp(th->xnn_counts[i].name, name)) {
			*k = ++th->xnn_counts[i].n;
			return 0;
		}
	}
	grown = realloc(th->xnn_counts, (i + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	th->xnn_counts = grown;
	snprintf(grown[i].name, sizeof(grown[i].name), "%s", name);
	grown[i].n = *k = 1;
	th->xnn_ncounts++;
	return 0;
}

static int exit_call(struct symbol_translator *t, struct thread *th,
		     const struct etdump_rec_func_exit *r, bool trapped);

/* Whether the call of `site` open on th, innermost first, is stepped. */
static bool open_stepped(const struct thread *th, uint32_t site)
{
	size_t i;

	for (i = th->depth; i-- > 0;)
		if (th->calls[i].site == site)
			return th->calls[i].stepped;
	return false;
}

/*
 * The thread's next probed event, at `next` (the entry or the return of
 * `site`), ends the kernel probed at its entry alone that is open
 * innermost. With its return probed, the return's stamp and the next
 * event's were `gap` apart (gap_table.h): the kernel's trap after its
 * entry's stamp is then about the return's after its own, so the kernel
 * lasted its entry's stamp to the next event's, less that gap. A kernel
 * that lasted less than the gap keeps the time between the stamps, and
 * is counted. The timeline after it loses its one trap, whole.
 */
static int end_at_next(struct symbol_translator *t, struct thread *th,
		       const struct etdump_rec_hdr *next, uint32_t site,
		       bool exit, bool stepped)
{
	struct etdump_rec_func_exit end;
	const struct open_call *top;
	uint64_t before, after, own_before, own_after, trap, span, lasted;
	uint64_t gap = 0, probes;
	int64_t untrapped;
	int k;

	if (!th->depth)
		return 0;
	top = &th->calls[th->depth - 1];
	if (!top->ends_at_next || (exit && site == top->site))
		return 0;
	trap_split(t, exit ? open_stepped(th, site) : stepped, !exit, &before,
		   &after);
	trap_split(t, top->stepped, true, &own_before, &own_after);
	k = top->stepped ? SYMBOL_ENTRY_STEPPED : SYMBOL_ENTRY_EMULATED;
	trap = t->cal.done && t->cal.entry_call_ns[k] ?
		       t->cal.entry_call_ns[k] : own_after + before;
	/* what the two traps' splits leave of its trap, taken at its end */
	untrapped = (int64_t)trap - (int64_t)(own_after + before);
	span = next->ts > top->entry_ts ? next->ts - top->entry_ts : 1;
	if (!gap_table_get(&t->gaps, top->site, site, exit, &gap))
		t->stats.gap_unmeasured++;
	lasted = span > gap ? span - gap : span;
	if (span <= gap)
		t->stats.gap_kept++;
	memset(&end, 0, sizeof(end));
	end.hdr = *next;
	end.hdr.type = ETDUMP_REC_FUNC_EXIT;
	end.hdr.size = sizeof(end);
	end.hdr.flags = 0;
	/* stamped so that, less the probes' time then, it is entry + lasted */
	probes = untrapped < 0 && (uint64_t)-untrapped > th->probe_ns ? 0 :
		 th->probe_ns + untrapped;
	end.hdr.ts = t->cal.done ? top->entry_at + lasted + probes :
				   top->entry_ts + lasted;
	end.id = top->site;
	th->untrapped_ns = untrapped;
	t->stats.ended_at_next++;
	t->stats.gap_taken_ns += span - lasted;
	return exit_call(t, th, &end, false);
}

/* An operator object's call, at `ts` as handed on: maybe one trap. */
static int push_xnn_call(struct thread *th,
			 const struct etdump_rec_func_entry *r, uint64_t ts)
{
	const struct etdump_func_site *s = &r->site;
	struct open_call *call;
	int err = push_call(th, s->id, false, false, false,
			    s->flags & ETDUMP_FUNC_STEPPED, true);

	if (err)
		return err;
	call = &th->calls[th->depth - 1];
	call->entry_ts = r->hdr.ts;
	call->entry_at = ts;
	call->ends_at_next = s->flags & ETDUMP_FUNC_ENDS_AT_NEXT;
	return 0;
}

/*
 * An XNNPACK operator object starts (ETDUMP_FUNC_XNN_OP). The profiler
 * makes one event of an operator's objects, named by its first, and none
 * of an operator whose first object is missing.
 */
static int on_xnn_entry(struct symbol_translator *t, struct thread *th,
			const struct etdump_rec_func_entry *r)
{
	const struct etdump_func_site *s = &r->site;
	uint32_t object = s->part & 7, index = s->part >> 3, k;
	bool stepped = s->flags & ETDUMP_FUNC_STEPPED;
	char base[XNN_BASE_MAX], name[ETDUMP_NAME_MAX];
	uint64_t ts;
	int err;

	err = end_at_next(t, th, &r->hdr, s->id, false, stepped);
	if (err)
		return err;
	if (!th->depth)
		th->probe_ns = 0;
	ts = corrected(t, th, r->hdr.ts, stepped, true);
	err = gap_to(t, th, s->id, false, r->hdr.ts);
	if (err)
		return err;
	if (object && th->xnn.open && th->xnn.index == index) {
		th->xnn.ended = false;
		return push_xnn_call(th, r, ts);
	}
	err = xnn_flush(t, th);
	if (err)
		return err;
	/* the runtime invoked again within one delegate call */
	if (!object && (int64_t)index <= th->xnn_last)
		th->xnn_ncounts = 0;
	if (!object)
		th->xnn_last = index;
	if (!object && !s->name_len && !t->stats.xnn_unnamed++)
		p_warn("an XNNPACK operator of a type this cannot name (a copy, or one XNNPACK added) ran: such operators are not written");
	if (!object && s->name_len) {
		translate_copy_name(name, s->name, s->name_len);
		snprintf(base, sizeof(base), "%s%s%.*s", name,
			 s->arg_len ? " " : "",
			 s->arg_len < ETDUMP_NAME_MAX ? s->arg_len : 0, s->arg);
		err = xnn_count(th, base, &k);
		if (err)
			return err;
		th->xnn = (struct xnn_op){ .open = true, .index = index,
					   .start = ts, .start_ts = r->hdr.ts };
		snprintf(th->xnn.name, sizeof(th->xnn.name), "%.50s #%u",
			 base, k);
	}
	return push_xnn_call(th, r, ts);
}

static int on_func_entry(struct symbol_translator *t, struct thread *th,
			 const struct etdump_rec_func_entry *r)
{
	struct etdump_rec_hdr hdr = r->hdr;
	const struct etdump_func_site *s = &r->site;
	bool instruction = s->kind == ETDUMP_FUNC_KERNEL ||
			   s->kind == ETDUMP_FUNC_DELEGATE;
	bool sets_state = false, op_call;
	char name[ETDUMP_NAME_MAX];
	int32_t chain = -1, instr = 0;
	int err;

	err = learn_site(t, s);
	if (err)
		return err;
	if (s->kind == ETDUMP_FUNC_XNN_OP)
		return on_xnn_entry(t, th, r);
	err = end_at_next(t, th, &r->hdr, s->id, false,
			  s->flags & ETDUMP_FUNC_STEPPED);
	if (err)
		return err;
	/*
	 * A kernel probed at its entry alone, on a thread in no probed call
	 * (a kernel called outside Method::execute): no next event of the
	 * thread is known to end it, so it is not written
	 * (symbol_translate.h).
	 */
	if ((s->flags & ETDUMP_FUNC_ENDS_AT_NEXT) && !th->depth) {
		if (th->before_run)
			th->before_run_kernels++;
		else
			t->stats.outside_not_written++;
		return 0;
	}
	/* the operators of a delegate call go before its own end */
	err = xnn_flush(t, th);
	if (err)
		return err;
	if (s->kind == ETDUMP_FUNC_DELEGATE) {
		th->xnn_ncounts = 0;
		th->xnn_last = -1;
	}
	if (!th->depth)
		th->probe_ns = 0;
	hdr.ts = corrected(t, th, r->hdr.ts, s->flags & ETDUMP_FUNC_STEPPED,
			   true);
	err = gap_to(t, th, s->id, false, r->hdr.ts);
	if (err)
		return err;
	translate_copy_name(name, s->name, s->name_len);
	if (s->kind == ETDUMP_FUNC_BLOCK) {
		/* a run still waiting had no event end: hand it on empty */
		err = flush_block(t, th);
		if (err)
			return err;
		th->block_pending = true;
		th->before_run = false;
		t->stats.cut_not_written += th->before_run_kernels;
		th->before_run_kernels = 0;
		th->block_hdr = hdr;
		translate_copy_name(th->run, s->arg, s->arg_len);
		th->calls_in_run = 0;
		th->next = (struct plan_pos){ 0, 0 };
	}
	/* a kernel another one calls belongs to the caller's instruction */
	op_call = instruction && !in_instruction(th);
	if (op_call)
		sets_state = assign_ids(t, th, s->kind, name, &chain, &instr);
	/*
	 * ETDumpGen's OPERATOR_CALL is Method::execute_instruction's scope
	 * around a KernelCall's kernel: the kernel's own span stands for it,
	 * without a probe of its own (symbol_translate.h).
	 */
	op_call = op_call && s->kind == ETDUMP_FUNC_KERNEL;
	err = push_call(th, s->id, instruction, sets_state, op_call,
			s->flags & ETDUMP_FUNC_STEPPED, false);
	if (!err) {
		th->calls[th->depth - 1].entry_ts = r->hdr.ts;
		th->calls[th->depth - 1].entry_at = hdr.ts;
		th->calls[th->depth - 1].block = s->kind == ETDUMP_FUNC_BLOCK;
		th->calls[th->depth - 1].ends_at_next =
			s->flags & ETDUMP_FUNC_ENDS_AT_NEXT;
	}
	if (!err && sets_state)
		err = emit_instruction(t, th, &hdr, chain, instr);
	if (!err && op_call)
		err = emit_begin(t, th, &hdr, operator_token(s->id),
				 operator_call, sizeof(operator_call) - 1);
	if (err)
		return err;
	return emit_begin(t, th, &hdr, site_token(s->id), name,
			  strlen(name));
}

static int emit_end(struct symbol_translator *t, struct thread *th,
		    const struct etdump_rec_hdr *from, uint64_t token)
{
	struct etdump_rec_end end;

	memset(&end, 0, sizeof(end));
	translate_stamp(&end.hdr, from, ETDUMP_REC_PROFILE_END, sizeof(end));
	end.token = token;
	return translate_emit(t, th, &end, sizeof(end));
}

/*
 * The probes' time measured (at attach, or since) was more than this
 * call took between its probes: taken out, it would leave the call no
 * time. It keeps the time measured, probes included, from its entry
 * (entry_at as handed on, entry_ts as stamped) to the exit stamped at
 * exit_ts, and says so.
 */
static void keep_time(struct symbol_translator *t, struct thread *th,
		      struct etdump_rec_hdr *hdr, uint64_t exit_ts,
		      uint64_t entry_at, uint64_t entry_ts)
{
	/* what the exit probe takes after its stamp stays out */
	uint64_t tail = th->probe_ns - (exit_ts - hdr->ts);

	hdr->ts = entry_at + (exit_ts - entry_ts);
	hdr->flags |= ETDUMP_REC_F_TIME_KEPT;
	th->last_ts = hdr->ts;
	th->probe_ns = (exit_ts > hdr->ts ? exit_ts - hdr->ts : 0) + tail;
	t->stats.time_kept++;
}

/*
 * trapped false: the end of a kernel probed at its entry alone, from the
 * next event's stamp (end_at_next()).
 */
static int exit_call(struct symbol_translator *t, struct thread *th,
		     const struct etdump_rec_func_exit *r, bool trapped)
{
	struct etdump_rec_hdr hdr = r->hdr;
	bool reset = false, op_call = false, stepped = false, xnn = false;
	struct open_call call = { 0 };
	bool found = false;
	size_t i;
	int err;

	if (trapped) {
		err = end_at_next(t, th, &r->hdr, r->id, true, false);
		if (err)
			return err;
	}
	/* calls above it never returned (longjmp, exceptions): forget them */
	for (i = th->depth; i-- > 0;) {
		if (th->calls[i].site == r->id) {
			call = th->calls[i];
			reset = call.sets_state;
			op_call = call.operator_call;
			stepped = call.stepped;
			xnn = call.xnn;
			th->depth = i;
			found = true;
			break;
		}
	}
	/* a kernel not written (outside a probed call) returned */
	if (!found && site_ends_at_next(t, r->id))
		return 0;
	hdr.ts = corrected_by(t, th, r->hdr.ts, stepped, false, trapped);
	err = trapped ? gap_to(t, th, r->id, true, r->hdr.ts) : 0;
	if (err)
		return err;
	if (trapped && found)
		gap_from(th, &call, r->hdr.ts);
	if (found && call.block && th->gap_in_run) {
		th->gap_in_run = false;
		t->gap_runs++;
	}
	/* a call the probes' time measured would leave no time */
	if (call.entry_ts && !call.has_child && !xnn &&
	    hdr.ts <= call.entry_at + 1 && r->hdr.ts > call.entry_ts &&
	    r->hdr.ts >= hdr.ts)
		keep_time(t, th, &hdr, r->hdr.ts, call.entry_at, call.entry_ts);
	/* an operator alike, from its first object's entry to its last's exit */
	if (xnn && th->xnn.open && th->xnn.start_ts &&
	    hdr.ts <= th->xnn.start + 1 && r->hdr.ts > th->xnn.start_ts &&
	    r->hdr.ts >= hdr.ts)
		keep_time(t, th, &hdr, r->hdr.ts, th->xnn.start,
			  th->xnn.start_ts);
	if (xnn) {
		th->xnn.end = hdr.ts;
		th->xnn.end_hdr = hdr;
		th->xnn.ended = true;
		return 0;
	}
	err = xnn_flush(t, th);
	if (err)
		return err;
	err = flush_block(t, th);
	if (err)
		return err;
	if (!th->depth)
		th->probe_ns = 0;
	err = emit_end(t, th, &hdr, site_token(r->id));
	if (!err && op_call)
		err = emit_end(t, th, &hdr, operator_token(r->id));
	if (err || !reset)
		return err;
	return emit_instruction(t, th, &hdr, -1, 0);
}

int symbol_translator_feed(void *translator, const void *rec, size_t len)
{
	struct symbol_translator *t = translator;
	const struct etdump_rec_hdr *h = rec;
	struct thread *th;
	size_t need;

	if (len >= ETDUMP_REC_PROBE_TIME_V1 &&
	    h->type == ETDUMP_REC_PROBE_TIME &&
	    h->size >= ETDUMP_REC_PROBE_TIME_V1) {
		symbol_calibration_from_record(&t->cal, rec, len);
		return 0;
	}
	if (len >= sizeof(*h) && h->size <= len &&
	    ((h->type == ETDUMP_REC_VALUE &&
	      h->size == sizeof(struct etdump_rec_value)) ||
	     (h->type == ETDUMP_REC_VALUE_DATA &&
	      h->size > offsetof(struct etdump_rec_value_data, data)))) {
		return translate_value(t, rec, h->size);
	}
	if (len >= sizeof(struct etdump_rec_func_alloc) &&
	    h->type == ETDUMP_REC_FUNC_ALLOC &&
	    h->size >= sizeof(struct etdump_rec_func_alloc) && h->size <= len) {
		th = thread_of(t, h->tid);
		return th ? translate_alloc(t, th, rec) : -ENOMEM;
	}
	if (len < sizeof(*h) || (h->type != ETDUMP_REC_FUNC_ENTRY &&
				 h->type != ETDUMP_REC_FUNC_EXIT))
		return t->sink(t->sink_ctx, rec, len);
	need = h->type == ETDUMP_REC_FUNC_ENTRY ?
		       sizeof(struct etdump_rec_func_entry) :
		       sizeof(struct etdump_rec_func_exit);
	/* malformed: the collector counts what it cannot read */
	if (len < need || h->size < need || h->size > len)
		return t->sink(t->sink_ctx, rec, len);
	th = thread_of(t, h->tid);
	if (!th)
		return -ENOMEM;
	if (h->type == ETDUMP_REC_FUNC_ENTRY)
		return on_func_entry(t, th, rec);
	return exit_call(t, th, rec, true);
}

int symbol_translator_to_collector(void *col, const void *rec, size_t len)
{
	int err = collector_feed(col, rec, len);

	return err == -EINVAL ? 0 : err;
}

bool symbol_translator_probe_time(const struct symbol_translator *t,
				  struct symbol_calibration *c)
{
	*c = t->cal;
	return c->done;
}

void symbol_translator_stats(const struct symbol_translator *t,
			     struct symbol_translator_stats *st)
{
	size_t i;

	*st = t->stats;
	for (i = 0; i < t->nthreads; i++)
		st->outside_not_written += t->threads[i]->before_run_kernels;
	st->gap_runs = t->gap_runs;
	st->gap_samples = t->gaps.samples;
}

void symbol_translator_say_gaps(const struct symbol_translator *t)
{
	const struct gap_pair *p;
	size_t i;

	for (i = 0; i < t->gaps.npairs; i++) {
		p = &t->gaps.pairs[i];
		p_debug("symbol mode: gap after site %u to site %u's %s: %llu ns (lower quartile of %u)",
			p->from, p->to, p->to_exit ? "return" : "entry",
			(unsigned long long)p->low, p->n);
	}
}

bool symbol_translator_gap_range(const struct symbol_translator *t,
				 uint64_t *least, uint64_t *median,
				 uint64_t *most)
{
	return gap_table_range(&t->gaps, least, median, most);
}

/* Every thread's calls, runs and operators forgotten. */
static void threads_free(struct symbol_translator *t)
{
	size_t i;

	for (i = 0; i < t->nthreads; i++) {
		/* no run came: they ran outside any */
		t->stats.outside_not_written += t->threads[i]->before_run_kernels;
		free(t->threads[i]->calls);
		free(t->threads[i]->xnn_counts);
		free(t->threads[i]->held);
		free(t->threads[i]);
	}
	free(t->threads);
	t->threads = NULL;
	t->nthreads = 0;
}

void symbol_translator_gap(struct symbol_translator *t)
{
	threads_free(t);
	/* each thread's first records after it may be of a run it cut */
	t->mid_run = true;
}

void symbol_translator_attached_mid_run(struct symbol_translator *t)
{
	t->mid_run = true;
}

void symbol_translator_free(struct symbol_translator *t)
{
	if (!t)
		return;
	threads_free(t);
	free(t->allocators);
	gap_table_free(&t->gaps);
	free(t->ends_at_next);
	free(t);
}

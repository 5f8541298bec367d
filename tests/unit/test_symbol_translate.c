// SPDX-License-Identifier: BSD-3-Clause
/*
 * Symbol mode's translator, fed synthetic FUNC_ENTRY/FUNC_EXIT records and
 * read through the real collector: the runs and events ETDumpGen would
 * write, ids from a program's plan (linear.pte from tests/fixtures, or
 * $ETDUMP_FIXTURES, and synthetic plans) or in call order, said so.
 */
#include <errno.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collect/collector.h"
#include "schema/etdump_record.h"
#include "symbol/pte_reader.h"
#include "report/report_note.h"
#include "symbol/symbol_calibrate.h"
#include "symbol/symbol_translate.h"
#include "model/run_note.h"
#include "testlib.h"
#include "collect/value_capture.h"

enum site_id { S_LOAD, S_INIT, S_EXEC, S_MUL, S_ADD, S_DELEGATE, S_SUB, S_XNN };

static const struct {
	uint8_t kind;
	const char *name, *arg;
} sites[] = {
	[S_LOAD] = { ETDUMP_FUNC_BLOCK, "Program::load_method", "Default" },
	[S_INIT] = { ETDUMP_FUNC_EVENT, "Method::init", "" },
	[S_EXEC] = { ETDUMP_FUNC_BLOCK, "Method::execute", "Execute" },
	[S_MUL] = { ETDUMP_FUNC_KERNEL, "native_call_mul.out", "" },
	[S_ADD] = { ETDUMP_FUNC_KERNEL, "native_call_add.out", "" },
	[S_DELEGATE] = { ETDUMP_FUNC_DELEGATE, "DELEGATE_CALL", "" },
	[S_SUB] = { ETDUMP_FUNC_KERNEL, "native_call_sub.out", "" },
	[S_XNN] = { ETDUMP_FUNC_XNN_OP, "Add (ND)", "" },
};

struct rig {
	struct collector *col;
	struct symbol_translator *tr;
	struct etd_dump dump;
	struct collector_stats st;
	uint64_t ts;
};

static void rig_open(struct rig *r, const struct pte_plan *plan)
{
	memset(r, 0, sizeof(*r));
	r->ts = 1000;
	r->col = collector_new();
	CHECK(r->col != NULL);
	CHECK_EQ_INT(symbol_translator_new(&r->tr, plan,
					   symbol_translator_to_collector,
					   r->col), 0);
}

static void stamp(struct rig *r, struct etdump_rec_hdr *h, uint8_t type,
		  size_t size, uint32_t tid)
{
	h->type = type;
	h->size = size;
	h->pid = 7;
	h->tid = tid;
	h->ts = r->ts;
	r->ts += 100;
}

static void enter_flagged(struct rig *r, uint32_t tid, enum site_id id,
			  uint8_t flags)
{
	struct etdump_rec_func_entry e;

	memset(&e, 0, sizeof(e));
	stamp(r, &e.hdr, ETDUMP_REC_FUNC_ENTRY, sizeof(e), tid);
	e.site.id = id;
	e.site.kind = sites[id].kind;
	e.site.flags = flags;
	e.site.name_len = strlen(sites[id].name);
	memcpy(e.site.name, sites[id].name, e.site.name_len);
	e.site.arg_len = strlen(sites[id].arg);
	memcpy(e.site.arg, sites[id].arg, e.site.arg_len);
	CHECK_EQ_INT(symbol_translator_feed(r->tr, &e, sizeof(e)), 0);
}

static void enter(struct rig *r, uint32_t tid, enum site_id id)
{
	enter_flagged(r, tid, id, 0);
}

/* A kernel probed at its entry alone: the thread's next event ends it. */
static void enter_one_trap(struct rig *r, uint32_t tid, enum site_id id)
{
	enter_flagged(r, tid, id, ETDUMP_FUNC_ENDS_AT_NEXT);
}

static void leave(struct rig *r, uint32_t tid, enum site_id id)
{
	struct etdump_rec_func_exit x;

	memset(&x, 0, sizeof(x));
	stamp(r, &x.hdr, ETDUMP_REC_FUNC_EXIT, sizeof(x), tid);
	x.id = id;
	CHECK_EQ_INT(symbol_translator_feed(r->tr, &x, sizeof(x)), 0);
}

static void call(struct rig *r, uint32_t tid, enum site_id id)
{
	enter(r, tid, id);
	leave(r, tid, id);
}

static void load(struct rig *r, uint32_t tid)
{
	enter(r, tid, S_LOAD);
	call(r, tid, S_INIT);
	leave(r, tid, S_LOAD);
}

static void execute(struct rig *r, uint32_t tid, const enum site_id *calls,
		    size_t n)
{
	size_t i;

	enter(r, tid, S_EXEC);
	for (i = 0; i < n; i++)
		call(r, tid, calls[i]);
	leave(r, tid, S_EXEC);
}

static void rig_finish(struct rig *r)
{
	CHECK_EQ_INT(collector_finish(r->col, &r->dump, &r->st), 0);
}

static void rig_close(struct rig *r)
{
	symbol_translator_free(r->tr);
	collector_free(r->col);
	etd_dump_free(&r->dump);
}

static bool is_operator_call(const struct etd_event *ev)
{
	return ev->name && !strcmp(ev->name, "OPERATOR_CALL");
}

/* The i-th event, OPERATOR_CALLs not counted (operator_calls checks them). */
static const struct etd_event *nth_event(const struct etd_run *run, size_t i)
{
	size_t at;

	for (at = 0; at < run->nevents; at++)
		if (!is_operator_call(&run->events[at]) && !i--)
			return &run->events[at];
	return NULL;
}

static void check_event(const struct etd_run *run, size_t i, const char *name,
			int chain, int instr)
{
	const struct etd_event *ev = nth_event(run, i);

	CHECK(ev != NULL);
	if (!ev)
		return;
	CHECK_EQ_STR(ev->name, name);
	CHECK_EQ_INT(ev->chain_index, chain);
	CHECK_EQ_INT(ev->instruction_id, instr);
	CHECK(ev->start_time < ev->end_time);
}

static void check_default(const struct etd_run *run)
{
	CHECK_EQ_STR(run->name, "Default");
	CHECK_EQ_INT(run->nevents, 2);
	check_event(run, 0, "Method::init", -1, 0);
	check_event(run, 1, "Program::load_method", -1, 0);
}

TEST(call_order_ids_and_marked_runs)
{
	static const enum site_id calls[] = { S_MUL, S_ADD, S_DELEGATE };
	struct rig r;
	size_t i;

	rig_open(&r, NULL);
	load(&r, 1);
	execute(&r, 1, calls, 3);
	execute(&r, 1, calls, 3);
	rig_finish(&r);
	CHECK_EQ_INT(r.dump.nruns, 3);
	if (r.dump.nruns == 3)
		check_default(&r.dump.runs[0]);
	for (i = 1; i < r.dump.nruns; i++) {
		const struct etd_run *run = &r.dump.runs[i];

		/* ETDumpGen's name: record says the ids follow call order */
		CHECK_EQ_STR(run->name, "Execute");
		/* an OPERATOR_CALL per kernel */
		CHECK_EQ_INT(run->nevents, 6);
		check_event(run, 0, "native_call_mul.out", 0, 0);
		check_event(run, 1, "native_call_add.out", 0, 1);
		check_event(run, 2, "DELEGATE_CALL", 0, 2);
		check_event(run, 3, "Method::execute", -1, 0);
	}
	CHECK_EQ_INT(r.st.incomplete_runs, 0);
	rig_close(&r);
}

/* Stats as expected, then everything freed. */
static void close_plan_test(struct rig *r, struct pte_plan *plan,
			    uint64_t matched, uint64_t unmatched)
{
	struct symbol_translator_stats st;

	symbol_translator_stats(r->tr, &st);
	CHECK_EQ_INT(st.plan_matched, matched);
	CHECK_EQ_INT(st.plan_unmatched, unmatched);
	rig_close(r);
	pte_plan_free(plan);
}

static void read_linear(struct pte_plan *p)
{
	const char *dir = getenv("ETDUMP_FIXTURES");
	char path[4096], err[256] = "";

	snprintf(path, sizeof(path), "%s/linear.pte",
		 dir ? dir : "tests/fixtures");
	CHECK_EQ_INT(pte_read_plan_file(path, NULL, p, err, sizeof(err)), 0);
}

TEST(plan_ids_from_linear_pte)
{
	static const enum site_id calls[] = { S_MUL, S_ADD };
	struct pte_plan plan;
	struct rig r;

	read_linear(&plan);
	rig_open(&r, &plan);
	load(&r, 1);
	execute(&r, 1, calls, 2);
	rig_finish(&r);
	CHECK_EQ_INT(r.dump.nruns, 2);
	if (r.dump.nruns == 2) {
		check_default(&r.dump.runs[0]);
		CHECK_EQ_STR(r.dump.runs[1].name, "Execute");
		check_event(&r.dump.runs[1], 0, "native_call_mul.out", 0, 0);
		check_event(&r.dump.runs[1], 1, "native_call_add.out", 0, 1);
		check_event(&r.dump.runs[1], 2, "Method::execute", -1, 0);
	}
	close_plan_test(&r, &plan, 2, 0);
}

/* A run that skips the plan's mul (not traced) still finds add at 1. */
TEST(plan_skips_unobserved_and_wraps_for_loops)
{
	static const enum site_id skip[] = { S_ADD };
	static const enum site_id loop[] = { S_MUL, S_ADD, S_MUL, S_ADD };
	struct pte_plan plan;
	struct rig r;

	read_linear(&plan);
	rig_open(&r, &plan);
	execute(&r, 1, skip, 1);
	execute(&r, 1, loop, 4);
	rig_finish(&r);
	CHECK_EQ_INT(r.dump.nruns, 2);
	if (r.dump.nruns == 2) {
		check_event(&r.dump.runs[0], 0, "native_call_add.out", 0, 1);
		check_event(&r.dump.runs[1], 0, "native_call_mul.out", 0, 0);
		check_event(&r.dump.runs[1], 1, "native_call_add.out", 0, 1);
		check_event(&r.dump.runs[1], 2, "native_call_mul.out", 0, 0);
		check_event(&r.dump.runs[1], 3, "native_call_add.out", 0, 1);
		CHECK_EQ_STR(r.dump.runs[1].name, "Execute");
	}
	close_plan_test(&r, &plan, 5, 0);
}

TEST(plan_mismatch_keeps_the_state)
{
	static const enum site_id calls[] = { S_MUL, S_SUB };
	struct pte_plan plan;
	struct rig r;

	read_linear(&plan);
	rig_open(&r, &plan);
	execute(&r, 1, calls, 2);
	rig_finish(&r);
	CHECK_EQ_INT(r.dump.nruns, 1);
	/* ids from the plan, or none: never a guess */
	if (r.dump.nruns == 1) {
		CHECK_EQ_STR(r.dump.runs[0].name, "Execute");
		check_event(&r.dump.runs[0], 0, "native_call_mul.out", 0, 0);
		check_event(&r.dump.runs[0], 1, "native_call_sub.out", -1, 0);
	}
	close_plan_test(&r, &plan, 1, 1);
}

/*
 * Chain 0: kernel(add), delegate, kernel(_softmax.out) named as the plan
 * does, not as the symbol spelled it; chain 1: kernel(add).
 */
TEST(plan_names_delegates_and_chains)
{
	static struct pte_operator ops[] = { { "aten::add", "Scalar_out" },
					     { "aten::_softmax", "out" } };
	static struct pte_instruction c0[] = {
		{ PTE_INSTR_KERNEL_CALL, 0 }, { PTE_INSTR_MOVE_CALL, -1 },
		{ PTE_INSTR_DELEGATE_CALL, -1 }, { PTE_INSTR_KERNEL_CALL, 1 },
	};
	static struct pte_instruction c1[] = { { PTE_INSTR_KERNEL_CALL, 0 } };
	static struct pte_chain chains[] = { { c0, 4 }, { c1, 1 } };
	static const struct pte_plan plan = { "forward", chains, 2, ops, 2 };
	static const char *const names[] = { "native_call_add_scalar.out",
					     "native_call_softmax.out" };
	struct etdump_rec_func_entry e;
	struct rig r;
	int i;

	rig_open(&r, &plan);
	enter(&r, 3, S_EXEC);
	for (i = 0; i < 4; i++) {
		const char *name = names[i == 2 ? 1 : 0];

		if (i == 1) {
			call(&r, 3, S_DELEGATE);
			continue;
		}
		/* a kernel site whose event name the rule spelled its way */
		memset(&e, 0, sizeof(e));
		stamp(&r, &e.hdr, ETDUMP_REC_FUNC_ENTRY, sizeof(e), 3);
		e.site.id = 10 + i;
		e.site.kind = ETDUMP_FUNC_KERNEL;
		e.site.name_len = strlen(name);
		memcpy(e.site.name, name, e.site.name_len);
		CHECK_EQ_INT(symbol_translator_feed(r.tr, &e, sizeof(e)), 0);
		leave(&r, 3, 10 + i);
	}
	leave(&r, 3, S_EXEC);
	rig_finish(&r);
	CHECK_EQ_INT(r.dump.nruns, 1);
	if (r.dump.nruns == 1) {
		CHECK_EQ_STR(r.dump.runs[0].name, "Execute");
		check_event(&r.dump.runs[0], 0, "native_call_add.Scalar_out", 0, 0);
		check_event(&r.dump.runs[0], 1, "DELEGATE_CALL", 0, 2);
		check_event(&r.dump.runs[0], 2, "native_call__softmax.out", 0, 3);
		check_event(&r.dump.runs[0], 3, "native_call_add.Scalar_out", 1, 0);
		check_event(&r.dump.runs[0], 4, "Method::execute", -1, 0);
	}
	rig_close(&r);
}

/* add's kernel calls mul's: both are instruction 0's, in either mode. */
TEST(nested_kernel_belongs_to_the_outer_instruction)
{
	static const struct {
		bool in;
		enum site_id site;
	} steps[] = {
		{ true, S_EXEC }, { true, S_ADD }, { true, S_MUL },
		{ false, S_MUL }, { false, S_ADD }, { true, S_SUB },
		{ false, S_SUB }, { false, S_EXEC },
	};
	struct pte_plan plan;
	struct rig r;
	int with_plan;
	size_t i;

	read_linear(&plan);
	for (with_plan = 0; with_plan < 2; with_plan++) {
		rig_open(&r, with_plan ? &plan : NULL);
		for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
			(steps[i].in ? enter : leave)(&r, 1, steps[i].site);
		rig_finish(&r);
		CHECK_EQ_INT(r.dump.nruns, 1);
		if (r.dump.nruns == 1) {
			const struct etd_run *run = &r.dump.runs[0];
			int add = with_plan ? 1 : 0;

			check_event(run, 0, "native_call_mul.out", 0, add);
			check_event(run, 1, "native_call_add.out", 0, add);
			/* the plan has no sub: no id rather than a guess */
			check_event(run, 2, "native_call_sub.out",
				    with_plan ? -1 : 0, with_plan ? 0 : 1);
		}
		rig_close(&r);
	}
	pte_plan_free(&plan);
}

/*
 * As ETDumpGen writes them: each kernel's event, then its instruction's
 * OPERATOR_CALL with the same ids and span; none for a delegate call, none
 * for a kernel another one calls.
 */
TEST(operator_calls)
{
	static const struct {
		bool in;
		enum site_id site;
	} steps[] = {
		{ true, S_EXEC }, { true, S_MUL }, { false, S_MUL },
		{ true, S_DELEGATE }, { false, S_DELEGATE },
		{ true, S_ADD }, { true, S_SUB }, { false, S_SUB },
		{ false, S_ADD }, { false, S_EXEC },
	};
	static const struct {
		const char *name;
		int instr;
	} want[] = {
		{ "native_call_mul.out", 0 }, { "OPERATOR_CALL", 0 },
		{ "DELEGATE_CALL", 1 }, { "native_call_sub.out", 2 },
		{ "native_call_add.out", 2 }, { "OPERATOR_CALL", 2 },
		{ "Method::execute", 0 },
	};
	const struct etd_event *ev;
	struct rig r;
	size_t i;

	rig_open(&r, NULL);
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		(steps[i].in ? enter : leave)(&r, 1, steps[i].site);
	rig_finish(&r);
	CHECK_EQ_INT(r.dump.nruns, 1);
	if (r.dump.nruns != 1) {
		rig_close(&r);
		return;
	}
	CHECK_EQ_INT(r.dump.runs[0].nevents, 7);
	for (i = 0; i < r.dump.runs[0].nevents && i < 7; i++) {
		ev = &r.dump.runs[0].events[i];
		CHECK_EQ_STR(ev->name, want[i].name);
		CHECK_EQ_INT(ev->instruction_id, want[i].instr);
		CHECK_EQ_INT(ev->chain_index, i == 6 ? -1 : 0);
		if (is_operator_call(ev)) {
			CHECK_EQ_INT(ev->start_time, ev[-1].start_time);
			CHECK_EQ_INT(ev->end_time, ev[-1].end_time);
		}
	}
	rig_close(&r);
}

static uint64_t duration(const struct etd_event *ev)
{
	return ev ? ev->end_time - ev->start_time : 0;
}

/*
 * The probes' measured time (a PROBE_TIME record first, as record sends
 * it): each scope loses what its own probes add (30 ns, single-stepped
 * 300 ns) and the whole cost of each probed call inside it (50 ns).
 * Every record here is 100 ns after the one before.
 */
/* The probes' time as record hands it on once attached. */
static void feed_calibration(struct rig *r,
			     const struct symbol_calibration *cal)
{
	struct etdump_rec_probe_time pt;
	struct etdump_rec_hdr like;

	memset(&like, 0, sizeof(like));
	like.pid = 7;
	like.tid = 1;
	symbol_calibration_record(cal, &like, &pt);
	CHECK_EQ_INT(symbol_translator_feed(r->tr, &pt, sizeof(pt)), 0);
}

TEST(probe_time_taken_out)
{
	static const enum site_id calls[] = { S_MUL, S_ADD };
	struct symbol_calibration cal = {
		.done = true, .scope_ns = { 30, 300 }, .call_ns = { 50, 400 },
	}, said;
	const struct etd_run *run;
	struct rig r;

	rig_open(&r, NULL);
	feed_calibration(&r, &cal);
	/* as record says it once attached, without --program */
	CHECK_EQ_INT(symbol_calibration_note(&cal, true, r.col), 0);
	execute(&r, 1, calls, 2);
	rig_finish(&r);
	CHECK(symbol_translator_probe_time(r.tr, &said));
	CHECK_EQ_INT(said.scope_ns[1], 300);
	CHECK_EQ_INT(r.dump.nruns, 1);
	if (r.dump.nruns != 1) {
		rig_close(&r);
		return;
	}
	run = &r.dump.runs[0];
	CHECK_EQ_INT(duration(nth_event(run, 0)), 100 - 30);
	CHECK_EQ_INT(duration(nth_event(run, 1)), 100 - 30);
	CHECK_EQ_INT(duration(nth_event(run, 2)), 500 - 30 - 2 * 50);
	/* nested scopes stay nested */
	CHECK(nth_event(run, 1)->end_time <= nth_event(run, 2)->end_time);
	CHECK(nth_event(run, 2)->has_metadata);
	CHECK(!memcmp(nth_event(run, 2)->metadata, SYMBOL_CALIBRATION_MAGIC,
		      strlen(SYMBOL_CALIBRATION_MAGIC)));
	CHECK(!nth_event(run, 0)->has_metadata);
	/* the ids are said to follow call order, and report reads it */
	CHECK(nth_event(run, 2)->metadata_len > strlen(SYMBOL_NOTE_CALL_ORDER) &&
	      !memcmp(nth_event(run, 2)->metadata +
			      nth_event(run, 2)->metadata_len -
			      strlen(SYMBOL_NOTE_CALL_ORDER),
		      SYMBOL_NOTE_CALL_ORDER, strlen(SYMBOL_NOTE_CALL_ORDER)));
	CHECK(report_note_call_order(&r.dump));
	rig_close(&r);
}

/*
 * A call's whole cost measured too high (noise at attach): the gaps
 * between calls cannot give it, and what is taken out too much is given
 * back rather than shortening the calls after, which keep their own
 * durations less their scope's share.
 */
TEST(probe_time_too_high_does_not_pile_up)
{
	static const enum site_id calls[] = { S_MUL, S_ADD, S_MUL, S_ADD,
					      S_MUL, S_ADD };
	struct symbol_calibration cal = {
		.done = true, .scope_ns = { 30, 300 }, .call_ns = { 400, 900 },
	};
	struct rig r;
	size_t i;

	rig_open(&r, NULL);
	feed_calibration(&r, &cal);
	execute(&r, 1, calls, 6);
	rig_finish(&r);
	CHECK_EQ_INT(r.dump.nruns, 1);
	for (i = 0; r.dump.nruns == 1 && i < 6; i++) {
		CHECK_EQ_INT(duration(nth_event(&r.dump.runs[0], i)), 100 - 30);
		/* and the execution still holds them all */
		CHECK(nth_event(&r.dump.runs[0], i)->end_time <
		      nth_event(&r.dump.runs[0], 6)->end_time);
	}
	rig_close(&r);
}

/*
 * A scope measured above what a call took between its probes (a figure
 * from a slower moment): the call keeps its measured time, says so in its
 * metadata, and the calls after it lose only their own scope's share.
 */
TEST(a_call_shorter_than_the_probes_time_keeps_its_own)
{
	static const enum site_id calls[] = { S_MUL, S_ADD };
	struct symbol_calibration cal = {
		.done = true, .scope_ns = { 150, 300 }, .call_ns = { 150, 400 },
	};
	const struct etd_event *mul, *add;
	struct symbol_translator_stats st;
	struct rig r;

	rig_open(&r, NULL);
	feed_calibration(&r, &cal);
	execute(&r, 1, calls, 1);
	/* the next execution's mul takes 200 ns between its probes */
	enter(&r, 1, S_EXEC);
	enter(&r, 1, S_MUL);
	r.ts += 100;
	leave(&r, 1, S_MUL);
	call(&r, 1, S_ADD);
	leave(&r, 1, S_EXEC);
	rig_finish(&r);
	symbol_translator_stats(r.tr, &st);
	/* the first execution's mul and the second's add */
	CHECK_EQ_INT(st.time_kept, 2);
	CHECK_EQ_INT(r.dump.nruns, 2);
	if (r.dump.nruns != 2) {
		rig_close(&r);
		return;
	}
	mul = nth_event(&r.dump.runs[0], 0);
	CHECK_EQ_INT(duration(mul), 100);
	CHECK(mul->has_metadata && mul->metadata_len ==
	      strlen(RUN_NOTE_TIME_KEPT) &&
	      !memcmp(mul->metadata, RUN_NOTE_TIME_KEPT, mul->metadata_len));
	mul = nth_event(&r.dump.runs[1], 0);
	add = nth_event(&r.dump.runs[1], 1);
	CHECK_EQ_INT(duration(mul), 200 - 150);
	CHECK(!mul->has_metadata);
	CHECK_EQ_INT(duration(add), 100);
	CHECK(add->has_metadata);
	CHECK(add->start_time > mul->end_time);
	CHECK(add->end_time < nth_event(&r.dump.runs[1], 2)->end_time);
	rig_close(&r);
}

/*
 * An XNNPACK operator (its entry and exit probed where the runtime calls
 * it) shorter than the probes' time measured keeps its measured time, as
 * a kernel does, rather than lasting 1 ns; one longer loses its scope's
 * share.
 */
TEST(an_xnnpack_operator_shorter_than_the_probes_time_keeps_its_own)
{
	struct symbol_calibration cal = {
		.done = true, .scope_ns = { 150, 300 }, .call_ns = { 150, 400 },
	};
	const struct etd_event *op;
	struct rig r;
	int i;

	rig_open(&r, NULL);
	feed_calibration(&r, &cal);
	for (i = 0; i < 2; i++) {
		enter(&r, 1, S_EXEC);
		enter(&r, 1, S_DELEGATE);
		enter(&r, 1, S_XNN);
		/* 100 ns between its probes, then 300 */
		r.ts += 200 * i;
		leave(&r, 1, S_XNN);
		leave(&r, 1, S_DELEGATE);
		leave(&r, 1, S_EXEC);
	}
	rig_finish(&r);
	CHECK_EQ_INT(r.dump.nruns, 2);
	if (r.dump.nruns != 2) {
		rig_close(&r);
		return;
	}
	op = nth_event(&r.dump.runs[0], 0);
	CHECK(op->delegate_id_str &&
	      !strcmp(op->delegate_id_str, "Add (ND) #1"));
	CHECK_EQ_INT(duration(op), 100);
	op = nth_event(&r.dump.runs[1], 0);
	CHECK_EQ_INT(duration(op), 300 - 150);
	rig_close(&r);
}

/* Without a PROBE_TIME record the times are the probes'. */
TEST(no_probe_time_no_change)
{
	static const enum site_id calls[] = { S_MUL };
	struct symbol_calibration said;
	struct rig r;

	rig_open(&r, NULL);
	CHECK(!symbol_translator_probe_time(r.tr, &said));
	CHECK_EQ_INT(symbol_calibration_note(&said, false, r.col), 0);
	execute(&r, 1, calls, 1);
	rig_finish(&r);
	if (r.dump.nruns == 1) {
		CHECK_EQ_INT(duration(nth_event(&r.dump.runs[0], 0)), 100);
		CHECK(!nth_event(&r.dump.runs[0], 1)->has_metadata);
	}
	CHECK(!report_note_call_order(&r.dump));
	rig_close(&r);
}

TEST(threads_keep_their_own_runs)
{
	static const enum site_id calls[] = { S_MUL, S_ADD };
	struct rig r;
	size_t i;

	rig_open(&r, NULL);
	load(&r, 1);
	/* interleaved record by record */
	enter(&r, 1, S_EXEC);
	enter(&r, 2, S_EXEC);
	for (i = 0; i < 2; i++) {
		enter(&r, 2, calls[i]);
		enter(&r, 1, calls[i]);
		leave(&r, 1, calls[i]);
		leave(&r, 2, calls[i]);
	}
	leave(&r, 2, S_EXEC);
	leave(&r, 1, S_EXEC);
	rig_finish(&r);
	CHECK_EQ_INT(r.dump.nruns, 3);
	for (i = 1; i < r.dump.nruns; i++) {
		CHECK_EQ_INT(r.dump.runs[i].tid, i);
		check_event(&r.dump.runs[i], 0, "native_call_mul.out", 0, 0);
		check_event(&r.dump.runs[i], 1, "native_call_add.out", 0, 1);
		check_event(&r.dump.runs[i], 2, "Method::execute", -1, 0);
	}
	rig_close(&r);
}

/*
 * Stopped mid-run: the run whose scopes never ended is left out, the one
 * before stays whole; an exit whose entry came before the attach is the
 * collector's to count.
 */
TEST(incomplete_capture)
{
	static const enum site_id calls[] = { S_MUL };
	struct rig r;

	rig_open(&r, NULL);
	leave(&r, 1, S_ADD);
	execute(&r, 1, calls, 1);
	enter(&r, 1, S_EXEC);
	enter(&r, 1, S_MUL);
	rig_finish(&r);
	CHECK_EQ_INT(r.dump.nruns, 1);
	if (r.dump.nruns == 1)
		check_event(&r.dump.runs[0], 0, "native_call_mul.out", 0, 0);
	CHECK_EQ_INT(r.st.unmatched_ends, 1);
	rig_close(&r);
}

/*
 * record --values: a kernel's out tensor, read at its uretprobe, comes
 * before the kernel's exit, its chain and instruction unknown to the
 * probe: it takes the call's, and waits with the run's BLOCK (the first
 * kernel's value arrives before any scope of its run has ended).
 */
static void value_only(struct rig *r, uint32_t tid, float x)
{
	struct etdump_rec_value_data d;
	struct etdump_rec_value v;

	memset(&d, 0, sizeof(d));
	stamp(r, &d.hdr, ETDUMP_REC_VALUE_DATA,
	      offsetof(struct etdump_rec_value_data, data) + sizeof(x), tid);
	d.len = sizeof(x);
	memcpy(d.data, &x, sizeof(x));
	CHECK_EQ_INT(symbol_translator_feed(r->tr, &d, d.hdr.size), 0);
	memset(&v, 0, sizeof(v));
	stamp(r, &v.hdr, ETDUMP_REC_VALUE, sizeof(v), tid);
	v.chain = -1;   /* as the uretprobe sends it */
	v.rec_flags = ETDUMP_VREC_AT_RETURN;
	v.copied = sizeof(x);
	v.desc.type = 5; /* ETDUMP_VALUE_TENSOR */
	v.desc.scalar_type = 6; /* FLOAT */
	v.desc.dim = 1;
	v.desc.sizes[0] = 1;
	v.desc.strides[0] = 1;
	v.desc.nbytes = sizeof(x);
	v.desc.delegate_id_int = -1;
	CHECK_EQ_INT(symbol_translator_feed(r->tr, &v, sizeof(v)), 0);
}

static void kernel_with_value(struct rig *r, uint32_t tid, enum site_id id,
			      float x)
{
	enter(r, tid, id);
	value_only(r, tid, x);
	leave(r, tid, id);
}

TEST(kernel_values_take_their_calls_ids)
{
	const struct etd_event *ev;
	const struct etd_run *run;
	const uint8_t *buf;
	size_t len = 0;
	float got[2];
	struct rig r;

	rig_open(&r, NULL);
	load(&r, 1);
	enter(&r, 1, S_EXEC);
	kernel_with_value(&r, 1, S_MUL, 3.0f);
	/* add's value only: the sub it calls is no instruction of its own */
	enter(&r, 1, S_ADD);
	kernel_with_value(&r, 1, S_SUB, 7.0f);
	value_only(&r, 1, 5.0f);
	leave(&r, 1, S_ADD);
	leave(&r, 1, S_EXEC);
	rig_finish(&r);
	CHECK_EQ_INT(r.dump.nruns, 2);
	if (r.dump.nruns != 2)
		goto out;
	run = &r.dump.runs[1];
	CHECK_EQ_STR(run->name, "Execute");
	/*
	 * value, kernel, OPERATOR_CALL per call (the nested sub's scope
	 * ends first, without a value), then Method::execute
	 */
	CHECK_EQ_INT(run->nevents, 8);
	if (run->nevents != 8)
		goto out;
	ev = &run->events[0];
	CHECK_EQ_INT(ev->kind, ETD_DEBUG);
	CHECK_EQ_INT(ev->debug_chain_index, 0);
	CHECK_EQ_INT(ev->instruction_id, 0);
	CHECK_EQ_STR(run->events[1].name, "native_call_mul.out");
	CHECK_EQ_STR(run->events[3].name, "native_call_sub.out");
	ev = &run->events[4];
	CHECK_EQ_INT(ev->kind, ETD_DEBUG);
	CHECK_EQ_INT(ev->debug_chain_index, 0);
	CHECK_EQ_INT(ev->instruction_id, 1);
	CHECK_EQ_STR(run->events[5].name, "native_call_add.out");
	buf = value_capture_buffer(collector_values(r.col), &len);
	/* two values: the nested one's bytes are not there either */
	CHECK(buf != NULL && len == 64 + sizeof(float));
	if (buf && len >= 64 + sizeof(float)) {
		memcpy(&got[0], buf, sizeof(float));
		memcpy(&got[1], buf + 64, sizeof(float));
		CHECK(got[0] == 3.0f && got[1] == 5.0f);
	}
out:
	rig_close(&r);
}

static void allocate(struct rig *r, uint32_t tid, uint64_t self,
		     uint64_t size)
{
	struct etdump_rec_func_alloc a;

	memset(&a, 0, sizeof(a));
	stamp(r, &a.hdr, ETDUMP_REC_FUNC_ALLOC, sizeof(a), tid);
	a.id = 40;
	a.self = self;
	a.size = size;
	a.ptr = 0x1000;
	a.name_len = strlen("MemoryAllocator");
	memcpy(a.name, "MemoryAllocator", a.name_len);
	CHECK_EQ_INT(symbol_translator_feed(r->tr, &a, sizeof(a)), 0);
}

/*
 * record --allocations: an allocate site's record becomes an allocation
 * of the allocator its object is, numbered from 1 in the order seen and
 * named after the rule, in the run its thread is in, even while the run
 * waits for its first scope to end.
 */
TEST(allocations_number_their_allocators)
{
	const struct etd_run *run;
	size_t i, n = 0;
	struct rig r;

	rig_open(&r, NULL);
	enter(&r, 1, S_LOAD);
	allocate(&r, 1, 0xa0, 64);
	allocate(&r, 1, 0xb0, 8);
	allocate(&r, 1, 0xa0, 16);
	call(&r, 1, S_INIT);
	leave(&r, 1, S_LOAD);
	rig_finish(&r);
	CHECK_EQ_INT(r.dump.nruns, 1);
	if (r.dump.nruns != 1)
		goto out;
	run = &r.dump.runs[0];
	CHECK_EQ_INT(run->nallocators, 2);
	if (run->nallocators == 2) {
		CHECK_EQ_STR(run->allocators[0], "MemoryAllocator 1");
		CHECK_EQ_STR(run->allocators[1], "MemoryAllocator 2");
	}
	for (i = 0; i < run->nevents; i++) {
		const struct etd_event *ev = &run->events[i];
		static const int32_t ids[] = { 1, 2, 1 };
		static const uint64_t sizes[] = { 64, 8, 16 };

		if (ev->kind != ETD_ALLOCATION)
			continue;
		CHECK(n < 3);
		if (n < 3) {
			CHECK_EQ_INT(ev->allocator_id, ids[n]);
			CHECK_EQ_INT(ev->allocation_size, sizes[n]);
		}
		n++;
	}
	CHECK_EQ_INT(n, 3);
out:
	rig_close(&r);
}

TEST(other_records_pass_through)
{
	struct etdump_rec_block b;
	struct etdump_rec_func_exit x;
	struct rig r;

	rig_open(&r, NULL);
	memset(&b, 0, sizeof(b));
	stamp(&r, &b.hdr, ETDUMP_REC_BLOCK, sizeof(b), 1);
	b.name_len = 3;
	memcpy(b.name, "Run", 3);
	CHECK_EQ_INT(symbol_translator_feed(r.tr, &b, sizeof(b)), 0);
	CHECK_EQ_INT(collector_runs_seen(r.col), 1);
	/* a short symbol record goes on as it is: the collector rejects it */
	memset(&x, 0, sizeof(x));
	stamp(&r, &x.hdr, ETDUMP_REC_FUNC_EXIT, sizeof(x), 1);
	x.hdr.size = 8;
	CHECK_EQ_INT(symbol_translator_feed(r.tr, &x, 8), 0);
	rig_finish(&r);
	CHECK_EQ_INT(r.st.bad_records, 1);
	rig_close(&r);
}

/* Method::execute around kernels probed at their entry alone. */
static void execute_one_trap(struct rig *r, uint32_t tid)
{
	enter(r, tid, S_EXEC);
	enter_one_trap(r, tid, S_MUL);
	enter_one_trap(r, tid, S_ADD);
	leave(r, tid, S_EXEC);
}

static void check_one_trap_run(const struct etd_run *run)
{
	CHECK_EQ_STR(run->name, "Execute");
	check_event(run, 0, "native_call_mul.out", 0, 0);
	check_event(run, 1, "native_call_add.out", 0, 1);
	check_event(run, 2, "Method::execute", -1, 0);
}

/*
 * One trap a kernel: each ends where the thread's next event begins, the
 * last at Method::execute's return; a kernel on a thread in no probed
 * call has nothing to end it and is not written, but counted.
 */
TEST(one_trap_kernels_end_at_the_next_event)
{
	struct symbol_translator_stats st;
	struct rig r;
	size_t i;

	rig_open(&r, NULL);
	load(&r, 1);
	enter_one_trap(&r, 1, S_SUB);
	execute_one_trap(&r, 1);
	execute_one_trap(&r, 1);
	symbol_translator_stats(r.tr, &st);
	rig_finish(&r);
	CHECK_EQ_INT(r.dump.nruns, 3);
	for (i = 1; i < r.dump.nruns; i++)
		check_one_trap_run(&r.dump.runs[i]);
	CHECK_EQ_INT(st.ended_at_next, 4);
	CHECK_EQ_INT(st.outside_not_written, 1);
	CHECK_EQ_INT(r.st.outside_run, 0);
	rig_close(&r);
}

/*
 * record --duty: the probes go while a kernel probed at its entry alone is
 * open (nothing ends it now) and come back mid-run, where the run's
 * kernels are on a thread in no probed call the translator knows of. The
 * next whole run starts from no instruction, as the first one did: its
 * Method::execute never takes the cut kernel's ids.
 */
TEST(a_window_cut_in_a_one_trap_kernel_leaves_no_instruction_behind)
{
	struct symbol_translator_stats st;
	struct rig r;

	rig_open(&r, NULL);
	load(&r, 1);
	execute_one_trap(&r, 1);
	enter(&r, 1, S_EXEC);
	enter_one_trap(&r, 1, S_MUL);
	enter_one_trap(&r, 1, S_ADD);
	collector_set_start(r.col, UINT64_MAX);
	CHECK_EQ_INT(collector_gap(r.col), 0);
	symbol_translator_gap(r.tr);
	CHECK_EQ_INT(collector_gap(r.col), 0);
	collector_set_start(r.col, r.ts);
	enter_one_trap(&r, 1, S_MUL);
	enter_one_trap(&r, 1, S_ADD);
	leave(&r, 1, S_EXEC);
	execute_one_trap(&r, 1);
	symbol_translator_stats(r.tr, &st);
	rig_finish(&r);
	/* the cut run's kernels are not said to be outside Method::execute */
	CHECK_EQ_INT(st.outside_not_written, 0);
	CHECK_EQ_INT(st.cut_not_written, 2);
	CHECK_EQ_INT(r.dump.nruns, 3);
	if (r.dump.nruns == 3) {
		check_one_trap_run(&r.dump.runs[1]);
		check_one_trap_run(&r.dump.runs[2]);
	}
	/* the run cut, and the rest of the one begun before the return */
	CHECK_EQ_INT(r.st.cut_runs, 2);
	rig_close(&r);
}

int main(void)
{
	RUN(call_order_ids_and_marked_runs);
	RUN(plan_ids_from_linear_pte);
	RUN(plan_skips_unobserved_and_wraps_for_loops);
	RUN(plan_mismatch_keeps_the_state);
	RUN(plan_names_delegates_and_chains);
	RUN(nested_kernel_belongs_to_the_outer_instruction);
	RUN(operator_calls);
	RUN(probe_time_taken_out);
	RUN(probe_time_too_high_does_not_pile_up);
	RUN(a_call_shorter_than_the_probes_time_keeps_its_own);
	RUN(an_xnnpack_operator_shorter_than_the_probes_time_keeps_its_own);
	RUN(no_probe_time_no_change);
	RUN(threads_keep_their_own_runs);
	RUN(incomplete_capture);
	RUN(kernel_values_take_their_calls_ids);
	RUN(allocations_number_their_allocators);
	RUN(other_records_pass_through);
	RUN(one_trap_kernels_end_at_the_next_event);
	RUN(a_window_cut_in_a_one_trap_kernel_leaves_no_instruction_behind);
	return TEST_SUMMARY();
}

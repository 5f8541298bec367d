/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symbol_translate.h - symbol mode's records (FUNC_ENTRY/FUNC_EXIT of
 * schema/etdump_record.h) turned into the records the collector knows, as
 * the runtime's tracer hooks would have produced them; other records pass
 * through. It needs only the record stream, so a raw capture converts the
 * same way as the live ring buffer.
 *
 * Per thread:
 *  - a block entry opens a run (BLOCK), then a scope (PROFILE_BEGIN);
 *    an event entry opens a scope;
 *  - a kernel or delegate entry first sets the instruction state
 *    (INSTRUCTION chain, instr), then opens its scope, as ExecuTorch sets
 *    the debug handle before an instruction runs;
 *  - an exit ends the innermost open scope of its site (PROFILE_END), and
 *    an instruction's end resets the state to (-1, 0);
 *  - a kernel call not inside another instruction call is also its
 *    instruction's OPERATOR_CALL, which ETDumpGen opens in
 *    Method::execute_instruction around the kernel: it begins just before
 *    the kernel's scope and ends just after, at the kernel's own times.
 *    A probe on execute_instruction would add two probe hits per
 *    instruction for the few instructions it runs outside the kernel.
 *  - an XNNPACK operator (ETDUMP_FUNC_XNN_OP, xnnpack_ops.h) is a
 *    DELEGATE_LOG named "NAME #k" (the k-th of that name in the runtime,
 *    counted afresh in each delegate call), from its first object's call
 *    to its last object's return, handed on when the next call shows it
 *    done: before its delegate call's end, as ETDumpGen's XNNPACK
 *    profiler logs it; an operator the probe could not name is not
 *    written (said once);
 *  - a kernel probed at its entry alone (ETDUMP_FUNC_ENDS_AT_NEXT) ends
 *    where the thread's next probed event begins (the next kernel's entry,
 *    a delegate's, Method::execute's return), less what the next probe's
 *    trap took before its stamp and the gap measured between the two
 *    while the returns were still probed (gap_table.h): a kernel's return
 *    seen (an exit record) is followed by a measure of that gap. One
 *    entered on a thread in no probed call (a kernel called outside
 *    Method::execute) has no next event known to end it: it is not
 *    written, and counted;
 * Instruction ids:
 *  - a kernel or delegate call inside another one (a kernel calling a
 *    kernel) belongs to the outer call's instruction: it sets nothing;
 *  - with a plan (--program), a call takes the next instruction of its
 *    kind in the plan, from just after the previous call's, whose operator
 *    is the observed one (wrapping once, for loops), and a kernel's event
 *    takes the plan's own name ("native_call_add.Scalar_out"); the plan is
 *    walked afresh in each run. A call the plan has no match for keeps the
 *    state there is (chain -1, instruction 0) and is warned about once:
 *    no id is ever guessed;
 *  - without, chain 0 and the call's index among its run's instruction
 *    calls ("call-order ids"). The run keeps ETDumpGen's name ("Execute",
 *    which tools such as inspector_cli --compare_results look for); record
 *    says that the ids follow call order. A run's BLOCK and what follows
 *    it are held back until the first scope of the run ends; a run whose
 *    capture ends before any of its scopes ended is never handed on: it
 *    was incomplete anyway.
 */
#ifndef ETDUMP_SYMBOL_TRANSLATE_H
#define ETDUMP_SYMBOL_TRANSLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "capture/capture.h"
#include "symbol/translate_stats.h"

struct pte_plan;
struct symbol_calibration;
struct symbol_translator;


/* plan may be NULL; it must outlive the translator. */
int symbol_translator_new(struct symbol_translator **out,
			  const struct pte_plan *plan, capture_record_fn sink,
			  void *sink_ctx);
/* A capture_record_fn: translate one record and hand the results on. */
int symbol_translator_feed(void *translator, const void *rec, size_t len);
/*
 * The usual sink, ctx a struct collector: a malformed record is the
 * collector's to count, so only -ENOMEM stops the translation.
 */
int symbol_translator_to_collector(void *col, const void *rec, size_t len);
/*
 * A PROBE_TIME record (symbol_calibrate.h) has the probes' own time taken
 * out of the times handed on from then: within a thread's outermost call,
 * each record's time less what the probes took before it, so each scope
 * loses what its own probes added to it and the whole cost of each probed
 * call inside it. True when there was one, with what it said in c.
 */
bool symbol_translator_probe_time(const struct symbol_translator *t,
				  struct symbol_calibration *c);
void symbol_translator_stats(const struct symbol_translator *t,
			     struct symbol_translator_stats *st);
/*
 * The gaps measured after kernels' returns (gap_table.h), the least,
 * median and most of their pairs' medians: false when none was.
 */
/* Each pair's gap, a debug line each (record -v). */
void symbol_translator_say_gaps(const struct symbol_translator *t);
bool symbol_translator_gap_range(const struct symbol_translator *t,
				 uint64_t *least, uint64_t *median,
				 uint64_t *most);
/*
 * The probes were taken away (record --duty): the calls each thread had
 * open, and the run it was in, are forgotten, as at the start; what the
 * collector had of them is its to leave out (collector_gap()).
 */
void symbol_translator_gap(struct symbol_translator *t);
/*
 * Attached to a process already running: a thread's kernels in no probed
 * call before its first run may be of the run under way, and are then
 * counted as cut, not as outside Method::execute.
 */
void symbol_translator_attached_mid_run(struct symbol_translator *t);
void symbol_translator_free(struct symbol_translator *t);

#endif /* ETDUMP_SYMBOL_TRANSLATE_H */

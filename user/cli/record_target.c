// SPDX-License-Identifier: BSD-3-Clause
/*
 * record_target.c - record's target started or opened, and what recording
 * it takes: the mode its probes allow, the tracers already on them, and
 * --every's word reset in it at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "capture/recorder_claim.h"
#include "cli/record.h"
#include "cli/record_every.h"
#include "lib/log.h"
#include "target/probe_semaphores.h"
/* the batched buffer's bound */
#define ETDUMP_USDT_DISABLE
#include "schema/etdump_usdt.h"

/* a turn is held for a check; one held longer is a recorder stopped */
#define CLAIM_TURN_WAIT_MS 10000u

/* Target set up; the files carrying its probes, executable first. */
int record_open_target(const struct record_opts *o, struct target *t,
		       struct probe_objects *objs)
{
	char err[512];
	int ret;

	if (o->pid)
		ret = target_open_pid(t, o->pid, err, sizeof(err));
	else
		ret = target_spawn(t, o->command, err, sizeof(err));
	if (!ret && t->script[0])
		p_info("%s is a script: PID %d runs its interpreter %s, and the programs it execs are followed",
		       t->script, t->pid, t->exe);
	if (!ret)
		ret = probe_objects_find(objs, t->pid, t->exe, !t->spawned, err,
					 sizeof(err));
	if (ret)
		p_err("%s", err);
	/* without etdump probes, symbol mode (symbol_mode.h) takes over */
	return ret;
}

/*
 * Batched where the runtime supports it (it carries the flush probe): the
 * cheapest per event. Per-scope probes when asked, or for counters, which
 * only a probe in the kernel can read at each scope.
 */
bool record_choose_mode(const struct record_opts *o,
			const struct probe_objects *objs, bool quiet)
{
	/* no probes here: the children's, batched unless asked otherwise */
	if (objs->etdump && !probe_objects_all_have(objs, "flush")) {
		if (o->precise)
			p_info("mode: per-scope probes (the runtime has no flush probe)");
		return false;
	}
	if (o->precise || o->counters_given || o->values || o->allocations) {
		/* quiet: the children's first attach says the mode */
		if (quiet)
			return false;
		p_info("mode: per-scope probes%s", o->precise ? "" :
		       o->values ? " (values need them: --values implies --precise)" :
		       o->allocations ? " (allocations need them: --allocations implies --precise)" :
		       " (counters need them: -e implies --precise)");
		return false;
	}
	if (!quiet)
		p_info("mode: batched (each thread buffers its events and hands them over when its buffer fills or a run ends %llu ms after the last flush; no counters; --precise for per-scope probes)",
		       ETDUMP_BATCH_BOUND_NS / 1000000ull);
	return true;
}

/*
 * Another tracer already on a running target's probes: the runtime batches
 * while anything holds `flush`, so per-scope and batched tracers cannot
 * share one process; tracers of one mode can, each gets every event.
 */
void record_holder_text(pid_t pid, bool batched, const char *unknown,
			char *buf, size_t len)
{
	int holder = recorder_claimant(pid, batched ? RECORDER_BATCHED :
						      RECORDER_PER_SCOPE);

	if (holder > 0)
		snprintf(buf, len, " by 'etdump-bpf record' PID %d", holder);
	else
		snprintf(buf, len, "%s", unknown);
}

/* One line: which tracer holds pid in the other mode, and what to do. */
static int refuse_other_mode(pid_t pid, bool batched, int holder)
{
	char by[96];

	if (holder > 0)
		snprintf(by, sizeof(by), " by 'etdump-bpf record' PID %d",
			 holder);
	else
		snprintf(by, sizeof(by), "%s", batched ?
			 " (by another 'etdump-bpf record --precise', bpftrace or perf)" :
			 " by another 'etdump-bpf record'");
	if (batched)
		p_err("process %d is already traced with per-scope probes%s: batched recording would take its events; record with --precise to share them, or stop the other tracer",
		      (int)pid, by);
	else
		p_err("process %d is already recorded in batched mode%s: its runtime batches while that holds, so per-scope probes would see nothing; stop the other recorder, or record without --precise and -e to share its batches",
		      (int)pid, by);
	return -EBUSY;
}

/*
 * The claim is taken before the check, both in the process's turn: of two
 * recorders started together the later finds the earlier's claim even
 * when neither has attached yet (the probes' semaphores say only what is
 * attached), and the claim stands before any probe is.
 */
int record_check_other_tracers(const struct target *t,
			       const struct probe_objects *objs, bool batched,
			       int *claim)
{
	enum recorder_mode mine = batched ? RECORDER_BATCHED :
					    RECORDER_PER_SCOPE;
	enum recorder_mode other = batched ? RECORDER_PER_SCOPE :
					     RECORDER_BATCHED;
	struct probe_holders h;
	char err[512];
	int turn, holder, ret = 0;
	size_t i;

	*claim = -1;
	turn = recorder_claim_turn(t->pid, CLAIM_TURN_WAIT_MS);
	if (turn == -EADDRINUSE) {
		p_err("process %d: another recorder has been starting on it for %u s without finishing its check; try again once it has",
		      (int)t->pid, CLAIM_TURN_WAIT_MS / 1000);
		return -EBUSY;
	}
	if (turn < 0)
		p_debug("process %d: no turn taken: %s", (int)t->pid,
			strerror(-turn));
	/* a recorder that comes later and must refuse can name this one */
	*claim = recorder_claim(t->pid, mine);
	if (*claim < 0)
		p_debug("process %d not claimed: %s", (int)t->pid,
			strerror(-*claim));
	holder = recorder_claimant(t->pid, other);
	if (holder > 0)
		ret = refuse_other_mode(t->pid, batched, holder);
	for (i = 0; !ret && !t->spawned && i < objs->n; i++) {
		if (!objs->v[i].etdump)
			continue;
		if (probe_semaphores_read(t->pid, &objs->v[i], &h, err,
					  sizeof(err))) {
			p_warn("%s; cannot tell whether another tracer holds the probes",
			       err);
			continue;
		}
		if ((batched && h.per_scope && !h.batch) ||
		    (!batched && h.batch))
			ret = refuse_other_mode(t->pid, batched,
						recorder_claimant(t->pid, other));
	}
	if (turn >= 0)
		close(turn);
	if (ret && *claim >= 0) {
		close(*claim);
		*claim = -1;
	}
	return ret;
}

/*
 * --every's word back to 0 in the targets that live on, once: nothing of
 * this recording's stays in a process it leaves.
 */
void record_reset_every(struct target *t, const struct probe_objects *objs,
			struct more_targets *more, bool *set)
{
	record_every_detach(t, objs, set[0]);
	set[0] = false;
	for (size_t i = 0; i < more->n; i++) {
		record_every_detach(&more->t[i], &more->objs[i], set[1 + i]);
		set[1 + i] = false;
	}
}

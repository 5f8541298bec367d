// SPDX-License-Identifier: BSD-3-Clause
#include "symbol/arm64_exits.h"
#include "symbol/arm64_switch.h"

static int refuse(struct arm64_exits *out, const char *why, uint64_t where)
{
	out->why = why;
	out->where = where;
	return -1;
}

/*
 * The first simulated instruction from the start on, before anything
 * leaves the straight line, into out->entry: 0, or -1 and why.
 */
static int find_entry(const struct arm64_code *c, uint32_t regs,
		      struct arm64_exits *out)
{
	uint64_t at;
	int64_t target;
	uint32_t insn;

	for (at = 0; at + 4 <= c->size; at += 4) {
		insn = arm64_insn_word(c->bytes + at);
		if (arm64_insn_flow(insn, &target) == ARM64_FLOW_RET)
			/* the entry would be the exit */
			return refuse(out, "returns before any other simulated instruction", at);
		if (arm64_uprobe_simulated(c->bytes + at, 4)) {
			out->entry = at;
			return 0;
		}
		if (arm64_insn_flow(insn, &target) != ARM64_FLOW_NEXT)
			return refuse(out, "branches before any simulated instruction", at);
		if (!arm64_insn_keeps_regs(insn, regs))
			return refuse(out, "may change an argument the entry reads", at);
	}
	return refuse(out, "has no simulated instruction", c->size);
}

/* switches of one function read at most */
#define SWITCHES_MAX 8

/* The switches found so far: where each may go, where each dispatches. */
struct switches {
	int64_t lo[SWITCHES_MAX], hi[SWITCHES_MAX];
	uint64_t br[SWITCHES_MAX];
	size_t n;
};

/* Does the br at `at` stay in the function, past the entry (a switch)? */
static bool switch_inside(const struct arm64_code *c, uint64_t at,
			  const struct arm64_exits *out, struct switches *sw)
{
	int64_t lo, hi;

	if (sw->n == SWITCHES_MAX || arm64_switch_span(c, at, &lo, &hi) ||
	    lo <= (int64_t)out->entry || hi >= (int64_t)c->size)
		return false;
	sw->lo[sw->n] = lo;
	sw->hi[sw->n] = hi;
	sw->br[sw->n++] = at;
	return true;
}

/*
 * A table that may lead into a dispatch (its own or another's) would
 * reach it past its bound's check: each table's span must miss them all.
 */
static int switches_apart(const struct switches *sw, struct arm64_exits *out)
{
	size_t i, j;

	for (i = 0; i < sw->n; i++)
		for (j = 0; j < sw->n; j++)
			if (sw->lo[i] <= (int64_t)sw->br[j] &&
			    sw->hi[i] >= (int64_t)(sw->br[j] - ARM64_SWITCH_DISPATCH))
				return refuse(out, "has a switch that may lead into a dispatch", sw->br[i]);
	return 0;
}

/* One instruction of the function: its exits noted, 0, or -1 and why. */
static int walk_one(const struct arm64_code *c, uint64_t at,
		    struct arm64_exits *out, struct switches *sw)
{
	uint32_t insn = arm64_insn_word(c->bytes + at);
	int64_t size = (int64_t)c->size;
	int64_t target;
	int64_t to;

	switch (arm64_insn_flow(insn, &target)) {
	case ARM64_FLOW_NEXT:
		return 0;
	case ARM64_FLOW_RET:
		if (out->nrets == out->max)
			return refuse(out, "has more ret instructions than probed", at);
		out->rets[out->nrets++] = at;
		return 0;
	case ARM64_FLOW_CALL:
		to = (int64_t)at + target;
		/* a call into its own middle: a ret that is not its own */
		if (target && to > 0 && to < size)
			return refuse(out, "calls into itself", at);
		return 0;
	case ARM64_FLOW_BRANCH:
		to = (int64_t)at + target;
		if (to < 0 || to >= size)
			return refuse(out, "leaves by a branch (a tail call)", at);
		if ((uint64_t)to <= out->entry)
			return refuse(out, "branches back to its entry", at);
		return 0;
	default:
		if (switch_inside(c, at, out, sw))
			return 0;
		return refuse(out, "leaves by an instruction that is no simple branch (br, retaa, ...) or is no instruction", at);
	}
}

int arm64_exits_find(const struct arm64_code *c, uint32_t regs,
		     struct arm64_exits *out)
{
	struct switches sw = { .n = 0 };
	uint64_t at;

	out->nrets = 0;
	out->why = NULL;
	out->where = 0;
	if (c->size % 4)
		return refuse(out, "has a size that is no whole instructions", c->size);
	if (find_entry(c, regs, out))
		return -1;
	for (at = 0; at < c->size; at += 4)
		if (walk_one(c, at, out, &sw))
			return -1;
	if (switches_apart(&sw, out))
		return -1;
	return out->nrets ? 0 : refuse(out, "has no ret", c->size);
}

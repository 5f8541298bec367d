// SPDX-License-Identifier: BSD-3-Clause
#include "symbol/arm64_exits.h"
#include "symbol/arm64_insn.h"

static int refuse(struct arm64_exits *out, const char *why, uint64_t where)
{
	out->why = why;
	out->where = where;
	return -1;
}

/*
 * The first simulated instruction from the start on, before anything
 * leaves the straight line; its offset, or -1.
 */
static int find_entry(const uint8_t *code, size_t size, unsigned int args,
		      struct arm64_exits *out)
{
	uint64_t at;
	int64_t target;
	uint32_t insn;

	for (at = 0; at + 4 <= size; at += 4) {
		insn = arm64_insn_word(code + at);
		if (arm64_insn_flow(insn, &target) == ARM64_FLOW_RET)
			/* the entry would be the exit */
			return refuse(out, "returns before any other simulated instruction", at);
		if (arm64_uprobe_simulated(code + at, 4)) {
			out->entry = at;
			return 0;
		}
		if (arm64_insn_flow(insn, &target) != ARM64_FLOW_NEXT)
			return refuse(out, "branches before any simulated instruction", at);
		if (!arm64_insn_keeps_regs(insn, args))
			return refuse(out, "may change an argument the entry reads", at);
	}
	return refuse(out, "has no simulated instruction", size);
}

/* One instruction of the function: its exits noted, 0, or -1 and why. */
static int walk_one(uint32_t insn, uint64_t at, size_t size,
		    struct arm64_exits *out)
{
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
		if (target && to > 0 && to < (int64_t)size)
			return refuse(out, "calls into itself", at);
		return 0;
	case ARM64_FLOW_BRANCH:
		to = (int64_t)at + target;
		if (to < 0 || to >= (int64_t)size)
			return refuse(out, "leaves by a branch (a tail call)", at);
		if ((uint64_t)to <= out->entry)
			return refuse(out, "branches back to its entry", at);
		return 0;
	default:
		return refuse(out, "leaves by an instruction that is no simple branch (br, retaa, ...) or is no instruction", at);
	}
}

int arm64_exits_find(const uint8_t *code, size_t size, unsigned int args,
		     struct arm64_exits *out)
{
	uint64_t at;

	out->nrets = 0;
	out->why = NULL;
	out->where = 0;
	if (size % 4)
		return refuse(out, "has a size that is no whole instructions", size);
	if (find_entry(code, size, args, out))
		return -1;
	for (at = 0; at < size; at += 4)
		if (walk_one(arm64_insn_word(code + at), at, size, out))
			return -1;
	return out->nrets ? 0 : refuse(out, "has no ret", size);
}

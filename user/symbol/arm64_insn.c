// SPDX-License-Identifier: BSD-3-Clause
#include "symbol/arm64_insn.h"

/* A64 encodings: bits set in mask must equal value. */
static const struct {
	uint32_t mask, value;
} simulated[] = {
	{ 0xffffffff, 0xd503201f },     /* nop */
	{ 0x7c000000, 0x14000000 },     /* b, bl */
	{ 0xff000010, 0x54000000 },     /* b.cond */
	{ 0x7e000000, 0x34000000 },     /* cbz, cbnz */
	{ 0x7e000000, 0x36000000 },     /* tbz, tbnz */
	{ 0x1f000000, 0x10000000 },     /* adr, adrp */
	{ 0xfffffc1f, 0xd61f0000 },     /* br */
	{ 0xfffffc1f, 0xd63f0000 },     /* blr */
	{ 0xfffffc1f, 0xd65f0000 },     /* ret */
};

uint32_t arm64_insn_word(const uint8_t *b)
{
	return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
}

bool arm64_uprobe_simulated(const uint8_t *b, size_t len)
{
	uint32_t insn;
	size_t i;

	if (len < 4)
		return false;
	insn = arm64_insn_word(b);
	for (i = 0; i < sizeof(simulated) / sizeof(simulated[0]); i++)
		if ((insn & simulated[i].mask) == simulated[i].value)
			return true;
	return false;
}

/* bits [lo + width - 1, lo] of insn, sign-extended, times 4: an offset */
static int64_t word_offset(uint32_t insn, unsigned int lo, unsigned int width)
{
	int64_t v = (insn >> lo) & ((1u << width) - 1);

	if (v & (1ll << (width - 1)))
		v -= 1ll << width;
	return v * 4;
}

/* The top-level group, bits 28:25 (the Arm ARM's op0). */
static unsigned int group(uint32_t insn)
{
	return (insn >> 25) & 0xf;
}

static bool is_branch_system_group(uint32_t insn)
{
	return (group(insn) & 0xe) == 0xa;
}

static bool is_load_store_group(uint32_t insn)
{
	return (group(insn) & 0x5) == 0x4;
}

/* The group of branches, exception generation and system instructions. */
static enum arm64_flow branch_system_flow(uint32_t insn, int64_t *target)
{
	if ((insn & 0x7c000000) == 0x14000000) {        /* b, bl */
		*target = word_offset(insn, 0, 26);
		return insn >> 31 ? ARM64_FLOW_CALL : ARM64_FLOW_BRANCH;
	}
	if ((insn & 0xff000000) == 0x54000000 ||        /* b.cond, bc.cond */
	    (insn & 0x7e000000) == 0x34000000) {        /* cbz, cbnz */
		*target = word_offset(insn, 5, 19);
		return ARM64_FLOW_BRANCH;
	}
	if ((insn & 0x7e000000) == 0x36000000) {        /* tbz, tbnz */
		*target = word_offset(insn, 5, 14);
		return ARM64_FLOW_BRANCH;
	}
	if ((insn & 0xfffffc1f) == 0xd65f0000)
		return ARM64_FLOW_RET;
	if ((insn & 0xfe000000) == 0xd6000000)  /* branches to a register */
		/* opc 0001, 1001: blr and its authenticating forms */
		return ((insn >> 21) & 0x7) == 1 ? ARM64_FLOW_CALL :
						     ARM64_FLOW_UNKNOWN;
	/* svc, brk, ... and the system instructions (hints, mrs, ...) */
	if ((insn & 0xfe000000) == 0xd4000000)
		return ARM64_FLOW_NEXT;
	return ARM64_FLOW_UNKNOWN;
}

enum arm64_flow arm64_insn_flow(uint32_t insn, int64_t *target)
{
	unsigned int g = group(insn);

	*target = 0;
	/* reserved (udf: what data often reads as) and not allocated */
	if (g == 0x0 || g == 0x1 || g == 0x3)
		return ARM64_FLOW_UNKNOWN;
	if (is_branch_system_group(insn))
		return branch_system_flow(insn, target);
	return ARM64_FLOW_NEXT;
}

static bool names(uint32_t insn, unsigned int lo, uint32_t regs)
{
	return (regs >> ((insn >> lo) & 0x1f)) & 1;
}

bool arm64_insn_keeps_regs(uint32_t insn, uint32_t regs)
{
	unsigned int g = group(insn);

	if (!regs)
		return true;
	if (is_branch_system_group(insn))
		return (insn & 0xfffff01f) == 0xd503201f;       /* a hint */
	if (g == 0x0 || g == 0x1 || g == 0x2 || g == 0x3)
		return false;   /* SVE, and what is no instruction */
	if (names(insn, 0, regs))
		return false;
	/* pairs, writebacks, exclusives' status and compare-and-swap */
	return !is_load_store_group(insn) ||
	       !(names(insn, 5, regs) || names(insn, 10, regs) ||
		 names(insn, 16, regs));
}

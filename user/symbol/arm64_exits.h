/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * arm64_exits.h - an aarch64 function probed without single-stepping.
 *
 * Its first instruction is usually single-stepped (stp x29, x30, ...,
 * sub sp, paciasp, bti: arm64_insn.h), and a uretprobe needs its entry
 * probe there: it takes the return address from x30 when the function is
 * entered, and the prologue saves x30 away. So the return is probed where
 * it happens instead, with a plain uprobe on each `ret` (simulated), and
 * the entry on the first simulated instruction of the code that runs
 * straight on from the function's start. That holds only when every call
 * passes that instruction once and leaves by one of those `ret`s: the
 * function must leave no other way (a tail call, a branch out of it, a
 * br other than a switch's whose table says it stays inside
 * (arm64_switch.h), retaa, or anything not known to be an instruction),
 * and no branch in it may lead back to its start or the instructions up
 * to the entry.
 */
#ifndef ETDUMP_ARM64_EXITS_H
#define ETDUMP_ARM64_EXITS_H

#include <stddef.h>
#include <stdint.h>
#include "symbol/arm64_insn.h"

/* Found: entry, rets[nrets] (the caller gives rets and max), or why. */
struct arm64_exits {
	uint64_t entry;         /* offset in the function of the entry probe */
	uint64_t *rets;         /* offsets of its ret instructions */
	size_t nrets, max;      /* found, room in rets */
	const char *why;        /* when none: why not, at where */
	uint64_t where;
};

/*
 * c: the function. regs: the registers the entry probe reads (bit n:
 * xn), which the instructions before the entry must leave alone. 0,
 * else -1 with why and where said.
 */
int arm64_exits_find(const struct arm64_code *c, uint32_t regs,
		     struct arm64_exits *out);

#endif /* ETDUMP_ARM64_EXITS_H */

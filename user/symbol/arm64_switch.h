/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * arm64_switch.h - a br that dispatches a switch through a jump table, as
 * GCC emits it, and where it may go:
 *
 *	cmp  wI, #N             (every way to D: b.ls D after it, or a b.hi
 *	b.ls D                   after it that falls through to D)
 *   D: adrp xT, table
 *	add  xT, xT, :lo12:table
 *	ldrb wE, [xT, wI, uxtw]         (ldrh ... #1, ldr ... #2)
 *	adr  xB, base
 *	add  xJ, xB, wE, sxtb #2        (sxth, sxtw: the entry's size)
 *	br   xJ
 *
 * The index is at most N, so the N + 1 entries read from the table are
 * every target: base + 4 * entry. No other branch of the function may
 * lead into the sequence (nor another table: arm64_exits.h checks that),
 * and nothing else is taken for one (a br this does not know stays
 * unknown: arm64_exits.h keeps its uretprobe).
 */
#ifndef ETDUMP_ARM64_SWITCH_H
#define ETDUMP_ARM64_SWITCH_H

#include <stdint.h>
#include "symbol/arm64_insn.h"

/* the dispatch: its first instruction, this many bytes before the br */
#define ARM64_SWITCH_DISPATCH 20

/*
 * The br at offset `at` of the function: 0 with the lowest and highest
 * offset in the function it may branch to, when it ends such a dispatch
 * and its table was read (every target a whole instruction); else -1.
 */
int arm64_switch_span(const struct arm64_code *c, uint64_t at, int64_t *lo,
		      int64_t *hi);

#endif /* ETDUMP_ARM64_SWITCH_H */

// SPDX-License-Identifier: BSD-3-Clause
#include <stdlib.h>
#include "symbol/arm64_switch.h"


/* The registers and numbers of one dispatch (arm64_switch.h). */
struct dispatch {
	unsigned int index;     /* wI */
	unsigned int entry;     /* bytes an entry: 1, 2 or 4 */
	uint64_t table, base;   /* where they are loaded */
};

static unsigned int reg(uint32_t insn, unsigned int lo)
{
	return (insn >> lo) & 0x1f;
}

static int64_t sign_extend(uint64_t v, unsigned int bits)
{
	return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

/* adr's and adrp's 21-bit immediate: immhi (23:5), immlo (30:29) */
static int64_t adr_imm(uint32_t insn)
{
	return sign_extend(((insn >> 5) & 0x7ffff) << 2 | ((insn >> 29) & 3),
			   21);
}

/* cmp wN, #imm (subs wzr, wN, #imm, not shifted): N and imm, else -1 */
static int64_t cmp_bound(uint32_t insn, unsigned int index)
{
	if ((insn & 0xffc0001f) != 0x7100001f || reg(insn, 5) != index)
		return -1;
	return (insn >> 10) & 0xfff;
}

/* b.cond with this condition (ls 9, hi 8): its target's offset, else 0 */
static int64_t bcond_to(uint32_t insn, unsigned int cond)
{
	if ((insn & 0xff000010) != 0x54000000 || (insn & 0xf) != cond)
		return 0;
	return sign_extend((insn >> 5) & 0x7ffff, 19) * 4;
}

static uint32_t word_at(const struct arm64_code *c, uint64_t at)
{
	return arm64_insn_word(c->bytes + at);
}

/* The words from ARM64_SWITCH_DISPATCH before `at` to it as GCC's
   dispatch (adrp, add, ldr, adr, add, br), read into d. */
static int decode(const struct arm64_code *c, uint64_t at, struct dispatch *d)
{
	uint64_t d0 = at - ARM64_SWITCH_DISPATCH;
	uint32_t adrp = word_at(c, d0), add = word_at(c, d0 + 4),
		 ldr = word_at(c, d0 + 8), adr = word_at(c, d0 + 12),
		 sum = word_at(c, d0 + 16), br = word_at(c, at);
	unsigned int t = reg(adrp, 0), e = reg(ldr, 0), b = reg(adr, 0);
	unsigned int size = 1u << (ldr >> 30), option = (sum >> 13) & 7;

	if ((adrp & 0x9f000000) != 0x90000000 ||
	    (add & 0xffc00000) != 0x91000000 || reg(add, 0) != t ||
	    reg(add, 5) != t)
		return -1;
	/* ldrb/ldrh/ldr (register), 32-bit, index uxtw, scaled by size */
	if ((ldr & 0x3fe0fc00) != 0x38604800 && (ldr & 0x3fe0fc00) != 0x38605800)
		return -1;
	if (size == 8 || reg(ldr, 5) != t || reg(ldr, 16) == t ||
	    (size > 1 && !((ldr >> 12) & 1)))
		return -1;
	/* add xJ, xB, wE, sxt{b,h,w} #2: the extension is the entry's */
	if ((adr & 0x9f000000) != 0x10000000 ||
	    (sum & 0xffe01c00) != 0x8b200800 || option < 4 || option > 6 ||
	    1u << (option - 4) != size || reg(sum, 5) != b ||
	    reg(sum, 16) != e || (br & 0xfffffc1f) != 0xd61f0000 ||
	    reg(br, 5) != reg(sum, 0))
		return -1;
	d->index = reg(ldr, 16);
	d->entry = size;
	d->table = ((c->vaddr + d0) & ~0xfffull) + (adr_imm(adrp) << 12) +
		   ((add >> 10) & 0xfff);
	d->base = c->vaddr + d0 + 12 + adr_imm(adr);
	return 0;
}

/* Can control go on from the instruction at `at` to the next one? */
static bool falls_through(uint32_t insn)
{
	int64_t target;
	enum arm64_flow f = arm64_insn_flow(insn, &target);

	/* b, ret and br do not; a conditional branch and the rest do */
	return !((f == ARM64_FLOW_BRANCH && (insn & 0x7c000000) == 0x14000000) ||
		 f == ARM64_FLOW_RET || (insn & 0xfffffc1f) == 0xd61f0000);
}

/*
 * The largest index any way into the dispatch at d0 lets through: every
 * way in is a b.ls after cmp wI, #N, or the fall from a b.hi after one;
 * no branch leads into the middle. -1 when one is not.
 */
static int64_t bound(const struct arm64_code *c, uint64_t d0, uint64_t at,
		     unsigned int index)
{
	int64_t most = -1, n, target;
	uint64_t off;

	if (d0 < 4)
		return -1;
	if (falls_through(word_at(c, d0 - 4))) {
		n = d0 >= 8 && bcond_to(word_at(c, d0 - 4), 8) ?
			    cmp_bound(word_at(c, d0 - 8), index) : -1;
		if (n < 0)
			return -1;
		most = n;
	}
	for (off = 0; off + 4 <= c->size; off += 4) {
		if (arm64_insn_flow(word_at(c, off), &target) !=
		    ARM64_FLOW_BRANCH)
			continue;
		target += (int64_t)off;
		if (target > (int64_t)d0 && target <= (int64_t)at)
			return -1;
		if (target != (int64_t)d0)
			continue;
		n = off >= 4 && bcond_to(word_at(c, off), 9) ?
			    cmp_bound(word_at(c, off - 4), index) : -1;
		if (n < 0)
			return -1;
		most = n > most ? n : most;
	}
	return most;
}

int arm64_switch_span(const struct arm64_code *c, uint64_t at, int64_t *lo,
		      int64_t *hi)
{
	struct dispatch d;
	uint8_t *table;
	int64_t n, i, to;
	uint64_t v;
	unsigned int k;

	if (!c->read || at < ARM64_SWITCH_DISPATCH || at + 4 > c->size ||
	    decode(c, at, &d))
		return -1;
	n = bound(c, at - ARM64_SWITCH_DISPATCH, at, d.index);
	if (n < 0)
		return -1;
	table = malloc((size_t)(n + 1) * d.entry);
	if (!table || c->read(c->read_ctx, d.table, table,
			      (size_t)(n + 1) * d.entry)) {
		free(table);
		return -1;
	}
	for (i = 0; i <= n; i++) {
		for (v = 0, k = 0; k < d.entry; k++)
			v |= (uint64_t)table[i * d.entry + k] << (8 * k);
		to = (int64_t)(d.base - c->vaddr) +
		     sign_extend(v, 8 * d.entry) * 4;
		if (!i || to < *lo)
			*lo = to;
		if (!i || to > *hi)
			*hi = to;
	}
	free(table);
	return 0;
}

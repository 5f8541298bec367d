/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * arm64_insn.h - what arm64 uprobes make of an instruction: simulated in
 * the breakpoint handler (cheap), or copied to an out-of-line slot and
 * single-stepped there (a second exception); and where an instruction
 * sends the program, for arm64_exits.h's walk of a function.
 */
#ifndef ETDUMP_ARM64_INSN_H
#define ETDUMP_ARM64_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * insn: the instruction's 4 bytes as they are in the file (little-endian).
 * From the kernel's arch/arm64/kernel/probes/decode-insn.c: branches
 * (b, bl, b.cond, cbz/cbnz, tbz/tbnz, br, blr, ret), adr/adrp, and nop
 * (mainline since 2024; older kernels single-step it) are simulated; what
 * else uprobes accept is single-stepped: stp x29, x30, [sp, #-n]! and
 * sub sp, sp, #n, the usual prologues, and paciasp and bti too. The
 * authenticating returns and branches (retaa, braa, ...) are neither:
 * uprobes refuse them.
 */
bool arm64_uprobe_simulated(const uint8_t *insn, size_t len);

/* A function's code, and where it may read from (a jump table). */
struct arm64_code {
	const uint8_t *bytes;   /* its instructions, size bytes */
	size_t size;
	uint64_t vaddr;         /* where they are loaded */
	/* len bytes loaded at vaddr; NULL: none can be read */
	int (*read)(void *ctx, uint64_t vaddr, void *buf, size_t len);
	void *read_ctx;
};

/* The instruction at b, little-endian as in the file. */
uint32_t arm64_insn_word(const uint8_t *b);

/* Where control goes after an instruction. */
enum arm64_flow {
	ARM64_FLOW_NEXT,        /* on to the next instruction only */
	ARM64_FLOW_BRANCH,      /* b, b.cond, bc.cond, cbz/cbnz, tbz/tbnz:
				   to a target (and on, when conditional) */
	ARM64_FLOW_CALL,        /* bl, blr, blraa...: a call that returns */
	ARM64_FLOW_RET,         /* ret, which uprobes simulate */
	ARM64_FLOW_UNKNOWN,     /* br, retaa, eret..., or no A64 instruction
				   (data, or an encoding not allocated):
				   nowhere this can tell */
};

/*
 * What insn does to control; *target (bytes from insn, signed) for a
 * branch and a bl, 0 for the others.
 */
enum arm64_flow arm64_insn_flow(uint32_t insn, int64_t *target);

/*
 * Does insn leave the registers of regs (bit n: xn) as they were? From its
 * encoding's register fields, erring to "no": every instruction that
 * writes a general register names it in bits 4:0 (a load pair's second
 * in 14:10; a writeback its base in 9:5), so one naming none of these
 * registers there keeps them; a branch or a system instruction other
 * than a hint is taken not to.
 */
bool arm64_insn_keeps_regs(uint32_t insn, uint32_t regs);

#endif /* ETDUMP_ARM64_INSN_H */

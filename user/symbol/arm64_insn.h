/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * arm64_insn.h - what arm64 uprobes make of a function's first
 * instruction: simulated in the breakpoint handler (cheap), or copied to an
 * out-of-line slot and single-stepped there (a second exception).
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
 * sub sp, sp, #n, the usual prologues, and paciasp and bti too.
 */
bool arm64_uprobe_simulated(const uint8_t *insn, size_t len);

#endif /* ETDUMP_ARM64_INSN_H */

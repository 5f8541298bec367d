/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * x86_insn.h - what x86-64 uprobes make of a function's first
 * instruction (arm64_insn.h is aarch64's).
 */
#ifndef ETDUMP_X86_INSN_H
#define ETDUMP_X86_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Can x86-64 uprobes run this first instruction without single-stepping
 * it? Measured (scripts/bench-uprobes.sh): they emulate a push of a
 * register and a one-byte nop, and turn a 5-byte nop into a call; endbr64,
 * other nops, moves and arithmetic are single-stepped, ~20x the cost.
 * (An aarch64 object's entries are arm64_insn.h's to judge.)
 */
bool symbol_entry_emulated(const uint8_t *insn, size_t len);
/* x86-64: the 5-byte nop kernels from 6.18 optimize (site_traps.h). */
bool symbol_entry_nop5(const uint8_t *insn, size_t len);
#endif /* ETDUMP_X86_INSN_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symbol_guard.h - a cheaper place for a probe than a function's first
 * instruction, when the kernel would have to single-step that one (~7x the
 * cost of an emulated one here: scripts/bench-uprobes.sh).
 *
 * Optimizing compilers put a guard first: a test, and a return that does
 * nothing but set a value when it fails ("if (!initialized()) return
 * Error::InvalidState;"), before the prologue's pushes, which the kernel
 * emulates. A probe at the first such push after the guard sees every call
 * that gets past it, and a uretprobe there still finds the return address
 * on top of the stack: the guard never moves the stack pointer, and
 * compilers keep the stack depth of an instruction the same on every path
 * to it (DWARF's call frame information relies on it). A call that returns
 * at its guard is not seen.
 *
 * x86-64 code only (symbol_sites.c asks for an x86-64 object's, whatever
 * the recorder is built for), from a short list of instructions (compares, tests, moves
 * and xors between registers and memory that leave %rsp alone, conditional
 * jumps by a byte, nops, ret); anything else ends the search.
 */
#ifndef ETDUMP_SYMBOL_GUARD_H
#define ETDUMP_SYMBOL_GUARD_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of a function's start worth reading for symbol_guard_skip(). */
#define SYMBOL_GUARD_BYTES 128

/*
 * code: the function's first len bytes, none past its end (a conditional
 * tail call may jump to the next function, which no guard is). The offset into it of the first
 * instruction after its guard that the kernel emulates, or 0 when there is
 * no such guard.
 */
size_t symbol_guard_skip(const uint8_t *code, size_t len);

#endif /* ETDUMP_SYMBOL_GUARD_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kernel_callers.h - the kernels whose code calls another instruction
 * site's function directly (a kernel built on another kernel): found in
 * the object's bytes, a `call rel32` or `jmp rel32` (x86-64), a `bl` or
 * `b` (aarch64) whose target is that function's first instruction. Such a
 * kernel keeps its return probed: the callee's entry is no end of it.
 *
 * A scan of bytes, not a decode: a match inside another instruction's
 * bytes only keeps one more return probed. A call through a pointer or
 * the PLT is not seen (record --exact-returns is for such a runtime).
 */
#ifndef ETDUMP_KERNEL_CALLERS_H
#define ETDUMP_KERNEL_CALLERS_H

#include "symbol/site_list.h"

/* The most of a function's bytes read to look for calls. */
#define KERNEL_CALLERS_MAX_BYTES (4u << 20)

/* Sets calls_site on each kernel site found calling one: how many. */
size_t kernel_callers_mark(struct symbol_sites *s);
/*
 * One trap a kernel call: each kernel site and each XNNPACK operator's
 * ends at the next event (ETDUMP_FUNC_ENDS_AT_NEXT, symbol_translate.h:
 * an operator at the next operator's entry or its delegate call's
 * return), its return probed only while the gaps after them are
 * measured, but a kernel that calls another (*callers of them: the
 * callee's entry is no end of it) and one whose out tensors record
 * --values reads at its return. How many.
 */
size_t kernel_sites_end_at_next(struct symbol_sites *s, size_t *callers);

#endif /* ETDUMP_KERNEL_CALLERS_H */

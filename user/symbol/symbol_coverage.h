/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symbol_coverage.h - what of a program (--program) symbol mode cannot
 * record in the target at hand: the kernel and delegate instructions no
 * probed function stands for (another build: a kernel inlined, renamed or
 * in a library no rule names, a delegate without its backend). Said once,
 * at attach; the rest is recorded as usual.
 */
#ifndef ETDUMP_SYMBOL_COVERAGE_H
#define ETDUMP_SYMBOL_COVERAGE_H

#include <stddef.h>

struct pte_plan;
struct symbol_sites;

/*
 * One warning naming each operator (and the instructions using it) and
 * the delegate instructions no site maps; nothing when every one maps.
 * Returns how many instructions are not mapped. Without a plan (NULL),
 * one warning when runs are opened but no kernel at all is mapped, and 1.
 */
size_t symbol_coverage_report(const struct pte_plan *plan,
			      const struct symbol_sites *sites,
			      const char *program);

#endif /* ETDUMP_SYMBOL_COVERAGE_H */

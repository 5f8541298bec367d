/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plan_walk.h - where in a program's plan (pte_reader.h) an observed call
 * is: the next instruction of its kind, from where the previous call's
 * was, whose operator is the one observed. Symbols spell an operator
 * loosely ("softmax_out" for "_softmax.out", "add_scalar_out" for
 * "add.Scalar_out"), so names are compared without '_', '.' and case.
 */
#ifndef ETDUMP_PLAN_WALK_H
#define ETDUMP_PLAN_WALK_H

#include <stdbool.h>
#include <stdint.h>
#include "schema/etdump_record.h"


struct pte_plan;

struct plan_pos {
	uint32_t chain;
	uint32_t instr;
};

/*
 * The first fitting instruction at or after `from`, else from the start
 * (a loop jumped back): a DelegateCall for a delegate call, else the
 * KernelCall whose event name ("native_call_add.out") is `observed`'s;
 * its position in *at and, for a kernel, ETDumpGen's name in planned.
 */
bool plan_walk_find(const struct pte_plan *p, struct plan_pos from,
		    bool delegate, const char *observed, struct plan_pos *at,
		    char planned[ETDUMP_NAME_MAX]);

#endif /* ETDUMP_PLAN_WALK_H */

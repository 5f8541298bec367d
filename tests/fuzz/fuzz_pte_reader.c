// SPDX-License-Identifier: BSD-3-Clause
/*
 * fuzz_pte_reader - any bytes as the .pte program symbol mode reads its
 * execution plan from: an error or a plan whose every kernel call names an
 * operator it has, never a crash.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/pte_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pte_plan plan;
	char err[256], name[64];
	uint32_t i, k;

	memset(&plan, 0, sizeof(plan));
	if (pte_read_plan(data, size, NULL, &plan, err, sizeof(err))) {
		if (!memchr(err, '\0', sizeof(err)) || !err[0])
			abort();
		pte_plan_free(&plan);
		return 0;
	}
	for (i = 0; i < plan.nchains; i++) {
		for (k = 0; k < plan.chains[i].n; k++) {
			const struct pte_instruction *in = &plan.chains[i].instr[k];

			if (in->kind != PTE_INSTR_KERNEL_CALL)
				continue;
			/* documented: an op_index out of range is an error */
			if (in->op_index < 0 || (uint32_t)in->op_index >= plan.nops)
				abort();
			pte_kernel_event_name(&plan, in, name, sizeof(name));
		}
	}
	pte_plan_free(&plan);
	return 0;
}

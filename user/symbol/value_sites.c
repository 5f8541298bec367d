// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "lib/log.h"
#include "symbol/arm64_sites.h"
#include "symbol/value_rules.h"
#include "symbol/value_sites.h"

/* Append ", name" to the list unless it holds it already. */
static void list_add(char *list, size_t len, const char *name)
{
	size_t at = strlen(list), n = strlen(name);
	const char *p;

	for (p = strstr(list, name); p; p = strstr(p + 1, name))
		if ((p == list || p[-1] == ' ') && (!p[n] || p[n] == ','))
			return;
	if (at + n + 3 >= len)
		return;
	snprintf(list + at, len - at, "%s%s", at ? ", " : "", name);
}

int value_sites_plan(struct symbol_sites *s, const struct symbol_rules *rs,
		     uint64_t max)
{
	char none[512] = "";
	const struct symbol_output_rule *r;
	size_t i, nnone = 0;

	if (!value_rules_tensor_known(rs)) {
		p_err("--values: the rules give no complete tensor layout (tensor lines: Tensor.impl and TensorImpl's sizes, strides, data, dim, numel, type)");
		return -EINVAL;
	}
	s->values = true;
	s->value_max = max;
	s->tensor = rs->tensor;
	for (i = 0; i < s->n; i++) {
		struct symbol_site *site = &s->sites[i];

		if (site->desc.kind != ETDUMP_FUNC_KERNEL)
			continue;
		r = value_rules_outputs(rs, site->function);
		if (r && r->out.n) {
			site->outputs = r->out;
			/* arm64's x8: bpf/symbols.bpf.c's keep_result_place() */
			if (etdump_outputs_in_memory(&r->out) &&
			    arm64_sites_need_regs(site, 1u << 8))
				s->single_step++;
			continue;
		}
		nnone++;
		list_add(none, sizeof(none), site->desc.name);
	}
	if (nnone)
		p_info("--values: no outputs rule places the out tensors of %zu kernel function(s), whose calls get no DebugEvent: %s",
		       nnone, none);
	return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/log.h"
#include "symbol/plan_walk.h"
#include "symbol/pte_reader.h"
#include "symbol/symbol_coverage.h"
#include "symbol/symbol_sites.h"

#define TEXT_MAX 1024

struct unmapped {
	struct plan_pos pos;
	char op[ETDUMP_NAME_MAX];
};

/* Does a probed function stand for instruction `pos`? */
static bool mapped(const struct pte_plan *p, const struct symbol_sites *s,
		   struct plan_pos pos, bool delegate)
{
	char planned[ETDUMP_NAME_MAX];
	struct plan_pos at;
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct etdump_func_site *d = &s->sites[i].desc;

		if (d->kind != (delegate ? ETDUMP_FUNC_DELEGATE :
					   ETDUMP_FUNC_KERNEL))
			continue;
		if (plan_walk_find(p, pos, delegate, d->name, &at, planned) &&
		    at.chain == pos.chain && at.instr == pos.instr)
			return true;
	}
	return false;
}

/* The operator an instruction calls, as ETDumpGen names it less prefix. */
static void operator_of(const struct pte_plan *p,
			const struct pte_instruction *in,
			char buf[ETDUMP_NAME_MAX])
{
	static const char prefix[] = "native_call_";
	char name[ETDUMP_NAME_MAX];
	size_t skip = 0;

	if (in->kind == PTE_INSTR_DELEGATE_CALL) {
		snprintf(buf, ETDUMP_NAME_MAX, "DELEGATE_CALL");
		return;
	}
	if (pte_kernel_event_name(p, in, name, sizeof(name)))
		snprintf(name, sizeof(name), "operator #%d", in->op_index);
	else if (!strncmp(name, prefix, sizeof(prefix) - 1))
		skip = sizeof(prefix) - 1;
	snprintf(buf, ETDUMP_NAME_MAX, "%s", name + skip);
}

static void append(char *text, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void append(char *text, const char *fmt, ...)
{
	size_t at = strlen(text);
	va_list ap;

	va_start(ap, fmt);
	if (at < TEXT_MAX - 1)
		vsnprintf(text + at, TEXT_MAX - at, fmt, ap);
	va_end(ap);
}

/* "relu.out (instructions 1, 4); ..." in the plan's order. */
static void describe(const struct unmapped *u, size_t n, char *text)
{
	size_t i, j, uses;

	text[0] = '\0';
	for (i = 0; i < n; i++) {
		for (j = 0; j < i && strcmp(u[j].op, u[i].op); j++)
			;
		if (j < i)
			continue;       /* named with its first use */
		for (uses = 0, j = i; j < n; j++)
			uses += !strcmp(u[j].op, u[i].op);
		append(text, "%s%s (instruction%s", i ? "; " : "", u[i].op,
		       uses > 1 ? "s" : "");
		for (uses = 0, j = i; j < n; j++) {
			if (strcmp(u[j].op, u[i].op))
				continue;
			append(text, "%s ", uses++ ? "," : "");
			if (u[j].pos.chain)
				append(text, "%u:", u[j].pos.chain);
			append(text, "%u", u[j].pos.instr);
		}
		append(text, ")");
	}
}

/*
 * Without a program, only that a runtime that opens runs (a block) has no
 * kernel mapped at all can be told.
 */
static size_t no_kernel_at_all(const struct symbol_sites *sites)
{
	bool blocks = false;
	size_t i;

	for (i = 0; i < sites->n; i++) {
		if (sites->sites[i].desc.kind == ETDUMP_FUNC_KERNEL)
			return 0;
		blocks |= sites->sites[i].desc.kind == ETDUMP_FUNC_BLOCK;
	}
	if (!blocks)
		return 0;
	p_warn("no kernel function of the target matches a rule: no kernel call is recorded, only the runtime's own functions (another build? --program PTE names the operators missing; a rule with --rules FILE can name their functions)");
	return 1;
}

size_t symbol_coverage_report(const struct pte_plan *plan,
			      const struct symbol_sites *sites,
			      const char *program)
{
	struct unmapped *u = NULL, *grown;
	size_t n = 0, total = 0;
	struct plan_pos pos;
	char *text;

	if (!plan)
		return no_kernel_at_all(sites);
	for (pos.chain = 0; pos.chain < plan->nchains; pos.chain++) {
		const struct pte_chain *c = &plan->chains[pos.chain];

		for (pos.instr = 0; pos.instr < c->n; pos.instr++) {
			const struct pte_instruction *in = &c->instr[pos.instr];
			bool delegate = in->kind == PTE_INSTR_DELEGATE_CALL;

			if (!delegate && in->kind != PTE_INSTR_KERNEL_CALL)
				continue;
			total++;
			if (mapped(plan, sites, pos, delegate))
				continue;
			grown = realloc(u, (n + 1) * sizeof(*u));
			if (!grown)
				break;
			u = grown;
			u[n].pos = pos;
			operator_of(plan, in, u[n].op);
			n++;
		}
	}
	text = n ? malloc(TEXT_MAX) : NULL;
	if (text) {
		describe(u, n, text);
		p_warn("%s: no function of the target stands for %zu of its %zu kernel and delegate instructions, which are not recorded: %s (a rule with --rules FILE can name the function that does)",
		       program, n, total, text);
	}
	free(text);
	free(u);
	return n;
}

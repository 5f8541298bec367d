// SPDX-License-Identifier: BSD-3-Clause
#include <ctype.h>
#include <string.h>
#include "symbol/plan_walk.h"
#include "symbol/pte_reader.h"

/* "native_call__softmax.out" and "native_call_softmax.out" are one op. */
static bool same_operator(const char *observed, const char *planned)
{
	static const char prefix[] = "native_call_";
	const char *a = observed, *b = planned;

	if (!strncmp(a, prefix, sizeof(prefix) - 1))
		a += sizeof(prefix) - 1;
	if (!strncmp(b, prefix, sizeof(prefix) - 1))
		b += sizeof(prefix) - 1;
	for (;;) {
		while (*a == '_' || *a == '.')
			a++;
		while (*b == '_' || *b == '.')
			b++;
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return false;
		if (!*a)
			return true;
		a++;
		b++;
	}
}

/* Does instruction `in` of the plan fit an observed call? */
static bool plan_fits(const struct pte_plan *p,
		      const struct pte_instruction *in, bool delegate,
		      const char *observed, char planned[ETDUMP_NAME_MAX])
{
	if (delegate)
		return in->kind == PTE_INSTR_DELEGATE_CALL;
	return in->kind == PTE_INSTR_KERNEL_CALL &&
	       !pte_kernel_event_name(p, in, planned, ETDUMP_NAME_MAX) &&
	       same_operator(observed, planned);
}

static bool pos_before(struct plan_pos a, struct plan_pos b)
{
	return a.chain < b.chain || (a.chain == b.chain && a.instr < b.instr);
}

/*
 * The first instruction at or after `from` (and before `to`) that fits;
 * its position in *at and its name in planned.
 */
static bool plan_find(const struct pte_plan *p, struct plan_pos from,
		      struct plan_pos to, bool delegate, const char *observed,
		      struct plan_pos *at, char planned[ETDUMP_NAME_MAX])
{
	struct plan_pos i;

	for (i = from; i.chain < p->nchains && pos_before(i, to);
	     i.instr = 0, i.chain++) {
		for (; i.instr < p->chains[i.chain].n && pos_before(i, to);
		     i.instr++) {
			if (plan_fits(p, &p->chains[i.chain].instr[i.instr],
				      delegate, observed, planned)) {
				*at = i;
				return true;
			}
		}
	}
	return false;
}

bool plan_walk_find(const struct pte_plan *p, struct plan_pos from,
		    bool delegate, const char *observed, struct plan_pos *at,
		    char planned[ETDUMP_NAME_MAX])
{
	static const struct plan_pos end = { UINT32_MAX, UINT32_MAX };
	static const struct plan_pos start = { 0, 0 };

	/* on from there, then from the top: a loop jumped back */
	return plan_find(p, from, end, delegate, observed, at, planned) ||
	       plan_find(p, start, from, delegate, observed, at, planned);
}

// SPDX-License-Identifier: BSD-3-Clause
#include <stdlib.h>
#include <string.h>
#include "symbol/site_list.h"

struct symbol_site *symbol_sites_new(struct symbol_sites *out)
{
	struct symbol_site *sites, *s;

	sites = realloc(out->sites, (out->n + 1) * sizeof(*sites));
	if (!sites)
		return NULL;
	out->sites = sites;
	s = &sites[out->n];
	memset(s, 0, sizeof(*s));
	s->desc.id = out->n++;
	return s;
}

size_t symbol_sites_count(const struct symbol_sites *s, int kind)
{
	size_t i, n = 0;

	for (i = 0; i < s->n; i++)
		n += s->sites[i].desc.kind == kind;
	return n;
}

void symbol_sites_drop(struct symbol_sites *s, int kind)
{
	size_t i, n = 0;

	for (i = 0; i < s->n; i++) {
		if (s->sites[i].desc.kind == kind) {
			s->single_step -= s->sites[i].single_step;
			free(s->sites[i].function);
			continue;
		}
		s->sites[n] = s->sites[i];
		s->sites[n].desc.id = n;
		n++;
	}
	s->n = n;
}

void symbol_sites_free(struct symbol_sites *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->sites[i].function);
	free(s->sites);
	for (i = 0; i < s->nxnn; i++) {
		xnn_ops_free(&s->xnn[i]->ops);
		free(s->xnn[i]);
	}
	free(s->xnn);
	path_list_free(&s->objects);
	memset(s, 0, sizeof(*s));
}

size_t symbol_sites_probes(const struct symbol_site *first, size_t n,
			   enum symbol_probe_kind kind, uint64_t *offsets,
			   uint64_t *cookies)
{
	size_t i, k, m = 0;

	for (i = 0; i < n; i++) {
		const struct symbol_site *s = &first[i];
		bool gap = kind == SYMBOL_PROBE_GAP_RETURN ||
			   kind == SYMBOL_PROBE_GAP_EXIT_AT;
		bool exits = kind == SYMBOL_PROBE_EXIT_AT ||
			     kind == SYMBOL_PROBE_GAP_EXIT_AT;
		bool xnn = s->desc.kind == ETDUMP_FUNC_XNN_OP;
		/* an entry, a return, or each of the exits */
		size_t probes = kind == SYMBOL_PROBE_ENTRY ? !xnn :
				kind == SYMBOL_PROBE_XNN_CALL ? xnn :
				gap != s->ends_at_next ? 0 :
				exits ? s->nexits : !s->nexits;

		for (k = 0; k < probes; k++, m++) {
			if (!offsets)
				continue;
			offsets[m] = exits ? s->exit_offsets[k] : s->offset;
			cookies[m] = s->desc.id;
		}
	}
	return m;
}

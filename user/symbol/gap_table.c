// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/gap_table.h"

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The lower quartile of n values, reordered. */
static uint64_t quartile_of(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), by_value);
	return v[(n - 1) / 4];
}

static struct gap_pair *pair_found(const struct gap_table *g, uint32_t from,
				   uint32_t to, bool to_exit)
{
	size_t i;

	for (i = 0; i < g->npairs; i++)
		if (g->pairs[i].from == from && g->pairs[i].to == to &&
		    g->pairs[i].to_exit == to_exit)
			return &g->pairs[i];
	return NULL;
}

int gap_table_add(struct gap_table *g, uint32_t from, uint32_t to,
		  bool to_exit, uint64_t ns)
{
	struct gap_pair *p = pair_found(g, from, to, to_exit), *grown;
	uint64_t sorted[GAP_SAMPLES];

	if (!p) {
		grown = realloc(g->pairs, (g->npairs + 1) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		g->pairs = grown;
		p = &grown[g->npairs++];
		memset(p, 0, sizeof(*p));
		p->from = from;
		p->to = to;
		p->to_exit = to_exit;
	}
	if (p->n == GAP_SAMPLES)
		return 0;
	p->ns[p->n++] = ns;
	g->samples++;
	memcpy(sorted, p->ns, p->n * sizeof(*sorted));
	p->low = quartile_of(sorted, p->n);
	return 0;
}

bool gap_table_get(const struct gap_table *g, uint32_t from, uint32_t to,
		   bool to_exit, uint64_t *ns)
{
	const struct gap_pair *p = pair_found(g, from, to, to_exit);
	bool found = false;
	size_t i;

	if (p) {
		*ns = p->low;
		return true;
	}
	/* the least is what the kernel surely did not run for */
	for (i = 0; i < g->npairs; i++) {
		if (g->pairs[i].from != from ||
		    (found && g->pairs[i].low >= *ns))
			continue;
		*ns = g->pairs[i].low;
		found = true;
	}
	for (i = 0; !found && i < g->npairs; i++)
		if (!i || g->pairs[i].low < *ns)
			*ns = g->pairs[i].low;
	return found || g->npairs;
}

bool gap_table_range(const struct gap_table *g, uint64_t *least,
		     uint64_t *median, uint64_t *most)
{
	uint64_t *v;
	size_t i;

	if (!g->npairs)
		return false;
	v = malloc(g->npairs * sizeof(*v));
	if (!v)
		return false;
	for (i = 0; i < g->npairs; i++)
		v[i] = g->pairs[i].low;
	qsort(v, g->npairs, sizeof(*v), by_value);
	*median = v[(g->npairs - 1) / 2];
	*least = v[0];
	*most = v[g->npairs - 1];
	free(v);
	return true;
}

void gap_table_free(struct gap_table *g)
{
	free(g->pairs);
	memset(g, 0, sizeof(*g));
}

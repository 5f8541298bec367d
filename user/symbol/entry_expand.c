// SPDX-License-Identifier: BSD-3-Clause
#include <string.h>
#include "schema/symbol_xnnpack.h"
#include "symbol/entry_expand.h"

/* A name of at most ETDUMP_NAME_MAX - 1 bytes into a site's field. */
static uint16_t put(char *dst, const char *name)
{
	size_t n = strnlen(name, ETDUMP_NAME_MAX - 1);

	memcpy(dst, name, n);
	memset(dst + n, 0, ETDUMP_NAME_MAX - n);
	return (uint16_t)n;
}

/*
 * The operator's name and its microkernel type's, as the binary's tables
 * give them (xnnpack_ops.h): by type and sub-type for the types named by
 * one, else by type (not the copy types, whose sub-type is not read); none
 * when the type or the microkernel type is not one named.
 */
static void xnn_name(const struct xnn_ops *x,
		     const struct etdump_rec_xnn_call *c,
		     struct etdump_func_site *site)
{
	const char *name = NULL, *uk;
	size_t j;

	site->name_len = site->arg_len = 0;
	for (j = 0; j < 2 && !name; j++)
		if (x->sub[j].names && x->sub[j].type == c->type &&
		    c->sub + 1 < x->sub[j].n)
			name = x->sub[j].names[c->sub + 1];
	if (!name && c->type < x->ntypes && x->type_names[c->type][0] &&
	    !(c->type >= x->copy_first && c->type <= x->copy_last))
		name = x->type_names[c->type];
	if (!name || c->ukernel >= ETDUMP_XNN_UKERNELS)
		return;
	uk = c->ukernel < x->nukernels && c->ukernel ?
		     x->ukernel_names[c->ukernel] : "";
	if (c->ukernel && !uk[0])
		return;
	site->name_len = put(site->name, name);
	site->arg_len = put(site->arg, uk);
}

/* The header of the FUNC_ENTRY a record of the probe's stands for. */
static void entry_head(struct etdump_rec_func_entry *out,
		       const struct etdump_rec_hdr *h)
{
	out->hdr = *h;
	out->hdr.type = ETDUMP_REC_FUNC_ENTRY;
	out->hdr.size = sizeof(*out);
	/* no counter samples follow: symbol mode's probes take none */
	out->hdr.ncounters = 0;
}

bool entry_expand(const struct symbol_sites *s, const void *rec, size_t len,
		  struct etdump_rec_func_entry *out)
{
	const struct etdump_rec_func_call *c = rec;
	const struct etdump_rec_xnn_call *x = rec;

	if (len >= sizeof(*x) && x->hdr.type == ETDUMP_REC_XNN_CALL &&
	    x->hdr.size >= sizeof(*x) && x->hdr.size <= len && x->id < s->n) {
		entry_head(out, &x->hdr);
		out->site = s->sites[x->id].desc;
		out->site.part = x->part;
		if (s->sites[x->id].xnn)
			xnn_name(&s->sites[x->id].xnn->ops, x, &out->site);
		else
			out->site.name_len = out->site.arg_len = 0;
		return true;
	}
	if (len < sizeof(*c) || c->hdr.type != ETDUMP_REC_FUNC_CALL ||
	    c->hdr.size < sizeof(*c) || c->hdr.size > len || c->id >= s->n)
		return false;
	entry_head(out, &c->hdr);
	out->site = s->sites[c->id].desc;
	return true;
}

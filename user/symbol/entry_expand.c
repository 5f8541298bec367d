// SPDX-License-Identifier: BSD-3-Clause
#include <string.h>
#include "entry_expand.h"

bool entry_expand(const struct symbol_sites *s, const void *rec, size_t len,
		  struct etdump_rec_func_entry *out)
{
	const struct etdump_rec_func_call *c = rec;

	if (len < sizeof(*c) || c->hdr.type != ETDUMP_REC_FUNC_CALL ||
	    c->hdr.size < sizeof(*c) || c->hdr.size > len || c->id >= s->n)
		return false;
	out->hdr = c->hdr;
	out->hdr.type = ETDUMP_REC_FUNC_ENTRY;
	out->hdr.size = sizeof(*out);
	/* no counter samples follow: symbol mode's probes take none */
	out->hdr.ncounters = 0;
	out->site = s->sites[c->id].desc;
	return true;
}

// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/etdump_counters.h"

bool etd_counters_encodable(const struct etd_event *ev)
{
	/* a delegate's metadata belongs to its parser: never mix ours in */
	return ev->kind == ETD_PROFILE && ev->counters.n && !ev->has_metadata &&
	       ev->delegate_id_int == -1 && !ev->delegate_id_str;
}

int etd_counters_encode(const struct etd_dump *dump,
			const struct etd_counters *c, char *buf, size_t len)
{
	size_t off;
	uint32_t i;
	int n;

	n = snprintf(buf, len, "%s", ETD_COUNTERS_MAGIC);
	for (i = 0, off = n; i < c->n && i < dump->ncounters; i++, off += n) {
		if (off >= len)
			return -ENOSPC;
		if (c->valid[i])
			n = snprintf(buf + off, len - off, ";%s=%" PRIu64,
				     dump->counter_names[i], c->value[i]);
		else
			n = snprintf(buf + off, len - off, ";%s=?",
				     dump->counter_names[i]);
	}
	return off < len ? (int)off : -ENOSPC;
}

/* One "name=value" item; the name is checked against (or sets) slot i. */
static int decode_item(struct etd_dump *dump, uint32_t i, const char *item,
		       size_t len, struct etd_counters *c)
{
	const char *eq = memchr(item, '=', len);
	size_t nlen;
	char *end;

	if (!eq || eq == item || i >= ETD_MAX_COUNTERS)
		return -EINVAL;
	nlen = eq - item;
	if (i < dump->ncounters) {
		if (strlen(dump->counter_names[i]) != nlen ||
		    memcmp(dump->counter_names[i], item, nlen))
			return -EINVAL;
	} else {
		dump->counter_names[i] = strndup(item, nlen);
		if (!dump->counter_names[i])
			return -ENOMEM;
		dump->ncounters = i + 1;
	}
	eq++;
	if (len - (eq - item) == 1 && *eq == '?') {
		c->valid[i] = false;
		c->value[i] = 0;
		return 0;
	}
	if (eq == item + len || *eq < '0' || *eq > '9')
		return -EINVAL;
	errno = 0;
	c->value[i] = strtoull(eq, &end, 10);
	if (errno || end != item + len)
		return -EINVAL;
	c->valid[i] = true;
	return 0;
}

static int decode_event(struct etd_dump *dump, struct etd_event *ev)
{
	const size_t mlen = sizeof(ETD_COUNTERS_MAGIC) - 1;
	const char *p, *end, *semi;
	struct etd_counters c = { 0 };
	char text[512];
	int err;

	/* a delegate's metadata is its own, whatever it holds (COUNTERS.md) */
	if (ev->kind != ETD_PROFILE || !ev->has_metadata ||
	    ev->delegate_id_str || ev->delegate_id_int != ETD_UNSET ||
	    ev->metadata_len <= mlen || ev->metadata_len >= sizeof(text) ||
	    memcmp(ev->metadata, ETD_COUNTERS_MAGIC, mlen) ||
	    ev->metadata[mlen] != ';')
		return 0;
	memcpy(text, ev->metadata, ev->metadata_len);
	/* strtoull stops at the first non-digit: the last value needs an end */
	text[ev->metadata_len] = '\0';
	end = text + ev->metadata_len;
	for (p = text + mlen + 1; p < end; p = semi + 1) {
		semi = memchr(p, ';', end - p);
		if (!semi)
			semi = end;
		err = decode_item(dump, c.n, p, semi - p, &c);
		if (err)
			return err;
		c.n++;
	}
	ev->counters = c;
	free(ev->metadata);
	ev->metadata = NULL;
	ev->metadata_len = 0;
	ev->has_metadata = false;
	return 0;
}

int etd_counters_decode_dump(struct etd_dump *dump)
{
	size_t r, e;
	int err;

	for (r = 0; r < dump->nruns; r++) {
		for (e = 0; e < dump->runs[r].nevents; e++) {
			err = decode_event(dump, &dump->runs[r].events[e]);
			if (err)
				return err;
		}
	}
	return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/grow_array.h"
#include "lib/strtab.h"
#include "write/string_index.h"

static size_t slot_of(const struct string_index *t, const char *s)
{
	size_t mask = t->nslots - 1;
	size_t i = strtab_hash(s, strlen(s)) & mask;

	while (t->slots[i] && strcmp(t->strs[t->slots[i] - 1], s))
		i = (i + 1) & mask;
	return i;
}

/* Kept at most half full, so that a probe ends soon. */
static int grow_slots(struct string_index *t)
{
	size_t nslots = t->nslots ? 2 * t->nslots : 64, i;
	uint32_t *old = t->slots;
	size_t oldn = t->nslots;

	t->slots = calloc(nslots, sizeof(*t->slots));
	if (!t->slots) {
		t->slots = old;
		return -ENOMEM;
	}
	t->nslots = nslots;
	for (i = 0; i < oldn; i++)
		if (old[i])
			t->slots[slot_of(t, t->strs[old[i] - 1])] = old[i];
	free(old);
	return 0;
}

int string_index_add(struct string_index *t, const char *s, size_t *out)
{
	size_t at;

	if (2 * (t->n + 1) > t->nslots && grow_slots(t))
		return -ENOMEM;
	if (t->n >= UINT32_MAX - 1)
		return -ENOMEM;
	at = slot_of(t, s);
	if (t->slots[at]) {
		*out = t->slots[at] - 1;
		return 0;
	}
	if (grow_array((void **)&t->strs, &t->cap, t->n, 1, sizeof(*t->strs)))
		return -ENOMEM;
	t->strs[t->n] = strdup(s);
	if (!t->strs[t->n])
		return -ENOMEM;
	t->slots[at] = (uint32_t)++t->n;
	*out = t->n - 1;
	return 0;
}

void string_index_free(struct string_index *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->strs[i]);
	grow_array_free(t->strs, t->cap, sizeof(*t->strs));
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

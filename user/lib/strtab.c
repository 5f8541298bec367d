// SPDX-License-Identifier: BSD-3-Clause
#include <stdlib.h>
#include <string.h>
#include "lib/strtab.h"
#include "lib/utf8.h"

/* strings live in chunks that never move: their addresses are the ids */
#define CHUNK_BYTES (64u << 10)

struct chunk {
	struct chunk *next;
	size_t used;
	size_t cap;
	char data[];
};

struct slot {
	const char *str;   /* NULL: free */
	const char *raw;   /* the bytes as given, before sanitizing */
	uint32_t hash;
	uint32_t len;
};

struct strtab {
	struct slot *slots;
	size_t nslots;     /* a power of two */
	size_t n;
	struct chunk *chunks;
	size_t bytes;
	/* the slot found last: most events name what the one before named */
	size_t last;
};

/* eight bytes a step: names are hashed once per event */
uint32_t strtab_hash(const void *s, size_t len)
{
	const unsigned char *p = s;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	if (len) {
		w = 0;
		memcpy(&w, p, len);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
	}
	h ^= h >> 29;
	return (uint32_t)h;
}

struct strtab *strtab_new(void)
{
	struct strtab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->nslots = 256;
	t->slots = calloc(t->nslots, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		return NULL;
	}
	return t;
}

static char *chunk_alloc(struct strtab *t, size_t n)
{
	struct chunk *c = t->chunks;
	size_t cap;

	if (!c || c->cap - c->used < n) {
		cap = n > CHUNK_BYTES ? n : CHUNK_BYTES;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = t->chunks;
		c->used = 0;
		c->cap = cap;
		t->chunks = c;
		t->bytes += sizeof(*c) + cap;
	}
	c->used += n;
	return c->data + c->used - n;
}

static int grow(struct strtab *t)
{
	size_t i, j, mask, nslots = t->nslots * 2;
	struct slot *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return -1;
	mask = nslots - 1;
	for (i = 0; i < t->nslots; i++) {
		if (!t->slots[i].str)
			continue;
		for (j = t->slots[i].hash & mask; slots[j].str; j = (j + 1) & mask)
			;
		slots[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
	t->last = 0;
	return 0;
}

const char *strtab_intern(struct strtab *t, const char *s, size_t len)
{
	struct slot *sl = &t->slots[t->last];
	uint32_t hash;
	size_t i, mask = t->nslots - 1;
	char *raw, *str;

	/* before hashing: this runs for every event */
	if (sl->str && sl->len == len && !memcmp(sl->raw, s, len))
		return sl->str;
	hash = strtab_hash(s, len);
	for (i = hash & mask; t->slots[i].str; i = (i + 1) & mask) {
		sl = &t->slots[i];
		if (sl->hash == hash && sl->len == len &&
		    !memcmp(sl->raw, s, len)) {
			t->last = i;
			return sl->str;
		}
	}
	if (2 * (t->n + 1) > t->nslots) {
		if (grow(t))
			return NULL;
		return strtab_intern(t, s, len);
	}
	/* the raw bytes to match, then the sanitized string to hand out */
	raw = chunk_alloc(t, 2 * (len + 1));
	if (!raw)
		return NULL;
	memcpy(raw, s, len);
	raw[len] = '\0';
	str = raw + len + 1;
	memcpy(str, raw, len + 1);
	utf8_sanitize(str);
	sl = &t->slots[i];
	sl->raw = raw;
	sl->str = str;
	sl->hash = hash;
	sl->len = len;
	t->n++;
	t->last = i;
	return str;
}

size_t strtab_bytes(const struct strtab *t)
{
	return t->bytes + t->nslots * sizeof(*t->slots);
}

void strtab_free(struct strtab *t)
{
	struct chunk *c, *next;

	if (!t)
		return;
	for (c = t->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(t->slots);
	free(t);
}

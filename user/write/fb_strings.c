// SPDX-License-Identifier: BSD-3-Clause
/*
 * fb_strings.c - a flatbuffer's strings and vectors (fb_builder.h): shared
 * strings made once, by address and by content.
 */
#include <stdlib.h>
#include "lib/strtab.h"
#include "write/fb_builder_state.h"

int fb_create_string_len(struct fb_builder *b, const char *s, size_t len,
			 fb_ref *out)
{
	uint8_t *p;
	int err;

	*out = 0;
	err = fb_object_start(b);
	if (err)
		return err;
	if (len >= FB_MAX_SIZE)
		return fb_fail(b, -E2BIG);
	/* length, bytes, NUL: the length field must start 4-aligned */
	err = fb_prep(b, 4, 4 + len + 1);
	if (err)
		return err;
	p = fb_push(b, len + 1);
	if (len)
		memcpy(p, s, len);
	p[len] = 0;
	fb_put_le(fb_push(b, 4), len, 4);
	*out = b->size;
	return 0;
}

static bool shared_is(const struct fb_shared *e, const char *s, size_t len)
{
	return e->len == len && !memcmp(e->copy, s, len);
}

static int shared_grow(struct fb_builder *b)
{
	size_t i, j, cap = b->shared_cap ? 2 * b->shared_cap : 64;
	struct fb_shared *t = calloc(cap, sizeof(*t));

	if (!t)
		return fb_fail(b, -ENOMEM);
	for (i = 0; i < b->shared_cap; i++) {
		if (!b->shared[i].ref)
			continue;
		for (j = b->shared[i].hash & (cap - 1); t[j].ref;
		     j = (j + 1) & (cap - 1))
			;
		t[j] = b->shared[i];
	}
	free(b->shared);
	b->shared = t;
	b->shared_cap = cap;
	return 0;
}

int fb_create_shared_string(struct fb_builder *b, const char *s, fb_ref *out)
{
	struct fb_shared_hit *hit;
	size_t len, i;
	uint32_t hash;
	int err;

	*out = 0;
	if (!s || b->err)
		return b->err;
	/* the caller's strings do not change while it builds: same address, same string */
	hit = &b->shared_hits[((uintptr_t)s >> 3) % FB_SHARED_HITS];
	if (hit->s == s) {
		*out = hit->ref;
		return 0;
	}
	len = strlen(s);
	hash = strtab_hash(s, len);
	if (2 * (b->nshared + 1) > b->shared_cap && (err = shared_grow(b)))
		return err;
	for (i = hash & (b->shared_cap - 1); b->shared[i].ref;
	     i = (i + 1) & (b->shared_cap - 1)) {
		if (b->shared[i].hash == hash &&
		    shared_is(&b->shared[i], s, len)) {
			*out = hit->ref = b->shared[i].ref;
			hit->s = s;
			return 0;
		}
	}
	b->shared[i].copy = malloc(len + 1);
	if (!b->shared[i].copy)
		return fb_fail(b, -ENOMEM);
	err = fb_create_string_len(b, s, len, out);
	if (err) {
		free(b->shared[i].copy);
		b->shared[i].copy = NULL;
		return err;
	}
	memcpy(b->shared[i].copy, s, len);
	b->shared[i].len = len;
	b->shared[i].hash = hash;
	b->shared[i].ref = *out;
	b->nshared++;
	hit->s = s;
	hit->ref = *out;
	return 0;
}

void fb_builder_forget_addresses(struct fb_builder *b)
{
	memset(b->shared_hits, 0, sizeof(b->shared_hits));
}

void fb_builder_forget_address(struct fb_builder *b, const char *s)
{
	struct fb_shared_hit *hit;

	if (!s)
		return;
	hit = &b->shared_hits[((uintptr_t)s >> 3) % FB_SHARED_HITS];
	if (hit->s == s)
		hit->s = NULL;
}

int fb_create_string(struct fb_builder *b, const char *s, fb_ref *out)
{
	if (!s) {
		*out = 0;
		return b->err;
	}
	return fb_create_string_len(b, s, strlen(s), out);
}

/*
 * Push the element count and room for count elements after it, aligned for
 * both; *elems is where element 0 goes, valid until the next call. src is
 * the caller's array, checked only for NULL.
 */
static int vector_start(struct fb_builder *b, const void *src, size_t count,
			size_t elem_size, uint8_t **elems)
{
	size_t align = elem_size > 4 ? elem_size : 4;
	int err;

	err = fb_object_start(b);
	if (err)
		return err;
	if (!src && count)
		return fb_fail(b, -EINVAL);
	if (count > (FB_MAX_SIZE - 4) / elem_size)
		return fb_fail(b, -E2BIG);
	err = fb_prep(b, align, count * elem_size);
	if (err)
		return err;
	fb_push(b, count * elem_size);
	/* the elements start 4-aligned at least: this only makes room */
	err = fb_prep(b, 4, 4);
	if (err)
		return err;
	fb_put_le(fb_push(b, 4), count, 4);
	*elems = fb_at(b, b->size - 4);
	return 0;
}

int fb_create_vector_u8(struct fb_builder *b, const uint8_t *v, size_t count,
			fb_ref *out)
{
	uint8_t *dst;
	int err;

	*out = 0;
	err = fb_object_start(b);
	if (err)
		return err;
	/* every delegate event of an ETDump has one, most of them empty */
	if (!count && b->empty_u8) {
		*out = b->empty_u8;
		return 0;
	}
	err = vector_start(b, v, count, sizeof(*v), &dst);
	if (err)
		return err;
	if (count)
		memcpy(dst, v, count);
	*out = b->size;
	if (!count)
		b->empty_u8 = *out;
	return 0;
}

int fb_create_vector_i64(struct fb_builder *b, const int64_t *v, size_t count,
			 fb_ref *out)
{
	uint8_t *dst;
	size_t i;
	int err;

	*out = 0;
	err = vector_start(b, v, count, sizeof(*v), &dst);
	if (err)
		return err;
	for (i = 0; i < count; i++)
		fb_put_le(dst + 8 * i, (uint64_t)v[i], 8);
	*out = b->size;
	return 0;
}

int fb_create_vector_refs(struct fb_builder *b, const fb_ref *refs,
			  size_t count, fb_ref *out)
{
	uint8_t *dst;
	fb_ref elem0;
	size_t i;
	int err;

	/* out may be one of refs: it is set last */
	err = vector_start(b, refs, count, 4, &dst);
	/* each element is relative to its own slot, after its target */
	elem0 = b->size - 4;
	for (i = 0; !err && i < count; i++) {
		if (!refs[i] || refs[i] >= elem0 - 4 * i)
			err = fb_fail(b, -EINVAL);
		else
			fb_put_uoffset(b, elem0 - 4 * i, refs[i]);
	}
	*out = err ? 0 : b->size;
	return err;
}

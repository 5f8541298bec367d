/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fb_builder_state.h - what the files of the flatbuffer builder
 * (fb_builder.h) share and no one else: the buffer's bounds, its shared
 * strings, and the steps every object is made with, inline where every
 * field of every event goes through them (fb_buffer.c, fb_strings.c,
 * fb_tables.c).
 */
#ifndef ETDUMP_FB_BUILDER_STATE_H
#define ETDUMP_FB_BUILDER_STATE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "write/fb_builder.h"

/* soffsets are int32; stay clear of their limit, 8-aligned */
#define FB_MAX_SIZE 0x7ffffff8u

/*
 * Shared strings and vtables are compared with those made before: their
 * bytes are kept here, as the buffer's may be on disk (fb_builder_spill).
 */
struct fb_shared {
	uint32_t hash;
	fb_ref ref;             /* 0: free slot */
	char *copy;
	size_t len;
};

static inline int fb_fail(struct fb_builder *b, int err)
{
	if (!b->err)
		b->err = err;
	return b->err;
}

static inline void fb_put_le(uint8_t *p, uint64_t v, size_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* one store: every table field of every event goes through here */
	switch (n) {
	case 8:
		memcpy(p, &v, 8);
		return;
	case 4: {
		uint32_t w = (uint32_t)v;

		memcpy(p, &w, 4);
		return;
	}
	case 2: {
		uint16_t w = (uint16_t)v;

		memcpy(p, &w, 2);
		return;
	}
	case 1:
		*p = (uint8_t)v;
		return;
	}
#endif
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint8_t *fb_at(const struct fb_builder *b, fb_ref ref)
{
	return b->buf + b->cap - ref;
}

/* Room for n more bytes at the front; the data moves to the new end. */
int fb_reserve_slow(struct fb_builder *b, size_t n);

/* The common case inline: room there already. */
static inline int fb_reserve(struct fb_builder *b, size_t n)
{
	if (n <= FB_MAX_SIZE - b->size &&
	    (b->mapped ? b->size + n <= b->populated :
			 b->buf && b->cap - b->size >= n))
		return 0;
	return fb_reserve_slow(b, n);
}

/*
 * Zero-pad so that once n more bytes are pushed the size is a multiple of
 * align, i.e. those bytes start aligned, and make room for them.
 */
static inline int fb_prep(struct fb_builder *b, size_t align, size_t n)
{
	/* every alignment is a power of two: no division on this hot path */
	size_t pad = (0 - (b->size + n)) & (align - 1);
	int err;

	err = fb_reserve(b, pad + n);
	if (err)
		return err;
	b->size += pad;
	if (pad)
		memset(fb_at(b, b->size), 0, pad);
	return 0;
}

/* Claim n bytes at the front, room made by fb_prep(). */
static inline uint8_t *fb_push(struct fb_builder *b, size_t n)
{
	b->size += n;
	return fb_at(b, b->size);
}

/* A uoffset at `from` to the object at `to`, both refs. */
static inline void fb_put_uoffset(struct fb_builder *b, fb_ref from,
				  fb_ref to)
{
	fb_put_le(fb_at(b, from), from - to, 4);
}

static inline int fb_object_start(struct fb_builder *b)
{
	if (b->err)
		return b->err;
	if (b->in_table || b->finished)
		return fb_fail(b, -EINVAL);
	return 0;
}

#endif /* ETDUMP_FB_BUILDER_STATE_H */

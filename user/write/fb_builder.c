// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "lib/huge_pages.h"
#include "lib/io_all.h"
#include "lib/strtab.h"
#include "write/fb_builder.h"

/* soffsets are int32; stay clear of their limit, 8-aligned */
#define FB_MAX_SIZE 0x7ffffff8u
#define FB_FILE_ALIGN 8
/*
 * Past this, the buffer moves once into a mapping as large as a buffer can
 * be, reserved but untouched: it grows at the front without being copied
 * again (a doubling would copy and fault in the whole file each time), and
 * its pages are only those the data fills.
 */
#define FB_MAP_AFTER (1u << 20)
#define FB_MAP_SIZE ((size_t)FB_MAX_SIZE + 8)

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

struct fb_vtable {
	fb_ref ref;
	uint8_t bytes[4 + 2 * FB_MAX_SLOTS];
};

void fb_builder_init(struct fb_builder *b)
{
	memset(b, 0, sizeof(*b));
	b->spill_fd = -1;
}

void fb_builder_spill(struct fb_builder *b, int fd)
{
	b->spill_fd = fd;
}

static void buf_free(struct fb_builder *b)
{
	if (b->mapped)
		munmap(b->buf, b->cap);
	else
		free(b->buf);
}

void fb_builder_free(struct fb_builder *b)
{
	while (b->nspares) {
		b->nspares--;
		munmap(b->spares[b->nspares].mem, b->spares[b->nspares].len);
	}
	buf_free(b);
	free(b->vtables);
	free(b->typed);
	for (size_t i = 0; i < b->shared_cap; i++)
		free(b->shared[i].copy);
	free(b->shared);
	fb_builder_init(b);
}

static int fail(struct fb_builder *b, int err)
{
	if (!b->err)
		b->err = err;
	return b->err;
}

static inline void put_le(uint8_t *p, uint64_t v, size_t n)
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

static uint8_t *at(const struct fb_builder *b, fb_ref ref)
{
	return b->buf + b->cap - ref;
}

/*
 * The pages the mapped buffer grows into next, populated a chunk at a time:
 * one call instead of a fault per page (dear in a VM). Best effort: a
 * kernel without MADV_POPULATE_WRITE faults them in one by one.
 */
#define FB_POPULATE (2u << 20)

/*
 * Move a given region's pages to the front of the populated part: its
 * page-table entries change hands, no page is freed, allocated or cleared.
 * Every byte pushed is written before it is read, so what they held does
 * not matter. Returns the bytes moved.
 */
static size_t take_spare(struct fb_builder *b, size_t want)
{
	struct fb_spare *sp = &b->spares[b->nspares - 1];
	size_t k = sp->len < want ? sp->len : want;
	uint8_t *dst = b->buf + b->cap - b->populated - k;
	uint8_t *src = sp->mem;

	if (mremap(src, k, k, MREMAP_MAYMOVE | MREMAP_FIXED, dst) ==
	    MAP_FAILED)
		return 0;
	/*
	 * A spilled chunk's pages leave a hole in the reservation, where the
	 * next mmap() anywhere in the recorder may land (a run log's slab did)
	 * and which buf_free() would unmap with the rest: mapped again,
	 * untouched. Failing that, the pages go back.
	 */
	if (src >= b->buf && src < b->buf + b->cap &&
	    mmap(src, k, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
		 0) == MAP_FAILED) {
		mremap(dst, k, k, MREMAP_MAYMOVE | MREMAP_FIXED, src);
		return 0;
	}
	sp->mem = src + k;
	sp->len -= k;
	if (!sp->len)
		b->nspares--;
	return k;
}

static void populate_ahead(struct fb_builder *b, size_t n)
{
	size_t need = b->size + n, upto, k;

	if (need <= b->populated)
		return;
	upto = (need + FB_POPULATE) & ~(size_t)(FB_POPULATE - 1);
	if (upto > b->cap)
		upto = b->cap;
	while (b->nspares && b->populated < upto) {
		k = take_spare(b, upto - b->populated);
		if (!k)
			break;
		b->populated += k;
	}
	if (b->populated < upto)
		madvise(b->buf + b->cap - upto, upto - b->populated,
			MADV_POPULATE_WRITE);
	b->populated = upto;
}

/*
 * Spilling (fb_builder_spill): the oldest data goes to the file in chunks
 * once more than FB_SPILL_KEEP is held, and a chunk's pages become the
 * next ones the front grows into (fb_builder_give_pages): given back to the
 * system instead, each new page of the front would be cleared again, ~1/8
 * of the recorder's CPU on a long recording.
 */
#define FB_SPILL_CHUNK (2u << 20)
#define FB_SPILL_KEEP (2u << 20)
/* fb_output() reads the spilled chunks back through the last one kept */
_Static_assert(FB_SPILL_KEEP >= FB_SPILL_CHUNK, "a chunk is kept");
_Static_assert(FB_SPILL_KEEP + FB_SPILL_CHUNK == FB_SPILL_HELD,
	       "held before the first spill");

/*
 * Chunk j (distances j*CHUNK to (j+1)*CHUNK from the end) is at offset
 * j*CHUNK of the file: its memory is aligned to 2 MiB (map_reserve()),
 * its offset and length to the chunk, as O_DIRECT wants them.
 */
static void spill_behind(struct fb_builder *b)
{
	uint8_t *mem;
	int err;

	while (b->size - b->spilled >= FB_SPILL_KEEP + FB_SPILL_CHUNK) {
		mem = at(b, b->spilled + FB_SPILL_CHUNK);
		err = pwrite_all(b->spill_fd, mem, FB_SPILL_CHUNK,
				   (off_t)b->spilled);
		if (err) {
			fail(b, err);
			return;
		}
		fb_builder_give_pages(b, mem, FB_SPILL_CHUNK);
		b->spilled += FB_SPILL_CHUNK;
	}
}

void fb_builder_give_pages(struct fb_builder *b, void *mem, size_t len)
{
	/* only page-aligned whole pages can change hands */
	if (b->nspares == FB_MAX_SPARES || ((uintptr_t)mem | len) & 4095) {
		munmap(mem, len);
		return;
	}
	b->spares[b->nspares].mem = mem;
	b->spares[b->nspares].len = len;
	b->nspares++;
}

/*
 * The reservation, aligned to FB_POPULATE, of huge pages where the kernel
 * has them: the buffer then takes one fault or populate step per 2 MiB
 * instead of one per page, and in a virtual machine that shadows page
 * tables each new 4 KiB page costs more than the data written to it.
 */
static uint8_t *map_reserve(void)
{
	_Static_assert(FB_POPULATE == HUGE_PAGE_BYTES,
		       "populated a huge page at a time");
	return huge_pages_reserve(FB_MAP_SIZE);
}

/* Room for n more bytes at the front; the data moves to the new end. */
static int reserve_slow(struct fb_builder *b, size_t n)
{
	uint8_t *buf;
	size_t cap;

	if (n > FB_MAX_SIZE - b->size)
		return fail(b, -E2BIG);
	if (b->mapped) {
		populate_ahead(b, n);
		if (b->spill_fd >= 0)
			spill_behind(b);
		return b->err;
	}
	/* allocated even for n == 0: at() must not offset a NULL buf */
	if (b->buf && b->cap - b->size >= n)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap - b->size < n)
		cap *= 2;
	if (cap > FB_MAP_AFTER) {
		buf = map_reserve();
		if (buf) {
			uint8_t *old = b->buf;
			size_t old_cap = b->cap;

			b->buf = buf;
			b->cap = FB_MAP_SIZE;
			b->mapped = true;
			b->populated = 0;
			/* backed before the copy: not a fault per page of it */
			populate_ahead(b, n);
			if (b->size)
				memcpy(at(b, b->size), old + old_cap - b->size,
				       b->size);
			free(old);
			return 0;
		}
		/* no room for the reservation: grow on the heap */
	}
	buf = realloc(b->buf, cap);
	if (!buf)
		return fail(b, -ENOMEM);
	memmove(buf + cap - b->size, buf + b->cap - b->size, b->size);
	b->buf = buf;
	b->cap = cap;
	return 0;
}

/* The common case inline: room there already. */
static inline int reserve(struct fb_builder *b, size_t n)
{
	if (n <= FB_MAX_SIZE - b->size &&
	    (b->mapped ? b->size + n <= b->populated :
			 b->buf && b->cap - b->size >= n))
		return 0;
	return reserve_slow(b, n);
}

int fb_builder_prepare(struct fb_builder *b, size_t n)
{
	return b->err ? b->err : reserve(b, n);
}

/*
 * Zero-pad so that once n more bytes are pushed the size is a multiple of
 * align, i.e. those bytes start aligned, and make room for them.
 */
static inline int prep(struct fb_builder *b, size_t align, size_t n)
{
	/* every alignment is a power of two: no division on this hot path */
	size_t pad = (0 - (b->size + n)) & (align - 1);
	int err;

	err = reserve(b, pad + n);
	if (err)
		return err;
	b->size += pad;
	if (pad)
		memset(at(b, b->size), 0, pad);
	return 0;
}

/* Claim n bytes at the front, room made by prep(). */
static inline uint8_t *push(struct fb_builder *b, size_t n)
{
	b->size += n;
	return at(b, b->size);
}

/* A uoffset at `from` to the object at `to`, both refs. */
static void put_uoffset(struct fb_builder *b, fb_ref from, fb_ref to)
{
	put_le(at(b, from), from - to, 4);
}

static int object_start(struct fb_builder *b)
{
	if (b->err)
		return b->err;
	if (b->in_table || b->finished)
		return fail(b, -EINVAL);
	return 0;
}

int fb_create_string_len(struct fb_builder *b, const char *s, size_t len,
			 fb_ref *out)
{
	uint8_t *p;
	int err;

	*out = 0;
	err = object_start(b);
	if (err)
		return err;
	if (len >= FB_MAX_SIZE)
		return fail(b, -E2BIG);
	/* length, bytes, NUL: the length field must start 4-aligned */
	err = prep(b, 4, 4 + len + 1);
	if (err)
		return err;
	p = push(b, len + 1);
	if (len)
		memcpy(p, s, len);
	p[len] = 0;
	put_le(push(b, 4), len, 4);
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
		return fail(b, -ENOMEM);
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
		return fail(b, -ENOMEM);
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

	err = object_start(b);
	if (err)
		return err;
	if (!src && count)
		return fail(b, -EINVAL);
	if (count > (FB_MAX_SIZE - 4) / elem_size)
		return fail(b, -E2BIG);
	err = prep(b, align, count * elem_size);
	if (err)
		return err;
	push(b, count * elem_size);
	/* the elements start 4-aligned at least: this only makes room */
	err = prep(b, 4, 4);
	if (err)
		return err;
	put_le(push(b, 4), count, 4);
	*elems = at(b, b->size - 4);
	return 0;
}

int fb_create_vector_u8(struct fb_builder *b, const uint8_t *v, size_t count,
			fb_ref *out)
{
	uint8_t *dst;
	int err;

	*out = 0;
	err = object_start(b);
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
		put_le(dst + 8 * i, (uint64_t)v[i], 8);
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
			err = fail(b, -EINVAL);
		else
			put_uoffset(b, elem0 - 4 * i, refs[i]);
	}
	*out = err ? 0 : b->size;
	return err;
}

int fb_table_start(struct fb_builder *b)
{
	int err;

	err = object_start(b);
	if (err)
		return err;
	b->in_table = true;
	b->table_begin = b->size;
	/* past nslots every slot is still 0: two tables an event, 256 bytes each */
	memset(b->slots, 0, b->nslots * sizeof(b->slots[0]));
	b->nslots = 0;
	return 0;
}

static int field_check(struct fb_builder *b, unsigned int slot)
{
	if (b->err)
		return b->err;
	if (!b->in_table || slot >= FB_MAX_SLOTS || b->slots[slot])
		return fail(b, -EINVAL);
	return 0;
}

/* Push a field of n bytes aligned to n and remember it in its slot. */
static int field_push(struct fb_builder *b, unsigned int slot, size_t n,
		      uint8_t **p)
{
	int err;

	err = prep(b, n, n);
	if (err)
		return err;
	/*
	 * Padding before the first field is not the table's: equal layouts
	 * then give equal vtables, which are shared.
	 */
	if (!b->nslots)
		b->table_begin = b->size;
	*p = push(b, n);
	b->slots[slot] = b->size;
	if (slot >= b->nslots)
		b->nslots = slot + 1;
	return 0;
}

static int add_scalar(struct fb_builder *b, unsigned int slot, uint64_t bits,
		      size_t n, bool omit)
{
	uint8_t *p;
	int err;

	err = field_check(b, slot);
	if (err || omit)
		return err;
	err = field_push(b, slot, n, &p);
	if (err)
		return err;
	put_le(p, bits, n);
	return 0;
}

static uint64_t f32_bits(float v)
{
	uint32_t bits;

	memcpy(&bits, &v, sizeof(bits));
	return bits;
}

static uint64_t f64_bits(double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	return bits;
}

/* Floats compare by bits, so that -0.0 is kept apart from a 0.0 default. */
#define FB_DEFINE_ADD(name, type, to_bits)                                     \
	int fb_add_##name(struct fb_builder *b, unsigned int slot, type v,     \
			  type def)                                            \
	{                                                                      \
		return add_scalar(b, slot, to_bits(v), sizeof(type),           \
				  to_bits(v) == to_bits(def));                 \
	}

FB_DEFINE_ADD(bool, bool, (uint64_t))
FB_DEFINE_ADD(i8, int8_t, (uint64_t))
FB_DEFINE_ADD(u8, uint8_t, (uint64_t))
FB_DEFINE_ADD(i16, int16_t, (uint64_t))
FB_DEFINE_ADD(u16, uint16_t, (uint64_t))
FB_DEFINE_ADD(i32, int32_t, (uint64_t))
FB_DEFINE_ADD(u32, uint32_t, (uint64_t))
FB_DEFINE_ADD(i64, int64_t, (uint64_t))
FB_DEFINE_ADD(u64, uint64_t, (uint64_t))
FB_DEFINE_ADD(f32, float, f32_bits)
FB_DEFINE_ADD(f64, double, f64_bits)

int fb_add_ref(struct fb_builder *b, unsigned int slot, fb_ref ref)
{
	uint8_t *p;
	int err;

	err = field_check(b, slot);
	if (err || !ref)
		return err;
	/* only objects finished before this table started */
	if (ref > b->table_begin)
		return fail(b, -EINVAL);
	err = field_push(b, slot, 4, &p);
	if (err)
		return err;
	put_uoffset(b, b->size, ref);
	return 0;
}

/* An identical vtable written before, or 0. */
/*
 * Two vtables of len bytes (even, a few dozen at most), compared inline:
 * two compares for every event, where a call to memcmp cost more than
 * the compare.
 */
static inline bool vt_equal(const uint8_t *a, const uint8_t *b, size_t len)
{
	uint64_t x, y;
	uint16_t u, v;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return false;
	}
	for (; i < len; i += 2) {
		memcpy(&u, a + i, 2);
		memcpy(&v, b + i, 2);
		if (u != v)
			return false;
	}
	return true;
}

static fb_ref find_vtable(struct fb_builder *b, const uint8_t *vt,
			  size_t len)
{
	const uint8_t *old;
	size_t i;

	/* tables of one kind come in runs: the last match of this length first */
	i = b->vtable_last[len % FB_VTABLE_LAST];
	if (i < b->nvtables) {
		old = b->vtables[i].bytes;
		if ((size_t)(old[0] | old[1] << 8) == len &&
		    vt_equal(old, vt, len))
			return b->vtables[i].ref;
	}
	for (i = 0; i < b->nvtables; i++) {
		/* its own length first: a shorter one would compare past it */
		old = b->vtables[i].bytes;
		if ((size_t)(old[0] | old[1] << 8) == len &&
		    vt_equal(old, vt, len)) {
			b->vtable_last[len % FB_VTABLE_LAST] = i;
			return b->vtables[i].ref;
		}
	}
	return 0;
}

static int push_vtable(struct fb_builder *b, const uint8_t *vt, size_t len,
		       fb_ref *out)
{
	struct fb_vtable *v;
	size_t cap;
	int err;

	if (b->nvtables == b->vtables_cap) {
		cap = b->vtables_cap ? 2 * b->vtables_cap : 16;
		v = realloc(b->vtables, cap * sizeof(*v));
		if (!v)
			return fail(b, -ENOMEM);
		b->vtables = v;
		b->vtables_cap = cap;
	}
	err = prep(b, 2, len);
	if (err)
		return err;
	memcpy(push(b, len), vt, len);
	*out = b->size;
	v = &b->vtables[b->nvtables++];
	v->ref = *out;
	memcpy(v->bytes, vt, len);
	return 0;
}

/*
 * The soffset of the table just pushed (vtable = table - soffset), to an
 * equal vtable written before, which lies after it, or to a new one.
 */
static int table_vtable(struct fb_builder *b, fb_ref table, const uint8_t *vt,
			size_t len, fb_ref *vtable)
{
	int err;

	*vtable = find_vtable(b, vt, len);
	if (!*vtable) {
		err = push_vtable(b, vt, len, vtable);
		if (err)
			return err;
	}
	put_le(at(b, table), (uint64_t)((int64_t)*vtable - (int64_t)table), 4);
	return 0;
}

int fb_table_end(struct fb_builder *b, fb_ref *out)
{
	uint8_t vt[4 + 2 * FB_MAX_SLOTS];
	fb_ref table, vtable;
	size_t len, i;
	int err;

	*out = 0;
	if (b->err)
		return b->err;
	if (!b->in_table)
		return fail(b, -EINVAL);
	/* the soffset to the vtable, filled in below */
	err = prep(b, 4, 4);
	if (err)
		return err;
	if (!b->nslots)
		b->table_begin = b->size;
	push(b, 4);
	b->in_table = false;
	table = b->size;
	if (table - b->table_begin > UINT16_MAX)
		return fail(b, -E2BIG);

	len = 4 + 2 * b->nslots;
	put_le(vt, len, 2);
	put_le(vt + 2, table - b->table_begin, 2);
	for (i = 0; i < b->nslots; i++)
		put_le(vt + 4 + 2 * i,
		       b->slots[i] ? table - b->slots[i] : 0, 2);

	err = table_vtable(b, table, vt, len, &vtable);
	if (!err)
		*out = table;
	return err;
}

/*
 * A table's padding, cleared before its fields go in: < 256 bytes. GCC
 * made a memset() of it `rep stos`, whose start-up alone was most of an
 * event's table here (~16% of the table's samples in perf); word stores
 * are not, and the empty asm keeps GCC from making them a memset() again.
 */
static inline void zero_small(uint8_t *p, size_t n)
{
	const uint64_t zero = 0;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(p + i, &zero, 8);
		__asm__("" : : : "memory");
	}
	for (; i < n; i++)
		p[i] = 0;
}

/*
 * A typed table's layout for one set of fields and one start mod 8: its
 * bytes (the padding before it included), each field present and where it
 * ends, counted from the start, and its vtable.
 */
struct fb_typed_layout {
	fb_ref vtable;          /* 0: not made yet */
	uint8_t delta;
	uint8_t n;
	uint8_t field[FB_TYPE_FIELDS];
	uint8_t off[FB_TYPE_FIELDS];
};

#define FB_TYPED_LAYOUTS (FB_TABLE_TYPES * 8 * (1u << FB_TYPE_FIELDS))

/* The vtable of a typed table just laid out: found or written once. */
static int typed_vtable(struct fb_builder *b, const struct fb_table_type *t,
			unsigned int present, fb_ref table, fb_ref begin,
			const fb_ref *pos, fb_ref *vtable)
{
	uint8_t vt[4 + 2 * FB_MAX_SLOTS];
	unsigned int i, nslots = 0;

	for (i = 0; i < t->n; i++)
		if ((present >> i & 1) && t->slot[i] >= nslots)
			nslots = t->slot[i] + 1u;
	memset(vt, 0, 4 + 2 * nslots);
	put_le(vt, 4 + 2 * nslots, 2);
	put_le(vt + 2, table - begin, 2);
	for (i = 0; i < t->n; i++)
		if (present >> i & 1)
			put_le(vt + 4 + 2 * t->slot[i], table - pos[i], 2);
	return table_vtable(b, table, vt, 4 + 2 * nslots, vtable);
}

/*
 * A layout not known yet: where fb_add_* put each field (aligned to its
 * size, the padding before the first not the table's; then the soffset),
 * the table written so, its vtable found, the layout kept.
 */
static int typed_first(struct fb_builder *b, const struct fb_table_type *t,
		       unsigned int present, const uint64_t *v,
		       struct fb_typed_layout *l, fb_ref *out)
{
	fb_ref pos[FB_TYPE_FIELDS], start, at_pos, begin = 0, table, vtable;
	unsigned int i, n = 0;
	uint8_t size;
	bool any = false;
	int err;

	start = at_pos = (fb_ref)b->size;
	for (i = 0; i < t->n; i++) {
		if (!(present >> i & 1))
			continue;
		size = t->size[i];
		if (!size || size > 8 || (size & (size - 1)) ||
		    t->slot[i] >= FB_MAX_SLOTS)
			return fail(b, -EINVAL);
		at_pos += (0 - (at_pos + size)) & (size - 1u);
		if (!any)
			begin = at_pos;
		any = true;
		at_pos += size;
		pos[i] = at_pos;
	}
	at_pos += (0 - (at_pos + 4)) & 3u;
	if (!any)
		begin = at_pos;
	table = at_pos + 4;
	err = reserve(b, table - start);
	if (err)
		return err;
	zero_small(at(b, table), table - start);
	for (i = 0; i < t->n; i++) {
		if (!(present >> i & 1))
			continue;
		put_le(at(b, pos[i]), (t->refs >> i & 1) ? pos[i] - v[i] : v[i],
		       t->size[i]);
		l->field[n] = (uint8_t)i;
		l->off[n++] = (uint8_t)(pos[i] - start);
	}
	b->size = table;
	err = typed_vtable(b, t, present, table, begin, pos, &vtable);
	if (err)
		return err;
	/* at most 8 fields of 8 bytes, the padding and the soffset: < 256 */
	l->delta = (uint8_t)(table - start);
	l->n = (uint8_t)n;
	l->vtable = vtable;
	*out = table;
	return 0;
}

int fb_table_typed(struct fb_builder *b, const struct fb_table_type *t,
		   unsigned int present, const uint64_t *v, fb_ref *out)
{
	struct fb_typed_layout *l;
	fb_ref start, pos, table;
	unsigned int i, k, refs;
	int err;

	*out = 0;
	err = object_start(b);
	if (err)
		return err;
	if (t->id >= FB_TABLE_TYPES || t->n > FB_TYPE_FIELDS)
		return fail(b, -EINVAL);
	if (!b->typed) {
		b->typed = calloc(FB_TYPED_LAYOUTS, sizeof(*b->typed));
		if (!b->typed)
			return fail(b, -ENOMEM);
	}
	start = (fb_ref)b->size;
	present &= (1u << t->n) - 1;
	/* a ref of 0 is left out; others only to objects made before */
	for (refs = present & t->refs; refs; refs &= refs - 1) {
		i = (unsigned int)__builtin_ctz(refs);
		if (!v[i])
			present &= ~(1u << i);
		else if (v[i] > start)
			return fail(b, -EINVAL);
	}
	l = &b->typed[(t->id * 8u + (start & 7)) << FB_TYPE_FIELDS | present];
	if (!l->vtable)
		return typed_first(b, t, present, v, l, out);
	err = reserve(b, l->delta);
	if (err)
		return err;
	table = start + l->delta;
	zero_small(at(b, table), l->delta);
	for (k = 0; k < l->n; k++) {
		i = l->field[k];
		pos = start + l->off[k];
		put_le(at(b, pos), (t->refs >> i & 1) ? pos - v[i] : v[i],
		       t->size[i]);
	}
	put_le(at(b, table), (uint64_t)((int64_t)l->vtable - (int64_t)table),
	       4);
	b->size = table;
	*out = table;
	return 0;
}

int fb_create_ref_table(struct fb_builder *b, unsigned int slot, fb_ref ref,
			fb_ref *out)
{
	fb_table_start(b);
	fb_add_ref(b, slot, ref);
	return fb_table_end(b, out);
}

int fb_finish(struct fb_builder *b, fb_ref root, const char ident[4])
{
	uint8_t *p;
	int err;

	err = object_start(b);
	if (err)
		return err;
	if (!root || root > b->size)
		return fail(b, -EINVAL);
	/* size prefix, root offset, identifier: 12 bytes, file 8-aligned */
	err = prep(b, FB_FILE_ALIGN, 12);
	if (err)
		return err;
	memcpy(push(b, 4), ident, 4);
	push(b, 4);
	put_uoffset(b, b->size, root);
	p = push(b, 4);
	put_le(p, b->size - 4, 4);
	b->finished = true;
	return 0;
}

int fb_output(struct fb_builder *b, fb_output_fn fn, void *ctx)
{
	uint8_t *bounce;
	size_t d;
	int err;

	if (b->err)
		return b->err;
	if (!b->finished)
		return fail(b, -EINVAL);
	err = fn(ctx, at(b, b->size), b->size - b->spilled);
	if (err || !b->spilled)
		return err;
	/*
	 * The bytes in memory are written: the chunk next to the spilled ones
	 * (at least FB_SPILL_KEEP are in memory once any is spilled) is the
	 * bounce for reading those back, aligned as O_DIRECT wants it and
	 * backed already. Their own pages moved to the front when spilled.
	 */
	bounce = at(b, b->spilled + FB_SPILL_CHUNK);
	for (d = b->spilled; !err && d; d -= FB_SPILL_CHUNK) {
		err = pread_all(b->spill_fd, bounce, FB_SPILL_CHUNK,
				  (off_t)(d - FB_SPILL_CHUNK));
		if (!err)
			err = fn(ctx, bounce, FB_SPILL_CHUNK);
	}
	return err;
}

const void *fb_data(const struct fb_builder *b, size_t *len)
{
	if (!b->finished || b->err || b->spilled) {
		*len = 0;
		return NULL;
	}
	*len = b->size;
	return at(b, b->size);
}

int fb_detach(struct fb_builder *b, void **buf, size_t *len)
{
	uint8_t *shrunk;

	*buf = NULL;
	*len = 0;
	if (b->err)
		return b->err;
	if (!b->finished || b->spilled)
		return fail(b, -EINVAL);
	if (b->mapped) {
		*buf = malloc(b->size);
		if (!*buf)
			return fail(b, -ENOMEM);
		memcpy(*buf, at(b, b->size), b->size);
		*len = b->size;
		fb_builder_free(b);
		return 0;
	}
	memmove(b->buf, at(b, b->size), b->size);
	/* failing to shrink leaves a larger block, which is fine */
	shrunk = realloc(b->buf, b->size);
	*buf = shrunk ? shrunk : b->buf;
	*len = b->size;
	b->buf = NULL;
	fb_builder_free(b);
	return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * fb_buffer.c - the memory a flatbuffer is built in (fb_builder.h), back to
 * front: grown, moved once into a reserved mapping, populated ahead,
 * spilled to disk behind, and given out whole at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include "lib/background_write.h"
#include "lib/huge_pages.h"
#include "lib/io_all.h"
#include "write/fb_builder_state.h"

#define FB_FILE_ALIGN 8

/*
 * Past this, the buffer moves once into a mapping as large as a buffer can
 * be, reserved but untouched: it grows at the front without being copied
 * again (a doubling would copy and fault in the whole file each time), and
 * its pages are only those the data fills.
 */
#define FB_MAP_AFTER (1u << 20)

#define FB_MAP_SIZE ((size_t)FB_MAX_SIZE + 8)

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

static int spill_done(struct fb_builder *b);

void fb_builder_free(struct fb_builder *b)
{
	/* its memory is about to go: the write reading it ends first */
	spill_done(b);
	free(b->spill_write);
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

/* the block a file system drops whole, at most (fb_output_in_place()) */
#define FB_SPILL_PAGE 4096u

/* fb_output() reads the spilled chunks back through the last one kept */
_Static_assert(FB_SPILL_KEEP >= FB_SPILL_CHUNK, "a chunk is kept");

_Static_assert(FB_SPILL_KEEP + FB_SPILL_CHUNK == FB_SPILL_HELD,
	       "held before the first spill");

/*
 * The chunk being written, written: its pages given to the front. One is
 * written at a time, on a thread of its own, while the front grows (the
 * device's time, 1-3 ms a chunk here, was the builder's wait: a tenth of
 * convert's time on the example's 3.2 M events). 0 or the write's -errno.
 */
static int spill_done(struct fb_builder *b)
{
	int err;

	if (!b->spill_mem)
		return 0;
	err = background_write_wait(b->spill_write);
	if (!err)
		fb_builder_give_pages(b, b->spill_mem, FB_SPILL_CHUNK);
	b->spill_mem = NULL;
	return err;
}

/*
 * The spill file holds the buffer where the finished file's bytes lie
 * counted from FB_SPILL_END: chunk j (distances j*CHUNK to (j+1)*CHUNK from
 * the end) at FB_SPILL_END - (j+1)*CHUNK. Its memory is aligned to 2 MiB
 * (map_reserve()), its offset and length to the chunk, as O_DIRECT wants
 * them; the file is sparse below. Past the largest buffer twice over, so
 * fb_output_in_place() can write the front below the chunks and cut what
 * lies before it away.
 */
#define FB_SPILL_END ((off_t)4 << 30)
_Static_assert(FB_SPILL_END % FB_SPILL_CHUNK == 0 &&
	       FB_SPILL_END >= 2 * (off_t)FB_MAP_SIZE,
	       "chunks at their place, past any buffer");
static void spill_behind(struct fb_builder *b)
{
	uint8_t *mem;
	int err;

	while (b->size - b->spilled >= FB_SPILL_KEEP + FB_SPILL_CHUNK) {
		err = spill_done(b);
		if (!err && !b->spill_write &&
		    !(b->spill_write = calloc(1, sizeof(*b->spill_write))))
			err = -ENOMEM;
		mem = fb_at(b, b->spilled + FB_SPILL_CHUNK);
		if (!err)
			err = background_write_start(b->spill_write,
						     b->spill_fd, mem,
						     FB_SPILL_CHUNK,
						     FB_SPILL_END -
						     (off_t)(b->spilled +
							     FB_SPILL_CHUNK));
		if (err) {
			fb_fail(b, err);
			return;
		}
		b->spill_mem = mem;
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
int fb_reserve_slow(struct fb_builder *b, size_t n)
{
	uint8_t *buf;
	size_t cap;

	if (n > FB_MAX_SIZE - b->size)
		return fb_fail(b, -E2BIG);
	if (b->mapped) {
		populate_ahead(b, n);
		if (b->spill_fd >= 0)
			spill_behind(b);
		return b->err;
	}
	/* allocated even for n == 0: fb_at() must not offset a NULL buf */
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
				memcpy(fb_at(b, b->size),
				       old + old_cap - b->size, b->size);
			free(old);
			return 0;
		}
		/* no room for the reservation: grow on the heap */
	}
	buf = realloc(b->buf, cap);
	if (!buf)
		return fb_fail(b, -ENOMEM);
	memmove(buf + cap - b->size, buf + b->cap - b->size, b->size);
	b->buf = buf;
	b->cap = cap;
	return 0;
}

int fb_builder_prepare(struct fb_builder *b, size_t n)
{
	return b->err ? b->err : fb_reserve(b, n);
}

int fb_finish(struct fb_builder *b, fb_ref root, const char ident[4])
{
	uint8_t *p;
	int err;

	err = fb_object_start(b);
	if (err)
		return err;
	if (!root || root > b->size)
		return fb_fail(b, -EINVAL);
	/*
	 * size prefix, root offset, identifier: 12 bytes, file 8-aligned; a
	 * spilled file's whole pages, the padding after the identifier (its
	 * front then goes below its chunks in their file, which drops whole
	 * blocks only: fb_output_in_place())
	 */
	err = fb_prep(b, b->spilled ? FB_SPILL_PAGE : FB_FILE_ALIGN, 12);
	if (err)
		return err;
	memcpy(fb_push(b, 4), ident, 4);
	fb_push(b, 4);
	fb_put_uoffset(b, b->size, root);
	p = fb_push(b, 4);
	fb_put_le(p, b->size - 4, 4);
	b->finished = true;
	return 0;
}

/* A finished builder's spill, written whole: 0, or its sticky error. */
static int finished_on_disk(struct fb_builder *b)
{
	int err;

	if (b->err)
		return b->err;
	if (!b->finished)
		return fb_fail(b, -EINVAL);
	err = spill_done(b);
	return err ? fb_fail(b, err) : 0;
}

int fb_output(struct fb_builder *b, fb_output_fn fn, void *ctx)
{
	uint8_t *bounce;
	size_t d;
	int err;

	/* what is read back below is on disk whole */
	err = finished_on_disk(b);
	if (err)
		return err;
	err = fn(ctx, fb_at(b, b->size), b->size - b->spilled);
	if (err || !b->spilled)
		return err;
	/*
	 * The bytes in memory are written: the chunk next to the spilled ones
	 * (at least FB_SPILL_KEEP are in memory once any is spilled) is the
	 * bounce for reading those back, aligned as O_DIRECT wants it and
	 * backed already. Their own pages moved to the front when spilled.
	 */
	bounce = fb_at(b, b->spilled + FB_SPILL_CHUNK);
	for (d = b->spilled; !err && d; d -= FB_SPILL_CHUNK) {
		err = pread_all(b->spill_fd, bounce, FB_SPILL_CHUNK,
				FB_SPILL_END - (off_t)d);
		if (!err)
			err = fn(ctx, bounce, FB_SPILL_CHUNK);
	}
	return err;
}

int fb_output_in_place(struct fb_builder *b)
{
	size_t front;
	off_t below;
	int err;

	err = finished_on_disk(b);
	if (err)
		return err;
	if (!b->spilled || b->size % FB_SPILL_PAGE)
		return -EOPNOTSUPP;
	/* whole pages at a page's offset, from a page of the mapping */
	front = b->size - b->spilled;
	below = FB_SPILL_END - (off_t)b->size;
	err = pwrite_all(b->spill_fd, fb_at(b, b->size), front, below);
	/* a device whose blocks are larger than a page takes no part-chunk */
	if (err == -EINVAL)
		return -EOPNOTSUPP;
	if (err)
		return fb_fail(b, err);
	/*
	 * The file then starts at its size prefix. A file system that cannot
	 * (-EOPNOTSUPP, -EINVAL) leaves the chunks where fb_output() reads
	 * them: the caller writes the file elsewhere, as before.
	 */
	if (fallocate(b->spill_fd, FALLOC_FL_COLLAPSE_RANGE, 0, below))
		return errno == EOPNOTSUPP || errno == EINVAL ? -EOPNOTSUPP :
								-errno;
	return 0;
}

const void *fb_data(const struct fb_builder *b, size_t *len)
{
	if (!b->finished || b->err || b->spilled) {
		*len = 0;
		return NULL;
	}
	*len = b->size;
	return fb_at(b, b->size);
}

int fb_detach(struct fb_builder *b, void **buf, size_t *len)
{
	uint8_t *shrunk;

	*buf = NULL;
	*len = 0;
	if (b->err)
		return b->err;
	if (!b->finished || b->spilled)
		return fb_fail(b, -EINVAL);
	if (b->mapped) {
		*buf = malloc(b->size);
		if (!*buf)
			return fb_fail(b, -ENOMEM);
		memcpy(*buf, fb_at(b, b->size), b->size);
		*len = b->size;
		fb_builder_free(b);
		return 0;
	}
	memmove(b->buf, fb_at(b, b->size), b->size);
	/* failing to shrink leaves a larger block, which is fine */
	shrunk = realloc(b->buf, b->size);
	*buf = shrunk ? shrunk : b->buf;
	*len = b->size;
	b->buf = NULL;
	fb_builder_free(b);
	return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
#include <malloc.h>
#include <stdint.h>
#include <sys/mman.h>
#include "lib/huge_pages.h"

static void populate_huge(void *mem, size_t len)
{
	madvise(mem, len, MADV_HUGEPAGE);
	madvise(mem, len, MADV_POPULATE_WRITE);
}

void *huge_pages_reserve(size_t len)
{
	size_t head;
	uint8_t *m;

	/* over-mapped by a huge page, then trimmed to an aligned start */
	m = mmap(NULL, len + HUGE_PAGE_BYTES, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	head = (0 - (uintptr_t)m) & (HUGE_PAGE_BYTES - 1);
	if (head)
		munmap(m, head);
	munmap(m + head + len, HUGE_PAGE_BYTES - head);
	m += head;
	madvise(m, len, MADV_HUGEPAGE);
	return m;
}

void *huge_pages_map(size_t len)
{
	void *m = huge_pages_reserve(len);

	if (m)
		madvise(m, len, MADV_POPULATE_WRITE);
	return m;
}

void huge_pages_unmap(void *mem, size_t len)
{
	if (mem)
		munmap(mem, len);
}

/* glibc's defaults, which a mallopt() would otherwise leave raised */
#define MMAP_THRESHOLD_DEFAULT (128 << 10)
#define TRIM_THRESHOLD_DEFAULT (128 << 10)

void huge_pages_heap_begin(size_t len)
{
	uintptr_t start, end;
	void *p;

	/*
	 * Blocks below twice len (this one too) from the heap, and the heap
	 * kept when they are freed.
	 */
	mallopt(M_MMAP_THRESHOLD, (int)(2 * len));
	mallopt(M_TRIM_THRESHOLD, (int)(4 * len));
	p = malloc(len);
	if (!p)
		return;
	start = ((uintptr_t)p + HUGE_PAGE_BYTES - 1) & ~(HUGE_PAGE_BYTES - 1);
	end = ((uintptr_t)p + len) & ~(HUGE_PAGE_BYTES - 1);
	if (end > start)
		populate_huge((void *)start, end - start);
	free(p);
}

void huge_pages_heap_end(void)
{
	mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_DEFAULT);
	/* what the load freed goes back: the recorder's peak memory */
	mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_DEFAULT);
	malloc_trim(0);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * huge_pages.h - memory the recorder fills at once, backed before its
 * first use and in 2 MiB pages where the kernel has them.
 *
 * A first touch of a 4 KiB page is a fault; in a virtual machine that
 * shadows page tables it was measured at 13-22 us, against ~0.25 ms for
 * 4 MiB populated as two huge pages (make bench's machines; the factor
 * moves with the host). The recorder's buffers of a few MiB (run slabs,
 * the output's bounce, the kernel's BTF read at start) each paid ~1000
 * such faults.
 */
#ifndef ETDUMP_HUGE_PAGES_H
#define ETDUMP_HUGE_PAGES_H

#include <stddef.h>

#define HUGE_PAGE_BYTES (2ul << 20)

/*
 * len bytes (a multiple of 4 KiB) reserved, 2 MiB-aligned, to be backed
 * by huge pages as they are touched; NULL with errno set. Huge pages are
 * best effort: without them, pages of 4 KiB.
 */
void *huge_pages_reserve(size_t len);
/* The same, backed at once (best effort too). */
void *huge_pages_map(size_t len);
void huge_pages_unmap(void *mem, size_t len);
/*
 * The heap's next len bytes populated in huge pages and kept: the large
 * blocks malloc() hands out until huge_pages_heap_end() (libbpf's copies
 * of the kernel's BTF, some 11 MiB) reuse them instead of faulting in
 * fresh pages one by one. After it, large blocks are mapped again, as
 * realloc() grows them without a copy, and what the heap holds free is
 * given back (the recorder's peak memory stays what it was).
 */
void huge_pages_heap_begin(size_t len);
void huge_pages_heap_end(void);

#endif /* ETDUMP_HUGE_PAGES_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * grow_array.h - a thread's open run (its packed events, their metadata)
 * as an array that doubles: from malloc() while small, in huge pages
 * (huge_pages.h) from GROW_ARRAY_HUGE bytes on, grown in place.
 *
 * A run of a long-running thread can hold millions of events: grown by
 * realloc(), its fresh pages are faulted in one by one (13-22 us each in
 * a virtual machine that shadows page tables) and realloc() moves it when
 * something was allocated behind it. The ETDump writer's refs to a long
 * run's events (4 bytes an event) grow the same way.
 */
#ifndef ETDUMP_GROW_ARRAY_H
#define ETDUMP_GROW_ARRAY_H

#include <stddef.h>

#define GROW_ARRAY_HUGE (256ul << 10)

/*
 * Room for n + more elements of elem bytes in *arr, which holds n of a
 * capacity *cap (elements; 0 and NULL at first); 0 or -ENOMEM.
 */
int grow_array_slow(void **arr, size_t *cap, size_t n, size_t more,
		    size_t elem);

/* The common case inline: it runs for every event of a run. */
static inline int grow_array(void **arr, size_t *cap, size_t n, size_t more,
			     size_t elem)
{
	return n + more <= *cap ? 0 : grow_array_slow(arr, cap, n, more, elem);
}
/* An array grown by grow_array(), of capacity cap; NULL is fine. */
void grow_array_free(void *arr, size_t cap, size_t elem);
/* The bytes of the mapping such an array heads, or 0 if it is malloc()'s. */
size_t grow_array_mapped(size_t cap, size_t elem);

#endif /* ETDUMP_GROW_ARRAY_H */

// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "grow_array.h"
#include "huge_pages.h"

/* What an array of cap elements is mapped as, or 0 if it is malloc()'s. */
static size_t mapped_bytes(size_t cap, size_t elem)
{
	size_t bytes = cap * elem;

	if (bytes < GROW_ARRAY_HUGE)
		return 0;
	return (bytes + HUGE_PAGE_BYTES - 1) & ~(HUGE_PAGE_BYTES - 1);
}

int grow_array(void **arr, size_t *cap, size_t n, size_t more, size_t elem)
{
	size_t ncap = *cap ? *cap : 16, len;
	void *p;

	if (n + more <= *cap)
		return 0;
	while (ncap < n + more)
		ncap *= 2;
	len = mapped_bytes(ncap, elem);
	if (!len) {
		p = realloc(*arr, ncap * elem);
		if (!p)
			return -ENOMEM;
	} else {
		/* a copy: cheaper than the pages a remap would fault in */
		p = huge_pages_map(len);
		if (!p)
			return -ENOMEM;
		if (n)
			memcpy(p, *arr, n * elem);
		grow_array_free(*arr, *cap, elem);
	}
	*arr = p;
	*cap = ncap;
	return 0;
}

void grow_array_free(void *arr, size_t cap, size_t elem)
{
	size_t len = mapped_bytes(cap, elem);

	if (len)
		huge_pages_unmap(arr, len);
	else
		free(arr);
}

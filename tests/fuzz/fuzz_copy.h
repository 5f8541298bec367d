/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_copy.h - what the fuzz targets share: the input's bytes in a heap
 * block of exactly their length, so that ASan catches a read one past them
 * (libFuzzer's own buffer may be larger), and that a parser may keep
 * pointing into or, like libelf, write to.
 */
#ifndef ETDUMP_FUZZ_COPY_H
#define ETDUMP_FUZZ_COPY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* n bytes of p; with nul, a C string: one more byte, '\0'. NULL: no memory. */
static inline void *fuzz_copy(const uint8_t *p, size_t n, bool nul)
{
	size_t len = n + nul;
	uint8_t *c = malloc(len ? len : 1);

	if (!c)
		return NULL;
	memcpy(c, p, n);
	if (nul)
		c[n] = '\0';
	return c;
}

/* Inputs whose first byte chooses: a copy of the rest, NULL when none. */
static inline void *fuzz_rest(const uint8_t *data, size_t size, bool nul)
{
	return size ? fuzz_copy(data + 1, size - 1, nul) : NULL;
}

#endif /* ETDUMP_FUZZ_COPY_H */

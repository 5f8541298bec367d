/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * string_index.h - strings numbered in the order first added: a profile
 * refers to every name by its place in one string table, and to every
 * frame by a number, so each distinct string needs exactly one.
 */
#ifndef ETDUMP_STRING_INDEX_H
#define ETDUMP_STRING_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct string_index {
	char **strs;            /* strs[i]: the copy numbered i */
	size_t n, cap;
	uint32_t *slots;        /* open addressing: number + 1, 0 free */
	size_t nslots;
};

/* s's number in *out, adding a copy when new; 0 or -ENOMEM. */
int string_index_add(struct string_index *t, const char *s, size_t *out);
void string_index_free(struct string_index *t);

#endif /* ETDUMP_STRING_INDEX_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * strtab.h - interned strings: each distinct string is stored once and
 * keeps its address until the table is freed, so the collector holds one
 * pointer per event instead of a copy of the name, and the writer can
 * share one FlatBuffers string among the events that name it.
 */
#ifndef ETDUMP_STRTAB_H
#define ETDUMP_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct strtab;

struct strtab *strtab_new(void);
/*
 * The interned copy of s[0..len) (NUL-terminated, made valid UTF-8 once,
 * when first seen); NULL when out of memory. The same bytes give the same
 * pointer.
 */
const char *strtab_intern(struct strtab *t, const char *s, size_t len);
/* Bytes held, for the memory a recording needs. */
size_t strtab_bytes(const struct strtab *t);
void strtab_free(struct strtab *t);

/* A cheap hash of len bytes, for short names. */
uint32_t strtab_hash(const void *s, size_t len);

#endif /* ETDUMP_STRTAB_H */

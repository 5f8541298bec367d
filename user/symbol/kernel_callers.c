// SPDX-License-Identifier: BSD-3-Clause
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbol/kernel_callers.h"

static bool instruction_site(const struct symbol_site *s)
{
	return s->desc.kind == ETDUMP_FUNC_KERNEL ||
	       s->desc.kind == ETDUMP_FUNC_DELEGATE;
}

/* Is the file offset `to` the start of another instruction site's function? */
static bool starts_site(const struct symbol_sites *s,
			const struct symbol_site *from, uint64_t to)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (&s->sites[i] != from && s->sites[i].path == from->path &&
		    s->sites[i].start == to && instruction_site(&s->sites[i]))
			return true;
	return false;
}

static int32_t rel32_at(const uint8_t *b)
{
	int32_t v;

	memcpy(&v, b, sizeof(v));
	return v;
}

/*
 * Within one object a branch's displacement is the same in file offsets
 * as in addresses: code and its target share the text segment.
 */
static bool x86_calls_site(const struct symbol_sites *s,
			   const struct symbol_site *k, const uint8_t *code,
			   size_t len)
{
	size_t i;

	for (i = 0; i + 5 <= len; i++) {
		if (code[i] != 0xe8 && code[i] != 0xe9)
			continue;
		if (starts_site(s, k, k->start + i + 5 +
				(int64_t)rel32_at(code + i + 1)))
			return true;
	}
	return false;
}

static bool arm64_calls_site(const struct symbol_sites *s,
			     const struct symbol_site *k, const uint8_t *code,
			     size_t len)
{
	uint32_t w;
	int64_t imm;
	size_t i;

	for (i = 0; i + 4 <= len; i += 4) {
		memcpy(&w, code + i, sizeof(w));
		/* bl and b: imm26, in words */
		if ((w & 0x7c000000) != 0x14000000)
			continue;
		imm = (int64_t)((int32_t)(w << 6) >> 6) * 4;
		if (starts_site(s, k, k->start + i + imm))
			return true;
	}
	return false;
}

static bool calls_site(const struct symbol_sites *s,
		       const struct symbol_site *k, int fd)
{
	size_t len = k->size < KERNEL_CALLERS_MAX_BYTES ? k->size :
							  KERNEL_CALLERS_MAX_BYTES;
	uint8_t *code = malloc(len ? len : 1);
	ssize_t n;
	bool found;

	if (!code)
		return true; /* not known: the return stays probed */
	n = pread(fd, code, len, k->start);
	if (n <= 0) {
		free(code);
		return false;
	}
	found = k->aarch64 ? arm64_calls_site(s, k, code, n) :
			     x86_calls_site(s, k, code, n);
	free(code);
	return found;
}

size_t kernel_callers_mark(struct symbol_sites *s)
{
	const char *open_path = NULL;
	size_t i, n = 0;
	int fd = -1;

	for (i = 0; i < s->n; i++) {
		struct symbol_site *k = &s->sites[i];

		if (k->desc.kind != ETDUMP_FUNC_KERNEL || !k->size)
			continue;
		if (k->path != open_path) {
			if (fd >= 0)
				close(fd);
			fd = open(k->path, O_RDONLY | O_CLOEXEC);
			open_path = k->path;
		}
		/* not known: the return stays probed */
		if (fd < 0) {
			k->calls_site = true;
			continue;
		}
		k->calls_site = calls_site(s, k, fd);
		n += k->calls_site;
	}
	if (fd >= 0)
		close(fd);
	return n;
}

size_t kernel_sites_end_at_next(struct symbol_sites *s, size_t *callers)
{
	size_t i, n = 0;

	*callers = kernel_callers_mark(s);
	for (i = 0; i < s->n; i++) {
		struct symbol_site *k = &s->sites[i];

		/* an XNNPACK operator calls no site: ends at the next one's */
		if (k->desc.kind == ETDUMP_FUNC_XNN_OP)
			goto mark;
		if (k->desc.kind != ETDUMP_FUNC_KERNEL || k->calls_site ||
		    k->outputs.n)
			continue;
mark:
		k->ends_at_next = true;
		k->desc.flags |= ETDUMP_FUNC_ENDS_AT_NEXT;
		n++;
	}
	return n;
}

// SPDX-License-Identifier: BSD-3-Clause
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/kernel_registry.h"
#include "target/elf_file.h"

#define KERNEL_PREFIX "native_call_"

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == ':' || c == '.';
}

/* NAMESPACE::OPERATOR.OVERLOAD, identifiers: the OPERATOR.OVERLOAD part. */
static const char *operator_name(const char *s)
{
	const char *sep = strstr(s, "::"), *p, *dot = NULL;

	if (!sep || sep == s)
		return NULL;
	for (p = s; p < sep; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return NULL;
	for (p = sep + 2; *p; p++) {
		if (*p == '.' && !dot && p > sep + 2)
			dot = p;
		else if (!isalnum((unsigned char)*p) && *p != '_')
			return NULL;
	}
	return dot && dot[1] ? sep + 2 : NULL;
}

int kernel_registry_scan(struct kernel_registry *r, const char *data,
			 size_t len)
{
	const char *s = data, *end = data + len, *nul, *op, *p;
	char **grown;

	while (s < end) {
		nul = memchr(s, '\0', end - s);
		if (!nul)
			break;
		/*
		 * A name may follow other constants with no NUL between
		 * (a double's 0x3ff0... ends in '?'): its name characters
		 * before the NUL are the string. Only OPERATOR.OVERLOAD is
		 * kept, so a letter of the constant's caught in the
		 * namespace changes nothing.
		 */
		for (p = nul; p > s && name_char(p[-1]); p--)
			;
		op = operator_name(p);
		if (op) {
			grown = realloc(r->names, (r->n + 1) * sizeof(*grown));
			if (!grown)
				return -ENOMEM;
			r->names = grown;
			r->names[r->n] = strdup(op);
			if (!r->names[r->n])
				return -ENOMEM;
			r->n++;
		}
		s = nul + 1;
	}
	return 0;
}

int kernel_registry_read(struct kernel_registry *r, const char *path)
{
	struct elf_file f = ELF_FILE_CLOSED;
	Elf_Scn *scn;
	Elf_Data *d;
	GElf_Shdr sh;
	char err[256];
	int ret = 0;

	memset(r, 0, sizeof(*r));
	if (elf_file_open(&f, path, err, sizeof(err)))
		goto out;
	scn = elf_file_section(&f, SHT_PROGBITS, ".rodata", &sh);
	d = scn ? elf_getdata(scn, NULL) : NULL;
	if (d && d->d_buf)
		ret = kernel_registry_scan(r, d->d_buf, d->d_size);
out:
	elf_file_close(&f);
	return ret;
}

static bool registered(const struct kernel_registry *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->names[i], name))
			return true;
	return false;
}

void kernel_registry_name(const struct kernel_registry *r, char *event,
			  size_t len)
{
	const char *op = event + strlen(KERNEL_PREFIX), *found = NULL, *n;
	size_t i;

	if (strncmp(event, KERNEL_PREFIX, strlen(KERNEL_PREFIX)) ||
	    !r->n || registered(r, op))
		return;
	for (i = 0; i < r->n; i++) {
		n = r->names[i];
		if (*n != '_')
			continue;
		while (*n == '_')
			n++;
		if (strcmp(n, op))
			continue;
		/* two candidates: which one the kernel is, is not known */
		if (found)
			return;
		found = r->names[i];
	}
	if (found && strlen(KERNEL_PREFIX) + strlen(found) < len)
		snprintf(event, len, KERNEL_PREFIX "%s", found);
}

void kernel_registry_free(struct kernel_registry *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->names[i]);
	free(r->names);
	memset(r, 0, sizeof(*r));
}

// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "target/elf_file.h"
#include "target/usdt_notes.h"
#include "target/usdt_sites.h"

/* Where .stapsdt.base is now (0: no such section). */
static uint64_t stapsdt_base(Elf *elf)
{
	Elf_Scn *scn = NULL;
	const char *name;
	GElf_Shdr sh;
	size_t strndx;

	if (elf_getshdrstrndx(elf, &strndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, strndx, sh.sh_name);
		if (name && !strcmp(name, ".stapsdt.base"))
			return sh.sh_addr;
	}
	return 0;
}

static int place(Elf *elf, const char *name, const char *provider,
		 const struct usdt_probe_list *probes, struct usdt_sites *out,
		 char *err, size_t errlen)
{
	uint64_t base = stapsdt_base(elf), pc;
	const struct usdt_probe *p;
	struct usdt_site *s;
	size_t i, nphdr;

	if (elf_getphdrnum(elf, &nphdr)) {
		snprintf(err, errlen, "%s: no program headers", name);
		return -ENOEXEC;
	}
	out->v = calloc(probes->n ? probes->n : 1, sizeof(*out->v));
	if (!out->v)
		return -ENOMEM;
	for (i = 0; i < probes->n; i++) {
		p = &probes->probes[i];
		if (strcmp(p->provider, provider))
			continue;
		pc = p->pc;
		if (base && p->base)
			pc += base - p->base;
		s = &out->v[out->n];
		s->name = p->name;
		s->args = p->args;
		s->sema_offset = 0;
		if (elf_file_offset(elf, pc, 1, &s->offset) ||
		    (p->semaphore &&
		     elf_file_offset(elf, p->semaphore, 1, &s->sema_offset))) {
			snprintf(err, errlen, "%s: probe %s:%s at 0x%llx is outside the file's loaded segments",
				 name, provider, p->name,
				 (unsigned long long)p->pc);
			return -ENOEXEC;
		}
		out->n++;
	}
	return 0;
}

int usdt_sites_read(int fd, const char *name, const char *provider,
		    struct usdt_sites *out, char *err, size_t errlen)
{
	struct usdt_probe_list *probes;
	Elf *elf;
	int ret;

	memset(out, 0, sizeof(*out));
	probes = calloc(1, sizeof(*probes));
	if (!probes)
		return -ENOMEM;
	out->notes = probes;
	ret = usdt_notes_read_fd(fd, name, probes, err, errlen);
	if (ret) {
		usdt_sites_free(out);
		return ret;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		snprintf(err, errlen, "%s: not an ELF file", name);
		ret = -ENOEXEC;
	} else {
		ret = place(elf, name, provider, probes, out, err, errlen);
	}
	if (elf)
		elf_end(elf);
	if (ret)
		usdt_sites_free(out);
	return ret;
}

void usdt_sites_free(struct usdt_sites *s)
{
	if (s->notes) {
		usdt_notes_free(s->notes);
		free(s->notes);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "lib/file_io.h"
#include "target/elf_file.h"

int elf_file_open(struct elf_file *f, const char *path, char *err,
		  size_t errlen)
{
	int ret;

	f->elf = NULL;
	f->fd = file_open_regular(path);
	if (f->fd < 0) {
		ret = f->fd;
		snprintf(err, errlen, "%s: %s", path, file_error(ret));
		return ret;
	}
	elf_version(EV_CURRENT);
	f->elf = elf_begin(f->fd, ELF_C_READ, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		snprintf(err, errlen, "%s: not an ELF file", path);
		return -ENOEXEC;
	}
	return 0;
}

void elf_file_close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

Elf_Scn *elf_file_section(const struct elf_file *f, Elf64_Word type,
			  const char *name, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	const char *s;
	size_t strndx;

	if (elf_getshdrstrndx(f->elf, &strndx))
		return NULL;
	while ((scn = elf_nextscn(f->elf, scn))) {
		if (!gelf_getshdr(scn, shdr) || (type && shdr->sh_type != type))
			continue;
		s = elf_strptr(f->elf, strndx, shdr->sh_name);
		if (!name || (s && !strcmp(s, name)))
			return scn;
	}
	return NULL;
}

/*
 * The PT_LOAD segment whose file bytes hold [off, off + len) when by_file,
 * else [vaddr, vaddr + len) loaded: 0, -ENOENT, -ENOEXEC.
 */
static int load_segment(Elf *elf, uint64_t at, uint64_t len, bool by_file,
			GElf_Phdr *ph)
{
	size_t i, n;
	uint64_t base;

	if (elf_getphdrnum(elf, &n))
		return -ENOEXEC;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, ph) || ph->p_type != PT_LOAD)
			continue;
		base = by_file ? ph->p_offset : ph->p_vaddr;
		if (at >= base && len <= ph->p_filesz &&
		    at - base <= ph->p_filesz - len)
			return 0;
	}
	return -ENOENT;
}

int elf_file_offset(Elf *elf, uint64_t vaddr, uint64_t len, uint64_t *off)
{
	GElf_Phdr ph;
	int ret = load_segment(elf, vaddr, len, false, &ph);

	if (!ret)
		*off = vaddr - ph.p_vaddr + ph.p_offset;
	return ret;
}

int elf_file_vaddr(Elf *elf, uint64_t off, uint64_t *vaddr)
{
	GElf_Phdr ph;
	int ret = load_segment(elf, off, 1, true, &ph);

	if (!ret)
		*vaddr = off - ph.p_offset + ph.p_vaddr;
	return ret;
}

int elf_file_read(void *file, uint64_t vaddr, void *buf, size_t len)
{
	const struct elf_file *f = file;
	uint64_t off;
	int ret = elf_file_offset(f->elf, vaddr, len, &off);

	if (ret)
		return ret;
	return pread(f->fd, buf, len, off) == (ssize_t)len ? 0 : -EIO;
}

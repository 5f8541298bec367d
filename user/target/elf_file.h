/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * elf_file.h - an ELF file open through libelf, and its sections by type
 * and name: what elf_symbols.c and process_objects.c both read.
 */
#ifndef ETDUMP_ELF_FILE_H
#define ETDUMP_ELF_FILE_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct elf_file {
	int fd;         /* -1 when closed */
	Elf *elf;
};

#define ELF_FILE_CLOSED { .fd = -1, .elf = NULL }

/* Negative errno with "PATH: why" in err; close it even then. */
int elf_file_open(struct elf_file *f, const char *path, char *err,
		  size_t errlen);
void elf_file_close(struct elf_file *f);
/*
 * The file offset of `len` bytes at virtual address `vaddr`, through the
 * PT_LOAD segment holding them all: 0, -ENOENT when none does, -ENOEXEC
 * when the file has no program headers.
 */
int elf_file_offset(Elf *elf, uint64_t vaddr, uint64_t len, uint64_t *off);
/* The other way: the virtual address file offset `off` is loaded at. */
int elf_file_vaddr(Elf *elf, uint64_t off, uint64_t *vaddr);
/*
 * len bytes loaded at vaddr, read from the file (a struct elf_file, void *
 * for the readers that take a context): 0, -ENOENT as above, -EIO.
 */
int elf_file_read(void *file, uint64_t vaddr, void *buf, size_t len);
/* The first section of `type` (any when 0) named `name` (any when NULL). */
Elf_Scn *elf_file_section(const struct elf_file *f, Elf64_Word type,
			  const char *name, GElf_Shdr *shdr);

#endif /* ETDUMP_ELF_FILE_H */

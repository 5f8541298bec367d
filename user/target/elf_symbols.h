/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * elf_symbols.h - the function symbols of an ELF file, wherever they are:
 * its own .symtab, or the .symtab of its separate debug file (named, or
 * found by build-id or .gnu_debuglink, as gdb finds it), and its .dynsym;
 * each with the file offset a uprobe on the function's entry takes.
 */
#ifndef ETDUMP_ELF_SYMBOLS_H
#define ETDUMP_ELF_SYMBOLS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where debug files live when no folder is given. */
#define ELF_DEBUG_ROOT "/usr/lib/debug"

/*
 * Called once per symbol (a function may have several), with the
 * function's size in bytes (0: not given); non-zero stops.
 */
typedef int (*elf_symbol_fn)(void *ctx, const char *symbol,
			     uint64_t offset, uint64_t size);

struct elf_symbols_info {
	bool symtab;                /* the file has its own .symtab */
	char debug_file[PATH_MAX];  /* else where one came from, or "" */
	char build_id[41];          /* hex, or "" */
	char debuglink[256];        /* .gnu_debuglink's file name, or "" */
	size_t functions;           /* symbols handed to fn */
};

/*
 * Every defined function symbol of `path`. debug_file: the file to take
 * the .symtab from when path has none (it must match: same build-id, or
 * none to compare); NULL to look for one. Negative errno with the reason
 * in err; a file without any symbol is not an error (info says so).
 */
int elf_symbols_read(const char *path, const char *debug_file,
		     elf_symbol_fn fn, void *ctx,
		     struct elf_symbols_info *info, char *err, size_t errlen);

#endif /* ETDUMP_ELF_SYMBOLS_H */

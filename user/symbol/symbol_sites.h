/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symbol_sites.h - where symbol mode attaches: every function of a
 * process's executable and libraries (process_objects.h) whose symbol
 * (elf_symbols.h, demangled by demangle.h) a rule names, once per entry
 * address, with the event it becomes (site_list.h).
 */
#ifndef ETDUMP_SYMBOL_SITES_H
#define ETDUMP_SYMBOL_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "symbol/site_list.h"
#include "symbol/symbol_rules.h"

/*
 * debug_file applies to the executable (objects.paths[0]). Negative errno
 * with the reason in err; finding no site is not an error here.
 */
int symbol_sites_find(struct symbol_sites *out,
		      const struct symbol_rules *rules, pid_t pid,
		      const char *exe, bool running, const char *debug_file,
		      char *err, size_t errlen);
/*
 * A library the process loaded later (path as late_libraries.h reaches
 * it): its sites appended after the others', its XNNPACK's operators
 * read as the first objects' are (its own names). How many, 0 for a file listed already (by inode), or a negative
 * errno with the reason in err.
 */
int symbol_sites_add_object(struct symbol_sites *out,
			    const struct symbol_rules *rules, const char *path,
			    char *err, size_t errlen);
/* The libraries read beside the executable (none when it was not read). */
static inline size_t symbol_sites_libraries(const struct symbol_sites *s)
{
	return s->objects.n ? s->objects.n - 1 : 0;
}

#endif /* ETDUMP_SYMBOL_SITES_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * list_symbols.h - `etdump-bpf list --symbols`: the functions symbol mode
 * would attach to, found as record finds them, without attaching.
 */
#ifndef ETDUMP_LIST_SYMBOLS_H
#define ETDUMP_LIST_SYMBOLS_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * One line per site: FILE FUNCTION EVENT KIND OFFSET ENTRY (simulated or
 * single-stepped); rules_file (may be NULL) before the built-in rules.
 * Returns the number of sites, or -errno with the reason printed.
 */
int list_symbol_sites(pid_t pid, const char *exe, bool running,
		      const char *rules_file, const char *debug_file);

#endif /* ETDUMP_LIST_SYMBOLS_H */

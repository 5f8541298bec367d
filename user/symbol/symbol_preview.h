/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symbol_preview.h - what `record` would attach to in symbol mode, shown
 * by `list` for a binary or process without etdump probes (the stock
 * ExecuTorch runner): every function the rules name, the event it
 * becomes, and where the executable's symbols come from. Nothing is
 * attached.
 */
#ifndef ETDUMP_SYMBOL_PREVIEW_H
#define ETDUMP_SYMBOL_PREVIEW_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * One line per site on stdout (FILE, KIND, FUNCTION, EVENT), a summary
 * line on stderr. The number of sites (0: a line says why none), or a
 * negative errno (said with p_err()).
 */
int symbol_preview(pid_t pid, const char *exe, bool running,
		   const char *rules_file, const char *debug_file);

#endif /* ETDUMP_SYMBOL_PREVIEW_H */

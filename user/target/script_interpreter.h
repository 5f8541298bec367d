/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * script_interpreter.h - what the kernel runs for a file that starts with
 * "#!": the interpreter its first line names (itself a script, in turn, up
 * to the kernel's depth of 4), which a process exec'ing the script becomes.
 * A shim (pyenv's python3), a wrapper script: the probes are looked for in
 * that interpreter and in what it execs, never in the script's text.
 */
#ifndef ETDUMP_SCRIPT_INTERPRETER_H
#define ETDUMP_SCRIPT_INTERPRETER_H

#include <limits.h>
#include <stddef.h>

/* The kernel reads this much of a script for its #! line (BINPRM_BUF_SIZE). */
#define SCRIPT_LINE_MAX 256
/* ... and follows interpreters that are scripts this deep. */
#define SCRIPT_DEPTH_MAX 4

/*
 * 1 with the ELF (or other non-script) file the kernel would run in out
 * when path is a script; 0 when it is not one; -errno when its
 * interpreter cannot be run (message in err, naming the script and the
 * interpreter tried).
 */
int script_interpreter(const char *path, char out[PATH_MAX], char *err,
		       size_t errlen);
/*
 * The text of a script, at most `max` bytes, NUL-terminated, in a buffer
 * the caller frees: NULL when path is no regular file starting with #!.
 */
char *script_text(const char *path, size_t max);

#endif /* ETDUMP_SCRIPT_INTERPRETER_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * command_words.h - the files a command line may exec, found before it
 * runs: each of its words, and each word of those that read as shell text
 * (sh -c '...', env X=1 ./runtime, timeout 10 ./runtime), resolved as
 * execvp() would (a word with a '/' names a file from the current folder,
 * any other is looked for in PATH's folders), and the words of each that
 * is a script (#!: a shim, a wrapper), read as shell text, as deep as the
 * kernel follows interpreters. Only scripts are read here: the names found
 * are what the caller opens, without following a symbolic link, to look
 * for probes.
 */
#ifndef ETDUMP_COMMAND_WORDS_H
#define ETDUMP_COMMAND_WORDS_H

#include <stddef.h>

/* At most this many names; a longer command line's others are left. */
#define COMMAND_WORDS_MAX 256

struct command_files {
	char *v[COMMAND_WORDS_MAX];
	size_t n;
};

/*
 * The files argv (NULL-terminated) names, each once, in order; path is
 * PATH's value (NULL: the default of execvp, "/bin:/usr/bin"). -ENOMEM.
 */
int command_words_files(char *const argv[], const char *path,
			struct command_files *out);
/*
 * The words of shell text, unquoted: split at blanks and at ;&|()<>`,
 * quotes and backslashes removed. Each word is handed to fn; a negative
 * return stops it and is returned.
 */
int command_words_split(const char *text, int (*fn)(void *ctx, const char *w),
			void *ctx);
void command_files_free(struct command_files *f);

#endif /* ETDUMP_COMMAND_WORDS_H */

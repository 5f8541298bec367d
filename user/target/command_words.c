// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "target/command_words.h"
#include "target/script_interpreter.h"

/* A script read for the files it may exec: its first this many bytes. */
#define SCRIPT_TEXT_MAX (64 * 1024)

#define DEFAULT_PATH "/bin:/usr/bin"

static bool is_separator(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || strchr(";&|()<>`", c);
}

int command_words_split(const char *text, int (*fn)(void *ctx, const char *w),
			void *ctx)
{
	char word[PATH_MAX];
	size_t n = 0;
	char quote = 0;
	bool any = false; /* '' is a word, though empty */
	bool too_long = false;
	const char *s;
	int err;

	for (s = text;; s++) {
		if (*s && (quote || !is_separator(*s))) {
			if (quote == *s) {
				quote = 0;
				continue;
			}
			if (!quote && (*s == '\'' || *s == '"')) {
				quote = *s;
				any = true;
				continue;
			}
			if (*s == '\\' && quote != '\'' && s[1])
				s++;
			/* a word longer than any path names no file */
			if (n < sizeof(word) - 1)
				word[n++] = *s;
			else
				too_long = true;
			any = true;
			continue;
		}
		if (any && !too_long) {
			word[n] = '\0';
			err = fn(ctx, word);
			if (err < 0)
				return err;
		}
		n = 0;
		any = too_long = false;
		if (!*s)
			return 0;
	}
}

/* 1 when name was added, 0 when it was there (or no room). */
static int add(struct command_files *out, const char *name)
{
	size_t i;

	if (out->n == COMMAND_WORDS_MAX)
		return 0;
	for (i = 0; i < out->n; i++)
		if (!strcmp(out->v[i], name))
			return 0;
	out->v[out->n] = strdup(name);
	if (!out->v[out->n])
		return -ENOMEM;
	out->n++;
	return 1;
}

/* A file exec could run: regular and executable by someone. */
static bool executable(const char *name)
{
	struct stat st;

	return !stat(name, &st) && S_ISREG(st.st_mode) &&
	       (st.st_mode & 0111);
}

struct resolve {
	struct command_files *out;
	const char *path;
	int depth;              /* scripts read to get here */
};

static int resolve(void *ctx, const char *word);

/*
 * A script's words are what it may exec (a shim's `exec "$prog" "$@"`, a
 * wrapper's `exec ./runtime`), read as shell text; its #! line's among
 * them. As deep as the kernel follows interpreters.
 */
static int add_file(struct resolve *r, const char *name)
{
	int ret = add(r->out, name);
	char *text;

	if (ret <= 0 || r->depth == SCRIPT_DEPTH_MAX)
		return ret;
	text = script_text(name, SCRIPT_TEXT_MAX);
	if (!text)
		return 0;
	r->depth++;
	ret = command_words_split(text + 2, resolve, r);
	r->depth--;
	free(text);
	return ret;
}

/* As execvp(): a name with a '/' as it is, else the first in PATH. */
static int resolve(void *ctx, const char *word)
{
	struct resolve *r = ctx;
	char name[PATH_MAX];
	const char *dir, *end;
	size_t len;

	if (!word[0])
		return 0;
	if (strchr(word, '/'))
		return executable(word) ? add_file(r, word) : 0;
	for (dir = r->path;; dir = end + 1) {
		end = strchrnul(dir, ':');
		len = end - dir;
		/* an empty element is the current folder */
		if (snprintf(name, sizeof(name), "%.*s%s%s", (int)len, dir,
			     len ? "/" : "", word) < (int)sizeof(name) &&
		    executable(name))
			return add_file(r, name);
		if (!*end)
			return 0;
	}
}

int command_words_files(char *const argv[], const char *path,
			struct command_files *out)
{
	struct resolve r = { .out = out, .path = path ? path : DEFAULT_PATH };
	size_t i;
	int err;

	memset(out, 0, sizeof(*out));
	for (i = 0; argv[i]; i++) {
		err = resolve(&r, argv[i]);
		if (err >= 0 && strpbrk(argv[i], " \t\n;&|()<>`'\"\\"))
			err = command_words_split(argv[i], resolve, &r);
		if (err < 0) {
			command_files_free(out);
			return err;
		}
	}
	return 0;
}

void command_files_free(struct command_files *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->v[i]);
	f->n = 0;
}

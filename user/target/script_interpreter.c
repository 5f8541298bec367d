// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "target/script_interpreter.h"

/* A regular file opened to be read, never a FIFO that would hang us. */
static int open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The interpreter the #! line of path names into out: 1, 0 (no #!). */
static int hashbang(const char *path, char out[PATH_MAX])
{
	char line[SCRIPT_LINE_MAX + 1], *s, *end;
	ssize_t n;
	int fd = open_regular(path);

	if (fd < 0)
		return 0;
	n = read(fd, line, SCRIPT_LINE_MAX);
	close(fd);
	if (n < 2 || line[0] != '#' || line[1] != '!')
		return 0;
	line[n] = '\0';
	s = line + 2 + strspn(line + 2, " \t");
	end = s + strcspn(s, " \t\n");
	*end = '\0';
	if (!*s)
		return 0;
	snprintf(out, PATH_MAX, "%s", s);
	return 1;
}

int script_interpreter(const char *path, char out[PATH_MAX], char *err,
		       size_t errlen)
{
	char cur[PATH_MAX], next[PATH_MAX];
	int depth;

	snprintf(cur, sizeof(cur), "%s", path);
	for (depth = 0; hashbang(cur, next); depth++) {
		if (depth == SCRIPT_DEPTH_MAX) {
			snprintf(err, errlen, "%s: its interpreters are scripts over %d deep (the kernel runs no more)",
				 path, SCRIPT_DEPTH_MAX);
			return -ELOOP;
		}
		if (!realpath(next, cur) || access(cur, X_OK)) {
			snprintf(err, errlen, "%s: a script whose interpreter %s cannot be run: %s",
				 path, next, strerror(errno));
			return -ENOEXEC;
		}
	}
	if (!depth)
		return 0;
	snprintf(out, PATH_MAX, "%s", cur);
	return 1;
}

char *script_text(const char *path, size_t max)
{
	char *text;
	ssize_t n;
	size_t len = 0;
	int fd = open_regular(path);

	if (fd < 0)
		return NULL;
	text = malloc(max + 1);
	while (text && len < max &&
	       (n = read(fd, text + len, max - len)) > 0)
		len += n;
	close(fd);
	if (text && (len < 2 || text[0] != '#' || text[1] != '!')) {
		free(text);
		return NULL;
	}
	if (text)
		text[len] = '\0';
	return text;
}

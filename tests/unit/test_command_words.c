// SPDX-License-Identifier: BSD-3-Clause
/*
 * The files a command line may exec, found as execvp() finds them: its
 * words and the words of shell text in them, in PATH or by their name.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "target/command_words.h"
#include "target/script_interpreter.h"
#include "testlib.h"

static char dir[] = "/tmp/etdump-words-XXXXXX";

static void make_file(const char *name, mode_t mode)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd >= 0)
		close(fd);
	chmod(path, mode);
}

struct words {
	char v[16][64];
	int n;
};

static int keep(void *ctx, const char *w)
{
	struct words *ws = ctx;

	if (ws->n < 16)
		snprintf(ws->v[ws->n++], 64, "%s", w);
	return 0;
}

TEST(split)
{
	struct words ws = { 0 };

	CHECK_EQ_INT(command_words_split(
		"true; ./rt -n 3|tail &&x 'a b'\"c\"d \\e (sub)>out``", keep,
		&ws), 0);
	CHECK_EQ_INT(ws.n, 10);
	CHECK_EQ_STR(ws.v[0], "true");
	CHECK_EQ_STR(ws.v[1], "./rt");
	CHECK_EQ_STR(ws.v[2], "-n");
	CHECK_EQ_STR(ws.v[3], "3");
	CHECK_EQ_STR(ws.v[4], "tail");
	CHECK_EQ_STR(ws.v[5], "x");
	CHECK_EQ_STR(ws.v[6], "a bcd");
	CHECK_EQ_STR(ws.v[7], "e");
	CHECK_EQ_STR(ws.v[8], "sub");
	CHECK_EQ_STR(ws.v[9], "out");
}

TEST(split_long_word)
{
	struct words ws = { 0 };
	char *text = malloc(PATH_MAX + 16);

	if (!text)
		return;
	memset(text, 'a', PATH_MAX + 4);
	memcpy(text + PATH_MAX + 4, " ok", 4);
	CHECK_EQ_INT(command_words_split(text, keep, &ws), 0);
	/* a word longer than any path is no file's name */
	CHECK_EQ_INT(ws.n, 1);
	CHECK_EQ_STR(ws.v[0], "ok");
	free(text);
}

TEST(files)
{
	char path[PATH_MAX * 2], rt[PATH_MAX], tool[PATH_MAX], sub[PATH_MAX];
	struct command_files f;
	char *argv[] = { "tool", "-c", NULL, "data", "missing", NULL };
	char script[PATH_MAX + 64];

	snprintf(sub, sizeof(sub), "%s/bin", dir);
	mkdir(sub, 0755);
	make_file("bin/tool", 0755);
	make_file("rt", 0755);
	make_file("data", 0644);       /* not executable: exec cannot run it */
	snprintf(rt, sizeof(rt), "%s/rt", dir);
	snprintf(tool, sizeof(tool), "%s/bin/tool", dir);
	snprintf(script, sizeof(script), "tool x; %s -n 3 | %s/data", rt, dir);
	argv[2] = script;
	/* an empty element, as in execvp(), is the current folder */
	snprintf(path, sizeof(path), "/nonexistent::%s", sub);
	CHECK_EQ_INT(command_words_files(argv, path, &f), 0);
	CHECK_EQ_INT(f.n, 2);
	if (f.n == 2) {
		CHECK_EQ_STR(f.v[0], tool);
		CHECK_EQ_STR(f.v[1], rt);
	}
	command_files_free(&f);
}

static void write_script(const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	chmod(path, 0755);
}

/* A script's words, and its interpreter's if that is one: what it may exec. */
TEST(script_files)
{
	char wrap[PATH_MAX], inner[PATH_MAX], text[3 * PATH_MAX], rt[PATH_MAX];
	char interp[PATH_MAX], err[PATH_MAX + 128];
	char *argv[] = { wrap, "--flag", NULL };
	struct command_files f;

	snprintf(rt, sizeof(rt), "%s/rt", dir);
	snprintf(wrap, sizeof(wrap), "%s/wrap", dir);
	snprintf(inner, sizeof(inner), "%s/inner", dir);
	snprintf(text, sizeof(text), "#!/bin/sh\nexec %s -n 3\n", inner);
	write_script("wrap", text);
	snprintf(text, sizeof(text), "#!%s\n# comment\nexec \"%s\" \"$@\"\n",
		 wrap, rt);
	write_script("inner", text);
	CHECK_EQ_INT(command_words_files(argv, "/nonexistent", &f), 0);
	CHECK_EQ_INT(f.n, 4);
	if (f.n == 4) {
		CHECK_EQ_STR(f.v[0], wrap);
		CHECK_EQ_STR(f.v[1], "/bin/sh");
		CHECK_EQ_STR(f.v[2], inner);
		CHECK_EQ_STR(f.v[3], rt);
	}
	command_files_free(&f);
	/* the kernel runs inner's interpreter's interpreter */
	CHECK_EQ_INT(script_interpreter(inner, interp, err, sizeof(err)), 1);
	CHECK(realpath("/bin/sh", text) && !strcmp(interp, text));
	CHECK_EQ_INT(script_interpreter(rt, interp, err, sizeof(err)), 0);
	write_script("broken", "#! /nonexistent/sh -e\n");
	snprintf(text, sizeof(text), "%s/broken", dir);
	CHECK_EQ_INT(script_interpreter(text, interp, err, sizeof(err)),
		     -ENOEXEC);
	CHECK(strstr(err, "/broken: a script whose interpreter /nonexistent/sh cannot be run") != NULL);
}

static void remove_all(void)
{
	static const char *const names[] = { "bin/tool", "rt", "data",
					     "wrap", "inner", "broken", "bin" };
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		remove(path);
	}
	rmdir(dir);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	RUN(split);
	RUN(split_long_word);
	RUN(files);
	RUN(script_files);
	remove_all();
	return TEST_SUMMARY();
}

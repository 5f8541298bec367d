// SPDX-License-Identifier: BSD-3-Clause
/*
 * dlopen_host.c - a host that loads the example runtime only when it needs
 * it, as a Python service loads ExecuTorch through ctypes:
 *
 *   example-dlopen-host [--keep | --alternate] LIB... -- ARGS [-- ARGS...]
 *
 * For each LIB in turn (libexample-main.so, or a copy of it): dlopen(),
 * its example_main(ARGS) (the runtime's main()), then dlclose(), unless
 * --keep leaves every LIB loaded, two copies of the runtime mapped at
 * once. A LIB named twice is loaded again after its dlclose(). Before
 * each dlopen it prints "loading LIB" and waits for a line on its input,
 * so that a test chooses when the runtime appears. Several ARGS (each
 * after a --): the i-th LIB loaded runs the i-th, the last once they run
 * out (two runtimes, one with XNNPACK, each running a model of its own).
 *
 * --alternate loads every LIB first, then runs their example_main() by
 * turns on the main thread, one execution each (the runtime's
 * example_after_execution hook hands the thread to the next copy), so
 * that each copy's batched buffer on that thread holds its runs while the
 * other's run; the copies' other threads (--threads) are their own. At
 * the end it prints "done" and waits for its input to close: a test can
 * stop a recorder while the buffers still hold the last runs.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

typedef int (*example_main_fn)(int argc, char **argv);

#define MAX_COPIES 8
/* example_main's own frames, and the runtime's on the main thread */
#define COPY_STACK_BYTES (8 << 20)

/* --alternate: the copies, each in a context of its own on the main thread */
struct copy {
	example_main_fn main;
	ucontext_t ctx;
	int done, ret;
};

static struct {
	struct copy copy[MAX_COPIES];
	int n, now;
	ucontext_t host;
	int argc;
	char **argv;
} turns;

static void *load(const char *lib, example_main_fn *example_main)
{
	char line[64];
	void *h;

	printf("loading %s\n", lib);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return NULL;
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "example-dlopen-host: %s\n", dlerror());
		return NULL;
	}
	*example_main = (example_main_fn)dlsym(h, "example_main");
	if (!*example_main) {
		fprintf(stderr, "example-dlopen-host: %s: no example_main\n", lib);
		dlclose(h);
		return NULL;
	}
	return h;
}

static int run_one(const char *lib, int argc, char **argv, int keep)
{
	example_main_fn example_main;
	void *h = load(lib, &example_main);
	int ret;

	if (!h)
		return 1;
	/* getopt's state is the process's, not the library's */
	optind = 1;
	ret = example_main(argc, argv);
	fflush(stdout);
	if (!keep)
		dlclose(h);
	return ret;
}

/*
 * The runtime's argv for its turn-th load, into out (argc + 1 room): its
 * name, then the turn-th ARGS, or the last; how many.
 */
static int args_for(char **argv, int argc, int end, int turn, char **out)
{
	int i, at = end, k, n = 0;

	for (k = 0, i = end + 1; i < argc && k < turn; i++) {
		if (!strcmp(argv[i], "--")) {
			at = i;
			k++;
		}
	}
	out[n++] = "example-runtime";
	for (i = at + 1; i < argc && strcmp(argv[i], "--"); i++)
		out[n++] = argv[i];
	out[n] = NULL;
	return n;
}

/* After each execution of a copy: the main thread goes to the next. */
static void take_turns(void)
{
	/* a copy's own threads execute on without turns */
	if (syscall(SYS_gettid) != getpid())
		return;
	swapcontext(&turns.copy[turns.now].ctx, &turns.host);
}

static void copy_main(void)
{
	struct copy *c = &turns.copy[turns.now];

	/* its options are parsed before its first turn ends */
	optind = 1;
	c->ret = c->main(turns.argc, turns.argv);
	fflush(stdout);
	c->done = 1;
}

/* The copy's context: copy_main() on a stack of its own, then the host. */
static int copy_context(struct copy *c)
{
	if (getcontext(&c->ctx))
		return -1;
	c->ctx.uc_stack.ss_sp = malloc(COPY_STACK_BYTES);
	c->ctx.uc_stack.ss_size = COPY_STACK_BYTES;
	c->ctx.uc_link = &turns.host;
	if (!c->ctx.uc_stack.ss_sp)
		return -1;
	makecontext(&c->ctx, copy_main, 0);
	return 0;
}

static int run_alternately(char **libs, int nlibs, int argc, char **argv)
{
	void (**hook)(void);
	struct copy *c;
	char line[64];
	int i, left, ret = 0;
	void *h;

	if (nlibs > MAX_COPIES) {
		fprintf(stderr, "example-dlopen-host: %d copies at most\n",
			MAX_COPIES);
		return 2;
	}
	turns.argc = argc;
	turns.argv = argv;
	for (i = 0; i < nlibs; i++) {
		c = &turns.copy[i];
		h = load(libs[i], &c->main);
		hook = h ? dlsym(h, "example_after_execution") : NULL;
		if (!hook)
			return 1;
		*hook = take_turns;
		if (copy_context(c))
			return 1;
		turns.n++;
	}
	for (left = turns.n; left;) {
		for (i = 0; i < turns.n; i++) {
			c = &turns.copy[i];
			if (c->done)
				continue;
			turns.now = i;
			swapcontext(&turns.host, &c->ctx);
			left -= c->done;
			ret = ret ? ret : c->ret;
		}
	}
	printf("done\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin))
		;
	return ret;
}

int main(int argc, char **argv)
{
	int i, end, n, turn = 0, keep = 0, ret = 0;
	char **args = calloc(argc + 1, sizeof(*args));

	for (end = 1; end < argc && strcmp(argv[end], "--"); end++)
		;
	if (end == argc || !args) {
		fprintf(stderr, "usage: example-dlopen-host [--keep | --alternate] LIB... -- ARGS [-- ARGS...]\n");
		return 2;
	}
	/* --alternate: one ARGS, each copy's argv its name and what follows */
	if (end > 1 && !strcmp(argv[1], "--alternate")) {
		argv[end] = "example-runtime";
		free(args);
		return run_alternately(argv + 2, end - 2, argc - end, argv + end);
	}
	for (i = 1; !ret && i < end; i++) {
		if (!strcmp(argv[i], "--keep")) {
			keep = 1;
			continue;
		}
		n = args_for(argv, argc, end, turn++, args);
		ret = run_one(argv[i], n, args, keep);
	}
	free(args);
	return ret;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * dlopen_host.c - a host that loads the example runtime only when it needs
 * it, as a Python service loads ExecuTorch through ctypes:
 *
 *   example-dlopen-host [--keep] LIB... -- ARGS [-- ARGS...]
 *
 * For each LIB in turn (libexample-main.so, or a copy of it): dlopen(),
 * its example_main(ARGS) (the runtime's main()), then dlclose(), unless
 * --keep leaves every LIB loaded, two copies of the runtime mapped at
 * once. A LIB named twice is loaded again after its dlclose(). Before
 * each dlopen it prints "loading LIB" and waits for a line on its input,
 * so that a test chooses when the runtime appears. Several ARGS (each
 * after a --): the i-th LIB loaded runs the i-th, the last once they run
 * out (two runtimes, one with XNNPACK, each running a model of its own).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*example_main_fn)(int argc, char **argv);

static int run_one(const char *lib, int argc, char **argv, int keep)
{
	example_main_fn example_main;
	char line[64];
	void *h;
	int ret;

	printf("loading %s\n", lib);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "example-dlopen-host: %s\n", dlerror());
		return 1;
	}
	example_main = (example_main_fn)dlsym(h, "example_main");
	if (!example_main) {
		fprintf(stderr, "example-dlopen-host: %s: no example_main\n", lib);
		return 1;
	}
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

int main(int argc, char **argv)
{
	int i, end, n, turn = 0, keep = 0, ret = 0;
	char **args = calloc(argc + 1, sizeof(*args));

	for (end = 1; end < argc && strcmp(argv[end], "--"); end++)
		;
	if (end == argc || !args) {
		fprintf(stderr, "usage: example-dlopen-host [--keep] LIB... -- ARGS [-- ARGS...]\n");
		return 2;
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

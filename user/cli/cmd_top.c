// SPDX-License-Identifier: BSD-3-Clause
/*
 * cmd_top.c - `etdump-bpf top -p PID`: a live view of a running process's
 * operators (user/collect/live_view.h), refreshed every second; q or Ctrl-C quits.
 * It is `record --live` without an output, and takes record's options.
 */
#include <stdlib.h>
#include "cli/commands.h"

int cmd_top(int argc, char **argv)
{
	char **args = calloc(argc + 2, sizeof(*args));
	int i, ret;

	if (!args)
		return EXIT_FAIL;
	args[0] = argv[0];
	args[1] = "--live";
	for (i = 1; i < argc; i++)
		args[i + 1] = argv[i];
	ret = cmd_record(argc + 1, args);
	free(args);
	return ret;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * cmd_list.c - `etdump-bpf list`: the etdump probes a binary and the
 * libraries it needs, or every file a running process maps, carry.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/commands.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "symbol/symbol_preview.h"
#include "target/process_objects.h"
#include "target/usdt_notes.h"

static const char list_usage[] =
	"usage: etdump-bpf list [--rules FILE] [--debug-file F] BINARY | -p PID\n"
	"\n"
	"Print the etdump USDT probes of a binary and the shared libraries it\n"
	"needs, or of a running process (its executable and the libraries it\n"
	"has mapped):\n"
	"FILE  PROBE  ADDRESS  SEMAPHORE  ARGUMENTS\n"
	"\n"
	"Where there are none, what `record` would attach to in symbol mode:\n"
	"FILE  KIND  FUNCTION  EVENT  ENTRY  RETURN  TRAPS\n"
	"with the rules and the executable's symbols record would use; ENTRY\n"
	"and RETURN say what the kernel does at each probe (emulated,\n"
	"single-stepped, optimized nop; uretprobe), TRAPS the kernel entries\n"
	"one call takes.\n"
	"\n"
	"  -p, --pid PID        a running process\n"
	"      --rules FILE     symbol-mode rules, before the built-in ones\n"
	"      --debug-file F   the executable's symbols, when it is stripped\n";

/* Probes of one file; returns how many etdump probes it has, or -errno. */
static int list_file(const char *path, bool quiet_errors)
{
	struct usdt_probe_list list;
	char err[512];
	size_t i;
	int n = 0, ret;

	ret = usdt_notes_read(path, &list, err, sizeof(err));
	if (ret) {
		if (!quiet_errors)
			p_err("%s", err);
		return ret;
	}
	for (i = 0; i < list.n; i++) {
		const struct usdt_probe *p = &list.probes[i];

		if (strcmp(p->provider, "etdump"))
			continue;
		printf("%s\tetdump:%s\t0x%llx\t0x%llx\t%s\n", path, p->name,
		       (unsigned long long)p->pc,
		       (unsigned long long)p->semaphore, p->args);
		n++;
	}
	usdt_notes_free(&list);
	return n;
}

/*
 * The executable's probes, then its libraries' (those it needs, or those
 * a running process maps); a library we cannot read is passed over.
 */
static int list_objects(pid_t pid, const char *exe, bool running)
{
	struct path_list files;
	int total = 0, n, ret;
	size_t i;

	ret = process_objects(pid, exe, running, &files);
	if (ret) {
		p_err("%s: cannot list its libraries: %s", exe, strerror(-ret));
		return ret;
	}
	for (i = 0; i < files.n; i++) {
		n = list_file(files.paths[i], i > 0);
		if (n < 0 && !i) {
			total = n;
			break;
		}
		if (n > 0)
			total += n;
	}
	path_list_free(&files);
	return total;
}

static int list_process(int pid)
{
	char exe[PATH_MAX];
	int err = process_exe(pid, exe);

	if (err) {
		p_err(err == -ENOENT ? "no process with PID %d" :
		      "cannot read the executable of PID %d", pid);
		return -ESRCH;
	}
	return list_objects(pid, exe, true);
}

int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "rules", required_argument, NULL, 'R' },
		{ "debug-file", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		CLI_COMMON_LONGOPTS,
		{},
	};
	const char *rules = NULL, *debug_file = NULL;
	char exe[PATH_MAX];
	int c, pid = 0, n;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:h" CLI_COMMON_SHORTOPTS,
				longopts, NULL)) != -1) {
		if (cli_common_option(c))
			continue;
		switch (c) {
		case 'p':
			if (parse_pid(optarg, &pid)) {
				p_err("list: invalid PID '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'R':
			rules = optarg;
			break;
		case 'D':
			debug_file = optarg;
			break;
		case 'h':
			fputs(list_usage, stdout);
			return EXIT_OK;
		default:
			return cli_option_error("list", c, argv);
		}
	}
	if (!pid == (optind >= argc) || argc - optind > 1)
		return cli_usage_error("list", "give one binary, or -p PID");
	if (!pid && access(argv[optind], R_OK)) {
		p_err("%s: %s", argv[optind], strerror(errno));
		return EXIT_FAIL;
	}
	n = pid ? list_process(pid) : list_objects(0, argv[optind], false);
	if (n < 0)
		return EXIT_FAIL;
	if (n)
		return EXIT_OK;
	/* none: what symbol mode would do instead, as record would */
	if (pid && process_exe(pid, exe))
		return EXIT_FAIL;
	n = symbol_preview(pid, pid ? exe : argv[optind], pid != 0, rules,
			   debug_file);
	return n > 0 ? EXIT_OK : EXIT_FAIL;
}

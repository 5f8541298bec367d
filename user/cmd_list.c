// SPDX-License-Identifier: BSD-3-Clause
/*
 * cmd_list.c - `etdump-bpf list`: the etdump probes a binary, or every file
 * mapped by a running process, carries.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "log.h"
#include "parse.h"
#include "usdt_notes.h"

static const char list_usage[] =
	"usage: etdump-bpf list BINARY | -p PID\n"
	"\n"
	"Print the etdump USDT probes of a binary, or of a running process\n"
	"(its executable and the shared libraries it has mapped):\n"
	"FILE  PROBE  ADDRESS  SEMAPHORE  ARGUMENTS\n";

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

/* Every distinct file the process maps, in map order. */
static int list_process(int pid)
{
	char maps[64], line[PATH_MAX + 256], last[PATH_MAX] = "";
	int total = 0, n;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "re");
	if (!f) {
		p_err(errno == ENOENT ? "no process with PID %d" :
		      "cannot read the mappings of PID %d", pid);
		return -ESRCH;
	}
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');

		if (!path)
			continue;
		path[strcspn(path, "\n")] = '\0';
		if (!strcmp(path, last) || strstr(path, " (deleted)"))
			continue;
		snprintf(last, sizeof(last), "%s", path);
		n = list_file(path, true);
		if (n > 0)
			total += n;
	}
	fclose(f);
	return total;
}

int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int c, pid = 0, n;

	optind = 1;
	while ((c = getopt_long(argc, argv, "p:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_pid(optarg, &pid)) {
				p_err("list: invalid PID '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			fputs(list_usage, stdout);
			return EXIT_OK;
		default:
			fputs(list_usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (!pid == (optind >= argc) || argc - optind > 1) {
		fputs(list_usage, stderr);
		return EXIT_USAGE;
	}
	n = pid ? list_process(pid) : list_file(argv[optind], false);
	if (n < 0)
		return EXIT_FAIL;
	if (n == 0 && pid)
		p_err("PID %d: no 'etdump' USDT probes in its executable or libraries",
		      pid);
	else if (n == 0)
		p_err("%s: no 'etdump' USDT probes", argv[optind]);
	return n ? EXIT_OK : EXIT_FAIL;
}

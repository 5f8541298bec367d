// SPDX-License-Identifier: BSD-3-Clause
/*
 * main.c - etdump-bpf's entry: global options, then one subcommand.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cli/commands.h"
#include "cli/doctor_target.h"
#include "schema/etdump_record.h"
#define ETDUMP_USDT_DISABLE /* the version only, no probes in the tracer */
#include "lib/log.h"
#include "schema/etdump_usdt.h"

#include "lib/version.h"

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "record", cmd_record, "trace a process into an ETDump" },
	{ "list", cmd_list, "show the etdump probes of a binary or process" },
	{ "convert", cmd_convert, "turn a raw capture into an ETDump, a Chrome trace or a pprof profile" },
	{ "report", cmd_report, "the Inspector's statistics table of an ETDump" },
	{ "diff", cmd_diff, "compare two ETDumps operator by operator, for CI" },
	{ "doctor", cmd_doctor, "what recording needs here, and what is missing" },
	{ "top", cmd_top, "live per-operator view of a process (record --live)" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: etdump-bpf [-v | -q] COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n  -v, --verbose   libbpf's log and debug messages\n"
		   "  -q, --quiet     errors only (no progress, summary, warnings)\n"
		   "  --version       print the version\n"
		   "\n'etdump-bpf COMMAND --help' describes a command; -v and -q\n"
		   "may also follow the command's name.\n");
}

/* A unique prefix names a command, as bpftool allows. */
static const struct command *find_command(const char *name)
{
	const struct command *found = NULL;
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(commands[i].name, name))
			return &commands[i];
		if (!strncmp(commands[i].name, name, strlen(name))) {
			if (found)
				return NULL;
			found = &commands[i];
		}
	}
	return found;
}

int main(int argc, char **argv)
{
	const struct command *cmd;
	int i = 1, ret;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			log_verbose = 1;
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			log_quiet = 1;
		} else if (!strcmp(argv[i], "--version")) {
			printf("etdump-bpf %s (probe ABI %d, record format %d)\n",
			       ETDUMP_BPF_VERSION, ETDUMP_USDT_ABI_VERSION,
			       ETDUMP_RECORD_VERSION);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return EXIT_OK;
		} else {
			fprintf(stderr, "etdump-bpf: unknown option '%s' (see 'etdump-bpf --help')\n",
				argv[i]);
			return EXIT_USAGE;
		}
	}
	if (i == argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	/* doctor's own target (doctor_target.h): never a prefix, never listed */
	if (!strcmp(argv[i], DOCTOR_TARGET_COMMAND))
		return doctor_target(argc - i, argv + i);
	cmd = find_command(argv[i]);
	if (!cmd) {
		fprintf(stderr, "etdump-bpf: unknown command '%s' (see 'etdump-bpf --help')\n",
			argv[i]);
		return EXIT_USAGE;
	}
	log_setup_libbpf();
	ret = cmd->fn(argc - i, argv + i);
	/* what a command printed must have reached its reader (> /dev/full) */
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "etdump-bpf: cannot write to standard output: %s\n",
			strerror(errno));
		return ret == EXIT_OK ? EXIT_FAIL : ret;
	}
	return ret;
}

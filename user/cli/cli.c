// SPDX-License-Identifier: BSD-3-Clause
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include "cli/cli.h"
#include "cli/commands.h"
#include "lib/log.h"

bool cli_common_option(int c)
{
	if (c == 'v')
		log_verbose = 1;
	else if (c == 'q')
		log_quiet = 1;
	return c == 'v' || c == 'q';
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "etdump-bpf %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'etdump-bpf %s --help')\n", cmd);
	return EXIT_USAGE;
}

int cli_option_error(const char *cmd, int c, char **argv)
{
	const char *typed = argv[optind - 1];
	char letter[3] = { '-', (char)optopt, '\0' };

	/* a short option typed in a cluster (-fx): name the letter alone */
	if (optopt > 0 && optopt < 128 && typed[0] == '-' && typed[1] != '-')
		typed = letter;
	if (c == ':')
		return cli_usage_error(cmd, "option '%s' needs a value", typed);
	return cli_usage_error(cmd, "unknown option '%s'", typed);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cli.h - what every command's option parsing shares: -v and -q after the
 * command's name (as perf takes them), and usage errors in one line that
 * ends with where the help is, never the whole help.
 */
#ifndef ETDUMP_CLI_H
#define ETDUMP_CLI_H

#include <stdbool.h>

/* In a command's struct option array; the letters go in its optstring. */
#define CLI_COMMON_LONGOPTS                                                    \
	{ "verbose", no_argument, NULL, 'v' },                                 \
	{ "quiet", no_argument, NULL, 'q' }
#define CLI_COMMON_SHORTOPTS "vq"

/* Handles 'v' and 'q' from getopt: true when c was one of them. */
bool cli_common_option(int c);

/*
 * "etdump-bpf CMD: MESSAGE (see 'etdump-bpf CMD --help')" on stderr;
 * returns EXIT_USAGE.
 */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The usage error for what getopt_long() returned as c, '?' or ':' (an
 * optstring starting with ':' tells a missing value from an unknown
 * option), naming the option as the user typed it. Set opterr = 0 first.
 */
int cli_option_error(const char *cmd, int c, char **argv);

#endif /* ETDUMP_CLI_H */

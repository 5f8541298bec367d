/* SPDX-License-Identifier: BSD-3-Clause */
/* commands.h - the subcommands main.c dispatches to, and their exit codes. */
#ifndef ETDUMP_COMMANDS_H
#define ETDUMP_COMMANDS_H

enum exit_code {
	EXIT_OK = 0,
	EXIT_FAIL = 1,   /* nothing (valid) written */
	EXIT_USAGE = 2,
	EXIT_LOST = 3,   /* written, but the kernel dropped events */
	EXIT_DAMAGED = 4, /* written from a damaged input: what precedes the damage */
};

/* Each takes argv with argv[0] = the command's name. */
int cmd_record(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_top(int argc, char **argv);

#endif /* ETDUMP_COMMANDS_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/* commands.h - the subcommands main.c dispatches to. */
#ifndef ETDUMP_COMMANDS_H
#define ETDUMP_COMMANDS_H

#include "lib/exit_code.h"

/* Each takes argv with argv[0] = the command's name. */
int cmd_record(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_top(int argc, char **argv);

#endif /* ETDUMP_COMMANDS_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doctor_target.h - the process doctor records in each mode (an internal
 * command of etdump-bpf: `etdump-bpf __doctor-target [--loop | --child
 * SELF]`): EXECUTIONS executions of a method of two kernels, or one
 * every 2 ms until SIGTERM (--loop, for record -p), or the executions and
 * then the same in a child (--child, for -- CMD's children).
 */
#ifndef ETDUMP_DOCTOR_TARGET_H
#define ETDUMP_DOCTOR_TARGET_H

#define DOCTOR_TARGET_COMMAND "__doctor-target"

int doctor_target(int argc, char **argv);

#endif /* ETDUMP_DOCTOR_TARGET_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * exec_stop.h - a command held at the gate (target.h) let go under ptrace
 * for its first moments: stopped at its exec, then after each system call
 * of its dynamic loader, so that something can be written into its memory
 * before any of its code runs (record --every: the runtime's word, in the
 * executable and in each library as the loader maps it). Then detached:
 * it runs on untouched.
 */
#ifndef ETDUMP_EXEC_STOP_H
#define ETDUMP_EXEC_STOP_H

#include <sys/types.h>

struct target;

/*
 * The system calls stepped through at most: a loader maps its libraries in
 * a few hundred; past that what was not found will not be.
 */
#define EXEC_STOP_MAX_STEPS 4096

/* 1: done, 0: step on, negative errno: give up (the command runs on). */
typedef int (*exec_step_fn)(void *ctx, pid_t pid);

/*
 * Open the gate of t (spawned, not released) and call step at its exec
 * stop, then after each of its system calls until step returns non-zero
 * or EXEC_STOP_MAX_STEPS passed. 0 when step said done; -EAGAIN when the
 * steps ran out; step's error; -ECHILD when the command exited (the
 * status in t); other negative errno from ptrace.
 */
int exec_stop_release(struct target *t, exec_step_fn step, void *ctx);

#endif /* ETDUMP_EXEC_STOP_H */

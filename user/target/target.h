/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * target.h - the traced process: an existing PID, or a command we start
 * held at a gate until the probes are attached, so that its first
 * instruction is already traced.
 */
#ifndef ETDUMP_TARGET_H
#define ETDUMP_TARGET_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct target {
	pid_t pid;
	bool spawned;           /* we started it, and reap it */
	int pidfd;              /* readable once it has exited; -1: no pidfds */
	int gate_fd;            /* spawned: write end of the start gate */
	bool exited;
	int wait_status;        /* spawned and exited: from waitpid */
	char exe[PATH_MAX];     /* the executable carrying the probes */
	char script[PATH_MAX];  /* spawned: the #! script exe interprets, or "" */
};

/* -ESRCH: no such process; -EACCES: cannot see it. Message in err. */
int target_open_pid(struct target *t, pid_t pid, char *err, size_t errlen);
/*
 * Start argv[0] (searched in PATH) stopped at the gate; when it is a script,
 * exe is the interpreter the kernel will run (script_interpreter.h). target_stop() and
 * target_close() before the release tell it not to run; a recorder that
 * dies (SIGKILL) without a word lets it run untraced.
 */
int target_spawn(struct target *t, char *const argv[], char *err,
		 size_t errlen);
/* Open the gate: the spawned command execs now. */
int target_release(struct target *t);
/* Non-blocking: has the process exited? Reaps a spawned one. */
bool target_has_exited(struct target *t);
/* A spawned command still running is sent SIGTERM and reaped. */
void target_stop(struct target *t);
void target_close(struct target *t);
/*
 * The PID namespace the recorder sees pids in, when it is not the initial
 * one (a container): its device and inode, for the BPF programs' filter;
 * both 0 in the initial namespace, where pids are the kernel's own.
 */
void target_pid_namespace(uint64_t *dev, uint64_t *ino);

#endif /* ETDUMP_TARGET_H */

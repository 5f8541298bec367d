// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include "target/exec_stop.h"
#include "target/target.h"

/* a system-call stop, with PTRACE_O_TRACESYSGOOD */
#define SYSCALL_STOP (SIGTRAP | 0x80)

static int exited(struct target *t, int status)
{
	t->exited = true;
	t->wait_status = status;
	return -ECHILD;
}

int exec_stop_release(struct target *t, exec_step_fn step, void *ctx)
{
	int status, sig, done = 0, steps = 0;
	bool at_exec = true;

	if (t->gate_fd < 0)
		return -EINVAL;
	/* the child asks to be traced before its exec ('t' at the gate) */
	if (write(t->gate_fd, "t", 1) != 1)
		return -errno;
	close(t->gate_fd);
	t->gate_fd = -1;
	for (;;) {
		if (waitpid(t->pid, &status, 0) != t->pid)
			return -errno;
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return exited(t, status);
		sig = WSTOPSIG(status);
		if (at_exec && sig == SIGTRAP) {
			at_exec = false;
			sig = 0;
			if (ptrace(PTRACE_SETOPTIONS, t->pid, 0,
				   PTRACE_O_TRACESYSGOOD))
				done = -errno;
			else
				done = step(ctx, t->pid);
		} else if (sig == SYSCALL_STOP) {
			sig = 0;
			done = step(ctx, t->pid);
		}
		/* any other stop is a signal's: handed on as it came */
		if (done || ++steps > EXEC_STOP_MAX_STEPS) {
			if (ptrace(PTRACE_DETACH, t->pid, 0, sig))
				return -errno;
			return done < 0 ? done : done ? 0 : -EAGAIN;
		}
		if (ptrace(PTRACE_SYSCALL, t->pid, 0, sig))
			return -errno;
	}
}

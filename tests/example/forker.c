// SPDX-License-Identifier: BSD-3-Clause
/*
 * forker.c - a runtime that forks while it may be traced: the parent runs
 * N executions, then a fork() child and a vfork() child run theirs, and
 * the parent N more. Each child reports how it ended and whether its probe
 * semaphores still said a tracer listens.
 *
 * usage: example-forker [-n N] [--long-name]; prints "ready PID", waits
 * for SIGUSR1. --long-name names the scope past what the probes copy.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "etdump_usdt.h"

static const char *scope = "Method::execute";

static void executions(int n)
{
	for (int i = 0; i < n; i++) {
		ETDUMP_BLOCK("Execute");
		ETDUMP_PROFILE_BEGIN(scope, ETDUMP_UNSET_CHAIN,
				     ETDUMP_UNSET_DEBUG_HANDLE);
		ETDUMP_PROFILE_END(scope);
	}
}

static void report(const char *how, pid_t pid)
{
	int status;

	waitpid(pid, &status, 0);
	if (WIFSIGNALED(status))
		printf("%s child: signal %d\n", how, WTERMSIG(status));
	else
		printf("%s child: exit %d\n", how, WEXITSTATUS(status));
}

int main(int argc, char **argv)
{
	int n = argc >= 3 && !strcmp(argv[1], "-n") ? atoi(argv[2]) : 5, sig;
	sigset_t set;
	pid_t pid;

	if (!strcmp(argv[argc - 1], "--long-name"))
		scope = "a_scope_name_longer_than_the_sixty_three_bytes_a_probe_"
			"copies_of_it";
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	sigwait(&set, &sig);

	executions(n);
	pid = fork();
	if (!pid) {
		unsigned int listening = etdump_semaphores.any;

		executions(n);
		/* exit 2: the child still paid for a tracer nobody attached */
		_exit(listening ? 2 : 0);
	}
	report("fork", pid);
	pid = vfork();
	if (!pid) {
		executions(n);
		_exit(0);
	}
	report("vfork", pid);
	executions(n);
	return 0;
}

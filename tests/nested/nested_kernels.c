// SPDX-License-Identifier: BSD-3-Clause
/*
 * nested_kernels.c - a runtime built without probes whose Method::execute
 * runs three kernels, one of which calls another kernel directly (as
 * ExecuTorch kernels built on others do), for symbol mode's one trap a
 * kernel (tests/e2e/test_one_trap.py, rules in nested_kernels.rules).
 * With --side-thread a second thread calls a kernel in a loop outside any
 * method_execute, as a runtime's own helper thread might. With
 * --fail-every K every Kth execution's second instruction is op_fail,
 * which fails: method_execute returns at once, as ExecuTorch's does when
 * a kernel sets an error, and op_plain does not run.
 *
 * Each kernel spins a number of clock reads, so that what runs inside one
 * and after one stays apart whatever the machine's speed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline, noclone))

static volatile long sink;

static NOINLINE void spin(int reads)
{
	struct timespec ts;

	for (int i = 0; i < reads; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sink += ts.tv_nsec;
	}
}

/* the barriers keep each call a call, not a tail jump */
NOINLINE void op_inner(void)
{
	spin(40);
	__asm__ volatile("" ::: "memory");
}

/* spins before and after the kernel it calls directly */
NOINLINE void op_outer(void)
{
	spin(40);
	op_inner();
	spin(40);
	__asm__ volatile("" ::: "memory");
}

NOINLINE void op_plain(void)
{
	spin(20);
	__asm__ volatile("" ::: "memory");
}

/* an instruction that fails: its kernel returns an error at once */
NOINLINE int op_fail(void)
{
	spin(5);
	__asm__ volatile("" ::: "memory");
	return -1;
}

/* through pointers, as a runtime's instructions call their kernels */
static void (*volatile const program[])(void) = { op_outer, op_plain };
static int (*volatile const failing)(void) = op_fail;

NOINLINE int method_execute(bool fail)
{
	program[0]();
	if (fail && failing())
		return -1;
	program[1]();
	__asm__ volatile("" ::: "memory");
	return 0;
}

static atomic_bool done;
/* --until-usr1: on until SIGUSR1, then -n executions more */
static volatile sig_atomic_t told_to_stop;

static void on_usr1(int sig)
{
	(void)sig;
	told_to_stop = 1;
}

static void *side_thread(void *arg)
{
	void (*volatile kernel)(void) = op_plain;

	(void)arg;
	while (!atomic_load(&done)) {
		kernel();
		spin(20);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t side;
	bool with_side = false, until_usr1 = false;
	long n = 100, done_n, fail_every = 0, failed = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			n = atol(argv[++i]);
		else if (!strcmp(argv[i], "--side-thread"))
			with_side = true;
		else if (!strcmp(argv[i], "--until-usr1"))
			until_usr1 = true;
		else if (!strcmp(argv[i], "--fail-every") && i + 1 < argc)
			fail_every = atol(argv[++i]);
		else {
			fprintf(stderr, "usage: nested-kernels [-n N] [--side-thread] [--until-usr1] [--fail-every K]\n");
			return 2;
		}
	}
	if (with_side && pthread_create(&side, NULL, side_thread, NULL)) {
		perror("pthread_create");
		return 1;
	}
	if (until_usr1)
		signal(SIGUSR1, on_usr1);
	/* execution k (from 1) fails when K divides it */
	for (done_n = 0; until_usr1 && !told_to_stop; done_n++)
		failed -= method_execute(fail_every &&
					 (done_n + 1) % fail_every == 0);
	for (long i = 0; i < n; i++, done_n++)
		failed -= method_execute(fail_every &&
					 (done_n + 1) % fail_every == 0);
	if (with_side) {
		atomic_store(&done, true);
		pthread_join(side, NULL);
	}
	printf("%ld executions\n", done_n);
	if (fail_every)
		printf("%ld failed\n", failed);
	return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * own_runs.c - threads that each execute runs of their own, every event of
 * a run marked with its thread (chain) and its run (instruction id), and
 * a log of when each run began and ended by the program's own clock: what
 * a recording must match, run by run, however much its ring lost
 * (tests/e2e/test_loss_property.py).
 *
 *   loss-own-runs [-f] [-s MS] -t THREADS -n RUNS -o LOG
 *
 * -f: a run's scopes side by side (no Method::execute around them), as a
 * runtime whose run is a sequence of calls: a run ends only where the
 * thread's next block begins.
 * -s MS: after every other run the thread sleeps MS ms: a batched thread
 * that ended a run soon after its last flush then holds a buffer the
 * recorder reads from the process (idle 50 ms).
 *
 * LOG: one line a run, "thread run tid begin_ns end_ns" (CLOCK_MONOTONIC,
 * read before the run's block and after its last scope ended).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "schema/etdump_usdt.h"

#define MAX_THREADS 64
/* a run's scopes, nested two deep as a method's operators in its execute */
#define OPERATORS 4

static const char block_name[] = "Execute";
static const char execute_name[] = "Method::execute";
static const char *const op_names[OPERATORS] = { "op_a", "op_b", "op_c",
						 "op_d" };

struct run_log {
	uint64_t begin, end;
};

struct worker {
	pthread_t thread;
	long index, runs;
	bool flat;
	long idle_ms;
	pid_t tid;
	struct run_log *log;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* a few hundred ns of work an operator: runs faster than a ring drains */
static volatile uint64_t sink;

static void work(long n)
{
	for (long i = 0; i < n; i++)
		sink += i;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int chain = (int)w->index;

	w->tid = (pid_t)syscall(SYS_gettid);
	for (long r = 0; r < w->runs; r++) {
		int instr = (int)r;

		w->log[r].begin = now_ns();
		ETDUMP_BLOCK(block_name);
		if (!w->flat)
			ETDUMP_PROFILE_BEGIN(execute_name, chain, instr);
		for (int op = 0; op < OPERATORS; op++) {
			ETDUMP_PROFILE_BEGIN(op_names[op], chain, instr);
			work(100);
			ETDUMP_PROFILE_END(op_names[op]);
		}
		/* -f: its fifth scope beside the others */
		if (w->flat)
			ETDUMP_PROFILE_BEGIN(execute_name, chain, instr);
		ETDUMP_PROFILE_END(execute_name);
		w->log[r].end = now_ns();
		if (w->idle_ms && r % 2)
			sleep_ms(w->idle_ms);
	}
	return NULL;
}

static long parse(const char *what, const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 1 || v > max) {
		fprintf(stderr, "loss-own-runs: %s: a number from 1 to %ld\n",
			what, max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static struct worker w[MAX_THREADS];
	long threads = 1, runs = 1;
	bool flat = false;
	long idle_ms = 0;
	const char *log = NULL;
	FILE *f;
	int opt;

	while ((opt = getopt(argc, argv, "fs:t:n:o:")) != -1) {
		if (opt == 'f')
			flat = true;
		else if (opt == 's')
			idle_ms = parse("-s", optarg, 10000);
		else if (opt == 't')
			threads = parse("-t", optarg, MAX_THREADS);
		else if (opt == 'n')
			runs = parse("-n", optarg, 1000000);
		else if (opt == 'o')
			log = optarg;
		else
			return 2;
	}
	if (!log) {
		fprintf(stderr, "usage: loss-own-runs [-f] [-s MS] -t THREADS -n RUNS -o LOG\n");
		return 2;
	}
	for (long i = 0; i < threads; i++) {
		w[i].index = i;
		w[i].runs = runs;
		w[i].flat = flat;
		w[i].idle_ms = idle_ms;
		w[i].log = calloc(runs, sizeof(*w[i].log));
		if (!w[i].log || pthread_create(&w[i].thread, NULL, worker_main,
						&w[i])) {
			fprintf(stderr, "loss-own-runs: cannot start thread %ld\n",
				i);
			return 1;
		}
	}
	for (long i = 0; i < threads; i++)
		pthread_join(w[i].thread, NULL);
	f = fopen(log, "w");
	if (!f) {
		perror(log);
		return 1;
	}
	for (long i = 0; i < threads; i++)
		for (long r = 0; r < runs; r++)
			fprintf(f, "%ld %ld %d %llu %llu\n", i, r, (int)w[i].tid,
				(unsigned long long)w[i].log[r].begin,
				(unsigned long long)w[i].log[r].end);
	return fclose(f) ? 1 : 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * loop.c - the benchmark's target: probe sites in a tight loop, timed by the
 * target itself, so a tracer's cost per hit is what it adds to this loop.
 *
 *   bench-loop [--wait-signal] -n N              N x (work, profile_begin,
 *                                                 profile_end), timed
 *   bench-loop [--wait-signal] -n N --rate R [--threads T]
 *                                                N delegate_log events (one
 *                                                ETDump event each) paced at
 *                                                R events/s over T threads
 *   ... --rate R --run-events K                  a new run (block) every K
 *                                                events of a thread, as a
 *                                                model's executions
 *
 * Prints one line of key=value pairs: iterations, hits (probe hits in the
 * timed part), fired (every probe hit), loop_ns, ns_per_iter; paced:
 * events (fired), threads, loop_ns, rate (achieved). Built three ways by
 * the Makefile: as is (5-byte nop sites), with -DBENCH_NOP1 (1-byte nop
 * sites) and with -DETDUMP_USDT_DISABLE (no sites).
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "schema/etdump_usdt.h"

#ifdef BENCH_NOP1
/*
 * The same sites and notes as the header's, with a 1-byte nop instead of
 * the 5-byte one: a uprobe there traps (int3) instead of being turned into a
 * call. The header has no switch for it and needs none outside this
 * benchmark, so the bench redefines the one macro the site expands to.
 */
#undef ETDUMP__NOP
#define ETDUMP__NOP "nop"
#endif

#define UNUSED __attribute__((unused))
#define MAX_THREADS 64
#define TICK_NS 1000000ull

static const char usage[] =
	"usage: bench-loop [--wait-signal] -n N [--rate EVENTS_PER_S [--threads T] [--run-events K]]\n";

static const char op_name[] = "op";
static const char run_name[] UNUSED = "bench";

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Held until SIGUSR1, so that a tracer can attach with -p first. */
static void wait_for_sigusr1(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	sigwait(&set, &sig);
}

/*
 * Few sites per probe: a tracer's exit costs the kernel ~0.1-0.3 s per
 * site here (one uprobe unregister each), so the sites outside the timed
 * loop are shared, in functions never inlined.
 */
static __attribute__((noinline)) void open_run(void)
{
	ETDUMP_BLOCK(run_name);
}

static __attribute__((noinline)) void outer_scope(bool begin)
{
	if (begin)
		ETDUMP_PROFILE_BEGIN(run_name, ETDUMP_UNSET_CHAIN,
				     ETDUMP_UNSET_DEBUG_HANDLE);
	else
		ETDUMP_PROFILE_END(run_name);
}

/* One iteration: a little dependent work between one begin and one end. */
static inline uint64_t iteration(uint64_t x, UNUSED const char *name)
{
	ETDUMP_PROFILE_BEGIN(name, ETDUMP_UNSET_CHAIN,
			     ETDUMP_UNSET_DEBUG_HANDLE);
	x = x * 6364136223846793005ull + 1442695040888963407ull;
	ETDUMP_PROFILE_END(name);
	return x;
}

static void run_loop(long n)
{
	uint64_t x = 1, t0, t1;
	long i;

	/*
	 * One run, one outer scope, as a model's execute: batched mode
	 * flushes when its buffer fills, not at every op.
	 */
	open_run();
	outer_scope(true);
	t0 = now_ns();
	for (i = 0; i < n; i++)
		x = iteration(x, op_name);
	t1 = now_ns();
	outer_scope(false);
	printf("iterations=%ld hits=%ld fired=%ld loop_ns=%llu ns_per_iter=%.3f x=%llu\n",
	       n, 2 * n, 2 * n + 3, (unsigned long long)(t1 - t0),
	       (double)(t1 - t0) / n, (unsigned long long)x);
}

/*
 * Paced: event i of a thread fires at t0 + i / rate. Every millisecond the
 * thread fires what is due, then sleeps to the next one, leaving the CPU to
 * the collector when it is ahead; when late it fires at once.
 */
struct pacer {
	pthread_t thread;
	long n;
	long run_events;  /* a new run every this many events; 0: one run */
	double rate;
	uint64_t ns;
};

static void *run_paced(void *arg)
{
	struct pacer *p = arg;
	uint64_t t0, tick, due;
	struct timespec ts;
	long i = 0;

	open_run();
	t0 = now_ns();
	for (tick = t0; i < p->n; tick += TICK_NS) {
		for (; i < p->n; i++) {
			due = t0 + (uint64_t)(i * (1e9 / p->rate));
			if (due > tick)
				break;
			if (p->run_events && i && i % p->run_events == 0)
				open_run();
			ETDUMP_DELEGATE_LOG(op_name, -1, due, due, NULL, 0);
		}
		ts.tv_sec = (tick + TICK_NS) / 1000000000ull;
		ts.tv_nsec = (tick + TICK_NS) % 1000000000ull;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	p->ns = now_ns() - t0;
	return NULL;
}

/* T threads, each its own run, n / T events at rate / T each. */
static int run_threads(long n, double rate, long threads, long run_events)
{
	struct pacer p[MAX_THREADS];
	uint64_t ns = 0;
	long t;

	for (t = 0; t < threads; t++) {
		p[t] = (struct pacer){ .n = n / threads, .rate = rate / threads,
				       .run_events = run_events };
		if (pthread_create(&p[t].thread, NULL, run_paced, &p[t]))
			return 1;
	}
	for (t = 0; t < threads; t++) {
		pthread_join(p[t].thread, NULL);
		ns = p[t].ns > ns ? p[t].ns : ns;
	}
	n = n / threads * threads;
	printf("events=%ld threads=%ld loop_ns=%llu rate=%.0f\n", n, threads,
	       (unsigned long long)ns, n * 1e9 / ns);
	return 0;
}

static int parse_positive(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno || end == s || *end || !(*v >= 1 && *v <= 1e12) ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "rate", required_argument, NULL, 'r' },
		{ "threads", required_argument, NULL, 't' },
		{ "run-events", required_argument, NULL, 'k' },
		{ "wait-signal", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	double n = 0, rate = 0, threads = 1, run_events = 0;
	int wait = 0, c;

	while ((c = getopt_long(argc, argv, "n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (parse_positive(optarg, &n))
				goto bad;
			break;
		case 'r':
			if (parse_positive(optarg, &rate))
				goto bad;
			break;
		case 't':
			if (parse_positive(optarg, &threads) ||
			    threads > MAX_THREADS)
				goto bad;
			break;
		case 'k':
			if (parse_positive(optarg, &run_events))
				goto bad;
			break;
		case 'w':
			wait = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (!n || optind < argc)
		goto bad;
	if (wait)
		wait_for_sigusr1();
	if (rate)
		return run_threads((long)n, rate, (long)threads,
				   (long)run_events);
	run_loop((long)n);
	return 0;
bad:
	fputs(usage, stderr);
	return 2;
}

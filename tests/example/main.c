// SPDX-License-Identifier: BSD-3-Clause
/*
 * example-runtime - a small ExecuTorch-style runtime carrying etdump probes.
 * Loads the method once on the main thread, then --threads threads each
 * execute it -n times; see README.md for the events a tracer sees.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "method.h"
#include "pool.h"
#include "program.h"
#include "timings.h"

#define MAX_THREADS 64
#define MAX_SLEEP_MS 3600000

struct options {
	long executions;
	long threads;
	long sleep_ms;
	const char *timings;
	const char *exec;
	bool wait_signal;
	bool pool;
	bool mark_ids;
	long respawn;
};

struct worker {
	pthread_t thread;
	const struct options *opts;
	const struct method *method;
	struct tracer tracer;
	struct timings timings;
	float probabilities[PROGRAM_CLASSES];
	int err;
	long index;
	long round;     /* --respawn: how many threads ran this slot before */
};

static const char usage[] =
	"usage: example-runtime [-n N] [--threads T] [--timings FILE]\n"
	"                       [--wait-signal] [--sleep-ms MS] [--counter-ops]\n"
	"  -n N            executions per thread (default 20)\n"
	"  --threads T     threads executing the loaded method (default 1)\n"
	"  --timings FILE  write the runtime's own event times (TSV) at exit\n"
	"  --wait-signal   print 'ready PID', load only after SIGUSR1\n"
	"  --sleep-ms MS   pause between executions (default 0)\n"
	"  --counter-ops   add instructions 6-8: touch_pages (page faults),\n"
	"                  yield (a context switch), spin (pure compute)\n"
	"  --stall-at N    execution N of each thread stops inside its\n"
	"                  DelegateCall, prints 'stalled', waits to be killed\n"
	"  --abandon-at N  execution N of each thread returns after its first\n"
	"                  instruction without ending Method::execute\n"
	"  --pool          the delegate runs its relu node on a pool worker\n"
	"                  thread, which opens no block of its own\n"
	"  --exec CMD      at the end, become /bin/sh -c CMD (same process)\n"
	"  --slow-every K  every K-th execution of a thread takes 20 ms more\n"
	"  --mark-ids      each thread's events carry its index as chain and\n"
	"                  its execution in the instruction id (method.h)\n"
	"  --respawn R     each thread, done, hands its slot to a new thread,\n"
	"                  R threads a slot in all (threads that come and go)\n"
	"  --slow-op OP:US every call of operator OP (native_call_OP) takes\n"
	"                  US microseconds longer (a regression to find)\n";

static void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("example-runtime: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static long parse_long(const char *opt, const char *arg, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max)
		usage_error("invalid %s '%s': expected an integer from %ld to %ld",
			    opt, arg, min, max);
	return v;
}

/* OP:US, as --slow-op takes it */
static void parse_slow_op(char *arg)
{
	char *colon = strrchr(arg, ':');

	if (!colon || colon == arg)
		usage_error("invalid --slow-op '%s': expected OP:US", arg);
	*colon = '\0';
	method_slow_op(arg, parse_long("--slow-op", colon + 1, 1, 1000000));
}

static void parse_options(int argc, char **argv, struct options *o)
{
	/* above any char, so that optopt tells long options from short */
	enum { OPT_THREADS = 256, OPT_TIMINGS, OPT_WAIT_SIGNAL, OPT_SLEEP_MS,
	       OPT_COUNTER_OPS, OPT_STALL_AT, OPT_ABANDON_AT, OPT_POOL, OPT_EXEC,
	       OPT_SLOW_EVERY, OPT_SLOW_OP, OPT_MARK_IDS,
	       OPT_RESPAWN };
	static const struct option longopts[] = {
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "timings", required_argument, NULL, OPT_TIMINGS },
		{ "wait-signal", no_argument, NULL, OPT_WAIT_SIGNAL },
		{ "sleep-ms", required_argument, NULL, OPT_SLEEP_MS },
		{ "counter-ops", no_argument, NULL, OPT_COUNTER_OPS },
		{ "stall-at", required_argument, NULL, OPT_STALL_AT },
		{ "abandon-at", required_argument, NULL, OPT_ABANDON_AT },
		{ "pool", no_argument, NULL, OPT_POOL },
		{ "exec", required_argument, NULL, OPT_EXEC },
		{ "slow-every", required_argument, NULL, OPT_SLOW_EVERY },
		{ "slow-op", required_argument, NULL, OPT_SLOW_OP },
		{ "mark-ids", no_argument, NULL, OPT_MARK_IDS },
		{ "respawn", required_argument, NULL, OPT_RESPAWN },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	*o = (struct options){ .executions = 20, .threads = 1, .respawn = 1 };
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			o->executions = parse_long("-n", optarg, 1, INT_MAX);
			break;
		case OPT_THREADS:
			o->threads = parse_long("--threads", optarg, 1,
						MAX_THREADS);
			break;
		case OPT_SLEEP_MS:
			o->sleep_ms = parse_long("--sleep-ms", optarg, 0,
						 MAX_SLEEP_MS);
			break;
		case OPT_TIMINGS:
			o->timings = optarg;
			break;
		case OPT_WAIT_SIGNAL:
			o->wait_signal = true;
			break;
		case OPT_COUNTER_OPS:
			program_enable_counter_ops();
			break;
		case OPT_STALL_AT:
			method_stall_at(parse_long("--stall-at", optarg, 1,
						   INT_MAX));
			break;
		case OPT_ABANDON_AT:
			method_abandon_at(parse_long("--abandon-at", optarg, 1,
						     INT_MAX));
			break;
		case OPT_POOL:
			o->pool = true;
			break;
		case OPT_MARK_IDS:
			o->mark_ids = true;
			break;
		case OPT_RESPAWN:
			o->respawn = parse_long("--respawn", optarg, 1, 1000);
			break;
		case OPT_EXEC:
			o->exec = optarg;
			break;
		case OPT_SLOW_EVERY:
			method_slow_every(parse_long("--slow-every", optarg, 1,
						     INT_MAX));
			break;
		case OPT_SLOW_OP:
			parse_slow_op(optarg);
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		case ':':
			usage_error("option '%s' needs a value (see --help)",
				    argv[optind - 1]);
		default:
			if (optopt > 0 && optopt < 256)
				usage_error("unknown option '-%c' (see --help)",
					    optopt);
			usage_error("invalid option '%s' (see --help)",
				    argv[optind - 1]);
		}
	}
	/* one timings log a slot: its threads' rows would share it */
	if (o->respawn > 1 && o->timings)
		usage_error("--respawn and --timings do not go together");
	if (optind < argc)
		usage_error("unexpected argument '%s' (see --help)",
			    argv[optind]);
}

/* Held before the load, so that a tracer can attach with -p first. */
static void wait_for_sigusr1(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	/* blocked before "ready": an early SIGUSR1 must not kill us */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	sigwait(&set, &sig);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* on the thread the worker runs on: the tid is the thread's */
static void worker_setup(struct worker *w)
{
	w->timings.tid = syscall(SYS_gettid);
	tracer_init(&w->tracer, w->opts->timings ? &w->timings : NULL);
	if (w->opts->mark_ids)
		w->tracer.mark = w->round * w->opts->threads + w->index;
}

/*
 * Called after each execution when set: a host that runs two copies of
 * this runtime on one thread (dlopen_host.c --alternate) turns to the
 * other copy there.
 */
void (*example_after_execution)(void);

static void worker_respawn(struct worker *w);

static void worker_run(struct worker *w)
{
	struct activations *a = activations_new(w->method);

	if (!a) {
		w->err = ENOMEM;
		return;
	}
	for (long i = 0; i < w->opts->executions; i++) {
		if (i && w->opts->sleep_ms)
			sleep_ms(w->opts->sleep_ms);
		method_execute(w->method, a, &w->tracer);
		if (example_after_execution)
			example_after_execution();
	}
	memcpy(w->probabilities, method_output(a), sizeof(w->probabilities));
	activations_free(a);
	if (w->round + 1 < w->opts->respawn)
		worker_respawn(w);
}

static void *worker_thread(void *arg);

/*
 * --respawn: the slot's next thread, started while the other slots execute
 * (its first block lands in a busy ring), and waited for.
 */
static void worker_respawn(struct worker *w)
{
	struct worker next = *w;
	int err;

	next.round++;
	err = pthread_create(&next.thread, NULL, worker_thread, &next);
	if (!err) {
		pthread_join(next.thread, NULL);
		err = next.err;
		memcpy(w->probabilities, next.probabilities,
		       sizeof(w->probabilities));
	}
	w->err = w->err ? w->err : err;
}

static void *worker_thread(void *arg)
{
	struct worker *w = arg;
	char name[16];

	/* a name of its own, as a timeline shows it (comm) */
	snprintf(name, sizeof(name), "worker %ld", w->index);
	pthread_setname_np(pthread_self(), name);
	worker_setup(arg);
	worker_run(arg);
	return NULL;
}

/*
 * Worker 0 is the main thread: it loads the method, then executes it
 * alongside the others.
 */
static int run_workers(const struct options *opts, struct worker *w)
{
	struct method *m;
	long started;
	int err = 0;

	for (long i = 0; i < opts->threads; i++) {
		w[i].opts = opts;
		w[i].index = i;
	}
	worker_setup(&w[0]);
	m = load_method(&w[0].tracer);
	if (!m)
		return ENOMEM;
	for (started = 1; started < opts->threads; started++) {
		w[started].method = m;
		err = pthread_create(&w[started].thread, NULL, worker_thread,
				     &w[started]);
		if (err)
			break;
	}
	w[0].method = m;
	if (!err)
		worker_run(&w[0]);
	for (long i = 1; i < started; i++)
		pthread_join(w[i].thread, NULL);
	for (long i = 0; i < opts->threads && !err; i++)
		err = w[i].err;
	method_free(m);
	return err;
}

int main(int argc, char **argv)
{
	static struct worker workers[MAX_THREADS];
	static struct timings pool_timings;
	struct options opts;
	int err;

	parse_options(argc, argv, &opts);
	if (opts.wait_signal)
		wait_for_sigusr1();
	err = opts.pool ? pool_start(opts.timings ? &pool_timings : NULL) : 0;
	if (!err)
		err = run_workers(&opts, workers);
	pool_stop();
	if (err) {
		fprintf(stderr, "example-runtime: %s\n", strerror(err));
		return 1;
	}
	if (opts.timings) {
		struct timings logs[MAX_THREADS + 1];
		int n = 0;

		for (long i = 0; i < opts.threads; i++)
			logs[n++] = workers[i].timings;
		if (opts.pool)
			logs[n++] = pool_timings;
		if (timings_write(opts.timings, logs, n)) {
			fprintf(stderr, "example-runtime: %s: %s\n",
				opts.timings, strerror(errno));
			return 1;
		}
	}
	printf("probabilities:");
	for (int i = 0; i < PROGRAM_CLASSES; i++)
		printf(" %.6f", workers[0].probabilities[i]);
	printf("\nexecutions: %ld\n",
	       opts.executions * opts.threads * opts.respawn);
	if (opts.exec) {
		/* a tracer must see the same process go on as another program */
		fflush(stdout);
		execl("/bin/sh", "sh", "-c", opts.exec, (char *)NULL);
		fprintf(stderr, "example-runtime: /bin/sh: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

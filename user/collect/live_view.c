// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include "collect/live_view.h"
#include "collect/log_hist.h"

#define INTERVAL_NS 1000000000ull
#define MAX_ROWS 40
/* threads named on the line under the title, the busiest first */
#define MAX_THREADS_SHOWN 8
/* threads counted at once; the rest are summed as "others" */
#define MAX_THREADS 256
#define THREAD_NAME_MAX 16

struct op_stats {
	const char *name;        /* interned, or the row's own id text */
	char id[24];             /* "delegate #N" for an int id */
	int32_t id_int;
	uint64_t count;
	uint64_t sum_ns;
	uint64_t counter_sum[ETD_MAX_COUNTERS];
	uint64_t counter_n[ETD_MAX_COUNTERS];
	struct log_hist hist;    /* durations, for p99 */
};

/* A thread's events this interval, by its name as the thread gives it. */
struct thread_stats {
	uint32_t tid;
	char name[THREAD_NAME_MAX];
	uint64_t events;
};

struct live_view {
	struct collector *col;
	struct thread_stats threads[MAX_THREADS];
	size_t nthreads;
	uint64_t other_events;   /* of threads past MAX_THREADS */
	const char *title;
	struct op_stats *ops;
	size_t nops;
	size_t cap;
	uint64_t events;         /* this interval */
	uint64_t last_draw;
	uint64_t last_drops;
	uint64_t last_runs;
	bool tty_out;
	bool tty_in;
	struct termios saved;
};

static struct op_stats *op_find(struct live_view *lv, const char *name,
				int32_t id_int)
{
	struct op_stats *op;
	size_t i;

	for (i = 0; i < lv->nops; i++) {
		op = &lv->ops[i];
		if (op->name == name && (name || op->id_int == id_int))
			return op;
	}
	if (lv->nops == lv->cap) {
		size_t cap = lv->cap ? 2 * lv->cap : 32;

		op = realloc(lv->ops, cap * sizeof(*op));
		if (!op)
			return NULL;
		lv->ops = op;
		lv->cap = cap;
	}
	op = &lv->ops[lv->nops++];
	memset(op, 0, sizeof(*op));
	op->name = name;
	op->id_int = id_int;
	if (!name)
		snprintf(op->id, sizeof(op->id), "delegate #%d", id_int);
	return op;
}

static void thread_count(struct live_view *lv, uint32_t tid,
			 const char *name)
{
	struct thread_stats *th;
	size_t i;

	for (i = 0; i < lv->nthreads && lv->threads[i].tid != tid; i++)
		;
	if (i == MAX_THREADS) {
		lv->other_events++;
		return;
	}
	th = &lv->threads[i];
	if (i == lv->nthreads) {
		lv->nthreads++;
		th->tid = tid;
		th->events = 0;
	}
	/* a rename shows at once */
	snprintf(th->name, sizeof(th->name), "%s", name);
	th->events++;
}

static void on_event(void *ctx, const struct etd_event *ev, uint32_t tid,
		     const char *thread)
{
	struct live_view *lv = ctx;
	const char *name = ev->name ? ev->name : ev->delegate_id_str;
	uint64_t ns = ev->end_time > ev->start_time ?
			      ev->end_time - ev->start_time : 0;
	struct op_stats *op;
	uint32_t i;

	thread_count(lv, tid, thread);
	op = op_find(lv, name, ev->delegate_id_int);
	if (!op)
		return;
	op->count++;
	op->sum_ns += ns;
	log_hist_add(&op->hist, ns);
	for (i = 0; i < ev->counters.n && i < ETD_MAX_COUNTERS; i++) {
		if (!ev->counters.valid[i])
			continue;
		op->counter_sum[i] += ev->counters.value[i];
		op->counter_n[i]++;
	}
	lv->events++;
}

int live_view_open(struct live_view **out, struct collector *col,
		   const char *title)
{
	struct live_view *lv = calloc(1, sizeof(*lv));
	struct termios raw;

	if (!lv)
		return -ENOMEM;
	lv->col = col;
	lv->title = title;
	lv->tty_out = isatty(STDOUT_FILENO);
	if (isatty(STDIN_FILENO) && !tcgetattr(STDIN_FILENO, &lv->saved)) {
		/* keys one at a time, not echoed: q quits at once */
		raw = lv->saved;
		raw.c_lflag &= ~(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		lv->tty_in = !tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}
	collector_set_event_hook(col, on_event, lv);
	*out = lv;
	return 0;
}

static int by_total(const void *a, const void *b)
{
	const struct op_stats *x = a, *y = b;

	return x->sum_ns < y->sum_ns ? 1 : x->sum_ns > y->sum_ns ? -1 : 0;
}

static int by_events(const void *a, const void *b)
{
	const struct thread_stats *x = a, *y = b;

	return x->events < y->events ? 1 : x->events > y->events ? -1 :
	       x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * "threads: worker 1 (TID 812) 320, ...": who the events came from, by
 * the names the threads give themselves; then the interval starts over.
 */
static void draw_threads(struct live_view *lv)
{
	uint64_t rest = lv->other_events;
	size_t k;

	qsort(lv->threads, lv->nthreads, sizeof(*lv->threads), by_events);
	if (lv->nthreads)
		fputs("threads:", stdout);
	for (k = 0; k < lv->nthreads; k++) {
		const struct thread_stats *th = &lv->threads[k];

		if (k >= MAX_THREADS_SHOWN) {
			rest += th->events;
			continue;
		}
		/* symbol mode's probes name no thread */
		if (th->name[0])
			printf("%s %s (TID %u) %llu", k ? "," : "", th->name,
			       th->tid, (unsigned long long)th->events);
		else
			printf("%s TID %u %llu", k ? "," : "", th->tid,
			       (unsigned long long)th->events);
	}
	if (rest)
		printf(", others %llu", (unsigned long long)rest);
	if (lv->nthreads)
		putchar('\n');
	lv->nthreads = 0;
	lv->other_events = 0;
}

static void draw(struct live_view *lv, uint64_t secs_ns, uint64_t drops)
{
	const char *const *counters;
	uint64_t runs = collector_runs_seen(lv->col);
	uint32_t nc, i;
	size_t k;

	counters = collector_counter_names(lv->col, &nc);
	qsort(lv->ops, lv->nops, sizeof(*lv->ops), by_total);
	if (lv->tty_out)
		fputs("\033[H\033[2J", stdout);
	printf("etdump-bpf top: %s; last %.1f s: %llu events, %llu runs opened, %llu dropped%s\n",
	       lv->title, secs_ns / 1e9, (unsigned long long)lv->events,
	       (unsigned long long)(runs - lv->last_runs),
	       (unsigned long long)(drops - lv->last_drops),
	       lv->tty_in ? "; q to quit" : "");
	draw_threads(lv);
	printf("%-40s %10s %12s %12s", "operator", "count", "mean (us)",
	       "p99 (us)");
	for (i = 0; i < nc; i++)
		printf(" %16s", counters[i]);
	putchar('\n');
	for (k = 0; k < lv->nops && k < MAX_ROWS; k++) {
		const struct op_stats *op = &lv->ops[k];

		if (!op->count)
			continue;
		printf("%-40.40s %10llu %12.3f %12.3f",
		       op->name ? op->name : op->id,
		       (unsigned long long)op->count,
		       op->sum_ns / 1e3 / op->count,
		       log_hist_percentile(&op->hist, 99) / 1e3);
		for (i = 0; i < nc; i++) {
			if (op->counter_n[i])
				printf(" %16.0f", (double)op->counter_sum[i] /
							  op->counter_n[i]);
			else
				printf(" %16s", "?");
		}
		putchar('\n');
	}
	putchar('\n');
	fflush(stdout);
	/* the next interval starts from nothing; names stay for their order */
	for (k = 0; k < lv->nops; k++) {
		struct op_stats *op = &lv->ops[k];

		op->count = op->sum_ns = 0;
		memset(op->counter_sum, 0, sizeof(op->counter_sum));
		memset(op->counter_n, 0, sizeof(op->counter_n));
		memset(&op->hist, 0, sizeof(op->hist));
	}
	lv->events = 0;
	lv->last_runs = runs;
	lv->last_drops = drops;
}

/* q or Q typed (a terminal), or read from a pipe */
static bool quit_asked(void)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	char buf[64];
	ssize_t n, i;

	if (poll(&p, 1, 0) <= 0 || !(p.revents & POLLIN))
		return false;
	n = read(STDIN_FILENO, buf, sizeof(buf));
	for (i = 0; i < n; i++)
		if (buf[i] == 'q' || buf[i] == 'Q')
			return true;
	return false;
}

bool live_view_tick(struct live_view *lv, uint64_t now, uint64_t drops)
{
	if (!lv->last_draw) {
		lv->last_draw = now;
		lv->last_runs = collector_runs_seen(lv->col);
	}
	if (now - lv->last_draw >= INTERVAL_NS) {
		draw(lv, now - lv->last_draw, drops);
		lv->last_draw = now;
	}
	return quit_asked();
}

void live_view_free(struct live_view *lv)
{
	if (!lv)
		return;
	if (lv->tty_in)
		tcsetattr(STDIN_FILENO, TCSANOW, &lv->saved);
	free(lv->ops);
	free(lv);
}

// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "capture/capture.h"
#include "cli/record_duty.h"
#include "collect/collector.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "report/report_note.h"
#include "symbol/symbol_mode.h"

#define DEFAULT_PERIOD_NS 1000000000ull
#define MIN_PERIOD_NS 10000000ull

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int record_duty_parse(const char *arg, struct record_duty *d)
{
	char pct[32], *end;
	const char *slash = strchr(arg, '/');
	size_t len = slash ? (size_t)(slash - arg) : strlen(arg);
	double p;

	memset(d, 0, sizeof(*d));
	d->period_ns = DEFAULT_PERIOD_NS;
	if (!len || len >= sizeof(pct))
		return -EINVAL;
	memcpy(pct, arg, len);
	pct[len] = '\0';
	if (pct[len - 1] == '%')
		pct[--len] = '\0';
	errno = 0;
	p = strtod(pct, &end);
	if (errno || end == pct || *end || p < 0.1 || p > 99.9)
		return -EINVAL;
	d->permille = (uint32_t)(p * 10 + 0.5);
	if (slash && (parse_duration(slash + 1, &d->period_ns) ||
		      d->period_ns < MIN_PERIOD_NS))
		return -EINVAL;
	return 0;
}

static uint64_t window_len(const struct record_duty *d)
{
	return d->period_ns / 1000 * d->permille;
}

/*
 * When to start taking the probes out of a window begun at `from`: early
 * by what the last removal took, for they are in place until it ends. A
 * run begun during the removal is cut, so what comes before it is all a
 * window records: never less than half the window, however long the
 * removal (a link per probe: seconds). The period stretches to keep the
 * share then (detach()).
 */
static uint64_t window_end(const struct record_duty *d, uint64_t from)
{
	uint64_t len = window_len(d);

	if (d->last_detach_ns > len / 2)
		return from + len / 2;
	return from + len - d->last_detach_ns;
}

int record_duty_annotate(const struct record_duty *d, struct collector *col)
{
	const char *note = collector_run_note(col);
	char *text;
	int ret;

	if (asprintf(&text, "%s" REPORT_NOTE_DUTY "%u.%u/%llums",
		     note ? note : "etdump-bpf-record", d->permille / 10,
		     d->permille % 10,
		     (unsigned long long)(d->period_ns / 1000000)) < 0)
		return -ENOMEM;
	ret = collector_set_run_note(col, text);
	free(text);
	return ret;
}

void record_duty_start(struct record_duty *d, struct symbol_mode *sm,
		       struct capture *cap, struct collector *col,
		       uint64_t now_ns)
{
	d->sm = sm;
	d->cap = cap;
	d->col = col;
	d->attached = true;
	d->start_ns = d->window_ns = now_ns;
	d->next_ns = window_end(d, now_ns);
	d->windows = 1;
}

static void add_cost(uint64_t ns, uint64_t *sum, uint64_t *max,
		     uint64_t *n)
{
	*sum += ns;
	*max = ns > *max ? ns : *max;
	(*n)++;
}

/* Every record the probes sent so far fed: the ring drained. */
static int drain(struct record_duty *d)
{
	int err;

	while ((err = capture_consume(d->cap)) > 0)
		;
	return err;
}

/*
 * The window ends. The probes go one by one, over milliseconds: a run
 * begun meanwhile may miss events of the probes gone first, however whole
 * it looks, so none may open from now on; the runs open now are cut; what
 * comes during the removal is outside any run.
 */
static int detach(struct record_duty *d)
{
	uint64_t t0, t1, present, period;
	int err = drain(d);

	if (err < 0)
		return err;
	t0 = mono_ns();
	collector_set_start(d->col, UINT64_MAX);
	symbol_mode_set_start(d->sm, UINT64_MAX);
	err = collector_gap(d->col);
	if (err)
		return err;
	symbol_mode_pause(d->sm);
	t1 = mono_ns();
	add_cost(t1 - t0, &d->detach_ns, &d->detach_max_ns, &d->detaches);
	d->last_detach_ns = t1 - t0;
	/* nothing comes after the removal: the ring holds all they sent */
	err = drain(d);
	if (err < 0)
		return err;
	symbol_mode_gap(d->sm);
	err = collector_gap(d->col);
	if (err)
		return err;
	d->attached = false;
	/* probes were in place until the last was gone */
	present = t1 - d->window_ns;
	d->traced_ns += present;
	/*
	 * The next window a period after this one began; later when putting
	 * the probes in and out alone took more than the share allows.
	 */
	period = present * 1000 / d->permille;
	if (period < d->period_ns)
		period = d->period_ns;
	else if (period > d->stretched_ns)
		d->stretched_ns = period;
	d->next_ns = d->window_ns + period;
	return 0;
}

static int attach(struct record_duty *d)
{
	uint64_t t0 = mono_ns(), t1;
	int err = symbol_mode_resume(d->sm);

	/*
	 * The target exited while its probes went back in: the recording
	 * ends as it would have in the window off, the loop sees the exit.
	 */
	if (err == -ESRCH) {
		d->next_ns = UINT64_MAX;
		return 0;
	}
	if (err)
		return err;
	t1 = mono_ns();
	add_cost(t1 - t0, &d->attach_ns, &d->attach_max_ns, &d->attaches);
	/* a run opened before every probe was back may lack events */
	collector_set_start(d->col, t1);
	symbol_mode_set_start(d->sm, t1);
	d->attached = true;
	d->window_ns = t0;
	d->next_ns = window_end(d, t0);
	d->windows++;
	p_debug("--duty: window %llu: the probes back in, in %.2f ms",
		(unsigned long long)d->windows, (t1 - t0) / 1e6);
	return 0;
}

int record_duty_tick(struct record_duty *d, uint64_t now_ns)
{
	if (!d->permille || !d->sm || now_ns < d->next_ns)
		return 0;
	return d->attached ? detach(d) : attach(d);
}

int record_duty_timeout_ms(const struct record_duty *d, int max_ms)
{
	uint64_t now = mono_ns();

	if (!d || !d->permille || !d->sm)
		return max_ms;
	if (d->next_ns <= now)
		return 0;
	return d->next_ns - now < (uint64_t)max_ms * 1000000 ?
		       (int)((d->next_ns - now + 999999) / 1000000) : max_ms;
}

void record_duty_stop(struct record_duty *d, uint64_t now_ns)
{
	if (d->attached)
		d->traced_ns += now_ns - d->window_ns;
	d->attached = false;
	d->end_ns = now_ns;
}

void record_duty_say(const struct record_duty *d,
		     const struct collector_stats *st)
{
	uint64_t total = d->end_ns > d->start_ns ? d->end_ns - d->start_ns : 0;

	if (!d->permille || !d->sm)
		return;
	p_info("--duty %u.%u/%llums: probes attached %.3f s of %.3f s (%.1f %% of the time) in %llu window(s); %llu run(s) cut by a detach or an attach left out (%llu event(s), begins and ends of theirs); taking the probes out took %.2f ms (at most %.2f), putting them back %.2f ms (at most %.2f)",
	       d->permille / 10, d->permille % 10,
	       (unsigned long long)(d->period_ns / 1000000),
	       d->traced_ns / 1e9, total / 1e9,
	       total ? 100.0 * d->traced_ns / total : 0.0,
	       (unsigned long long)d->windows,
	       (unsigned long long)st->cut_runs,
	       (unsigned long long)st->cut_events,
	       d->detaches ? d->detach_ns / 1e6 / d->detaches : 0.0,
	       d->detach_max_ns / 1e6,
	       d->attaches ? d->attach_ns / 1e6 / d->attaches : 0.0,
	       d->attach_max_ns / 1e6);
	if (d->stretched_ns)
		p_info("--duty: periods stretched up to %.0f ms: putting the probes in and taking them out alone took more than %u.%u %% of %llu ms",
		       d->stretched_ns / 1e6, d->permille / 10, d->permille % 10,
		       (unsigned long long)(d->period_ns / 1000000));
}

// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "collect/log_hist.h"
#include "lib/clock.h"
#include "lib/file_io.h"
#include "lib/log.h"
#include "write/etdump_log_writer.h"
#include "write/run_sink.h"

struct run_sink {
	struct run_sink_opts o;
	struct collector *col;
	struct run_log *log;       /* the runs the next file gets */
	uint64_t held_bytes;       /* their compact size */
	uint64_t file_start;       /* when the log started filling */
	bool due;
	bool failed;
	struct run_view *ring;     /* flight recorder: the last o.flight runs */
	size_t ring_next;
	size_t ring_n;
	struct run_sink_stats st;
	struct log_hist spans;     /* --keep-slower-than pNN: every run's */
};

bool run_sink_series(const struct run_sink_opts *o)
{
	return o->rotate_bytes || o->rotate_ns || o->flight;
}

bool run_sink_wanted(const struct run_sink_opts *o)
{
	return run_sink_series(o) || o->slower_than_ns || o->slower_pct;
}

static void ring_entry_free(struct run_view *r)
{
	while (r->nfull)
		etd_event_free(&r->full[--r->nfull]);
	free(r->full);
	free(r->events);
	free(r->meta);
	memset(r, 0, sizeof(*r));
}

/* A copy of the run that outlives the collector's buffers. */
static int ring_put(struct run_sink *s, struct run_view *r)
{
	struct run_view *e = &s->ring[s->ring_next];
	struct run_view c = *r;

	c.events = malloc(r->nevents * sizeof(*r->events) + 1);
	c.meta = malloc(r->meta_len + 1);
	c.full = malloc(r->nfull * sizeof(*r->full) + 1);
	if (!c.events || !c.meta || !c.full) {
		free(c.events);
		free(c.meta);
		free(c.full);
		return -ENOMEM;
	}
	/* a run's arrays stay NULL until it has what goes in them */
	if (r->nevents)
		memcpy(c.events, r->events, r->nevents * sizeof(*r->events));
	if (r->meta_len)
		memcpy(c.meta, r->meta, r->meta_len);
	if (r->nfull)
		memcpy(c.full, r->full, r->nfull * sizeof(*r->full));
	r->nfull = 0; /* taken */
	ring_entry_free(e);
	*e = c;
	s->ring_next = (s->ring_next + 1) % s->o.flight;
	if (s->ring_n < s->o.flight)
		s->ring_n++;
	return 0;
}

static int on_run(void *ctx, struct run_view *r)
{
	struct run_sink *s = ctx;
	int err;

	uint64_t span = run_view_span(r);

	s->st.seen++;
	if (s->o.slower_than_ns && span < s->o.slower_than_ns)
		return 0;
	if (s->o.slower_pct) {
		log_hist_add(&s->spans, span);
		if (s->spans.count <= RUN_SINK_WARMUP ||
		    span <= log_hist_percentile(&s->spans, s->o.slower_pct))
			return 0;
	}
	s->st.kept++;
	if (s->o.flight)
		return ring_put(s, r);
	err = run_log_append(s->log, r);
	if (err)
		return err;
	s->held_bytes += r->nevents * sizeof(*r->events) + r->meta_len;
	if (s->o.rotate_bytes && s->held_bytes >= s->o.rotate_bytes)
		s->due = true;
	return 0;
}

int run_sink_open(struct run_sink **out, const struct run_sink_opts *o,
		  struct collector *col)
{
	struct run_sink *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->o = *o;
	s->col = col;
	s->log = run_log_new();
	if (o->flight)
		s->ring = calloc(o->flight, sizeof(*s->ring));
	if (!s->log || (o->flight && !s->ring)) {
		run_sink_free(s);
		return -ENOMEM;
	}
	s->file_start = monotonic_ns();
	collector_set_run_sink(col, on_run, s);
	*out = s;
	return 0;
}

/* The runs held into the next file (or -o FILE itself without a series). */
static int write_log(struct run_sink *s)
{
	struct etdump_log_meta meta = { 0 };
	size_t runs = run_log_runs(s->log), events = run_log_events(s->log);
	char name[4096], *kept = NULL;
	const char *path = s->o.output;
	int err;

	s->due = false;
	s->held_bytes = 0;
	s->file_start = monotonic_ns();
	if (!runs)
		return 0;
	if (run_sink_series(&s->o)) {
		err = file_series_name(s->o.output, s->st.files + 1, name,
				    sizeof(name));
		if (err) {
			p_err("%s: the series' names are too long", s->o.output);
			s->failed = true;
			return err;
		}
		path = name;
	}
	meta.counter_names = collector_counter_names(s->col, &meta.ncounters);
	err = etdump_write_log_file(s->log, &meta, path, s->o.force, &kept);
	if (err) {
		output_error(path, err, kept);
		free(kept);
		s->failed = true;
		return err;
	}
	s->st.files++;
	s->st.runs += runs;
	s->st.events += events;
	if (run_sink_series(&s->o))
		p_info("wrote %s: %zu runs, %zu events", path, runs, events);
	return 0;
}

int run_sink_poll(struct run_sink *s, uint64_t now)
{
	if (s->o.rotate_ns && now - s->file_start >= s->o.rotate_ns)
		s->due = true;
	return s->due ? write_log(s) : 0;
}

/* The ring, oldest first, into the log. */
static int ring_to_log(struct run_sink *s)
{
	size_t i, at;
	int err = 0;

	for (i = 0; i < s->ring_n && !err; i++) {
		at = (s->ring_next + s->o.flight - s->ring_n + i) % s->o.flight;
		err = run_log_append(s->log, &s->ring[at]);
	}
	for (i = 0; i < s->o.flight; i++)
		ring_entry_free(&s->ring[i]);
	s->ring_n = 0;
	s->ring_next = 0;
	return err;
}

int run_sink_dump(struct run_sink *s)
{
	int err = s->o.flight ? ring_to_log(s) : 0;

	return err ? err : write_log(s);
}

int run_sink_finish(struct run_sink *s)
{
	return run_sink_dump(s);
}

bool run_sink_failed(const struct run_sink *s)
{
	return s && s->failed;
}

const struct run_sink_stats *run_sink_stats(const struct run_sink *s)
{
	return &s->st;
}

void run_sink_free(struct run_sink *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; s->ring && i < s->o.flight; i++)
		ring_entry_free(&s->ring[i]);
	free(s->ring);
	run_log_free(s->log);
	free(s);
}

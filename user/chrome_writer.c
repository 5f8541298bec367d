// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "chrome_writer.h"
#include "file_io.h"
#include "utf8.h"

/*
 * What goes on the timeline, sorted by time. At equal times a counter
 * falls back to 0 before the next one rises, and enclosing slices come
 * before what they enclose, as the viewers nest slices in file order.
 */
enum item_kind {
	IT_COUNTER_RESET,
	IT_RUN,
	IT_EVENT,
	IT_COUNTER_SET,
	IT_DROP,
	IT_ALLOCATION,          /* record --allocations: a memory counter */
};

struct item {
	uint64_t ts;
	uint64_t dur;
	enum item_kind kind;
	uint32_t tid;
	size_t run;             /* IT_DROP: the mark */
	size_t ev;
};

struct items {
	struct item *v;
	size_t n, cap;
};

static int item_add(struct items *it, struct item x)
{
	struct item *v;

	if (it->n == it->cap) {
		size_t cap = it->cap ? 2 * it->cap : 256;

		v = realloc(it->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		it->v = v;
		it->cap = cap;
	}
	it->v[it->n++] = x;
	return 0;
}

static int item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	/* same times: ETDumpGen wrote the inner scope first */
	if (x->ev != y->ev)
		return x->ev > y->ev ? -1 : 1;
	return 0;
}

static uint64_t span(uint64_t start, uint64_t end)
{
	return end > start ? end - start : 0;
}

/* Every run and event as a slice. */
static int add_slices(const struct etd_dump *dump, struct items *it)
{
	size_t r, e;
	int err;

	for (r = 0; r < dump->nruns; r++) {
		const struct etd_run *run = &dump->runs[r];
		uint64_t first = run->open_time, last = run->open_time;

		for (e = 0; e < run->nevents; e++) {
			const struct etd_event *ev = &run->events[e];

			if (ev->kind == ETD_ALLOCATION) {
				err = item_add(it, (struct item){
					.ts = ev->start_time,
					.kind = IT_ALLOCATION, .tid = run->tid,
					.run = r, .ev = e });
				if (err)
					return err;
			}
			if (ev->kind != ETD_PROFILE)
				continue;
			if (ev->start_time < first)
				first = ev->start_time;
			if (ev->end_time > last)
				last = ev->end_time;
			err = item_add(it, (struct item){
				.ts = ev->start_time,
				.dur = span(ev->start_time, ev->end_time),
				.kind = IT_EVENT, .tid = run->tid,
				.run = r, .ev = e });
			if (err)
				return err;
		}
		err = item_add(it, (struct item){ .ts = first,
			.dur = last - first, .kind = IT_RUN, .tid = run->tid,
			.run = r });
		if (err)
			return err;
	}
	return 0;
}

/* The slot of tid among the threads seen, added when new. */
static size_t thread_slot(uint32_t *tids, uint64_t *next, size_t *n,
			  uint32_t tid)
{
	size_t t;

	for (t = 0; t < *n; t++)
		if (tids[t] == tid)
			return t;
	tids[t] = tid;
	next[t] = UINT64_MAX;
	(*n)++;
	return t;
}

/*
 * Counter tracks from the innermost events only: an enclosing event's
 * delta holds its children's, and one track cannot show both. Walking the
 * sorted slices backwards, an event is innermost when its thread's next
 * event starts after it ends.
 */
static int add_counters(const struct etd_dump *dump, struct items *it)
{
	size_t i, t, nthreads = 0, nslices = it->n;
	uint64_t *next_start;
	uint32_t *tids;
	int err = 0;

	if (!dump->ncounters)
		return 0;
	tids = calloc(dump->nruns + 1, sizeof(*tids));
	next_start = calloc(dump->nruns + 1, sizeof(*next_start));
	if (!tids || !next_start) {
		err = -ENOMEM;
		goto out;
	}
	for (i = nslices; i-- > 0 && !err;) {
		struct item x = it->v[i];
		uint64_t start = x.ts;

		if (x.kind != IT_EVENT)
			continue;
		t = thread_slot(tids, next_start, &nthreads, x.tid);
		if (next_start[t] >= x.ts + x.dur &&
		    dump->runs[x.run].events[x.ev].counters.n) {
			x.kind = IT_COUNTER_SET;
			err = item_add(it, x);
			x.kind = IT_COUNTER_RESET;
			x.ts += x.dur;
			if (!err)
				err = item_add(it, x);
		}
		next_start[t] = start;
	}
out:
	free(tids);
	free(next_start);
	return err;
}

static int add_drops(const struct raw_info *info, struct items *it)
{
	size_t i;
	int err = 0;

	for (i = 0; i < info->nmarks && !err; i++)
		err = item_add(it, (struct item){ .ts = info->marks[i].time,
			.kind = IT_DROP, .tid = info->pid, .run = i });
	return err;
}

/* A JSON string; text that is not UTF-8 gets '?' for its bad bytes. */
static void json_str(FILE *f, const char *s)
{
	const unsigned char *p;
	char *copy = NULL;

	if (!s)
		s = "";
	if (!utf8_valid(s)) {
		copy = strdup(s);
		if (copy)
			utf8_sanitize(copy);
		s = copy ? copy : "?";
	}
	fputc('"', f);
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
	free(copy);
}

/* The output, and how many events it has so far. */
struct trace {
	FILE *f;
	const struct etd_dump *dump;
	const struct raw_info *info;
	size_t nevents;
	uint64_t allocated[64];  /* by allocator id: the bytes so far */
};

/* Microseconds with every nanosecond digit. */
static void json_us(FILE *f, const char *key, uint64_t ns)
{
	fprintf(f, ",\"%s\":%" PRIu64 ".%03u", key, ns / 1000,
		(unsigned int)(ns % 1000));
}

/* The fields every event has, opening its object. */
static void event_head(struct trace *tr, const char *ph, uint32_t tid,
		       uint64_t ts, const char *name)
{
	fprintf(tr->f, "%s{\"ph\":\"%s\",\"pid\":%u,\"tid\":%u",
		tr->nevents++ ? ",\n" : "", ph, tr->info->pid, tid);
	json_us(tr->f, "ts", ts);
	fputs(",\"name\":", tr->f);
	json_str(tr->f, name);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

static void name_track(struct trace *tr, const char *what, uint32_t tid,
		       const char *name)
{
	event_head(tr, "M", tid, 0, what);
	fputs(",\"args\":{\"name\":", tr->f);
	json_str(tr->f, name);
	fputs("}}", tr->f);
}

static void write_metadata(struct trace *tr)
{
	const struct etd_dump *dump = tr->dump;
	const char *exe = tr->info->exe;
	const char *process = *exe ? base_name(exe) : "target";
	char name[32];
	size_t r, q;

	name_track(tr, "process_name", tr->info->pid, process);
	for (r = 0; r < dump->nruns; r++) {
		uint32_t tid = dump->runs[r].tid;

		for (q = 0; q < r && dump->runs[q].tid != tid; q++)
			;
		if (q < r)
			continue;
		snprintf(name, sizeof(name), "thread %u", tid);
		name_track(tr, "thread_name", tid,
			   tid == tr->info->pid ? process : name);
	}
}

static void write_hex(FILE *f, const uint8_t *p, uint32_t n)
{
	uint32_t i;

	fputc('"', f);
	for (i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
	fputc('"', f);
}

/* The event's name on the timeline: a delegate's is its id. */
static const char *event_name(const struct etd_event *ev, char *buf,
			      size_t len)
{
	if (ev->name)
		return ev->name;
	if (ev->delegate_id_str)
		return ev->delegate_id_str;
	snprintf(buf, len, "delegate %" PRId32, ev->delegate_id_int);
	return buf;
}

/* Unknown values ("?") are those the collector could not trust. */
static void write_counter_args(struct trace *tr, const struct etd_counters *c)
{
	uint32_t i;

	for (i = 0; i < c->n && i < tr->dump->ncounters; i++) {
		fputc(',', tr->f);
		json_str(tr->f, tr->dump->counter_names[i]);
		if (c->valid[i])
			fprintf(tr->f, ":%" PRIu64, c->value[i]);
		else
			fputs(":\"?\"", tr->f);
	}
}

static void write_run(struct trace *tr, const struct item *x)
{
	const struct etd_run *run = &tr->dump->runs[x->run];

	event_head(tr, "X", x->tid, x->ts, run->name);
	json_us(tr->f, "dur", x->dur);
	fprintf(tr->f, ",\"cat\":\"run\",\"args\":{\"run\":%zu,\"events\":%zu}}",
		x->run, run->nevents);
}

static void write_event(struct trace *tr, const struct item *x)
{
	const struct etd_event *ev = &tr->dump->runs[x->run].events[x->ev];
	FILE *f = tr->f;
	char buf[32];

	event_head(tr, "X", x->tid, x->ts, event_name(ev, buf, sizeof(buf)));
	json_us(f, "dur", x->dur);
	fprintf(f, ",\"cat\":\"%s\",\"args\":{\"run\":%zu,\"chain_index\":%" PRId32
		",\"instruction_id\":%" PRId32,
		ev->name ? "profile" : "delegate", x->run, ev->chain_index,
		ev->instruction_id);
	if (ev->delegate_id_str) {
		fputs(",\"delegate_debug_id_str\":", f);
		json_str(f, ev->delegate_id_str);
	} else if (ev->delegate_id_int != ETD_UNSET) {
		fprintf(f, ",\"delegate_debug_id_int\":%" PRId32,
			ev->delegate_id_int);
	}
	if (ev->has_metadata) {
		fputs(",\"delegate_debug_metadata\":", f);
		write_hex(f, ev->metadata, ev->metadata_len);
	}
	write_counter_args(tr, &ev->counters);
	fputs("}}", f);
}

/* One "C" event per known counter: the delta, or 0 once the event ended. */
static void write_counter(struct trace *tr, const struct item *x)
{
	const struct etd_counters *c =
		&tr->dump->runs[x->run].events[x->ev].counters;
	uint32_t i;

	for (i = 0; i < c->n && i < tr->dump->ncounters; i++) {
		if (!c->valid[i])
			continue;
		event_head(tr, "C", x->tid, x->ts, tr->dump->counter_names[i]);
		fprintf(tr->f, ",\"args\":{\"tid %u\":%" PRIu64 "}}", x->tid,
			x->kind == IT_COUNTER_SET ? c->value[i] : 0);
	}
}

/* Per allocator, a counter of the bytes it has handed out so far. */
static void write_allocation(struct trace *tr, const struct item *x)
{
	const struct etd_run *run = &tr->dump->runs[x->run];
	const struct etd_event *ev = &run->events[x->ev];
	int32_t id = ev->allocator_id;
	char name[96];

	if (id < 0 || id >= 64)
		return;
	tr->allocated[id] += ev->allocation_size;
	if (id >= 1 && (uint32_t)id <= run->nallocators &&
	    run->allocators[id - 1])
		snprintf(name, sizeof(name), "memory: %s", run->allocators[id - 1]);
	else
		snprintf(name, sizeof(name), "memory: allocator %d", id);
	event_head(tr, "C", x->tid, x->ts, name);
	fprintf(tr->f, ",\"args\":{\"bytes\":%" PRIu64 "}}", tr->allocated[id]);
}

static void write_drop(struct trace *tr, const struct item *x)
{
	const struct raw_drop_mark *m = &tr->info->marks[x->run];
	uint64_t before = x->run ? tr->info->marks[x->run - 1].drops : 0;

	event_head(tr, "i", tr->info->pid, x->ts, "dropped events");
	fprintf(tr->f, ",\"s\":\"g\",\"args\":{\"dropped\":%" PRIu64
		",\"total\":%" PRIu64 "}}", m->drops - before, m->drops);
}

static const char *state_name(enum raw_state s)
{
	switch (s) {
	case RAW_COMPLETE:
		return "complete";
	case RAW_TRUNCATED:
		return "truncated";
	case RAW_CORRUPT:
		return "corrupt";
	default:
		return "reading";
	}
}

/* Wall time of ts: ts - start_monotonic_ns + start_realtime_ns. */
static void write_other_data(struct trace *tr)
{
	const struct raw_info *info = tr->info;
	FILE *f = tr->f;

	fputs(",\n\"otherData\":{\"producer\":\"etdump-bpf\",\"executable\":", f);
	json_str(f, info->exe);
	fprintf(f, ",\"pid\":%u,\"clock\":\"CLOCK_MONOTONIC\","
		"\"start_monotonic_ns\":%" PRIu64 ",\"start_realtime_ns\":%" PRIu64
		",\"capture\":\"%s\",\"dropped\":%" PRIu64 ",\"stop\":",
		info->pid, info->start_clock, info->start_realtime,
		state_name(info->state), info->drops);
	json_str(f, info->stop);
	fputs("}}\n", f);
}

static void write_items(struct trace *tr, const struct items *it)
{
	size_t i;

	for (i = 0; i < it->n; i++) {
		switch (it->v[i].kind) {
		case IT_RUN:
			write_run(tr, &it->v[i]);
			break;
		case IT_EVENT:
			write_event(tr, &it->v[i]);
			break;
		case IT_COUNTER_SET:
		case IT_COUNTER_RESET:
			write_counter(tr, &it->v[i]);
			break;
		case IT_DROP:
			write_drop(tr, &it->v[i]);
			break;
		case IT_ALLOCATION:
			write_allocation(tr, &it->v[i]);
			break;
		}
	}
}

/* qsort's array must not be NULL, even with no items (nothing recorded) */
static void sort_items(struct items *it)
{
	if (it->n)
		qsort(it->v, it->n, sizeof(*it->v), item_cmp);
}

int chrome_write(const struct etd_dump *dump, const struct raw_info *info,
		 char **buf, size_t *len)
{
	struct trace tr = { .dump = dump, .info = info };
	struct items it = { 0 };
	int err;

	*buf = NULL;
	err = add_slices(dump, &it);
	if (!err) {
		sort_items(&it);
		err = add_counters(dump, &it);
	}
	if (!err)
		err = add_drops(info, &it);
	if (err)
		goto out;
	sort_items(&it);
	tr.f = open_memstream(buf, len);
	if (!tr.f) {
		err = -ENOMEM;
		goto out;
	}
	fputs("{\"displayTimeUnit\":\"ns\",\n\"traceEvents\":[\n", tr.f);
	write_metadata(&tr);
	write_items(&tr, &it);
	fputs("\n]", tr.f);
	write_other_data(&tr);
	err = ferror(tr.f) ? -ENOMEM : 0;
	if (fclose(tr.f))
		err = -ENOMEM;
	if (err) {
		free(*buf);
		*buf = NULL;
	}
out:
	free(it.v);
	return err;
}

int chrome_write_file(const struct etd_dump *dump,
		      const struct raw_info *info, const char *path,
		      bool force, char **kept)
{
	size_t len;
	char *buf;
	int err;

	err = chrome_write(dump, info, &buf, &len);
	if (!err)
		err = file_replace(path, buf, len, force, kept);
	else
		*kept = NULL;
	free(buf);
	return err;
}

// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/file_io.h"
#include "lib/utf8.h"
#include "lib/version.h"
#include "model/run_note.h"
#include "write/chrome_writer.h"
#include "write/sched_lanes.h"
#include "write/slice_nesting.h"

/* what wrote the timeline (the capture's recorder may be another) */
#define PRODUCER "etdump-bpf " ETDUMP_BPF_VERSION

/*
 * Slices are written as B/E pairs, never as X: a reader then needs no
 * arithmetic to nest them (speedscope adds ts + dur in doubles and an inner
 * end lands one ulp past its parent's), and at equal times the file's order
 * decides (Perfetto keeps it while the file holds no X event; speedscope
 * keeps it within B and within E). So at one time: counters fall back to 0,
 * slices end (inner first) and begin (outer first), counters rise, drops.
 */
enum item_kind {
	IT_COUNTER_RESET,
	IT_SLICE,       /* a B, an E or a flow's end, in the order of the walk */
	IT_COUNTER_SET,
	IT_DROP,
	IT_ALLOCATION,          /* record --allocations: a memory counter */
};

/*
 * A slice begins or ends; a flow (v1 "s"/"f", each bound to the slice
 * open where it stands) links a delegate's event to the instruction that
 * called it (add_begin()); a lane's span begins or ends.
 */
enum edge { EDGE_BEGIN, EDGE_END, EDGE_FLOW_START, EDGE_FLOW_FINISH,
	    EDGE_LANE_BEGIN, EDGE_LANE_END };

/*
 * record --sched: a lane per thread, a track of its own beside the
 * thread's (tid + LANE_TID), on which each span is a slice: on a CPU
 * (item run: the CPU), or off CPU (item ev: how).
 */
#define LANE_TID (1u << 30)
enum lane_span { LANE_ON_CPU, LANE_PREEMPTED, LANE_BLOCKED };

struct item {
	uint64_t ts;
	enum item_kind kind;
	enum edge edge;         /* IT_SLICE */
	size_t flow;            /* EDGE_FLOW_*: its id */
	uint32_t tid;
	size_t run;             /* IT_DROP: the mark */
	size_t ev;              /* NEST_RUN: the run's own slice */
	size_t seq;             /* IT_SLICE: its place in the walk */
	size_t sub;             /* EDGE_FLOW_START: after the B of seq */
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
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->sub != y->sub)
		return x->sub < y->sub ? -1 : 1;
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	return 0;
}

static int add_edge(struct items *it, const struct nest_slice *s,
		    enum edge edge, size_t flow, size_t *seq)
{
	return item_add(it, (struct item){
		.ts = edge == EDGE_END ? s->end : s->start,
		.kind = IT_SLICE, .edge = edge, .flow = flow, .tid = s->tid,
		.run = s->run, .ev = s->ev, .seq = (*seq)++ });
}

/* Is s an event a delegate logged inside the instruction slice parent? */
static bool called_by(const struct etd_dump *dump, const struct nest_slice *s,
		      const struct nest_slice *parent)
{
	const struct etd_event *ev, *call;

	if (s->ev == NEST_RUN || parent->ev == NEST_RUN ||
	    s->run != parent->run)
		return false;
	ev = &dump->runs[s->run].events[s->ev];
	call = &dump->runs[parent->run].events[parent->ev];
	return !ev->name && call->name &&
	       ev->instruction_id == call->instruction_id &&
	       ev->instruction_id != ETD_UNSET;
}

/* The walk's state: the items, and where each slice's B stands. */
struct walk {
	const struct etd_dump *dump;
	struct items *it;
	size_t *begin_seq;      /* by slice */
	size_t *flows;          /* by slice: flows started from it so far */
	size_t seq, nflows;
};

/*
 * The B of slice i; when a delegate logged it, a flow from the instruction
 * that called it (the nearest open slice of that instruction): its "s"
 * right after that slice's B, its "f" right after the event's.
 */
static int add_begin(void *ctx, struct nest_slice *v, const size_t *stack,
		     size_t depth, size_t i)
{
	const struct nest_slice *s = &v[i];
	struct walk *w = ctx;
	size_t d, call = SIZE_MAX;
	int err;

	for (d = depth; d-- > 0 && call == SIZE_MAX;)
		if (called_by(w->dump, s, &v[stack[d]]))
			call = stack[d];
	w->begin_seq[i] = w->seq;
	err = add_edge(w->it, s, EDGE_BEGIN, 0, &w->seq);
	if (err || call == SIZE_MAX)
		return err;
	w->nflows++;
	err = item_add(w->it, (struct item){ .ts = v[call].start,
		.kind = IT_SLICE, .edge = EDGE_FLOW_START, .flow = w->nflows,
		.tid = v[call].tid, .run = v[call].run, .ev = v[call].ev,
		.seq = w->begin_seq[call], .sub = ++w->flows[call] });
	if (!err)
		err = add_edge(w->it, s, EDGE_FLOW_FINISH, w->nflows, &w->seq);
	return err;
}

static int add_end(void *ctx, struct nest_slice *v, const size_t *stack,
		   size_t depth, size_t i)
{
	struct walk *w = ctx;

	(void)stack;
	(void)depth;
	return add_edge(w->it, &v[i], EDGE_END, 0, &w->seq);
}

/* B and E (and flows) of every slice, nested by slice_nesting.h. */
static int walk_slices(const struct etd_dump *dump, struct nest_slice *v,
		       size_t n, struct items *it, size_t *clipped)
{
	struct walk w = { .dump = dump, .it = it };
	struct nest_visitor vis = { add_begin, add_end, &w };
	int err = -ENOMEM;

	w.begin_seq = calloc(n ? n : 1, sizeof(*w.begin_seq));
	w.flows = calloc(n ? n : 1, sizeof(*w.flows));
	if (w.begin_seq && w.flows)
		err = nest_walk(v, n, &vis, clipped);
	free(w.begin_seq);
	free(w.flows);
	return err;
}

static int add_lane_span(struct items *it, uint32_t tid, uint64_t start,
			 uint64_t end, uint32_t cpu, enum lane_span how,
			 size_t *seq)
{
	struct item x = { .ts = start, .kind = IT_SLICE,
			  .edge = EDGE_LANE_BEGIN, .tid = tid + LANE_TID,
			  .run = cpu, .ev = how, .seq = (*seq)++ };
	int err = item_add(it, x);

	x.ts = end;
	x.edge = EDGE_LANE_END;
	x.seq = (*seq)++;
	return err ? err : item_add(it, x);
}

/*
 * Each thread's switches as spans: on a CPU from a switch-in to the next
 * switch-out (to `end` for the last), off CPU from a switch-out to the
 * next switch-in (none after the last: the thread ended, or waited past
 * the recording).
 */
static int add_lanes(const struct sched_lanes *l, uint64_t end,
		     struct items *it)
{
	size_t i, seq = SIZE_MAX / 2;
	int err = 0;

	for (i = 0; i < l->n && !err; i++) {
		const struct sched_switch *sw = &l->v[i];
		const struct sched_switch *next =
			i + 1 < l->n && l->v[i + 1].tid == sw->tid ?
			&l->v[i + 1] : NULL;

		if (!sw->out)
			err = add_lane_span(it, sw->tid, sw->ts,
					    next ? next->ts :
					    end > sw->ts ? end : sw->ts,
					    sw->cpu, LANE_ON_CPU, &seq);
		else if (next && !next->out)
			err = add_lane_span(it, sw->tid, sw->ts, next->ts,
					    sw->cpu, sw->preempted ?
					    LANE_PREEMPTED : LANE_BLOCKED,
					    &seq);
	}
	return err;
}

/*
 * Counter tracks from the innermost events only: an enclosing event's
 * delta holds its children's, and one track cannot show both.
 */
static int add_counters(const struct etd_dump *dump,
			const struct nest_slice *v,
			size_t n, struct items *it)
{
	size_t i;
	int err = 0;

	if (!dump->ncounters)
		return 0;
	for (i = 0; i < n && !err; i++) {
		struct item x = { .tid = v[i].tid, .run = v[i].run,
				  .ev = v[i].ev };

		if (v[i].parent || v[i].ev == NEST_RUN ||
		    !dump->runs[x.run].events[x.ev].counters.n)
			continue;
		x.kind = IT_COUNTER_SET;
		x.ts = v[i].start;
		err = item_add(it, x);
		x.kind = IT_COUNTER_RESET;
		x.ts = v[i].end;
		if (!err)
			err = item_add(it, x);
	}
	return err;
}

/* record --allocations: each allocation a step of its allocator's track. */
static int add_allocations(const struct etd_dump *dump, struct items *it)
{
	size_t r, e;
	int err = 0;

	for (r = 0; r < dump->nruns && !err; r++) {
		const struct etd_run *run = &dump->runs[r];

		for (e = 0; e < run->nevents && !err; e++)
			if (run->events[e].kind == ETD_ALLOCATION)
				err = item_add(it, (struct item){
					.ts = run->events[e].start_time,
					.kind = IT_ALLOCATION, .tid = run->tid,
					.run = r, .ev = e });
	}
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
	const struct sched_lanes *lanes;
	bool slice_args;        /* CHROME_SLICE_ARGS */
	bool from_etdump;       /* CHROME_FROM_ETDUMP */
	size_t nevents;
	size_t clipped;
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

/*
 * Perfetto lists threads by this hint: by tid, each thread's lane right
 * below it.
 */
static void sort_track(struct trace *tr, uint32_t track, uint32_t tid,
		       bool lane)
{
	event_head(tr, "M", track, 0, "thread_sort_index");
	fprintf(tr->f, ",\"args\":{\"sort_index\":%llu}}",
		2ull * tid + lane);
}

/* "<thread> sched" for each lane. */
static void name_lanes(struct trace *tr)
{
	const struct sched_lanes *l = tr->lanes;
	const char *comm;
	char name[64];
	size_t i;

	for (i = 0; l && i < l->n; i++) {
		if (i && l->v[i - 1].tid == l->v[i].tid)
			continue;
		comm = raw_thread_name(tr->info, l->v[i].tid);
		if (comm)
			snprintf(name, sizeof(name), "%s sched", comm);
		else
			snprintf(name, sizeof(name), "thread %u sched",
				 l->v[i].tid);
		name_track(tr, "thread_name", l->v[i].tid + LANE_TID, name);
		sort_track(tr, l->v[i].tid + LANE_TID, l->v[i].tid, true);
	}
}

/*
 * From an ETDump: the name the notes of a track's runs say of their
 * thread, when all that say one say the same (a track holds runs that
 * never overlap, maybe of several threads).
 */
static const char *track_thread_name(const struct etd_dump *dump,
				     uint32_t tid, char *buf, size_t len)
{
	char one[ETDUMP_THREAD_NAME_LEN * 2];
	size_t r, e;
	bool named = false;

	for (r = 0; r < dump->nruns; r++) {
		const struct etd_run *run = &dump->runs[r];

		if (run->tid != tid)
			continue;
		for (e = 0; e < run->nevents; e++) {
			if (run->events[e].kind != ETD_PROFILE ||
			    !run_note_thread(&run->events[e], one, sizeof(one)))
				continue;
			if (named && strcmp(one, buf))
				return NULL;
			snprintf(buf, len, "%s", one);
			named = true;
			break;
		}
	}
	return named ? buf : NULL;
}

static void name_thread(struct trace *tr, uint32_t tid, const char *process)
{
	const char *comm;
	char name[32], noted[32];

	snprintf(name, sizeof(name), "thread %u", tid);
	comm = tr->from_etdump ?
		       track_thread_name(tr->dump, tid, noted, sizeof(noted)) :
		       raw_thread_name(tr->info, tid);
	name_track(tr, "thread_name", tid, comm ? comm :
		   tid == tr->info->pid && !tr->from_etdump ? process : name);
}

/* Threads that opened no run but fired events (a pool's workers). */
static void name_workers(struct trace *tr, const char *process)
{
	const struct etd_dump *dump = tr->dump;
	uint32_t *named = NULL, *grown;
	size_t r, e, i, n = 0;

	for (r = 0; r < dump->nruns; r++) {
		for (e = 0; e < dump->runs[r].nevents; e++) {
			uint32_t tid = dump->runs[r].events[e].tid;

			if (!tid)
				continue;
			for (i = 0; i < n && named[i] != tid; i++)
				;
			if (i < n)
				continue;
			grown = realloc(named, (n + 1) * sizeof(*named));
			if (!grown)
				break;  /* the thread keeps its number */
			named = grown;
			named[n++] = tid;
			name_thread(tr, tid, process);
		}
	}
	free(named);
}

static void write_metadata(struct trace *tr)
{
	const struct etd_dump *dump = tr->dump;
	const char *exe = tr->info->exe;
	const char *process = *exe ? base_name(exe) : "target";
	uint32_t every = run_note_every(dump);
	char label[256];
	size_t r, q;

	/* a sample of the runs, said where the viewer names the process */
	if (every)
		snprintf(label, sizeof(label), "%s (1 run in %u: record --every %u)",
			 process, every, every);
	name_track(tr, "process_name", tr->info->pid, every ? label : process);
	for (r = 0; r < dump->nruns; r++) {
		uint32_t tid = dump->runs[r].tid;

		for (q = 0; q < r && dump->runs[q].tid != tid; q++)
			;
		if (q < r)
			continue;
		name_thread(tr, tid, process);
		if (tr->lanes && tr->lanes->n)
			sort_track(tr, tid, tid, false);
	}
	name_workers(tr, process);
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

static void write_run_args(struct trace *tr, const struct item *x)
{
	fprintf(tr->f, ",\"args\":{\"run\":%zu,\"events\":%zu}", x->run,
		tr->dump->runs[x->run].nevents);
}

static void write_event_args(struct trace *tr, const struct item *x,
			     const struct etd_event *ev)
{
	FILE *f = tr->f;

	fprintf(f, ",\"args\":{\"run\":%zu,\"chain_index\":%" PRId32
		",\"instruction_id\":%" PRId32, x->run, ev->chain_index,
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
	fputc('}', f);
}

static void write_lane(struct trace *tr, const struct item *x)
{
	static const char *const off[] = {
		[LANE_PREEMPTED] = "preempted",
		[LANE_BLOCKED] = "blocked",
	};
	char name[32];

	if (x->ev == LANE_ON_CPU)
		snprintf(name, sizeof(name), "CPU %zu", x->run);
	event_head(tr, x->edge == EDGE_LANE_BEGIN ? "B" : "E", x->tid, x->ts,
		   x->ev == LANE_ON_CPU ? name : off[x->ev]);
	fputs(",\"cat\":\"sched\"}", tr->f);
}

/* One end of a flow: Perfetto draws the arrow, speedscope ignores it. */
static void write_flow(struct trace *tr, const struct item *x)
{
	bool start = x->edge == EDGE_FLOW_START;

	event_head(tr, start ? "s" : "f", x->tid, x->ts, "delegate call");
	fprintf(tr->f, ",\"cat\":\"flow\",\"id\":%zu%s}", x->flow,
		start ? "" : ",\"bp\":\"e\"");
}

/*
 * A B or an E. Speedscope keys a frame by name and args, so without
 * CHROME_SLICE_ARGS a slice has none: every call of an operator, in every
 * run, is one frame. An E never has args (speedscope would see another
 * frame end).
 */
static void write_slice(struct trace *tr, const struct item *x)
{
	const struct etd_run *run = &tr->dump->runs[x->run];
	const struct etd_event *ev =
		x->ev == NEST_RUN ? NULL : &run->events[x->ev];
	char buf[32];

	if (x->edge == EDGE_FLOW_START || x->edge == EDGE_FLOW_FINISH) {
		write_flow(tr, x);
		return;
	}
	if (x->edge == EDGE_LANE_BEGIN || x->edge == EDGE_LANE_END) {
		write_lane(tr, x);
		return;
	}
	event_head(tr, x->edge == EDGE_END ? "E" : "B", x->tid, x->ts,
		   ev ? event_name(ev, buf, sizeof(buf)) : run->name);
	fprintf(tr->f, ",\"cat\":\"%s\"",
		!ev ? "run" : ev->name ? "profile" : "delegate");
	if (tr->slice_args && x->edge == EDGE_BEGIN) {
		if (ev)
			write_event_args(tr, x, ev);
		else
			write_run_args(tr, x);
	}
	fputc('}', tr->f);
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

/*
 * What wrote the capture, how it was called and when (UTC), as perf
 * report --header tells: each member followed by a comma.
 */
static void write_recorder(struct trace *tr)
{
	const struct raw_info *info = tr->info;
	time_t secs = (time_t)(info->start_realtime / 1000000000ull);
	FILE *f = tr->f;
	char when[32];
	struct tm tm;
	uint32_t i;

	if (info->tool && *info->tool) {
		fputs("\"recorder\":", f);
		json_str(f, info->tool);
		fputc(',', f);
	}
	if (info->nargs) {
		fputs("\"command\":[", f);
		for (i = 0; i < info->nargs; i++) {
			if (i)
				fputc(',', f);
			json_str(f, info->args[i]);
		}
		fputs("],", f);
	}
	if (info->start_realtime && gmtime_r(&secs, &tm) &&
	    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
		fprintf(f, "\"recorded\":\"%s\",", when);
}

/* Wall time of ts: ts - start_monotonic_ns + start_realtime_ns. */
static void write_other_data(struct trace *tr)
{
	const struct raw_info *info = tr->info;
	FILE *f = tr->f;

	uint32_t every = run_note_every(tr->dump);

	if (tr->from_etdump) {
		fputs(",\n\"otherData\":{\"producer\":\"" PRODUCER "\","
		      "\"source\":\"etdump\",", f);
		if (every)
			fprintf(f, "\"kept_one_run_in\":%u,", every);
		fputs("\"file\":", f);
		json_str(f, info->exe);
		fputs("}}\n", f);
		return;
	}
	fputs(",\n\"otherData\":{\"producer\":\"" PRODUCER "\",", f);
	if (every)
		fprintf(f, "\"kept_one_run_in\":%u,", every);
	write_recorder(tr);
	fputs("\"executable\":", f);
	json_str(f, info->exe);
	fprintf(f, ",\"pid\":%u,\"clock\":\"CLOCK_MONOTONIC\","
		"\"start_monotonic_ns\":%" PRIu64 ",\"start_realtime_ns\":%" PRIu64
		",\"capture\":\"%s\",\"dropped\":%" PRIu64 ",\"stop\":",
		info->pid, info->start_clock, info->start_realtime,
		state_name(info->state), info->drops);
	json_str(f, info->stop);
	if (tr->clipped)
		fprintf(f, ",\"clipped_slices\":%zu", tr->clipped);
	if (tr->lanes && tr->lanes->n)
		fprintf(f, ",\"sched_lane_tid\":\"tid + %u\"", LANE_TID);
	fputs("}}\n", f);
}

static void write_items(struct trace *tr, const struct items *it)
{
	size_t i;

	for (i = 0; i < it->n; i++) {
		switch (it->v[i].kind) {
		case IT_SLICE:
			write_slice(tr, &it->v[i]);
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

/* The latest time the timeline knows of. */
static uint64_t last_time(const struct nest_slice *v, size_t n,
			  const struct sched_lanes *l)
{
	uint64_t last = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].end > last)
			last = v[i].end;
	for (i = 0; l && i < l->n; i++)
		if (l->v[i].ts > last)
			last = l->v[i].ts;
	return last;
}

/* Every item of the timeline, in the order it is written. */
static int build_items(struct trace *tr, struct items *it)
{
	struct nest_slice *v = NULL;
	size_t n = 0;
	int err;

	err = nest_collect(tr->dump, &v, &n);
	if (err)
		return err;
	err = walk_slices(tr->dump, v, n, it, &tr->clipped);
	if (!err && tr->lanes)
		err = add_lanes(tr->lanes, last_time(v, n, tr->lanes), it);
	if (!err)
		err = add_counters(tr->dump, v, n, it);
	if (!err)
		err = add_allocations(tr->dump, it);
	if (!err)
		err = add_drops(tr->info, it);
	free(v);
	if (!err)
		sort_items(it);
	return err;
}

int chrome_write(const struct etd_dump *dump, const struct raw_info *info,
		 const struct sched_lanes *lanes, unsigned int flags,
		 char **buf, size_t *len)
{
	struct trace tr = { .dump = dump, .info = info, .lanes = lanes,
			    .slice_args = flags & CHROME_SLICE_ARGS,
			    .from_etdump = flags & CHROME_FROM_ETDUMP };
	struct items it = { 0 };
	int err;

	*buf = NULL;
	err = build_items(&tr, &it);
	if (err)
		goto out;
	tr.f = open_memstream(buf, len);
	if (!tr.f) {
		err = -ENOMEM;
		goto out;
	}
	fputs("{\"displayTimeUnit\":\"ns\",\n\"traceEvents\":[\n", tr.f);
	write_metadata(&tr);
	name_lanes(&tr);
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
		      const struct raw_info *info,
		      const struct sched_lanes *lanes, unsigned int flags,
		      const char *path, bool force, char **kept)
{
	size_t len;
	char *buf;
	int err;

	err = chrome_write(dump, info, lanes, flags, &buf, &len);
	if (!err)
		err = file_replace(path, buf, len, force, kept);
	else
		*kept = NULL;
	free(buf);
	return err;
}

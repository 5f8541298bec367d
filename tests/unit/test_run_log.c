// SPDX-License-Identifier: BSD-3-Clause
/*
 * What long recordings stand on: interned names, the compact run log and
 * the ETDump streamed from it (the same file as from an etd_dump), shared
 * strings in the builder, series names and durations, a long run's
 * array growing from malloc() into huge-page mappings, and a long run's
 * events written ahead on a thread of their own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "write/etdump_ahead_thread.h"
#include "write/etdump_log_writer.h"
#include "read/etdump_reader.h"
#include "write/etdump_writer.h"
#include "write/fb_builder.h"
#include "lib/grow_array.h"
#include "lib/file_io.h"
#include "lib/parse.h"
#include "model/run_log.h"
#include "write/run_sink.h"
#include "lib/strtab.h"
#include "write/summary.h"
#include "testlib.h"

TEST(interned_names_are_one_pointer_each)
{
	struct strtab *t = strtab_new();
	const char *a = strtab_intern(t, "native_call_add.out", 19);
	const char *b = strtab_intern(t, "native_call_add.outXX", 19);
	const char *c = strtab_intern(t, "relu", 4);
	char bad[] = { 'o', 'p', (char)0xff, 0 };
	int i;

	CHECK(a && a == b);
	CHECK(c && c != a);
	CHECK_EQ_STR(a, "native_call_add.out");
	/* made valid UTF-8 once, still matched by the bytes as given */
	CHECK_EQ_STR(strtab_intern(t, bad, 3), "op?");
	CHECK(strtab_intern(t, bad, 3) == strtab_intern(t, "op\xff", 3));
	/* many names: the table grows, the pointers stay */
	for (i = 0; i < 5000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "op%d", i);
		CHECK(strtab_intern(t, name, strlen(name)) != NULL);
	}
	CHECK(strtab_intern(t, "native_call_add.out", 19) == a);
	CHECK_EQ_STR(a, "native_call_add.out");
	strtab_free(t);
}

/* Run i: "Execute", events i*10.. with a delegate event carrying metadata. */
static void fill_run(struct run_view *r, struct packed_event *ev,
		     uint8_t *meta, struct strtab *t, int i)
{
	memset(r, 0, sizeof(*r));
	r->name = strtab_intern(t, "Execute", 7);
	r->tid = 7;
	r->open_time = 1000 - i; /* opened in the reverse order */
	memset(ev, 0, 2 * sizeof(*ev));
	ev[0].start = i * 10;
	ev[0].end = i * 10 + 5;
	ev[0].str = strtab_intern(t, "native_call_add.out", 19);
	ev[0].chain = 0;
	ev[0].instr = i;
	ev[1].start = i * 10 + 6;
	ev[1].end = i * 10 + 9;
	ev[1].str = strtab_intern(t, "xnn", 3);
	ev[1].id_int = -1;
	ev[1].chain = 0;
	ev[1].instr = i;
	ev[1].flags = PACKED_DELEGATE;
	ev[1].meta_len = 2;
	ev[1].aux = 0;
	meta[0] = 'm';
	meta[1] = (uint8_t)i;
	r->events = ev;
	r->nevents = 2;
	r->meta = meta;
	r->meta_len = 2;
}

static int to_dump(void *ctx, struct run_view *r)
{
	struct etd_dump *d = ctx;
	struct etd_run *run;
	struct etd_event ev;
	size_t i;

	CHECK_EQ_INT(etd_dump_add_run(d, r->name, &run), 0);
	run->open_time = r->open_time;
	for (i = 0; i < r->nevents; i++) {
		packed_event_view(r, &r->events[i], &ev);
		ev.name = ev.name ? strdup(ev.name) : NULL;
		ev.delegate_id_str = ev.delegate_id_str ?
					     strdup(ev.delegate_id_str) : NULL;
		if (ev.has_metadata) {
			uint8_t *m = malloc(ev.metadata_len + 1);

			memcpy(m, ev.metadata, ev.metadata_len);
			ev.metadata = m;
		}
		CHECK_EQ_INT(etd_run_add_event(run, &ev), 0);
	}
	return 0;
}

static int by_open_time(const void *a, const void *b)
{
	const struct etd_run *x = a, *y = b;

	return x->open_time < y->open_time ? -1 : x->open_time > y->open_time;
}

TEST(log_streamed_gives_the_file_a_dump_gives)
{
	struct strtab *t = strtab_new();
	struct run_log *log = run_log_new(), *again = run_log_new();
	struct etd_dump want = { 0 }, got = { 0 };
	struct packed_event ev[2];
	struct run_view r;
	uint8_t meta[2];
	char path[] = "/tmp/test_run_log_XXXXXX", *kept = NULL;
	int fd, i;

	/* enough runs for several slabs */
	for (i = 0; i < 60000; i++) {
		fill_run(&r, ev, meta, t, i);
		CHECK_EQ_INT(run_log_append(log, &r), 0);
		CHECK_EQ_INT(run_log_append(again, &r), 0);
	}
	CHECK_EQ_INT(run_log_runs(log), 60000);
	CHECK_EQ_INT(run_log_events(log), 120000);
	CHECK(run_log_bytes(log) > 4u << 20);
	CHECK_EQ_INT(run_log_each(again, false, to_dump, &want), 0);
	qsort(want.runs, want.nruns, sizeof(*want.runs), by_open_time);

	fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ_INT(etdump_write_log_file(log, NULL, path, true, &kept), 0);
	CHECK(kept == NULL);
	CHECK_EQ_INT(run_log_runs(log), 0);
	CHECK_EQ_INT(run_log_bytes(log), 0);
	CHECK_EQ_INT(etdump_read_file(path, &got, NULL, 0), 0);
	CHECK(etd_dump_equal(&got, &want));
	unlink(path);
	etd_dump_free(&want);
	etd_dump_free(&got);
	run_log_free(log);
	run_log_free(again);
	strtab_free(t);
}

static bool same_bytes(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	int ca = 0, cb = 0;
	bool same = fa && fb;

	while (same && ca != EOF) {
		ca = fgetc(fa);
		cb = fgetc(fb);
		same = ca == cb;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

TEST(runs_streamed_as_they_complete_give_the_logs_file)
{
	struct strtab *t = strtab_new();
	struct run_log *log = run_log_new(), *pending = run_log_new();
	struct etdump_stream *es = NULL, *es2 = NULL;
	struct packed_event ev[2];
	struct run_view r;
	uint8_t meta[2];
	char a[] = "/tmp/test_run_log_XXXXXX", b[] = "/tmp/test_run_log_XXXXXX";
	char c[] = "/tmp/test_run_log_XXXXXX";
	char *kept = NULL, runs[64];
	int i, drained = 0;

	CHECK_EQ_INT(etdump_stream_open(&es, NULL), 0);
	CHECK_EQ_INT(etdump_stream_open(&es2, NULL), 0);
	/* enough runs for several slabs of the pending log */
	for (i = 0; i < 120000; i++) {
		fill_run(&r, ev, meta, t, i);
		/* a second name, so that the runs' order shows in the bytes */
		if (i % 3 == 0)
			r.name = strtab_intern(t, "Default", 7);
		CHECK_EQ_INT(run_log_append(log, &r), 0);
		CHECK_EQ_INT(etdump_stream_run(es, &r), 0);
		/* as record does: appended, and a slab drained now and then */
		CHECK_EQ_INT(run_log_append(pending, &r), 0);
		if (i % 1000 == 0)
			drained += etdump_stream_drain(es2, pending, false);
	}
	CHECK(drained > 0);
	CHECK_EQ_INT(etdump_stream_drain(es2, pending, true), 0);
	CHECK_EQ_INT(run_log_runs(pending), 0);
	close(mkstemp(a));
	close(mkstemp(b));
	close(mkstemp(c));
	CHECK_EQ_INT(etdump_write_log_file(log, NULL, a, true, &kept), 0);
	CHECK_EQ_INT(etdump_stream_write_file(es, b, true, &kept), 0);
	CHECK_EQ_INT(etdump_stream_write_file(es2, c, true, &kept), 0);
	CHECK(same_bytes(a, b));
	CHECK(same_bytes(a, c));
	/* by first open time: the last run appended opened first */
	run_names_describe(etdump_stream_names(es), runs, sizeof(runs));
	CHECK_EQ_STR(runs, "80000 Execute + 40000 Default");
	unlink(a);
	unlink(b);
	unlink(c);
	etdump_stream_free(es);
	etdump_stream_free(es2);
	run_log_free(log);
	run_log_free(pending);
	strtab_free(t);
}

/*
 * A full event's name is its run's own copy, freed once the run is
 * written: the next run's name may be made at the same address, and must
 * not be taken for the old one.
 */
TEST(streamed_runs_names_at_a_freed_address_are_their_own)
{
	struct strtab *t = strtab_new();
	struct etdump_stream *es = NULL;
	struct etd_dump got = { 0 };
	struct packed_event p = { 0 };
	struct etd_event full;
	struct run_view r;
	char path[] = "/tmp/test_run_log_XXXXXX", *kept = NULL;
	char name[32];
	int i;

	CHECK_EQ_INT(etdump_stream_open(&es, NULL), 0);
	for (i = 0; i < 2; i++) {
		/* the same buffer, other bytes: a name freed and made again */
		snprintf(name, sizeof(name), i ? "native_call_mul.out" :
						 "native_call_add.out");
		etd_event_init(&full, ETD_PROFILE);
		full.name = name;
		full.start_time = 10 * i + 1;
		full.end_time = 10 * i + 2;
		full.instruction_id = i;
		memset(&r, 0, sizeof(r));
		r.name = strtab_intern(t, "Execute", 7);
		r.open_time = i;
		p.flags = PACKED_FULL;
		p.aux = 0;
		r.events = &p;
		r.nevents = 1;
		r.full = &full;
		r.nfull = 1;
		CHECK_EQ_INT(etdump_stream_run(es, &r), 0);
	}
	close(mkstemp(path));
	CHECK_EQ_INT(etdump_stream_write_file(es, path, true, &kept), 0);
	CHECK_EQ_INT(etdump_read_file(path, &got, NULL, 0), 0);
	CHECK_EQ_INT(got.nruns, 2);
	CHECK_EQ_STR(got.runs[0].events[0].name, "native_call_add.out");
	CHECK_EQ_STR(got.runs[1].events[0].name, "native_call_mul.out");
	unlink(path);
	etd_dump_free(&got);
	etdump_stream_free(es);
	strtab_free(t);
}

TEST(shared_strings_are_written_once)
{
	struct fb_builder b;
	fb_ref r1, r2, r3;
	char copy[] = "native_call_add.out";

	fb_builder_init(&b);
	CHECK_EQ_INT(fb_create_shared_string(&b, "native_call_add.out", &r1), 0);
	/* another address, the same bytes */
	CHECK_EQ_INT(fb_create_shared_string(&b, copy, &r2), 0);
	CHECK_EQ_INT(fb_create_shared_string(&b, "relu", &r3), 0);
	CHECK(r1 && r1 == r2);
	CHECK(r3 && r3 != r1);
	CHECK_EQ_INT(fb_create_shared_string(&b, NULL, &r3), 0);
	CHECK_EQ_INT(r3, 0);
	fb_builder_free(&b);
}

TEST(series_names_and_durations)
{
	char buf[64];
	uint64_t ns;

	CHECK_EQ_INT(file_series_name("run.etdp", 1, buf, sizeof(buf)), 0);
	CHECK_EQ_STR(buf, "run.0001.etdp");
	CHECK_EQ_INT(file_series_name("out/run", 12, buf, sizeof(buf)), 0);
	CHECK_EQ_STR(buf, "out/run.0012");
	CHECK_EQ_INT(file_series_name("a.b/.hidden", 3, buf, sizeof(buf)), 0);
	CHECK_EQ_STR(buf, "a.b/.hidden.0003");
	CHECK_EQ_INT(file_series_name("dir.x/run.etdp", 10000, buf, sizeof(buf)), 0);
	CHECK_EQ_STR(buf, "dir.x/run.10000.etdp");
	CHECK(file_series_name("run.etdp", 1, buf, 8) < 0);

	CHECK_EQ_INT(parse_duration("2", &ns), 0);
	CHECK_EQ_INT(ns, 2000000000ull);
	CHECK_EQ_INT(parse_duration("1.5ms", &ns), 0);
	CHECK_EQ_INT(ns, 1500000ull);
	CHECK_EQ_INT(parse_duration("5min", &ns), 0);
	CHECK_EQ_INT(ns, 300000000000ull);
	CHECK_EQ_INT(parse_duration("1h", &ns), 0);
	CHECK_EQ_INT(ns, 3600000000000ull);
	CHECK_EQ_INT(parse_duration("250us", &ns), 0);
	CHECK_EQ_INT(ns, 250000ull);
	CHECK(parse_duration("", &ns) < 0);
	CHECK(parse_duration("ms", &ns) < 0);
	CHECK(parse_duration("3 s", &ns) < 0);
	CHECK(parse_duration("3d", &ns) < 0);
	CHECK(parse_duration("-1s", &ns) < 0);
}

/* Past GROW_ARRAY_HUGE the array is mapped; its elements survive each move. */
TEST(a_long_runs_array_keeps_every_element_as_it_grows)
{
	size_t cap = 0, n, big = 3 * GROW_ARRAY_HUGE / sizeof(uint64_t);
	uint64_t *a = NULL;
	size_t bad = 0;

	for (n = 0; n < big; n++) {
		if (grow_array((void **)&a, &cap, n, 1, sizeof(*a)))
			break;
		a[n] = n * 2654435761u;
	}
	CHECK_EQ_INT(n == big, 1);
	CHECK_EQ_INT(cap >= big, 1);
	for (n = 0; n < big; n++)
		bad += a[n] != n * 2654435761u;
	CHECK_EQ_INT(bad, 0);
	/* room for a block at once too, across the step into a mapping */
	grow_array_free(a, cap, sizeof(*a));
	a = NULL;
	cap = 0;
	CHECK_EQ_INT(grow_array((void **)&a, &cap, 0, 8, sizeof(*a)), 0);
	a[7] = 7;
	CHECK_EQ_INT(grow_array((void **)&a, &cap, 8, GROW_ARRAY_HUGE, sizeof(*a)),
		     0);
	CHECK_EQ_INT(a[7] == 7, 1);
	a[GROW_ARRAY_HUGE + 7] = 1;
	grow_array_free(a, cap, sizeof(*a));
}

struct long_run_check {
	size_t nevents, bad;
	int runs;
};

static int check_long_run(void *ctx, struct run_view *r)
{
	struct long_run_check *c = ctx;
	size_t i;

	c->runs++;
	if (r->nevents != c->nevents)
		return 0;
	for (i = 0; i < r->nevents; i++)
		c->bad += r->events[i].start != i || r->events[i].end != i + 7;
	c->bad += r->meta_len != 3 || memcmp(r->meta, "abc", 3);
	return 0;
}

/* A long run's mapping moves into the log, in order with the short runs. */
TEST(a_long_run_is_taken_into_the_log_whole)
{
	struct run_log *log = run_log_new();
	struct long_run_check c = { .nevents = 200000 };
	struct packed_event *ev = NULL, one = { .start = 1, .end = 2 };
	struct run_view r = { .name = "Execute" }, small = { .name = "small" };
	size_t cap = 0, i;

	small.events = &one;
	small.nevents = 1;
	CHECK_EQ_INT(run_log_append(log, &small), 0);
	CHECK_EQ_INT(grow_array((void **)&ev, &cap, 0, c.nevents, sizeof(*ev)),
		     0);
	for (i = 0; i < c.nevents; i++)
		ev[i] = (struct packed_event){ .start = i, .end = i + 7 };
	r.events = ev;
	r.nevents = c.nevents;
	r.meta = (uint8_t *)"abc";
	r.meta_len = 3;
	CHECK_EQ_INT(run_log_append_taking(log, &r,
					   grow_array_mapped(cap, sizeof(*ev))),
		     0);
	CHECK(r.events == NULL);
	CHECK_EQ_INT(run_log_append(log, &small), 0);
	CHECK_EQ_INT(run_log_runs(log), 3);
	CHECK_EQ_INT(run_log_each(log, true, check_long_run, &c), 0);
	CHECK_EQ_INT(c.runs, 3);
	CHECK_EQ_INT(c.bad, 0);
	CHECK_EQ_INT(run_log_runs(log), 0);
	run_log_free(log);
}

/* Chunk k of run `tid`: events k*n.., every third a delegate's with metadata. */
static void fill_chunk(struct run_view *r, struct packed_event *ev,
		       uint8_t *meta, struct strtab *t, uint32_t tid, int k,
		       size_t n)
{
	static const char *const ops[] = { "aten::add", "aten::mul",
					    "native_call_convolution.out" };
	size_t i;

	memset(r, 0, sizeof(*r));
	r->name = strtab_intern(t, "Execute", 7);
	r->tid = tid;
	r->open_time = 100 * tid;
	for (i = 0; i < n; i++) {
		const char *op = ops[(i + tid) % 3];

		memset(&ev[i], 0, sizeof(ev[i]));
		ev[i].start = 1000 * tid + k * n + i;
		ev[i].end = ev[i].start + 1 + i % 5;
		ev[i].instr = (int32_t)(i % 7);
		ev[i].id_int = -1;
		ev[i].str = strtab_intern(t, op, strlen(op));
		if (i % 3 == 0) {
			ev[i].flags = PACKED_DELEGATE;
			ev[i].aux = (uint32_t)r->meta_len;
			ev[i].meta_len = (uint16_t)(i % 4);
			memset(meta + r->meta_len, (int)(k + i), i % 4);
			r->meta_len += i % 4;
		}
	}
	r->events = ev;
	r->nevents = n;
	r->meta = meta;
}

/*
 * Three long runs go ahead in interleaved chunks, one of them dropped,
 * then each ends, and two more follow in the refs arrays they leave: on
 * the thread (whose stream starts with refs arrays prepared) the file is
 * the one written in line, and a chunk's arrays are the taker's to reuse
 * the moment it returns.
 */
TEST(runs_written_ahead_on_a_thread_give_the_same_file)
{
	enum { CHUNK = 700, CHUNKS = 40 };
	struct strtab *t = strtab_new();
	struct run_log *log_a = run_log_new(), *log_b = run_log_new();
	struct etdump_stream *es_a = NULL, *es_b = NULL;
	struct etdump_ahead_thread *ahead = NULL;
	struct packed_event *ev = calloc(CHUNK, sizeof(*ev));
	uint8_t *meta = malloc(CHUNK * 4);
	char a[] = "/tmp/test_run_log_XXXXXX", b[] = "/tmp/test_run_log_XXXXXX";
	char *kept = NULL;
	struct etd_dump got = { 0 };
	struct run_view r;
	uint32_t tid;
	int k;

	CHECK(ev && meta);
	CHECK_EQ_INT(etdump_stream_open(&es_a, NULL), 0);
	CHECK_EQ_INT(etdump_stream_open(&es_b, NULL), 0);
	CHECK_EQ_INT(etdump_ahead_thread_start(&ahead, es_b, CHUNK), 0);
	for (k = 0; k < CHUNKS; k++) {
		for (tid = 1; tid <= 3; tid++) {
			fill_chunk(&r, ev, meta, t, tid, k, CHUNK);
			CHECK_EQ_INT(etdump_stream_ahead(es_a, &r), 0);
			CHECK_EQ_INT(etdump_ahead_thread_take(ahead, &r), 0);
			/* the collector's arrays, reused at once */
			memset(ev, 0x5a, CHUNK * sizeof(*ev));
			memset(meta, 0x5a, CHUNK * 4);
		}
		if (k == CHUNKS / 2) {
			fill_chunk(&r, ev, meta, t, 2, k, 1);
			etdump_stream_drop_ahead(es_a, &r);
			etdump_ahead_thread_drop(ahead, &r);
		}
	}
	/* each run's end: its last events, through the log */
	for (tid = 1; tid <= 3; tid += 2) {
		fill_chunk(&r, ev, meta, t, tid, CHUNKS, 10);
		CHECK_EQ_INT(run_log_append(log_a, &r), 0);
		CHECK_EQ_INT(run_log_append(log_b, &r), 0);
	}
	CHECK_EQ_INT(etdump_stream_drain(es_a, log_a, true), 0);
	CHECK_EQ_INT(etdump_ahead_thread_drain(ahead, log_b, true), 0);
	/* two more long runs, in the refs the ended ones leave */
	for (k = 0; k < CHUNKS / 4; k++) {
		for (tid = 4; tid <= 5; tid++) {
			fill_chunk(&r, ev, meta, t, tid, k, CHUNK);
			CHECK_EQ_INT(etdump_stream_ahead(es_a, &r), 0);
			CHECK_EQ_INT(etdump_ahead_thread_take(ahead, &r), 0);
		}
	}
	for (tid = 4; tid <= 5; tid++) {
		fill_chunk(&r, ev, meta, t, tid, CHUNKS / 4, 10);
		CHECK_EQ_INT(run_log_append(log_a, &r), 0);
		CHECK_EQ_INT(run_log_append(log_b, &r), 0);
	}
	CHECK_EQ_INT(etdump_stream_drain(es_a, log_a, true), 0);
	CHECK_EQ_INT(etdump_ahead_thread_drain(ahead, log_b, true), 0);
	CHECK_EQ_INT(etdump_ahead_thread_wait(ahead), 0);
	close(mkstemp(a));
	close(mkstemp(b));
	CHECK_EQ_INT(etdump_stream_write_file(es_a, a, true, &kept), 0);
	CHECK_EQ_INT(etdump_stream_write_file(es_b, b, true, &kept), 0);
	CHECK(same_bytes(a, b));
	/* the runs kept, each whole; the dropped one's events in neither */
	CHECK_EQ_INT(etdump_read_file(b, &got, NULL, 0), 0);
	CHECK_EQ_INT(got.nruns, 4);
	for (size_t i = 0; i < got.nruns; i++)
		CHECK_EQ_INT(got.runs[i].nevents,
			     i < 2 ? CHUNK * CHUNKS + 10 :
				     CHUNK * (CHUNKS / 4) + 10);
	etd_dump_free(&got);
	unlink(a);
	unlink(b);
	etdump_ahead_thread_stop(ahead);
	etdump_stream_free(es_a);
	etdump_stream_free(es_b);
	run_log_free(log_a);
	run_log_free(log_b);
	strtab_free(t);
	free(ev);
	free(meta);
}

int main(void)
{
	RUN(interned_names_are_one_pointer_each);
	RUN(log_streamed_gives_the_file_a_dump_gives);
	RUN(runs_streamed_as_they_complete_give_the_logs_file);
	RUN(streamed_runs_names_at_a_freed_address_are_their_own);
	RUN(shared_strings_are_written_once);
	RUN(series_names_and_durations);
	RUN(a_long_runs_array_keeps_every_element_as_it_grows);
	RUN(a_long_run_is_taken_into_the_log_whole);
	RUN(runs_written_ahead_on_a_thread_give_the_same_file);
	return TEST_SUMMARY();
}

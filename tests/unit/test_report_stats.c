// SPDX-License-Identifier: BSD-3-Clause
/*
 * report_stats and report_group against the Inspector's rules
 * (ExecuTorch: devtools/inspector/_inspector.py): numpy's percentiles and mean to the bit,
 * the wrap rule and its delegated variant, units, and how runs become
 * event blocks (merging, separate blocks, duplicate signatures, delegate
 * names, debug events, the files the Inspector refuses, counters).
 */
#include <errno.h>
#include <string.h>
#include "dump_builder.h"
#include "report/report_stats.h"
#include "testlib.h"

#define CHECK_NEAR(a, b) CHECK((a) - (b) < 1e-12 && (b) - (a) < 1e-12)

static char err[512];

/* Build the report; on failure, say why and leave it empty. */
static int build(struct etd_dump *d, enum report_unit unit, struct report *r)
{
	int ret = report_build(d, unit, r, err, sizeof(err));

	if (ret)
		printf("    report_build: %d: %s\n", ret, err);
	return ret;
}

/* The events of the one block d should give, or NULL (with a note). */
static struct report_event *one_block(struct etd_dump *d, struct report *r,
				      size_t nevents)
{
	if (build(d, REPORT_NS, r))
		return NULL;
	CHECK_EQ_INT(r->nblocks, 1);
	CHECK_EQ_INT(r->blocks[0].nevents, nevents);
	if (r->nblocks != 1 || r->blocks[0].nevents != nevents)
		return NULL;
	return r->blocks[0].events;
}

static void release(struct etd_dump *d, struct report *r)
{
	report_free(r);
	etd_dump_free(d);
}

TEST(percentiles)
{
	const double v[] = { 10, 1, 3, 2, 4 }; /* sorted: 1 2 3 4 10 */
	struct report_stats s;

	CHECK_EQ_INT(report_stats_of(v, 5, &s), 0);
	CHECK_NEAR(s.p10, 1.4);
	CHECK(s.p50 == 3);
	CHECK_NEAR(s.p90, 7.6);
	/* numpy's _lerp from the upper end: 10 - 6 * (1 - 0.6000000000000001) */
	CHECK(s.p90 == 7.6000000000000005);
	CHECK(s.avg == 4);
	CHECK(s.min == 1 && s.max == 10);
	CHECK(v[0] == 10); /* the input keeps its order */

	CHECK_EQ_INT(report_stats_of(v + 1, 1, &s), 0);
	CHECK(s.p10 == 1 && s.p50 == 1 && s.p90 == 1 && s.avg == 1);
	CHECK(report_percentile((const double[]){ 1, 3 }, 2, 50) == 2);
	CHECK(report_percentile((const double[]){ 1, 3 }, 2, 100) == 3);
}

TEST(mean_is_pairwise)
{
	double v[300];
	size_t i;

	/* np.mean([0.1] * 10) is 0.1; adding in a row gives 0.09999999999999999 */
	for (i = 0; i < 10; i++)
		v[i] = 0.1;
	CHECK(report_mean(v, 10) == 0.1);
	CHECK(report_mean(v, 3) == (0.1 + 0.1 + 0.1) / 3);
	/* past 128 values the halves are summed apart: exact for integers */
	for (i = 0; i < 300; i++)
		v[i] = (double)i;
	CHECK(report_mean(v, 300) == 149.5);
}

TEST(wrap_rule)
{
	uint64_t t = 0;

	CHECK_EQ_INT(report_elapsed(100, 250, &t), 0);
	CHECK_EQ_INT(t, 150);
	/* a 32-bit clock wrapped: one tick short, as the Inspector computes */
	CHECK_EQ_INT(report_elapsed(4294967290ull, 5, &t), 0);
	CHECK_EQ_INT(t, 10);
	CHECK_EQ_INT(report_elapsed(4294967295ull, 0, &t), 0);
	CHECK_EQ_INT(t, 0);
	CHECK_EQ_INT(report_elapsed(4294967296ull, 5, &t), -ERANGE);
	CHECK_EQ_INT(report_elapsed(1ull << 40, 1ull << 39, &t), -ERANGE);
}

TEST(delegated_times_convert_start_and_end)
{
	struct etd_event ev;
	double v;

	etd_event_init(&ev, ETD_PROFILE);
	ev.start_time = 123456789;
	ev.end_time = 123456790;
	CHECK_EQ_INT(report_duration(&ev, false, REPORT_MS, &v), 0);
	CHECK(v == 1e-6);
	CHECK_EQ_INT(report_duration(&ev, true, REPORT_MS, &v), 0);
	CHECK(v == 123456790.0 / 1e6 - 123456789.0 / 1e6);
	CHECK(v != 1e-6); /* the rounding noise the Inspector shows */

	/* the wrap test runs on converted times: allowed in ms, not in ns */
	ev.start_time = 5000000000000ull;
	ev.end_time = 1000000000000ull;
	CHECK_EQ_INT(report_duration(&ev, false, REPORT_MS, &v), -ERANGE);
	CHECK_EQ_INT(report_duration(&ev, true, REPORT_NS, &v), -ERANGE);
	CHECK_EQ_INT(report_duration(&ev, true, REPORT_MS, &v), 0);
	CHECK(v == (4294967295.0 - 5000000.0) + 1000000.0);
}

TEST(units)
{
	static const char *const names[] = { "ns", "us", "ms", "s" };
	static const double want[] = { 1500000, 1500, 1.5, 0.0015 };
	enum report_unit u;
	struct etd_event ev;
	double v;
	size_t i;

	etd_event_init(&ev, ETD_PROFILE);
	ev.start_time = 1000;
	ev.end_time = 1501000;
	for (i = 0; i < 4; i++) {
		CHECK_EQ_INT(report_unit_parse(names[i], &u), 0);
		CHECK_EQ_STR(report_unit_name(u), names[i]);
		CHECK_EQ_INT(report_duration(&ev, false, u, &v), 0);
		CHECK(v == want[i]);
	}
	CHECK_EQ_INT(report_unit_parse("MS", &u), -EINVAL);
	CHECK_EQ_INT(report_unit_parse("sec", &u), -EINVAL);
	CHECK_EQ_INT(report_unit_parse("", &u), -EINVAL);
	CHECK_EQ_INT(report_unit_parse(NULL, &u), -EINVAL);
}

/* Execute runs of one instruction: kernel, OPERATOR_CALL, Method::execute */
static void execute_run(struct etd_dump *d, uint64_t t0, uint64_t kernel_ns)
{
	struct etd_run *run = db_run(d, "Execute");

	db_profile(run, "native_call_add.out", 0, 0, t0 + 10,
		   t0 + 10 + kernel_ns);
	db_profile(run, "OPERATOR_CALL", 0, 0, t0 + 5, t0 + 20 + kernel_ns);
	db_profile(run, "Method::execute", -1, 0, t0, t0 + 30 + kernel_ns);
}

TEST(identical_runs_merge)
{
	struct etd_dump d = {};
	struct report r = {};
	struct etd_run *run;

	run = db_run(&d, "Default");
	db_profile(run, "Method::init", -1, 0, 100, 200);
	db_profile(run, "Program::load_method", -1, 0, 50, 300);
	execute_run(&d, 1000, 1);
	execute_run(&d, 2000, 2);
	execute_run(&d, 3000, 3);
	execute_run(&d, 4000, 4);
	execute_run(&d, 5000, 10);
	if (build(&d, REPORT_NS, &r))
		goto out;
	CHECK_EQ_INT(r.nruns, 6);
	CHECK_EQ_INT(r.nblocks, 2);
	CHECK_EQ_STR(r.blocks[0].name, "Default");
	CHECK_EQ_INT(r.blocks[0].nruns, 1);
	CHECK_EQ_INT(r.blocks[0].nevents, 2);
	CHECK_EQ_STR(r.blocks[0].events[1].name, "Program::load_method");
	CHECK(r.blocks[0].events[1].time.p50 == 250);
	CHECK_EQ_STR(r.blocks[1].name, "Execute");
	CHECK_EQ_INT(r.blocks[1].nruns, 5);
	CHECK_EQ_INT(r.blocks[1].nevents, 3);
	CHECK_EQ_STR(r.blocks[1].events[0].name, "native_call_add.out");
	CHECK(!r.blocks[1].events[0].op_call);
	CHECK(r.blocks[1].events[1].op_call);
	CHECK_NEAR(r.blocks[1].events[0].time.p10, 1.4);
	CHECK(r.blocks[1].events[0].time.p50 == 3);
	CHECK_NEAR(r.blocks[1].events[0].time.p90, 7.6);
	CHECK(r.blocks[1].events[0].time.avg == 4);
	CHECK(r.blocks[1].events[2].time.min == 31);
	CHECK(r.blocks[1].events[2].time.max == 40);
out:
	release(&d, &r);
}

TEST(differing_runs_make_blocks)
{
	struct etd_dump d = {};
	struct report r = {};
	struct etd_run *run;

	execute_run(&d, 1000, 1);
	run = db_run(&d, "Execute"); /* another branch: one more event */
	db_profile(run, "native_call_mul.out", 0, 1, 1, 5);
	db_profile(run, "Method::execute", -1, 0, 0, 9);
	execute_run(&d, 2000, 3);
	run = db_run(&d, "Execute"); /* same events, another bundled input */
	db_profile(run, "native_call_add.out", 0, 0, 10, 11);
	db_profile(run, "OPERATOR_CALL", 0, 0, 5, 21);
	db_profile(run, "Method::execute", -1, 0, 0, 31);
	run->bundled_input_index = 2;
	run = db_run(&d, "Other"); /* same events, another name */
	db_profile(run, "native_call_mul.out", 0, 1, 1, 5);
	db_profile(run, "Method::execute", -1, 0, 0, 9);
	run = db_run(&d, "Execute"); /* no events vector: skipped */
	if (build(&d, REPORT_NS, &r))
		goto out;
	CHECK_EQ_INT(r.nblocks, 4);
	CHECK_EQ_INT(r.nruns, 5);
	if (r.nblocks != 4)
		goto out;
	CHECK_EQ_STR(r.blocks[0].name, "Execute");
	CHECK_EQ_INT(r.blocks[0].nruns, 2);
	CHECK(r.blocks[0].events[0].time.max == 3);
	CHECK_EQ_STR(r.blocks[1].name, "Execute");
	CHECK_EQ_INT(r.blocks[1].nruns, 1);
	CHECK_EQ_INT(r.blocks[1].nevents, 2);
	CHECK_EQ_STR(r.blocks[1].events[0].name, "native_call_mul.out");
	CHECK_EQ_INT(r.blocks[2].nruns, 1);
	CHECK_EQ_STR(r.blocks[3].name, "Other");
out:
	release(&d, &r);
}

TEST(duplicate_signatures_collapse)
{
	struct etd_dump d = {};
	struct report r = {};
	struct report_event *e;
	struct etd_run *run;

	run = db_run(&d, "Execute");
	db_profile(run, "OPERATOR_CALL", 0, 3, 0, 10);
	db_profile(run, "native_call_x.out", 0, 4, 0, 1);
	/* chain_index is no part of a signature: this replaces the first */
	db_profile(run, "OPERATOR_CALL", 1, 3, 0, 20);
	/* same group, same name: replaces it again */
	db_profile(run, "OPERATOR_CALL", 1, 3, 0, 30);
	/* another instruction: its own event */
	db_profile(run, "OPERATOR_CALL", 0, 5, 0, 40);
	e = one_block(&d, &r, 3);
	if (e) {
		/* first place, last value */
		CHECK_EQ_STR(e[0].name, "OPERATOR_CALL");
		CHECK(e[0].time.max == 30);
		CHECK_EQ_STR(e[1].name, "native_call_x.out");
		CHECK(e[2].time.max == 40);
	}
	release(&d, &r);
}

TEST(delegate_names)
{
	struct etd_dump d = {};
	struct report r = {};
	struct report_event *e;
	struct etd_run *run;

	run = db_run(&d, "Execute");
	db_delegate(run, "linear #0", -1, 4, 0, 5);
	db_delegate(run, NULL, 7, 4, 0, 6);
	db_delegate(run, NULL, 0, 4, 0, 7)->name = db_strdup("ignored");
	db_delegate(run, "str loses", 9, 4, 0, 8);
	db_delegate(run, "", -1, 4, 0, 9)->name = db_strdup("no id: a name");
	db_profile(run, "DELEGATE_CALL", 0, 4, 0, 10);
	e = one_block(&d, &r, 6);
	if (e) {
		CHECK_EQ_STR(e[0].name, "linear #0");
		CHECK(e[0].delegated && e[0].id_kind == REPORT_ID_STR);
		CHECK_EQ_STR(e[0].id_str, "linear #0");
		CHECK_EQ_STR(e[1].name, "7");
		CHECK(e[1].delegated && e[1].id_kind == REPORT_ID_INT);
		CHECK_EQ_INT(e[1].id_int, 7);
		CHECK_EQ_STR(e[2].name, "0"); /* 0 is an id like any other */
		CHECK_EQ_STR(e[3].name, "9");
		CHECK_EQ_STR(e[4].name, "no id: a name");
		CHECK(!e[4].delegated && e[4].id_kind == REPORT_ID_NONE);
		CHECK_EQ_STR(e[5].name, "DELEGATE_CALL");
		CHECK(!e[5].delegated);
		CHECK(e[2].time.max == 7);
	}
	release(&d, &r);
}

TEST(debug_events)
{
	struct etd_dump d = {};
	struct report r = {};
	struct report_event *e;
	struct etd_run *run;

	run = db_run(&d, "Execute");
	/* an intermediate in the kernel's group: no row of its own */
	db_debug(run, NULL, 0, 0, false);
	db_profile(run, "native_call_mul.out", 0, 0, 0, 5);
	/* a named intermediate renames the profile events of its group */
	db_debug(run, "mul_1", 0, 1, false);
	db_profile(run, "native_call_add.out", 0, 1, 0, 6);
	/* an intermediate alone in its group: a row without times */
	db_debug(run, "lonely", 0, 2, false);
	db_debug(run, NULL, 0, 3, false);
	db_profile(run, "Method::execute", -1, 0, 0, 9);
	/* chain -1 is 2^64-1 in a DebugEvent: not Method::execute's group */
	db_debug(run, "after", ~0ull, 0, false);
	/* program outputs are the run's output, not events */
	db_debug(run, "out", ~0ull, 0, true);
	db_debug(run, "out2", 5, 9, true);
	e = one_block(&d, &r, 6);
	if (e) {
		CHECK_EQ_STR(e[0].name, "native_call_mul.out");
		CHECK(e[0].has_time && e[0].time.p50 == 5);
		CHECK_EQ_STR(e[1].name, "mul_1");
		CHECK(e[1].has_time && e[1].time.p50 == 6);
		CHECK_EQ_STR(e[2].name, "lonely");
		CHECK(!e[2].has_time && !e[2].delegated);
		CHECK_EQ_STR(e[3].name, "");
		CHECK(!e[3].has_time);
		CHECK_EQ_STR(e[4].name, "Method::execute");
		CHECK_EQ_STR(e[5].name, "after");
	}
	release(&d, &r);
}

static void check_refused(struct etd_dump *d, const char *why)
{
	struct report r = {};

	CHECK_EQ_INT(report_build(d, REPORT_MS, &r, err, sizeof(err)),
		     -EINVAL);
	if (!strstr(err, why))
		printf("    error \"%s\" does not say \"%s\"\n", err, why);
	CHECK(strstr(err, why) != NULL);
	CHECK(!strchr(err, '\n'));
	CHECK(r.nblocks == 0 && !r.blocks);
	etd_dump_free(d);
}

TEST(files_the_inspector_refuses)
{
	struct etd_event ev, *dbg;
	struct etd_dump d = {};
	struct etd_run *run;

	check_refused(&d, "no run has events");

	db_run(&d, "Default"); /* absent events vectors only */
	check_refused(&d, "no run has events");

	execute_run(&d, 0, 5);
	db_empty_run(&d, "Execute");
	check_refused(&d, "run_data[1] (\"Execute\") has an empty events vector");

	execute_run(&d, 0, 5);
	run = db_run(&d, "Execute");
	db_profile(run, "x", 0, 0, 0, 1);
	etd_event_init(&ev, ETD_ALLOCATION);
	db_add(run, &ev);
	check_refused(&d, "run_data[1].events[1] is an allocation event");

	run = db_run(&d, "Execute");
	db_profile(run, "x", 0, 0, 5000000000ull, 4000000000ull);
	check_refused(&d, "run_data[0].events[0] starts at 5000000000 and ends at 4000000000");

	run = db_run(&d, NULL);
	db_profile(run, "x", 0, 0, 0, 1);
	check_refused(&d, "run_data[0] has no name");

	run = db_run(&d, "Execute");
	dbg = db_debug(run, NULL, 0, 0, false);
	free(dbg->debug_entry);
	dbg->debug_entry = NULL;
	check_refused(&d, "debug event without a debug_entry");
}

TEST(counters)
{
	struct etd_dump d = {};
	struct report r = {};
	struct report_event *e;
	struct etd_run *run;
	uint64_t i;

	db_counters(&d, "task-clock", "cycles");
	for (i = 0; i < 4; i++) {
		run = db_run(&d, "Execute");
		db_event_counters(db_profile(run, "k", 0, 0, 0, 10),
				  100 + i * i, i == 2 ? ~0ull : 7);
		db_event_counters(db_profile(run, "never", 0, 1, 0, 10), ~0ull,
				  i);
		/* a delegate carries no counters */
		db_delegate(run, "d", -1, 2, 0, 10);
	}
	e = one_block(&d, &r, 3);
	if (e) {
		CHECK_EQ_INT(r.ncounters, 2);
		CHECK_EQ_STR(r.counter_names[0], "task-clock");
		CHECK_EQ_STR(r.counter_names[1], "cycles");
		/* 100 101 104 109: median (101 + 104) / 2, mean 103.5 */
		CHECK(e[0].has_counter[0]);
		CHECK(e[0].counter_p50[0] == 102.5);
		CHECK(e[0].counter_avg[0] == 103.5);
		/* run 2's value is not valid: three 7s */
		CHECK(e[0].has_counter[1]);
		CHECK(e[0].counter_p50[1] == 7 && e[0].counter_avg[1] == 7);
		CHECK(!e[1].has_counter[0]);
		CHECK(e[1].has_counter[1] && e[1].counter_p50[1] == 1.5);
		CHECK(!e[2].has_counter[0] && !e[2].has_counter[1]);
	}
	release(&d, &r);
}

int main(void)
{
	RUN(percentiles);
	RUN(mean_is_pairwise);
	RUN(wrap_rule);
	RUN(delegated_times_convert_start_and_end);
	RUN(units);
	RUN(identical_runs_merge);
	RUN(differing_runs_make_blocks);
	RUN(duplicate_signatures_collapse);
	RUN(delegate_names);
	RUN(debug_events);
	RUN(files_the_inspector_refuses);
	RUN(counters);
	return TEST_SUMMARY();
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * test_site_traps.c - what the kernel does at each symbol-mode site and
 * the traps a run takes, counted from the records as the recorder sees
 * them (user/symbol/site_traps.h).
 */
#include <stdlib.h>
#include <string.h>
#include "symbol/site_traps.h"
#include "testlib.h"

enum { EXECUTE, KERNEL, STEPPED, XNN, NOP5, LOAD, NSITES };

/* Method::execute, a kernel, a single-stepped event, an XNNPACK call
   site, a 5-byte nop entry, Program::load_method */
static void make_sites(struct symbol_sites *s)
{
	static struct symbol_site sites[NSITES];
	size_t i;

	memset(sites, 0, sizeof(sites));
	for (i = 0; i < NSITES; i++)
		sites[i].desc.id = i;
	sites[EXECUTE].desc.kind = ETDUMP_FUNC_BLOCK;
	strcpy(sites[EXECUTE].desc.arg, "Execute");
	sites[EXECUTE].desc.arg_len = 7;
	sites[KERNEL].desc.kind = ETDUMP_FUNC_KERNEL;
	sites[STEPPED].single_step = true;
	sites[XNN].desc.kind = ETDUMP_FUNC_XNN_OP;
	sites[XNN].exit_offsets[0] = 0x1005;
	sites[XNN].nexits = 1;
	sites[NOP5].optimized = true;
	sites[LOAD].desc.kind = ETDUMP_FUNC_BLOCK;
	strcpy(sites[LOAD].desc.arg, "Default");
	sites[LOAD].desc.arg_len = 7;
	memset(s, 0, sizeof(*s));
	s->sites = sites;
	s->n = NSITES;
}

TEST(each_site_as_the_kernel_takes_it)
{
	struct symbol_sites s;
	char text[256];

	make_sites(&s);
	CHECK_EQ_STR(site_treatment_name(site_traps_entry(&s.sites[KERNEL])),
		     "emulated");
	CHECK_EQ_STR(site_treatment_name(site_traps_exit(&s.sites[KERNEL])),
		     "uretprobe");
	CHECK_EQ_INT(site_traps_per_call(&s.sites[KERNEL]), 2);
	CHECK_EQ_STR(site_treatment_name(site_traps_entry(&s.sites[STEPPED])),
		     "single-stepped");
	CHECK_EQ_INT(site_traps_per_call(&s.sites[STEPPED]), 3);
	CHECK_EQ_STR(site_treatment_name(site_traps_entry(&s.sites[NOP5])),
		     "optimized nop");
	CHECK_EQ_INT(site_traps_per_call(&s.sites[NOP5]), 2);
	/* the call rel32 is emulated; the exit is judged on its own */
	CHECK_EQ_STR(site_treatment_name(site_traps_exit(&s.sites[XNN])),
		     "emulated");
	s.sites[XNN].exit_stepped = true;
	s.sites[XNN].single_step = true;
	CHECK_EQ_STR(site_treatment_name(site_traps_entry(&s.sites[XNN])),
		     "emulated");
	CHECK_EQ_STR(site_treatment_name(site_traps_exit(&s.sites[XNN])),
		     "single-stepped");
	CHECK_EQ_INT(site_traps_per_call(&s.sites[XNN]), 3);
	site_traps_describe(&s, text, sizeof(text));
	CHECK_EQ_STR(text, "6 site(s): entries 4 emulated, 1 single-stepped, 1 optimized nop; returns 5 uretprobe, 1 exit single-stepped");
}

/* the records' stamps: one ns apart, in the order fed */
static uint64_t fed_ts = 1000;

static void feed(struct site_tally *t, const struct symbol_sites *s,
		 uint32_t tid, int type, uint32_t id)
{
	struct etdump_rec_func_entry e;
	struct etdump_rec_func_exit x;

	if (type == ETDUMP_REC_FUNC_ENTRY) {
		memset(&e, 0, sizeof(e));
		e.hdr.type = type;
		e.hdr.size = sizeof(e);
		e.hdr.tid = tid;
		e.hdr.ts = fed_ts++;
		e.site = s->sites[id].desc;
		CHECK_EQ_INT(site_tally_feed(t, s, &e, sizeof(e)), 0);
		return;
	}
	memset(&x, 0, sizeof(x));
	x.hdr.type = type;
	x.hdr.size = sizeof(x);
	x.hdr.tid = tid;
	x.hdr.ts = fed_ts++;
	x.id = id;
	CHECK_EQ_INT(site_tally_feed(t, s, &x, sizeof(x)), 0);
}

static void call(struct site_tally *t, const struct symbol_sites *s,
		 uint32_t tid, uint32_t id)
{
	feed(t, s, tid, ETDUMP_REC_FUNC_ENTRY, id);
	feed(t, s, tid, ETDUMP_REC_FUNC_EXIT, id);
}

TEST(traps_per_run_from_the_records)
{
	struct site_tally t = { 0 };
	struct symbol_sites s;
	char text[512];
	int i;

	make_sites(&s);
	call(&t, &s, 7, LOAD);
	for (i = 0; i < 3; i++) {
		feed(&t, &s, 7, ETDUMP_REC_FUNC_ENTRY, EXECUTE);
		call(&t, &s, 7, KERNEL);
		call(&t, &s, 7, STEPPED);
		call(&t, &s, 7, XNN);
		/* another thread outside any run: not an execution's */
		call(&t, &s, 8, KERNEL);
		feed(&t, &s, 7, ETDUMP_REC_FUNC_EXIT, EXECUTE);
	}
	/* a run still open when the recording ends is not counted */
	feed(&t, &s, 7, ETDUMP_REC_FUNC_ENTRY, EXECUTE);
	call(&t, &s, 7, STEPPED);
	site_tally_describe(&t, text, sizeof(text));
	/* 2 (execute) + 2 + 3 + 2 */
	CHECK_EQ_STR(text, "9 traps per 'Execute' run (1 single-stepped hits), 2 traps per 'Default' run (0 single-stepped hits)");
	CHECK_EQ_INT(t.outside, 6);
	site_tally_free(&t);
}

TEST(no_run_closed_nothing_said)
{
	struct site_tally t = { 0 };
	struct symbol_sites s;
	char text[64] = "x";

	make_sites(&s);
	feed(&t, &s, 7, ETDUMP_REC_FUNC_ENTRY, EXECUTE);
	call(&t, &s, 7, KERNEL);
	site_tally_describe(&t, text, sizeof(text));
	CHECK_EQ_STR(text, "");
	site_tally_free(&t);
}

/*
 * record --duty puts the probes back one by one: a run opened before the
 * last was in place took fewer traps (here its kernel's probe was not in
 * yet), and is left out of the count as the collector leaves it out.
 */
TEST(runs_opened_before_every_probe_was_in_are_not_counted)
{
	struct site_tally t = { 0 };
	struct symbol_sites s;
	char text[256];

	make_sites(&s);
	site_tally_set_start(&t, UINT64_MAX);
	feed(&t, &s, 7, ETDUMP_REC_FUNC_ENTRY, EXECUTE);
	site_tally_set_start(&t, fed_ts);
	call(&t, &s, 7, KERNEL);
	feed(&t, &s, 7, ETDUMP_REC_FUNC_EXIT, EXECUTE);
	site_tally_describe(&t, text, sizeof(text));
	CHECK_EQ_STR(text, "");
	feed(&t, &s, 7, ETDUMP_REC_FUNC_ENTRY, EXECUTE);
	call(&t, &s, 7, KERNEL);
	feed(&t, &s, 7, ETDUMP_REC_FUNC_EXIT, EXECUTE);
	site_tally_describe(&t, text, sizeof(text));
	CHECK_EQ_STR(text, "4 traps per 'Execute' run (0 single-stepped hits)");
	site_tally_free(&t);
}

/*
 * One trap a kernel: its return is probed in the first runs alone, to
 * measure the gap after it; those runs are said apart, and a run during
 * which the returns came out (some kernels' returns seen, not all) is
 * neither kind.
 */
TEST(runs_that_measured_the_gaps_and_one_cut_by_their_removal)
{
	struct site_tally t = { 0 };
	struct symbol_sites s;
	char text[256];
	int i;

	make_sites(&s);
	s.sites[KERNEL].ends_at_next = true;
	for (i = 0; i < 2; i++) {       /* both returns probed */
		feed(&t, &s, 7, ETDUMP_REC_FUNC_ENTRY, EXECUTE);
		call(&t, &s, 7, KERNEL);
		call(&t, &s, 7, KERNEL);
		feed(&t, &s, 7, ETDUMP_REC_FUNC_EXIT, EXECUTE);
	}
	/* the returns come out between the two calls */
	feed(&t, &s, 7, ETDUMP_REC_FUNC_ENTRY, EXECUTE);
	call(&t, &s, 7, KERNEL);
	feed(&t, &s, 7, ETDUMP_REC_FUNC_ENTRY, KERNEL);
	feed(&t, &s, 7, ETDUMP_REC_FUNC_EXIT, EXECUTE);
	for (i = 0; i < 3; i++) {       /* an entry a call */
		feed(&t, &s, 7, ETDUMP_REC_FUNC_ENTRY, EXECUTE);
		feed(&t, &s, 7, ETDUMP_REC_FUNC_ENTRY, KERNEL);
		feed(&t, &s, 7, ETDUMP_REC_FUNC_ENTRY, KERNEL);
		feed(&t, &s, 7, ETDUMP_REC_FUNC_EXIT, EXECUTE);
	}
	site_tally_describe(&t, text, sizeof(text));
	CHECK_EQ_STR(text, "4 traps per 'Execute' run (0 single-stepped hits) and 6 in the 2 run(s) that measured the gaps");
	site_tally_free(&t);
}

/* aarch64: one function stepped, one probed on its two rets */
TEST(aarch64_sites_in_its_words)
{
	static struct symbol_site sites[3];
	struct symbol_sites s = { .sites = sites, .n = 3 };
	struct site_tally t = { 0 };
	char text[256];

	memset(sites, 0, sizeof(sites));
	sites[0].desc.id = 0;
	sites[0].desc.kind = ETDUMP_FUNC_BLOCK;
	strcpy(sites[0].desc.arg, "Execute");
	sites[0].desc.arg_len = 7;
	sites[0].single_step = true;
	sites[1].desc.id = 1;
	sites[1].desc.kind = ETDUMP_FUNC_KERNEL;
	sites[1].nexits = 2;
	sites[1].exit_offsets[0] = 0x40a48;
	sites[1].exit_offsets[1] = 0x40b48;
	sites[2] = sites[1];
	sites[2].desc.id = 2;
	sites[2].nexits = 1;
	sites[0].aarch64 = sites[1].aarch64 = sites[2].aarch64 = true;
	CHECK_EQ_STR(site_treatment_name(site_traps_entry(&sites[0])),
		     "single-stepped");
	CHECK_EQ_STR(site_treatment_name(site_traps_exit(&sites[0])),
		     "uretprobe");
	CHECK_EQ_INT(site_traps_per_call(&sites[0]), 3);
	CHECK_EQ_STR(site_treatment_name(site_traps_entry(&sites[1])),
		     "simulated");
	CHECK_EQ_STR(site_treatment_name(site_traps_exit(&sites[1])),
		     "simulated");
	CHECK_EQ_INT(site_traps_per_call(&sites[1]), 2);
	CHECK_EQ_INT(site_traps_stepped(&sites[1]), 0);
	site_traps_describe(&s, text, sizeof(text));
	CHECK_EQ_STR(text, "3 site(s): entries 2 simulated, 1 single-stepped; returns 1 uretprobe, 2 exit simulated (3 exit probes)");
	/* a call leaves by one of its rets: one exit record */
	feed(&t, &s, 7, ETDUMP_REC_FUNC_ENTRY, 0);
	call(&t, &s, 7, 1);
	call(&t, &s, 7, 2);
	feed(&t, &s, 7, ETDUMP_REC_FUNC_EXIT, 0);
	site_tally_describe(&t, text, sizeof(text));
	CHECK_EQ_STR(text, "7 traps per 'Execute' run (1 single-stepped hits)");
	site_tally_free(&t);
}

int main(void)
{
	RUN(each_site_as_the_kernel_takes_it);
	RUN(traps_per_run_from_the_records);
	RUN(no_run_closed_nothing_said);
	RUN(runs_opened_before_every_probe_was_in_are_not_counted);
	RUN(runs_that_measured_the_gaps_and_one_cut_by_their_removal);
	RUN(aarch64_sites_in_its_words);
	return TEST_SUMMARY();
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * The collector's rules, fed synthetic records: what ETDumpGen would write
 * for the same calls, per thread, and what an incomplete capture leaves out.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "collect/collector.h"
#include "schema/etdump_record.h"
#include "testlib.h"

static uint64_t clock_ns = 1000;

static void hdr(struct etdump_rec_hdr *h, uint8_t type, uint16_t size,
		uint32_t tid)
{
	h->type = type;
	h->size = size;
	h->pid = 42;
	h->tid = tid;
	h->ts = clock_ns;
	clock_ns += 10;
}

static void block(struct collector *c, uint32_t tid, const char *name)
{
	struct etdump_rec_block r = { 0 };

	hdr(&r.hdr, ETDUMP_REC_BLOCK, sizeof(r), tid);
	r.name_len = strlen(name);
	memcpy(r.name, name, r.name_len);
	CHECK_EQ_INT(collector_feed(c, &r, sizeof(r)), 0);
}

static void begin_flagged(struct collector *c, uint32_t tid, const char *name,
			  int chain, int instr, uint16_t flags)
{
	struct etdump_rec_begin r = { 0 };

	hdr(&r.hdr, ETDUMP_REC_PROFILE_BEGIN, sizeof(r), tid);
	r.hdr.flags = flags;
	r.token = (uintptr_t)name;
	r.chain = chain;
	r.instr = instr;
	r.id_int = -1;
	r.name_len = strlen(name);
	memcpy(r.name, name, r.name_len);
	CHECK_EQ_INT(collector_feed(c, &r, sizeof(r)), 0);
}

static void begin(struct collector *c, uint32_t tid, const char *name,
		  int chain, int instr)
{
	begin_flagged(c, tid, name, chain, instr, 0);
}

static void end_flagged(struct collector *c, uint32_t tid, const char *name,
			uint16_t flags)
{
	struct etdump_rec_end r = { 0 };

	hdr(&r.hdr, ETDUMP_REC_PROFILE_END, sizeof(r), tid);
	r.hdr.flags = flags;
	r.token = (uintptr_t)name;
	CHECK_EQ_INT(collector_feed(c, &r, sizeof(r)), 0);
}

static void end(struct collector *c, uint32_t tid, const char *name)
{
	end_flagged(c, tid, name, 0);
}

static void instruction(struct collector *c, uint32_t tid, int chain, int instr)
{
	struct etdump_rec_instruction r = { 0 };

	hdr(&r.hdr, ETDUMP_REC_INSTRUCTION, sizeof(r), tid);
	r.chain = chain;
	r.instr = instr;
	CHECK_EQ_INT(collector_feed(c, &r, sizeof(r)), 0);
}

static const char *const EXEC = "Method::execute";
static const char *const OP = "OPERATOR_CALL";
static const char *const ADD = "native_call_add.out";

/* The instructions of a run begun already: its events but its block's. */
static void execute_rest(struct collector *c, uint32_t tid, int ninstr)
{
	int k;

	for (k = 0; k < ninstr; k++) {
		instruction(c, tid, 0, k);
		begin(c, tid, OP, -1, 0);
		begin(c, tid, ADD, -1, 0);
		end(c, tid, ADD);
		end(c, tid, OP);
		instruction(c, tid, -1, 0);
	}
	end(c, tid, EXEC);
}

/* One Execute run with `ninstr` kernel instructions on a thread. */
static void execute(struct collector *c, uint32_t tid, int ninstr)
{
	block(c, tid, "Execute");
	begin(c, tid, EXEC, -1, 0);
	execute_rest(c, tid, ninstr);
}


static struct etd_dump finish(struct collector *c, struct collector_stats *st)
{
	struct etd_dump d = { 0 };

	CHECK_EQ_INT(collector_finish(c, &d, st), 0);
	collector_free(c);
	return d;
}

TEST(events_in_end_order_with_instruction_state)
{
	struct collector *c = collector_new();
	struct collector_stats st;
	struct etd_dump d;
	struct etd_run *r;

	execute(c, 7, 2);
	d = finish(c, &st);
	CHECK_EQ_INT(d.nruns, 1);
	r = &d.runs[0];
	CHECK_EQ_STR(r->name, "Execute");
	CHECK_EQ_INT(r->nevents, 5);
	CHECK_EQ_STR(r->events[0].name, ADD);
	CHECK_EQ_INT(r->events[0].chain_index, 0);
	CHECK_EQ_INT(r->events[0].instruction_id, 0);
	CHECK_EQ_STR(r->events[1].name, OP);
	CHECK_EQ_STR(r->events[2].name, ADD);
	CHECK_EQ_INT(r->events[2].instruction_id, 1);
	CHECK_EQ_STR(r->events[4].name, EXEC);
	CHECK_EQ_INT(r->events[4].chain_index, -1);
	CHECK_EQ_INT(r->events[4].instruction_id, 0);
	CHECK(r->events[4].start_time < r->events[0].start_time);
	CHECK(r->events[4].end_time > r->events[3].end_time);
	CHECK_EQ_INT(st.events, 5);
	etd_dump_free(&d);
}

TEST(explicit_chain_overrides_state)
{
	struct collector *c = collector_new();
	struct etd_dump d;

	block(c, 1, "Default");
	instruction(c, 1, 3, 9);
	begin(c, 1, "x", 2, 5);
	end(c, 1, "x");
	d = finish(c, NULL);
	CHECK_EQ_INT(d.runs[0].events[0].chain_index, 2);
	CHECK_EQ_INT(d.runs[0].events[0].instruction_id, 5);
	etd_dump_free(&d);
}

TEST(threads_keep_their_own_runs_in_time_order)
{
	struct collector *c = collector_new();
	struct collector_stats st;
	struct etd_dump d;
	size_t i;

	/* interleave two threads record by record */
	block(c, 1, "Execute");
	block(c, 2, "Execute");
	begin(c, 1, EXEC, -1, 0);
	begin(c, 2, EXEC, -1, 0);
	instruction(c, 2, 0, 4);
	begin(c, 1, OP, -1, 0);
	begin(c, 2, OP, -1, 0);
	end(c, 2, OP);
	end(c, 1, OP);
	end(c, 1, EXEC);
	end(c, 2, EXEC);
	d = finish(c, &st);
	CHECK_EQ_INT(d.nruns, 2);
	CHECK_EQ_INT(st.threads, 2);
	CHECK_EQ_INT(d.runs[0].tid, 1);
	CHECK_EQ_INT(d.runs[1].tid, 2);
	for (i = 0; i < 2; i++)
		CHECK_EQ_INT(d.runs[i].nevents, 2);
	/* thread 1 never set an instruction: its OPERATOR_CALL stays (-1, 0) */
	CHECK_EQ_INT(d.runs[0].events[0].instruction_id, 0);
	CHECK_EQ_INT(d.runs[1].events[0].instruction_id, 4);
	etd_dump_free(&d);
}

TEST(run_still_open_at_the_end_is_left_out)
{
	struct collector *c = collector_new();
	struct collector_stats st;
	struct etd_dump d;

	execute(c, 1, 1);
	block(c, 1, "Execute");
	begin(c, 1, EXEC, -1, 0);
	begin(c, 1, OP, -1, 0);
	end(c, 1, OP);
	d = finish(c, &st);
	CHECK_EQ_INT(d.nruns, 1);
	CHECK_EQ_INT(st.incomplete_runs, 1);
	CHECK_EQ_INT(st.events, 3);
	etd_dump_free(&d);
}

TEST(attached_mid_run_events_before_first_block_are_counted)
{
	struct collector *c = collector_new();
	struct collector_stats st;
	struct etd_dump d;

	/* the capture starts inside an execution: its begin was missed */
	begin(c, 1, OP, -1, 0);
	end(c, 1, OP);
	end(c, 1, EXEC);
	execute(c, 1, 1);
	d = finish(c, &st);
	CHECK_EQ_INT(d.nruns, 1);
	CHECK_EQ_INT(st.outside_run, 1);
	CHECK_EQ_INT(st.unmatched_ends, 1);
	etd_dump_free(&d);
}

/* A run opened while probes were still attaching may miss events. */
TEST(runs_opened_before_every_probe_attached_are_left_out)
{
	struct collector *c = collector_new();
	struct collector_stats st;
	struct etd_dump d;

	/* the first execute's 15 records are stamped before the start */
	collector_set_start(c, clock_ns + 15 * 10);
	execute(c, 1, 2);
	execute(c, 1, 1);
	d = finish(c, &st);
	CHECK_EQ_INT(d.nruns, 1);
	CHECK_EQ_INT(d.runs[0].nevents, 3);
	CHECK_EQ_INT(st.outside_run, 5);
	etd_dump_free(&d);
}

TEST(delegate_scope_and_log)
{
	struct collector *c = collector_new();
	struct etdump_rec_delegate_log log = { 0 };
	struct etdump_rec_begin b = { 0 };
	struct etdump_rec_end e = { 0 };
	struct etd_dump d;
	struct etd_event *ev;

	block(c, 1, "Execute");
	instruction(c, 1, 0, 3);
	hdr(&log.hdr, ETDUMP_REC_DELEGATE_LOG, sizeof(log), 1);
	log.start = 5;
	log.end = 9;
	log.id_int = -1;
	log.name_len = 9;
	memcpy(log.name, "linear #0", 9);
	log.meta_len = log.meta_len_orig = 2;
	log.meta[0] = 0xab;
	CHECK_EQ_INT(collector_feed(c, &log, sizeof(log)), 0);
	hdr(&b.hdr, ETDUMP_REC_DELEGATE_BEGIN, sizeof(b), 1);
	b.id_int = 7;
	CHECK_EQ_INT(collector_feed(c, &b, sizeof(b)), 0);
	hdr(&e.hdr, ETDUMP_REC_DELEGATE_END, sizeof(e), 1);
	e.meta_len = 4;
	e.meta_len_orig = 100; /* cut by the kernel side */
	memcpy(e.meta, "fp32", 4);
	CHECK_EQ_INT(collector_feed(c, &e, sizeof(e)), 0);
	d = finish(c, NULL);
	CHECK_EQ_INT(d.runs[0].nevents, 2);
	ev = &d.runs[0].events[0];
	CHECK(ev->name == NULL);
	CHECK_EQ_STR(ev->delegate_id_str, "linear #0");
	CHECK_EQ_INT(ev->delegate_id_int, -1);
	CHECK_EQ_INT(ev->start_time, 5);
	CHECK_EQ_INT(ev->end_time, 9);
	CHECK_EQ_INT(ev->instruction_id, 3);
	CHECK(ev->has_metadata && ev->metadata_len == 2 && ev->metadata[0] == 0xab);
	ev = &d.runs[0].events[1];
	CHECK(ev->delegate_id_str == NULL);
	CHECK_EQ_INT(ev->delegate_id_int, 7);
	CHECK(ev->has_metadata && ev->metadata_len == 4 &&
	      !memcmp(ev->metadata, "fp32", 4));
	etd_dump_free(&d);
}

/* A worker's delegate event keeps its metadata as it joins the run. */
TEST(a_workers_delegate_event_keeps_its_metadata)
{
	struct collector *c = collector_new();
	struct etdump_rec_delegate_log log = { 0 };
	struct etd_dump d;
	struct etd_event *ev;

	block(c, 1, "Execute");
	hdr(&log.hdr, ETDUMP_REC_DELEGATE_LOG, sizeof(log), 9);
	log.start = 5;
	log.end = 9;
	log.id_int = 3;
	log.meta_len = log.meta_len_orig = 4;
	memcpy(log.meta, "fp16", 4);
	CHECK_EQ_INT(collector_feed(c, &log, sizeof(log)), 0);
	d = finish(c, NULL);
	CHECK_EQ_INT(d.nruns, 1);
	CHECK_EQ_INT(d.runs[0].nevents, 1);
	ev = &d.runs[0].events[0];
	CHECK_EQ_INT(ev->tid, 9);
	CHECK_EQ_INT(ev->delegate_id_int, 3);
	CHECK(ev->has_metadata && ev->metadata_len == 4 &&
	      !memcmp(ev->metadata, "fp16", 4));
	etd_dump_free(&d);
}

TEST(malformed_records_are_refused_and_counted)
{
	struct collector *c = collector_new();
	struct etdump_rec_block r = { 0 };
	struct collector_stats st;
	struct etd_dump d;

	hdr(&r.hdr, ETDUMP_REC_BLOCK, sizeof(r), 1);
	CHECK(collector_feed(c, &r, 8) < 0);            /* shorter than a header */
	r.hdr.size = sizeof(r) + 1;                      /* claims more than given */
	CHECK(collector_feed(c, &r, sizeof(r)) < 0);
	r.hdr.type = 200;                                /* unknown type */
	r.hdr.size = sizeof(r);
	CHECK(collector_feed(c, &r, sizeof(r)) < 0);
	d = finish(c, &st);
	CHECK_EQ_INT(st.bad_records, 3);
	CHECK_EQ_INT(d.nruns, 0);
	etd_dump_free(&d);
}

/* Found by tests/fuzz/fuzz_collector.c; each record in a block its size. */
TEST(records_past_their_length_or_without_ids_are_refused)
{
	struct collector *c = collector_new();
	size_t short_len = offsetof(struct etdump_rec_begin, counters) +
			   sizeof(struct etdump_counter_sample);
	struct etdump_rec_delegate_log log = { 0 };
	struct etdump_rec_begin b = { 0 }, *copy;
	struct collector_stats st;
	struct etd_dump d;

	block(c, 1, "Execute");
	/* announces two counter samples, carries one */
	hdr(&b.hdr, ETDUMP_REC_PROFILE_BEGIN, short_len, 1);
	b.hdr.ncounters = 2;
	b.token = 1;
	copy = malloc(short_len);
	memcpy(copy, &b, short_len);
	CHECK(collector_feed(c, copy, short_len) < 0);
	free(copy);
	/* a delegate with neither id would pass for a framework event */
	hdr(&b.hdr, ETDUMP_REC_DELEGATE_BEGIN, sizeof(b), 1);
	b.token = 0;
	b.id_int = -1;
	CHECK(collector_feed(c, &b, sizeof(b)) < 0);
	b.id_int = 0x1ffffffffll; /* -1 as the ETDump's int32 */
	CHECK(collector_feed(c, &b, sizeof(b)) < 0);
	hdr(&log.hdr, ETDUMP_REC_DELEGATE_LOG, sizeof(log), 1);
	log.id_int = -1;
	CHECK(collector_feed(c, &log, sizeof(log)) < 0);
	d = finish(c, &st);
	CHECK_EQ_INT(st.bad_records, 4);
	CHECK_EQ_INT(d.nruns, 0);
	etd_dump_free(&d);
}

TEST(invalid_utf8_names_are_made_valid)
{
	struct collector *c = collector_new();
	struct etd_dump d;
	const char *bad = "op\xff\xfe";

	block(c, 1, "Execute");
	begin(c, 1, bad, -1, 0);
	end(c, 1, bad);
	d = finish(c, NULL);
	CHECK_EQ_STR(d.runs[0].events[0].name, "op??");
	etd_dump_free(&d);
}

/*
 * A pool worker never opens a run: its events go into the run open in the
 * process when they ended, in the order of their ends among that run's
 * own (as ETDumpGen writes them), marked with its thread.
 */
TEST(worker_events_join_the_run_open_when_they_end)
{
	struct collector *c = collector_new();
	static const char *const WORK = "pool_work";
	struct collector_stats st;
	struct etd_dump d;
	struct etd_run *r;

	begin(c, 9, WORK, 0, 0);    /* before any run: nowhere to go */
	end(c, 9, WORK);
	block(c, 1, "Execute");
	begin(c, 9, WORK, 0, 1);
	end(c, 9, WORK);
	begin(c, 1, EXEC, -1, 0);
	end(c, 1, EXEC);
	block(c, 1, "Execute");
	begin(c, 9, WORK, 0, 2);
	end(c, 9, WORK);
	d = finish(c, &st);
	CHECK_EQ_INT(d.nruns, 2);
	r = &d.runs[0];
	CHECK_EQ_INT(r->nevents, 2);
	CHECK_EQ_STR(r->events[0].name, WORK);
	CHECK_EQ_INT(r->events[0].instruction_id, 1);
	CHECK_EQ_INT(r->events[0].tid, 9);
	CHECK_EQ_STR(r->events[1].name, EXEC);
	CHECK_EQ_INT(r->events[1].tid, 0);
	r = &d.runs[1];
	CHECK_EQ_INT(r->nevents, 1);
	CHECK_EQ_INT(r->events[0].instruction_id, 2);
	CHECK_EQ_INT(st.worker_events, 2);
	CHECK_EQ_INT(st.worker_threads, 1);
	CHECK_EQ_INT(st.outside_run, 1);
	etd_dump_free(&d);
}

/* A thread that opens a run later was attached mid-run: its past is lost. */
TEST(events_before_a_later_first_block_are_not_a_workers)
{
	struct collector *c = collector_new();
	struct collector_stats st;
	struct etd_dump d;

	execute(c, 1, 1);
	begin(c, 2, OP, -1, 0);
	end(c, 2, OP);
	execute(c, 2, 1);
	d = finish(c, &st);
	CHECK_EQ_INT(d.nruns, 2);
	CHECK_EQ_INT(d.runs[0].nevents, 3);
	CHECK_EQ_INT(d.runs[1].nevents, 3);
	CHECK_EQ_INT(st.worker_events, 0);
	CHECK_EQ_INT(st.outside_run, 1);
	etd_dump_free(&d);
}

/*
 * The kernel flags a thread's first record after a loss: a lost block
 * would have merged its run's events into the previous run; that run and
 * the next, whose first ids rest on an instruction state the loss may have
 * changed, are left out.
 */
TEST(runs_that_lost_records_are_left_out)
{
	struct collector *c = collector_new();
	struct collector_stats st;
	struct etd_dump d;

	execute(c, 1, 1);
	execute(c, 1, 1);
	/* the third run's block and first records were lost */
	begin_flagged(c, 1, OP, -1, 0, ETDUMP_REC_F_LOST_BEFORE);
	end(c, 1, OP);
	end(c, 1, EXEC);
	/* its Method::execute takes a state the loss may have changed */
	execute(c, 1, 1);
	execute(c, 1, 2);
	d = finish(c, &st);
	CHECK_EQ_INT(d.nruns, 2);
	CHECK_EQ_INT(d.runs[0].nevents, 3);
	CHECK_EQ_INT(d.runs[1].nevents, 5);
	CHECK_EQ_INT(st.lost_runs, 2);
	etd_dump_free(&d);
}

/*
 * A thread whose first block the ring lost is in a run the collector never
 * saw open: its events are that run's, not a worker's to put into the run
 * another thread has open, and that run is left out.
 */
TEST(a_thread_that_lost_its_first_block_lends_nothing)
{
	struct collector *c = collector_new();
	struct collector_stats st;
	struct etd_dump d;

	block(c, 1, "Execute");
	begin(c, 1, EXEC, -1, 0);
	/* thread 2: its block lost, the rest of its only run arrives */
	begin_flagged(c, 2, EXEC, -1, 0,
		      ETDUMP_REC_F_LOST_BEFORE | ETDUMP_REC_F_LOST_BLOCK);
	execute_rest(c, 2, 1);
	execute_rest(c, 1, 1);
	execute(c, 1, 1);
	d = finish(c, &st);
	CHECK_EQ_INT(d.nruns, 2);
	CHECK_EQ_INT(d.runs[0].nevents, 3);
	CHECK_EQ_INT(d.runs[1].nevents, 3);
	CHECK_EQ_INT(st.worker_events, 0);
	CHECK_EQ_INT(st.lost_runs, 1);
	/* its Method::execute took a state the loss may have changed */
	CHECK_EQ_INT(st.left_out, 3);
	etd_dump_free(&d);
}

/* The recorder's word, at the end, that the ring lost tid's last records. */
static void lost_tail(struct collector *c, uint32_t tid, uint16_t flags)
{
	struct etdump_rec_lost_tail r = { 0 };

	hdr(&r.hdr, ETDUMP_REC_LOST_TAIL, sizeof(r), tid);
	r.hdr.flags = flags;
	CHECK_EQ_INT(collector_feed(c, &r, sizeof(r)), 0);
}

/* A run of two scopes side by side, no scope around them. */
static void flat_run(struct collector *c, uint32_t tid)
{
	block(c, tid, "Execute");
	begin(c, tid, OP, -1, 0);
	end(c, tid, OP);
	begin(c, tid, ADD, -1, 0);
	end(c, tid, ADD);
}

/*
 * The ring lost a thread's last records and nothing of the thread came
 * after to say so: its last run, all its scopes closed, may have lost
 * scopes of its own (left out), unless the first record lost was the next
 * run's block (whole).
 */
TEST(a_run_whose_end_the_ring_lost_is_left_out)
{
	static const uint16_t lost_block = ETDUMP_REC_F_LOST_BEFORE |
					   ETDUMP_REC_F_LOST_BLOCK;
	/* thread 1's first run, and thread 3's whole one */
	static const uint32_t kept[] = { 1, 3 };
	struct collector *c = collector_new();
	struct collector_stats st;
	struct etd_dump d;
	size_t i;

	flat_run(c, 1);
	flat_run(c, 1);
	lost_tail(c, 1, ETDUMP_REC_F_LOST_BEFORE);
	flat_run(c, 2);
	lost_tail(c, 2, lost_block);
	flat_run(c, 3);
	lost_tail(c, 3, lost_block | ETDUMP_REC_F_LOST_CLEAN);
	d = finish(c, &st);
	CHECK_EQ_INT(st.lost_runs, 2);
	CHECK_EQ_INT(d.nruns, 2);
	for (i = 0; i < d.nruns && i < 2; i++)
		CHECK_EQ_INT(d.runs[i].tid, kept[i]);
	etd_dump_free(&d);
}

/*
 * A thread's name, from the probes: its runs' outermost events say it, a
 * ';' of it written ','.
 */
TEST(runs_name_their_thread_in_their_note)
{
	static const char note[] = "etdump-bpf-thread:1;thread=w,1";
	struct etdump_rec_thread_name n = { 0 };
	struct collector *c = collector_new();
	struct collector_stats st;
	const struct etd_event *ev;
	struct etd_dump d;

	hdr(&n.hdr, ETDUMP_REC_THREAD_NAME, sizeof(n), 1);
	memcpy(n.name, "w;1", 3);
	CHECK_EQ_INT(collector_feed(c, &n, sizeof(n)), 0);
	execute(c, 1, 1);
	execute(c, 2, 1);
	d = finish(c, &st);
	CHECK_EQ_INT(d.nruns, 2);
	ev = &d.runs[0].events[d.runs[0].nevents - 1];
	CHECK(ev->has_metadata && ev->metadata_len == strlen(note) &&
	      !memcmp(ev->metadata, note, strlen(note)));
	/* a thread that said no name: no note */
	CHECK(!d.runs[1].events[d.runs[1].nevents - 1].has_metadata);
	/* inner events carry none */
	CHECK(!d.runs[0].events[0].has_metadata);
	etd_dump_free(&d);
}

/* The note made once a thread is said again when its name or the runs' note changes. */
TEST(a_renamed_threads_next_runs_say_its_new_name)
{
	static const char *const want[] = {
		"etdump-bpf-thread:1;thread=a", "etdump-bpf-thread:1;thread=a",
		"etdump-bpf-thread:1;thread=b", NULL };
	struct etdump_rec_thread_name n = { 0 };
	struct collector *c = collector_new();
	struct collector_stats st;
	const struct etd_event *ev;
	struct etd_dump d;
	size_t i;

	hdr(&n.hdr, ETDUMP_REC_THREAD_NAME, sizeof(n), 1);
	n.name[0] = 'a';
	CHECK_EQ_INT(collector_feed(c, &n, sizeof(n)), 0);
	execute(c, 1, 1);
	execute(c, 1, 1);
	n.name[0] = 'b';
	CHECK_EQ_INT(collector_feed(c, &n, sizeof(n)), 0);
	execute(c, 1, 1);
	CHECK_EQ_INT(collector_set_run_note(c, "etdump-bpf-every:1;every=2"), 0);
	execute(c, 1, 1);
	d = finish(c, &st);
	CHECK_EQ_INT(d.nruns, 4);
	for (i = 0; i < 4 && d.nruns == 4; i++) {
		const char *note = want[i] ? want[i] :
				   "etdump-bpf-every:1;every=2;thread=b";

		ev = &d.runs[i].events[d.runs[i].nevents - 1];
		CHECK(ev->has_metadata && ev->metadata_len == strlen(note) &&
		      !memcmp(ev->metadata, note, strlen(note)));
		CHECK(ev->name && !strcmp(ev->name, EXEC));
	}
	etd_dump_free(&d);
}

/*
 * A worker's end after a loss may close another job's scope (this one's
 * end lost, the next one's begin): that event is left out alone, and the
 * worker's next whole job joins the open run as before.
 */
TEST(a_workers_event_across_a_loss_is_left_out_alone)
{
	static const char *const JOB = "pool_job";
	struct collector *c = collector_new();
	struct collector_stats st;
	struct etd_dump d;

	block(c, 1, "Execute");
	begin(c, 1, EXEC, -1, 0);
	instruction(c, 3, 0, 0);
	begin(c, 3, JOB, -1, 0);
	/* lost: that end, the next job's instruction and begin */
	end_flagged(c, 3, JOB, ETDUMP_REC_F_LOST_BEFORE);
	instruction(c, 3, -1, 0);
	instruction(c, 3, 0, 1);
	begin(c, 3, JOB, -1, 0);
	end(c, 3, JOB);
	execute_rest(c, 1, 1);
	execute(c, 1, 1);
	d = finish(c, &st);
	CHECK_EQ_INT(d.nruns, 2);
	CHECK_EQ_INT(d.runs[0].nevents, 4);
	/* it ended before any of the run's own */
	CHECK_EQ_STR(d.runs[0].events[0].name, JOB);
	CHECK_EQ_INT(d.runs[0].events[0].instruction_id, 1);
	CHECK_EQ_INT(st.worker_events, 1);
	CHECK_EQ_INT(st.doubtful_unowned, 1);
	CHECK_EQ_INT(st.outside_run, 0);
	etd_dump_free(&d);
}

static void count_event(void *ctx, const struct etd_event *ev, uint32_t tid,
			const char *thread)
{
	(void)ev;
	(void)tid;
	(void)thread;
	(*(int *)ctx)++;
}

/*
 * The live view sees what a run may take: a delegate log written before
 * every probe was in place (its scope's batched events are stale) is not
 * shown, or a table would count more delegate events than executions.
 */
TEST(the_event_hook_sees_nothing_before_the_start)
{
	struct collector *c = collector_new();
	struct etdump_rec_delegate_log log = { 0 };
	int seen = 0;

	collector_set_event_hook(c, count_event, &seen);
	hdr(&log.hdr, ETDUMP_REC_DELEGATE_LOG, sizeof(log), 1);
	log.id_int = 3;
	collector_set_start(c, clock_ns);
	CHECK_EQ_INT(collector_feed(c, &log, sizeof(log)), 0);
	CHECK_EQ_INT(seen, 0);
	execute(c, 1, 1);
	CHECK_EQ_INT(seen, 3);
	collector_free(c);
}

/*
 * record --duty: the probes go (a gap on each side of their removal) and
 * come back. Only whole executions stay; the ones cut are counted, and
 * what the cut ones sent is counted with them, not as attached mid-run.
 */
TEST(gap_keeps_whole_runs_and_counts_cut_ones)
{
	struct collector *c = collector_new();
	struct collector_stats st;
	struct etd_dump d;

	execute(c, 7, 2);               /* whole before the gap: kept */
	block(c, 7, "Execute");         /* cut by the removal */
	begin(c, 7, EXEC, -1, 0);
	instruction(c, 7, 0, 0);
	collector_set_start(c, UINT64_MAX);
	CHECK_EQ_INT(collector_gap(c), 0);
	/* begun while the probes went: cut, however whole it looks */
	execute(c, 7, 2);
	CHECK_EQ_INT(collector_gap(c), 0);
	/* back mid-execution: its rest, then whole ones */
	collector_set_start(c, clock_ns);
	execute_rest(c, 7, 1);
	execute(c, 7, 2);
	execute(c, 7, 2);
	d = finish(c, &st);
	CHECK_EQ_INT(d.nruns, 3);
	CHECK_EQ_INT(st.runs, 3);
	CHECK_EQ_INT(st.cut_runs, 3);
	CHECK_EQ_INT(st.incomplete_runs, 0);
	CHECK_EQ_INT(st.outside_run, 0);
	CHECK_EQ_INT(st.unmatched_ends, 0);
	CHECK_EQ_INT(st.unclosed_scopes, 0);
	/* the rest's OPERATOR_CALL and kernel, and the cut one's */
	CHECK(st.cut_events >= 2);
	etd_dump_free(&d);
}

int main(void)
{
	RUN(events_in_end_order_with_instruction_state);
	RUN(gap_keeps_whole_runs_and_counts_cut_ones);
	RUN(explicit_chain_overrides_state);
	RUN(threads_keep_their_own_runs_in_time_order);
	RUN(run_still_open_at_the_end_is_left_out);
	RUN(attached_mid_run_events_before_first_block_are_counted);
	RUN(runs_opened_before_every_probe_attached_are_left_out);
	RUN(delegate_scope_and_log);
	RUN(a_workers_delegate_event_keeps_its_metadata);
	RUN(malformed_records_are_refused_and_counted);
	RUN(records_past_their_length_or_without_ids_are_refused);
	RUN(invalid_utf8_names_are_made_valid);
	RUN(worker_events_join_the_run_open_when_they_end);
	RUN(events_before_a_later_first_block_are_not_a_workers);
	RUN(runs_that_lost_records_are_left_out);
	RUN(a_thread_that_lost_its_first_block_lends_nothing);
	RUN(a_workers_event_across_a_loss_is_left_out_alone);
	RUN(a_run_whose_end_the_ring_lost_is_left_out);
	RUN(runs_name_their_thread_in_their_note);
	RUN(a_renamed_threads_next_runs_say_its_new_name);
	RUN(the_event_hook_sees_nothing_before_the_start);
	return TEST_SUMMARY();
}

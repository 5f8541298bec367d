// SPDX-License-Identifier: BSD-3-Clause
/*
 * cmd_record.c - `etdump-bpf record`: attach to a process's etdump probes,
 * collect until it exits, a duration passes or we are told to stop, and
 * write the ETDump. The steps in order are here; the options, the
 * target, the loop and the outputs are record.h's.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "capture/attach_at_exec.h"
#include "capture/kernel_clock.h"
#include "capture/late_followed.h"
#include "capture/late_libraries.h"
#include "capture/kernel_features.h"
#include "capture/tracefs_leftovers.h"
#include "cli/commands.h"
#include "cli/record.h"
#include "cli/record_every.h"
#include "cli/record_repeat.h"
#include "lib/clock.h"
#include "lib/file_io.h"
#include "lib/huge_pages.h"
#include "lib/log.h"
#include "report/report_memory.h"
#include "target/every_word.h"
#include "target/privileges.h"
#include "write/loss_summary.h"
#include "write/raw_threads.h"
#include "write/stdout_output.h"
#include "write/summary.h"
/* the batched buffer's bound */
#define ETDUMP_USDT_DISABLE
#include "schema/etdump_usdt.h"
/* the smallest ring batched mode records with: a flush and some */
#define BATCHED_MIN_RING_BYTES (2ull * ETDUMP_BATCH_BYTES)

/* Open the counters and tell the collector what the records will carry. */
static int setup_counters(struct counter_set *set, struct collector *col)
{
	const char *names[ETDUMP_MAX_COUNTERS];
	uint8_t kinds[ETDUMP_MAX_COUNTERS];
	uint32_t i;
	int err;

	err = counters_open(set);
	if (err)
		return err;
	for (i = 0; i < set->n; i++) {
		names[i] = set->spec[i].name;
		kinds[i] = set->spec[i].kind;
	}
	return collector_set_counters(col, names, kinds, set->n);
}

/* Said as a record of its own, so that the raw capture holds it too. */
static void lost_at_end(void *ctx, uint32_t tid, uint16_t flags)
{
	struct record_sink *sink = ctx;
	struct etdump_rec_lost_tail r = {
		.hdr = { .type = ETDUMP_REC_LOST_TAIL, .size = sizeof(r),
			 .flags = flags, .tid = tid, .ts = monotonic_ns() },
	};

	int err;

	/* as convert replays it: symbol mode's translator passes it on */
	err = record_feed(sink, &r, sizeof(r));
	if (err)
		p_warn("thread %u: that the ring lost its last records is not recorded: %s",
		       tid, strerror(-err));
}

/*
 * Batched stamps read the CPU's counter: on the kernel's own line of it
 * they are the clock to the ns; without, between each buffer's anchors.
 */
static int open_kernel_clock(struct record_sink *sink)
{
	char why[256] = "";
	int err = kernel_clock_open(&sink->clock, why, sizeof(why));

	if (err == -ENOMEM) {
		p_err("%s", strerror(ENOMEM));
		return err;
	}
	if (err)
		p_info("batched stamps read from the CPU's counter are turned into CLOCK_MONOTONIC between each buffer's two anchors, within tens of ns, not to the ns: %s",
		       why);
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct probe_objects objs = { 0 };
	struct collector_stats stats = { 0 };
	struct capture_opts copts = { 0 };
	struct record_sink sink = { 0 };
	struct etdump_log_meta meta = { 0 };
	struct collector *col = NULL;
	struct capture *cap = NULL;
	struct run_sink *rs = NULL;
	struct etdump_stream *es = NULL;
	struct etdump_ahead_thread *ahead = NULL;
	struct live_view *lv = NULL;
	char title[4200];
	char *kept = NULL;
	struct record_opts o;
	struct target t = { .pidfd = -1, .gate_fd = -1 };
	struct more_targets more = { 0 };
	struct follow_children *fc = NULL;
	/* symbol mode found nothing: kept to say why, when no child is either */
	struct symbol_mode *unused_sm = NULL;
	/* a stock runtime loaded later: symbol mode's (record_late.c) */
	struct record_late late;
	pid_t roots[1 + CAPTURE_MAX_MORE];
	/* --every's word is ours to reset: the target's, then more's */
	bool every_set[1 + CAPTURE_MAX_MORE] = { false };
	/* what says which recorder holds them: recorder_claim.h */
	int claims[1 + CAPTURE_MAX_MORE];
	bool follow, children_only = false, sym_alone, at_exec;
	uint64_t ns_dev, ns_ino;
	enum stop_reason why = STOP_EXIT;
	int nattached = 0, err, ret = EXIT_FAIL, out_fd = -1;
	struct etd_dump dump = { 0 };
	uint64_t drops, start;
	char msg[256], runs[256], note[PATH_MAX + 256], files[2 * PATH_MAX + 64];
	char *no_words[] = { NULL };  /* -p: no command line to read */

	for (size_t i = 0; i < 1 + CAPTURE_MAX_MORE; i++)
		claims[i] = -1;
	err = record_parse_args(argc, argv, &o);
	if (err)
		return err < 0 ? 0 : err;
	if (o.repeat > 1 || o.alternate_output) {
		struct record_repeat rr = { .n = o.repeat, .output = o.output,
					    .raw = o.raw, .force = o.force,
					    .values = o.values,
					    .alternate = o.alternate_output };
		bool second = false;

		err = record_repeat(&rr, &o.output, &o.raw, &second);
		if (err != RECORD_REPEAT_CHILD)
			return err;
		if (second)
			o.command = o.alternate_command;
		o.sink.output = o.output;
	}
	if (privileges_check_record(msg, sizeof(msg))) {
		p_err("%s", msg);
		return EXIT_FAIL;
	}
	if (record_check_output(&o)) {
		free(o.debug_buffer_path);
		return EXIT_FAIL;
	}
	if (stdout_output_is(o.output)) {
		out_fd = stdout_output_begin();
		if (out_fd < 0) {
			p_err("-o -: %s", out_fd == -ENOTTY ?
			      "standard output is a terminal; an ETDump is binary: pipe it (| etdump-bpf report -) or redirect it" :
			      strerror(-out_fd));
			free(o.debug_buffer_path);
			return out_fd == -ENOTTY ? EXIT_USAGE : EXIT_FAIL;
		}
	}

	record_catch_stop_signals();
	/* the kernel keeps these after a SIGKILL: no one else removes them */
	tracefs_leftovers_clean();

	if (record_open_target(&o, &t, &objs))
		goto cleanup;
	if (o.nmore && !objs.etdump) {
		p_err("PID %d (%s): no 'etdump' USDT probes; symbol mode records one process: give it alone to -p",
		      o.pid, t.exe);
		goto cleanup;
	}
	if (o.nmore && more_targets_open(&more, o.more_pids, o.nmore))
		goto cleanup;
	/* batched only where every process can flush */
	if (o.nmore && !more_targets_all_have(&more, "flush"))
		o.precise = true;
	col = collector_new();
	if (!col)
		goto cleanup;
	if (run_sink_wanted(&o.sink) && run_sink_open(&rs, &o.sink, col))
		goto cleanup;
	if (o.live && !o.output && !rs)
		collector_set_run_sink(col, record_drop_run, NULL);
	if (o.sink.flight)
		record_catch_dump_signal();
	/* inside a PID namespace the tracepoints' pids are not ours */
	target_pid_namespace(&ns_dev, &ns_ino);
	follow = !o.no_inherit && !ns_ino;
	/* symbol mode: uprobes on functions, neither batched nor counted */
	o.sym.values = o.values;
	o.sym.value_max = o.value_max;
	o.sym.allocations = o.allocations;
	/* a window's records all in the ring once its probes are out */
	o.sym.per_hit = o.duty.permille != 0;
	if (symbol_mode_wanted(&o.sym, objs.etdump) &&
	    symbol_mode_open(&sink.sm, &o.sym, col))
		goto cleanup;
	/*
	 * A command without probes whose functions no rule names either (a
	 * shell): its children are what is recorded.
	 */
	if (sink.sm && follow && (o.command || o.wait_runtime) &&
	    !o.sym.force && symbol_mode_find(sink.sm, &t) <= 0) {
		unused_sm = sink.sm;
		sink.sm = NULL;
		children_only = true;
	}
	/* said once symbol mode is attached */
	sym_alone = sink.sm && follow;
	follow = follow && !sink.sm;
	if (o.duty.permille && !sink.sm) {
		p_err("--duty takes symbol mode's probes out and puts them back: %s has etdump probes (add --symbols to record it in symbol mode)",
		      t.exe);
		goto cleanup;
	}
	sink.duty = o.duty.permille ? &o.duty : NULL;
	copts.batched = !sink.sm && record_choose_mode(&o, &objs, children_only);
	/* a thread's whole buffer is one record: the ring holds a few */
	if (copts.batched && o.ring_bytes < BATCHED_MIN_RING_BYTES) {
		p_info("--ring-size %llu raised to %llu: a batched flush is %d bytes",
		       (unsigned long long)o.ring_bytes,
		       (unsigned long long)BATCHED_MIN_RING_BYTES,
		       ETDUMP_BATCH_BYTES);
		o.ring_bytes = BATCHED_MIN_RING_BYTES;
	}
	p_debug("ring buffer: %llu KiB", (unsigned long long)o.ring_bytes >> 10);
	if (!sink.sm && record_check_other_tracers(&t, &objs, copts.batched,
						   &claims[0]))
		goto cleanup;
	for (size_t i = 0; !sink.sm && i < more.n; i++)
		if (record_check_other_tracers(&more.t[i], &more.objs[i],
					copts.batched, &claims[1 + i]))
			goto cleanup;
	if (o.every && (!copts.batched || sink.sm)) {
		p_err("--every: PID %d (%s) is recorded %s: --every needs batched mode",
		      t.pid, t.exe, sink.sm ? "in symbol mode" :
		      "with per-scope probes (no flush probe)");
		goto cleanup;
	}
	/* before the probes: the first run they see is already counted */
	if (copts.batched &&
	    record_every_attach(o.every, &t, &objs, &every_set[0]))
		goto cleanup;
	for (size_t i = 0; copts.batched && i < more.n; i++)
		if (record_every_attach(o.every, &more.t[i], &more.objs[i],
					&every_set[1 + i]))
			goto cleanup;
	sink.every = copts.batched ? o.every : 0;
	if (!copts.batched && !sink.sm && !o.no_counters &&
	    setup_counters(&o.counters, col))
		goto cleanup;
	copts.counters = copts.batched || sink.sm || o.no_counters ?
				 NULL : &o.counters;
	/*
	 * One file of every run: built as the runs complete (record_collect() moves
	 * them from the collector's log), unless the memory summary
	 * (--allocations) wants them whole at the end. The counters' names
	 * are known from here on.
	 */
	if (o.output && !rs && !o.allocations) {
		meta.counter_names = collector_counter_names(col,
							     &meta.ncounters);
		if (etdump_stream_open(&es, &meta))
			goto cleanup;
		if (out_fd < 0) {
			etdump_stream_spill_near(es, o.output);
			etdump_stream_series(es, o.output, o.force);
		}
		/* a long run's events are written on a thread of their own */
		err = etdump_ahead_thread_start(&ahead, es, ETDUMP_AHEAD_EVENTS);
		if (err) {
			p_err("cannot start a thread: %s", strerror(-err));
			goto cleanup;
		}
		collector_set_ahead(col, etdump_ahead_thread_take,
				    etdump_ahead_thread_drop, ahead,
				    ETDUMP_AHEAD_EVENTS);
		etdump_ahead_thread_follow(ahead, collector_log(col));
	}
	copts.values = o.values && !sink.sm;
	copts.value_max = o.value_max;
	copts.allocations = o.allocations && !sink.sm;
	copts.pid = t.pid;
	copts.sched = o.sched;
	copts.more_pids = o.more_pids;
	copts.nmore = o.nmore;
	copts.ring_bytes = o.ring_bytes;
	copts.on_record = record_feed;
	copts.follow_children = follow;
	sink.col = col;
	copts.ctx = &sink;
	/* the kernel's BTF, which the load reads, in pages backed at once */
	huge_pages_heap_begin(12u << 20);
	err = capture_open(&cap, &copts);
	huge_pages_heap_end();
	if (err)
		goto cleanup;
	/* before the command leaves the gate: none of its forks is missed */
	if (follow) {
		roots[0] = t.pid;
		memcpy(roots + 1, o.more_pids, o.nmore * sizeof(*roots));
		if (follow_children_open(&fc, cap, roots, 1 + o.nmore))
			goto cleanup;
	}
	/* without BPF cookies libbpf reads the sites' addresses off the maps */
	at_exec = !sink.sm && !children_only && t.spawned &&
		  !kernel_features()->bpf_cookie;
	if (at_exec)
		kernel_features_note("BPF cookies need Linux %s: USDT specs found by address, a command's probes attached at its exec, under ptrace",
				     "5.15");
	if (sink.sm ? symbol_mode_attach(sink.sm, cap, &t, &nattached) :
	    children_only || at_exec ? 0 : capture_attach(cap, &objs, &nattached))
		goto cleanup;
	if (fc && !children_only &&
	    follow_children_attached(fc, t.pid, t.exe))
		goto cleanup;
	/* the runtimes a command line names: recorded from their start */
	if (fc && (o.command || o.nfollow_binaries) &&
	    follow_children_arm(fc, o.command ? o.command : no_words,
				o.follow_binaries, o.nfollow_binaries,
				children_only ? NULL : t.exe))
		goto cleanup;
	if (sink.sm && symbol_mode_annotate(sink.sm, col))
		goto cleanup;
	if (sink.duty && record_duty_annotate(sink.duty, col))
		goto cleanup;
	if (sym_alone)
		p_info("symbol mode records PID %d alone: children are followed in USDT mode only",
		       t.pid);
	start = monotonic_ns();
	collector_set_start(col, start);
	if (sink.sm)
		symbol_mode_set_start(sink.sm, start);
	if (copts.batched && open_kernel_clock(&sink))
		goto cleanup;
	if (sink.duty)
		record_duty_start(sink.duty, sink.sm, cap, col, start);
	if (children_only && o.pid) {
		p_info("PID %d (%s) carries no runtime yet: waiting for one it loads or a child of it execs (Ctrl-C, or --duration, gives up); mode: %s",
		       t.pid, t.exe, copts.batched ? "batched" : "per-scope probes");
	} else if (children_only) {
		/* said once a child is recorded; a refusal at the end if none */
		snprintf(note, sizeof(note), "PID %d (%s): no 'etdump' USDT probes: recording the processes it starts that exec a binary with them (--no-inherit: refuse); mode: %s",
			 t.pid, t.exe, copts.batched ? "batched" : "per-scope probes");
		if (follow_children_first_note(fc, note))
			goto cleanup;
	} else if (!at_exec) {
		/* each way a missing kernel feature was made up for, one line each */
		kernel_features_print_notes();
		p_info("attached %d probe(s) to PID %d (%s%s)%s", nattached,
		       t.pid, t.exe,
		       !sink.sm && objs.n > 1 ? " and its libraries" : "",
		       o.pid ? "; Ctrl-C to stop" : "");
	}
	record_note_replaced(&t, &objs);
	/*
	 * A runtime loaded from now on (dlopen) is attached when it appears;
	 * but in symbol mode's --duty, whose windows put back the probes
	 * they took out, and whose runs a main loop held up reading a
	 * library's symbols cuts (5.10's kernel matrix: 2 recordings in 11
	 * wrote nothing)
	 */
	if (!(sink.sm && sink.duty) &&
	    late_libraries_open(&sink.late, t.pid, &objs)) {
		p_err("%s", strerror(ENOMEM));
		goto cleanup;
	}
	late.sink = &sink;
	late.waiting = &unused_sm;
	late.cap = cap;
	late.t = &t;
	late.fc = fc;
	if (sink.late)
		late_libraries_on_stock(sink.late, record_late_stock, &late);
	/* and what the children it follows load, each watched likewise */
	if (sink.late && fc &&
	    late_followed_open(&sink.late_followed, fc, record_late_stock,
			       &late)) {
		p_err("%s", strerror(ENOMEM));
		goto cleanup;
	}
	kernel_features_print_notes();
	snprintf(title, sizeof(title), "PID %d (%s)", t.pid, t.exe);
	if (more_targets_attach(&more, cap, &nattached) ||
	    (o.live && live_view_open(&lv, col, title)))
		goto cleanup;
	for (size_t i = 0; fc && i < more.n; i++)
		if (follow_children_attached(fc, more.pids[i], more.t[i].exe))
			goto cleanup;
	if (at_exec) {
		err = capture_attach_at_exec(cap, &t, &objs, o.every, &nattached,
					     msg, sizeof(msg));
		if (err && err != -ECHILD) {
			p_err("%s", msg);
			goto cleanup;
		}
		p_info("attached %d probe(s) to PID %d (%s%s) at its exec",
		       nattached, t.pid, t.exe,
		       objs.n > 1 ? " and its libraries" : "");
	} else if (o.every > 1 && t.spawned && objs.etdump) {
		/* its first run is already counted: written before it runs */
		if (every_words_at_start(&t, &objs, o.every, msg,
					 sizeof(msg))) {
			p_err("%s", msg);
			goto cleanup;
		}
	} else if (target_release(&t)) {
		p_err("cannot start %s: %s", o.command[0], strerror(errno));
		goto cleanup;
	}
	/* after the release: a command's map is the runtime's once it runs */
	if (o.raw && record_open_raw(&o, &t, cap, &copts, start, argv, argc,
			      &sink.raw))
		goto cleanup;

	err = record_collect(&o, &t, &more, fc, cap, &sink, rs, ahead, lv, &why);
	if (sink.duty)
		record_duty_stop(sink.duty, monotonic_ns());
	record_reset_every(&t, &objs, &more, every_set);
	/* the stream is this thread's alone again, its first error known */
	if (ahead) {
		int written = etdump_ahead_thread_wait(ahead);

		err = err ? err : written;
	}
	if (err) {
		if (run_sink_failed(rs))
			; /* said, naming the file */
		else if (raw_writer_error(sink.raw))
			p_err("%s: cannot write: %s", o.raw, strerror(-err));
		else if (etdump_stream_failed(es))
			output_error(o.output, err, NULL);
		else
			p_err("reading the ring buffer: %s", strerror(-err));
		goto cleanup;
	}
	target_stop(&t);
	if (fc)
		follow_children_summary(fc);
	drops = capture_drops(cap);
	/* the runs that lost their ends, in the raw capture as in the file */
	capture_lost_threads(cap, lost_at_end, &sink);
	err = raw_rename_threads(sink.raw, &sink.names);
	if (!err && sink.raw)
		err = raw_writer_finish(sink.raw, drops, record_stop_reasons[why]);
	if (err) {
		p_err("%s: cannot write: %s", o.raw, strerror(-err));
		goto cleanup;
	}
	/* the runs still open complete: into the log, then the file being built */
	err = collector_close(col, &stats);
	if (err)
		goto cleanup;
	if (ahead &&
	    (err = etdump_ahead_thread_drain(ahead, collector_log(col), true))) {
		output_error(o.output, err, NULL);
		goto cleanup;
	}
	drops += stats.lost_in_flush;
	/* the kernel counts a lost flush whole; some of it was read before */
	drops -= stats.read_then_lost < drops ? stats.read_then_lost : drops;
	if (!o.output && !o.raw) {
		p_info("%s: %llu runs, %llu events, %llu dropped",
		       record_stop_reasons[why], (unsigned long long)stats.runs,
		       (unsigned long long)stats.events,
		       (unsigned long long)drops);
		ret = drops ? EXIT_LOST : EXIT_OK;
		goto cleanup;
	}
	/* still waiting (sink.sm unset): no runtime came, in either mode */
	if (!stats.runs && children_only && !follow_children_count(fc) &&
	    !sink.sm) {
		if (o.wait_runtime)
			p_err("PID %d (%s): no runtime with etdump probes, nor a library whose functions symbol mode's rules name, was loaded %s, nor exec'd by a child of it: nothing recorded",
			      t.pid, t.exe, why == STOP_DURATION ? "within --duration" :
			      why == STOP_EXIT ? "before it exited" :
			      "before recording was stopped");
		else if (follow_children_missed(fc))
			p_err("%s: no 'etdump' USDT probes, and the %zu process(es) with them it started exited before they could be attached: a child is attached after its exec (milliseconds to seconds), so a runtime that ends sooner is not recorded; start the runtime itself under record (README: Following children)",
			      t.exe, follow_children_missed(fc));
		else
			symbol_mode_explain(unused_sm, t.exe);
		goto cleanup;
	}
	if (!stats.runs) {
		record_no_runs(&o, &stats, drops);
		loss_summary_say(col, drops, o.ring_bytes);
		goto cleanup;
	}
	if (rs) {
		ret = record_finish_sink(&o, &t, why, rs, &stats, drops);
		goto cleanup;
	}
	if (es)
		run_names_describe(etdump_stream_names(es), runs, sizeof(runs));
	else
		summary_describe_log(collector_log(col), runs, sizeof(runs));
	err = record_write_etdump(&o, col, es, &meta, &dump, &out_fd, &kept);
	if (err) {
		output_error(o.output, err, kept);
		free(kept);
		goto cleanup;
	}
	if (o.output && o.values &&
	    record_write_values(&o, collector_values(col)))
		goto cleanup;
	files[0] = '\0';
	if (es && o.output && !stdout_output_is(o.output))
		etdump_stream_files_text(es, o.output, files, sizeof(files));
	record_print_summary(&o, &t, why, runs, *files ? files : NULL, &stats,
			     drops);
	loss_summary_say(col, drops, o.ring_bytes);
	if (sink.sm && !o.sym.program)
		p_info("instruction ids are call-order ids (chain 0, numbered in the order the calls ran; runs keep ETDumpGen's names): record --program PTE gives the plan's");
	if (sink.sm)
		symbol_mode_summary(sink.sm);
	if (sink.duty)
		record_duty_say(sink.duty, &stats);
	if (o.values && collector_values(col))
		value_capture_summary(collector_values(col), o.debug_buffer_path,
				      o.value_max);
	if (o.allocations)
		memory_summary(&dump);
	ret = drops ? EXIT_LOST : EXIT_OK;
cleanup:
	record_reset_every(&t, &objs, &more, every_set);
	target_stop(&t);
	target_close(&t);
	more_targets_close(&more);
	late_followed_close(sink.late_followed);
	follow_children_free(fc);
	symbol_mode_free(unused_sm);
	symbol_mode_free(sink.sm);
	late_libraries_close(sink.late);
	kernel_clock_free(sink.clock);
	raw_writer_free(sink.raw);
	live_view_free(lv);
	run_sink_free(rs);
	etdump_ahead_thread_stop(ahead);
	etdump_stream_free(es);
	thread_names_free(&sink.names);
	collector_free(col);
	etd_dump_free(&dump);
	/* after the frees: the fork it makes then copies no large page tables */
	capture_close_in_background(cap);
	/* the background closer holds them until the probes are gone */
	for (size_t i = 0; i < 1 + CAPTURE_MAX_MORE; i++)
		if (claims[i] >= 0)
			close(claims[i]);
	probe_objects_free(&objs);
	counters_close(&o.counters);
	if (out_fd >= 0)
		close(out_fd); /* the reader sees an empty file: no ETDump */
	free(o.debug_buffer_path);
	return ret;
}

// SPDX-License-Identifier: BSD-3-Clause
/*
 * record_output.c - what record writes and says at the end: the ETDump,
 * the raw capture, the debug buffer, a series' last file, and the summary.
 */
#include <stdio.h>
#include <sys/wait.h>
#include "cli/record.h"
#include "lib/exit_code.h"
#include "lib/file_io.h"
#include "lib/log.h"
#include "lib/version.h"
#include "model/debug_buffer.h"
#include "write/etdump_writer.h"
#include "write/stdout_output.h"
#include "write/summary.h"

const char *const record_stop_reasons[] = {
	[STOP_EXIT] = "target exited",
	[STOP_DURATION] = "duration reached",
	[STOP_SIGNAL] = "interrupted",
	[STOP_QUIT] = "quit",
};

/* --live without an output: runs are only counted */
int record_drop_run(void *ctx, struct run_view *r)
{
	(void)ctx;
	(void)r;
	return 0;
}

void record_print_summary(const struct record_opts *o, const struct target *t,
			  enum stop_reason why, const char *runs,
			  const char *written, const struct collector_stats *st,
			  uint64_t drops)
{
	char files[4096];

	snprintf(files, sizeof(files), "%s%s%s",
		 stdout_output_is(o->output) ? "standard output" :
		 written ? written : o->output ? o->output : "",
		 o->output && o->raw ? " and " : "", o->raw ? o->raw : "");
	summary_totals_text(record_stop_reasons[why], files, runs, st, drops);
	summary_every(o->every, st);
	if (t->spawned && t->exited && WIFEXITED(t->wait_status) &&
	    WEXITSTATUS(t->wait_status))
		p_info("target exited with status %d", WEXITSTATUS(t->wait_status));
	if (t->spawned && t->exited && WIFSIGNALED(t->wait_status))
		p_info("target killed by signal %d", WTERMSIG(t->wait_status));
	record_say_replaced();
	summary_notes(st, drops);
}

/*
 * The runs the sink holds go to their (last) file; the summary counts what
 * was written, and what --keep-slower-than left out.
 */
int record_finish_sink(const struct record_opts *o, const struct target *t,
		       enum stop_reason why, struct run_sink *rs,
		       struct collector_stats *stats, uint64_t drops)
{
	const struct run_sink_stats *ss = run_sink_stats(rs);
	char first[4096], last[4096], files[8300];

	if (run_sink_finish(rs))
		return EXIT_FAIL;
	if (o->sink.slower_than_ns)
		p_info("%llu run(s) seen, %llu kept: slower than %.3f ms",
		       (unsigned long long)ss->seen,
		       (unsigned long long)ss->kept,
		       o->sink.slower_than_ns / 1e6);
	if (o->sink.slower_pct)
		p_info("%llu run(s) seen, %llu kept: slower than p%u of the runs so far (the first %d set it)",
		       (unsigned long long)ss->seen,
		       (unsigned long long)ss->kept, o->sink.slower_pct,
		       RUN_SINK_WARMUP);
	if (o->sink.flight)
		p_info("flight recorder: %llu run(s) seen, the last %zu at most held",
		       (unsigned long long)ss->seen, o->sink.flight);
	if (!ss->files) {
		p_info("no run kept: no ETDump written");
		return drops ? EXIT_LOST : EXIT_OK;
	}
	stats->runs = ss->runs;
	stats->events = ss->events;
	if (!run_sink_series(&o->sink)) {
		record_print_summary(o, t, why, "", NULL, stats, drops);
		return drops ? EXIT_LOST : EXIT_OK;
	}
	/* checked when the series started: the names fit */
	file_series_name(o->output, 1, first, sizeof(first));
	file_series_name(o->output, ss->files, last, sizeof(last));
	snprintf(files, sizeof(files), "%u file(s) %s%s%s%s%s", ss->files,
		 first, ss->files > 1 ? " to " : "",
		 ss->files > 1 ? last : "", o->raw ? " and " : "",
		 o->raw ? o->raw : "");
	summary_totals_text(record_stop_reasons[why], files, "", stats, drops);
	summary_notes(stats, drops);
	return drops ? EXIT_LOST : EXIT_OK;
}

/*
 * An ETDump without runs is one the Inspector cannot load: nothing is
 * written but the raw capture, and the user hears the likeliest reason.
 */
void record_no_runs(const struct record_opts *o,
		    const struct collector_stats *st, uint64_t drops)
{
	char lost[128];
	const char *why;

	snprintf(lost, sizeof(lost),
		 "the ring buffer was full: every run lost some of its %llu dropped event(s)",
		 (unsigned long long)drops);
	if (drops)
		why = lost;
	else if (st->incomplete_runs)
		why = "every run was still open when recording stopped (record longer, or until the target exits)";
	else if (st->outside_run)
		why = "events came only from threads with no run open since the probes attached (attached mid-run)";
	else if (st->records)
		why = "the probes fired but opened no run";
	else
		why = "no probe fired: the target ran nothing traced while attached; "
		      "another recorder may hold its batched probes";
	p_err("no complete run recorded, %s written: %s",
	      o->output ? "no ETDump" : "nothing", why);
	if (o->raw)
		p_info("the raw capture %s holds what was seen", o->raw);
}

/*
 * The raw capture's header says what convert needs to replay it as this
 * recording: the probes attached, the counters, the collector's start.
 */
int record_open_raw(const struct record_opts *o, const struct target *t,
		    const struct capture *cap, const struct capture_opts *copts,
		    uint64_t start, char **argv, int argc,
		    struct raw_writer **out)
{
	struct raw_target rt = {
		.pid = t->pid,
		.exe = t->exe,
		.counters = copts->counters,
		.capture_start = start,
		.just_started = t->spawned,
		.tool = "etdump-bpf " ETDUMP_BPF_VERSION,
		.argv = argv,
		.argc = argc,
	};
	int err;

	rt.probes = capture_probe_names(cap, &rt.nprobes);
	err = raw_writer_open(out, o->raw, o->force, &rt);
	if (err)
		output_error(o->raw, err, NULL);
	return err;
}

/* The debug buffer beside the ETDump, empty when no value came. */
int record_write_values(const struct record_opts *o,
			const struct value_capture *vc)
{
	const uint8_t *data = NULL;
	size_t len = 0;

	if (vc)
		data = value_capture_buffer(vc, &len);
	return debug_buffer_write(o->debug_buffer_path, data, len, o->force);
}

/*
 * The ETDump of every run: the stream built as the runs completed, the
 * whole runs when the memory summary wants them (dump), or the log; to
 * its file or standard output (*out_fd, then -1: it is closed). 0 or a
 * negative errno; *kept names where the data stayed when the file could
 * not take its place.
 */
int record_write_etdump(const struct record_opts *o, struct collector *col,
			struct etdump_stream *es, struct etdump_log_meta *meta,
			struct etd_dump *dump, int *out_fd, char **kept)
{
	int err;

	meta->counter_names = collector_counter_names(col, &meta->ncounters);
	if (es && *out_fd >= 0) {
		err = stdout_output_write_stream(*out_fd, es);
		*out_fd = -1;
	} else if (es) {
		err = etdump_stream_write_file(es, o->output, o->force, kept);
	} else if (o->allocations) {
		/* whole runs, for the memory summary as for the file */
		err = collector_dump_log(col, dump);
		dump->allocations = o->allocations_in_etdump ?
			ETD_ALLOCATIONS_WRITE : ETD_ALLOCATIONS_LEAVE_OUT;
		if (!err && *out_fd >= 0)
			err = stdout_output_write_dump(*out_fd, dump);
		else if (!err && o->output)
			err = etdump_write_file(dump, o->output, o->force, kept);
		*out_fd = -1;
	} else if (*out_fd >= 0) {
		err = stdout_output_write_log(*out_fd, collector_log(col), meta);
		*out_fd = -1;
	} else {
		err = o->output ? etdump_write_log_file(collector_log(col), meta,
							o->output, o->force,
							kept) : 0;
	}
	return err;
}

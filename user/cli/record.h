/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * record.h - the pieces of `etdump-bpf record` (cmd_record.c, which
 * attaches): its options (record_opts.c), its target (record_target.c),
 * its loop (record_loop.c) and what it writes at the end
 * (record_output.c).
 */
#ifndef ETDUMP_CLI_RECORD_H
#define ETDUMP_CLI_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "capture/capture.h"
#include "capture/counters.h"
#include "capture/follow_children.h"
#include "capture/more_targets.h"
#include "capture/thread_names.h"
#include "cli/record_duty.h"
#include "collect/collector.h"
#include "collect/live_view.h"
#include "collect/value_capture.h"
#include "model/etdump_model.h"
#include "symbol/symbol_mode.h"
#include "target/probe_objects.h"
#include "target/target.h"
#include "write/etdump_ahead_thread.h"
#include "write/etdump_log_writer.h"
#include "write/raw_writer.h"
#include "write/run_sink.h"

#define MAX_FOLLOW_BINARIES 16 /* as the usage error says */

struct record_opts {
	const char *output;
	const char *raw;
	pid_t pid;
	pid_t more_pids[CAPTURE_MAX_MORE];  /* -p PID,PID...: the others */
	size_t nmore;
	uint64_t duration_ns;
	uint64_t ring_bytes;
	bool force;
	bool no_counters;
	bool sched;
	bool counters_given;
	bool precise;
	bool values;
	uint64_t value_max;
	const char *debug_buffer;  /* given, or NULL */
	bool allocations;
	bool allocations_in_etdump;
	char *debug_buffer_path;   /* what is written: given or derived */
	bool live;
	bool no_inherit;           /* --no-inherit: no child followed */
	bool wait_runtime;         /* --wait-for-runtime: -p before its load */
	uint32_t every;            /* --every N, or 0 */
	uint32_t repeat;           /* --repeat N, or 0 */
	/* --alternate-with FILE: the second command's recordings, or NULL */
	const char *alternate_output;
	char **alternate_command;  /* the words after the command's "--" */
	struct record_duty duty;   /* --duty PCT[/PERIOD]: permille 0 if not */
	/* --follow-binary: armed as if the command line named them */
	char *follow_binaries[MAX_FOLLOW_BINARIES];
	size_t nfollow_binaries;
	struct counter_set counters;
	struct symbol_mode_opts sym;
	struct run_sink_opts sink;
	char **command;
};

/*
 * Every record goes to the raw capture first, then to the collector, in
 * the ring's order: convert replays the capture into the same collector.
 */
struct record_sink {
	struct collector *col;
	struct raw_writer *raw;  /* --raw, once open */
	struct symbol_mode *sm;  /* symbol mode: its records translated first */
	struct record_duty *duty; /* --duty: probes out between windows */
	struct late_libraries *late; /* libraries the target loads later */
	/* and those its followed children load later (late_followed.h) */
	struct late_followed *late_followed;
	struct kernel_clock *clock; /* batched: the kernel's clock, its line */
	struct thread_names names; /* --raw: each thread's comm */
	uint32_t every;          /* --every N: said first (kept_every) */
	bool every_said;
	struct etdump_rec_kept_every kept_every;
};

enum stop_reason { STOP_EXIT, STOP_DURATION, STOP_SIGNAL, STOP_QUIT };

/* record_opts.c */
/*
 * The command line into o: 0, -1 after --help (nothing more to do), or
 * EXIT_USAGE after saying what is wrong.
 */
int record_parse_args(int argc, char **argv, struct record_opts *o);
/* Refuse before attaching anything: losing a capture to a bad path is worse. */
int record_check_output(struct record_opts *o);

/* record_target.c */
/* Target set up; the files carrying its probes, executable first. */
int record_open_target(const struct record_opts *o, struct target *t,
		       struct probe_objects *objs);
/* Batched (true) or per-scope probes; quiet: the mode is not said. */
bool record_choose_mode(const struct record_opts *o,
			const struct probe_objects *objs, bool quiet);
/*
 * -EBUSY when another tracer holds the probes in the other mode; else the
 * target claimed for this recording (capture/recorder_claim.h): *claim an
 * fd to keep until the probes are gone, or -1.
 */
int record_check_other_tracers(const struct target *t,
			       const struct probe_objects *objs,
			       bool batched, int *claim);
/*
 * " by 'etdump-bpf record' PID N" for the recorder that holds pid in that
 * mode, or `unknown` when none of ours says it does.
 */
void record_holder_text(pid_t pid, bool batched, const char *unknown,
			char *buf, size_t len);
/* --every's word back to 0 in the targets that live on, once. */
void record_reset_every(struct target *t, const struct probe_objects *objs,
			struct more_targets *more, bool *set);

/* record_replaced.c */
/* Say which of a -p target's files are not the ones on disk; once more in the summary. */
void record_note_replaced(const struct target *t,
			  const struct probe_objects *objs);
void record_say_replaced(void);

/* record_late.c */
/*
 * A library without etdump probes that the target loads after the attach
 * (late_libraries.h), for symbol mode: added to it when it records
 * already; else, while waiting for a runtime (a command or -p process
 * whose functions no rule named), the first such library that rules name
 * turns the recording to symbol mode (its programs loaded, its probes'
 * time measured then), sink->sm set from *waiting.
 */
struct record_late {
	struct record_sink *sink;
	struct symbol_mode **waiting;
	struct capture *cap;
	const struct target *t;
	/* a child's runtime, recorded: waited for as the others (or NULL) */
	struct follow_children *fc;
};
/* A late_stock_fn, ctx a struct record_late. */
int record_late_stock(void *ctx, pid_t pid, const char *path,
		      const char *label);

/* record_loop.c */
/* SIGINT and SIGTERM stop the loop; SIGUSR1 dumps the flight recorder. */
void record_catch_stop_signals(void);
void record_catch_dump_signal(void);
/* A record of the ring (ctx: struct record_sink) into the sink. */
int record_feed(void *ctx, const void *rec, size_t len);
/* Until the target exits, the duration passes, a signal or q stops it. */
int record_collect(const struct record_opts *o, struct target *t,
		   struct more_targets *more, struct follow_children *fc,
		   struct capture *cap, struct record_sink *sink,
		   struct run_sink *rs, struct etdump_ahead_thread *ahead,
		   struct live_view *lv, enum stop_reason *why);

/* record_output.c */
extern const char *const record_stop_reasons[];
/* --live without an output: runs are only counted */
int record_drop_run(void *ctx, struct run_view *r);
/* written: what the ETDump went to when not o->output alone (a series) */
void record_print_summary(const struct record_opts *o,
			  const struct target *t, enum stop_reason why,
			  const char *runs, const char *written,
			  const struct collector_stats *st, uint64_t drops);
/* The sink's runs to their (last) file, and the summary: an exit code. */
int record_finish_sink(const struct record_opts *o, const struct target *t,
		       enum stop_reason why, struct run_sink *rs,
		       struct collector_stats *stats, uint64_t drops);
/* Why no complete run was recorded, in one line. */
void record_no_runs(const struct record_opts *o,
		    const struct collector_stats *st, uint64_t drops);
/* The raw capture opened, its header saying what was attached. */
int record_open_raw(const struct record_opts *o, const struct target *t,
		    const struct capture *cap,
		    const struct capture_opts *copts, uint64_t start,
		    char **argv, int argc, struct raw_writer **out);
/* The debug buffer beside the ETDump, empty when no value came. */
int record_write_values(const struct record_opts *o,
			const struct value_capture *vc);
int record_write_etdump(const struct record_opts *o, struct collector *col,
			struct etdump_stream *es, struct etdump_log_meta *meta,
			struct etd_dump *dump, int *out_fd, char **kept);

#endif /* ETDUMP_CLI_RECORD_H */

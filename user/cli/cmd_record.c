// SPDX-License-Identifier: BSD-3-Clause
/*
 * cmd_record.c - `etdump-bpf record`: attach to a process's etdump probes,
 * collect until it exits, a duration passes or we are told to stop, and
 * write the ETDump.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "huge_pages.h"
#include "batch_pull.h"
#include "capture.h"
#include "collector.h"
#include "counters.h"
#include "cli.h"
#include "more_targets.h"
#include "pid_list.h"
#include "stdout_output.h"
#include "tracefs_leftovers.h"
#include "debug_buffer.h"
#include "commands.h"
#include "etdump_ahead_thread.h"
#include "etdump_log_writer.h"
#include "etdump_writer.h"
#include "file_io.h"
#include "follow_children.h"
#include "log.h"
#include "loss_summary.h"
#include "parse.h"
#include "privileges.h"
#include "raw_threads.h"
#include "raw_writer.h"
#include "record_every.h"
#include "ring_default.h"
#include "every_word.h"
#include "live_view.h"
#include "run_sink.h"
#include "sched_lanes.h"
#include "summary.h"
#include "symbol_mode.h"
#include "target.h"
#include "thread_names.h"
#include "version.h"
/* the batched buffer's bound */
#define ETDUMP_USDT_DISABLE
#include "etdump_usdt.h"
#include "probe_objects.h"
#include "probe_semaphores.h"
#include "report_memory.h"
#include "value_capture.h"

/* record --values: a whole tensor up to this, the rest cut (and counted) */
#define DEFAULT_VALUE_MAX (1u << 20)
/* how often the collector drains the ring when nothing wakes it */
#define POLL_INTERVAL_MS 50
/* the smallest ring batched mode records with: a flush and some */
#define BATCHED_MIN_RING_BYTES (2ull * ETDUMP_BATCH_BYTES)
/* how often idle threads' batched buffers are read */
#define PULL_INTERVAL_NS 50000000ull
#define STATUS_INTERVAL_NS 250000000ull
/* written without -o and --raw, as perf record writes perf.data */
#define DEFAULT_OUTPUT "etdump.etdp"

static const char record_usage[] =
	"usage: etdump-bpf record [-o FILE] [--raw FILE] [options] (-p PID[,PID...] | [--] CMD [ARGS...])\n"
	"\n"
	"Trace a runtime carrying etdump USDT probes (or, without them, the\n"
	"functions rules name: symbol mode) and write an ETDump.\n"
	"\n"
	"  -o, --output FILE    the ETDump to write (default " DEFAULT_OUTPUT "; never\n"
	"                       overwritten without -f); - for standard output\n"
	"                       (not a terminal; the command's own output then\n"
	"                       goes to stderr)\n"
	"      --raw FILE       keep every record in a raw capture too (or only),\n"
	"                       for etdump-bpf convert; -o, --raw or both\n"
	"  -p, --pid PIDS       attach to running processes: PID[,PID...]\n"
	"                       (each thread's runs its own; several need\n"
	"                       etdump probes)\n"
	"  -d, --duration S     stop after S seconds (fractions allowed)\n"
	"      --ring-size SIZE ring buffer size, a power of two (default 32M\n"
	"                       for each CPU, from 8M to 256M and at most\n"
	"                       1/64 of the memory)\n"
	"  -e, --event LIST     perf counters read at every scope, e.g.\n"
	"                       cycles,instructions (default; software counters\n"
	"                       task-clock,page-faults,context-switches where the\n"
	"                       machine has no PMU); also cache-misses,\n"
	"                       branch-misses, cpu-migrations, rNNNN\n"
	"      --no-counters    read no counters\n"
	"      --precise        per-scope probes even where the runtime can batch\n"
	"                       (needed for counters; -e implies it)\n"
	"      --values[=MAX]   the values the runtime logs (its intermediate and\n"
	"                       program outputs): DebugEvents in the ETDump, the\n"
	"                       tensors' bytes in its debug buffer, at most MAX\n"
	"                       bytes a value (default 1M; more is cut and\n"
	"                       counted); implies --precise. In symbol mode:\n"
	"                       each kernel's out tensors, read at its return\n"
	"                       where the rules place them (outputs lines)\n"
	"      --debug-buffer F the debug buffer file (default: the ETDump's\n"
	"                       name with .etdp replaced by .debug.bin)\n"
	"      --allocations    what the runtime allocates (track_allocation; in\n"
	"                       symbol mode the rules' allocate functions): a\n"
	"                       summary, report --memory and convert's timeline\n"
	"                       from the raw capture; not in the ETDump (the\n"
	"                       Inspector cannot load allocation events); implies\n"
	"                       --precise\n"
	"      --allocations-in-etdump  the same, and allocation events in the\n"
	"                       ETDump: ExecuTorch's Inspector CANNOT LOAD that\n"
	"                       file (report --memory can)\n"
	"  -f, --force          overwrite FILE if it exists\n"
	"      --no-inherit     record the target alone: without it, the\n"
	"                       processes it (or a -p process) starts from now\n"
	"                       on that exec a binary with etdump probes are\n"
	"                       recorded too, each in its own runs: from their\n"
	"                       first instruction when the command line names\n"
	"                       the binary, else from their attach after exec\n"
	"                       (symbol mode records its target alone)\n"
	"      --follow-binary FILE  a binary with etdump probes the children\n"
	"                       may exec, not named on the command line: recorded\n"
	"                       from its first instruction too (repeatable)\n"
	"      --every N        batched mode: the runtime keeps one run in N\n"
	"                       (the first it starts after the attach, then\n"
	"                       every Nth of each thread) and only counts the\n"
	"                       others, at one check each: cheap enough to leave\n"
	"                       a recorder attached; the summary says which\n"
	"                       share of the runs the ETDump holds. Not with\n"
	"                       --precise, -e, --values, --allocations, --symbols\n"
	"      --sched          with --raw: when each of the target's threads was\n"
	"                       switched out and on which CPU it ran, as lanes in\n"
	"                       the timeline convert makes\n"
	"\n"
	"Long recordings (a series is FILE numbered: run.0001.etdp, ...):\n"
	"      --rotate SIZE|DURATION  a complete ETDump each time the runs\n"
	"                       held reach SIZE (K/M/G) or DURATION passed\n"
	"                       (s, ms, min, h)\n"
	"      --keep-slower-than DURATION|pNN  only runs whose events span at\n"
	"                       least DURATION, or more than the NN-th\n"
	"                       percentile of the runs seen so far (the first\n"
	"                       100 set it), with all their events\n"
	"      --flight-recorder N  hold the last N runs; write them on\n"
	"                       SIGUSR1 and at the end\n"
	"      --live           per-operator counts, mean and p99 durations\n"
	"                       each second on stdout (q quits); -o and --raw\n"
	"                       optional (etdump-bpf top -p PID is this)\n"
	"\n"
	"Symbol mode (a runtime without etdump probes, or --symbols): uprobes on\n"
	"the functions rules name, e.g. ExecuTorch's Method::execute and kernels.\n"
	"      --symbols        symbol mode even where etdump probes are\n"
	"      --rules FILE     rules for your runtime, before the built-in ones\n"
	"      --program PTE    the program's plan gives kernel calls their ids\n"
	"                       (else they follow call order: call-order ids)\n"
	"      --debug-file F   the executable's symbols, when it is stripped\n"
	"\n"
	"Stops when the target and every child recorded have exited, after\n"
	"--duration, or on SIGINT/SIGTERM;\n"
	"each way writes a valid file holding every complete run.\n"
	"Exit status: 0 written, 1 error, 2 usage, 3 written but events were lost.\n"
	"\n"
	"examples:\n"
	"  etdump-bpf record -o run.etdp -- ./runner --model m.pte\n"
	"  etdump-bpf record -o run.etdp -p 1234 --duration 10\n"
	"  etdump-bpf record -o run.etdp -- sh -c './runner --model m.pte'\n";

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
	uint32_t every;            /* --every N, or 0 */
	/* --follow-binary: armed as if the command line named them */
	char *follow_binaries[MAX_FOLLOW_BINARIES];
	size_t nfollow_binaries;
	struct counter_set counters;
	struct symbol_mode_opts sym;
	struct run_sink_opts sink;
	char **command;
};

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t dump_signal;

static void on_dump_signal(int sig)
{
	dump_signal = sig;
}

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "etdump-bpf record: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(see 'etdump-bpf record --help')\n");
	return EXIT_USAGE;
}

/* long options without a letter */
enum { OPT_RAW = 0x100, OPT_ROTATE, OPT_SLOWER, OPT_FLIGHT, OPT_SCHED,
       OPT_VALUES, OPT_DEBUG_BUFFER, OPT_ALLOCATIONS,
       OPT_ALLOCATIONS_IN_ETDUMP, OPT_LIVE, OPT_NO_INHERIT,
       OPT_FOLLOW_BINARY, OPT_EVERY };

/* --rotate: a duration when it says its unit, else a size */
static int parse_rotate(const char *arg, struct run_sink_opts *s)
{
	size_t n = strlen(arg);

	if (n && (arg[n - 1] == 's' || arg[n - 1] == 'h' ||
		  (n > 3 && !strcmp(arg + n - 3, "min"))))
		return parse_duration(arg, &s->rotate_ns) || !s->rotate_ns;
	return parse_size(arg, &s->rotate_bytes) || !s->rotate_bytes;
}

/* -p PID[,PID...]: the first is the target, the others more_targets.h's */
static int parse_pids(const char *arg, struct record_opts *o, char *err,
		      size_t errlen)
{
	pid_t pids[1 + CAPTURE_MAX_MORE];
	size_t n;
	int ret;

	ret = parse_pid_list(arg, pids, 1 + CAPTURE_MAX_MORE, &n, err, errlen);
	if (ret)
		return ret;
	o->pid = pids[0];
	o->nmore = n - 1;
	memcpy(o->more_pids, pids + 1, o->nmore * sizeof(*pids));
	return 0;
}

/* What asks for per-scope probes (or symbol mode), where --every is not. */
static const char *every_refused(const struct record_opts *o)
{
	return o->precise ? "--precise" : o->counters_given ? "-e" :
	       o->values ? "--values" : o->allocations ? "--allocations" :
	       o->sym.force ? "--symbols" : NULL;
}

static int parse_record_args(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "raw", required_argument, NULL, OPT_RAW },
		{ "sched", no_argument, NULL, OPT_SCHED },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "ring-size", required_argument, NULL, 'r' },
		{ "force", no_argument, NULL, 'f' },
		{ "event", required_argument, NULL, 'e' },
		{ "no-counters", no_argument, NULL, 'N' },
		{ "precise", no_argument, NULL, 'P' },
		{ "symbols", no_argument, NULL, 'S' },
		{ "rules", required_argument, NULL, 'R' },
		{ "program", required_argument, NULL, 'G' },
		{ "debug-file", required_argument, NULL, 'D' },
		{ "rotate", required_argument, NULL, OPT_ROTATE },
		{ "keep-slower-than", required_argument, NULL, OPT_SLOWER },
		{ "flight-recorder", required_argument, NULL, OPT_FLIGHT },
		{ "values", optional_argument, NULL, OPT_VALUES },
		{ "debug-buffer", required_argument, NULL, OPT_DEBUG_BUFFER },
		{ "allocations", no_argument, NULL, OPT_ALLOCATIONS },
		{ "allocations-in-etdump", no_argument, NULL,
		  OPT_ALLOCATIONS_IN_ETDUMP },
		{ "live", no_argument, NULL, OPT_LIVE },
		{ "no-inherit", no_argument, NULL, OPT_NO_INHERIT },
		{ "follow-binary", required_argument, NULL, OPT_FOLLOW_BINARY },
		{ "every", required_argument, NULL, OPT_EVERY },
		{ "help", no_argument, NULL, 'h' },
		CLI_COMMON_LONGOPTS,
		{},
	};
	uint64_t flight, pct, every;
	int c;

	char err[256];

	memset(o, 0, sizeof(*o));
	o->ring_bytes = ring_default_bytes();
	o->value_max = DEFAULT_VALUE_MAX;
	counters_default(&o->counters);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:p:d:e:fh" CLI_COMMON_SHORTOPTS,
				longopts, NULL)) != -1) {
		if (cli_common_option(c))
			continue;
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case OPT_RAW:
			o->raw = optarg;
			break;
		case 'p':
			if (parse_pids(optarg, o, err, sizeof(err)))
				return usage_error("%s", err);
			break;
		case 'd':
			if (parse_seconds(optarg, &o->duration_ns) ||
			    !o->duration_ns)
				return usage_error("invalid duration '%s' (seconds, e.g. 2 or 0.5)",
						   optarg);
			break;
		case 'r':
			if (parse_size(optarg, &o->ring_bytes) ||
			    o->ring_bytes < 4096 || o->ring_bytes > (1ull << 30) ||
			    (o->ring_bytes & (o->ring_bytes - 1)))
				return usage_error("invalid ring size '%s' (a power of two from 4K to 1G)",
						   optarg);
			break;
		case 'f':
			o->force = true;
			break;
		case 'e':
			if (counters_parse(optarg, &o->counters, err, sizeof(err)))
				return usage_error("%s", err);
			o->counters_given = true;
			/* what the user named, or nothing: no silent stand-ins */
			o->counters.required = true;
			break;
		case 'P':
			o->precise = true;
			break;
		case OPT_SCHED:
			o->sched = true;
			break;
		case 'N':
			o->no_counters = true;
			break;
		case 'S':
			o->sym.force = true;
			break;
		case 'R':
			o->sym.rules = optarg;
			break;
		case 'G':
			o->sym.program = optarg;
			break;
		case 'D':
			o->sym.debug_file = optarg;
			break;
		case OPT_ROTATE:
			if (parse_rotate(optarg, &o->sink))
				return usage_error("invalid --rotate '%s' (a size such as 64M, or a duration such as 10s, 5min, 1h)",
						   optarg);
			break;
		case OPT_SLOWER:
			if (optarg[0] == 'p' ?
				    parse_u64(optarg + 1, 1, 99, &pct) :
				    parse_duration(optarg, &o->sink.slower_than_ns) ||
					    !o->sink.slower_than_ns)
				return usage_error("invalid bound '%s' (a duration, e.g. 2ms, 0.5s, or a percentile, p1 to p99)",
						   optarg);
			o->sink.slower_pct = optarg[0] == 'p' ? pct : 0;
			break;
		case OPT_FLIGHT:
			if (parse_u64(optarg, 1, 1u << 20, &flight))
				return usage_error("invalid run count '%s' (1 to 1048576)",
						   optarg);
			o->sink.flight = flight;
			break;
		case OPT_VALUES:
			o->values = true;
			if (optarg && (parse_size(optarg, &o->value_max) ||
				       o->value_max > (1ull << 30)))
				return usage_error("invalid --values bound '%s' (bytes, K/M/G suffixes, at most 1G)",
						   optarg);
			break;
		case OPT_DEBUG_BUFFER:
			o->debug_buffer = optarg;
			break;
		case OPT_ALLOCATIONS_IN_ETDUMP:
			o->allocations_in_etdump = true;
			/* fall through */
		case OPT_ALLOCATIONS:
			o->allocations = true;
			break;
		case OPT_LIVE:
			o->live = true;
			break;
		case OPT_NO_INHERIT:
			o->no_inherit = true;
			break;
		case OPT_FOLLOW_BINARY:
			if (o->nfollow_binaries == MAX_FOLLOW_BINARIES)
				return usage_error("%s", "more than 16 --follow-binary");
			o->follow_binaries[o->nfollow_binaries++] = optarg;
			break;
		case OPT_EVERY:
			if (parse_u64(optarg, 1, UINT32_MAX, &every))
				return cli_usage_error("record", "invalid --every '%s' (a run count, 1 to 4294967295)",
						       optarg);
			o->every = (uint32_t)every;
			break;
		case 'h':
			fputs(record_usage, stdout);
			return -1;
		default:
			return cli_option_error("record", c, argv);
		}
	}
	if (optind < argc)
		o->command = &argv[optind];
	if (o->counters_given && o->no_counters)
		return usage_error("%s", "-e and --no-counters ask for opposite things: give one");
	/* as perf.data, kept unless -f; --live alone writes nothing */
	if (!o->output && !o->raw && !o->live)
		o->output = DEFAULT_OUTPUT;
	if (o->sched && !o->raw)
		return usage_error("%s", "--sched needs --raw FILE: its lanes are in the timeline convert makes of it");
	if (o->output && o->raw && output_same(o->output, o->raw))
		return usage_error("'%s' given for both -o and --raw", o->raw);
	if (o->debug_buffer && !o->values)
		return usage_error("%s", "--debug-buffer without --values: there would be no values");
	if (o->values && o->output && o->debug_buffer &&
	    output_same(o->output, o->debug_buffer))
		return usage_error("'%s' given for both -o and --debug-buffer", o->output);
	if (!o->pid == !o->command)
		return usage_error("%s", "give either -p PID or a command to run");
	if (o->every && every_refused(o))
		return cli_usage_error("record", "--every keeps one run in N in batched mode: not with %s, which does not record batched",
				       every_refused(o));
	if (o->no_inherit && o->nfollow_binaries)
		return usage_error("%s", "--follow-binary and --no-inherit ask for opposite things: give one");
	if (o->sink.flight && (o->sink.rotate_bytes || o->sink.rotate_ns))
		return usage_error("%s", "--flight-recorder and --rotate: give one");
	/*
	 * A raw piece cut while runs are open would lose them in both pieces'
	 * convert, and one capture beside a series would grow without the
	 * bound the series sets: refused, not half done.
	 */
	if (o->raw && (o->sink.rotate_bytes || o->sink.rotate_ns))
		return usage_error("%s", "--rotate and --raw: a raw capture is one stream that convert replays whole; rotate the ETDumps (-o) or keep one capture (--raw)");
	if (run_sink_wanted(&o->sink) && !o->output)
		return usage_error("%s", "--rotate, --keep-slower-than and --flight-recorder write ETDumps: give -o FILE");
	o->sink.output = o->output;
	o->sink.force = o->force;
	return 0;
}

/* Refuse before attaching anything: losing a capture to a bad path is worse. */
static int check_output(struct record_opts *o)
{
	char first[4096];
	const char *out = o->output;
	int err;

	if (stdout_output_is(out)) {
		if (run_sink_wanted(&o->sink)) {
			p_err("-o -: --rotate, --keep-slower-than and --flight-recorder write files: give one a name");
			return -EINVAL;
		}
		if (o->values && !o->debug_buffer) {
			p_err("-o - with --values: name the debug buffer's file (--debug-buffer FILE)");
			return -EINVAL;
		}
		out = NULL;
	}
	/* a series: its first file */
	if (out && run_sink_series(&o->sink)) {
		if (run_sink_name(out, 1, first, sizeof(first))) {
			p_err("%s: the series' names are too long", out);
			return -ENAMETOOLONG;
		}
		out = first;
	}
	err = out ? output_check(out, o->force) : 0;

	if (!err && o->raw)
		err = output_check(o->raw, o->force);
	/* values: their debug buffer goes beside the ETDump */
	if (err || !o->values || !o->output)
		return err;
	o->debug_buffer_path = o->debug_buffer ? strdup(o->debug_buffer) :
				debug_buffer_path_for(o->output);
	if (!o->debug_buffer_path)
		return -ENOMEM;
	return output_check(o->debug_buffer_path, o->force);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * Every record goes to the raw capture first, then to the collector, in
 * the ring's order: convert replays the capture into the same collector.
 */
struct record_sink {
	struct collector *col;
	struct raw_writer *raw;  /* --raw, once open */
	struct symbol_mode *sm;  /* symbol mode: its records translated first */
	struct thread_names names; /* --raw: each thread's comm */
};

static int feed_one(struct record_sink *sink, const void *rec, size_t len)
{
	int err;

	if (sink->raw) {
		err = raw_writer_append(sink->raw, rec, len);
		if (!err)
			err = raw_name_thread(sink->raw, &sink->names, rec, len);
		if (err)
			return err;
	}
	/* --sched's switches are the timeline's, not the ETDump's */
	if (sched_record_is(rec, len))
		return 0;
	/* a malformed record is counted by the collector; keep reading */
	err = sink->sm ? symbol_mode_feed(sink->sm, rec, len) :
			 collector_feed(sink->col, rec, len);
	return err == -ENOMEM ? err : 0;
}

static int feed_collector(void *ctx, const void *rec, size_t len)
{
	struct record_sink *sink = ctx;
	const void *note;
	size_t note_len;
	int err;

	/* symbol mode's measure of its probes goes first, raw capture too */
	note = sink->sm ? symbol_mode_note(sink->sm, rec, len, &note_len) :
			  NULL;
	if (note) {
		err = feed_one(sink, note, note_len);
		if (err)
			return err;
	}
	return feed_one(sink, rec, len);
}

/*
 * What idle threads hold in their batched buffers, read from the process
 * (a run there is seen within PULL_INTERVAL_NS, and none is lost at the
 * end of a recording that the target outlives).
 */
static int pull_buffers(struct record_sink *sink, uint64_t idle_ns)
{
	if (sink->sm)
		return 0;
	return batch_pull(collector_batch_threads(sink->col), now_ns(),
			  idle_ns, feed_collector, sink);
}

static void print_status(struct collector *col, struct capture *cap,
			 bool final)
{
	fprintf(stderr, "\r  %llu events, %llu runs, %llu dropped%s",
		(unsigned long long)collector_events_seen(col),
		(unsigned long long)collector_runs_seen(col),
		(unsigned long long)capture_drops(cap), final ? "\n" : "   ");
}

enum stop_reason { STOP_EXIT, STOP_DURATION, STOP_SIGNAL, STOP_QUIT };

static int collect(const struct record_opts *o, struct target *t,
		   struct more_targets *more, struct follow_children *fc,
		   struct capture *cap, struct record_sink *sink,
		   struct run_sink *rs, struct etdump_ahead_thread *ahead,
		   struct live_view *lv, enum stop_reason *why)
{
	struct collector *col = sink->col;
	struct raw_writer *raw = sink->raw;
	uint64_t start = now_ns(), last_status = 0, last_pull = start, now;
	/* the live view has the terminal */
	bool tty = isatty(STDERR_FILENO) && !lv;
	struct pollfd pfd[3] = {
		{ .fd = capture_fd(cap), .events = POLLIN },
		{ .fd = t->pidfd, .events = POLLIN },
		{ .fd = fc ? follow_children_fd(fc) : -1, .events = POLLIN },
	};
	int err, more_runs = 0;

	for (;;) {
		/* runs waiting for the file: only a look at the ring first */
		if (poll(pfd, 3, more_runs ? 0 : POLL_INTERVAL_MS) < 0 &&
		    errno != EINTR)
			return -errno;
		/* a child that exec'd: attached before its exit is looked at */
		err = fc ? follow_children_consume(fc) : 0;
		if (err < 0)
			return err;
		err = capture_consume(cap);
		if (err < 0)
			return err;
		/* one slab of complete runs into the file, then the ring again */
		more_runs = ahead ? etdump_ahead_thread_drain(
					    ahead, collector_log(col), false) :
				    0;
		if (more_runs < 0)
			return more_runs;
		err = 0;
		/* a crash loses at most one poll interval of the raw capture */
		if (raw && (err = raw_writer_flush(raw, capture_drops(cap))))
			return err;
		now = now_ns();
		if (now - last_pull >= PULL_INTERVAL_NS) {
			last_pull = now;
			err = pull_buffers(sink, PULL_INTERVAL_NS);
			if (err)
				return err;
		}
		err = 0;
		if (rs && dump_signal) {
			dump_signal = 0;
			err = run_sink_dump(rs);
		} else if (rs) {
			err = run_sink_poll(rs, now);
		}
		if (err)
			return err;
		if (lv && live_view_tick(lv, now, capture_drops(cap))) {
			*why = STOP_QUIT;
			break;
		}
		if (stop_signal) {
			*why = STOP_SIGNAL;
			break;
		}
		if (target_has_exited(t)) {
			pfd[1].fd = -1; /* readable for ever from now on */
			if (more_targets_exited(more) &&
			    (!fc || follow_children_exited(fc))) {
				*why = STOP_EXIT;
				break;
			}
		}
		if (o->duration_ns && now - start >= o->duration_ns) {
			*why = STOP_DURATION;
			break;
		}
		if (tty && now - last_status >= STATUS_INTERVAL_NS) {
			print_status(col, cap, false);
			last_status = now;
		}
	}
	if (tty)
		print_status(col, cap, true);
	/* everything the target submitted is in the ring: drain it */
	while ((err = capture_consume(cap)) > 0)
		;
	/* then what its threads hold, if it lives on */
	return err < 0 ? err : pull_buffers(sink, 0);
}

static const char *const stop_reasons[] = {
	[STOP_EXIT] = "target exited",
	[STOP_DURATION] = "duration reached",
	[STOP_SIGNAL] = "interrupted",
	[STOP_QUIT] = "quit",
};

/* --live without an output: runs are only counted */
static int drop_run(void *ctx, struct run_view *r)
{
	(void)ctx;
	(void)r;
	return 0;
}

static void print_summary(const struct record_opts *o, const struct target *t,
			  enum stop_reason why, const char *runs,
			  const struct collector_stats *st, uint64_t drops)
{
	char files[4096];

	snprintf(files, sizeof(files), "%s%s%s",
		 stdout_output_is(o->output) ? "standard output" :
		 o->output ? o->output : "",
		 o->output && o->raw ? " and " : "", o->raw ? o->raw : "");
	summary_totals_text(stop_reasons[why], files, runs, st, drops);
	summary_every(o->every, st);
	if (t->spawned && t->exited && WIFEXITED(t->wait_status) &&
	    WEXITSTATUS(t->wait_status))
		p_info("target exited with status %d", WEXITSTATUS(t->wait_status));
	if (t->spawned && t->exited && WIFSIGNALED(t->wait_status))
		p_info("target killed by signal %d", WTERMSIG(t->wait_status));
	summary_notes(st, drops);
}

/*
 * The runs the sink holds go to their (last) file; the summary counts what
 * was written, and what --keep-slower-than left out.
 */
static int finish_sink(const struct record_opts *o, const struct target *t,
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
		print_summary(o, t, why, "", stats, drops);
		return drops ? EXIT_LOST : EXIT_OK;
	}
	/* checked when the series started: the names fit */
	run_sink_name(o->output, 1, first, sizeof(first));
	run_sink_name(o->output, ss->files, last, sizeof(last));
	snprintf(files, sizeof(files), "%u file(s) %s%s%s%s%s", ss->files,
		 first, ss->files > 1 ? " to " : "",
		 ss->files > 1 ? last : "", o->raw ? " and " : "",
		 o->raw ? o->raw : "");
	summary_totals_text(stop_reasons[why], files, "", stats, drops);
	summary_notes(stats, drops);
	return drops ? EXIT_LOST : EXIT_OK;
}

/*
 * An ETDump without runs is one the Inspector cannot load: nothing is
 * written but the raw capture, and the user hears the likeliest reason.
 */
static void no_runs(const struct record_opts *o,
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
		      "another recorder may hold its batched probes; "
		      "a library it loads later is not seen (attach with -p once it is loaded)";
	p_err("no complete run recorded, %s written: %s",
	      o->output ? "no ETDump" : "nothing", why);
	if (o->raw)
		p_info("the raw capture %s holds what was seen", o->raw);
}

/*
 * The raw capture's header says what convert needs to replay it as this
 * recording: the probes attached, the counters, the collector's start.
 */
static int open_raw(const struct record_opts *o, const struct target *t,
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

/* Target set up; the files carrying its probes, executable first. */
static int open_target(const struct record_opts *o, struct target *t,
		       struct probe_objects *objs)
{
	char err[512];
	int ret;

	if (o->pid)
		ret = target_open_pid(t, o->pid, err, sizeof(err));
	else
		ret = target_spawn(t, o->command, err, sizeof(err));
	if (!ret)
		ret = probe_objects_find(objs, t->pid, t->exe, !t->spawned, err,
					 sizeof(err));
	if (ret)
		p_err("%s", err);
	/* without etdump probes, symbol mode (symbol_mode.h) takes over */
	return ret;
}

/*
 * Batched where the runtime supports it (it carries the flush probe): the
 * cheapest per event. Per-scope probes when asked, or for counters, which
 * only a probe in the kernel can read at each scope.
 */
static bool choose_mode(const struct record_opts *o,
			const struct probe_objects *objs, bool quiet)
{
	/* no probes here: the children's, batched unless asked otherwise */
	if (objs->etdump && !probe_objects_all_have(objs, "flush")) {
		if (o->precise)
			p_info("mode: per-scope probes (the runtime has no flush probe)");
		return false;
	}
	if (o->precise || o->counters_given || o->values || o->allocations) {
		/* quiet: the children's first attach says the mode */
		if (quiet)
			return false;
		p_info("mode: per-scope probes%s", o->precise ? "" :
		       o->values ? " (values need them: --values implies --precise)" :
		       o->allocations ? " (allocations need them: --allocations implies --precise)" :
		       " (counters need them: -e implies --precise)");
		return false;
	}
	if (!quiet)
		p_info("mode: batched (each thread buffers its events and hands them over when its buffer fills or a run ends %llu ms after the last flush; no counters; --precise for per-scope probes)",
		       ETDUMP_BATCH_BOUND_NS / 1000000ull);
	return true;
}

/*
 * Another tracer already on a running target's probes: the runtime batches
 * while anything holds `flush`, so per-scope and batched tracers cannot
 * share one process; tracers of one mode can, each gets every event.
 */
static int check_other_tracers(const struct target *t,
			       const struct probe_objects *objs, bool batched)
{
	struct probe_holders h;
	char err[512];
	size_t i;

	if (t->spawned)
		return 0;
	for (i = 0; i < objs->n; i++) {
		if (!objs->v[i].etdump)
			continue;
		if (probe_semaphores_read(t->pid, &objs->v[i], &h, err,
					  sizeof(err))) {
			p_warn("%s; cannot tell whether another tracer holds the probes",
			       err);
			continue;
		}
		if (batched && h.per_scope && !h.batch) {
			p_err("process %d is already traced with per-scope probes (another 'etdump-bpf record --precise', bpftrace or perf): batched recording would take its events; record with --precise to share them, or stop the other tracer",
			      (int)t->pid);
			return -EBUSY;
		}
		if (!batched && h.batch) {
			p_err("process %d is already recorded in batched mode by another 'etdump-bpf record': its runtime batches while that holds, so per-scope probes would see nothing; stop the other recorder, or record without --precise and -e to share its batches",
			      (int)t->pid);
			return -EBUSY;
		}
	}
	return 0;
}

/* The debug buffer beside the ETDump, empty when no value came. */
static int write_values(const struct record_opts *o,
			const struct value_capture *vc)
{
	const uint8_t *data = NULL;
	size_t len = 0;

	if (vc)
		data = value_capture_buffer(vc, &len);
	return debug_buffer_write(o->debug_buffer_path, data, len, o->force);
}

/*
 * --every's word back to 0 in the targets that live on, once: nothing of
 * this recording's stays in a process it leaves.
 */
static void reset_every(struct target *t, const struct probe_objects *objs,
			struct more_targets *more, bool *set)
{
	record_every_detach(t, objs, set[0]);
	set[0] = false;
	for (size_t i = 0; i < more->n; i++) {
		record_every_detach(&more->t[i], &more->objs[i], set[1 + i]);
		set[1 + i] = false;
	}
}

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
	pid_t roots[1 + CAPTURE_MAX_MORE];
	/* --every's word is ours to reset: the target's, then more's */
	bool every_set[1 + CAPTURE_MAX_MORE] = { false };
	bool follow, children_only = false, sym_alone;
	uint64_t ns_dev, ns_ino;
	/*
	 * SA_RESTART: poll() is cut short by a signal all the same (signal(7):
	 * never restarted), and a write to the terminal it interrupts (top's
	 * table) goes on instead of failing stdout with EINTR.
	 */
	struct sigaction sa = { .sa_handler = on_stop_signal,
				.sa_flags = SA_RESTART };
	enum stop_reason why = STOP_EXIT;
	int nattached = 0, err, ret = EXIT_FAIL, out_fd = -1;
	struct etd_dump dump = { 0 };
	uint64_t drops, start;
	char msg[256], runs[256], note[PATH_MAX + 256];
	char *no_words[] = { NULL };  /* -p: no command line to read */

	err = parse_record_args(argc, argv, &o);
	if (err)
		return err < 0 ? 0 : err;
	if (privileges_check_record(msg, sizeof(msg))) {
		p_err("%s", msg);
		return EXIT_FAIL;
	}
	if (check_output(&o)) {
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

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* the kernel keeps these after a SIGKILL: no one else removes them */
	tracefs_leftovers_clean();

	if (open_target(&o, &t, &objs))
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
		collector_set_run_sink(col, drop_run, NULL);
	if (o.sink.flight) {
		struct sigaction usr = { .sa_handler = on_dump_signal,
					 .sa_flags = SA_RESTART };

		sigaction(SIGUSR1, &usr, NULL);
	}
	/* inside a PID namespace the tracepoints' pids are not ours */
	target_pid_namespace(&ns_dev, &ns_ino);
	follow = !o.no_inherit && !ns_ino;
	/* symbol mode: uprobes on functions, neither batched nor counted */
	o.sym.values = o.values;
	o.sym.value_max = o.value_max;
	o.sym.allocations = o.allocations;
	if (symbol_mode_wanted(&o.sym, objs.etdump) &&
	    symbol_mode_open(&sink.sm, &o.sym, col))
		goto cleanup;
	/*
	 * A command without probes whose functions no rule names either (a
	 * shell): its children are what is recorded.
	 */
	if (sink.sm && follow && o.command && !symbol_mode_asked(&o.sym) &&
	    symbol_mode_find(sink.sm, &t) <= 0) {
		unused_sm = sink.sm;
		sink.sm = NULL;
		children_only = true;
	}
	/* said once symbol mode is attached */
	sym_alone = sink.sm && follow;
	follow = follow && !sink.sm;
	copts.batched = !sink.sm && choose_mode(&o, &objs, children_only);
	/* a thread's whole buffer is one record: the ring holds a few */
	if (copts.batched && o.ring_bytes < BATCHED_MIN_RING_BYTES) {
		p_info("--ring-size %llu raised to %llu: a batched flush is %d bytes",
		       (unsigned long long)o.ring_bytes,
		       (unsigned long long)BATCHED_MIN_RING_BYTES,
		       ETDUMP_BATCH_BYTES);
		o.ring_bytes = BATCHED_MIN_RING_BYTES;
	}
	p_debug("ring buffer: %llu KiB", (unsigned long long)o.ring_bytes >> 10);
	if (!sink.sm && check_other_tracers(&t, &objs, copts.batched))
		goto cleanup;
	for (size_t i = 0; !sink.sm && i < more.n; i++)
		if (check_other_tracers(&more.t[i], &more.objs[i],
					copts.batched))
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
	if (!copts.batched && !sink.sm && !o.no_counters &&
	    setup_counters(&o.counters, col))
		goto cleanup;
	copts.counters = copts.batched || sink.sm || o.no_counters ?
				 NULL : &o.counters;
	/*
	 * One file of every run: built as the runs complete (collect() moves
	 * them from the collector's log), unless the memory summary
	 * (--allocations) wants them whole at the end. The counters' names
	 * are known from here on.
	 */
	if (o.output && !rs && !o.allocations) {
		meta.counter_names = collector_counter_names(col,
							     &meta.ncounters);
		if (etdump_stream_open(&es, &meta))
			goto cleanup;
		if (out_fd < 0)
			etdump_stream_spill_near(es, o.output);
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
	copts.on_record = feed_collector;
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
	if (sink.sm ? symbol_mode_attach(sink.sm, cap, &t, &nattached) :
	    children_only ? 0 : capture_attach(cap, &objs, &nattached))
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
	if (sym_alone)
		p_info("symbol mode records PID %d alone: children are followed in USDT mode only",
		       t.pid);
	start = now_ns();
	collector_set_start(col, start);
	if (children_only) {
		/* said once a child is recorded; a refusal at the end if none */
		snprintf(note, sizeof(note), "PID %d (%s): no 'etdump' USDT probes: recording the processes it starts that exec a binary with them (--no-inherit: refuse); mode: %s",
			 t.pid, t.exe, copts.batched ? "batched" : "per-scope probes");
		if (follow_children_first_note(fc, note))
			goto cleanup;
	} else {
		p_info("attached %d probe(s) to PID %d (%s%s)%s", nattached,
		       t.pid, t.exe,
		       !sink.sm && objs.n > 1 ? " and its libraries" : "",
		       o.pid ? "; Ctrl-C to stop" : "");
	}
	snprintf(title, sizeof(title), "PID %d (%s)", t.pid, t.exe);
	if (more_targets_attach(&more, cap, &nattached) ||
	    (o.live && live_view_open(&lv, col, title)))
		goto cleanup;
	for (size_t i = 0; fc && i < more.n; i++)
		if (follow_children_attached(fc, more.pids[i], more.t[i].exe))
			goto cleanup;
	if (o.every > 1 && t.spawned && objs.etdump) {
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
	if (o.raw && open_raw(&o, &t, cap, &copts, start, argv, argc,
			      &sink.raw))
		goto cleanup;

	err = collect(&o, &t, &more, fc, cap, &sink, rs, ahead, lv, &why);
	reset_every(&t, &objs, &more, every_set);
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
	err = raw_rename_threads(sink.raw, &sink.names);
	if (!err && sink.raw)
		err = raw_writer_finish(sink.raw, drops, stop_reasons[why]);
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
		       stop_reasons[why], (unsigned long long)stats.runs,
		       (unsigned long long)stats.events,
		       (unsigned long long)drops);
		ret = drops ? EXIT_LOST : EXIT_OK;
		goto cleanup;
	}
	if (!stats.runs && children_only && !follow_children_count(fc)) {
		if (follow_children_missed(fc))
			p_err("%s: no 'etdump' USDT probes, and the %zu process(es) with them it started exited before they could be attached: a child is attached after its exec (milliseconds to seconds), so a runtime that ends sooner is not recorded; start the runtime itself under record (README: Following children)",
			      t.exe, follow_children_missed(fc));
		else
			symbol_mode_explain(unused_sm, t.exe);
		goto cleanup;
	}
	if (!stats.runs) {
		no_runs(&o, &stats, drops);
		loss_summary_say(col, drops, o.ring_bytes);
		goto cleanup;
	}
	if (rs) {
		ret = finish_sink(&o, &t, why, rs, &stats, drops);
		goto cleanup;
	}
	if (es)
		run_names_describe(etdump_stream_names(es), runs, sizeof(runs));
	else
		summary_describe_log(collector_log(col), runs, sizeof(runs));
	meta.counter_names = collector_counter_names(col, &meta.ncounters);
	if (es && out_fd >= 0) {
		err = stdout_output_write_stream(out_fd, es);
		out_fd = -1;
	} else if (es) {
		err = etdump_stream_write_file(es, o.output, o.force, &kept);
	} else if (o.allocations) {
		/* whole runs, for the memory summary as for the file */
		err = collector_dump_log(col, &dump);
		dump.allocations = o.allocations_in_etdump ?
			ETD_ALLOCATIONS_WRITE : ETD_ALLOCATIONS_LEAVE_OUT;
		if (!err && out_fd >= 0)
			err = stdout_output_write_dump(out_fd, &dump);
		else if (!err && o.output)
			err = etdump_write_file(&dump, o.output, o.force, &kept);
		out_fd = -1;
	} else if (out_fd >= 0) {
		err = stdout_output_write_log(out_fd, collector_log(col), &meta);
		out_fd = -1;
	} else {
		err = o.output ? etdump_write_log_file(collector_log(col), &meta,
						       o.output, o.force, &kept) : 0;
	}
	if (err) {
		output_error(o.output, err, kept);
		free(kept);
		goto cleanup;
	}
	if (o.output && o.values &&
	    write_values(&o, collector_values(col)))
		goto cleanup;
	print_summary(&o, &t, why, runs, &stats, drops);
	loss_summary_say(col, drops, o.ring_bytes);
	if (sink.sm && !o.sym.program)
		p_info("instruction ids are call-order ids (chain 0, numbered in the order the calls ran; runs keep ETDumpGen's names): record --program PTE gives the plan's");
	if (sink.sm)
		symbol_mode_summary(sink.sm);
	if (o.values && collector_values(col))
		value_capture_summary(collector_values(col), o.debug_buffer_path,
				      o.value_max);
	if (o.allocations)
		memory_summary(&dump);
	ret = drops ? EXIT_LOST : EXIT_OK;
cleanup:
	reset_every(&t, &objs, &more, every_set);
	target_stop(&t);
	target_close(&t);
	more_targets_close(&more);
	follow_children_free(fc);
	symbol_mode_free(unused_sm);
	symbol_mode_free(sink.sm);
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
	probe_objects_free(&objs);
	counters_close(&o.counters);
	if (out_fd >= 0)
		close(out_fd); /* the reader sees an empty file: no ETDump */
	free(o.debug_buffer_path);
	return ret;
}

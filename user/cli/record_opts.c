// SPDX-License-Identifier: BSD-3-Clause
/*
 * record_opts.c - `etdump-bpf record`'s command line: its usage text, the
 * options read into struct record_opts, and the outputs refused before
 * anything is attached.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "capture/ring_default.h"
#include "cli/cli.h"
#include "cli/record.h"
#include "lib/exit_code.h"
#include "lib/file_io.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "model/debug_buffer.h"
#include "target/pid_list.h"
#include "write/stdout_output.h"


/* record --values: a whole tensor up to this, the rest cut (and counted) */
#define DEFAULT_VALUE_MAX (1u << 20)

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
	"      --wait-for-runtime  -p: a process that carries no runtime yet\n"
	"                       (no etdump probes, no function a rule names) is\n"
	"                       recorded once it loads one (dlopen) or a child\n"
	"                       execs one, instead of refused; --duration gives\n"
	"                       up after a time\n"
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
	"      --duty PCT[/PERIOD]  symbol mode: the probes attached PCT % of\n"
	"                       the time, the first PCT % of every PERIOD\n"
	"                       (default 1s), out for the rest; only whole\n"
	"                       executions written, the ones cut counted; the\n"
	"                       summary, the ETDump's note and report say the\n"
	"                       share of the time traced\n"
	"      --repeat N       record the command N times, one process after\n"
	"                       the other, each into its own files numbered\n"
	"                       as a series (run.0001.etdp, ...): the\n"
	"                       recordings diff BASE... -- NEW... compares\n"
	"      --alternate-with FILE  with --repeat N: a second command, after\n"
	"                       the first's own --, recorded into FILE numbered\n"
	"                       the same way, the two taking turns (A B A B\n"
	"                       ...): a machine that drifts slows both sides\n"
	"                       alike (record --repeat 5 -o base.etdp\n"
	"                       --alternate-with new.etdp -- OLD -- NEW)\n"
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
	"      --exact-returns  each kernel's return probed too (two traps a\n"
	"                       call), not ended at the next event (one trap)\n"
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
       OPT_FOLLOW_BINARY, OPT_EVERY, OPT_REPEAT, OPT_ALTERNATE, OPT_DUTY,
       OPT_EXACT_RETURNS, OPT_WAIT_RUNTIME };

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

/*
 * --alternate-with: the words after the command's own "--" are the second
 * command (the first keeps the words before it); -1 when either is empty.
 */
static int split_alternate(struct record_opts *o, int nwords)
{
	int i;

	for (i = 0; o->command && i < nwords; i++) {
		if (strcmp(o->command[i], "--"))
			continue;
		o->command[i] = NULL;
		o->alternate_command = &o->command[i + 1];
		return i && o->alternate_command[0] ? 0 : -1;
	}
	return -1;
}

/* What --repeat cannot go with: one process, one stream, one name. */
static const char *repeat_refused(const struct record_opts *o)
{
	if (o->pid)
		return "-p (a running process is recorded once: give a command)";
	if (o->output && stdout_output_is(o->output))
		return "-o - (several ETDumps cannot share standard output)";
	if (run_sink_wanted(&o->sink))
		return "--rotate, --keep-slower-than or --flight-recorder";
	if (o->live)
		return "--live";
	if (o->debug_buffer)
		return "--debug-buffer (each ETDump's debug buffer goes beside it)";
	return NULL;
}

int record_parse_args(int argc, char **argv, struct record_opts *o)
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
		{ "exact-returns", no_argument, NULL, OPT_EXACT_RETURNS },
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
		{ "wait-for-runtime", no_argument, NULL, OPT_WAIT_RUNTIME },
		{ "every", required_argument, NULL, OPT_EVERY },
		{ "repeat", required_argument, NULL, OPT_REPEAT },
		{ "alternate-with", required_argument, NULL, OPT_ALTERNATE },
		{ "duty", required_argument, NULL, OPT_DUTY },
		{ "help", no_argument, NULL, 'h' },
		CLI_COMMON_LONGOPTS,
		{},
	};
	uint64_t flight, pct, every, repeat;
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
		case OPT_EXACT_RETURNS:
			o->sym.exact_returns = true;
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
		case OPT_WAIT_RUNTIME:
			o->wait_runtime = true;
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
		case OPT_REPEAT:
			if (parse_u64(optarg, 1, 9999, &repeat))
				return cli_usage_error("record", "invalid --repeat '%s' (a count of recordings, 1 to 9999)",
						       optarg);
			o->repeat = (uint32_t)repeat;
			break;
		case OPT_ALTERNATE:
			o->alternate_output = optarg;
			break;
		case OPT_DUTY:
			if (record_duty_parse(optarg, &o->duty))
				return cli_usage_error("record", "invalid --duty '%s' (PCT[/PERIOD]: 0.1 to 99.9 %% of every PERIOD, 10ms or more, default 1s)",
						       optarg);
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
	if (o->alternate_output && split_alternate(o, argc - optind))
		return usage_error("%s", "--alternate-with FILE records a second command: give both, -- CMD ... -- CMD2 ...");
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
	if (o->every && o->duty.permille)
		return usage_error("%s", "--every and --duty: give one");
	/* convert would replay the windows' records as one stream */
	if (o->raw && o->duty.permille)
		return usage_error("%s", "--duty and --raw: a raw capture is replayed as one stream, without the windows that leave cut executions out; record the ETDump (-o)");
	if (o->wait_runtime && (!o->pid || o->nmore))
		return usage_error("%s", "--wait-for-runtime waits for one -p process to load its runtime: give it one PID");
	if (o->wait_runtime && o->no_inherit)
		return usage_error("%s", "--wait-for-runtime and --no-inherit: a runtime a child execs is one it waits for; give one");
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
	if (o->alternate_output && !o->repeat)
		return usage_error("%s", "--alternate-with takes turns with the first command: give --repeat N, the recordings of each");
	if (o->alternate_output && o->raw)
		return usage_error("%s", "--alternate-with writes ETDumps (-o and FILE): not with --raw");
	if (o->alternate_output && o->output && output_same(o->output, o->alternate_output))
		return usage_error("'%s' given for both -o and --alternate-with", o->output);
	if ((o->repeat > 1 || o->alternate_output) && repeat_refused(o))
		return cli_usage_error("record", "--repeat records a command several times, each into its own numbered files: not with %s",
				       repeat_refused(o));
	o->sink.output = o->output;
	o->sink.force = o->force;
	return 0;
}

/* Refuse before attaching anything: losing a capture to a bad path is worse. */
int record_check_output(struct record_opts *o)
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
		if (file_series_name(out, 1, first, sizeof(first))) {
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

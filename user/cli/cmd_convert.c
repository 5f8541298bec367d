// SPDX-License-Identifier: BSD-3-Clause
/*
 * cmd_convert.c - `etdump-bpf convert`: replay a raw capture through the
 * collector, as `record` fed it live, into an ETDump, a Chrome trace or a
 * pprof profile; an ETDump into a Chrome trace or a pprof profile.
 */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/commands.h"
#include "collect/collector.h"
#include "collect/value_capture.h"
#include "convert/convert_etdump.h"
#include "convert/convert_stream.h"
#include "convert/raw_replay.h"
#include "lib/file_io.h"
#include "lib/log.h"
#include "model/debug_buffer.h"
#include "read/raw_reader.h"
#include "symbol/symbol_calibrate.h"
#include "write/chrome_writer.h"
#include "write/etdump_writer.h"
#include "write/pprof_writer.h"
#include "write/sched_lanes.h"
#include "write/summary.h"

static const char convert_usage[] =
	"usage: etdump-bpf convert FILE -o OUT [--format etdump|chrome|pprof] [-f]\n"
	"\n"
	"Turn a raw capture (record --raw) into an ETDump, the very file\n"
	"record -o writes from the same events, into a Chrome trace-event\n"
	"JSON that Perfetto's UI (ui.perfetto.dev) and chrome://tracing open,\n"
	"or into a pprof profile. An ETDump (ours or ExecuTorch's ETDumpGen)\n"
	"converts to the last two.\n"
	"\n"
	"  -o, --output OUT     the file to write (required)\n"
	"  -F, --format FMT     etdump, chrome (default when OUT ends in .json)\n"
	"                       or pprof (default when OUT ends in .pb.gz)\n"
	"  -f, --force          overwrite OUT if it exists (and its debug buffer)\n"
	"      --slice-args     chrome: every slice with its run, ids and counters\n"
	"                       as args (Perfetto's args panel); speedscope then\n"
	"                       shows each call as its own frame\n"
	"A capture made with record --values also gives the debug buffer beside\n"
	"an ETDump: OUT with .etdp replaced by .debug.bin.\n"
	"\n"
	"pprof: a gzipped profile.proto, as go tool pprof, Pyroscope, Parca and\n"
	"Grafana read it. One sample per event nesting: its block (the run's\n"
	"name) at the root, the events around it (OPERATOR_CALL with its\n"
	"instruction), the event at the leaf. Sample types: events (count),\n"
	"wall (nanoseconds, the default) and one per recorded counter; each\n"
	"sample holds the event's own part (flat), so an operator's cum is the\n"
	"sum of its durations, as report sums them. Labels: run (from 1),\n"
	"block, thread (and tid from a raw capture). Comments: the recorder,\n"
	"its command, when, and this conversion. Time and duration are the\n"
	"recording's (an ETDump has no wall clock: no time, its events' span).\n"
	"\n"
	"A capture cut short (recorder killed, disk full) converts every complete\n"
	"chunk, with a warning naming the byte where it ends.\n"
	"Exit status: 0 written, 1 error, 2 usage, 3 written but the kernel\n"
	"dropped events, 4 written but the capture is damaged: what precedes the\n"
	"damage is converted.\n"
	"\n"
	"examples:\n"
	"  etdump-bpf convert run.raw -o run.etdp\n"
	"  etdump-bpf convert run.raw -o run.json\n"
	"  etdump-bpf convert run.etdp -o run.pb.gz && go tool pprof -top run.pb.gz\n";

enum format { FORMAT_ETDUMP, FORMAT_CHROME, FORMAT_PPROF };

struct convert_opts {
	const char *input;
	const char *output;
	enum format format;
	bool force;
	unsigned int chrome_flags;
	int argc;               /* the command, for the profile's comments */
	char **argv;
};

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "etdump-bpf convert: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(see 'etdump-bpf convert --help')\n");
	return EXIT_USAGE;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static int parse_convert_args(int argc, char **argv, struct convert_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'F' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "slice-args", no_argument, NULL, 'A' },
		{},
	};
	const char *format = NULL;
	int c;

	memset(o, 0, sizeof(*o));
	optind = 1;
	opterr = 0; /* cli_option_error() says it in one line */
	while ((c = getopt_long(argc, argv, ":o:F:fh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'F':
			format = optarg;
			break;
		case 'f':
			o->force = true;
			break;
		case 'A':
			o->chrome_flags |= CHROME_SLICE_ARGS;
			break;
		case 'h':
			fputs(convert_usage, stdout);
			return -1;
		default:
			return cli_option_error("convert", c, argv);
		}
	}
	if (optind + 1 != argc)
		return usage_error("%s", "give one raw capture or ETDump to convert");
	o->input = argv[optind];
	if (!o->output)
		return usage_error("%s", "no output file: give -o FILE");
	o->argc = argc;
	o->argv = argv;
	if (!format)
		format = ends_with(o->output, ".json") ? "chrome" :
			 ends_with(o->output, ".pb.gz") ? "pprof" : "etdump";
	if (!strcmp(format, "etdump"))
		o->format = FORMAT_ETDUMP;
	else if (!strcmp(format, "chrome"))
		o->format = FORMAT_CHROME;
	else if (!strcmp(format, "pprof"))
		o->format = FORMAT_PPROF;
	else
		return usage_error("unknown format '%s' (etdump, chrome or "
				   "pprof)", format);
	return 0;
}

/* Why the capture ends, warned about when it was cut or damaged. */
static void report_end(const struct convert_opts *o,
		       const struct raw_info *info, char *how, size_t len)
{
	switch (info->state) {
	case RAW_COMPLETE:
		snprintf(how, len, "converted %s (%s)", o->input,
			 *info->stop ? info->stop : "recording ended");
		break;
	case RAW_TRUNCATED:
		p_warn("%s: %s; converted the %llu complete chunk(s) before it",
		       o->input, info->message,
		       (unsigned long long)info->chunks);
		snprintf(how, len, "converted %s (truncated)", o->input);
		break;
	default:
		p_err("%s: %s; converted the %llu chunk(s) before it",
		      o->input, info->message,
		      (unsigned long long)info->chunks);
		snprintf(how, len, "converted %s (damaged)", o->input);
	}
}

static int write_values(const struct convert_opts *o,
			const struct value_capture *vc)
{
	char *path = debug_buffer_path_for(o->output);
	const uint8_t *data;
	size_t len;
	int err;

	if (!path)
		return -ENOMEM;
	data = value_capture_buffer(vc, &len);
	err = debug_buffer_write(path, data, len, o->force);
	if (!err)
		value_capture_summary(vc, path, 0);
	free(path);
	return err;
}

/* The last lines of a conversion, as record says them. */
static int convert_said(const struct convert_opts *o,
			const struct raw_info *info,
			const struct collector_stats *stats,
			const struct symbol_calibration *probe_time,
			const char *runs, const char *files,
			const struct etd_dump *dump)
{
	char how[512];
	/* as record counts them: the kernel's and the runtime's losses */
	uint64_t drops = info->drops + stats->lost_in_flush;

	/* the kernel counts a lost flush whole; some of it was read before */
	drops -= stats->read_then_lost < drops ? stats->read_then_lost : drops;
	report_end(o, info, how, sizeof(how));
	if (dump)
		summary_totals(how, o->output, dump, stats, drops);
	else
		summary_totals_text(how, files ? files : o->output, runs,
				    stats, drops);
	summary_notes(stats, drops);
	if (probe_time->done)
		symbol_calibration_say(probe_time, "were written");
	if (info->state == RAW_CORRUPT)
		return EXIT_DAMAGED;
	return drops ? EXIT_LOST : EXIT_OK;
}

/* The ETDump record wrote beside the capture, built as record built it. */
static int convert_as_recorded(const struct convert_opts *o,
			       struct raw_reader *r, struct collector *col,
			       struct symbol_calibration *probe_time)
{
	struct collector_stats stats = { 0 };
	char runs[1024], files[2 * PATH_MAX + 64], *kept = NULL;
	bool write_failed;
	int err;

	err = convert_stream(r, col, o->output, o->force, &kept, &stats,
			     probe_time, runs, sizeof(runs), files,
			     sizeof(files), &write_failed);
	if (err && write_failed) {
		output_error(o->output, err, kept);
		free(kept);
		return EXIT_FAIL;
	}
	if (err) {
		p_err("%s: %s", o->input, strerror(-err));
		return EXIT_FAIL;
	}
	/* record --values: the debug buffer beside the ETDump, as record */
	if (collector_values(col) && write_values(o, collector_values(col)))
		return EXIT_FAIL;
	return convert_said(o, raw_reader_info(r), &stats, probe_time, runs,
			    files, NULL);
}

int cmd_convert(int argc, char **argv)
{
	struct symbol_calibration probe_time = { 0 };
	struct collector_stats stats = { 0 };
	struct sched_lanes lanes = { 0 };
	struct etd_dump dump = { 0 };
	const struct raw_info *info;
	struct collector *col = NULL;
	struct raw_reader *r = NULL;
	char *kept = NULL;
	struct pprof_source pprof;
	struct convert_opts o;
	int err, ret = EXIT_FAIL;
	char msg[256];

	err = parse_convert_args(argc, argv, &o);
	if (err)
		return err < 0 ? 0 : err;
	pprof = (struct pprof_source){ .input = o.input, .argv = o.argv,
				       .argc = o.argc };
	if (output_check(o.output, o.force))
		return EXIT_FAIL;
	err = raw_reader_open(&r, o.input, msg, sizeof(msg));
	/* an ETDump makes a timeline and a profile too */
	if (err == -EPROTO && o.format != FORMAT_ETDUMP)
		return convert_etdump(o.input, o.output, o.chrome_flags,
				      o.force, o.format == FORMAT_PPROF ?
				      &pprof : NULL);
	if (err) {
		p_err("%s: %s", o.input, msg);
		return EXIT_FAIL;
	}
	info = raw_reader_info(r);
	col = collector_new();
	if (col && o.format == FORMAT_ETDUMP && convert_stream_fits(info)) {
		ret = convert_as_recorded(&o, r, col, &probe_time);
		goto cleanup;
	}
	err = col ? raw_replay(r, col, &lanes, &probe_time) : -ENOMEM;
	if (!err)
		err = collector_finish(col, &dump, &stats);
	/* record --allocations: for the timeline, not the Inspector's file */
	dump.allocations = ETD_ALLOCATIONS_LEAVE_OUT;
	if (err) {
		p_err("%s: %s", o.input, strerror(-err));
		goto cleanup;
	}
	sched_lanes_sort(&lanes);
	pprof.info = info;
	if (o.format == FORMAT_CHROME)
		err = chrome_write_file(&dump, info, &lanes, o.chrome_flags,
					o.output, o.force, &kept);
	else if (o.format == FORMAT_PPROF)
		err = pprof_write_file(&dump, &pprof, o.output, o.force,
				       &kept);
	else
		err = etdump_write_file(&dump, o.output, o.force, &kept);
	if (err) {
		output_error(o.output, err, kept);
		free(kept);
		goto cleanup;
	}
	/* record --values: the debug buffer beside the ETDump, as record */
	if (o.format == FORMAT_ETDUMP && collector_values(col) &&
	    write_values(&o, collector_values(col)))
		goto cleanup;
	ret = convert_said(&o, info, &stats, &probe_time, NULL, NULL, &dump);
cleanup:
	collector_free(col);
	etd_dump_free(&dump);
	sched_lanes_free(&lanes);
	raw_reader_free(r);
	return ret;
}

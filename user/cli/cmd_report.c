// SPDX-License-Identifier: BSD-3-Clause
/*
 * cmd_report.c - `etdump-bpf report`: the table ExecuTorch's Inspector
 * prints for an ETDump (print_data_tabular), computed natively and to the
 * same last digit, without Python, pandas or numpy.
 */
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/commands.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "model/run_note.h"
#include "read/etdump_reader.h"
#include "report/report_format.h"
#include "report/report_memory.h"
#include "report/report_note.h"
#include "report/report_stats.h"
#include "report/report_values.h"

static const char report_usage[] =
	"usage: etdump-bpf report FILE [--csv | --json] [--units ns|us|ms|s]\n"
	"                         [--sort COLUMN] [--top N]\n"
	"                         [--operator-call | --no-operator-call]\n"
	"       etdump-bpf report --values A [B] [--debug-buffer F]... [--atol X]\n"
	"       etdump-bpf report --memory FILE\n"
	"\n"
	"The table ExecuTorch's Inspector prints (print_data_tabular), without\n"
	"Python: for each event of each event block (runs with the same events\n"
	"merge into one block), p10, p50, p90, avg, min and max of its duration\n"
	"over the block's runs, computed exactly as the Inspector computes them;\n"
	"op_types and delegate_backend_name need an ETRecord and stay empty, as\n"
	"they do in the Inspector without one. Added: runs, each event's share\n"
	"of its block's total (the sum of its top-level events per run, shown\n"
	"as a '(block total)' line), the p50 and avg of each perf counter.\n"
	"\n"
	"  --csv               CSV (RFC 4180): every row and column, full precision\n"
	"  --json              a JSON array of row objects, the same\n"
	"  --units U           ns, us, ms (the Inspector's default) or s\n"
	"  --sort COLUMN       within each block: p10, p50, p90, avg, min, max,\n"
	"                      share or runs (largest first), or event_name\n"
	"  --top N             the first N events of each block (with --sort: the\n"
	"                      N largest; alone: by avg)\n"
	"  --operator-call     the table keeps OPERATOR_CALL rows (it leaves them\n"
	"                      out, as print_data_tabular does)\n"
	"  --no-operator-call  CSV and JSON leave them out too\n"
	"\n"
	"  --values            the values instead (record --values, or ETDumpGen's\n"
	"                      DebugEvents): per value dtype, shape, min, max,\n"
	"                      mean, NaN and Inf counts, and whether it was cut\n"
	"  --values A B        how far B's values are from A's, value by value,\n"
	"                      and the first operator whose output differs\n"
	"  --debug-buffer F    the debug buffer (default: the ETDump's name with\n"
	"                      .etdp replaced by .debug.bin); twice: A's, then B's\n"
	"  --atol X            with A B: differences up to X count as equal (0)\n"
	"  --memory            what the runtime allocated (record --allocations):\n"
	"                      per allocator, per run, per operator; FILE is the\n"
	"                      raw capture (--raw) or an ETDump written with\n"
	"                      --allocations-in-etdump\n"
	"\n"
	"Exit status: 0 printed; 1 the file cannot be read, or the Inspector\n"
	"cannot load it (one line says why, nothing is printed); 2 usage error.\n";

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "csv", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "units", required_argument, NULL, 'u' },
		{ "no-operator-call", no_argument, NULL, 'n' },
		{ "operator-call", no_argument, NULL, 'o' },
		{ "sort", required_argument, NULL, 's' },
		{ "top", required_argument, NULL, 't' },
		{ "values", no_argument, NULL, 'V' },
		{ "memory", no_argument, NULL, 'M' },
		{ "debug-buffer", required_argument, NULL, 'B' },
		{ "atol", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		CLI_COMMON_LONGOPTS,
		{},
	};
	struct report_values_input vin[2] = { { 0 } };
	bool values = false, memory = false;
	int nbuffers = 0;
	double atol = 0;
	struct report_output out = { .format = REPORT_TABLE };
	bool op_call = false, no_op_call = false;
	uint64_t top;
	char *end;
	enum report_unit unit = REPORT_MS;
	struct etd_dump dump = {};
	struct report rep = {};
	const char *path;
	char err[512];
	int c, ret;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h" CLI_COMMON_SHORTOPTS, longopts,
				NULL)) != -1) {
		if (cli_common_option(c))
			continue;
		switch (c) {
		case 'c':
		case 'j':
			if (out.format != REPORT_TABLE)
				return cli_usage_error("report", "choose one of --csv and --json");
			out.format = c == 'c' ? REPORT_CSV : REPORT_JSON;
			break;
		case 'u':
			if (report_unit_parse(optarg, &unit))
				return cli_usage_error("report", "invalid unit '%s' (ns, us, ms or s)",
						       optarg);
			break;
		case 'n':
			no_op_call = true;
			break;
		case 'o':
			op_call = true;
			break;
		case 's':
			if (report_sort_parse(optarg, &out.sort))
				return cli_usage_error("report", "invalid --sort '%s' (p10, p50, p90, avg, min, max, share, runs or event_name)",
						       optarg);
			break;
		case 't':
			if (parse_u64(optarg, 1, SIZE_MAX, &top))
				return cli_usage_error("report", "invalid --top '%s' (a count, 1 or more)",
						       optarg);
			out.top = top;
			break;
		case 'V':
			values = true;
			break;
		case 'M':
			memory = true;
			break;
		case 'B':
			if (nbuffers == 2)
				return cli_usage_error("report", "--debug-buffer at most twice (A's, B's)");
			vin[nbuffers++].debug_buffer = optarg;
			break;
		case 'A':
			atol = strtod(optarg, &end);
			if (*end || !*optarg || !(atol >= 0) || isinf(atol))
				return cli_usage_error("report", "invalid --atol '%s' (a number >= 0)",
						       optarg);
			break;
		case 'h':
			fputs(report_usage, stdout);
			return EXIT_OK;
		default:
			return cli_option_error("report", c, argv);
		}
	}
	if (memory && !values && !nbuffers && argc - optind == 1)
		return report_memory(stdout, argv[optind]);
	if (values && !memory && (argc - optind == 1 || argc - optind == 2) &&
	    nbuffers <= argc - optind) {
		vin[0].etdump = argv[optind];
		vin[1].etdump = argv[optind + 1];
		return report_values(stdout, &vin[0],
				     argc - optind == 2 ? &vin[1] : NULL, atol);
	}
	if (values || memory || nbuffers || atol)
		return cli_usage_error("report", "--values takes one or two ETDumps, --memory one file; --debug-buffer and --atol go with --values");
	if (argc - optind != 1)
		return cli_usage_error("report", "give one ETDump (or - for standard input)");
	if (op_call && no_op_call)
		return cli_usage_error("report", "choose one of --operator-call and --no-operator-call");
	out.no_operator_call = no_op_call ||
			       (out.format == REPORT_TABLE && !op_call);
	if (out.top && out.sort == REPORT_SORT_FILE)
		out.sort = REPORT_SORT_AVG;
	path = argv[optind];
	out.source = path;
	ret = etdump_read_file(path, &dump, err, sizeof(err));
	if (ret) {
		p_err("%s: %s", path, err);
		return EXIT_FAIL;
	}
	out.call_order_ids = report_note_call_order(&dump);
	out.kept_every = run_note_every(&dump);
	report_note_duty(&dump, out.duty, sizeof(out.duty));
	ret = report_build(&dump, unit, &rep, err, sizeof(err));
	if (ret) {
		p_err("%s: %s", path, err);
		goto cleanup;
	}
	ret = report_print(stdout, &rep, &out);
	if (ret)
		p_err("%s: cannot print the report: %s", path, strerror(-ret));
	report_free(&rep);
cleanup:
	etd_dump_free(&dump);
	return ret ? EXIT_FAIL : EXIT_OK;
}

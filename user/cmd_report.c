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
#include "commands.h"
#include "etdump_reader.h"
#include "log.h"
#include "report_format.h"
#include "report_stats.h"
#include "report_memory.h"
#include "report_values.h"

static const char report_usage[] =
	"usage: etdump-bpf report FILE [--csv | --json] [--units ns|us|ms|s]\n"
	"                         [--no-operator-call]\n"
	"       etdump-bpf report --values A [B] [--debug-buffer F]... [--atol X]\n"
	"       etdump-bpf report --memory FILE\n"
	"\n"
	"For each event of each event block (runs with the same events merge\n"
	"into one block, as in ExecuTorch's Inspector): p10, p50, p90, avg, min\n"
	"and max of its duration over the block's runs, computed exactly as the\n"
	"Inspector computes them, plus the p50 and avg of each perf counter the\n"
	"recording holds.\n"
	"\n"
	"  --csv               CSV (RFC 4180), numbers in full precision\n"
	"  --json              a JSON array of row objects, full precision\n"
	"  --units U           ns, us, ms (the Inspector's default) or s\n"
	"  --no-operator-call  leave out OPERATOR_CALL rows, as print_data_tabular\n"
	"                      does (they are shown by default, op_call = True)\n"
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
		{ "values", no_argument, NULL, 'V' },
		{ "memory", no_argument, NULL, 'M' },
		{ "debug-buffer", required_argument, NULL, 'B' },
		{ "atol", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct report_values_input vin[2] = { { 0 } };
	bool values = false, memory = false;
	int nbuffers = 0;
	double atol = 0;
	char *end;
	struct report_output out = { .format = REPORT_TABLE };
	enum report_unit unit = REPORT_MS;
	struct etd_dump dump = {};
	struct report rep = {};
	const char *path;
	char err[512];
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
		case 'j':
			if (out.format != REPORT_TABLE) {
				p_err("report: choose one of --csv and --json");
				return EXIT_USAGE;
			}
			out.format = c == 'c' ? REPORT_CSV : REPORT_JSON;
			break;
		case 'u':
			if (report_unit_parse(optarg, &unit)) {
				p_err("report: invalid unit '%s' (ns, us, ms or s)",
				      optarg);
				return EXIT_USAGE;
			}
			break;
		case 'n':
			out.no_operator_call = true;
			break;
		case 'V':
			values = true;
			break;
		case 'M':
			memory = true;
			break;
		case 'B':
			if (nbuffers == 2) {
				p_err("report: --debug-buffer at most twice (A's, B's)");
				return EXIT_USAGE;
			}
			vin[nbuffers++].debug_buffer = optarg;
			break;
		case 'A':
			atol = strtod(optarg, &end);
			if (*end || !*optarg || !(atol >= 0) || isinf(atol)) {
				p_err("report: invalid --atol '%s' (a number >= 0)",
				      optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			fputs(report_usage, stdout);
			return EXIT_OK;
		default:
			fputs(report_usage, stderr);
			return EXIT_USAGE;
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
	if (argc - optind != 1 || values || memory || nbuffers || atol) {
		fputs(report_usage, stderr);
		return EXIT_USAGE;
	}
	path = argv[optind];
	out.source = path;
	ret = etdump_read_file(path, &dump, err, sizeof(err));
	if (ret) {
		p_err("%s: %s", path, err);
		return EXIT_FAIL;
	}
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
